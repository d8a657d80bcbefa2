"""The solution verifier: real solutions pass, and every corruption is caught at the right move."""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import DATA

from fcanalyze import NotationError, Variant, microsoft_deal
from fcanalyze.game.board import Board
from fcanalyze.game.notation import (
    CELL,
    COLUMN,
    FOUNDATION,
    Move,
    format_move,
    format_solution,
    parse_move,
    parse_solution,
    solution_tokens,
)
from fcanalyze.game.scoring import score
from fcanalyze.game.variant import SequenceMoves
from fcanalyze.referee.position import IllegalMove, Position
from fcanalyze.referee.replay import _play_fast, replay

SOLUTIONS = {
    "lg": (DATA / "ms1-4cells.fcsolve-lg.snx.txt").read_text(),
    "tfts": (DATA / "ms1-4cells.fcsolve-tfts.snx.txt").read_text(),
}
FREECELL = Variant()


def test_both_deal_one_solutions_verify_with_their_counts():
    lg = replay(microsoft_deal(1), FREECELL, SOLUTIONS["lg"])
    assert lg.won and lg.moves == 115
    # 13v2, 26v4, 42v4, 78v6 say their size; 5 more moves without 'v' move 2+ cards.
    assert lg.multi_card_moves == 9 and lg.single_card_moves == 106
    assert lg.card_moves > lg.moves
    tfts = replay(microsoft_deal(1), FREECELL, SOLUTIONS["tfts"])
    assert tfts.won and (tfts.moves, tfts.multi_card_moves, tfts.card_moves) == (220, 0, 220)


def test_single_card_expansion_counts_of_the_lg_solution():
    pos = Position(microsoft_deal(1), FREECELL)
    expanded = 0
    for token in solution_tokens(SOLUTIONS["lg"]):
        move = parse_move(token)
        expanded += len(pos.expand(move))
        pos.apply(move)
    assert pos.is_won()
    assert replay(microsoft_deal(1), FREECELL, SOLUTIONS["lg"]).card_moves == expanded


def _corruptions(token: str, pos: Position):
    """Every single-token change: another source, another destination, another size."""
    variant = pos.variant
    move = parse_move(token)
    sources = [(COLUMN, i) for i in range(variant.columns)] + [(CELL, i) for i in range(variant.cells)]
    dests = sources + [(FOUNDATION, 0)]
    for kind, index in sources:
        if (kind, index) != (move.source_kind, move.source):
            yield format_move(move._replace(source_kind=kind, source=index))
    for kind, index in dests:
        if (kind, index) != (move.dest_kind, move.dest):
            yield format_move(move._replace(dest_kind=kind, dest=index))
    if move.source_kind == move.dest_kind == COLUMN:
        count = pos.check(move)  # the size the move really has, written or inferred
        base = token.split("v")[0]
        yield f"{base}v{count + 1:x}"
        if count > 1:
            yield f"{base}v{count - 1:x}"


def _legal_by_generation(pos: Position, token: str) -> bool:
    """Is `token` legal here, judged by move generation instead of check()?"""
    move = parse_move(token)
    legal = pos.legal_moves()
    if move.count is not None:
        return move in legal
    if move.dest_kind != COLUMN or move.source_kind == CELL or not pos.board.columns[move.dest]:
        return move.with_count(1) in legal
    return any(m[:4] == move[:4] for m in legal)  # onto a card, only one size can fit


def _wins_by_generation(start: Position, tokens: list[str]) -> bool:
    pos = start.copy()
    for token in tokens:
        if not _legal_by_generation(pos, token):
            return False
        pos.apply(parse_move(token))
    return pos.is_won()


@pytest.mark.parametrize("name", sorted(SOLUTIONS))
def test_every_single_token_corruption_is_rejected_at_the_right_move(name):
    tokens = solution_tokens(SOLUTIONS[name])
    pos = Position(microsoft_deal(1), FREECELL)
    tried = at_the_move = still_wins = 0
    for i, token in enumerate(tokens):
        changes = [(c, [c] + tokens[i + 1 :]) for c in _corruptions(token, pos)]
        if i + 1 < len(tokens):
            changes.append((tokens[i + 1], tokens[i + 1 :]))  # move i dropped
        for first, rest in changes:
            tried += 1
            # The prefix is unchanged, so replay from the position before move i.
            verdict = replay(pos.board, FREECELL, rest)
            if verdict.won:
                # A changed move can be another way to win (a card onto a card instead
                # of into an empty column, say); confirm it through move generation.
                assert _wins_by_generation(pos, rest), (name, i + 1, token, first)
                still_wins += 1
            if _legal_by_generation(pos, first):
                assert verdict.failed_move is None or verdict.failed_move > 1
            else:
                at_the_move += 1
                assert verdict.failed_move == 1, (i + 1, token, first, verdict)
                assert verdict.token == first and verdict.reason
        pos.apply(parse_move(token))
    assert pos.is_won()
    assert tried > 20 * len(tokens) and at_the_move > tried // 2 and still_wins < 10


def test_dropping_the_last_move_is_not_a_win():
    tokens = solution_tokens(SOLUTIONS["lg"])
    verdict = replay(microsoft_deal(1), FREECELL, tokens[:-1])
    assert not verdict.won and verdict.failed_move is None
    assert "1 card(s) are not home" in verdict.reason
    assert verdict.summary().startswith("NOT WON")


def test_illegal_move_reports_index_token_and_reason():
    tokens = solution_tokens(SOLUTIONS["lg"])
    tokens[5] = "b3"  # was b2: the 8H in cell b does not go on column 3
    verdict = replay(microsoft_deal(1), FREECELL, tokens)
    assert verdict.failed_move == 6 and verdict.token == "b3"
    assert verdict.summary() == "ILLEGAL: move 6 (b3): 8H does not go on 2H in column 3"
    notation = replay(microsoft_deal(1), FREECELL, ["5a", "zz"])
    assert notation.failed_move == 2 and "not a move" in notation.reason


def test_a_board_is_not_changed_by_replay():
    board = microsoft_deal(1)
    before = board.copy()
    replay(board, FREECELL, SOLUTIONS["lg"])
    assert board == before


def _fcsolve_rows():
    for line in (DATA / "fcsolve_solutions.txt").read_text().splitlines():
        if not line.startswith("#"):
            deal, spec, cells, args, solution = line.split("\t")
            yield int(deal), spec, int(cells), args, solution


FCSOLVE = list(_fcsolve_rows())


def test_fc_solve_solutions_under_many_variants_all_verify():
    kinds = {(spec, cells) for _, spec, cells, _, _ in FCSOLVE}
    assert len(FCSOLVE) > 150 and len(kinds) >= 7
    for deal, spec, cells, args, solution in FCSOLVE:
        variant = Variant.parse(spec, cells=cells)
        verdict = replay(microsoft_deal(deal, variant), variant, solution)
        assert verdict.won, (deal, spec, cells, args, verdict.summary())
        # Carrying out every sequence move card by card gives the same verdict and counts.
        assert replay(microsoft_deal(deal, variant), variant, solution, card_by_card=True) == verdict


def test_variant_rules_really_differ_on_peer_solutions():
    """Solutions that need their variant's rules fail under plain FreeCell's."""
    failing = {}
    for deal, spec, cells, _, solution in FCSOLVE:
        if spec in ("relaxed-freecell", "bakers-game"):
            plain = Variant(cells=cells)
            verdict = replay(microsoft_deal(deal, plain), plain, solution)
            failing.setdefault(spec, []).append(not verdict.won)
    assert any(failing["relaxed-freecell"]) and any(failing["bakers-game"])


@pytest.mark.parametrize(
    "token,move",
    [
        ("3a", Move(COLUMN, 2, CELL, 0, None)),
        ("a5", Move(CELL, 0, COLUMN, 4, None)),
        ("1h", Move(COLUMN, 0, FOUNDATION, 0, None)),
        ("54", Move(COLUMN, 4, COLUMN, 3, None)),
        ("26v4", Move(COLUMN, 1, COLUMN, 5, 4)),
        ("78va", Move(COLUMN, 6, COLUMN, 7, 10)),
        ("0i", Move(COLUMN, 9, CELL, 7, None)),
    ],
)
def test_notation_parses_and_prints_back(token, move):
    assert parse_move(token) == move
    assert format_move(move) == token


@pytest.mark.parametrize("token", ["", "3", "3x", "h3", "hh", "26v", "26v0", "26vg", "3a4", "jj"])
def test_bad_notation_is_refused(token):
    with pytest.raises(NotationError):
        parse_move(token)


def test_solution_text_round_trips():
    moves = parse_solution(SOLUTIONS["lg"])
    assert format_solution(moves) == " ".join(SOLUTIONS["lg"].split())
    with pytest.raises(NotationError, match="move 2: 'q9'"):
        parse_solution("3a q9")


def test_illegal_move_kinds_have_specific_reasons():
    pos = Position(microsoft_deal(1), FREECELL)
    cases = {
        "ah": "free cell a is empty",
        "9a": "there is no column 9",
        "5e": "there is no free cell e",
        "1h": "6S cannot go home yet: the foundation needs AS next",
        "11": "column 1 is both source and destination",
        "12": "nothing at the end of column 1 fits on 9C",
        "12v2": "the last 2 cards of column 1 are not a run",
        "1av2": "only one card at a time can move to a free cell",
    }
    for token, reason in cases.items():
        with pytest.raises(IllegalMove) as err:
            pos.check(parse_move(token))
        assert reason in str(err.value), token


def _text_score(solution: str) -> int:
    """The app's score read off single-card tokens alone: 10 for each move home ('h'),
    5 for each from a free cell (a..d) to a column (a digit)."""
    tokens = solution_tokens(solution)
    home = sum(t.endswith("h") for t in tokens)
    out_of_cells = sum(t[0] in "abcd" and t[1].isdigit() for t in tokens)
    return 10 * home + 5 * out_of_cells


def test_scores_of_the_deal_one_solutions():
    # tfts moves single cards only: its score can be read off the text.
    tfts = replay(microsoft_deal(1), FREECELL, SOLUTIONS["tfts"])
    assert tfts.score == _text_score(SOLUTIONS["tfts"])
    assert tfts.score > 520  # every card home once, and some out of a cell
    # lg's sequence moves score the cards their expansion brings back out of the cells.
    pos = Position(microsoft_deal(1), FREECELL)
    expected = 0
    for token in solution_tokens(SOLUTIONS["lg"]):
        move = parse_move(token)
        for single in pos.expand(move):
            expected += (
                10
                if single.dest_kind == FOUNDATION
                else 5
                if single.source_kind == CELL and single.dest_kind == COLUMN
                else 0
            )
        pos.apply(move)
    lg = replay(microsoft_deal(1), FREECELL, SOLUTIONS["lg"])
    assert lg.score == expected
    assert lg.score > _text_score(SOLUTIONS["lg"])  # its supermoves went through the cells
    assert replay(microsoft_deal(1), FREECELL, SOLUTIONS["lg"], card_by_card=True).score == expected


def test_a_failed_replay_keeps_the_score_of_the_legal_moves_before_it():
    tokens = solution_tokens(SOLUTIONS["tfts"])
    cut = tokens[:40]
    verdict = replay(microsoft_deal(1), FREECELL, cut + ["h1"])
    assert not verdict.won and verdict.failed_move == 41
    assert verdict.score == _text_score(" ".join(cut))


FAST_PATH_VARIANTS = [
    ("freecell", 4),
    ("freecell", 1),
    ("freecell", 0),
    ("bakers-game", 2),
    ("freecell,empty=kings", 3),
    ("relaxed-freecell", 1),
    ("single-move-freecell", 4),
    ("freecell,takeback=yes", 2),
    ("seahaven", None),
    ("eight-off", None),
]


@pytest.mark.parametrize("spec, cells", FAST_PATH_VARIANTS)
def test_the_fast_replay_judges_every_move_as_check_does(spec, cells):
    """_play_fast, the replay of winning solutions, against check() and carry_out()
    on every move that can be written (each source, destination and size) along
    random walks through deals: a move it plays must be legal, with the same result
    and the same counts as the careful replay's; one it declines must change nothing,
    and be illegal or a run whose size the notation left out."""
    rules = Variant.parse(spec, cells=cells)
    rng = random.Random(f"{spec}/{cells}")
    places = (
        [(COLUMN, i) for i in range(rules.columns + 1)]
        + [(CELL, i) for i in range(rules.cells + 1)]
        + [(FOUNDATION, s) for s in range(4)]
    )
    played = {"single": 0, "run": 0, "takeback": 0}
    for deal in rng.sample(range(1, 32001), 4):
        position = Position(microsoft_deal(deal, rules), rules)
        for _ in range(50):
            for (source_kind, source), (dest_kind, dest) in itertools.product(places, places):
                for count in (None, 1, 2, 3, 5):
                    move = Move(source_kind, source, dest_kind, dest, count)
                    try:
                        legal_count = position.check(move)
                    except IllegalMove:
                        legal_count = None
                    fast = position.board.copy()
                    tally = _play_fast(fast, rules, [move])
                    if tally.played == 0:
                        assert fast == position.board, move
                        assert legal_count is None or (count is None and legal_count > 1), move
                        continue
                    assert legal_count is not None, move
                    expected = position.copy()
                    expected.carry_out(move, legal_count)
                    assert fast == expected.board, move
                    careful = replay(position.board, rules, [move], card_by_card=True)
                    assert careful.moves == 1 and careful.failed_move is None, move
                    assert (tally.multi, tally.card_moves) == (careful.multi_card_moves, careful.card_moves), move
                    sent_home = fast.cards_home() - position.board.cards_home() + tally.taken_back
                    assert score(sent_home, tally.out_of_cells) == careful.score, move
                    played["takeback" if source_kind == FOUNDATION else "run" if legal_count > 1 else "single"] += 1
            moves = position.legal_moves()
            if not moves:
                break
            position.apply(rng.choice(moves))
    assert played["single"] > 200
    # Random walks build runs that may move whole often enough only with room to spare.
    if rules.sequence_moves is not SequenceMoves.SINGLE and rules.cells >= 3:
        assert played["run"] > 0
    if rules.takeback:
        assert played["takeback"] > 0


def test_the_fast_replay_leaves_moves_built_by_hand_to_check_and_a_board_that_does_not_fit_is_refused():
    """A Move with a negative index or an unknown kind is not read by the fast replay
    (Python would take index -1 as the last column); a winning solution on a board of
    the wrong size is refused as before, not replayed by the fast path."""
    rules = Variant.parse("freecell")
    board = microsoft_deal(1, rules)
    odd_moves = (
        Move(COLUMN, -1, CELL, 0, None),
        Move("pile", 0, CELL, 0, None),
        Move(COLUMN, 0, CELL, -4, None),
        Move(COLUMN, 0, COLUMN, 1, 0),
        Move(COLUMN, 0, COLUMN, 1, -1),
    )
    for move in odd_moves:
        untouched = board.copy()
        assert _play_fast(untouched, rules, [move]).played == 0
        assert untouched == board
    solution = (DATA / "ms1-4cells.fcsolve-lg.snx.txt").read_text()
    assert replay(board, rules, solution).won
    with pytest.raises(ValueError, match="variant wants 3 and 8"):
        replay(board, rules.with_cells(3), solution)


@pytest.mark.parametrize(
    "count, column, home",
    [
        (0, [50, 47], [13, 13, 12, 11]),  # KH QS: col[-0] is the king at the bottom
        (-1, [49, 50, 47], [13, 12, 12, 11]),  # KD KH QS: col[1] is the king of hearts
    ],
)
def test_a_move_of_no_cards_built_by_hand_is_illegal_not_a_shortcut_to_a_win(count, column, home):
    """check() once took a Move of 0 (or -1) cards as legal after looking at the wrong
    card, and moved the top card unchecked: here the queen of spades into an empty
    column under kings-only rules, on the way to a 'win' (found by a review)."""
    rules = Variant.parse("freecell,empty=kings")
    board = Board([list(column), [51], [], [], [], [], [], []], [None] * 4, list(home))
    solution = [Move(COLUMN, 0, COLUMN, 2, count), Move(COLUMN, 2, FOUNDATION, 0), Move(COLUMN, 1, FOUNDATION, 0)]
    solution += [Move(COLUMN, 0, FOUNDATION, 0)] * (len(column) - 1)
    assert sum(home) + len(column) + 1 == 52
    verdict = replay(board, rules, solution)
    assert not verdict.won and verdict.failed_move == 1
    assert "one card or more" in (verdict.reason or "")
    # The same line with the move written as the single-card move it is, is legal
    # up to the queen's empty column, which kings-only forbids.
    assert replay(board, rules, [Move(COLUMN, 0, COLUMN, 2, 1), *solution[1:]]).failed_move == 1

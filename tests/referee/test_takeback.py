"""The take-back rule (takeback=yes): its notation, the referee's checks and scores, and verdicts on real deals."""

from __future__ import annotations

import itertools

import pytest
from conftest import verdicts_at

from fcanalyze import NotationError, Variant, microsoft_deal, solve
from fcanalyze.game.cards import make_card, parse_card
from fcanalyze.game.notation import CELL, COLUMN, FOUNDATION, Move, format_move, parse_move
from fcanalyze.referee.position import IllegalMove, Position
from fcanalyze.referee.replay import replay

TAKEBACK = Variant.parse("freecell,takeback=yes")


@pytest.mark.parametrize(
    "token,move",
    [
        ("hs3", Move(FOUNDATION, 3, COLUMN, 2, None)),
        ("hda", Move(FOUNDATION, 1, CELL, 0, None)),
        ("hc0", Move(FOUNDATION, 0, COLUMN, 9, None)),
        ("hhi", Move(FOUNDATION, 2, CELL, 7, None)),
    ],
)
def test_takeback_notation_parses_and_prints_back(token, move):
    assert parse_move(token) == move
    assert format_move(move) == token


@pytest.mark.parametrize("token", ["hx3", "hs", "hsv", "h", "sh3"])
def test_bad_takeback_notation_is_refused(token):
    with pytest.raises(NotationError):
        parse_move(token)


def test_takeback_is_a_variant_key_with_a_canonical_name():
    assert TAKEBACK.takeback and TAKEBACK.name == "freecell,takeback=yes"
    assert Variant.parse("freecell,takeback=no") == Variant()
    assert Variant.parse("bakers-game,takeback=yes").name == "bakers-game,takeback=yes"
    assert Variant.parse(TAKEBACK.name, cells=1) == TAKEBACK.with_cells(1)
    with pytest.raises(Exception, match="takeback must be yes or no, got 'maybe'"):
        Variant.parse("freecell,takeback=maybe")


def _position_with_home(foundations: list[int], variant: Variant = TAKEBACK) -> Position:
    """Deal 1 with the given foundations: the cards home are taken off the columns."""
    board = microsoft_deal(1, variant)
    home = {make_card(rank, suit) for suit, height in enumerate(foundations) for rank in range(1, height + 1)}
    board.columns = [[c for c in col if c not in home] for col in board.columns]
    board.foundations = list(foundations)
    return Position(board, variant)


def test_the_referee_checks_takebacks_and_says_why_one_is_illegal():
    pos = _position_with_home([2, 0, 3, 0])  # AC 2C home, AH 2H 3H home
    tops = [col[-1] for col in pos.board.columns]
    with pytest.raises(IllegalMove, match="foundation hs is empty"):
        pos.check(parse_move("hs1"))
    with pytest.raises(IllegalMove, match="2C taken back off foundation hc must go onto a column or into a free cell"):
        pos.check(parse_move("hch"))
    # 3H goes onto a black 4 only (deal 1 has none on top then), 2C onto a red 3.
    assert parse_card("3D") in tops
    for dest, top in enumerate(tops):
        for suit, card, parents in ((2, "3H", ("4C", "4S")), (0, "2C", ("3D", "3H"))):
            move = Move(FOUNDATION, suit, COLUMN, dest, None)
            if top in map(parse_card, parents):
                assert pos.check(move) == 1
            else:
                with pytest.raises(IllegalMove, match=f"{card} does not go on"):
                    pos.check(move)
    assert pos.check(parse_move("hha")) == 1
    played = pos.copy()
    played.apply(parse_move("hha"))
    assert played.board.foundations == [2, 0, 2, 0] and played.board.cells[0] == parse_card("3H")
    with pytest.raises(IllegalMove, match="free cell a already holds 3H"):
        played.check(parse_move("hca"))
    # Without the rule, nothing leaves a foundation.
    classic = _position_with_home([2, 0, 3, 0], Variant())
    with pytest.raises(IllegalMove, match="cards never leave the foundations"):
        classic.check(parse_move("hha"))


def _settled_by_definition(foundations: list[int]) -> list[int]:
    """The settled cards by their definition: of the cards home, strike out, until none
    is left, any card above a struck card of its suit or with a card that fits on it
    (rank one lower, other colour) not in the set."""
    cards = {(suit, rank) for suit in range(4) for rank in range(1, foundations[suit] + 1)}
    red = [False, True, True, False]
    while True:
        keep = {
            (s, r)
            for s, r in cards
            if all((s, q) in cards for q in range(1, r))
            and all((o, r - 1) in cards for o in range(4) if red[o] != red[s] and r > 1)
        }
        if keep == cards:
            return [sum(1 for s, _ in cards if s == suit) for suit in range(4)]
        cards = keep


def test_settled_heights_follow_their_definition():
    for foundations in itertools.product(range(0, 14, 3), range(0, 14, 2), range(1, 14, 3), range(0, 14, 4)):
        pos = _position_with_home(list(foundations))
        assert pos.settled_heights() == _settled_by_definition(list(foundations)), foundations
    # Same-suit building: everything home is settled.
    suited = _position_with_home([3, 0, 9, 1], Variant.parse("bakers-game,takeback=yes"))
    assert suited.settled_heights() == [3, 0, 9, 1]


def test_deal_90_with_one_cell_is_won_only_with_takeback():
    # The published table (and fc-solve, tests/data) has deal 90 lost with 1 cell.
    assert verdicts_at(1)[90] == "unsolvable"
    assert solve(90, cells=1).status == "unsolvable"
    won = solve(90, cells=1, variant=TAKEBACK.name)
    assert won.status == "solved"  # solve() has the referee replay it, or raises
    tokens = won.solution
    takebacks = [t for t in tokens if t.startswith("h")]
    assert takebacks, "a win the classic rules lack must take a card back"
    one_cell = TAKEBACK.with_cells(1)
    verdict = replay(microsoft_deal(90, one_cell), one_cell, tokens)
    assert verdict.won and verdict.score == won.score
    # Sent home: all 52 cards, plus each card taken back once more.
    assert verdict.score == replay(microsoft_deal(90, one_cell), one_cell, tokens, card_by_card=True).score
    assert verdict.score >= 10 * (52 + len(takebacks))
    classic = replay(microsoft_deal(90, one_cell), Variant(cells=1), tokens)
    assert not classic.won and classic.token == takebacks[0]
    assert "cards never leave the foundations" in (classic.reason or "")


def test_takeback_scores_count_each_card_sent_home_each_time():
    # 3H back into cell a, then home again: 0 for the take-back, 10 for going home.
    pos = _position_with_home([0, 0, 3, 0])
    verdict = replay(pos.board, TAKEBACK, ["hha", "ah"])
    assert not verdict.won and verdict.score == 10
    verdict = replay(pos.board, TAKEBACK, ["hha", "ha"])
    assert verdict.failed_move == 2 and verdict.score == 0


def test_takeback_never_loses_a_deal_the_classic_rules_win():
    # Deals 1..40 with 1 cell and with 2: take-back only adds moves, so every deal won
    # without it is won with it; verdicts without it are fc-solve's (tests/data).
    for cells in (1, 2):
        classic = verdicts_at(cells)
        for deal in range(1, 41):
            result = solve(deal, cells=cells, variant=TAKEBACK.name)
            assert result.status in ("solved", "unsolvable"), (deal, cells)
            if classic[deal] == "solved":
                assert result.status == "solved", (deal, cells)


def test_solve_and_verify_on_the_command_line(run_cli, tmp_path):
    spec = ["--cells", "1", "--variant", "freecell,takeback=yes"]
    solution = tmp_path / "90.sol"
    solved = run_cli("solve", "90", *spec, "--solution-out", solution)
    assert solved.exit_code == 0 and "SOLVED" in solved.output
    verified = run_cli("verify", "--deal", "90", *spec, solution)
    assert verified.exit_code == 0 and "(freecell,takeback=yes, 1 free cell): OK: wins in" in verified.output
    classic = run_cli("verify", "--deal", "90", "--cells", "1", solution)
    assert classic.exit_code == 1 and "cards never leave the foundations" in classic.output

"""Replays a solution move by move under the rules and says whether it wins, or where it breaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import NotationError
from ..game.board import Board
from ..game.cards import DECK_SIZE, RANK_OF, SUIT_OF, make_card
from ..game.notation import CELL, COLUMN, FOUNDATION, Move, parse_move, solution_tokens
from ..game.scoring import score
from ..game.variant import Build, EmptyColumn, SequenceMoves, Variant
from ..inputs import quote
from .position import GOES_ON, KING, IllegalMove, Position, expansion_counts, malformed, supermove_limit


@dataclass(frozen=True)
class Verdict:
    """The outcome of replaying a solution.

    `moves` counts the moves replayed legally (a sequence move counts as one);
    `multi_card_moves` how many of them moved more than one card; `foundation_moves`
    how many sent a card to a foundation; `card_moves` the single-card moves they
    stand for once sequence moves are expanded through the free cells and empty
    columns. `score` is what the moves replayed earn under the FreeCell Solitaire
    app's scoring (see `scoring.py`). When the replay fails,
    `failed_move` is the 1-based number of the offending move, `token` its text and
    `reason` why.
    """

    won: bool
    moves: int
    multi_card_moves: int
    card_moves: int
    failed_move: int | None = None
    token: str | None = None
    reason: str | None = None
    score: int = 0
    foundation_moves: int = 0

    @property
    def single_card_moves(self) -> int:
        return self.moves - self.multi_card_moves

    @property
    def non_foundation_moves(self) -> int:
        """The moves that do not send a card to a foundation: the moves a player makes
        where cards go home by themselves, and what a shortest line has fewest of."""
        return self.moves - self.foundation_moves

    def summary(self) -> str:
        if self.won:
            return (
                f"OK: wins in {self.moves} moves ({self.single_card_moves} of one card, "
                f"{self.multi_card_moves} sequence moves), {self.non_foundation_moves} of them not to a "
                f"foundation; {self.card_moves} card moves with sequence moves played card by card; "
                f"score {self.score}"
            )
        if self.failed_move is not None:
            return f"ILLEGAL: move {self.failed_move} ({quote(self.token)[1:-1]}): {self.reason}"
        return f"NOT WON: {self.reason}"


# Every solution item met so far (a token or a Move), as the fast replay reads it:
# (source kind, source, destination kind, destination, count) with the kinds as
# _COLUMN, _CELL or _FOUNDATION. A few thousand tokens are all the legal ones there
# are, and a dict lookup is cheaper than a parse even from parse_move's cache.
_COLUMN, _CELL, _FOUNDATION = 0, 1, 2
_KIND_CODES = {COLUMN: _COLUMN, CELL: _CELL, FOUNDATION: _FOUNDATION}
_CODED: dict[str | Move, tuple[int, int, int, int, int | None]] = {}


def _coded(item: str | Move) -> tuple[int, int, int, int, int | None]:
    """`item` as the fast replay reads it; NotationError if it is no move (a Move built
    by hand that `malformed` finds fault with is left to check(), which says why)."""
    move = item if isinstance(item, Move) else parse_move(item)
    reason = malformed(move)
    if reason is not None:
        raise NotationError(reason)
    code = _CODED[item] = (
        _KIND_CODES[move.source_kind],
        move.source,
        _KIND_CODES[move.dest_kind],
        move.dest,
        move.count,
    )
    return code


class _Tally(NamedTuple):
    """What the fast replay counted: the moves it played and what replay() reports of them."""

    played: int
    multi: int
    card_moves: int
    out_of_cells: int
    taken_back: int
    to_foundations: int


def _play_fast(board: Board, variant: Variant, items: Sequence[str | Move]) -> _Tally:
    """Plays `items` on `board` (changed in place) until the first it cannot vouch for,
    and returns what it counted.

    A sweep replays every solution it records, and this is that replay's cost: the
    moves are checked in one loop over plain lists, with no call per single-card
    move, in half the time a replay with check() took (measured on deals 1..2000). It vouches only for what it checks
    in full, by the same rules as check(): it stops, leaving the rest to replay()'s
    careful path, at any move it finds illegal, at a token that is no move, and at a
    column-to-column move whose size the notation leaves out when more than one card
    would move (check() works that size out). A test holds it to check() on every
    move that can be written, along random walks through deals of every variant.
    """
    columns, cells, home = board.columns, board.cells, board.foundations
    n_columns, n_cells = len(columns), len(cells)
    goes_on = GOES_ON[variant.build is Build.SUIT]
    kings_only = variant.empty_column is EmptyColumn.KINGS
    takeback = variant.takeback
    single_moves_only = variant.sequence_moves is SequenceMoves.SINGLE
    expand = variant.sequence_moves is SequenceMoves.SUPERMOVE
    coded = _CODED.get
    played = multi = card_moves = out_of_cells = taken_back = to_foundations = 0
    for item in items:
        code = coded(item)
        if code is None:
            try:
                code = _coded(item)
            except NotationError:
                break
        source_kind, source, dest_kind, dest, count = code
        if count is None or count == 1:
            # One card: from the top of a column, out of a cell, or off a foundation.
            if source_kind == _COLUMN:
                if source >= n_columns or not columns[source]:
                    break
                card = columns[source][-1]
            elif source_kind == _CELL:
                if source >= n_cells:
                    break
                in_cell = cells[source]
                if in_cell is None:
                    break
                card = in_cell
            else:
                if not takeback or home[source] == 0 or dest_kind == _FOUNDATION:
                    break
                card = make_card(home[source], source)
            if dest_kind == _FOUNDATION:
                suit = SUIT_OF[card]
                if home[suit] + 1 != RANK_OF[card]:
                    break
                home[suit] += 1
                to_foundations += 1
            elif dest_kind == _CELL:
                if dest >= n_cells or cells[dest] is not None:
                    break
                cells[dest] = card
            else:
                if dest >= n_columns:
                    break
                target = columns[dest]
                # (A column's top card never goes on itself, so a column is never its own target.)
                if target:
                    if target[-1] not in goes_on[card]:
                        break
                elif kings_only and RANK_OF[card] != KING:
                    break
                if source_kind == _CELL:
                    out_of_cells += 1
                target.append(card)
            if source_kind == _COLUMN:
                columns[source].pop()
            elif source_kind == _CELL:
                cells[source] = None
            else:
                home[source] -= 1
                taken_back += 1
            card_moves += 1
        else:
            # A run of `count` cards from one column to another.
            if (
                single_moves_only
                or source_kind != _COLUMN
                or dest_kind != _COLUMN
                or source >= n_columns
                or dest >= n_columns
                or source == dest
                or not 2 <= count <= len(columns[source])
            ):
                break
            moving = columns[source][-count:]
            if not _is_run(moving, goes_on):
                break
            target = columns[dest]
            if target:
                if target[-1] not in goes_on[moving[0]]:
                    break
            elif kings_only and RANK_OF[moving[0]] != KING:
                break
            # Runs the free cells alone can carry need no count of the empty columns
            # (and the limit is never below 1 + free cells, but with single moves only).
            free_cells = cells.count(None)
            free_columns = 0
            if count > free_cells + 1:
                free_columns = columns.count([]) - (not target)
                if count > supermove_limit(free_cells, free_columns, variant):
                    break
            if expand:
                singles, from_cells = expansion_counts(count, free_cells, 0 if kings_only else free_columns)
                card_moves += singles
                out_of_cells += from_cells
            else:
                card_moves += count
            target.extend(moving)
            del columns[source][-count:]
            multi += 1
        played += 1
    return _Tally(played, multi, card_moves, out_of_cells, taken_back, to_foundations)


def _is_run(cards: list[int], goes_on: tuple[frozenset[int], ...]) -> bool:
    """Whether each of `cards` goes on the one before it (a plain loop: a generator in
    all() costs the fast replay's runs a third more)."""
    below = cards[0]
    for card in cards[1:]:
        if below not in goes_on[card]:
            return False
        below = card
    return True


def replay(
    board: Board, variant: Variant, solution: str | Sequence[str | Move], *, card_by_card: bool = False
) -> Verdict:
    """Replay `solution` (notation text, tokens or Moves) from `board`; the board is not changed.

    A sequence move must fit the supermove limit, (1 + empty cells) x 2^(empty columns),
    which is exactly what can be done one card at a time; `card_moves` counts its
    single-card expansion, and its score counts the cards that expansion brings back
    out of the free cells. With `card_by_card`, every sequence move is also carried out
    as that expansion, each single move checked (slower; the tests use it).

    A winning solution is replayed once, by the fast replay (`_play_fast`); any other,
    and every one with `card_by_card`, move by move with check(), which says why a
    move is illegal.
    """
    items: Sequence[str | Move] = solution_tokens(solution) if isinstance(solution, str) else solution
    home_at_start = board.cards_home()
    # The careful path says what is wrong with a board that does not fit the variant.
    board_fits = len(board.cells) == variant.cells and len(board.columns) == variant.columns
    if not card_by_card and board_fits:
        end = board.copy()
        tally = _play_fast(end, variant, items)
        if tally.played == len(items) and end.cards_home() == DECK_SIZE:
            points = score(DECK_SIZE - home_at_start + tally.taken_back, tally.out_of_cells)
            return Verdict(
                True, tally.played, tally.multi, tally.card_moves, score=points, foundation_moves=tally.to_foundations
            )
    return _replay_carefully(board, variant, items, card_by_card, home_at_start)


def _replay_carefully(
    board: Board, variant: Variant, items: Sequence[str | Move], card_by_card: bool, home_at_start: int
) -> Verdict:
    """replay(), move by move with check(): the verdict of a solution that does not win,
    with the move that breaks it and why."""
    position = Position(board.copy(), variant)
    expand = variant.sequence_moves is SequenceMoves.SUPERMOVE
    # The cards sent home are the difference in what is home, plus one for each card
    # taken back (which scores nothing, and earns its 10 again when it goes back home);
    # only the cards played out of the cells and off the foundations are counted move
    # by move.
    multi = card_moves = out_of_cells = taken_back = to_foundations = 0
    for number, item in enumerate(items, start=1):
        try:
            move = item if isinstance(item, Move) else parse_move(item)
            count = position.check(move)
            if count == 1:
                position.carry_out(move, 1)
                card_moves += 1
                to_foundations += move.dest_kind == FOUNDATION
                source_kind = move.source_kind
                if source_kind == CELL:
                    out_of_cells += move.dest_kind == COLUMN
                elif source_kind == FOUNDATION:
                    taken_back += 1
                continue
            multi += 1
            if not expand:
                position.carry_out(move, count)
                card_moves += count
            elif card_by_card:
                singles = position.expand(move, count)
                for single in singles:
                    position.apply(single)
                out_of_cells += sum(s.source_kind == CELL and s.dest_kind == COLUMN for s in singles)
                card_moves += len(singles)
            else:
                singles_count, from_cells = position.expansion_counts(move, count)
                card_moves += singles_count
                out_of_cells += from_cells
                position.carry_out(move, count)
        except (NotationError, IllegalMove) as e:
            points = score(position.board.cards_home() - home_at_start + taken_back, out_of_cells)
            return Verdict(
                False,
                number - 1,
                multi,
                card_moves,
                number,
                str(item),
                str(e),
                score=points,
                foundation_moves=to_foundations,
            )
    moves = len(items)
    points = score(position.board.cards_home() - home_at_start + taken_back, out_of_cells)
    if position.is_won():
        return Verdict(True, moves, multi, card_moves, score=points, foundation_moves=to_foundations)
    left = 52 - position.board.cards_home()
    return Verdict(
        False,
        moves,
        multi,
        card_moves,
        score=points,
        foundation_moves=to_foundations,
        reason=(
            f"all {moves} moves are legal, but {left} card(s) are not home at the end"
            if moves
            else f"the solution has no moves, and {left} card(s) are not home"
        ),
    )

"""Replays a solution move by move under the rules and says whether it wins, or where it breaks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import Board
from .errors import NotationError
from .inputs import quote
from .notation import CELL, COLUMN, FOUNDATION, Move, parse_move, solution_tokens
from .position import IllegalMove, Position, expansion_counts
from .scoring import score
from .variant import EmptyColumn, SequenceMoves, Variant


@dataclass(frozen=True)
class Verdict:
    """The outcome of replaying a solution.

    `moves` counts the moves replayed legally (a sequence move counts as one);
    `multi_card_moves` how many of them moved more than one card; `card_moves` the
    single-card moves they stand for once sequence moves are expanded through the
    free cells and empty columns. `score` is what the moves replayed earn under the
    FreeCell Solitaire app's scoring (see `scoring.py`). When the replay fails,
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

    @property
    def single_card_moves(self) -> int:
        return self.moves - self.multi_card_moves

    def summary(self) -> str:
        if self.won:
            return (
                f"OK: wins in {self.moves} moves ({self.single_card_moves} single-card, "
                f"{self.multi_card_moves} multi-card); {self.card_moves} single-card moves "
                f"with sequence moves expanded; score {self.score}"
            )
        if self.failed_move is not None:
            return f"ILLEGAL: move {self.failed_move} ({quote(self.token)[1:-1]}): {self.reason}"
        return f"NOT WON: {self.reason}"


# Every solution token met so far, parsed: a few hundred distinct ones cover millions of
# moves, and a dict lookup costs half what parse_move's cache does. (Moves given as
# Moves are looked up too, and simply missed.)
_PARSED: dict[str | Move, Move] = {}


def _parsed(item: str | Move) -> Move:
    if isinstance(item, Move):
        return item
    move = _PARSED[item] = parse_move(item)
    return move


def replay(
    board: Board, variant: Variant, solution: str | Sequence[str | Move], *, card_by_card: bool = False
) -> Verdict:
    """Replay `solution` (notation text, tokens or Moves) from `board`; the board is not changed.

    A sequence move must fit the supermove limit, (1 + empty cells) x 2^(empty columns),
    which is exactly what can be done one card at a time; `card_moves` counts its
    single-card expansion, and its score counts the cards that expansion brings back
    out of the free cells. With `card_by_card`, every sequence move is also carried out
    as that expansion, each single move checked (slower; the tests use it).
    """
    position = Position(board.copy(), variant)
    items: Sequence[str | Move] = solution_tokens(solution) if isinstance(solution, str) else solution
    expand = variant.sequence_moves is SequenceMoves.SUPERMOVE
    parsed_token = _PARSED.get
    play_single, play_run, check, carry_out = (
        position.play_single,
        position.play_run,
        position.check,
        position.carry_out,
    )
    # Empty columns hold parked cards in a sequence move's expansion unless only kings may fill them.
    parks_in_columns = variant.empty_column is EmptyColumn.ANY
    home_at_start = board.cards_home()
    # The cards sent home are the difference in what is home, plus one for each card
    # taken back (which scores nothing, and earns its 10 again when it goes back home);
    # only the cards played out of the cells and off the foundations are counted move
    # by move.
    multi = card_moves = out_of_cells = taken_back = 0
    for number, item in enumerate(items, start=1):
        try:
            move = parsed_token(item)
            if move is None:
                move = _parsed(item)
            if play_single(move):
                card_moves += 1
                out_of_cells += move.source_kind == CELL and move.dest_kind == COLUMN
                continue
            # A run's accounting is written out here rather than left to the shared path
            # below: that path recomputes the free space and costs the replay 14% (measured).
            if not card_by_card:
                ran = play_run(move)
                if ran is not None:
                    count, free_cells, free_columns = ran
                    multi += 1
                    if expand:
                        singles_count, from_cells = expansion_counts(
                            count, free_cells, free_columns if parks_in_columns else 0
                        )
                        card_moves += singles_count
                        out_of_cells += from_cells
                    else:
                        card_moves += count
                    continue
            count = check(move)
            if count == 1:
                carry_out(move, 1)
                card_moves += 1
                source_kind = move.source_kind
                if source_kind == CELL:
                    out_of_cells += move.dest_kind == COLUMN
                elif source_kind == FOUNDATION:
                    taken_back += 1
                continue
            multi += 1
            if not expand:
                carry_out(move, count)
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
                carry_out(move, count)
        except (NotationError, IllegalMove) as e:
            points = score(position.board.cards_home() - home_at_start + taken_back, out_of_cells)
            return Verdict(False, number - 1, multi, card_moves, number, str(item), str(e), score=points)
    moves = len(items)
    points = score(position.board.cards_home() - home_at_start + taken_back, out_of_cells)
    if position.is_won():
        return Verdict(True, moves, multi, card_moves, score=points)
    left = 52 - position.board.cards_home()
    return Verdict(
        False,
        moves,
        multi,
        card_moves,
        score=points,
        reason=(
            f"all {moves} moves are legal, but {left} card(s) are not home at the end"
            if moves
            else f"the solution has no moves, and {left} card(s) are not home"
        ),
    )

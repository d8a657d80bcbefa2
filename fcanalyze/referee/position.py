"""The referee's position and its rules: legal moves, applying a move, take-back, safe foundation moves, winning.

This is pure Python and deliberately shares no code with the Rust engine, so that it
can check the engine's solutions independently. The engine's counterparts carry the
same names: engine/src/position/ and moves.rs (a Position is where the cards are),
as engine/src/variant.rs is fcanalyze/game/variant.py (a Variant is the rules played).
"""

from __future__ import annotations

import functools

from ..game.board import Board
from ..game.cards import DECK_SIZE, RANK_OF, RED_OF, SUIT_OF, card_text, make_card
from ..game.notation import CELL, CELL_SYMBOLS, COLUMN, FOUNDATION, SUIT_SYMBOLS, Move, format_move
from ..game.variant import Build, EmptyColumn, SequenceMoves, Variant

KING = 13


class IllegalMove(Exception):
    """A move the rules do not allow in the current position; the message says why."""


def supermove_limit(empty_cells: int, empty_columns: int, variant: Variant) -> int:
    """How many cards may move as one between columns, given the free space.

    `empty_columns` must not count the destination. Under the supermove rule the
    limit is (1 + empty cells) * 2^(empty columns): what can be done one card at a
    time through that space. When only kings may fill an empty column, empty columns
    cannot hold the intermediate cards, so only the cells count.
    """
    if variant.sequence_moves is SequenceMoves.SINGLE:
        return 1
    if variant.sequence_moves is SequenceMoves.RELAXED:
        return DECK_SIZE
    if variant.empty_column is EmptyColumn.KINGS:
        return 1 + empty_cells
    return (1 + empty_cells) << empty_columns


def card_fits_on(card: int, onto: int, suited: bool) -> bool:
    """Whether `card` may be placed on `onto` in a column: one rank lower, and of the
    same suit (`suited`) or of the other colour."""
    if RANK_OF[card] + 1 != RANK_OF[onto]:
        return False
    if suited:
        return SUIT_OF[card] == SUIT_OF[onto]
    return RED_OF[card] != RED_OF[onto]


def _goes_on_table(suited: bool) -> tuple[frozenset[int], ...]:
    """For each card, the cards it may be placed on (card_fits_on), for lookups."""
    return tuple(
        frozenset(
            onto
            for onto in (make_card(RANK_OF[card] + 1, s) for s in range(4) if RANK_OF[card] < KING)
            if card_fits_on(card, onto, suited)
        )
        for card in range(DECK_SIZE)
    )


# GOES_ON[suited][card]: the cards `card` may be placed on.
GOES_ON = {False: _goes_on_table(False), True: _goes_on_table(True)}


def malformed(move: Move) -> str | None:
    """Why `move` is no move at all, or None. The notation never makes such a Move; one
    built by hand could name an unknown kind of place, a negative place (which Python
    would count from the end), a foundation past the fourth, or a count of no cards."""
    count = move.count
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        return f"a move moves one card or more, not {count!r}"
    kinds = (COLUMN, CELL, FOUNDATION)
    if move.source_kind not in kinds or move.dest_kind not in kinds or move.source < 0 or move.dest < 0:
        return f"{move!r} names a place that does not exist"
    if move.source_kind == FOUNDATION and move.source > 3:
        return f"{move!r} names a place that does not exist"
    return None


class Position:
    """A board under a variant's rules. Moves change the board in place."""

    __slots__ = ("_suited", "board", "variant")

    def __init__(self, board: Board, variant: Variant):
        if len(board.cells) != variant.cells or len(board.columns) != variant.columns:
            raise ValueError(
                f"board has {len(board.cells)} cells and {len(board.columns)} columns, "
                f"variant wants {variant.cells} and {variant.columns}"
            )
        self.board = board
        self.variant = variant
        self._suited = variant.build is Build.SUIT

    def copy(self) -> Position:
        return Position(self.board.copy(), self.variant)

    # --- facts about the position -------------------------------------------------

    def is_won(self) -> bool:
        return sum(self.board.foundations) == DECK_SIZE

    def fits_on(self, card: int, onto: int) -> bool:
        """Whether `card` may be placed on `onto` in a column."""
        return card_fits_on(card, onto, self._suited)

    def run_length(self, column: int) -> int:
        """How many cards at the playable end of `column` form a movable run."""
        col = self.board.columns[column]
        n = len(col)
        if n == 0:
            return 0
        length = 1
        while length < n and self.fits_on(col[n - length], col[n - length - 1]):
            length += 1
        return length

    def _is_run(self, col: list[int], k: int) -> bool:
        """Whether the last k cards of `col` form a movable run."""
        fits = self.fits_on
        return all(fits(col[-i], col[-i - 1]) for i in range(1, k))

    def empty_cells(self) -> int:
        return self.board.cells.count(None)

    def empty_columns(self, excluding: int | None = None) -> int:
        columns = self.board.columns
        empty = columns.count([])
        return empty - 1 if excluding is not None and not columns[excluding] else empty

    def sequence_move_limit(self, dest_column: int) -> int:
        """Largest run that may move onto `dest_column` now (the destination does not count)."""
        return supermove_limit(self.empty_cells(), self.empty_columns(dest_column), self.variant)

    def can_go_home(self, card: int) -> bool:
        return self.board.foundations[SUIT_OF[card]] + 1 == RANK_OF[card]

    def safe_to_foundation(self, card: int) -> bool:
        """Whether sending `card` home now can never turn a winnable position lost.

        True when the card may go home and every card that could ever be placed on
        it is already home: for alternating colours, both cards of the other colour
        one rank lower (so aces always); for same-suit building, the card below it
        in its suit, which is home already whenever the card may go. Under take-back
        those cards must also be settled (`settled_heights`), as they could come back.
        """
        if not self.can_go_home(card):
            return False
        rank = RANK_OF[card]
        if rank <= 1 or self._suited:
            return True
        home = self.settled_heights() if self.variant.takeback else self.board.foundations
        red = RED_OF[card]
        return all(home[s] >= rank - 1 for s in range(4) if RED_OF[make_card(1, s)] != red)

    def settled_heights(self) -> list[int]:
        """How far up each foundation no win ever needs its cards back under take-back.

        The settled cards are the largest set of cards home that holds the bottom of
        every foundation and, with each card, every card that could be placed on it
        (docs/correctness.md proves no win needs them back). Under same-suit building
        that is every card home; for alternating colours a suit is settled up to its
        height, but at most one rank above either suit of the other colour and two
        above the other suit of its own colour.
        """
        home = self.board.foundations
        if self._suited:
            return list(home)
        clubs, diamonds, hearts, spades = home
        red = min(diamonds, hearts) + 1  # the most a black suit can be settled to
        black = min(clubs, spades) + 1
        return [
            min(clubs, red, spades + 2),
            min(diamonds, black, hearts + 2),
            min(hearts, black, diamonds + 2),
            min(spades, red, clubs + 2),
        ]

    # --- checking and applying moves ------------------------------------------------

    def check(self, move: Move) -> int:
        """The number of cards `move` moves if it is legal here; IllegalMove otherwise."""
        # Sweeps replay every solution, so the legal paths are written out inline;
        # every illegal one still ends in a message that says why.
        board = self.board
        v = self.variant
        kind, src, dest_kind, dst, count = move
        reason = malformed(move)
        if reason is not None:
            raise IllegalMove(reason)

        # Where the card(s) come from.
        if kind == COLUMN:
            if src >= v.columns:
                raise IllegalMove(f"there is no column {src + 1} ({v.columns} columns)")
            col = board.columns[src]
            if not col:
                raise IllegalMove(f"column {src + 1} is empty")
            top = col[-1]
        elif kind == CELL:
            if src >= v.cells:
                raise IllegalMove(f"there is no free cell {_cell_name(src)} ({v.cells} free cells)")
            in_cell = board.cells[src]
            if in_cell is None:
                raise IllegalMove(f"free cell {_cell_name(src)} is empty")
            top = in_cell
        else:
            return self._check_takeback(move)

        if dest_kind != COLUMN or kind == CELL:
            if count is not None and count != 1:
                raise IllegalMove(f"only one card at a time can move {_single_card_route(move)}")
            count = 1

        if dest_kind == FOUNDATION:
            suit = SUIT_OF[top]
            if board.foundations[suit] + 1 != RANK_OF[top]:
                home = board.foundations[suit]
                need = card_text(make_card(home + 1, suit)) if home < KING else "nothing"
                raise IllegalMove(f"{card_text(top)} cannot go home yet: the foundation needs {need} next")
            return 1

        if dest_kind == CELL:
            if dst >= v.cells:
                raise IllegalMove(f"there is no free cell {_cell_name(dst)} ({v.cells} free cells)")
            if board.cells[dst] is not None:
                raise IllegalMove(f"free cell {_cell_name(dst)} already holds {card_text(board.cells[dst] or 0)}")
            return 1

        # To a column.
        if dst >= v.columns:
            raise IllegalMove(f"there is no column {dst + 1} ({v.columns} columns)")
        if kind == COLUMN and dst == src:
            raise IllegalMove(f"column {src + 1} is both source and destination")
        target = board.columns[dst]
        if kind == CELL:
            self._check_lands(top, target, dst)
            return 1

        if count is None:
            if target:
                # The notation leaves the size out: the only run that fits is meant, and
                # only the card one rank below the target can fit on it.
                onto = target[-1]
                k = RANK_OF[onto] - RANK_OF[top]
                if k == 1 and self.fits_on(top, onto):
                    return 1
                if not (1 <= k <= len(col) and self.fits_on(col[-k], onto) and self._is_run(col, k)):
                    raise IllegalMove(f"nothing at the end of column {src + 1} fits on {card_text(onto)}")
                count = k
            else:
                count = 1
        if count > len(col):
            raise IllegalMove(
                f"column {src + 1} holds only {len(col)} card(s), not {count} (v{count:x} is hexadecimal)"
                if count > 9
                else f"column {src + 1} holds only {len(col)} card(s), not {count}"
            )
        if count > 1 and not self._is_run(col, count):
            raise IllegalMove(
                f"the last {count} cards of column {src + 1} are not a run (only the last {self.run_length(src)} are)"
            )
        self._check_lands(col[-count], target, dst)
        if count > 1:
            limit = self.sequence_move_limit(dst)
            if count > limit:
                if v.sequence_moves is SequenceMoves.SINGLE:
                    raise IllegalMove("this variant moves one card at a time")
                raise IllegalMove(
                    f"{count} cards cannot move at once: with {self.empty_cells()} empty "
                    f"free cell(s) and {self.empty_columns(dst)} empty column(s) the limit is {limit}"
                )
        return count

    def _check_takeback(self, move: Move) -> int:
        """check() for a card taken back off a foundation: 1 if legal, else IllegalMove."""
        board, v = self.board, self.variant
        if not v.takeback:
            raise IllegalMove("cards never leave the foundations (only under takeback=yes)")
        suit = move.source
        name = f"foundation h{SUIT_SYMBOLS[suit]}"
        if board.foundations[suit] == 0:
            raise IllegalMove(f"{name} is empty")
        if move.count is not None and move.count != 1:
            raise IllegalMove("only one card at a time can come off a foundation")
        card = make_card(board.foundations[suit], suit)
        if move.dest_kind == FOUNDATION:
            raise IllegalMove(f"{card_text(card)} taken back off {name} must go onto a column or into a free cell")
        if move.dest_kind == CELL:
            if move.dest >= v.cells:
                raise IllegalMove(f"there is no free cell {_cell_name(move.dest)} ({v.cells} free cells)")
            if board.cells[move.dest] is not None:
                held = card_text(board.cells[move.dest] or 0)
                raise IllegalMove(f"free cell {_cell_name(move.dest)} already holds {held}")
            return 1
        if move.dest >= v.columns:
            raise IllegalMove(f"there is no column {move.dest + 1} ({v.columns} columns)")
        self._check_lands(card, board.columns[move.dest], move.dest)
        return 1

    def _check_lands(self, card: int, target: list[int], dst: int) -> None:
        if target:
            if not self.fits_on(card, target[-1]):
                raise IllegalMove(f"{card_text(card)} does not go on {card_text(target[-1])} in column {dst + 1}")
        elif self.variant.empty_column is EmptyColumn.KINGS and RANK_OF[card] != KING:
            raise IllegalMove(f"only a king may fill empty column {dst + 1}, not {card_text(card)}")

    def apply(self, move: Move) -> Move:
        """Play `move` if legal (IllegalMove otherwise); returns it with its size filled in."""
        count = self.check(move)
        self.carry_out(move, count)
        return move if move.count == count else move.with_count(count)

    def carry_out(self, move: Move, count: int) -> None:
        """Move the cards of `move`, which check() found legal with `count` cards."""
        board = self.board
        kind, src, dest_kind, dst, _ = move
        if count > 1:  # column to column
            col = board.columns[src]
            board.columns[dst].extend(col[-count:])
            del col[-count:]
            return
        if kind == COLUMN:
            card = board.columns[src].pop()
        elif kind == FOUNDATION:
            card = make_card(board.foundations[src], src)
            board.foundations[src] -= 1
        else:
            in_cell = board.cells[src]
            assert in_cell is not None, "check() found the move legal"
            card = in_cell
            board.cells[src] = None
        if dest_kind == FOUNDATION:
            board.foundations[SUIT_OF[card]] += 1
        elif dest_kind == CELL:
            board.cells[dst] = card
        else:
            board.columns[dst].append(card)

    # --- move generation --------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move, each free-cell slot and run size separately, sizes explicit."""
        board = self.board
        moves: list[Move] = []
        free_slots = [i for i, c in enumerate(board.cells) if c is None]
        sources: list[tuple[str, int, int]] = [(COLUMN, i, col[-1]) for i, col in enumerate(board.columns) if col] + [
            (CELL, i, c) for i, c in enumerate(board.cells) if c is not None
        ]
        if self.variant.takeback:
            sources += [(FOUNDATION, s, make_card(h, s)) for s, h in enumerate(board.foundations) if h]

        for kind, src, card in sources:
            if self.can_go_home(card):
                moves.append(Move(kind, src, FOUNDATION, 0, 1))
            # A card may also go from one cell to another: legal, if never useful.
            moves.extend(Move(kind, src, CELL, slot, 1) for slot in free_slots)
            if kind == COLUMN:
                col = board.columns[src]
                run = self.run_length(src)
            for dst, target in enumerate(board.columns):
                if kind == COLUMN and dst == src:
                    continue
                if kind != COLUMN:
                    if self.fits_on(card, target[-1]) if target else self._may_fill(card):
                        moves.append(Move(kind, src, COLUMN, dst, 1))
                    continue
                limit = self.sequence_move_limit(dst)
                for k in range(1, min(run, limit) + 1):
                    base = col[-k]
                    if target:
                        if self.fits_on(base, target[-1]):
                            moves.append(Move(COLUMN, src, COLUMN, dst, k))
                    elif self._may_fill(base):
                        moves.append(Move(COLUMN, src, COLUMN, dst, k))
        return moves

    def expansion_counts(self, move: Move, count: int) -> tuple[int, int]:
        """For a legal sequence move of `count` cards, without building the moves: how
        many single-card moves self.expand(move) has, and how many of them bring a card
        back out of a free cell onto a column."""
        cells = self.empty_cells()
        columns = self.empty_columns(move.dest) if self.variant.empty_column is EmptyColumn.ANY else 0
        return expansion_counts(count, cells, columns)

    def _may_fill(self, card: int) -> bool:
        return self.variant.empty_column is EmptyColumn.ANY or RANK_OF[card] == KING

    # --- sequence moves as single cards -------------------------------------------------

    def expand(self, move: Move, count: int | None = None) -> list[Move]:
        """The single-card moves that carry out `move` here, through empty cells and
        columns. A single-card move expands to itself. The position is not changed.

        Raises IllegalMove if `move` is illegal, and ValueError for a relaxed-rule run
        too long to be done one card at a time. `count`, if given, is what check() said.
        """
        if count is None:
            count = self.check(move)
        if count == 1:
            return [move.with_count(1)]
        board = self.board
        cells = [i for i, c in enumerate(board.cells) if c is None]
        # Under kings-only, empty columns cannot hold the parked cards.
        columns = [
            i
            for i, col in enumerate(board.columns)
            if not col and i != move.dest and self.variant.empty_column is EmptyColumn.ANY
        ]
        if count > (1 + len(cells)) << len(columns):
            raise ValueError(f"{format_move(move)} moves {count} cards, more than the free space allows one at a time")
        out: list[Move] = []
        _plan(count, move.source, move.dest, cells, columns, out)
        return out


@functools.cache
def expansion_counts(n: int, cells: int, columns: int) -> tuple[int, int]:
    """How many single-card moves `expand` uses for n cards with that many empty cells
    and empty columns (the destination not counted), and how many of them bring a card
    back out of a cell: the same recursion as _plan."""
    if n <= cells + 1:
        return 2 * n - 1, n - 1  # n - 1 cards parked in cells and brought back
    half = (1 + cells) << (columns - 1)
    if n <= half:
        return expansion_counts(n, cells, columns - 1)
    upper_moves, upper_returns = expansion_counts(n - half, cells, columns - 1)
    lower_moves, lower_returns = expansion_counts(half, cells, columns - 1)
    # The upper part moves twice (to the spare column and on to the destination).
    return 2 * upper_moves + lower_moves, 2 * upper_returns + lower_returns


def _plan(n: int, src: int, dst: int, cells: list[int], columns: list[int], out: list[Move]) -> None:
    """Single-card moves carrying the last n cards of column src onto column dst.

    With f free cells, n <= f + 1 cards go through the cells. Larger runs park their
    upper part in an empty column first (itself a smaller sequence move with one
    column fewer), move the rest, then bring the parked part over: the recursion
    that gives the (1 + f) * 2^e limit.
    """
    if n <= len(cells) + 1:
        parked = cells[: n - 1]
        out.extend(Move(COLUMN, src, CELL, c, 1) for c in parked)
        out.append(Move(COLUMN, src, COLUMN, dst, 1))
        out.extend(Move(CELL, c, COLUMN, dst, 1) for c in reversed(parked))
        return
    spare, rest = columns[0], columns[1:]
    half = (1 + len(cells)) << len(rest)
    if n <= half:
        _plan(n, src, dst, cells, rest, out)
        return
    upper = n - half
    _plan(upper, src, spare, cells, rest, out)
    _plan(n - upper, src, dst, cells, rest, out)
    _plan(upper, spare, dst, cells, rest, out)


def _cell_name(index: int) -> str:
    return CELL_SYMBOLS[index] if index < len(CELL_SYMBOLS) else str(index)


def _single_card_route(move: Move) -> str:
    if move.source_kind == CELL:
        return "from a free cell"
    return "to a free cell" if move.dest_kind == CELL else "to the foundation"

"""Standard solution notation: `3a`, `a5`, `1h`, `54`, `26v4` (and `hs3` for a take-back), parsed and printed back."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ..errors import NotationError
from ..inputs import quote

COLUMN, CELL, FOUNDATION = "column", "cell", "foundation"

# Columns are 1..9 then 0 for a tenth; cells are a..g then i, because `h` is the
# foundation (home) in this notation and an eighth cell must not collide with it.
COLUMN_SYMBOLS = "1234567890"
CELL_SYMBOLS = "abcdefgi"
FOUNDATION_SYMBOL = "h"
# Under the take-back rule a card may leave a foundation, which the standard notation
# never needed: `h` and the suit's letter name the foundation it leaves, `hs3` taking
# the top spade back onto column 3 and `hda` the top diamond into cell a. A standard
# move never starts with `h`, so the two cannot be confused.
SUIT_SYMBOLS = "cdhs"

_MOVE_RE = re.compile(r"(h[cdhs]|[0-9a-gi])([0-9a-gih])(?:v([0-9a-f]+))?")


class Move(NamedTuple):
    """One move: from a column or cell to a column, cell or the foundation; or, under
    the take-back rule, from a foundation (its index the suit, 0..3 in CDHS order).

    Indexes are 0-based. `count` is the number of cards for a column-to-column
    move, or None when the notation left it to be inferred.
    """

    source_kind: str
    source: int
    dest_kind: str
    dest: int
    count: int | None = None  # type: ignore[assignment]  # the field shadows tuple.count, on purpose

    def __str__(self) -> str:
        return format_move(self)

    def with_count(self, count: int) -> Move:
        return self._replace(count=count)


def _place_symbol(kind: str, index: int) -> str:
    if kind == COLUMN:
        return COLUMN_SYMBOLS[index]
    if kind == CELL:
        return CELL_SYMBOLS[index]
    return FOUNDATION_SYMBOL


def _source_symbol(kind: str, index: int) -> str:
    if kind == FOUNDATION:
        return FOUNDATION_SYMBOL + SUIT_SYMBOLS[index]
    return _place_symbol(kind, index)


def format_move(move: Move) -> str:
    """Standard notation; a multi-card move carries its size, `26v4`, as fc-solve -snx does."""
    text = _source_symbol(move.source_kind, move.source) + _place_symbol(move.dest_kind, move.dest)
    if move.count is not None and move.count > 1:
        text += f"v{move.count:x}"
    return text


def _place(symbol: str) -> tuple[str, int]:
    if len(symbol) == 2:  # a foundation as a take-back's source
        return FOUNDATION, SUIT_SYMBOLS.index(symbol[1])
    if symbol in COLUMN_SYMBOLS:
        return COLUMN, COLUMN_SYMBOLS.index(symbol)
    if symbol in CELL_SYMBOLS:
        return CELL, CELL_SYMBOLS.index(symbol)
    return FOUNDATION, 0


@functools.lru_cache(maxsize=4096)
def parse_move(token: str) -> Move:
    """A Move from one token of standard notation; raises NotationError.

    Cached: solutions reuse a few hundred distinct tokens, and the referee replays many.
    """
    m = _MOVE_RE.fullmatch(token.strip().lower())
    if m is None:
        raise NotationError(
            f"{quote(token)} is not a move; moves look like 3a, a5, 1h, 54 or 26v4 "
            "(columns 1-9 and 0 for the tenth, cells a-g and i, h for the foundation), "
            "or hs3 to take the top spade back off its foundation"
        )
    source_kind, source = _place(m.group(1))
    dest_kind, dest = _place(m.group(2))
    count = None
    if m.group(3) is not None:
        size = m.group(3)
        # A run holds at most 52 cards (hex 34); a longer size is a typo, and turning
        # thousands of hex digits into an int is slow and its decimal text refused.
        if len(size) > 2:
            written = f"v{size} ({int(size, 16):,} in decimal)" if len(size) <= 12 else f"of {len(size)} digits"
            raise NotationError(
                f"{quote(token)}: a run size {written} is more than a deck of 52 cards "
                "(the size after v is hexadecimal, 1..34)"
            )
        count = int(size, 16)
        if count == 0:
            raise NotationError(f"{quote(token)} moves no cards; the size after v must be at least 1")
    return Move(source_kind, source, dest_kind, dest, count)


def solution_tokens(text: str) -> list[str]:
    """The move tokens of a solution text: whitespace-separated, `#` starts a comment."""
    tokens = []
    for line in text.splitlines():
        tokens.extend(line.split("#", 1)[0].split())
    return tokens


def parse_solution(text: str) -> list[Move]:
    """All moves of a solution text; raises NotationError naming the first bad token."""
    moves = []
    for number, token in enumerate(solution_tokens(text), start=1):
        try:
            moves.append(parse_move(token))
        except NotationError as e:
            raise NotationError(f"move {number}: {e}") from None
    return moves


def format_solution(moves: list[Move]) -> str:
    return " ".join(format_move(m) for m in moves)

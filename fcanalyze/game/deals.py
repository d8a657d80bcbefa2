"""Microsoft FreeCell deals by number, 1..8,589,934,591, bit for bit as the classic generator."""

from __future__ import annotations

import re
import warnings

from ..errors import DealNumberError, FcanalyzeError, FcanalyzeWarning
from ..inputs import quote, read_text, whole_number
from .board import Board
from .cards import DECK_SIZE
from .variant import FREECELL, Variant

FIRST_DEAL = 1
LAST_DEAL = 2**33 - 1  # 8,589,934,591: the end of the extended (FreeCell Pro) range

_MASK32 = 0xFFFFFFFF


def check_deal_number(number: int) -> int:
    """`number` as an int if it is a Microsoft deal number, else DealNumberError."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise DealNumberError(f"a deal number must be an integer, got {quote(repr(number))[1:-1]}")
    if not FIRST_DEAL <= number <= LAST_DEAL:
        raise DealNumberError(f"deal number {number} is out of range: Microsoft deals are {FIRST_DEAL}..{LAST_DEAL:,}")
    return number


def shuffled_deck(number: int) -> list[int]:
    """The 52 cards in the order the generator deals them for deal `number`.

    The generator is the Microsoft C runtime's rand() seeded with the deal number.
    Deals 2^31..2^32-1 set bit 15 of every draw, and deals from 2^32 on seed with
    number - 2^32 and draw 16 bits plus one: the extension FreeCell Pro introduced
    so that its 8.6 billion deals stay distinct from the classic ones.
    """
    check_deal_number(number)
    state = number if number < 2**32 else number - 2**32
    high_bit = 0x8000 if 2**31 <= number < 2**32 else 0
    wide = number >= 2**32

    # Sweeps deal thousands of these, so the two draw rules get a loop each.
    deck = list(range(DECK_SIZE))
    dealt: list[int] = []
    append = dealt.append
    if wide:
        for left in range(DECK_SIZE, 0, -1):
            state = (state * 214013 + 2531011) & _MASK32
            j = (((state >> 16) & 0xFFFF) + 1) % left
            append(deck[j])
            deck[j] = deck[left - 1]
    else:
        for left in range(DECK_SIZE, 0, -1):
            state = (state * 214013 + 2531011) & _MASK32
            j = (((state >> 16) & 0x7FFF) | high_bit) % left
            append(deck[j])
            deck[j] = deck[left - 1]
    return dealt


def microsoft_deal(number: int, variant: Variant = FREECELL) -> Board:
    """The starting position of Microsoft deal `number` under `variant`.

    With 8 columns this is the classic deal. Other column counts deal the same
    shuffled deck left to right, round-robin, so deal N is comparable across layouts.
    The reserve layout (Seahaven Towers, Eight Off) deals the same way but stops when
    every column has 52 // columns cards; the cards left over, in deck order, go into
    the free cells from the first (Seahaven: 10 columns of 5, cards 51 and 52 of the
    deck in cells a and b; Eight Off: 8 columns of 6, cards 49..52 in cells a..d).
    """
    cards = shuffled_deck(number)
    n = variant.columns
    in_columns = DECK_SIZE - variant.dealt_to_cells
    cells: list[int | None] = [None] * variant.cells
    cells[: variant.dealt_to_cells] = cards[in_columns:]
    return Board([cards[i:in_columns:n] for i in range(n)], cells)


# One number written with thousands separators: `11,982`, `8,589,934,591`.
_GROUPED = re.compile(r"-?[0-9]{1,3}(,[0-9]{3})+", re.ASCII)


def parse_deal_number(text: str) -> int:
    """A deal number from user text such as `617`, `11982` or `11,982` (thousands
    separators where they belong, as fcanalyze's own messages once printed them)."""
    cleaned = text.strip()
    if _GROUPED.fullmatch(cleaned):
        cleaned = cleaned.replace(",", "")
    number = whole_number(cleaned.removeprefix("-"))
    if number is None:
        raise DealNumberError(f"a deal number must be a whole number, got {quote(text)}")
    return check_deal_number(-number if cleaned.startswith("-") else number)


# A list of every deal of a big sweep, one per line, runs to hundreds of megabytes;
# ranges are the way to write more.
MAX_DEAL_LIST_BYTES = 64 << 20


def parse_deal_spans(text: str) -> list[tuple[int, int]]:
    """Deal numbers from text like `1-32000`, `1-100,617,11982` or `@FILE`, as sorted,
    disjoint, inclusive (first, last) spans: a range of any size in constant memory.

    A file holds one number or range per line; blank lines and `#` comments are
    skipped. Raises DealNumberError for anything malformed, out of range or empty.
    """
    text = text.strip()
    if text.startswith("@"):
        path = text[1:]
        try:
            lines = read_text(path, "deal list", limit=MAX_DEAL_LIST_BYTES)[0].splitlines()
        except FcanalyzeError as e:
            raise DealNumberError(str(e)) from None
        parts: list[tuple[str, str]] = []
        for number, line in enumerate(lines, start=1):
            line = line.split("#", 1)[0].strip()
            if line:
                parts.extend((f"{path}:{number}", p) for p in line.split(","))
    else:
        parts = [("", p) for p in text.split(",")]
        if _GROUPED.fullmatch(text):
            # `18,032` is a list of two deals here, but it reads like one number with a
            # thousands separator (as a table might print it): say how it was read.
            numbers = " and ".join(str(int(p)) for p in text.split(","))
            warnings.warn(
                f"read {text!r} as a list of deals, {numbers}; for deal {text.replace(',', '')} write it without commas",
                FcanalyzeWarning,
                stacklevel=2,
            )
    spans: list[tuple[int, int]] = []
    for where, part in parts:
        prefix = f"{where}: " if where else ""
        part = part.strip()
        if not part:
            raise DealNumberError(f"{prefix}empty item in deal list {quote(text)}")
        lo_text, dash, hi_text = part.partition("-")
        try:
            lo = parse_deal_number(lo_text)
            hi = parse_deal_number(hi_text) if dash else lo
        except DealNumberError as e:
            raise DealNumberError(f"{prefix}bad deal range {quote(part)}: {e}") from None
        if hi < lo:
            raise DealNumberError(f"{prefix}bad deal range {quote(part)}: it runs backwards")
        spans.append((lo, hi))
    if not spans:
        raise DealNumberError(f"no deals in {quote(text)}")
    return merge_spans(spans)


def merge_spans(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted, disjoint spans covering the same deals (overlapping and touching ones joined)."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def parse_deal_ranges(text: str) -> list[int]:
    """The deals of `parse_deal_spans(text)` as a sorted list without repeats."""
    return [d for lo, hi in parse_deal_spans(text) for d in range(lo, hi + 1)]

"""A FreeCell position (columns, free cells, foundations) and its board text format."""

from __future__ import annotations

import re

from ..errors import BoardError, CardError
from ..inputs import quote
from .cards import DECK_SIZE, RANK_OF, SUIT_OF, SUITS, card_text, make_card, parse_card, parse_rank, rank_text
from .variant import FREECELL, Variant

# The order Freecell Solver writes foundations in; kept so our boards diff cleanly with its.
FOUNDATION_TEXT_ORDER = "HCDS"
# The most cards a column may ever hold (the engine's limit): 13 dealt into each of 4
# columns, and a run of 12 on top. Deals' columns reach 19 at most.
MAX_COLUMN_HEIGHT = 26


class Board:
    """Cards in play and on the foundations.

    columns[i] lists column i from the first-dealt (covered) card to the playable one;
    cells[i] is the card in free cell i or None; foundations[suit] is how many cards
    of that suit (0..13, suits in CDHS order) are home.
    """

    __slots__ = ("cells", "columns", "foundations")

    def __init__(
        self,
        columns: list[list[int]],
        cells: list[int | None] | None = None,
        foundations: list[int] | None = None,
    ):
        self.columns = columns
        self.cells = cells if cells is not None else []
        self.foundations = foundations if foundations is not None else [0, 0, 0, 0]

    def copy(self) -> Board:
        return Board([list(c) for c in self.columns], list(self.cells), list(self.foundations))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Board)
            and self.columns == other.columns
            and self.cells == other.cells
            and self.foundations == other.foundations
        )

    def __str__(self) -> str:
        """The layout in Freecell Solver's board text, as `print(board)` shows it."""
        return format_board(self)

    def __repr__(self) -> str:
        return f"Board({format_board(self)!r})"

    def cards_home(self) -> int:
        return sum(self.foundations)

    def to_text(self, ten: str = "T") -> str:
        return format_board(self, ten)

    def to_json(self) -> dict:
        """A machine-readable layout: card names, playable card last in each column."""
        return {
            "columns": [[card_text(c) for c in col] for col in self.columns],
            "freecells": [None if c is None else card_text(c) for c in self.cells],
            "foundations": {SUITS[s]: self.foundations[s] for s in map(SUITS.index, FOUNDATION_TEXT_ORDER)},
        }


def format_board(board: Board, ten: str = "T") -> str:
    """Board text: `Foundations:` and `Freecells:` lines only when they hold cards, then one
    line per column. A fresh deal therefore prints exactly as make-microsoft-freecell-board -t."""
    lines = []
    if any(board.foundations):
        parts = []
        for letter in FOUNDATION_TEXT_ORDER:
            n = board.foundations[SUITS.index(letter)]
            parts.append(f"{letter}-{rank_text(n, ten) if n else '0'}")
        lines.append("Foundations: " + " ".join(parts))
    if any(c is not None for c in board.cells):
        lines.append("Freecells: " + " ".join("-" if c is None else card_text(c, ten) for c in board.cells))
    for col in board.columns:
        # ':' alone marks an empty column so that the columns after it keep their numbers.
        lines.append(" ".join(card_text(c, ten) for c in col) if col else ":")
    return "\n".join(lines) + "\n"


def parse_board(text: str, variant: Variant = FREECELL, source: str | None = None) -> Board:
    """Parse board text for `variant`, checking that it is a possible position.

    Accepts `T` or `10` for tens, optional `Foundations:` and `Freecells:` lines
    (`-` for an empty cell), an optional `: ` before each column, `:` alone for an
    empty column, and `#` comment lines. Raises BoardError naming the line.
    """
    columns: list[list[int]] = []
    cells: list[int | None] = [None] * variant.cells
    foundations = [0, 0, 0, 0]
    where: dict[int, int] = {}  # card -> line it was seen on
    foundation_line = cells_line = None
    column_lines: list[int] = []

    def fail(message: str, line: int | None) -> BoardError:
        return BoardError(message, line, source)

    def place(card_token: str, lineno: int) -> int:
        try:
            card = parse_card(card_token)
        except CardError as e:
            raise fail(f"{e}; cards are written like AS, TD or 10D, KH", lineno) from None
        if card in where:
            first = where[card]
            also = "earlier on the same line" if first == lineno else f"also on line {first}"
            raise fail(f"{card_text(card)} appears twice ({also})", lineno)
        where[card] = lineno
        return card

    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, _, rest = line.partition(":")
        key = head.strip().lower()
        if key == "foundations":
            if foundation_line is not None:
                raise fail(f"a second Foundations line (the first is line {foundation_line})", lineno)
            foundation_line = lineno
            seen_suits = set()
            for token in rest.split():
                suit_text, dash, rank_part = token.partition("-")
                if not dash or suit_text.upper() not in SUITS or len(suit_text) != 1:
                    raise fail(f"bad foundation {quote(token)}; write it like H-5, S-0 or D-K", lineno)
                suit = SUITS.index(suit_text.upper())
                if suit in seen_suits:
                    raise fail(f"foundation {suit_text.upper()} is given twice", lineno)
                seen_suits.add(suit)
                if rank_part == "0":
                    foundations[suit] = 0
                    continue
                try:
                    foundations[suit] = (
                        int(rank_part) if re.fullmatch(r"[0-9]{1,2}", rank_part, re.ASCII) else parse_rank(rank_part)
                    )
                except CardError:
                    raise fail(
                        f"bad foundation {quote(token)}; the rank must be 0, A, 2..10, J, Q or K", lineno
                    ) from None
                if not 0 <= foundations[suit] <= 13:
                    raise fail(f"bad foundation {quote(token)}; the rank must be 0..13", lineno)
        elif key == "freecells":
            if cells_line is not None:
                raise fail(f"a second Freecells line (the first is line {cells_line})", lineno)
            cells_line = lineno
            tokens = rest.split()
            occupied = sum(1 for t in tokens if t not in ("-", "--"))
            if len(tokens) > variant.cells and occupied > variant.cells:
                raise fail(
                    f"{occupied} cards in the free cells, more than the {variant.cells} "
                    f"free cells this variant has (use --cells)",
                    lineno,
                )
            if len(tokens) > variant.cells:
                # More slots written than exist, but few enough cards: pack them left.
                tokens = [t for t in tokens if t not in ("-", "--")]
            for slot, token in enumerate(tokens):
                cells[slot] = None if token in ("-", "--") else place(token, lineno)
        else:
            if head != line and head.strip():
                raise fail(f"unknown line {quote(line)}; expected Foundations:, Freecells: or a column", lineno)
            tokens = (rest if head != line else line).split()
            if len(columns) == variant.columns:
                raise fail(
                    f"too many columns: this variant has {variant.columns} (use a variant with columns=N for more)",
                    lineno,
                )
            columns.append([place(t, lineno) for t in tokens])
            column_lines.append(lineno)

    for card, lineno in where.items():
        home = foundations[SUIT_OF[card]]
        if RANK_OF[card] <= home:
            suit_letter = SUITS[SUIT_OF[card]]
            raise fail(
                f"{card_text(card)} is on line {lineno}, but the foundation "
                f"{suit_letter}-{rank_text(home)} says it is already home",
                foundation_line,
            )
    home_cards = {make_card(r, s) for s in range(4) for r in range(1, foundations[s] + 1)}
    missing = [c for c in range(DECK_SIZE) if c not in where and c not in home_cards]
    if missing:
        shown = " ".join(card_text(c) for c in missing[:8]) + (" ..." if len(missing) > 8 else "")
        raise fail(
            f"{len(missing)} card(s) missing: {shown} (every card must be in a column, a free cell or on a foundation)",
            None,
        )
    for number, column in enumerate(columns, start=1):
        # Cards only land on a column's last card, each a rank lower: a column topped
        # by a card of rank r grows by r - 1 more at most. The engine holds 26 a column.
        height = len(column) + (RANK_OF[column[-1]] - 1 if column else 0)
        if height > MAX_COLUMN_HEIGHT:
            raise fail(
                f"column {number} holds {len(column)} cards and could grow to {height}; "
                f"fcanalyze plays columns that can grow to {MAX_COLUMN_HEIGHT} cards at most",
                column_lines[number - 1],
            )
    columns.extend([] for _ in range(variant.columns - len(columns)))
    return Board(columns, cells, foundations)

"""Builders of real, complete positions (all 52 cards placed) for rules tests."""

from __future__ import annotations

from fcanalyze import FREECELL, Variant, parse_board
from fcanalyze.game.board import Board
from fcanalyze.game.cards import SUITS, card_text, make_card, parse_card

# An alternating run from the queen of hearts down to the ace of spades.
CHAIN = ["QH", "JS", "TH", "9S", "8H", "7S", "6H", "5S", "4H", "3S", "2H", "AS"]


def full_board(
    columns: list[list[str]],
    cells: list[str | None] = (),
    foundations: dict[str, int] | None = None,
    variant: Variant = FREECELL,
    fillers: int | None = None,
) -> Board:
    """A complete board: the given columns first, then the given cells and foundations;
    every other card is dealt round-robin into `fillers` more columns (all the columns
    left by default), and the board goes through the real board-text parser."""
    foundations = foundations or {}
    home = {make_card(r, SUITS.index(s)) for s, n in foundations.items() for r in range(1, n + 1)}
    used = {parse_card(c) for col in columns for c in col} | {parse_card(c) for c in cells if c}
    rest = [c for c in range(52) if c not in used and c not in home]
    n_fill = variant.columns - len(columns) if fillers is None else fillers
    filler_cols: list[list[str]] = [[] for _ in range(n_fill)]
    for i, card in enumerate(rest):
        filler_cols[i % n_fill].append(card_text(card))
    all_cols = [list(c) for c in columns] + filler_cols
    all_cols += [[] for _ in range(variant.columns - len(all_cols))]
    lines = []
    if foundations:
        lines.append("Foundations: " + " ".join(f"{s}-{n}" for s, n in foundations.items()))
    if any(cells):
        lines.append("Freecells: " + " ".join(c or "-" for c in cells))
    lines += [" ".join(col) if col else ":" for col in all_cols]
    return parse_board("\n".join(lines) + "\n", variant)

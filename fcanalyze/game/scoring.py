"""The FreeCell Solitaire app's scoring, as its rules page gives it: +10 a card home, +5 a card from a free cell to the tableau."""

from __future__ import annotations

# Points per single-card move. Every other move (into a cell, column to column, and a
# card taken back off a foundation) scores 0; a card taken back earns its 10 again when
# it goes home again, as the rules page counts it. The app takes an undone move's
# points back and never lets the score fall below zero; a recorded solution has no
# undos and no move that loses points, so its score is the plain sum.
TO_FOUNDATION = 10
FROM_CELL_TO_TABLEAU = 5
# How reports name it.
SCORING = "the FreeCell Solitaire app's scoring: +10 a card home, +5 a card from a free cell to the tableau"


def score(cards_sent_home: int, cards_out_of_cells: int) -> int:
    """The points for sending cards to the foundations and for playing cards from the
    free cells onto columns (single-card moves: a sequence move's expansion counts)."""
    return TO_FOUNDATION * cards_sent_home + FROM_CELL_TO_TABLEAU * cards_out_of_cells

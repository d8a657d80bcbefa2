"""The FreeCell Solitaire app's scoring, as its rules page gives it: +10 a card home, +5 a card from a free cell to the tableau."""

from __future__ import annotations

from .notation import CELL, COLUMN, FOUNDATION, Move

# Points per single-card move. Every other move (into a cell, column to column, and a
# card taken back off a foundation) scores 0. The app takes an undone move's points
# back and never lets the score fall below zero; a recorded solution has no undos and
# no move that loses points, so its score is the plain sum.
TO_FOUNDATION = 10
FROM_CELL_TO_TABLEAU = 5
# How reports name it.
SCORING = "the FreeCell Solitaire app's scoring: +10 a card home, +5 a card from a free cell to the tableau"


def move_score(move: Move) -> int:
    """The points a single-card move earns."""
    if move.dest_kind == FOUNDATION:
        return TO_FOUNDATION
    if move.source_kind == CELL and move.dest_kind == COLUMN:
        return FROM_CELL_TO_TABLEAU
    return 0

"""What a row keeps of its solution (--solutions): every one, none, or only the hard jobs'."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the row's module brings pyarrow, which the CLI's start-up does without
    from ..dataset.store import Row

# What --solutions keeps in the rows: every solution, none, or only the hard jobs'
# (a search of at least HARD_NODES positions; node counts, unlike times, are the same
# on every machine, so the same jobs keep theirs wherever they ran).
SOLUTIONS = ("all", "none", "hard")
HARD_NODES = 100_000


def with_solution_kept(row: Row, solutions: str) -> Row:
    """The row as --solutions keeps it. Its solution was replayed by the referee before
    this; moves, card moves and score stay whatever happens to it."""
    if row.solution is None or solutions == "all" or (solutions == "hard" and (row.nodes or 0) >= HARD_NODES):
        return row
    return row._replace(solution=None)

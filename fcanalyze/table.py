"""The shipped table of Microsoft deals 1..32,000 at 0 to 4 free cells, and answers from it without solving."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .errors import FcanalyzeError
from .published import CLASSIC_DEALS
from .status import SOLVED, UNSOLVABLE

TABLE_NAME = "microsoft-32000.parquet"
# The sweep's columns that describe the machine and the moment, not the job: the
# shipped table leaves them out (reading it gives them as nulls).
MACHINE_COLUMNS = ("seconds", "verify_seconds", "host", "finished_at")
TABLE_CELLS = (0, 1, 2, 3, 4)


def table_path() -> Path:
    """Where the table is: inside the package, so that every install has it (the
    repository's data/ links to it)."""
    return Path(__file__).parent / "data" / TABLE_NAME


@dataclass(frozen=True)
class Verdict:
    """One cell count of one deal, as the table has it."""

    cells: int
    status: str
    moves: int | None
    card_moves: int | None
    score: int | None
    nodes: int | None
    # The larger cell count whose proof settles this one; None when searched.
    implied_by: int | None
    solution: str | None
    # For an unknown verdict: the budget that ran out.
    limit: str | None = None


@dataclass(frozen=True)
class DealFacts:
    """Everything the table says about one deal under classic FreeCell rules."""

    deal: int
    verdicts: dict[int, Verdict]

    @property
    def min_cells(self) -> int | None:
        """The fewest free cells among 0..4 known to win the deal; None if none is."""
        won = [k for k, v in self.verdicts.items() if v.status == SOLVED]
        return min(won) if won else None

    @property
    def min_cells_exact(self) -> bool:
        """Whether min_cells is exact: no smaller count is left undecided."""
        least = self.min_cells
        return least is not None and all(
            self.verdicts[k].status == UNSOLVABLE for k in range(least) if k in self.verdicts
        )

    def to_json(self) -> dict:
        return {
            "deal": self.deal,
            "variant": "freecell",
            "min_cells": self.min_cells,
            "min_cells_exact": self.min_cells_exact,
            "cells": {
                str(k): {
                    "status": v.status,
                    "moves": v.moves,
                    "card_moves": v.card_moves,
                    "score": v.score,
                    "nodes": v.nodes,
                    "implied_by": v.implied_by,
                    "limit": v.limit,
                    "solution": v.solution,
                }
                for k, v in sorted(self.verdicts.items(), reverse=True)
            },
        }


def lookup(deal: int, path: str | Path | None = None) -> DealFacts | None:
    """What the shipped table says about Microsoft deal `deal` under classic FreeCell
    rules at 0..4 cells; None for a deal outside 1..32,000. FcanalyzeError if the table
    is missing (a source tree that has not built it)."""
    if not 1 <= deal <= CLASSIC_DEALS:
        return None
    file = Path(path) if path is not None else table_path()
    if not file.is_file():
        raise FcanalyzeError(f"the deal table {file} is missing; build it with scripts/build_table.py")
    # Verdict's fields are the table's column names; a table built before a column
    # existed (score) reads it as null.
    wanted = [f.name for f in fields(Verdict)]
    present = set(pq.read_schema(file).names)
    table: pa.Table = pq.read_table(
        file, columns=[c for c in wanted if c in present], filters=[("deal", "=", deal), ("variant", "=", "freecell")]
    )
    verdicts = {}
    for row in table.to_pylist():
        verdicts[row["cells"]] = Verdict(**{name: row.get(name) for name in wanted})
    return DealFacts(deal, verdicts)

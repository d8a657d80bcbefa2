"""The shipped tables of Microsoft deals 1..32,000 (classic at 0 to 4 cells, take-back at 4, 2, 1), and answers from them."""

from __future__ import annotations

import collections
import functools
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import FcanalyzeError
from ..status import SOLVED, UNSOLVABLE
from .published import CLASSIC_DEALS

if TYPE_CHECKING:
    import pyarrow as pa

# pyarrow is imported where a table is read, not here: its constants are wanted by
# commands that may never read one (`solve` under a small memory budget).

TABLE_NAME = "microsoft-32000.parquet"
# The sweep's columns that describe the machine and the moment, not the job: the
# shipped table leaves them out (reading it gives them as nulls).
MACHINE_COLUMNS = ("seconds", "verify_seconds", "host", "finished_at")
TABLE_CELLS = (0, 1, 2, 3, 4)
CLASSIC = "freecell"
# The FreeCell Solitaire app's rule, at the cell counts it offers.
TAKEBACK = "freecell,takeback=yes"
TAKEBACK_TABLE_NAME = "microsoft-32000-takeback.parquet"
TAKEBACK_CELLS = (4, 2, 1)
# The tables by the variant whose rows they hold, and the cell counts each holds.
TABLE_NAMES = {CLASSIC: TABLE_NAME, TAKEBACK: TAKEBACK_TABLE_NAME}
TABLE_CELL_COUNTS = {CLASSIC: TABLE_CELLS, TAKEBACK: TAKEBACK_CELLS}


# Deals past 32,000 proved lost with 4 cells (so with fewer too) by this project's
# layered proofs: the extended range's intractable deals (scripts/bench_intractable.py
# --record writes it). A small text file: a line per deal.
EXTENDED_NAME = "microsoft-extended-4cells.csv"


# Jobs whose search took at least this many positions, some 15 s and more on this
# project's machines: long enough that where a sweep runs them decides whether every
# worker stays busy to its end (`long_jobs`).
LONG_JOB_NODES = 20_000_000


def table_path(variant: str = CLASSIC) -> Path:
    """Where the table of `variant` (classic or take-back) is: inside the package, so
    that every install has it (the repository's data/ links to it)."""
    return Path(__file__).parent.parent / "data" / TABLE_NAMES[variant]


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
    # The moves not to a foundation (docs/rules.md), whether no line has fewer, and
    # fewer than how many no line has (proved; the line's own count when it is proved).
    non_foundation_moves: int | None = None
    shortest_proved: bool | None = None
    shortest_bound: int | None = None
    # Positions the search stored (for a proof of a loss: every one it reached).
    states: int | None = None
    # The fcanalyze version whose search made the row: its counts of positions are that
    # search's, which a later engine's (`fcanalyze solve`) may differ from.
    engine_version: str | None = None


@dataclass(frozen=True)
class DealFacts:
    """Everything a table says about one deal under its rules (classic FreeCell, or
    with take-back)."""

    deal: int
    verdicts: dict[int, Verdict]
    variant: str = CLASSIC

    @property
    def min_cells(self) -> int | None:
        """The fewest free cells among those in the table known to win the deal; None
        if none is."""
        won = [k for k, v in self.verdicts.items() if v.status == SOLVED]
        return min(won) if won else None

    @property
    def min_cells_exact(self) -> bool:
        """Whether min_cells is exact: it is 0, or the deal is lost with one cell fewer
        (and so with any fewer: a win with k cells is a win with k + 1)."""
        least = self.min_cells
        if least is None:
            return False
        below = self.verdicts.get(least - 1)
        return least == 0 or (below is not None and below.status == UNSOLVABLE)

    def to_json(self) -> dict:
        return {
            "deal": self.deal,
            "variant": self.variant,
            "min_cells": self.min_cells,
            "min_cells_exact": self.min_cells_exact,
            "cells": {
                str(k): {
                    "status": v.status,
                    "moves": v.moves,
                    "card_moves": v.card_moves,
                    "non_foundation_moves": v.non_foundation_moves,
                    "shortest_proved": v.shortest_proved,
                    "shortest_bound": v.shortest_bound,
                    "score": v.score,
                    "nodes": v.nodes,
                    "states": v.states,
                    "implied_by": v.implied_by,
                    "limit": v.limit,
                    "solution": v.solution,
                }
                for k, v in sorted(self.verdicts.items(), reverse=True)
            },
        }


def lookup(deal: int, path: str | Path | None = None, variant: str = CLASSIC) -> DealFacts | None:
    """What the shipped table says about Microsoft deal `deal` under classic FreeCell
    rules at 0..4 cells (or, with `variant` TAKEBACK, with take-back at 4, 2 and 1 cells);
    None for a deal outside 1..32,000, but for a deal of the extended range proved
    lost (extended_facts). FcanalyzeError if the table is missing (a source tree that
    has not built it)."""
    if deal > CLASSIC_DEALS and variant == CLASSIC:
        return extended_facts().get(deal)
    if not 1 <= deal <= CLASSIC_DEALS:
        return None
    file = Path(path) if path is not None else table_path(variant)
    if not file.is_file():
        raise FcanalyzeError(
            f"the deal table {file} is missing; build it with scripts/build_table.py"
            + (" --takeback" if variant == TAKEBACK else "")
        )
    # Only the names are compared: the Variant type is not needed to read a table.
    # Verdict's fields are the table's column names; a table built before a column
    # existed (score) reads it as null.
    wanted = [f.name for f in fields(Verdict)]
    verdicts = {}
    for row in read_deals(file, {deal}, variant, wanted).to_pylist():
        verdicts[row["cells"]] = Verdict(**{name: row.get(name) for name in wanted})
    return DealFacts(deal, verdicts, variant)


def read_deals(file: Path, deals: set[int], variant: str, columns: list[str]) -> pa.Table:
    """The rows of `deals` under `variant` in a shipped table, with those of `columns`
    it has (and deal, variant and cells). Only the row groups whose deals (by their
    statistics) may hold them are read, on one thread, with no Arrow dataset or compute
    machinery: a lookup then costs its process some 90 MiB, not the 240 MiB of reading
    the table whole, and `solve` stays within a small --max-memory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    part = pq.ParquetFile(file)
    present = set(part.schema_arrow.names)
    names = list(dict.fromkeys(["deal", "variant", "cells", *columns]))
    wanted = [c for c in names if c in present]
    deal_column = part.schema_arrow.get_field_index("deal")
    low, high = min(deals), max(deals)
    groups = []
    for i in range(part.metadata.num_row_groups):
        stats = part.metadata.row_group(i).column(deal_column).statistics
        if stats is None or not stats.has_min_max or (stats.min <= high and stats.max >= low):
            groups.append(i)
    keys = part.read_row_groups(groups, columns=["deal", "variant"], use_threads=False)
    rows = [
        i
        for i, (d, v) in enumerate(zip(keys["deal"].to_pylist(), keys["variant"].to_pylist()))
        if d in deals and v == variant
    ]
    return part.read_row_groups(groups, columns=wanted, use_threads=False).take(pa.array(rows, pa.int64()))


@functools.cache
def extended_facts() -> dict[int, DealFacts]:
    """The deals of the extended range (past 32,000) that the project proved lost with 4
    cells under classic rules, by deal: lost with 3, 2, 1 and 0 cells too (a win with k
    cells is a win with k + 1). Read from EXTENDED_NAME; empty without it."""
    import csv

    file = Path(__file__).parent.parent / "data" / EXTENDED_NAME
    if not file.is_file():
        return {}
    facts = {}
    with file.open(newline="") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            deal, cells = int(row["deal"]), int(row["cells"])
            # A layered proof's measure is the positions it reached (`states`), which
            # lookup shows; its nodes are in the file for the record only.
            proved = Verdict(
                cells,
                row["status"],
                None,
                None,
                None,
                None,
                None,
                None,
                states=int(row["states"]),
                engine_version=row.get("engine_version") or None,
            )
            verdicts = {cells: proved}
            for fewer in range(cells - 1, -1, -1):
                verdicts[fewer] = Verdict(fewer, UNSOLVABLE, None, None, None, None, cells, None)
            facts[deal] = DealFacts(deal, verdicts, CLASSIC)
    return facts


def lookup_spans(spans: Iterable[tuple[int, int]], variant: str = CLASSIC) -> list[DealFacts]:
    """lookup() of every deal in the inclusive spans that the tables hold (1..32,000,
    and the extended range's deals proved lost), in order, reading the table once.
    FcanalyzeError if the table is missing."""
    spans = list(spans)
    extended = [
        facts
        for deal, facts in sorted(extended_facts().items())
        if variant == CLASSIC and any(lo <= deal <= hi for lo, hi in spans)
    ]
    wanted = sorted({d for lo, hi in spans for d in range(max(lo, 1), min(hi, CLASSIC_DEALS) + 1)})
    if not wanted:
        return extended
    file = table_path(variant)
    if not file.is_file():
        raise FcanalyzeError(
            f"the deal table {file} is missing; build it with scripts/build_table.py"
            + (" --takeback" if variant == TAKEBACK else "")
        )
    names = [f.name for f in fields(Verdict)]
    rows = read_deals(file, set(wanted), variant, names).to_pylist()
    verdicts: dict[int, dict[int, Verdict]] = {deal: {} for deal in wanted}
    for row in rows:
        verdicts[row["deal"]][row["cells"]] = Verdict(**{name: row.get(name) for name in names})
    return [DealFacts(deal, verdicts[deal], variant) for deal in wanted] + extended


def settled_in_table(keys: Iterable[tuple[int, str, int]]) -> collections.Counter[str]:
    """How the shipped tables settle the jobs `keys` ((deal, variant, cells), as a
    sweep's rows name them) that they hold: a count per status, solved and unsolvable
    only. Jobs of other variants, deals or cell counts, and a table that is missing,
    count nothing. For a sweep to say where the verdicts it could not reach are."""
    return collections.Counter(table_verdicts(keys).values())


def table_verdicts(keys: Iterable[tuple[int, str, int]]) -> dict[tuple[int, str, int], str]:
    """The shipped tables' verdict (solved or unsolvable) on each of the jobs `keys`
    ((deal, variant, cells)) that they decide; jobs they do not hold or leave
    undecided, and any when a table is missing, are left out."""
    by_variant: dict[str, set[tuple[int, int]]] = collections.defaultdict(set)
    for deal, variant, cells in keys:
        if variant in TABLE_NAMES and 1 <= deal <= CLASSIC_DEALS:
            by_variant[variant].add((deal, cells))
    found: dict[tuple[int, str, int], str] = {}
    for variant, wanted in by_variant.items():
        file = table_path(variant)
        if not file.is_file():
            continue
        rows = read_deals(file, {deal for deal, _ in wanted}, variant, ["status"]).to_pydict()
        for deal, cells, status in zip(rows["deal"], rows["cells"], rows["status"]):
            if (deal, cells) in wanted and status in (SOLVED, UNSOLVABLE):
                found[(deal, variant, cells)] = status
    return found


@functools.cache
def long_jobs(variant: str) -> dict[tuple[int, int], int]:
    """The jobs of `variant`'s shipped table whose search took at least LONG_JOB_NODES
    positions there, as (deal, cells) -> positions; empty for a variant without a
    table, or a table that is missing. A sweep starts these first (sweep/queue.py):
    only the order of its jobs depends on it, never a verdict."""
    import pyarrow.parquet as pq

    file = table_path(variant) if variant in TABLE_NAMES else None
    if file is None or not file.is_file():
        return {}
    # Read on one thread and picked out in Python: Arrow's thread pool and its compute
    # functions would cost every sweep 0.2 s and 70 MiB to start, for four small columns.
    table = pq.ParquetFile(file).read(columns=["deal", "cells", "variant", "nodes"], use_threads=False)
    nodes = table.column("nodes").to_pylist()  # None where no search ran
    long = [i for i, n in enumerate(nodes) if n is not None and n >= LONG_JOB_NODES]
    deals, cells, variants = (table.column(name) for name in ("deal", "cells", "variant"))
    return {(deals[i].as_py(), cells[i].as_py()): nodes[i] for i in long if variants[i].as_py() == variant}

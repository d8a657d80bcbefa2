"""How long a sweep will take, before it starts: each job's cost from the shipped table's positions, then the jobs laid out on the workers."""

from __future__ import annotations

import functools
import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..tables.published import CLASSIC_DEALS
from ..tables.shipped import LONG_JOB_NODES, TABLE_NAMES, table_path
from .progress import expected_cost

# A job's worker time, from the positions the shipped table's search expanded on it:
# what every job costs besides its search (the deal, the pool, the row), and the time a
# position (fitted on deals 1..1,000 and 1..32,000 at 4, 2 and 1 cells: 450 to 750 ns a
# position of the table's counts, the engine's and the referee's time together).
JOB_SECONDS = 0.0003
POSITION_SECONDS = 600e-9
# Past this many jobs the plan is not laid out job by job (a sweep of the extended
# range has billions): the jobs' mean cost per cell count is spread over the workers.
LAID_OUT_JOBS = 2_000_000


@dataclass(frozen=True)
class Estimate:
    """A sweep's expected cost: `jobs` to search (those a proof with more cells in the
    sweep will settle are left out, as the sweep leaves them out), `worker_seconds`
    of work, `seconds` of wall time on the workers, and how many of the jobs the
    shipped table knows (`known`; the others cost its mean for their cell count)."""

    jobs: int
    worker_seconds: float
    seconds: float
    known: int

    def text(self, workers: int) -> str:
        source = "the shipped table's positions" if self.known else "typical jobs"
        if self.known and self.known < self.jobs:
            source += f" for {self.known:,} of them"
        return f"about {duration(self.seconds)} on {workers} worker{'s' if workers != 1 else ''} (from {source})"


def duration(seconds: float) -> str:
    """`40 s`, `12 min`, `3.5 h`, `2.1 days`."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def job_seconds(nodes: int | None, cells: int, max_seconds: float | None) -> float:
    """One job's worker time: from its positions in the table, or (None) a typical job's
    for its cell count; a time budget caps it."""
    seconds = expected_cost(cells) * 1e-4 if nodes is None else JOB_SECONDS + nodes * POSITION_SECONDS
    return min(seconds, max_seconds + 0.5) if max_seconds else seconds


@functools.cache
def table_effort(variant: str) -> dict[tuple[int, int], tuple[int | None, int | None]]:
    """(deal, cells) -> (positions expanded, the larger cell count whose proof settled
    it) from `variant`'s shipped table; empty without one. Only for estimates and job
    order: a sweep never takes a verdict from it."""
    import pyarrow.parquet as pq

    file = table_path(variant) if variant in TABLE_NAMES else None
    if file is None or not file.is_file():
        return {}
    table = pq.ParquetFile(file).read(columns=["deal", "cells", "variant", "nodes", "status"], use_threads=False)
    rows = zip(*(table.column(c).to_pylist() for c in ("deal", "cells", "variant", "nodes", "status")))
    return {(d, k): (n, None if s != "unsolvable" else k) for d, k, v, n, s in rows if v == variant}


def estimate(
    jobs: Callable[[], Iterable[tuple[int, int]]],
    by_cells: dict[int, int],
    variant: str,
    cells_run: list[int],
    workers: int,
    max_seconds: float | None,
) -> Estimate:
    """The estimate for the open jobs of a sweep of `cells_run` under `variant` on
    `workers`: `jobs()` gives them, (deal, cells) in the sweep's order, and `by_cells`
    counts them per cell count. A job the table has lost with a larger cell
    count of the sweep costs nothing: the sweep settles it by that proof. The jobs are
    laid out as the sweep hands them out (the table's long jobs first, each on a worker
    of its own, then the rest in order), each to the first worker free."""
    effort = table_effort(variant)
    means = _mean_seconds(variant, max_seconds)
    count = sum(by_cells.values())
    if count > LAID_OUT_JOBS:
        work = sum(n * means.get(k, job_seconds(None, k, max_seconds)) for k, n in by_cells.items())
        return Estimate(count, work, work / max(1, workers), 0)
    lost_at: dict[int, int] = {}  # deal -> the most cells of this sweep it is lost with
    costs: list[tuple[bool, float]] = []
    known = searched = 0
    for deal, k in jobs():
        if deal in lost_at and lost_at[deal] > k:
            continue  # settled by the proof with more cells
        found = effort.get((deal, k)) if deal <= CLASSIC_DEALS else None
        if found is None:
            seconds = means.get(k, job_seconds(None, k, max_seconds))
            long = False
        else:
            nodes, lost = found
            known += 1
            if lost is not None and k in cells_run:
                lost_at[deal] = max(lost_at.get(deal, -1), k)
            # No positions: the table settled it by a proof with more cells, which this
            # sweep does not run; it is searched here, at a typical loss's cost.
            seconds = job_seconds(nodes, k, max_seconds) if nodes is not None else means.get(k, JOB_SECONDS)
            long = nodes is not None and nodes >= LONG_JOB_NODES
        searched += 1
        costs.append((long, seconds))
    # The long jobs go out first, the longest first; then the rest in the sweep's order.
    order = sorted((c for c in costs if c[0]), key=lambda c: -c[1]) + [c for c in costs if not c[0]]
    free = [0.0] * max(1, workers)
    for _, seconds in order:
        heapq.heapreplace(free, free[0] + seconds)
    work = sum(s for _, s in costs)
    return Estimate(searched, work, max(free), known)


@functools.cache
def _mean_seconds(variant: str, max_seconds: float | None) -> dict[int, float]:
    """A searched job's mean worker time per cell count in the table, for jobs it lacks."""
    sums: dict[int, list[float]] = {}
    for (_, k), (nodes, _) in table_effort(variant).items():
        if nodes is not None:
            total = sums.setdefault(k, [0.0, 0])
            total[0] += job_seconds(nodes, k, max_seconds)
            total[1] += 1
    return {k: s / n for k, (s, n) in sums.items() if n}

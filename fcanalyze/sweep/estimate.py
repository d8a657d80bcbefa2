"""How long a sweep will take, before it starts: each job's cost from the shipped table's positions, then the jobs laid out on the workers."""

from __future__ import annotations

import functools
import heapq
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..status import UNSOLVABLE
from ..tables.published import CLASSIC_DEALS
from ..tables.shipped import LONG_JOB_NODES, TABLE_NAMES, table_path
from .progress import expected_cost

if TYPE_CHECKING:
    import pyarrow as pa

# A job's worker time, from the positions the shipped table's search expanded on it:
# what every job costs besides its search (the deal, the pool, the row), and the time a
# position (fitted on deals 1..1,000 and 1..32,000 at 4, 2 and 1 cells: 450 to 750 ns a
# position of the table's counts, the engine's and the referee's time together).
JOB_SECONDS = 0.0003
POSITION_SECONDS = 600e-9
# The cell counts a table may hold (0..8): the columns of its arrays.
CELL_COUNTS = 9


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
    # The open jobs' costs (JobCosts) summed: what a sweep's progress runs up to.
    cost: int = 0

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


# A job's cost in progress units (JobCosts): a tenth of a millisecond of worker time.
COST_UNIT_SECONDS = 1e-4


def _units(seconds: np.ndarray | float) -> np.ndarray:
    return np.maximum(1, np.rint(np.asarray(seconds) / COST_UNIT_SECONDS)).astype(np.int64)


class JobCosts:
    """Each job's expected worker time in whole tenths of a millisecond, as the
    estimate reckons it (a job settled by a proof with more cells costs one): what a
    sweep's progress advances by as each job's row comes in, so that the bar's ETA
    follows the estimate and corrects itself as the work goes faster or slower."""

    def __init__(self, variant: str, max_seconds: float | None):
        self.effort = table_effort(variant)
        self.means = _mean_seconds(variant, max_seconds)
        self.max_seconds = max_seconds

    def __call__(self, deal: int, cells: int, implied: bool = False) -> int:
        if implied:
            return 1
        nodes = -1
        if self.effort is not None and deal <= CLASSIC_DEALS and cells < CELL_COUNTS:
            nodes = int(self.effort.nodes[deal, cells])
        if nodes >= 0:
            return int(_units(job_seconds(nodes, cells, self.max_seconds)))
        return int(_units(self.means.get(cells, job_seconds(None, cells, self.max_seconds))))


@dataclass(frozen=True)
class Effort:
    """A shipped table's positions as arrays indexed by [deal, cells]: `nodes` (-1 where
    no search ran, or the table lacks the job) and `lost` (proved or implied lost)."""

    nodes: np.ndarray
    lost: np.ndarray


def _as_numpy(column: pa.ChunkedArray, dtype: type[np.integer], missing: int = 0) -> np.ndarray:
    """A column as a numpy array of `dtype`, nulls as `missing`, read from its buffers:
    pyarrow's to_numpy(), and any compute call given a Python value, import pandas (some
    45 MiB), which a sweep's main process, and every worker forked from it, would then
    hold for nothing."""
    import pyarrow as pa

    array = column.cast(pa.from_numpy_dtype(dtype)).combine_chunks()
    width = np.dtype(dtype).itemsize
    values = np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * width)
    if array.null_count:
        nulls = _as_numpy(pa.chunked_array([array.is_null()]), np.int8) == 1
        values = np.where(nulls, missing, values)
    return values


@functools.cache
def table_effort(variant: str) -> Effort | None:
    """`variant`'s shipped table as an Effort; None without one. Only for estimates and
    job order: a sweep never takes a verdict from it."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    file = table_path(variant) if variant in TABLE_NAMES else None
    if file is None or not file.is_file():
        return None
    table = pq.ParquetFile(file).read(columns=["deal", "cells", "nodes", "status"], use_threads=False)
    deals = _as_numpy(table.column("deal"), np.int64)
    cells = _as_numpy(table.column("cells"), np.int64)
    nodes = np.full((CLASSIC_DEALS + 1, CELL_COUNTS), -1, dtype=np.int64)
    lost = np.zeros((CLASSIC_DEALS + 1, CELL_COUNTS), dtype=bool)
    nodes[deals, cells] = _as_numpy(table.column("nodes"), np.int64, missing=-1)
    is_lost = pc.match_substring_regex(table.column("status"), pattern=f"^{UNSOLVABLE}$")
    lost[deals, cells] = _as_numpy(is_lost, np.int8) == 1
    return Effort(nodes, lost)


def estimate(
    spans: Iterable[tuple[int, int]],
    cells_run: list[int],
    done: Iterable[tuple[int, int]],
    variant: str,
    workers: int,
    max_seconds: float | None,
) -> Estimate:
    """The estimate for a sweep of the deals in `spans` (inclusive) at `cells_run` under
    `variant` on `workers`, less the (deal, cells) jobs `done`. A job the table has lost
    with a larger cell count of the sweep costs nothing: the sweep settles it by that
    proof. The jobs are laid out as the sweep hands them out: the table's long jobs
    first, the longest first, each to the first worker free; then the rest, spread
    over the workers."""
    effort = table_effort(variant)
    means = _mean_seconds(variant, max_seconds)
    spans = list(spans)
    in_table = [(max(lo, 1), min(hi, CLASSIC_DEALS)) for lo, hi in spans if lo <= CLASSIC_DEALS]
    deals = np.concatenate([np.arange(lo, hi + 1) for lo, hi in in_table if lo <= hi] or [np.zeros(0, np.int64)])
    beyond = sum(hi - lo + 1 for lo, hi in spans) - len(deals)
    done_set = {(d, k) for d, k in done}
    known = searched = cost = 0
    work = 0.0
    long_jobs: list[float] = []
    settled = np.zeros(len(deals), dtype=bool)  # lost with more cells, in this sweep
    for k in sorted(cells_run, reverse=True):
        fallback = means.get(k, job_seconds(None, k, max_seconds))
        open_here = np.ones(len(deals), dtype=bool)
        if done_set:
            open_here = np.array([(int(d), k) not in done_set for d in deals], dtype=bool)
        if effort is not None and len(deals):
            nodes = effort.nodes[deals, k]
            searched_mask = open_here & ~settled
            seconds = np.where(nodes >= 0, JOB_SECONDS + nodes * POSITION_SECONDS, fallback)
            if max_seconds:
                seconds = np.minimum(seconds, max_seconds + 0.5)
            is_long = searched_mask & (nodes >= LONG_JOB_NODES)
            long_jobs += seconds[is_long].tolist()
            work += float(seconds[searched_mask].sum())
            cost += int(_units(seconds[searched_mask]).sum()) + int((open_here & settled).sum())
            known += int(searched_mask.sum())
            searched += int(searched_mask.sum())
            settled |= effort.lost[deals, k]
        else:
            count = int(open_here.sum())
            work += count * fallback
            cost += count * int(_units(fallback))
            searched += count
        count_beyond = beyond - sum(1 for d, c in done_set if c == k and d > CLASSIC_DEALS)
        work += count_beyond * fallback
        cost += count_beyond * int(_units(fallback))
        searched += count_beyond
    # The long jobs first, each to the first worker free; the rest spread over all.
    free = [0.0] * max(1, workers)
    for long_seconds in sorted(long_jobs, reverse=True):
        heapq.heapreplace(free, free[0] + long_seconds)
    rest = work - sum(long_jobs)
    wall = max(max(free), (sum(free) + rest) / len(free))
    return Estimate(searched, work, wall, known, cost)


@functools.cache
def _mean_seconds(variant: str, max_seconds: float | None) -> dict[int, float]:
    """A searched job's mean worker time per cell count in the table, for jobs it lacks."""
    effort = table_effort(variant)
    if effort is None:
        return {}
    means = {}
    for k in range(CELL_COUNTS):
        nodes = effort.nodes[:, k]
        nodes = nodes[nodes >= 0]
        if len(nodes):
            seconds = JOB_SECONDS + nodes * POSITION_SECONDS
            if max_seconds:
                seconds = np.minimum(seconds, max_seconds + 0.5)
            means[k] = float(seconds.mean())
    return means

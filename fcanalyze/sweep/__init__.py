"""Sweeps: deals x cell counts, run on a local pool or a Dask cluster, into a resumable Parquet dataset.

The parts, in the order a job meets them: plan (arguments checked, the dataset
opened, the summary), queue (which job runs when), pool and cluster (the two
backends, each yielding rows), rows (a job's row), recorder (rows counted once and
flushed), progress (the callback the CLI draws).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..budgets import DEFAULT_MAX_MEMORY, DEFAULT_MAX_SECONDS
from .plan import (
    MAX_SWEEP_JOBS,
    SweepPlan,
    SweepSummary,
    default_max_memory,
    default_workers,
    parse_cells,
    plan_sweep,
)
from .progress import Progress, Tally, expected_cost

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "DEFAULT_MAX_SECONDS",
    "MAX_SWEEP_JOBS",
    "Progress",
    "SweepPlan",
    "SweepSummary",
    "Tally",
    "default_max_memory",
    "default_workers",
    "expected_cost",
    "parse_cells",
    "plan_sweep",
    "run_sweep",
    "sweep",
]


def sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str | None = None,
    out: str | os.PathLike = "fcanalyze-results",
    **options,
) -> Path | str:
    """Decides every (deal, cells) job into the dataset at `out`; returns its path.

    `cells` None (the default, as on the command line) runs 4, 2 and 1 cells, or for
    a variant that deals cards into the cells (seahaven, eight-off) its own count down
    to the dealt cards.

    Jobs already in the dataset are skipped (with `retry_unknown=True`, `unknown`
    and `error` rows are run again and replaced). With `scheduler` (like
    tcp://host:8786) the jobs run on that Dask cluster's workers, which write the
    dataset at `out` themselves: a directory they all reach, or an fsspec URL (then
    returned as given). The options (variant, workers, budgets, retry_unknown,
    progress, scheduler, solutions) are plan_sweep's.
    """
    return run_sweep(deals, cells, out, **options).path


def run_sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str | None = None,
    out: str | os.PathLike = "fcanalyze-results",
    **options,
) -> SweepSummary:
    """Like sweep(), returning a SweepSummary."""
    plan = plan_sweep(deals, cells, out, **options)
    try:
        return plan.run()
    finally:
        plan.close()

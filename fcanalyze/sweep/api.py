"""The library's sweeps: every (deal, cells) job into the dataset, as the command line runs them."""

from __future__ import annotations

import os
from pathlib import Path

from .plan import SweepSummary, plan_sweep


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

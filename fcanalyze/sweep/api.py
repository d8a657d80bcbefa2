"""The library's sweeps: every (deal, cells) job into the dataset, as the command line runs them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..solving.budgets import DEFAULT_MAX_SECONDS
from .escalate import check_escalation, next_round_seconds
from .plan import SweepPlan, SweepSummary, plan_sweep

if TYPE_CHECKING:
    from .cluster import ClusterPlan


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
    returned as given). With `escalate` (seconds, above `max_seconds`), the jobs left
    without a verdict run again with twice the time, round after round, up to that.
    The other options (variant, workers, budgets, retry_unknown, progress, scheduler,
    solutions) are plan_sweep's.
    """
    return run_sweep(deals, cells, out, **options).path


def run_sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str | None = None,
    out: str | os.PathLike = "fcanalyze-results",
    *,
    escalate: float | None = None,
    on_plan: Callable[[SweepPlan | ClusterPlan], None] | None = None,
    on_round: Callable[[SweepSummary, float | None], None] | None = None,
    **options,
) -> SweepSummary:
    """Like sweep(), returning the last round's SweepSummary. `on_plan` is called with
    each round's plan before it runs, and `on_round` after, with its summary and the
    next round's time budget (None: it was the last)."""
    seconds = options.pop("max_seconds", DEFAULT_MAX_SECONDS)
    retried = bool(options.pop("retry_unknown", False))
    check_escalation(seconds, escalate)
    while True:
        plan = plan_sweep(deals, cells, out, max_seconds=seconds, retry_unknown=retried, **options)
        try:
            if on_plan is not None:
                on_plan(plan)
            summary = plan.run()
        finally:
            plan.close()
        following = next_round_seconds(summary, seconds, escalate, retried)
        if on_round is not None:
            on_round(summary, following)
        if following is None:
            return summary
        seconds, retried = following, True

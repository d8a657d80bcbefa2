"""Sweeps: deals x cell counts, run on a local pool or a Dask cluster, into a resumable Parquet dataset.

The parts, in the order a job meets them: plan (arguments checked, the dataset
opened, the summary), queue (which job runs when), pool and cluster (the two
backends, each yielding rows), rows (a job's row), recorder (rows counted once and
flushed), progress (the callback the CLI draws).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..lazy import submodule

# The names below load on first use (PEP 562): the command line imports the light
# modules of this package (`solutions`) without pyarrow, which `plan` brings.
_EXPORTS = {
    "DEFAULT_MAX_MEMORY": "..solving.budgets",
    "DEFAULT_MAX_SECONDS": "..solving.budgets",
    "MAX_SWEEP_JOBS": ".plan",
    "SweepPlan": ".plan",
    "SweepSummary": ".plan",
    "default_max_memory": ".plan",
    "default_workers": ".plan",
    "parse_cells": ".plan",
    "plan_sweep": ".plan",
    "Progress": ".progress",
    "Tally": ".progress",
    "expected_cost": ".progress",
    "run_sweep": ".api",
}

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


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        return submodule(__name__, name)
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from ..solving.budgets import DEFAULT_MAX_MEMORY, DEFAULT_MAX_SECONDS
    from .api import run_sweep
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


def sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str | None = None,
    out: str | os.PathLike = "fcanalyze-results",
    **options: Any,
) -> Path | str:
    """Decides every (deal, cells) job into the dataset at `out`; returns its path
    (`api.sweep`, which says more). Defined here so that importing it needs no pyarrow;
    sweeping does."""
    from .api import sweep as run

    return run(deals, cells, out, **options)

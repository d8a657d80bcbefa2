"""What a sweep did: the summary a local sweep and a cluster sweep both return, and the stop signals both catch."""

from __future__ import annotations

import collections
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..dataset.jobs import Key
from ..outputs import percent
from ..status import ERROR, SOLVED, UNKNOWN, UNSOLVABLE


@dataclass
class SweepSummary:
    """What a sweep did: per cell count, the verdicts of all its jobs now in the dataset."""

    path: Path | str  # a directory, or a cluster sweep's fsspec URL
    variant: str
    jobs: int
    already_done: int
    ran: int = 0
    interrupted: bool = False
    wall_seconds: float = 0.0
    engine_seconds: float = 0.0
    verify_seconds: float = 0.0
    write_seconds: float = 0.0
    worker_deaths: int = 0
    # A cluster sweep's: the part files its workers wrote, and tasks that failed
    # (their chunks are left for the next run).
    bytes_written: int = 0
    failed_tasks: int = 0
    # cells -> status -> count, over every job of the sweep (old rows included), or for
    # a cluster sweep, which reads no row, over the jobs run now (`only_run_now`);
    # "left" counts the jobs not in the dataset yet (a stopped sweep).
    by_cells: dict[int, collections.Counter] = field(default_factory=dict)
    only_run_now: bool = False
    # The jobs of the sweep whose rows are unknown or error, as (deal, variant, cells);
    # a cluster sweep, which reads no row, leaves it empty.
    undecided: list[Key] = field(default_factory=list)
    # The sweep's cell counts, most first, and the time each job had (None: no limit).
    cells: list[int] = field(default_factory=list)
    max_seconds: float | None = None

    def table(self) -> str:
        """Per cell count: jobs, verdicts, jobs left (if any), and the solvable share of
        the decided ones."""
        left = any(c["left"] for c in self.by_cells.values())
        head = f"{'cells':>5} {'jobs':>8} {'solved':>8} {'unsolvable':>10} {'unknown':>8} {'error':>6}"
        lines = [head + (f" {'left':>8}" if left else "") + f" {'solvable':>9}"]
        for cells in sorted(self.by_cells, reverse=True):
            c = self.by_cells[cells]
            jobs = sum(c.values())
            decided = c[SOLVED] + c[UNSOLVABLE]
            share = f"{percent(c[SOLVED] / decided):>9}" if decided else f"{'-':>9}"
            lines.append(
                f"{cells:>5} {jobs:>8,} {c[SOLVED]:>8,} {c[UNSOLVABLE]:>10,} "
                f"{c[UNKNOWN]:>8,} {c[ERROR]:>6,}" + (f" {c['left']:>8,}" if left else "") + f" {share}"
            )
        return "\n".join(lines)


class _Stoppable(Protocol):
    stop_requested: bool


def catch_stop_signals(plan: _Stoppable) -> Callable[[], None]:
    """Ctrl-C and SIGTERM set the plan's stop flag, which its loop checks, so a stop
    never cuts a write in half; returns the function that restores the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def request_stop(signum, frame):
        plan.stop_requested = True

    old = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}

    def restore() -> None:
        for sig, handler in old.items():
            signal.signal(sig, handler)

    return restore

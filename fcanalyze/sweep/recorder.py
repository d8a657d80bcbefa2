"""Where a sweep's rows go: counted once each, buffered, and flushed to the dataset at least every half second."""

from __future__ import annotations

import collections
import time
from collections.abc import Callable

from ..dataset.jobs import Key
from ..dataset.store import Dataset, Row
from .progress import Progress, Tally, expected_cost

# Results reach the dataset at least this often: a kill -9 of the main process loses
# the jobs in flight and at most this much of finished work.
FLUSH_SECONDS = 0.5
# The progress callback is called at most this often (and at the start and the end).
PROGRESS_SECONDS = 0.2


class Recorder:
    """Takes each job's row once (a job a cluster ran twice, a lost worker's, counts
    once), appends new rows and replaces retried ones, and keeps the tally."""

    def __init__(
        self,
        dataset: Dataset,
        to_run: int,
        total_cost: int,
        progress: Progress | None,
        costs: Callable[[int, int, bool], int] | None = None,
    ):
        self.dataset = dataset
        self.progress = progress
        # The status of every job this run has recorded.
        self.recorded: dict[Key, str] = {}
        self.counts: collections.Counter[str] = collections.Counter()
        self.to_run = to_run
        self.total_cost = total_cost
        self.done_cost = 0
        # A job's cost to the progress: its estimated time (sweep.estimate.JobCosts), or
        # its cell count's typical cost.
        self.costs = costs
        self.engine_seconds = 0.0
        self.verify_seconds = 0.0
        self.write_seconds = 0.0
        self._buffer: list[Row] = []
        self._last_flush = time.monotonic()
        self._last_report = 0.0

    @property
    def ran(self) -> int:
        return len(self.recorded)

    def record(self, row: Row) -> bool:
        """Takes a row; False if its job already has one from this run."""
        key = row.key
        if key in self.recorded:
            return False
        self.recorded[key] = row.status
        self._buffer.append(row)
        self.counts[row.status] += 1
        if row.seconds is not None:
            self.engine_seconds += row.seconds
            self.verify_seconds += row.verify_seconds or 0.0
        deal, _, cells = key
        implied = row.implied_by is not None
        self.done_cost += self.costs(deal, cells, implied) if self.costs is not None else expected_cost(cells)
        return True

    def flush(self) -> None:
        """Writes the rows taken since the last flush."""
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        begin = time.perf_counter()
        rows, self._buffer = self._buffer, []
        # A job retried (--retry-unknown) replaces its old row; the others are new.
        fresh = [r for r in rows if r.key not in self.dataset.where]
        again = [r for r in rows if r.key in self.dataset.where]
        self.dataset.append(fresh)
        self.dataset.replace(again)
        self.write_seconds += time.perf_counter() - begin

    def tick(self) -> None:
        """Flushes and reports if it is time to."""
        if time.monotonic() - self._last_flush >= FLUSH_SECONDS:
            self.flush()
        self.report()

    def report(self, force: bool = False, final: bool = False) -> None:
        """Calls the progress callback, at most five times a second unless forced."""
        if self.progress is not None and (force or time.monotonic() - self._last_report >= PROGRESS_SECONDS):
            # Jobs the estimate took for settled by proofs with more cells, and searched
            # after all, may take the progress past its total: it stops just short.
            total = max(self.total_cost, self.done_cost + (0 if final else 1))
            tally = Tally(self.done_cost, total, self.ran, self.to_run, dict(self.counts))
            self.progress(tally, final)
            self._last_report = time.monotonic()

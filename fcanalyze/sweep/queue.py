"""The order jobs run in: the most cells first, each deal's job waiting for its verdict with more cells, the known long jobs first of all."""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping

from ..dataset.jobs import JobSpace, Key
from ..dataset.store import Row
from ..game.variant import MAX_CELLS, Variant
from ..solving.budgets import Budgets
from ..status import UNSOLVABLE
from ..tables.shipped import long_jobs
from .rows import implied_row

# Done jobs the cursor passes over in one call to next_chunk.
MAX_SKIPS_PER_CHUNK = 20_000

Job = tuple[int, int, int]  # (index in the job space, deal, cells)


def chunk_size(jobs_left: int, workers: int, cap: int) -> int:
    """Jobs to send at once: big chunks keep the cost per job low, and about eight
    chunks per worker of what is left keep every worker busy to the end."""
    return max(1, min(cap, jobs_left // (workers * 8)))


class JobQueue:
    """Hands out a sweep's open jobs in the job space's order, in chunks, from a cursor
    that skips the jobs the dataset already has. A job whose deal is still being
    decided with more cells waits for that verdict; one whose deal is proved
    unsolvable with more cells is settled here, without a search, by `record`.

    The jobs the shipped table knows to be long (`table.long_jobs`) are handed out
    first, longest first (once the jobs they wait for are done), each in a chunk of
    its own: a job of a minute or more that came up near the end of a sweep would run
    on alone while the other workers had nothing left to do. Only the order depends on
    the table; every job is still searched.

    `kept` is the dataset's status per key; `recorded` the status of every job this
    run has recorded (the caller's, kept up to date); `redo` the statuses whose rows
    are run again; `to_run` how many jobs of the space are open (the caller counts
    them once, over the dataset's rows)."""

    def __init__(
        self,
        space: JobSpace,
        rules: Variant,
        budgets: Budgets,
        host: str,
        kept: Mapping[Key, str],
        recorded: Mapping[Key, str],
        redo: set[str],
        record: Callable[[Row], None],
        to_run: int,
    ):
        self.space = space
        self.rules = rules
        self.budgets = budgets
        self.host = host
        self.kept = kept
        self.recorded = recorded
        self.redo = redo
        self.record = record
        self.cursor = 0
        self.handed_out = 0
        # Indices handed out and given back (a dead worker's, or jobs that waited for
        # a verdict with more cells) go before the cursor.
        self.requeued: collections.deque[int] = collections.deque()
        # Jobs held back until the job they wait for (the same deal with the next
        # larger cell count of this sweep, still to finish) has its row.
        self.waiting: dict[Key, list[int]] = {}
        self._cells_above = {k: [c for c in space.cells if c > k] for k in space.cells}
        self.to_run = to_run
        # The long jobs of this space (`is_long`), and the open ones, to go first: the
        # most cells first (the jobs with fewer wait for them), then the longest.
        long_keys = [
            ((deal, space.variant, cells), nodes)
            for (deal, cells), nodes in long_jobs(space.variant).items()
            if (deal, space.variant, cells) in space
        ]
        long_keys.sort(key=lambda kn: (-kn[0][2], -kn[1], kn[0][0]))
        self.long = {space.index(key) for key, _ in long_keys}
        # The cursor only moves once these are all handed out (each call takes one while
        # its chunk is empty), so it passes over every long job: the open ones went first.
        self.long_first = collections.deque(space.index(key) for key, _ in long_keys if self.is_open(key))

    def is_open(self, key: Key) -> bool:
        """A job of this sweep that has no row yet from this run, nor a kept one from before."""
        if key in self.recorded:
            return False
        status = self.kept.get(key)
        return status is None or status in self.redo

    def has_pending(self) -> bool:
        """Jobs not yet handed out remain (some may turn out to be done or implied)."""
        return bool(self.requeued) or bool(self.long_first) or self.cursor < len(self.space)

    def is_long(self, index: int) -> bool:
        """A job the shipped table knows to be long: a worker given one is sent nothing
        more until it is done (pool.py), so that no job waits behind it."""
        return index in self.long

    def has_work(self) -> bool:
        """Jobs remain that are not handed out, or wait for another's verdict."""
        return self.has_pending() or bool(self.waiting)

    def left(self) -> int:
        """Jobs of this run not yet handed out (the ones given back included)."""
        return self.to_run - self.handed_out + len(self.requeued)

    def recorded_row(self, key: Key) -> None:
        """A job's row was recorded: the jobs that waited for it go next."""
        self.requeued.extendleft(reversed(self.waiting.pop(key, [])))

    def give_back(self, indices: list[int]) -> None:
        """Jobs handed out that did not finish go back to the front, in their order."""
        self.requeued.extendleft(reversed(indices))

    def next_chunk(self, size: int) -> list[Job]:
        """Up to `size` jobs ready to run."""
        chunk: list[Job] = []
        # Jobs already done are skipped a bounded number at a time, so that a resumed
        # sweep of millions of done jobs still checks for Ctrl-C every moment.
        skips = MAX_SKIPS_PER_CHUNK
        while len(chunk) < size and skips:
            if self.long_first and not chunk:
                index = self.long_first.popleft()
                deal, name, cells = self.space.key(index)
                self.handed_out += 1
            elif self.requeued:
                index = self.requeued[0]
                if index in self.long and chunk:
                    break  # a long job goes in a chunk of its own
                self.requeued.popleft()
                deal, name, cells = self.space.key(index)
            elif self.cursor < len(self.space):
                index = self.cursor
                self.cursor += 1
                deal, name, cells = key = self.space.key(index)
                if index in self.long or not self.is_open(key):
                    skips -= 1
                    continue
                self.handed_out += 1
            else:
                break
            proved = self._proved_unsolvable_with_more(deal, name, cells)
            if proved is not None:
                self.record(implied_row(deal, self.rules.with_cells(cells), self.budgets, self.host, proved))
                continue
            above = self._cells_above[cells]
            blocker = (deal, name, above[-1]) if above else None
            if blocker is not None and self.is_open(blocker):
                self.waiting.setdefault(blocker, []).append(index)
                continue
            chunk.append((index, deal, cells))
            if index in self.long:
                break
        return chunk

    def _proved_unsolvable_with_more(self, deal: int, name: str, cells: int) -> int | None:
        """The fewest cells above `cells` that deal is proved unsolvable with, if any."""
        for k in range(cells + 1, MAX_CELLS + 1):
            key = (deal, name, k)
            if self.kept.get(key) == UNSOLVABLE or self.recorded.get(key) == UNSOLVABLE:
                return k
        return None

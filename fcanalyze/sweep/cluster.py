"""The Dask backend: a sweep's chunks as tasks on a cluster's workers, which write their own part files; this process only plans and counts."""

from __future__ import annotations

import bisect
import collections
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cluster import connect, quiet_teardown
from ..dataset.chunks import SHARD_DEALS, Chunk, ChunkStore, is_local, shard_of
from ..dataset.jobs import JobSpace
from ..dataset.store import Row, checked_part, lock_directory, part_files, rows_to_table
from ..errors import FcanalyzeError
from ..game.variant import Variant
from ..solving.budgets import Budgets
from ..status import ERROR, UNKNOWN, UNSOLVABLE
from .progress import Progress, Tally, expected_cost
from .recorder import PROGRESS_SECONDS
from .rows import implied_row, solve_row
from .solutions import with_solution_kept
from .summary import SweepSummary, catch_stop_signals

log = logging.getLogger("fcanalyze.sweep")

# The client looks for finished tasks (and for Ctrl-C) at least this often.
WAKE_SECONDS = 0.05


def open_location(out: str | os.PathLike) -> tuple[ChunkStore, Callable[[], None]]:
    """The dataset location of a cluster sweep, and what releases it: a directory is
    made absolute (the workers' working directories are not this one) and locked
    against a second sweep on this machine; a local sweep's dataset is refused (one
    layout per dataset)."""
    location = str(out)
    release: Callable[[], None] = lambda: None  # noqa: E731
    if is_local(location):
        path = Path(location.removeprefix("file://")).absolute()
        location = str(path)
        if part_files(path, chunks=False):
            raise FcanalyzeError(
                f"{path} holds a local sweep's parts, which a cluster sweep does not add to; "
                "continue it without --scheduler, or give the cluster sweep another --out"
            )
        release = lock_directory(path).close
    try:
        return ChunkStore(location), release
    except FcanalyzeError:
        release()
        raise


# A task's chunk of deals is as large as fits about this much expected work at the
# sweep's slowest cell count (in expected_cost's units: 200,000 is some 20 s), and
# small enough to give every worker thread several tasks. Chunk sizes divide a
# shard evenly, so chunks never straddle two shards: 20,000 deals for 4-cell
# sweeps (430,000 tasks and files for the extended range), 200 when 1 or 2 cells
# are in the sweep.
TASK_COST = 200_000
CHUNK_SIZES = (20_000, 10_000, 5_000, 2_000, 1_000, 500, 200, 100, 50, 20, 10, 5, 2, 1)
# Tasks submitted ahead of the workers, per worker thread: enough that none idles
# while this process hears of a result and submits the next.
TASKS_AHEAD = 4


def chunk_deals(deals: int, cells: list[int], threads: int) -> int:
    """Deals per chunk for a sweep of `deals` deals at `cells` on `threads` threads."""
    slowest = max(expected_cost(k) for k in cells)
    target = max(1, min(TASK_COST // slowest, deals // (threads * 8)))
    return next(size for size in CHUNK_SIZES if size <= target)


def deal_ranges(spans: list[tuple[int, int]], size: int) -> Iterator[tuple[int, int]]:
    """The sweep's deals cut into runs of at most `size`, at multiples of `size` from
    each shard's start; lazily, so a plan of billions of deals costs nothing."""
    for lo, hi in spans:
        deal = lo
        while deal <= hi:
            start = shard_of(deal) * SHARD_DEALS + 1
            end = min(hi, start + ((deal - start) // size + 1) * size - 1)
            yield deal, end
            deal = end + 1


def gaps(first: int, last: int, chunks: list[Chunk]) -> list[tuple[int, int]]:
    """The runs of first..last that none of `chunks` covers."""
    found, deal = [], first
    for c in sorted(chunks, key=lambda c: c.first):
        if c.first > deal:
            found.append((deal, min(last, c.first - 1)))
        deal = max(deal, c.last + 1)
        if deal > last:
            break
    if deal <= last:
        found.append((deal, last))
    return found


@dataclass(frozen=True)
class ChunkDone:
    """What a task sends back: how its jobs went, never the rows."""

    chunk: Chunk
    # Status -> count over the jobs run now (kept rows of a retried chunk not included).
    counts: dict[str, int]
    engine_seconds: float
    verify_seconds: float
    bytes_written: int
    # The chunk's file was there, and its undecided rows were run again.
    retried: bool = False


def run_chunk(
    store: ChunkStore,
    chunk: Chunk,
    rules: Variant,
    budgets: Budgets,
    solutions: str,
    retry: bool,
    within: list[tuple[int, int]] | None = None,
) -> ChunkDone:
    """The task a worker runs: every job of the chunk, solved or settled, written as
    the chunk's part file. With `retry`, the chunk's file exists and only its unknown
    and error rows are run again, of the deals `within` (the sweep's, in the chunk;
    None: all). The counts sent back are of the jobs `within`."""
    host = socket.gethostname()
    inside = (lambda deal: True) if within is None else (lambda deal: any(a <= deal <= b for a, b in within))
    kept: dict[int, Row] = {}
    if retry:
        # Checked as every read of a part is: a status that is no verdict fails the task.
        for old in checked_part(store.read(chunk), chunk.path(store.root)).to_pylist():
            if old["status"] not in (UNKNOWN, ERROR) or not inside(old["deal"]):
                kept[old["deal"]] = Row(**old)
        if len(kept) == len(chunk):
            return ChunkDone(chunk, {}, 0.0, 0.0, 0, retried=True)
    store.mark(chunk)
    proved = proved_unsolvable_with_more(store, chunk)
    rows: list[Row] = []
    counts: collections.Counter[str] = collections.Counter()
    engine = verify = 0.0
    for deal in chunk.deals:
        row = kept.get(deal)
        if row is None:
            if deal in proved:
                row = implied_row(deal, rules.with_cells(chunk.cells), budgets, host, proved[deal])
            else:
                row = with_solution_kept(solve_row(deal, chunk.cells, rules, budgets, host), solutions)
                engine += row.seconds or 0.0
                verify += row.verify_seconds or 0.0
            if inside(deal):
                counts[row.status] += 1
        rows.append(row)
    size = store.write(chunk, rows_to_table(rows))
    store.unmark(chunk)
    return ChunkDone(chunk, dict(counts), engine, verify, size, retried=retry)


def proved_unsolvable_with_more(store: ChunkStore, chunk: Chunk) -> dict[int, int]:
    """The chunk's deals proved unsolvable with more cells, each with the fewest such
    cells: read from the chunk files of its shard (fewer cells never win a deal that
    more cannot)."""
    proved: dict[int, int] = {}
    for other in store.chunks_in(chunk.shard):
        if other.variant != chunk.variant or other.cells <= chunk.cells or not other.overlaps(chunk.first, chunk.last):
            continue
        table = store.read(other, ["deal", "status"])
        for deal, status in zip(table["deal"].to_pylist(), table["status"].to_pylist()):
            if status == UNSOLVABLE and chunk.first <= deal <= chunk.last:
                proved[deal] = min(proved.get(deal, other.cells), other.cells)
    return proved


@dataclass
class _Range:
    """A run of deals going through the sweep's cell counts, most first: its chunks
    with fewer cells start when those with more have finished."""

    first: int
    last: int
    step: int = 0  # index into the sweep's cell counts
    pending: int = 0  # tasks in flight for the current step


class _Shard:
    """One shard's listing, indexed by (variant, cells), and what this run submitted
    there: a range looks up its chunks by bisection, not by a scan of the shard."""

    def __init__(self, written: list[Chunk], begun: list[Chunk]):
        self.written: dict[tuple[str, int], list[Chunk]] = {}
        for c in sorted(written, key=lambda c: c.first):
            self.written.setdefault((c.variant, c.cells), []).append(c)
        # A variant's chunks with one cell count never overlap: sorted by first deal,
        # they are sorted by last deal too.
        self._lasts = {key: [c.last for c in chunks] for key, chunks in self.written.items()}
        self.begun = begun  # few: only tasks cut short leave them
        self.submitted: set[Chunk] = set()
        # Submitted chunks not cut to one range (adopted or retried): they may reach
        # into other ranges, which must not run their jobs again.
        self.spanning: list[Chunk] = []
        self.active = 0  # ranges of this shard not yet through all their cell counts

    def written_over(self, key: tuple[str, int], first: int, last: int) -> list[Chunk]:
        chunks = self.written.get(key, [])
        i = bisect.bisect_left(self._lasts.get(key, []), first)
        found = []
        while i < len(chunks) and chunks[i].first <= last:
            found.append(chunks[i])
            i += 1
        return found


class ClusterPlan:
    """A checked cluster sweep: run() plans chunks, submits them to the Dask cluster,
    and counts what comes back; close() releases the location."""

    def __init__(
        self,
        store: ChunkStore,
        rules: Variant,
        space: JobSpace,
        budgets: Budgets,
        retry_unknown: bool,
        solutions: str,
        progress: Progress | None,
        scheduler: str,
        release: Callable[[], None],
        workers: int | None = None,
    ):
        self.store = store
        self.rules = rules
        self.space = space
        self.budgets = budgets
        self.retry = retry_unknown
        self.solutions = solutions
        self.progress = progress
        self.scheduler = scheduler
        self.workers = workers  # of a `local` cluster
        # Why a sweep without --scheduler runs here (plan_sweep says), or None.
        self.why: str | None = None
        self._release = release
        self.stop_requested = False
        location = store.location
        self.summary = SweepSummary(Path(location) if is_local(location) else location, rules.name, len(space), 0)
        self.summary.only_run_now = True
        self.summary.cells = list(space.cells)
        self.summary.max_seconds = budgets.max_seconds
        # The shards in use (listed once, while a range of theirs is active).
        self._shards: dict[int, _Shard] = {}
        self._ran: dict[int, collections.Counter[str]] = {k: collections.Counter() for k in space.cells}
        self._kept: collections.Counter[int] = collections.Counter()
        self.to_run = len(space)
        self._total_cost = sum(len(space.deals) * expected_cost(k) for k in space.cells)
        self._done_cost = 0
        self._last_report = 0.0

    def close(self) -> None:
        self._release()

    def run(self) -> SweepSummary:
        s = self.summary
        begin = time.perf_counter()
        client, disconnect = connect(self.scheduler, self.workers)
        restore = catch_stop_signals(self)
        in_flight: dict[Any, _Range] = {}
        try:
            from dask.distributed import as_completed

            threads = sum(client.nthreads().values())
            if threads == 0:
                raise FcanalyzeError(
                    f"the Dask cluster at {self.scheduler} has no workers; start some with 'dask worker {self.scheduler}'"
                )
            size = chunk_deals(len(self.space.deals), self.space.cells, threads)
            log.info(
                "Dask cluster at %s: %d worker thread(s); chunks of %d deals written to %s",
                self.scheduler, threads, size, self.store.location,
            )  # fmt: skip
            ranges = deal_ranges(self.space.deals.spans, size)
            ready: collections.deque[_Range] = collections.deque()
            with client.as_current():
                completed = as_completed([], with_results=True, raise_errors=False)
            self._report(force=True)
            while not self.stop_requested:
                while len(in_flight) < TASKS_AHEAD * threads:
                    if ready:
                        current = ready.popleft()
                    else:
                        run = next(ranges, None)
                        if run is None:
                            break
                        current = _Range(*run)
                    for future in self._submit_step(client, current, size):
                        in_flight[future] = current
                        completed.add(future)
                if not in_flight and not ready:
                    break
                if not completed.has_ready():
                    time.sleep(WAKE_SECONDS)  # polling keeps Ctrl-C prompt
                else:
                    for future, result in completed.next_batch(block=False):
                        finished = in_flight.pop(future)
                        self._take(result)
                        finished.pending -= 1
                        if finished.pending == 0:
                            finished.step += 1
                            ready.append(finished)
                self._report()
        finally:
            with quiet_teardown():
                if in_flight:
                    client.cancel(list(in_flight))
                disconnect()
            restore()
        s.interrupted = self.stop_requested
        if s.interrupted:
            log.warning("stopped; the chunks finished so far are kept")
        s.ran = sum(sum(c.values()) for c in self._ran.values())
        s.wall_seconds = time.perf_counter() - begin
        s.by_cells = {}
        for k in self.space.cells:
            counter = collections.Counter(self._ran[k])
            counter["left"] = len(self.space.deals) - self._kept[k] - sum(self._ran[k].values())
            s.by_cells[k] = counter
        self._report(force=True, final=True)
        return s

    def _shard(self, shard: int) -> _Shard:
        if shard not in self._shards:
            # Shards no active range needs are forgotten, so that memory stays flat.
            for idle in [n for n, known in self._shards.items() if not known.active]:
                del self._shards[idle]
            self._shards[shard] = _Shard(*self.store.listing(shard))
        return self._shards[shard]

    def _submit_step(self, client, run: _Range, size: int) -> list[Any]:
        """Submits the tasks of the range's next cell count that has any to do."""
        cells = self.space.cells
        name = self.rules.name
        shard = self._shard(shard_of(run.first))
        if run.step == 0:
            shard.active += 1
        while run.step < len(cells):
            k = cells[run.step]
            there = shard.written_over((name, k), run.first, run.last)
            # A chunk an earlier run's task began and has not written (that task may
            # still be running) is run again with the same bounds: both then write the
            # same file. Unless jobs of it are in files already: then its task is dead.
            adopted = [
                c
                for c in shard.begun
                if c.variant == name and c.cells == k and c.overlaps(run.first, run.last)
                and c not in shard.submitted and not shard.written_over((name, k), c.first, c.last)
            ]  # fmt: skip
            work = [(c, False) for c in adopted]
            if self.retry:
                work += [(c, True) for c in there if c not in shard.submitted]
            spanning = [c for c in shard.spanning if c.cells == k and c.overlaps(run.first, run.last)]
            covered = there + adopted + spanning
            work += [(Chunk(name, k, a, b), False) for a, b in gaps(run.first, run.last, covered)]
            done = run.last - run.first + 1 - sum(b - a + 1 for a, b in gaps(run.first, run.last, there))
            self._kept[k] += done
            self.summary.already_done += done
            self.to_run -= done
            self._total_cost -= done * expected_cost(k)
            shard.submitted.update(chunk for chunk, _ in work)
            shard.spanning += [c for c, _ in work if not (run.first <= c.first and c.last <= run.last)]
            futures = [self._submit(client, chunk, retry) for chunk, retry in work]
            if futures:
                run.pending = len(futures)
                return futures
            run.step += 1
        shard.active -= 1
        return []

    def _submit(self, client, chunk: Chunk, retry: bool) -> Any:
        key = f"fcanalyze-{chunk.file_name()}-{uuid.uuid4().hex[:8]}"
        within = self.space.deals.within(chunk.first, chunk.last)
        args = (self.store, chunk, self.rules, self.budgets, self.solutions, retry, within)
        return client.submit(run_chunk, *args, pure=False, key=key)

    def _take(self, result: Any) -> None:
        if isinstance(result, BaseException):
            self.summary.failed_tasks += 1
            log.error("a chunk failed on the Dask cluster: %s: %s", type(result).__name__, result)
            return
        done: ChunkDone = result
        self._ran[done.chunk.cells].update(done.counts)
        jobs = sum(done.counts.values())
        if done.retried:  # counted as already there when planned; these ran again
            self._kept[done.chunk.cells] -= jobs
            self.summary.already_done -= jobs
        self._done_cost += jobs * expected_cost(done.chunk.cells)
        self.summary.engine_seconds += done.engine_seconds
        self.summary.verify_seconds += done.verify_seconds
        self.summary.bytes_written += done.bytes_written

    def _report(self, force: bool = False, final: bool = False) -> None:
        if self.progress is None or not (force or time.monotonic() - self._last_report >= PROGRESS_SECONDS):
            return
        counts: collections.Counter[str] = collections.Counter()
        for c in self._ran.values():
            counts.update(c)
        ran = sum(counts.values())
        total = max(self._total_cost, self._done_cost)
        self.progress(Tally(self._done_cost, total, ran, max(self.to_run, ran), dict(counts)), final)
        self._last_report = time.monotonic()

"""Sweeps: deals x cell counts fanned out to a pool of solver processes, into a resumable Parquet dataset."""

from __future__ import annotations

import collections
import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import __version__
from .budgets import Budgets, parse_memory
from .errors import FcanalyzeError
from .inputs import quote, whole_number
from .jobs import DealSpans, JobSpace, Key
from .outputs import percent
from .solving import solve
from .status import ERROR, SOLVED, STATUSES, UNKNOWN, UNSOLVABLE
from .store import Dataset, Row
from .variant import MAX_CELLS, MIN_CELLS, Variant

log = logging.getLogger(__name__)

# A job whose worker dies this many times gets an `error` row instead of another try.
MAX_ATTEMPTS = 2
# Results reach the dataset at least this often: a kill -9 of the main process loses
# the jobs in flight and at most this much of finished work.
FLUSH_SECONDS = 0.5
DEFAULT_MAX_SECONDS = 30.0
# A worker sends its results at least this often (and at the end of each chunk).
RESULT_BATCH_SECONDS = 0.05
DEFAULT_MAX_MEMORY = 8 << 30
# A dataset keeps its rows' keys and statuses in memory (some 200 bytes a row); past
# this many jobs a sweep belongs in several datasets.
MAX_SWEEP_JOBS = 50_000_000
# Done jobs the cursor passes over in one call to next_chunk.
MAX_SKIPS_PER_CHUNK = 20_000
# The most jobs a local worker is sent at once.
MAX_POOL_CHUNK = 64


# A job's typical cost in tenths of a millisecond of a worker's time, by cell count:
# the engine's mean over the classic deals 1..32,000 in the full-table sweep
# (docs/performance.md) plus about 0.3 ms of referee and pool. The progress bar's ETA
# weighs jobs by these (whole numbers, so that the bar ends exactly at its total).
_EXPECTED_COST = {0: 18, 1: 730, 2: 540, 3: 65, 4: 9}


def expected_cost(cells: int) -> int:
    """The relative cost of a job with `cells` free cells (more than 4 cost as 4 do)."""
    return _EXPECTED_COST.get(cells, _EXPECTED_COST[4])


def chunk_size(jobs_left: int, workers: int, cap: int) -> int:
    """Jobs to send at once: big chunks keep the cost per job low, and about eight
    chunks per worker of what is left keep every worker busy to the end."""
    return max(1, min(cap, jobs_left // (workers * 8)))


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def default_max_memory(workers: int) -> int:
    """8 GiB per job, or less so that all workers together fit in 80% of the machine."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return DEFAULT_MAX_MEMORY
    return min(DEFAULT_MAX_MEMORY, int(total * 0.8) // max(workers, 1))


def parse_cells(text: str | int | list[int] | tuple[int, ...]) -> list[int]:
    """Cell counts from `4`, `1,2,4` or `0-4` (or a list); sorted from most to fewest."""
    if isinstance(text, int):
        items = [text]
    elif isinstance(text, (list, tuple)):
        items = list(text)
    else:
        items = []
        for part in text.split(","):
            part = part.strip()
            lo_text, dash, hi_text = part.partition("-")
            lo, hi = whole_number(lo_text), whole_number(hi_text) if dash else whole_number(lo_text)
            if lo is None or hi is None:
                raise FcanalyzeError(f"bad cell count {quote(part)} in {quote(text)}; write e.g. 4 or 1,2,4 or 0-4")
            if hi < lo:
                raise FcanalyzeError(f"bad cell range {quote(part)}: it runs backwards; write {hi}-{lo}")
            if hi - lo > MAX_CELLS:
                raise FcanalyzeError(f"cell count {hi} is out of range: {MIN_CELLS}..{MAX_CELLS}")
            items.extend(range(lo, hi + 1))
    if not items:
        raise FcanalyzeError("no cell counts given; write e.g. --cells 4 or --cells 1,2,4")
    for k in items:
        if not isinstance(k, int) or not MIN_CELLS <= k <= MAX_CELLS:
            raise FcanalyzeError(f"cell count {k} is out of range: {MIN_CELLS}..{MAX_CELLS}")
    return sorted(set(items), reverse=True)


@dataclass
class SweepSummary:
    """What a sweep did: per cell count, the verdicts of all its jobs now in the dataset."""

    path: Path
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
    # cells -> status -> count, over every job of the sweep (old rows included);
    # "left" counts the jobs not in the dataset yet (a stopped sweep).
    by_cells: dict[int, collections.Counter] = field(default_factory=dict)

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
            share = f"{percent(c['solved'] / decided):>9}" if decided else f"{'-':>9}"
            lines.append(
                f"{cells:>5} {jobs:>8,} {c['solved']:>8,} {c['unsolvable']:>10,} "
                f"{c['unknown']:>8,} {c['error']:>6,}" + (f" {c['left']:>8,}" if left else "") + f" {share}"
            )
        return "\n".join(lines)


def sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str = 4,
    out: str | os.PathLike = "fcanalyze-results",
    **options,
) -> Path:
    """Decides every (deal, cells) job into the dataset at `out`; returns its path.

    Jobs already in the dataset are skipped (with `retry_unknown=True`, `unknown`
    and `error` rows are run again and replaced). With `scheduler` (like
    tcp://host:8786) the jobs run on that Dask cluster's workers and the rows come
    back here to be written. The options (variant, workers, budgets, retry_unknown,
    progress, scheduler) are plan_sweep's.
    """
    return run_sweep(deals, cells, out, **options).path


def run_sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str = 4,
    out: str | os.PathLike = "fcanalyze-results",
    **options,
) -> SweepSummary:
    """Like sweep(), returning a SweepSummary."""
    plan = plan_sweep(deals, cells, out, **options)
    try:
        return plan.run()
    finally:
        plan.close()


def plan_sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str = 4,
    out: str | os.PathLike = "fcanalyze-results",
    *,
    variant: str = "freecell",
    workers: int | None = None,
    max_nodes: int | None = None,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    max_memory: int | str | None = None,
    retry_unknown: bool = False,
    progress: bool = False,
    scheduler: str | None = None,
) -> SweepPlan:
    """Checks every argument, opens (and locks) the dataset and lists the jobs to run,
    before any work starts. FcanalyzeError says what is wrong."""
    from .deals import parse_deal_spans

    deal_spans = DealSpans(parse_deal_spans(deals)) if isinstance(deals, str) else DealSpans.of(deals)
    if not len(deal_spans):
        raise FcanalyzeError("no deals to sweep")
    cell_list = parse_cells(cells)
    rules = Variant.parse(variant)
    if any(part.partition("=")[0].strip().lower() == "cells" for part in variant.split(",")):
        raise FcanalyzeError(
            f"--variant {quote(variant)} sets cells, which a sweep takes from --cells; "
            f"write --cells {rules.cells} (or a list like --cells 0-4) instead"
        )
    space = JobSpace(deal_spans, cell_list, rules.name)
    if len(space) > MAX_SWEEP_JOBS:
        raise FcanalyzeError(
            f"{len(space):,} jobs ({len(deal_spans):,} deals x {len(cell_list)} cell counts) is more than one "
            f"sweep takes ({MAX_SWEEP_JOBS:,}): a dataset keeps an index of its rows in memory. "
            "Split the range into several sweeps (several --out directories)"
        )
    if scheduler is not None:
        from .cluster import check_scheduler_address

        check_scheduler_address(scheduler)
        if workers is not None:
            raise FcanalyzeError("--workers does not apply with --scheduler: the cluster's workers run the jobs")
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise FcanalyzeError(f"--workers must be at least 1, got {workers}")
    memory = parse_memory(max_memory) if max_memory is not None else default_max_memory(workers)
    budgets = Budgets(max_nodes, max_seconds, memory)

    dataset = Dataset.open(out)
    plan = SweepPlan(dataset, rules, space, budgets, workers, retry_unknown, progress, scheduler)
    if plan.to_run and dataset.read_only:
        dataset.close()
        raise FcanalyzeError(
            f"cannot write to {dataset.path} ({dataset.read_only}), and {plan.to_run:,} of its jobs are still to run"
        )
    return plan


# --- the worker side ------------------------------------------------------------------------


def _set_parent_death_signal() -> None:
    """Linux: die with the main process, even when it is killed with SIGKILL."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the pipe closing still ends the worker
        pass


def _worker_main(conn, current, parent_pid: int, variant: Variant, budgets: Budgets) -> None:
    """Solves the chunks of jobs it is sent, in order. Results go back in batches (a
    message per job would cost the main process more than a fast job costs here);
    `current` always holds the index of the job being solved, so that if this
    process dies the main process knows which job it died on."""
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the main process died before prctl took effect
        os._exit(1)
    # Ctrl-C reaches the whole process group; the main process decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    host = socket.gethostname()
    try:
        while True:
            chunk = conn.recv()
            if chunk is None:
                return
            batch, last_send = [], time.monotonic()
            for index, deal, cells in chunk:
                current.value = index
                batch.append((index, solve_row(deal, cells, variant, budgets, host)))
                if time.monotonic() - last_send >= RESULT_BATCH_SECONDS:
                    conn.send(batch)
                    batch, last_send = [], time.monotonic()
            current.value = -1
            if batch:
                conn.send(batch)
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return


def solve_chunk(jobs: list[tuple[int, int]], variant: Variant, budgets: Budgets) -> list[Row]:
    """Rows for (deal, cells) jobs, in order: the task a cluster worker runs."""
    host = socket.gethostname()
    return [solve_row(deal, cells, variant, budgets, host) for deal, cells in jobs]


def solve_row(deal: int, cells: int, variant: Variant, budgets: Budgets, host: str) -> Row:
    """One dataset row for one job; engine bugs become `error` rows."""
    rules = variant.with_cells(cells)
    try:
        r = solve(
            deal,
            variant=rules,
            max_nodes=budgets.max_nodes,
            max_seconds=budgets.max_seconds,
            max_memory=budgets.max_memory,
        )
    except Exception as e:  # an engine bug must not stop a sweep of thousands of jobs
        log.error("deal %d, %s: %s", deal, rules.describe(), e)
        return error_row(deal, rules, budgets, host, f"{type(e).__name__}: {e}")
    solved = r.status == SOLVED
    if r.status != SOLVED and r.status != UNSOLVABLE:
        log.info("deal %d, %s: unknown (%s budget ran out after %.1f s)", deal, rules.describe(), r.limit, r.seconds)
    elif log.isEnabledFor(logging.DEBUG):  # four-cell jobs take a quarter of a millisecond
        log.debug("deal %d, %s: %s in %.3f s", deal, rules.describe(), r.status, r.seconds)
    return Row(
        deal,
        rules.name,
        cells,
        rules.columns,
        r.status,
        r.solvable,
        r.limit,
        None,
        r.moves,
        r.card_moves,
        r.nodes,
        r.states,
        r.max_depth,
        r.seconds,
        r.verify_seconds,
        r.peak_memory,
        " ".join(r.solution) if solved else None,
        solved,
        None,
        __version__,
        budgets.text(),
        host,
        datetime.now(timezone.utc),
    )


def error_row(deal: int, rules: Variant, budgets: Budgets, host: str, message: str) -> Row:
    return _row_without_search(deal, rules, budgets, host, status=ERROR, solvable=None, error=message)


def implied_row(deal: int, rules: Variant, budgets: Budgets, host: str, proved_at: int) -> Row:
    """The row of a job settled without a search: `proved_at` more cells were proved
    unsolvable, and fewer cells can never win a deal that more cannot (a solution with
    k cells is one with k + 1). No search ran, so its figures are null."""
    return _row_without_search(deal, rules, budgets, host, status=UNSOLVABLE, solvable=False, implied_by=proved_at)


def _row_without_search(
    deal: int,
    rules: Variant,
    budgets: Budgets,
    host: str,
    *,
    status: str,
    solvable: bool | None,
    implied_by: int | None = None,
    error: str | None = None,
) -> Row:
    figures = dict.fromkeys(
        ("limit", "moves", "card_moves", "nodes", "states", "max_depth", "seconds", "verify_seconds", "peak_memory",
         "solution")
    )  # fmt: skip
    return Row(
        deal=deal, variant=rules.name, cells=rules.cells, columns=rules.columns, status=status, solvable=solvable,
        implied_by=implied_by, verified=False, error=error, engine_version=__version__, budgets=budgets.text(),
        host=host, finished_at=datetime.now(timezone.utc), **figures,
    )  # fmt: skip


# --- the main process -----------------------------------------------------------------------


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    # Shared with the worker: the index of the job it is solving, -1 between chunks.
    current: Any  # a shared RawValue("q")
    chunk_size: int = 1
    # Job indices sent and not yet answered, in the order the worker runs them.
    outstanding: collections.deque = field(default_factory=collections.deque)


class SweepPlan:
    """A checked sweep with its dataset open: run() does the work, close() releases the dataset."""

    def __init__(self, dataset, rules, space, budgets, workers, retry_unknown, progress, scheduler=None):
        self.dataset = dataset
        self.rules = rules
        self.space: JobSpace = space
        self.budgets = budgets
        self.n_workers = workers
        self.progress = progress
        # Statuses whose rows are run again (and replaced).
        self.redo = {UNKNOWN, ERROR} if retry_unknown else set()
        done_by_cells: collections.Counter = collections.Counter(
            key[2] for key, status in dataset.status.items() if status not in self.redo and key in space
        )
        already_done = sum(done_by_cells.values())
        self.to_run = len(space) - already_done
        self.to_run_by_cells = {k: len(space.deals) - done_by_cells[k] for k in space.cells}
        self.summary = SweepSummary(dataset.path, rules.name, len(space), already_done)
        self.attempts: collections.Counter = collections.Counter()
        self.stop_requested = False
        self.buffer: list[Row] = []
        self.host = socket.gethostname()
        self.last_postfix = 0.0
        self.counts: collections.Counter = collections.Counter()
        self.scheduler = scheduler
        # Jobs are handed out in the space's order by a cursor, which skips the ones
        # the dataset already has. Indices handed out and given back (a dead worker's,
        # or jobs that waited for a verdict with more cells) go before it.
        self.cursor = 0
        self.handed_out = 0
        self.requeued: collections.deque[int] = collections.deque()
        # Jobs held back until the job they wait for (the same deal with the next
        # larger cell count of this sweep, still to finish) has its row.
        self.waiting: dict[Key, list[int]] = {}
        # The status of every job this run has recorded.
        self.finished: dict[Key, str] = {}
        self.cells_above = {k: [c for c in space.cells if c > k] for k in space.cells}

    def has_pending(self) -> bool:
        """Jobs not yet handed out remain (some may turn out to be done or implied)."""
        return bool(self.requeued) or self.cursor < len(self.space)

    def _is_open(self, key: Key) -> bool:
        """A job of this sweep that has no row yet from this run, nor a kept one from before."""
        if key in self.finished:
            return False
        status = self.dataset.status.get(key)
        return status is None or status in self.redo

    def close(self) -> None:
        self.dataset.close()

    def run(self) -> SweepSummary:
        s = self.summary
        start = time.perf_counter()
        log.info(
            "%d jobs (%s), %d already in %s, %d to run on %d worker(s); budgets %s",
            s.jobs,
            self.rules.name,
            s.already_done,
            self.dataset.path,
            self.to_run,
            self.n_workers,
            self.budgets.text(),
        )
        if self.to_run:
            from tqdm import tqdm

            # The bar advances by each job's expected cost, not by one per job: jobs go
            # out with the most cells first, and the easy 4-cell ones would otherwise
            # make the first half look like nearly all the work. Its postfix counts jobs.
            # disable=None: no bar when stderr is not a terminal (a log file, a pipe).
            total = sum(n * expected_cost(k) for k, n in self.to_run_by_cells.items())
            self.bar = tqdm(
                total=total,
                disable=None if self.progress else True,
                dynamic_ncols=True,
                smoothing=0.05,
                bar_format="{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]",
            )
            self.show_progress(force=True)
            restore = self._catch_stop_signals()
            try:
                if self.scheduler is not None:
                    from .cluster import run_on_cluster

                    run_on_cluster(self, self.scheduler)
                else:
                    self._run_pool()
            finally:
                restore()
                if self.stop_requested:
                    s.interrupted = True
                    log.warning("stopped; the jobs finished so far are kept")
                self.flush()
                self.show_progress(force=True)
                self.bar.close()
        s.wall_seconds = time.perf_counter() - start
        # Counted over the dataset's rows, not the plan's jobs, which may be billions.
        s.by_cells = {cells: collections.Counter() for cells in self.space.cells}
        for key, status in self.dataset.status.items():
            if key in self.space:
                s.by_cells[key[2]][status] += 1
        for counter in s.by_cells.values():
            counter["left"] = len(self.space.deals) - sum(counter.values())
        return s

    def _catch_stop_signals(self):
        """Ctrl-C and SIGTERM set a flag the loop checks, so a stop never cuts a write in half."""
        if threading.current_thread() is not threading.main_thread():
            return lambda: None

        def request_stop(signum, frame):
            self.stop_requested = True

        old = {sig: signal.signal(sig, request_stop) for sig in (signal.SIGINT, signal.SIGTERM)}

        def restore():
            for sig, handler in old.items():
                signal.signal(sig, handler)

        return restore

    def _spawn(self) -> _Worker:
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        current = ctx.RawValue("q", -1)
        process = ctx.Process(
            target=_worker_main,
            args=(child, current, os.getpid(), self.rules, self.budgets),
            name="fcanalyze-worker",
            daemon=True,
        )
        process.start()
        child.close()
        return _Worker(process, parent, current)

    def _run_pool(self) -> None:
        workers = [self._spawn() for _ in range(min(self.n_workers, self.to_run))]
        last_flush = time.monotonic()
        try:
            while (
                self.has_pending() or self.waiting or any(w.outstanding for w in workers)
            ) and not self.stop_requested:
                for w in workers:
                    # Chunks wait in the pipe, so no worker idles between chunks or while
                    # this process writes Parquet.
                    if len(w.outstanding) < 2 * w.chunk_size and self.has_pending():
                        self._send_chunk(w)
                # Idle workers and jobs still to look for: look again at once.
                idle = self.has_pending() and not all(w.outstanding for w in workers)
                waitables = [w.conn for w in workers] + [w.process.sentinel for w in workers]
                for ready in multiprocessing.connection.wait(waitables, timeout=0 if idle else 0.2):
                    for i, w in enumerate(workers):
                        if ready is w.conn or ready is w.process.sentinel:
                            if not self._receive(w):
                                workers[i] = self._replace_dead(w)
                            break
                if self.buffer and time.monotonic() - last_flush >= FLUSH_SECONDS:
                    self.flush()
                    last_flush = time.monotonic()
        finally:
            self._stop_workers(workers)

    def _stop_workers(self, workers: list[_Worker]) -> None:
        """Idle workers are asked to exit, so their last log records are delivered;
        busy ones (a stop, an error) are killed, since their jobs will be run again."""
        for w in workers:
            if w.outstanding or self.stop_requested:
                w.process.kill()
            else:
                try:
                    w.conn.send(None)
                except OSError:
                    w.process.kill()
        for w in workers:
            w.process.join(timeout=5)
            if w.process.exitcode is None:
                w.process.kill()
                w.process.join()

    def next_chunk_size(self) -> int:
        # Big chunks keep overhead low; small ones at the end keep every worker busy.
        return chunk_size(self.to_run - self.handed_out + len(self.requeued), self.n_workers, MAX_POOL_CHUNK)

    def next_chunk(self, size: int) -> list[tuple[int, int, int]]:
        """Up to `size` jobs (index, deal, cells) ready to run. A job whose deal is still
        being decided with more cells waits for that; one whose deal is proved
        unsolvable with more cells gets its row here, without a search."""
        chunk: list[tuple[int, int, int]] = []
        # Jobs already done are skipped a bounded number at a time, so that a resumed
        # sweep of millions of done jobs still checks for Ctrl-C every moment.
        skips = MAX_SKIPS_PER_CHUNK
        while len(chunk) < size and skips:
            if self.requeued:
                index = self.requeued.popleft()
                deal, name, cells = self.space.key(index)
            elif self.cursor < len(self.space):
                index = self.cursor
                self.cursor += 1
                deal, name, cells = key = self.space.key(index)
                if not self._is_open(key):
                    skips -= 1
                    continue
                self.handed_out += 1
            else:
                break
            proved = self._proved_unsolvable_with_more(deal, name, cells)
            if proved is not None:
                self.record(implied_row(deal, self.rules.with_cells(cells), self.budgets, self.host, proved))
                continue
            above = self.cells_above[cells]
            blocker = (deal, name, above[-1]) if above else None
            if blocker is not None and self._is_open(blocker):
                self.waiting.setdefault(blocker, []).append(index)
                continue
            chunk.append((index, deal, cells))
        return chunk

    def _proved_unsolvable_with_more(self, deal: int, name: str, cells: int) -> int | None:
        """The fewest cells above `cells` that deal is proved unsolvable with, if any."""
        status = self.dataset.status
        for k in range(cells + 1, MAX_CELLS + 1):
            if status.get((deal, name, k)) == UNSOLVABLE or self.finished.get((deal, name, k)) == UNSOLVABLE:
                return k
        return None

    def _send_chunk(self, w: _Worker) -> None:
        size = self.next_chunk_size()
        chunk = self.next_chunk(size)
        if not chunk:
            return
        w.chunk_size = size
        w.outstanding.extend(index for index, _, _ in chunk)
        w.conn.send(chunk)

    def _receive(self, w: _Worker) -> bool:
        """Takes every result the worker has sent; False if the worker has died."""
        try:
            while w.conn.poll():
                for index, row in w.conn.recv():
                    # Jobs finish in the order they were sent.
                    expected = w.outstanding.popleft()
                    if expected != index:  # pragma: no cover - a bug in this module
                        raise RuntimeError(f"worker answered job {index}, expected {expected}")
                    self.record(row)
        except (EOFError, OSError):
            return False
        self.show_progress()
        return w.process.is_alive() or w.process.exitcode is None

    def show_progress(self, force: bool = False) -> None:
        """The bar's postfix: jobs done of those to run, and each verdict's count. At
        most five times a second, and exactly at the start and the end (`force`)."""
        if self.progress and (force or time.monotonic() - self.last_postfix >= 0.2):
            counts = self.counts
            postfix = {"jobs": f"{self.summary.ran:,}/{self.to_run:,}"}
            postfix.update({s: f"{counts[s]:,}" for s in STATUSES if counts[s] or s != ERROR})
            self.bar.set_postfix(postfix, refresh=force)
            self.last_postfix = time.monotonic()

    def record(self, row: Row) -> None:
        key = row.key
        if key in self.finished:  # a job a cluster ran twice (a lost worker's) counts once
            return
        self.finished[key] = row.status
        self.buffer.append(row)
        self.counts[row.status] += 1
        self.summary.ran += 1
        if row.seconds is not None:
            self.summary.engine_seconds += row.seconds
            self.summary.verify_seconds += row.verify_seconds or 0.0
        self.bar.update(expected_cost(key[2]))
        # The jobs that waited for this one go next.
        self.requeued.extendleft(reversed(self.waiting.pop(key, [])))

    def _replace_dead(self, w: _Worker) -> _Worker:
        """A worker died (a crash, an OOM kill): retry its job once, then record an error."""
        w.process.join()
        code = w.process.exitcode
        cause = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        self.summary.worker_deaths += 1
        if w.outstanding:
            # The job it died on; those before it finished but their results were not
            # sent yet, and those after it never started: all go back to the front.
            culprit = w.current.value if w.current.value in w.outstanding else w.outstanding[0]
            w.outstanding.remove(culprit)
            self.requeued.extendleft(reversed(w.outstanding))
            self.attempts[culprit] += 1
            deal, _, cells = self.space.key(culprit)
            rules = self.rules.with_cells(cells)
            if self.attempts[culprit] >= MAX_ATTEMPTS:
                log.error("deal %d, %s: worker %s again; recording an error", deal, rules.describe(), cause)
                message = f"worker process {cause} while solving ({MAX_ATTEMPTS} attempts)"
                self.record(error_row(deal, rules, self.budgets, self.host, message))
            else:
                log.warning("deal %d, %s: worker %s; retrying the job", deal, rules.describe(), cause)
                self.requeued.appendleft(culprit)
        w.conn.close()
        return self._spawn()

    def flush(self) -> None:
        if not self.buffer:
            return
        begin = time.perf_counter()
        rows, self.buffer = self.buffer, []
        # A job retried (--retry-unknown) replaces its old row; the others are new.
        fresh = [r for r in rows if r.key not in self.dataset.where]
        again = [r for r in rows if r.key in self.dataset.where]
        self.dataset.append(fresh)
        self.dataset.replace(again)
        self.summary.write_seconds += time.perf_counter() - begin

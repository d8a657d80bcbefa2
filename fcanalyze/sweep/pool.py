"""The local backend: a sweep's jobs on a pool of forked solver processes, rows back through pipes."""

from __future__ import annotations

import collections
import contextlib
import ctypes
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from ..dataset.store import Row
from ..game.variant import Variant
from ..solving.budgets import Budgets
from .queue import JobQueue, chunk_size
from .rows import error_row, solve_row

log = logging.getLogger("fcanalyze.sweep")

# A job whose worker dies this many times gets an `error` row instead of another try.
MAX_ATTEMPTS = 2
# A worker sends its results at least this often (and at the end of each chunk).
RESULT_BATCH_SECONDS = 0.05
# The most jobs a local worker is sent at once.
MAX_POOL_CHUNK = 64
# The pool yields at least this often, rows or not, so that its caller can flush and
# notice a stop.
WAKE_SECONDS = 0.2


def _set_parent_death_signal() -> None:
    """Linux: die with the main process, even when it is killed with SIGKILL."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the pipe closing still ends the worker
        pass


# What the main process sends a busy worker to stop it: its search ends as Ctrl-C would
# end it, so that a layered proof is kept in --spill-dir to go on from (a kill would
# leave only an orphan directory), and the worker exits.
STOP_SIGNAL = signal.SIGUSR1
# How long a worker asked to stop may take to keep its proof (its files made durable
# and its checkpoint written) before it is killed.
KEEP_SECONDS = 120


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _worker_main(conn, current, parent_pid: int, variant: Variant, budgets: Budgets) -> None:
    """Solves the chunks of jobs it is sent, in order. Results go back in batches (a
    message per job would cost the main process more than a fast job costs here);
    `current` always holds the index of the job being solved, so that if this
    process dies the main process knows which job it died on."""
    _set_parent_death_signal()
    if os.getppid() != parent_pid:  # the main process died before prctl took effect
        os._exit(1)
    # Ctrl-C reaches the whole process group; the main process decides what stops, and
    # asks a busy worker to stop with STOP_SIGNAL (its search ends as if interrupted).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(STOP_SIGNAL, _interrupt)
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


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: multiprocessing.connection.Connection
    # Shared with the worker: the index of the job it is solving, -1 between chunks.
    current: Any  # a shared RawValue("q")
    chunk_size: int = 1
    # Job indices sent and not yet answered, in the order the worker runs them.
    outstanding: collections.deque = field(default_factory=collections.deque)
    # Those of them the queue knows to be long (`JobQueue.is_long`): while there are
    # any, the worker is sent nothing more, which would only wait behind them.
    long: set = field(default_factory=set)


class Pool:
    """Runs a queue's jobs on `workers` forked processes. A worker that dies (a crash,
    an OOM kill) is replaced; the job it died on is tried once more, then gets an
    `error` row."""

    def __init__(self, rules: Variant, budgets: Budgets, workers: int, host: str):
        self.rules = rules
        self.budgets = budgets
        self.n_workers = workers
        self.host = host
        self.deaths = 0
        self._attempts: collections.Counter[int] = collections.Counter()

    def rows(self, queue: JobQueue) -> Generator[list[Row], None, None]:
        """Yields rows as they come, and an empty batch at least every WAKE_SECONDS.
        The caller records each batch before asking for the next (recording releases
        waiting jobs). Closing the iterator early kills the workers that are busy."""
        workers = [self._spawn() for _ in range(min(self.n_workers, queue.to_run))]
        try:
            while queue.has_work() or any(w.outstanding for w in workers):
                for w in workers:
                    # Chunks wait in the pipe, so no worker idles between chunks or while
                    # the caller writes Parquet.
                    if len(w.outstanding) < 2 * w.chunk_size and not w.long and queue.has_pending():
                        self._send_chunk(w, queue)
                # Idle workers and jobs still to look for: look again at once.
                idle = queue.has_pending() and not all(w.outstanding for w in workers)
                waitables = [w.conn for w in workers] + [w.process.sentinel for w in workers]
                batch: list[Row] = []
                for ready in multiprocessing.connection.wait(waitables, timeout=0 if idle else WAKE_SECONDS):
                    for i, w in enumerate(workers):
                        if ready is w.conn or ready is w.process.sentinel:
                            if not self._receive(w, batch):
                                workers[i] = self._replace_dead(w, queue, batch)
                            break
                yield batch
        finally:
            self._stop_workers(workers)

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

    def _send_chunk(self, w: _Worker, queue: JobQueue) -> None:
        # Big chunks keep overhead low; small ones at the end keep every worker busy.
        size = chunk_size(queue.left(), self.n_workers, MAX_POOL_CHUNK)
        chunk = queue.next_chunk(size)
        if not chunk:
            return
        w.chunk_size = size
        try:
            w.conn.send(chunk)
        except OSError:
            # The worker died since the last look (its pipe is closed). The chunk never
            # reached it, so it goes back unblamed; the worker's sentinel is ready, and
            # the next wait replaces it and settles the jobs it did have.
            queue.give_back([index for index, _, _ in chunk])
            return
        w.outstanding.extend(index for index, _, _ in chunk)
        w.long.update(index for index, _, _ in chunk if queue.is_long(index))

    def _receive(self, w: _Worker, batch: list[Row]) -> bool:
        """Takes every result the worker has sent; False if the worker has died."""
        try:
            while w.conn.poll():
                for index, row in w.conn.recv():
                    # Jobs finish in the order they were sent.
                    expected = w.outstanding.popleft()
                    if expected != index:  # pragma: no cover - a bug in this module
                        raise RuntimeError(f"worker answered job {index}, expected {expected}")
                    w.long.discard(index)
                    batch.append(row)
        except (EOFError, OSError):
            return False
        return w.process.is_alive() or w.process.exitcode is None

    def _replace_dead(self, w: _Worker, queue: JobQueue, batch: list[Row]) -> _Worker:
        w.process.join()
        code = w.process.exitcode
        cause = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        self.deaths += 1
        if w.outstanding:
            # The job it died on; those before it finished but their results were not
            # sent yet, and those after it never started: all go back to the front.
            culprit = w.current.value if w.current.value in w.outstanding else w.outstanding[0]
            w.outstanding.remove(culprit)
            queue.give_back(list(w.outstanding))
            self._attempts[culprit] += 1
            deal, _, cells = queue.space.key(culprit)
            rules = self.rules.with_cells(cells)
            if self._attempts[culprit] >= MAX_ATTEMPTS:
                log.error("deal %d, %s: worker %s again; recording an error", deal, rules.describe(), cause)
                message = f"worker process {cause} while solving ({MAX_ATTEMPTS} attempts)"
                batch.append(error_row(deal, rules, self.budgets, self.host, message))
            else:
                log.warning("deal %d, %s: worker %s; retrying the job", deal, rules.describe(), cause)
                queue.give_back([culprit])
        w.conn.close()
        return self._spawn()

    def _stop_workers(self, workers: list[_Worker]) -> None:
        """Idle workers are asked to exit, so their last log records are delivered.
        Busy ones (a stop, an error) are killed, since their jobs will be run again;
        but with --spill-dir they are asked to stop first (STOP_SIGNAL), so that a
        layered proof they are in is kept to go on from, as Ctrl-C keeps `solve`'s."""
        keep = self.budgets.spill_dir is not None
        for w in workers:
            if w.outstanding:
                if keep and w.process.pid is not None:
                    with contextlib.suppress(OSError):
                        os.kill(w.process.pid, STOP_SIGNAL)
                else:
                    w.process.kill()
            else:
                try:
                    w.conn.send(None)
                except OSError:
                    w.process.kill()
        give_up = time.monotonic() + (KEEP_SECONDS if keep else 5)
        for w in workers:
            w.process.join(timeout=max(0.0, give_up - time.monotonic()))
            if w.process.exitcode is None:
                w.process.kill()
                w.process.join()

"""The Dask backend: a sweep's jobs as tasks on a cluster's workers, rows back to this process."""

from __future__ import annotations

import logging
import re
import socket
import time
from collections.abc import Generator
from typing import Any

from ..budgets import Budgets
from ..errors import FcanalyzeError
from ..inputs import quote
from ..store import Row
from ..variant import Variant
from .queue import Job, JobQueue, chunk_size
from .rows import error_row, solve_chunk

log = logging.getLogger("fcanalyze.sweep")

# Jobs per task: big enough that Dask's costs per task stay small beside fast 4-cell
# jobs (256 of them take about 70 ms; 64 made the cluster 1.44x slower than the local
# pool, 256 1.29x, on deals 1..16,000), small enough that a lost worker loses little.
MAX_CHUNK = 256
CONNECT_SECONDS = 10
# The cluster backend yields at least this often, rows or not.
WAKE_SECONDS = 0.05

_ADDRESS = re.compile(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::([0-9]{1,5}))?", re.ASCII)
DEFAULT_PORT = 8786


def check_scheduler_address(address: str) -> tuple[str, int]:
    """(host, port) of a scheduler address like `tcp://host:8786`, `host:8786` or
    `host`, or a one-line FcanalyzeError. Checked before anything starts, because Dask
    itself answers a malformed address only after a 20 s timeout."""
    m = _ADDRESS.fullmatch(address.strip())
    port = int(m.group(3)) if m and m.group(3) else DEFAULT_PORT
    if m is None or not 0 < port < 65536:
        raise FcanalyzeError(
            f"--scheduler {quote(address)} is not a scheduler address; write it like tcp://host:8786 or host:8786"
        )
    return m.group(2).strip("[]"), port


def _reachable(address: str) -> None:
    """Fails at once, not after Dask's connect timeout, when nothing listens there."""
    host, port = check_scheduler_address(address)
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise FcanalyzeError(f"cannot reach the Dask scheduler at {address}: {reason}") from None


def _client(address: str):
    try:
        from dask.distributed import Client
    except ImportError:
        raise FcanalyzeError("--scheduler needs Dask: pip install 'fcanalyze[dask]'") from None
    _reachable(address)
    try:
        return Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise FcanalyzeError(f"cannot reach the Dask scheduler at {address}: {e}") from None


class Cluster:
    """Runs a queue's jobs on the Dask cluster at `address`. Every row comes back to
    this process to be written, so workers need no shared disk. Chunks are submitted
    as the queue makes them ready, a few per worker thread ahead. A task whose worker
    dies is rerun by Dask on another worker; a task Dask gives up on (KilledWorker:
    it took workers down with it several times) or that raised gets error rows."""

    def __init__(self, rules: Variant, budgets: Budgets, address: str, host: str):
        self.rules = rules
        self.budgets = budgets
        self.address = address
        self.host = host
        self.deaths = 0  # Dask replaces lost workers itself

    def rows(self, queue: JobQueue) -> Generator[list[Row], None, None]:
        """Yields rows as tasks finish, and an empty batch at least every WAKE_SECONDS.
        Closing the iterator early cancels the tasks in flight."""
        from dask.distributed import as_completed

        client = _client(self.address)
        in_flight: dict[Any, list[Job]] = {}
        try:
            threads = sum(client.nthreads().values())
            if threads == 0:
                raise FcanalyzeError(
                    f"the Dask cluster at {self.address} has no workers; start some with 'dask worker {self.address}'"
                )
            log.info("Dask cluster at %s: %d worker thread(s)", self.address, threads)
            size = chunk_size(queue.to_run, threads, MAX_CHUNK)
            with client.as_current():
                completed = as_completed([], with_results=True, raise_errors=False)
            number = 0
            while True:
                while len(in_flight) < 4 * threads:
                    chunk = queue.next_chunk(size)
                    if not chunk:
                        break
                    jobs = [(deal, cells) for _, deal, cells in chunk]
                    key = f"fcanalyze-chunk-{number}-{time.time_ns()}"
                    future = client.submit(solve_chunk, jobs, self.rules, self.budgets, pure=False, key=key)
                    number += 1
                    in_flight[future] = chunk
                    completed.add(future)
                if not in_flight and not queue.has_pending():
                    return
                batch: list[Row] = []
                if completed.has_ready():
                    for future, result in completed.next_batch(block=False):
                        self._take(in_flight.pop(future), result, batch)
                else:
                    time.sleep(WAKE_SECONDS)  # polling keeps Ctrl-C and the flushes prompt
                yield batch
        finally:
            if in_flight:
                client.cancel(list(in_flight))
            client.close()

    def _take(self, chunk: list[Job], result: Any, batch: list[Row]) -> None:
        if isinstance(result, BaseException):
            message = f"on the Dask cluster: {type(result).__name__}: {result}"
            log.error("jobs from deal %d: %s", chunk[0][1], message)
            for _, deal, cells in chunk:
                batch.append(error_row(deal, self.rules.with_cells(cells), self.budgets, self.host, message))
            return
        batch.extend(result)

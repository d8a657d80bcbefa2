"""Running a sweep's jobs on a Dask cluster: chunks go out as tasks, rows come back here to be written."""

from __future__ import annotations

import logging
import re
import socket
import time

from .errors import FcanalyzeError
from .inputs import quote
from .sweep import FLUSH_SECONDS, SweepPlan, chunk_size, error_row, solve_chunk

log = logging.getLogger(__name__)

# Jobs per task: big enough that Dask's costs per task stay small beside fast 4-cell
# jobs (256 of them take about 70 ms; 64 made the cluster 1.44x slower than the local
# pool, 256 1.29x, on deals 1..16,000), small enough that a lost worker loses little.
MAX_CHUNK = 256
CONNECT_SECONDS = 10


def _take(plan: SweepPlan, chunk: list[tuple[int, int, int]], result) -> None:
    """Records a finished task's rows, or error rows for its jobs if Dask gave up on it
    (KilledWorker: it took workers down with it several times) or it raised."""
    if isinstance(result, BaseException):
        message = f"on the Dask cluster: {type(result).__name__}: {result}"
        log.error("jobs from deal %d: %s", chunk[0][1], message)
        for _, deal, cells in chunk:
            plan.record(error_row(deal, plan.rules.with_cells(cells), plan.budgets, plan.host, message))
        return
    for row in result:
        plan.record(row)


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


def run_on_cluster(plan: SweepPlan, address: str) -> None:
    """Runs plan's jobs on the cluster at `address`. Every row is written by this
    process, so workers need no shared disk. Chunks are submitted as the plan makes
    them ready (a job waits for its deal's result with more cells), a few per worker
    thread ahead. A task whose worker dies is rerun by Dask on another worker; its
    rows are still recorded once."""
    from dask.distributed import as_completed

    client = _client(address)
    try:
        threads = sum(client.nthreads().values())
        if threads == 0:
            raise FcanalyzeError(
                f"the Dask cluster at {address} has no workers; start some with 'dask worker {address}'"
            )
        log.info("Dask cluster at %s: %d worker thread(s)", address, threads)
        size = chunk_size(plan.to_run, threads, MAX_CHUNK)
        in_flight: dict = {}
        with client.as_current():
            completed = as_completed([], with_results=True, raise_errors=False)
        number = 0

        def submit_ready() -> None:
            nonlocal number
            while len(in_flight) < 4 * threads:
                chunk = plan.next_chunk(size)
                if not chunk:
                    return
                jobs = [(deal, cells) for _, deal, cells in chunk]
                future = client.submit(
                    solve_chunk,
                    jobs,
                    plan.rules,
                    plan.budgets,
                    pure=False,
                    key=f"fcanalyze-chunk-{number}-{time.time_ns()}",
                )
                number += 1
                in_flight[future] = chunk
                completed.add(future)

        submit_ready()
        last_flush = time.monotonic()
        while in_flight or plan.has_pending():
            if plan.stop_requested:
                client.cancel(list(in_flight))
                break
            if not completed.has_ready():
                time.sleep(0.05)  # polling keeps Ctrl-C and the flushes prompt
            else:
                for future, result in completed.next_batch(block=False):
                    _take(plan, in_flight.pop(future), result)
                plan.show_progress()
            submit_ready()
            if time.monotonic() - last_flush >= FLUSH_SECONDS:
                plan.flush()
                last_flush = time.monotonic()
    finally:
        client.close()

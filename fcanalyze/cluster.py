"""Dask clusters: a scheduler's address checked, a client connected (or a cluster of this machine's cores started), and its teardown kept quiet."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import signal
import socket
from collections.abc import Callable, Iterator
from typing import Any

from .errors import FcanalyzeError
from .inputs import quote

# The address that starts a cluster on this machine rather than naming one.
LOCAL = "local"

CONNECT_SECONDS = 10

_ADDRESS = re.compile(r"(?:(tcp|tls)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::([0-9]{1,5}))?", re.ASCII)
DEFAULT_PORT = 8786


def check_scheduler_address(address: str) -> tuple[str, int]:
    """(host, port) of a scheduler address like `tcp://host:8786`, `host:8786` or
    `host`, or a one-line FcanalyzeError. Checked before anything starts, because Dask
    itself answers a malformed address only after a 20 s timeout. (`local` is not an
    address: the caller starts that cluster itself.)"""
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


def connect(address: str, workers: int | None = None) -> tuple[Any, Callable[[], None]]:
    """A Dask client of the scheduler at `address`, or of a cluster of `workers`
    single-threaded processes started here for `local`; and what closes them."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise FcanalyzeError("--scheduler needs Dask: pip install 'fcanalyze[dask]'") from None
    if address == LOCAL:
        # Its nannies live in this process; their notices (a worker restarted when
        # the sweep kills it at its end) are not the user's business.
        logging.getLogger("distributed").setLevel(logging.ERROR)

        cluster = LocalCluster(
            n_workers=workers or cores(),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster, set_as_default=False)
        pids = list(client.run(os.getpid).values())

        def close() -> None:
            # Killed, not asked to finish: a worker in the middle of a chunk would
            # hold Ctrl-C up for seconds, and a chunk's file is whole or absent anyway.
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            client.close()
            cluster.close()

        return client, close
    _reachable(address)
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise FcanalyzeError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    return client, client.close


# Whose records a sweep's end silences: the client's pending gathers of cancelled
# tasks fail as their workers go, and Dask and the event loop under it log each one
# with a traceback, though nothing is lost (a chunk's file is whole or absent).
_TEARDOWN_LOGGERS = ("distributed", "tornado", "asyncio")


@contextlib.contextmanager
def quiet_teardown() -> Iterator[None]:
    """Silences the Dask client's own logs while it cancels and closes; restored after,
    for a caller that goes on using Dask. Each logger of theirs by name: Dask's
    configuration gives some (distributed.client, tornado.application) levels of
    their own, which a parent's level does not override."""
    names = [
        name
        for name in [*_TEARDOWN_LOGGERS, *logging.root.manager.loggerDict]
        if name.split(".")[0] in _TEARDOWN_LOGGERS
    ]
    loggers = [logging.getLogger(name) for name in dict.fromkeys(names)]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

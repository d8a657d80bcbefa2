"""Logging for sweeps: one log fed by every worker process, through multiprocessing-logging."""

from __future__ import annotations

import logging
import multiprocessing
import sys

import multiprocessing_logging

# A record that only wakes a forwarding handler's receiving thread; handlers skip it.
_WAKE_UP = logging.makeLogRecord({"name": "fcanalyze.sweep.logs.wake-up", "msg": ""})


class _TqdmHandler(logging.StreamHandler):
    """Log lines on stderr that do not tear the progress bar."""

    def emit(self, record):
        if record is _WAKE_UP or record.name == _WAKE_UP.name:
            return
        from tqdm import tqdm

        try:
            tqdm.write(self.format(record), file=sys.stderr)
        except Exception:  # pragma: no cover - logging must never raise
            self.handleError(record)


class _FileHandler(logging.FileHandler):
    def emit(self, record):
        if record.name != _WAKE_UP.name:
            super().emit(record)


class _ForwardingHandler(multiprocessing_logging.MultiProcessingHandler):
    """multiprocessing-logging's handler, closing at once: its receiving thread
    otherwise notices the close only at its next 0.2 s poll, which every command
    would wait for on exit."""

    def close(self):
        if not self.woken:
            self.woken = True
            self.queue.put_nowait(_WAKE_UP)
        super().close()

    # Set here, not in __init__, so that the parent's constructor stays as it is.
    woken = False


def setup(verbose: int, log_file: str | None) -> None:
    """stderr at WARNING (-v INFO, -vv DEBUG), and everything in `log_file` if given;
    records from worker processes forked after this reach the same handlers."""
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    console = _TqdmHandler()
    console.setLevel([logging.WARNING, logging.INFO, logging.DEBUG][min(verbose, 2)])
    console.setFormatter(logging.Formatter("%(levelname)s: %(message)s"))
    handlers: list[logging.Handler] = [console]
    if log_file is not None:
        file_handler = _FileHandler(log_file, encoding="utf-8")
        file_handler.setLevel(logging.DEBUG)
        file_handler.setFormatter(
            logging.Formatter("%(asctime)s %(processName)s[%(process)d] %(levelname)s %(name)s: %(message)s")
        )
        handlers.append(file_handler)
    root.setLevel(min(h.level for h in handlers))
    forward = multiprocessing.get_start_method() == "fork"  # what multiprocessing-logging supports
    for i, h in enumerate(handlers):
        root.addHandler(_ForwardingHandler(f"fcanalyze-log-{i}", sub_handler=h) if forward else h)


def shutdown() -> None:
    """Delivers the records still in flight and stops the forwarding threads."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if isinstance(h, _ForwardingHandler):
            h.close()
            root.removeHandler(h)

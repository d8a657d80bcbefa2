"""The `fcanalyze` command's entry point: Ctrl-C and SIGTERM handled from the first instant, then the CLI."""

from __future__ import annotations

import importlib.util
import os
import signal
import sys

# Exit statuses of a run stopped by Ctrl-C (SIGINT) and by SIGTERM, as a shell reports
# a process killed by them; the work a sweep finished is kept either way.
INTERRUPTED, TERMINATED = 130, 143


def _terminate(signum, frame):
    sys.stderr.write("Terminated.\n")
    raise SystemExit(TERMINATED)


def main() -> None:
    # Until the sweep installs its own handlers, SIGTERM ends the run the way Ctrl-C
    # does: through Python's unwinding (files closed, locks released), not mid-write.
    signal.signal(signal.SIGTERM, _terminate)
    try:
        if importlib.util.find_spec("fcanalyze._engine") is None:
            from . import ENGINE_MISSING

            sys.stderr.write(f"Error: {ENGINE_MISSING}\n")
            sys.exit(2)
        from .cli.main import main as run
    except KeyboardInterrupt:
        sys.stderr.write("Aborted.\n")
        sys.stderr.flush()
        # Nothing is open yet to unwind. And a Ctrl-C that lands while an extension
        # module runs its own start-up code through CPython's PyRun_String leaves
        # CPython's "unhandled KeyboardInterrupt" mark set even though it is caught
        # here: sys.exit would then end the process by SIGINT, not with this status.
        os._exit(INTERRUPTED)
    run()

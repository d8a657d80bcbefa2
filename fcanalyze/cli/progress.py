"""Progress on the terminal: the sweep's bar (tqdm, from its progress callback), and a long solve's ticking seconds."""

from __future__ import annotations

import sys
import threading
import time
from typing import TYPE_CHECKING

from ..status import ERROR, STATUSES

if TYPE_CHECKING:
    from tqdm import tqdm

    from ..sweep.progress import Tally


class ProgressBar:
    """A sweep.Progress that draws a bar on stderr. The bar advances by each job's
    expected time, from the shipped table where it has the job (the ETA starts from the
    sweep's estimate, and stays honest when cheap jobs go first); its postfix counts
    jobs and verdicts. No bar when stderr is not a terminal (a log file, a pipe)."""

    def __init__(self) -> None:
        self._bar: tqdm | None = None

    def __call__(self, tally: Tally, final: bool) -> None:
        bar = self._bar
        if bar is None:
            from tqdm import tqdm

            bar = self._bar = tqdm(
                total=tally.total,
                disable=None,
                dynamic_ncols=True,
                smoothing=0.05,
                bar_format="{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]",
            )
        if tally.total != bar.total:
            bar.total = tally.total
        bar.update(tally.done - bar.n)
        postfix = {"jobs": f"{tally.ran:,}/{tally.to_run:,}"}
        postfix.update({s: f"{tally.counts.get(s, 0):,}" for s in STATUSES if tally.counts.get(s) or s != ERROR})
        bar.set_postfix(postfix, refresh=final or bar.n == 0)
        if final:
            bar.close()
            self._bar = None  # the next round of an escalating sweep draws a bar of its own


class Ticker:
    """A line on stderr that counts the seconds of a search, after its first second:
    `solve` has no time budget unless given one, and a search of hours should not look
    like a hang. It ticks from a thread of its own, which runs while the engine, which
    lets go of the interpreter as it searches, works. Nothing when stderr is not a
    terminal (a log file, a pipe)."""

    def __init__(self, what: str, stream=None, every: float = 1.0) -> None:
        self.what = what
        self.every = every
        self.stream = stream if stream is not None else sys.stderr
        self.begin = time.monotonic()
        self._done = threading.Event()
        self._drawn = 0
        self._thread: threading.Thread | None = None
        if _is_terminal(self.stream):
            self._thread = threading.Thread(target=self._tick, name="fcanalyze-ticker", daemon=True)
            self._thread.start()

    def elapsed(self) -> float:
        return time.monotonic() - self.begin

    def _tick(self) -> None:
        while not self._done.wait(self.every):
            line = f"{self.what}, {self.elapsed():,.0f} s (Ctrl-C stops it; --max-seconds gives it a budget)"
            self._write("\r" + line.ljust(self._drawn))
            self._drawn = len(line)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: nothing to tick on
            self._done.set()

    def stop(self) -> None:
        """Stops ticking and clears the line (it can be called more than once)."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
            if self._drawn:
                self._write("\r" + " " * self._drawn + "\r")
                self._drawn = 0


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False

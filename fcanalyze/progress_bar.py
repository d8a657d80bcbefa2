"""The sweep's progress bar on the terminal: tqdm, drawn from the sweep's progress callback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .status import ERROR, STATUSES
from .sweep.progress import Tally

if TYPE_CHECKING:
    from tqdm import tqdm


class ProgressBar:
    """A sweep.Progress that draws a bar on stderr. The bar advances by each job's
    expected cost (the ETA stays honest when cheap jobs go first); its postfix counts
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
        bar.update(tally.done - bar.n)
        postfix = {"jobs": f"{tally.ran:,}/{tally.to_run:,}"}
        postfix.update({s: f"{tally.counts.get(s, 0):,}" for s in STATUSES if tally.counts.get(s) or s != ERROR})
        bar.set_postfix(postfix, refresh=final or bar.n == 0)
        if final:
            bar.close()

"""Escalation: the jobs a round left without a verdict run again with twice the time, and the command that retries what stays undecided."""

from __future__ import annotations

import shlex
from pathlib import Path

from ..errors import FcanalyzeError
from ..solving.budgets import retry_seconds
from ..status import ERROR, UNKNOWN
from .summary import SweepSummary


def check_escalation(max_seconds: float | None, escalate: float | None) -> None:
    """`escalate` (the most time a job may get in the last round) must be above the
    first round's `max_seconds`, which must be a limit."""
    if escalate is not None and (not max_seconds or escalate <= max_seconds):
        first = f"{max_seconds:g}" if max_seconds else "no limit"
        raise FcanalyzeError(
            f"--escalate {escalate:g} must be above --max-seconds ({first}): "
            "it is the most time a job may get in the last round"
        )


def undecided(summary: SweepSummary) -> int:
    """The jobs of a round without a verdict: unknown (a budget ran out) or error."""
    return sum(c[UNKNOWN] + c[ERROR] for c in summary.by_cells.values())


def next_round_seconds(
    summary: SweepSummary, seconds: float | None, escalate: float | None, retried: bool
) -> float | None:
    """The time budget of the next round of an escalating sweep, or None if the round
    that gave `summary` (with `seconds` each, `retried` if it ran only undecided jobs)
    is the last: it was stopped, it reached `escalate`, or nothing is left to run."""
    if summary.interrupted or escalate is None or seconds is None or seconds >= escalate:
        return None
    # A retry round that found nothing to run is the last; so is one that leaves no job
    # undecided (a cluster sweep counts only the jobs it ran, so it needs the former).
    if (retried and not summary.ran) or (not undecided(summary) and not summary.only_run_now):
        return None
    return min(2 * seconds, escalate)


def retry_command(
    deals: str,
    cells: str,
    out: str,
    seconds: float | None,
    *,
    variant: str = "freecell",
    workers: int | None = None,
    scheduler: str | None = None,
    max_memory: str | None = None,
    spill_dir: str | None = None,
    max_disk: str | None = None,
    layered: bool = False,
    threads: int | None = None,
    shortest: bool = False,
    shortest_nodes: int | None = None,
) -> str:
    """The shell command that runs a sweep's undecided jobs again with more time than
    the `seconds` they had, and otherwise the same options."""
    # A deal file is named absolutely, so that the command works from anywhere (a list
    # read from standard input, `@-`, stays as it was).
    listed = deals.strip()[1:] if deals.strip().startswith("@") else None
    ranges = "@" + str(Path(listed).resolve()) if listed not in (None, "-") else deals
    words = ["--deals", ranges, "--cells", cells, "--out", str(out)]
    if variant != "freecell":
        words += ["--variant", variant]
    if workers is not None:
        words += ["--workers", str(workers)]
    if scheduler is not None and scheduler != "local":
        words += ["--scheduler", scheduler]
    for flag, value in [("--max-memory", max_memory), ("--spill-dir", spill_dir), ("--max-disk", max_disk)]:
        if value is not None:
            words += [flag, str(value)]
    if layered:
        words += ["--layered"]
    if threads is not None:
        words += ["--threads", str(threads)]
    if shortest:
        words += ["--shortest"]
    if shortest_nodes is not None:
        words += ["--shortest-nodes", str(shortest_nodes)]
    words += ["--retry-unknown", "--max-seconds", f"{retry_seconds(seconds):g}"]
    return "fcanalyze sweep " + " ".join(shlex.quote(w) for w in words)

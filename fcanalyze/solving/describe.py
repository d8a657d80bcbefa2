"""A solve result in words: the verdict, the figures, and which budget to give more of when one ran out."""

from __future__ import annotations

import math

from ..outputs import size_text
from ..status import SOLVED
from .budgets import DEFAULT_MAX_MEMORY
from .solve import SolveResult


def result_lines(
    result: SolveResult,
    what: str,
    *,
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    max_memory: int | None = None,
    spill_dir: str | None = None,
) -> list[str]:
    """The lines `fcanalyze solve` prints for `result` of the job `what` (like
    "deal 1 (freecell, 4 cells)"), given the budgets and spill directory it ran with."""
    verdict = result.status.upper() + (f" (limit: {result.limit})" if result.limit else "")
    lines = [f"{what}: {verdict}"]
    if result.status == SOLVED:
        lines.append(
            f"moves: {result.moves}, {result.non_foundation_moves} of them not to a foundation "
            f"({result.card_moves} card moves with sequence moves played card by card), "
            f"score {result.score}, verified by the referee"
        )
        if result.shortest_proved is not None:
            lines.append(shortest_says(result))
        lines.append("solution: " + " ".join(result.solution))
    lines.append(
        f"nodes: {result.nodes:,}  states: {result.states:,}  max depth: {result.max_depth:,}  "
        f"time: {result.seconds:.3f} s  memory: {result.peak_memory / 2**20:.1f} MiB"
        + (f"  disk: {result.peak_disk / 2**20:.1f} MiB" if result.peak_disk else "")
    )
    if result.note:
        lines.append(f"layered proof: {result.note}")
    if result.resumed_seconds:
        earlier = result.resumed_seconds
        took = f"took {earlier:,.0f} s" if math.isfinite(earlier) else "took a time its checkpoint does not say"
        lines.append(
            f"went on from a layered proof kept in {spill_dir} (its earlier runs {took}; nodes and states count them)"
        )
    if result.limit is not None:
        lines.append(more_budget(result.limit, result.states, max_nodes, max_seconds, max_memory, spill_dir))
    if result.kept:
        lines.append(
            f"the layered proof is kept in {spill_dir} ({size_text(result.peak_disk)} at most): the same "
            "command with the same --spill-dir goes on from where it stopped"
        )
    return lines


def shortest_says(result: SolveResult) -> str:
    """What the search for the shortest line says of the line shown."""
    moves = f"{result.non_foundation_moves} moves not to a foundation"
    if result.shortest_proved:
        return f"shortest: proved, no line wins in fewer than {moves}"
    if result.shortest_limit is not None:
        raise_it = {
            "nodes": "--shortest-nodes (the proof's positions; default 10,000)",
            "seconds": "--max-seconds",
            "memory": "--max-memory",
        }.get(result.shortest_limit)
        floor = "" if result.shortest_bound is None else f", and none wins in fewer than {result.shortest_bound}"
        return (
            f"shortest: the best line found before the {result.shortest_limit} budget ran out ({moves}{floor}); "
            "not proved shortest" + (f": raise {raise_it} to prove more" if raise_it else "")
        )
    floor = "" if result.shortest_bound is None else f", and none wins in fewer than {result.shortest_bound}"
    return f"shortest: the shortest line found ({moves}{floor}); not proved shortest (no proof was run)"


def more_budget(
    limit: str,
    states: int,
    max_nodes: int | None,
    max_seconds: float | None,
    max_memory: int | None,
    spill_dir: str | None = None,
) -> str:
    """Which budget ran out, and the option that gives the search more of it."""
    if limit == "memory":
        budget = max_memory or DEFAULT_MAX_MEMORY
        twice = f"{round(2 * budget / 2**30)}G" if budget >= 2**29 else f"{round(2 * budget / 2**20)}M"
        if spill_dir is not None:
            return (
                f"the layered proof met a win, or one of its classes outgrew the memory budget "
                f"({budget / 2**20:,.0f} MiB); to find the win or go on, give it more: --max-memory {twice}"
            )
        # A packed store holds some 84 million positions a GiB (docs/correctness.md).
        return (
            f"the memory budget ({budget / 2**20:,.0f} MiB) ran out after storing {states:,} positions (a GiB "
            f"holds some 80 million); a search with more may decide it: --max-memory {twice}, or prove it on "
            "disk with --spill-dir DIR"
        )
    if limit == "disk":
        return (
            "the layered proof filled its --max-disk, left --spill-dir's disk with less free space than it "
            "must keep (half of what was free at the start; 1 GiB with --max-disk), or could not write there; "
            "give it more room"
        )
    # Each search starts from the deal again: the hint says "a search with more", not "go on".
    if limit == "seconds" and max_seconds:
        return f"the time budget ran out; a search with more time may decide it: --max-seconds {2 * max_seconds:g}"
    if limit == "nodes" and max_nodes is not None:
        return f"the budget of positions ran out; a search with more may decide it: --max-nodes {2 * max_nodes}"
    return f"the {limit} budget ran out"

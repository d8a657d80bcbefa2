"""Benchmark: a lost deal's exhaustive proof in memory against the layered proof on disk, one run.

Both sides run the engine's own example program (`engine/examples/profile_deals.rs`,
built here with cargo) on the same deal, each in a process of its own, alternating:
  - in memory: the engine's whole search (`search::solve`), with the default budget;
  - layered: the layered proof alone (`search::prove_layered`, what `--spill-dir`
    turns to when a proof outgrows memory), its files under --spill-dir, within
    --layered-memory.

It prints each side's verdict, positions stored, wall time and peak resident memory as
the OS sees it (ru_maxrss of the child), medians over --repeat runs, and the ratios.
Freecell Solver has no proof that spills to disk in Debian's package (its author's
depth_dbm_fc_solver is the analogue), so the figure here is the layered proof's
against the engine's own. Example:

  python scripts/bench_layered.py --deal 26063 --cells 1 --layered-memory 400M --repeat 3
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def board_file(deal: int, cells: int, where: Path) -> Path:
    """The deal, one column a line, as the example reads it."""
    from fcanalyze import Variant, microsoft_deal
    from fcanalyze.game.cards import card_text

    board = microsoft_deal(deal, Variant.parse("freecell", cells=cells))
    path = where / f"deal-{deal}.txt"
    path.write_text("\n".join(" ".join(card_text(c) for c in col) for col in board.columns) + "\n")
    return path


def run(program: Path, board: Path, env: dict[str, str]) -> tuple[str, int, float, int]:
    """One child: its verdict, positions stored, wall seconds and peak RSS in bytes."""
    begin = time.perf_counter()
    child = subprocess.Popen([str(program), str(board)], stdout=subprocess.PIPE, env={**os.environ, **env})
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - begin
    out = child.stdout.read().decode() if child.stdout else ""
    found = re.search(r"^1 (\S+) \d+ nodes (\d+) states", out, re.M)
    if os.waitstatus_to_exitcode(status) != 0 or not found:
        sys.exit(f"{program} failed: {out}")
    return found.group(1), int(found.group(2)), wall, usage.ru_maxrss * 1024


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--deal", type=int, default=26063)
    p.add_argument("--cells", type=int, default=1)
    p.add_argument("--layered-memory", default="400M", help="the layered side's memory budget, like 400M")
    p.add_argument("--spill-dir", default=tempfile.gettempdir())
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    from fcanalyze.solving.budgets import parse_memory

    subprocess.run(["cargo", "build", "--release", "--quiet", "--example", "profile_deals"], cwd=ENGINE, check=True)
    program = ENGINE / "target" / "release" / "examples" / "profile_deals"
    common = {"CELLS": str(a.cells), "PER_DEAL": "1"}
    sides = {
        "in memory": common,
        "layered": {**common, "LAYERED": a.spill_dir, "MAX_MEMORY": str(parse_memory(a.layered_memory))},
    }
    results: dict[str, list[tuple[str, int, float, int]]] = {name: [] for name in sides}
    with tempfile.TemporaryDirectory() as tmp:
        board = board_file(a.deal, a.cells, Path(tmp))
        for i in range(a.repeat):
            for name, env in sides.items():
                r = run(program, board, env)
                results[name].append(r)
                print(f"run {i + 1} {name}: {r[0]}, {r[1]:,} positions, {r[2]:.1f} s, {r[3] / 2**20:,.0f} MiB RSS")
    (mem_s, mem_rss), (lay_s, lay_rss) = (
        (statistics.median(r[2] for r in rs), statistics.median(r[3] for r in rs)) for rs in results.values()
    )
    print(f"deal {a.deal} with {a.cells} cells, medians of {a.repeat}:")
    print(f"  in memory: {mem_s:8.1f} s  {mem_rss / 2**20:8,.0f} MiB RSS")
    print(f"  layered:   {lay_s:8.1f} s  {lay_rss / 2**20:8,.0f} MiB RSS")
    print(f"  layered / in memory: time {lay_s / mem_s:.2f}x, memory {lay_rss / mem_rss:.3f}x")


if __name__ == "__main__":
    main()

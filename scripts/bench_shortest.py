"""Benchmarks `sweep --shortest`: how short its lines are and how long it takes, beside the plain sweep and Freecell Solver's optimized solutions.

    python scripts/bench_shortest.py --deals 1-32000 --cells 4 --workers 2
    python scripts/bench_shortest.py --deals 500001-501000 --cells 4 --peer
    python scripts/bench_shortest.py --deals 1-2000 --cells 1 --published lengths.csv

For the deals and cell count given it runs, each on all workers:
- `fcanalyze sweep --shortest` into a fresh dataset: its wall time, and over the won
  jobs the mean, median and p90 of the moves not to a foundation (docs/rules.md), and
  how many lines are proved shortest;
- the plain sweep (no --shortest), whose lines are what the search happened to find;
- with --peer, Freecell Solver (`fc-solve -opt`, its option that shortens a solution by
  a breadth-first search over its positions; `apt-get install freecell-solver-bin`)
  on the same deals, counted the same way.
Each figure is printed beside the others as a ratio. With --published FILE (a CSV of
`deal,length` lines, the length in moves not to a foundation, from a table of short
solutions) the lines are also held against that table: the share of deals whose line
is at most as long. A published table is only ever a yardstick here; the engine finds
its own lines.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fcanalyze.dataset.store import read_dataset
from fcanalyze.game.deals import parse_deal_spans
from fcanalyze.sweep import run_sweep


def sweep_lengths(deals: str, cells: int, workers: int, shortest: bool) -> tuple[float, dict[int, int], int]:
    """A sweep's wall time, each won deal's moves not to a foundation, and how many lines
    are proved shortest."""
    with tempfile.TemporaryDirectory() as tmp:
        begin = time.perf_counter()
        run_sweep(deals, cells, Path(tmp) / "out", workers=workers, shortest=shortest, max_seconds=None)
        wall = time.perf_counter() - begin
        rows = read_dataset(Path(tmp) / "out", ["deal", "status", "non_foundation_moves", "shortest_proved"])
    lengths, proved = {}, 0
    for row in rows.to_pylist():
        if row["status"] == "solved":
            lengths[row["deal"]] = row["non_foundation_moves"]
            proved += bool(row["shortest_proved"])
    return wall, lengths, proved


def peer_length(job: tuple[int, int]) -> int | None:
    """fc-solve -opt's line for one deal, counted in moves not to a foundation; None if it
    does not win it."""
    deal, cells = job
    board = subprocess.run(["make-microsoft-freecell-board", "-t", str(deal)], capture_output=True, text=True).stdout
    done = subprocess.run(
        ["fc-solve", "--freecells-num", str(cells), "-opt", "-snx", "-m", "-"],
        input=board,
        capture_output=True,
        text=True,
    )
    if "This game is solveable" not in done.stdout:
        return None
    moves = [
        t for line in done.stdout.splitlines() if not line.startswith(("-=", "This", "Total")) for t in line.split()
    ]
    return sum(1 for m in moves if not m.endswith("h"))


def peer_lengths(deals: list[int], cells: int, workers: int) -> tuple[float, dict[int, int]]:
    begin = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        found = dict(zip(deals, pool.map(peer_length, [(d, cells) for d in deals])))
    return time.perf_counter() - begin, {d: n for d, n in found.items() if n is not None}


def describe(name: str, wall: float, lengths: dict[int, int], jobs: int) -> str:
    values = sorted(lengths.values())
    p90 = values[int(0.9 * (len(values) - 1))] if values else float("nan")
    return (
        f"{name:<22} {wall:>9.1f} s {wall / jobs * 1000:>8.1f} ms/deal   won {len(values):>6,}   "
        f"mean {statistics.mean(values):6.2f}   median {statistics.median(values):5.1f}   p90 {p90}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-2000")
    parser.add_argument("--cells", type=int, default=4)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--peer", action="store_true", help="also run fc-solve -opt on the same deals")
    parser.add_argument("--published", type=Path, help="a CSV of deal,length to hold the lines against")
    args = parser.parse_args()
    deals = [d for lo, hi in parse_deal_spans(args.deals) for d in range(lo, hi + 1)]
    print(f"deals {args.deals} ({len(deals):,}), {args.cells} cells, {args.workers} workers", flush=True)
    wall, lengths, proved = sweep_lengths(args.deals, args.cells, args.workers, shortest=True)
    plain_wall, plain, _ = sweep_lengths(args.deals, args.cells, args.workers, shortest=False)
    print(describe("sweep --shortest", wall, lengths, len(deals)))
    print(f"{'':<22} proved shortest: {proved:,} of {len(lengths):,} ({proved / max(len(lengths), 1):.1%})")
    print(describe("sweep", plain_wall, plain, len(deals)))
    both = [d for d in lengths if d in plain]
    print(
        f"--shortest against the plain sweep: {statistics.mean(lengths[d] for d in both) / statistics.mean(plain[d] for d in both):.3f}x "
        f"the moves, {wall / plain_wall:.2f}x the time"
    )
    if args.peer:
        peer_wall, peer = peer_lengths(deals, args.cells, args.workers)
        print(describe("fc-solve -opt", peer_wall, peer, len(deals)))
        shared = [d for d in lengths if d in peer]
        if shared:
            ours, theirs = statistics.mean(lengths[d] for d in shared), statistics.mean(peer[d] for d in shared)
            at_most = sum(lengths[d] <= peer[d] for d in shared) / len(shared)
            print(
                f"--shortest against fc-solve -opt over the {len(shared):,} deals both win: {ours / theirs:.3f}x the "
                f"moves ({ours:.2f} against {theirs:.2f}), at most as long on {at_most:.1%}, {wall / peer_wall:.2f}x the time"
            )
    if args.published:
        table = {}
        for line in args.published.read_text().splitlines():
            deal, _, length = line.partition(",")
            if deal.strip().isdigit() and length.strip().isdigit():
                table[int(deal)] = int(length)
        shared = [d for d in lengths if d in table]
        if shared:
            ours, theirs = statistics.mean(lengths[d] for d in shared), statistics.mean(table[d] for d in shared)
            at_most = sum(lengths[d] <= table[d] for d in shared) / len(shared)
            print(
                f"against {args.published.name} over {len(shared):,} deals: mean {ours:.2f} against {theirs:.2f} "
                f"({ours / theirs:.3f}x), at most as long on {at_most:.1%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

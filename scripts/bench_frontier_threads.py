"""Benchmark: one bucket's breadth-first search on several threads against one, and against what the machine's cores give two separate processes.

A layered proof searches a bucket bigger than memory breadth first, and with --threads N
on N threads that own shards of its fingerprints (engine/src/search/frontier_threads/).
Such buckets take hours (deal 6825625742), so this times a stand-in: the engine's
benchmark test proves deal 26063 with 1 cell lost with every bucket searched breadth
first, as if each had outgrown memory (37 million positions), on 1 thread and on N.
Each run prints the positions it stored, which must be the same on any thread count.

The machine's own ceiling is measured in the same run: the one-thread proof twice at
once, in two processes. Two processes share the memory bus and the last-level cache, so
on a 2-core machine two threads can at best expand 2 x (one alone / one beside another)
times as fast as one. The script prints the medians and both ratios.

  python scripts/bench_frontier_threads.py              # 3 runs each, 2 threads
  python scripts/bench_frontier_threads.py --runs 1 --threads 2

It needs cargo (it builds the engine's tests in release mode); the peer, Freecell Solver,
has no search of one position set on several threads to set beside it (its threads
share one lock, which its own tracker calls very poor scaling).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"
TEST = "differential::layered::the_frontier_search_on_threads_timed"
LINE = re.compile(r"frontier-bench threads (\d+) positions (\d+) seconds ([\d.]+)")


def test_binary() -> str:
    """The engine's test binary, built in release mode."""
    out = subprocess.run(
        ["cargo", "test", "--release", "--lib", "--no-run", "--message-format=json"],
        cwd=ENGINE,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        if '"executable":"' in line and '"test":true' in line:
            return re.search(r'"executable":"([^"]+)"', line).group(1)  # type: ignore[union-attr]
    sys.exit("cargo built no test binary")


def start(binary: str, threads: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [binary, TEST, "--exact", "--ignored", "--nocapture", "--test-threads", "1"],
        env={"FCANALYZE_BENCH_THREADS": str(threads), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def result(child: subprocess.Popen[str]) -> tuple[int, float]:
    """The positions and seconds a run printed."""
    out, _ = child.communicate()
    found = LINE.search(out)
    if child.returncode != 0 or found is None:
        sys.exit(f"the benchmark test failed:\n{out[-2000:]}")
    return int(found.group(2)), float(found.group(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each kind; medians are printed (default 3)")
    parser.add_argument("--threads", type=int, default=2, help="the thread count set beside one (default 2)")
    args = parser.parse_args()
    if args.runs < 1 or args.threads < 2:
        sys.exit("--runs must be at least 1 and --threads at least 2")
    binary = test_binary()
    alone: list[float] = []
    threaded: list[float] = []
    beside: list[float] = []
    counts: set[int] = set()
    for run in range(args.runs):
        for threads, into in ((1, alone), (args.threads, threaded)):
            positions, seconds = result(start(binary, threads))
            counts.add(positions)
            into.append(seconds)
            print(f"run {run + 1}: {threads} thread(s): {positions:,} positions in {seconds:.1f} s", flush=True)
        began = time.perf_counter()
        pair = [start(binary, 1), start(binary, 1)]
        times = [result(child)[1] for child in pair]
        beside.append(max(times))
        print(
            f"run {run + 1}: two 1-thread processes at once: {times[0]:.1f} s and {times[1]:.1f} s "
            f"({time.perf_counter() - began:.1f} s wall)",
            flush=True,
        )
    if len(counts) != 1:
        sys.exit(f"the thread counts stored different numbers of positions: {sorted(counts)}")
    one, many, two = (statistics.median(x) for x in (alone, threaded, beside))
    print()
    print(f"{'':>34} {'median s':>9} {'speed vs 1':>11}")
    print(f"{'1 thread':>34} {one:>9.1f} {1:>10.2f}x")
    print(f"{f'{args.threads} threads, one search':>34} {many:>9.1f} {one / many:>10.2f}x")
    print(f"{'ceiling: 2 processes, each':>34} {two:>9.1f} {2 * one / two:>10.2f}x")
    print(
        f"\n{counts.pop():,} positions on every thread count; {args.threads} threads reach "
        f"{(one / many) / (2 * one / two):.0%} of what two separate processes get from the cores."
    )


if __name__ == "__main__":
    main()

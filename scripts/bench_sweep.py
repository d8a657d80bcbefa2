"""Benchmark: the end-to-end `fcanalyze sweep` CLI, the mission's job or a race against Freecell Solver, one run.

fcanalyze's side is the real command a user runs, from a cold start into a fresh
dataset directory: the pool, the engine, the referee's replay of every solution,
the proof for every unsolvable deal, and the Parquet writes, with the default budgets
(90 s a job). It prints the wall time, the engine's and the referee's time per cell
count, the peak RSS of the largest process (a worker) as the OS counts it, the jobs
left unknown, the slowest jobs, the mean moves not to a foundation of the lines, the
sweep's own estimate beside the time it took, and whether every verdict is the shipped
table's.

With one cell count, Freecell Solver's range solver (Debian freecell-solver-bin) runs
on equal slices of the range, as many processes as our workers, with each preset given
(`-l lg` and `-l cm` by default, its fastest), and the ratios are printed. With more
than one (the mission's job, 4, 2 and 1), there is no peer: its presets prove no loss.
With --repeat N every side runs N times, alternating, and medians are shown. With
--baseline-engine, the same sweep also runs on another build of the engine (the
package as installed, its engine module swapped for the given one), taking turns with
the others, so that old and new are measured in the same minutes of a noisy machine.

  python scripts/bench_sweep.py --deals 1-32000 --cells 4,2,1 --workers 2    # the mission's job
  python scripts/bench_sweep.py --deals 1-32000 --cells 4 --workers 2 --repeat 3
  python scripts/bench_sweep.py --deals 1-4000 --cells 3 --workers 2 --repeat 3

  git worktree add /tmp/old HEAD~1 && (cd /tmp/old && maturin build --release -o /tmp/old-wheel)
  unzip -o -d /tmp/old-engine /tmp/old-wheel/*.whl 'fcanalyze/_engine*'
  python scripts/bench_sweep.py --repeat 3 --baseline-engine /tmp/old-engine/fcanalyze/_engine.abi3.so
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).parent))
from bench_engine import run_fcsolve

FIGURES = re.compile(
    r"wall (?P<wall>[\d.]+) s; worker time: engine (?P<engine>[\d.]+) s, referee (?P<referee>[\d.]+) s; "
    r"Parquet writes (?P<parquet>[\d.]+) s"
)


def package_with_engine(engine: Path) -> Path:
    """A copy of the installed fcanalyze package whose engine module is `engine`, in a
    fresh directory from which `python -m fcanalyze` imports it (its working directory
    comes first on the module path)."""
    import fcanalyze

    root = Path(tempfile.mkdtemp(prefix="bench-engine-"))
    package = root / "fcanalyze"
    shutil.copytree(Path(fcanalyze.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    for module in package.glob("_engine*.so"):
        module.unlink()
    shutil.copy(engine, package / engine.name)
    return root


def run_sweep(lo: int, hi: int, cells: str, workers: int, max_seconds: str | None, cwd: Path | None = None) -> dict:
    out = Path(tempfile.mkdtemp(prefix="bench-sweep-")) / "ds"
    command = [sys.executable, "-m", "fcanalyze", "sweep", "--deals", f"{lo}-{hi}", "--cells", cells]
    command += ["--workers", str(workers), "--out", str(out), "--no-progress"]
    if max_seconds is not None:
        command += ["--max-seconds", max_seconds]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output, tempfile.TemporaryFile("w+") as errors:
        process = subprocess.Popen(command, stdout=output, stderr=errors, text=True, cwd=cwd)
        # wait4's usage covers the sweep and the workers it waited for: ru_maxrss is the
        # largest resident set among them, as the OS counted it.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"the sweep failed: {' '.join(command)}")
        output.seek(0)
        stdout = output.read()
        errors.seek(0)
        planned = re.search(r"about (.+?) on \d+ workers?", errors.read())
    rows = pq.read_table(out).to_pandas()
    shutil.rmtree(out.parent)
    figures = {k: float(v) for k, v in FIGURES.search(stdout).groupdict().items()}
    return {
        "wall": wall,
        "inner": figures,
        "peak_rss": usage.ru_maxrss * 1024,
        "rows": rows,
        "estimate": planned.group(1) if planned else "-",
    }


def against_table(rows) -> tuple[int, int]:
    """(decided jobs whose verdict differs from the shipped table's, decided jobs compared)."""
    table = pq.read_table(
        Path(__file__).resolve().parent.parent / "data" / "microsoft-32000.parquet", columns=["deal", "cells", "status"]
    ).to_pandas()
    decided = rows[rows["status"].isin(["solved", "unsolvable"])][["deal", "cells", "status"]]
    both = decided.merge(table, on=["deal", "cells"], suffixes=("", "_table"))
    return int((both["status"] != both["status_table"]).sum()), len(both)


def describe(runs: list[dict], workers: int) -> None:
    """What the last run's rows say: per cell count, the unknown jobs, the slowest."""
    rows = runs[-1]["rows"]
    print(f"{'cells':>5} {'jobs':>7} {'solved':>7} {'lost':>7} {'implied':>7} {'unknown':>7} "
          f"{'engine s':>9} {'referee s':>9} {'no home mean':>12}")  # fmt: skip
    for k in sorted(rows["cells"].unique(), reverse=True):
        r = rows[rows["cells"] == k]
        won = r[r["status"] == "solved"]
        print(
            f"{k:>5} {len(r):>7,} {len(won):>7,} {(r['status'] == 'unsolvable').sum():>7,} "
            f"{r['implied_by'].notna().sum():>7,} {r['status'].isin(['unknown', 'error']).sum():>7,} "
            f"{r['seconds'].sum():>9.1f} {r['verify_seconds'].sum():>9.1f} "
            f"{won['non_foundation_moves'].mean():>12.2f}"
        )
    unknown = rows[rows["status"].isin(["unknown", "error"])]
    listed = ", ".join(
        f"{d} with {k} ({lim})" for d, k, lim in zip(unknown["deal"], unknown["cells"], unknown["limit"])
    )
    print(f"unknown jobs: {len(unknown)}{': ' + listed if listed else ''}")
    slow = rows.sort_values("seconds", ascending=False).head(10)
    print("slowest jobs: " + ", ".join(f"{d}@{k} {s:.1f} s ({st})" for d, k, s, st in
                                       zip(slow["deal"], slow["cells"], slow["seconds"], slow["status"])))  # fmt: skip
    differ, compared = against_table(rows)
    print(f"verdicts against the shipped table: {differ} of {compared:,} decided jobs differ")
    walls = [r["wall"] for r in runs]
    print(f"the sweep's own estimate before it ran: {runs[-1]['estimate']} (it took {statistics.median(walls):.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-32000", help="range LO-HI (default 1-32000)")
    parser.add_argument("--cells", default="4", help="a cell count or a list (4,2,1: the mission's job)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--fc-solve", dest="presets", action="append", default=None,
        help="an fc-solve preset and options, once per preset (default: -l lg and -l cm)",
    )  # fmt: skip
    parser.add_argument("--max-seconds", default=None, help="the sweep's time budget a job (default the CLI's, 90)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--baseline-engine",
        type=Path,
        metavar="SO_FILE",
        help="also run the sweep with this engine module (an _engine*.so built from another commit), in turns",
    )
    args = parser.parse_args()
    lo, hi = map(int, args.deals.split("-"))
    counts = [int(k) for k in args.cells.split(",")]
    presets = (args.presets or ["-l lg", "-l cm"]) if len(counts) == 1 else []
    if args.baseline_engine is not None and not args.baseline_engine.is_file():
        parser.error(f"--baseline-engine: no such file: {args.baseline_engine}")
    baseline_root = package_with_engine(args.baseline_engine) if args.baseline_engine else None

    ours: list[dict] = []
    baseline: list[dict] = []
    theirs: dict[str, list[dict]] = {p: [] for p in presets}
    for _ in range(args.repeat):
        ours.append(run_sweep(lo, hi, args.cells, args.workers, args.max_seconds))
        if baseline_root is not None:
            baseline.append(run_sweep(lo, hi, args.cells, args.workers, args.max_seconds, cwd=baseline_root))
        for preset in presets:
            theirs[preset].append(run_fcsolve(lo, hi, counts[0], args.workers, preset))
    if baseline_root is not None:
        shutil.rmtree(baseline_root)
    o_wall = statistics.median(r["wall"] for r in ours)
    print(
        f"deals {lo}..{hi}, cells {args.cells}, {args.workers} workers/processes, "
        f"{args.repeat} run(s) each, median wall time"
    )
    print(f"{'fcanalyze sweep (CLI)':26}{o_wall:9.2f} s  (solutions verified, unsolvable proved, rows in Parquet)")
    for preset, runs in theirs.items():
        t_wall = statistics.median(r["wall"] for r in runs)
        t_counts = ", ".join(f"{k} {v}" for k, v in runs[-1]["counts"].items())
        print(f"{'fc-solve ' + preset:26}{t_wall:9.2f} s  {t_counts}")
    for preset, runs in theirs.items():
        t_wall = statistics.median(r["wall"] for r in runs)
        print(f"ratio fcanalyze / fc-solve {preset}: {o_wall / t_wall:.2f}x wall time")
    if baseline:
        b_wall = statistics.median(r["wall"] for r in baseline)
        print(f"baseline engine {args.baseline_engine}: {b_wall:.2f} s; fcanalyze / baseline: {o_wall / b_wall:.2f}x")
    print(
        f"peak RSS of one process (a worker), as the OS counts it: {max(r['peak_rss'] for r in ours) / 2**20:.0f} MiB"
    )
    describe(ours, args.workers)

    # Where the sweep's time goes (medians over runs). Worker time is workers x wall.
    med = {k: statistics.median(r["inner"][k] for r in ours) for k in ("wall", "engine", "referee", "parquet")}
    capacity = args.workers * med["wall"]
    pool = capacity - med["engine"] - med["referee"]
    print(f"inside the sweep ({med['wall']:.2f} s of the command's {o_wall:.2f} s; the rest is start-up):")
    print(f"  engine search   {med['engine']:7.2f} s  {100 * med['engine'] / capacity:5.1f}% of worker time")
    print(f"  referee replay  {med['referee']:7.2f} s  {100 * med['referee'] / capacity:5.1f}%")
    print(
        f"  pool and rest   {pool:7.2f} s  {100 * pool / capacity:5.1f}%  (deal generation, Python "
        "around the engine, messages, idle at the end)"
    )
    print(f"  Parquet writes  {med['parquet']:7.2f} s in the main process")


if __name__ == "__main__":
    main()

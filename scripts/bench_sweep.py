"""Benchmark: the end-to-end `fcanalyze sweep` CLI against Freecell Solver over the same range, one run.

fcanalyze's side is the real command a user runs, from a cold start into a fresh
dataset directory: the pool, the engine, the referee's replay of every solution,
the proof for every unsolvable deal, and the Parquet writes. fc-solve's side is
its range solver (Debian freecell-solver-bin) on equal slices of the range, as many
processes as our workers, with its preset. With --repeat N both run N times,
alternating, and medians are shown. With --baseline-engine, the same sweep also runs
on another build of the engine (the package as installed, its engine module swapped
for the given one), taking turns with the other two, so that old and new are
measured in the same minutes of a noisy machine. Examples:

  python scripts/bench_sweep.py --deals 1-32000 --cells 4 --workers 2 --repeat 3

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


def run_sweep(lo: int, hi: int, cells: int, workers: int, cwd: Path | None = None) -> dict:
    out = Path(tempfile.mkdtemp(prefix="bench-sweep-")) / "ds"
    command = [
        sys.executable,
        "-m",
        "fcanalyze",
        "sweep",
        "--deals",
        f"{lo}-{hi}",
        "--cells",
        str(cells),
        "--workers",
        str(workers),
        "--out",
        str(out),
        "--no-progress",
        "--max-seconds",
        "0",
    ]
    start = time.perf_counter()
    with tempfile.TemporaryFile("w+") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.DEVNULL, text=True, cwd=cwd)
        # wait4's usage covers the sweep and the workers it waited for: ru_maxrss is the
        # largest resident set among them, as the OS counted it.
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"the sweep failed: {' '.join(command)}")
        output.seek(0)
        stdout = output.read()
    peak_rss = usage.ru_maxrss * 1024
    # What the engine says its structures held at most, for the job that held the most.
    peak_memory = pq.read_table(out, columns=["peak_memory"])["peak_memory"].to_pandas().max()
    shutil.rmtree(out.parent)
    figures = {k: float(v) for k, v in FIGURES.search(stdout).groupdict().items()}
    table = [line.split() for line in stdout.splitlines() if line.split()[:1] == [str(cells)]]
    _, _, solved, unsolvable, unknown, error, _ = table[0]
    return {
        "wall": wall,
        "inner": figures,
        "peak_rss": peak_rss,
        "peak_memory": int(peak_memory),
        "counts": f"solved {solved}, unsolvable {unsolvable}, unknown {unknown}, error {error}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-32000", help="range LO-HI (default 1-32000)")
    parser.add_argument("--cells", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fc-solve", dest="preset", default="-l cm", help="fc-solve preset and options")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--baseline-engine",
        type=Path,
        metavar="SO_FILE",
        help="also run the sweep with this engine module (an _engine*.so built from another commit), in turns",
    )
    args = parser.parse_args()
    lo, hi = map(int, args.deals.split("-"))
    if args.baseline_engine is not None and not args.baseline_engine.is_file():
        parser.error(f"--baseline-engine: no such file: {args.baseline_engine}")
    baseline_root = package_with_engine(args.baseline_engine) if args.baseline_engine else None

    ours, baseline, theirs = [], [], []
    for _ in range(args.repeat):
        ours.append(run_sweep(lo, hi, args.cells, args.workers))
        if baseline_root is not None:
            baseline.append(run_sweep(lo, hi, args.cells, args.workers, cwd=baseline_root))
        theirs.append(run_fcsolve(lo, hi, args.cells, args.workers, args.preset))
    if baseline_root is not None:
        shutil.rmtree(baseline_root)
    o_wall = statistics.median(r["wall"] for r in ours)
    t_wall = statistics.median(r["wall"] for r in theirs)
    print(
        f"deals {lo}..{hi}, {args.cells} free cells, {args.workers} workers/processes, "
        f"{args.repeat} run(s) each, median wall time"
    )
    print(
        f"{'fcanalyze sweep (CLI)':26}{o_wall:9.2f} s  {ours[-1]['counts']}  (solutions verified, "
        "unsolvable proved, rows in Parquet)"
    )
    t_counts = ", ".join(f"{k} {v}" for k, v in theirs[-1]["counts"].items())
    print(f"{'fc-solve ' + args.preset:26}{t_wall:9.2f} s  {t_counts}")
    if baseline:
        b_wall = statistics.median(r["wall"] for r in baseline)
        b_engine = statistics.median(r["inner"]["engine"] for r in baseline)
        print(
            f"{'baseline engine':26}{b_wall:9.2f} s  {baseline[-1]['counts']}  (the sweep with "
            f"{args.baseline_engine}; its engine {b_engine:.2f} s of worker time)"
        )
    print(f"ratio fcanalyze / fc-solve: {o_wall / t_wall:.2f}x wall time")
    if baseline:
        print(f"ratio baseline / fc-solve: {b_wall / t_wall:.2f}x; fcanalyze / baseline: {o_wall / b_wall:.2f}x")
    print(
        f"peak RSS of one process (as the OS counts it): fcanalyze {max(r['peak_rss'] for r in ours) / 2**20:.0f} MiB; "
        f"largest peak_memory of a job (the engine's own count): {max(r['peak_memory'] for r in ours) / 2**20:.1f} MiB"
    )

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

"""Benchmark: the nine 4-cell deals of the extended range that no solver decided in memory, proved lost as layered proofs.

Deals 219837216, 1252215044, 2255988055, 2901685480, 2902413565, 4260084873,
6687921694, 7489392343 and 6825625742 are the 4-cell Microsoft deals of 1..8,589,934,591
that Freecell Solver's fast presets and every other solver gave up on. Freecell
Solver's author settled all nine in 2016 with a disk-backed solver
(depth_dbm_fc_solver) on a rented machine with 256 GB of memory, one of them needing a
second run with more disk; all nine are impossible. Here each runs as

  fcanalyze solve DEAL --cells 4 --layered --spill-dir DIR --max-memory 8G --threads N --json

in a process of its own, and the script prints, per deal, the verdict, the positions
stored, the wall time, the peak resident memory as the OS counts it (the child's
ru_maxrss) and the peak disk, beside the 256 GB the earlier proofs needed. With
--compare-threads the proof runs on one thread too and the ratio of the times is
printed: the parallel proof must store the same positions. With --record, each
verdict is added to fcanalyze/data/microsoft-extended-4cells.csv, which `lookup`
answers from. The peer (fc-solve) has no proof of these: its presets give up.

  python scripts/bench_intractable.py                        # all nine, every core
  python scripts/bench_intractable.py --deals 219837216 --compare-threads
  python scripts/bench_intractable.py --record               # and ship the verdicts
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fcanalyze.cluster import cores
from fcanalyze.tables.published import IMPOSSIBLE_EXTENDED_4_CELLS

# The memory of the machine the earlier proofs (2016) ran on.
EARLIER_MEMORY = "256 GB"
RECORD = Path(__file__).resolve().parent.parent / "fcanalyze" / "data" / "microsoft-extended-4cells.csv"


def prove(deal: int, spill: Path, memory: str, threads: int, max_seconds: float | None) -> dict:
    """One layered proof in a child process: its JSON result, wall time and peak RSS."""
    command = [sys.executable, "-m", "fcanalyze", "solve", str(deal), "--cells", "4", "--layered"]
    command += ["--spill-dir", str(spill), "--max-memory", memory, "--threads", str(threads), "--json"]
    if max_seconds is not None:
        command += ["--max-seconds", f"{max_seconds:g}"]
    begin = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE)
    out = child.stdout.read() if child.stdout else b""
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - begin
    code = os.waitstatus_to_exitcode(status)
    if code not in (1, 3):  # unsolvable, unknown
        sys.exit(f"deal {deal}: fcanalyze solve exited with {code}: {out.decode(errors='replace')[-500:]}")
    result = json.loads(out)
    result.update(wall=wall, rss=usage.ru_maxrss * 1024, threads=threads)
    return result


def gib(n: float) -> str:
    return f"{n / (1 << 30):.2f}"


def record(rows: list[dict]) -> None:
    """Adds the proved verdicts to the shipped file, one row per deal, sorted."""
    kept: dict[int, dict] = {}
    if RECORD.is_file():
        with RECORD.open() as f:
            kept = {int(r["deal"]): r for r in csv.DictReader(line for line in f if not line.startswith("#"))}
    for r in rows:
        if r["status"] == "unsolvable":
            kept[r["deal"]] = {
                "deal": r["deal"],
                "cells": 4,
                "status": "unsolvable",
                "states": r["states"],
                "nodes": r["nodes"],
                "how": f"layered proof, --max-memory {r['memory']}, {r['threads']} threads",
            }
    with RECORD.open("w", newline="") as f:
        f.write(
            "# Deals of the extended range proved lost by scripts/bench_intractable.py --record\n"
            "# (classic FreeCell rules); fcanalyze lookup answers from it.\n"
        )
        writer = csv.DictWriter(f, ["deal", "cells", "status", "states", "nodes", "how"], lineterminator="\n")
        writer.writeheader()
        for deal in sorted(kept):
            writer.writerow(kept[deal])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--deals",
        default=",".join(map(str, IMPOSSIBLE_EXTENDED_4_CELLS)),
        help="comma-separated deals (default the nine)",
    )
    p.add_argument("--max-memory", default="8G", help="each proof's memory budget (default 8G)")
    p.add_argument("--threads", type=int, default=cores(), help="default every core")
    p.add_argument("--compare-threads", action="store_true", help="also run each on 1 thread, print the speed-up")
    p.add_argument("--max-seconds", type=float, default=None, help="each proof's time budget (default none)")
    p.add_argument("--spill-dir", type=Path, default=None, help="where the proofs' files go (default a temp dir)")
    p.add_argument("--record", action="store_true", help=f"add the verdicts to {RECORD.name}")
    args = p.parse_args()
    deals = [int(d) for d in args.deals.split(",")]
    base = args.spill_dir or Path(tempfile.gettempdir())
    spill = Path(tempfile.mkdtemp(prefix="fcanalyze-bench-", dir=base))
    runs = [args.threads, 1] if args.compare_threads and args.threads != 1 else [args.threads]
    header = f"{'deal':>11} {'threads':>7} {'verdict':>10} {'positions':>14} {'nodes':>14} {'wall s':>8} {'peak RSS GiB':>12}"
    print(f"{header} {'disk GiB':>8}   earlier proof", flush=True)
    rows, total = [], 0.0
    try:
        for deal in deals:
            times = {}
            for threads in runs:
                r = prove(deal, spill, args.max_memory, threads, args.max_seconds)
                r.update(memory=args.max_memory)
                times[threads] = r
                total += r["wall"]
                verdict = r["status"] if r["status"] != "unknown" else f"unknown ({r['limit']})"
                print(
                    f"{deal:>11} {threads:>7} {verdict:>10} {r['states']:>14,} {r['nodes']:>14,} {r['wall']:>8.0f} "
                    f"{gib(r['rss']):>12} {gib(r['peak_disk']):>8}   {EARLIER_MEMORY} machine",
                    flush=True,
                )
                rows.append(r)
            if len(times) == 2:
                many, one = times[args.threads], times[1]
                same = "same positions" if many["states"] == one["states"] else "POSITIONS DIFFER"
                print(f"{deal:>11} speed-up on {args.threads} threads: {one['wall'] / many['wall']:.2f}x ({same})")
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    print(f"total wall time {total / 60:.1f} min")
    if args.record:
        record(rows)


if __name__ == "__main__":
    main()

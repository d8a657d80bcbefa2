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

It is resumable: the proofs' files go to --spill-dir (default ./fcanalyze-intractable-spill,
kept between runs), so a run stopped by Ctrl-C or --max-seconds keeps its proof there
and the next run goes on from it; with --record, each verdict is written as soon as it
is proved, and a deal already recorded is skipped (--again runs it anyway). Each proof
runs in segments of --segment seconds (default 30 minutes), each going on from the last,
so that a crash or a kill loses one segment at most (a segment that stored nothing more,
its time spent in one layer of a breadth-first search, makes the next twice as long); a
proof's wall time is that of all its runs.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from fcanalyze.cluster import cores
from fcanalyze.tables.published import IMPOSSIBLE_EXTENDED_4_CELLS

# The memory of the machine the earlier proofs (2016) ran on.
EARLIER_MEMORY = "256 GB"
RECORD = Path(__file__).resolve().parent.parent / "fcanalyze" / "data" / "microsoft-extended-4cells.csv"


def prove(
    deal: int, spill: Path, memory: str, threads: int, max_seconds: float | None, max_disk: str | None = None
) -> dict:
    """One layered proof in a child process: its JSON result, wall time and peak RSS."""
    from fcanalyze import __version__

    command = [sys.executable, "-m", "fcanalyze", "solve", str(deal), "--cells", "4", "--layered"]
    command += ["--spill-dir", str(spill), "--max-memory", memory, "--threads", str(threads), "--json"]
    if max_seconds is not None:
        command += ["--max-seconds", f"{max_seconds:g}"]
    if max_disk is not None:
        command += ["--max-disk", max_disk]
    begin = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE)
    out = child.stdout.read() if child.stdout else b""
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - begin
    code = os.waitstatus_to_exitcode(status)
    if code not in (1, 3):  # unsolvable, unknown
        sys.exit(f"deal {deal}: fcanalyze solve exited with {code}: {out.decode(errors='replace')[-500:]}")
    result = json.loads(out)
    result.update(wall=wall, rss=usage.ru_maxrss * 1024, threads=threads, engine_version=__version__)
    return result


def prove_in_segments(
    deal: int,
    spill: Path,
    memory: str,
    threads: int,
    max_seconds: float | None,
    max_disk: str | None,
    segment: float | None,
) -> dict:
    """A layered proof run as `prove` runs it, in segments of at most `segment` seconds,
    each going on from the proof the last one kept: a crash, an out-of-memory kill or a
    machine taken away then costs one segment at most, not the proof. The last segment's
    result, with the wall time of every run of the proof (earlier invocations' too, from
    the engine's own count) and the highest peak RSS of this invocation's segments."""
    began = time.perf_counter()
    rss = 0
    segments = 0
    last_states = None
    while True:
        left = None if max_seconds is None else max_seconds - (time.perf_counter() - began)
        budget = left if segment is None else segment if left is None else min(segment, left)
        r = prove(deal, spill, memory, threads, budget, max_disk)
        rss = max(rss, r["rss"])
        segments += 1
        going_on = r["status"] == "unknown" and r["limit"] == "seconds" and r.get("kept")
        if not going_on or (left is not None and left - r["wall"] < 1):
            break
        # A segment that stored nothing more spent its time in a layer of a breadth-first
        # search that it could not finish, which goes on from that layer's start: the
        # next segment is made twice as long.
        if segment is not None and last_states is not None and r["states"] <= last_states:
            segment *= 2
        last_states = r["states"]
        print(
            f"{deal:>11} segment {segments}: {r['states']:,} positions so far, "
            f"{gib(r['peak_disk'])} GiB on disk at most, {(r['wall'] + r['resumed_seconds']) / 60:.1f} min in all",
            flush=True,
        )
    # A proof spread over runs took the time of them all.
    r.update(wall=r["wall"] + r["resumed_seconds"], rss=rss, segments=segments)
    return r


def gib(n: float) -> str:
    return f"{n / (1 << 30):.2f}"


# The shipped file's columns: the verdict, the proof's positions, and what it took on
# the machine that made it (wall time, peak resident memory as the OS counted it, disk).
RECORD_COLUMNS = [
    "deal", "cells", "status", "states", "nodes", "seconds", "peak_rss", "peak_disk",
    "threads", "max_memory", "engine_version", "how",
]  # fmt: skip


def recorded() -> dict[int, dict]:
    """The rows of the shipped file, by deal."""
    if not RECORD.is_file():
        return {}
    with RECORD.open() as f:
        return {int(r["deal"]): r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def record(rows: list[dict]) -> None:
    """Adds the proved verdicts to the shipped file, one row per deal, sorted."""
    kept = recorded()
    for r in rows:
        if r["status"] == "unsolvable":
            kept[r["deal"]] = {
                "deal": r["deal"],
                "cells": 4,
                "status": "unsolvable",
                "states": r["states"],
                "nodes": r["nodes"],
                "seconds": f"{r['wall']:.0f}",
                "peak_rss": r["rss"],
                "peak_disk": r["peak_disk"],
                "threads": r["threads"],
                "max_memory": r["memory"],
                "engine_version": r["engine_version"],
                "how": f"layered proof, --max-memory {r['memory']}, {r['threads']} thread(s)",
            }
    with RECORD.open("w", newline="") as f:
        f.write(
            "# Deals of the extended range proved lost by scripts/bench_intractable.py --record (classic\n"
            "# FreeCell rules); fcanalyze lookup answers from it. seconds: wall time; peak_rss: the proof's\n"
            "# peak resident memory as the OS counted it, and peak_disk its most bytes on disk; both in bytes.\n"
        )
        writer = csv.DictWriter(f, RECORD_COLUMNS, lineterminator="\n", restval="")
        writer.writeheader()
        for deal in sorted(kept):
            writer.writerow({k: kept[deal].get(k, "") for k in RECORD_COLUMNS})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--deals",
        default=",".join(map(str, IMPOSSIBLE_EXTENDED_4_CELLS)),
        help="comma-separated deals (default the nine)",
    )
    p.add_argument("--max-memory", default="8G", help="each proof's memory budget (default 8G)")
    p.add_argument("--max-disk", default=None, help="each proof's disk budget (default half the space free)")
    p.add_argument("--threads", type=int, default=cores(), help="default every core")
    p.add_argument("--compare-threads", action="store_true", help="also run each on 1 thread, print the speed-up")
    p.add_argument("--max-seconds", type=float, default=None, help="each proof's time budget (default none)")
    p.add_argument(
        "--segment",
        type=float,
        default=1800,
        help="run each proof in segments of at most this many seconds, each going on from the "
        "last one kept, so that a kill costs one segment, not the proof (default 1800; 0: one run)",
    )
    p.add_argument(
        "--spill-dir",
        type=Path,
        default=Path("fcanalyze-intractable-spill"),
        help="where the proofs' files go, and are kept between runs (default ./fcanalyze-intractable-spill)",
    )
    p.add_argument("--record", action="store_true", help=f"add each verdict to {RECORD.name} as it is proved")
    p.add_argument("--again", action="store_true", help="run the deals already recorded too")
    args = p.parse_args()
    deals = [int(d) for d in args.deals.split(",")]
    if args.record and not args.again:
        done = recorded()
        skipped = [d for d in deals if d in done]
        deals = [d for d in deals if d not in done]
        if skipped:
            print(f"already recorded, skipped: {', '.join(map(str, skipped))} (--again runs them)")
    args.spill_dir.mkdir(mode=0o700, exist_ok=True)
    runs = [args.threads, 1] if args.compare_threads and args.threads != 1 else [args.threads]
    header = f"{'deal':>11} {'threads':>7} {'verdict':>10} {'positions':>14} {'nodes':>14} {'wall s':>8} {'peak RSS GiB':>12}"
    print(f"{header} {'disk GiB':>8}   earlier proof", flush=True)
    total = 0.0
    for deal in deals:
        times = {}
        for threads in runs:
            segment = args.segment if args.segment > 0 else None
            r = prove_in_segments(
                deal, args.spill_dir, args.max_memory, threads, args.max_seconds, args.max_disk, segment
            )
            r.update(memory=args.max_memory)
            times[threads] = r
            total += r["wall"]
            verdict = r["status"] if r["status"] != "unknown" else f"unknown ({r['limit']})"
            print(
                f"{deal:>11} {threads:>7} {verdict:>10} {r['states']:>14,} {r['nodes']:>14,} {r['wall']:>8.0f} "
                f"{gib(r['rss']):>12} {gib(r['peak_disk']):>8}   {EARLIER_MEMORY} machine",
                flush=True,
            )
            if args.record and threads == runs[0]:
                record([r])
        if len(times) == 2:
            many, one = times[args.threads], times[1]
            same = "same positions" if many["states"] == one["states"] else "POSITIONS DIFFER"
            print(f"{deal:>11} speed-up on {args.threads} threads: {one['wall'] / many['wall']:.2f}x ({same})")
    print(f"total wall time {total / 60:.1f} min")


if __name__ == "__main__":
    main()

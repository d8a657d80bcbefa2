"""Benchmark: the same sweep on the local process pool and on a loopback Dask cluster of the same size.

It starts a scheduler and N single-threaded workers with Dask's own commands
(`dask scheduler`, `dask worker`), runs `fcanalyze sweep` into a fresh directory
once with `--workers N` and once with `--scheduler`, checks that both datasets
hold the same verdicts, and prints both wall times and their ratio, and the peak
resident memory of the `fcanalyze sweep` process each way (as the OS counts it,
VmHWM; the workers' memory is not in it). With --repeat R, each runs R times
(alternating) and medians are shown. Example:

  python scripts/bench_dask.py --deals 1-8000 --cells 4 --workers 2 --repeat 3
"""

from __future__ import annotations

import argparse
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(workers: int) -> tuple[str, list[subprocess.Popen]]:
    from dask.distributed import Client

    dask = str(Path(sys.executable).with_name("dask"))
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": tempfile.gettempdir()}
    procs = [
        subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **quiet)
    ]
    procs += [
        subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--nworkers", "1", "--no-dashboard"], **quiet)
        for _ in range(workers)
    ]
    with Client(address, timeout=30) as client:
        client.wait_for_workers(workers, timeout=60)
    return address, procs


def peak_rss(pid: int) -> int:
    """The process's peak resident memory so far, in bytes (0 once it has gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmHWM:")), 0)


def timed_sweep(deals: str, cells: str, extra: list[str]) -> tuple[float, int, dict]:
    out = Path(tempfile.mkdtemp(prefix="bench-dask-")) / "ds"
    command = [
        sys.executable,
        "-m",
        "fcanalyze",
        "sweep",
        "--deals",
        deals,
        "--cells",
        cells,
        "--out",
        str(out),
        "--no-progress",
        "--max-seconds",
        "0",
        *extra,
    ]
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=tempfile.gettempdir())
    peak = 0
    while proc.poll() is None:
        peak = max(peak, peak_rss(proc.pid))
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"the sweep failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    from fcanalyze.dataset.store import read_dataset

    table = read_dataset(out, ["deal", "cells", "status"]).to_pylist()
    shutil.rmtree(out.parent)
    return wall, peak, {(r["deal"], r["cells"]): r["status"] for r in table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-8000")
    parser.add_argument("--cells", default="4")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    address, procs = start_cluster(args.workers)
    try:
        local, cluster, local_rss, cluster_rss = [], [], [], []
        for _ in range(args.repeat):
            wall, rss, local_rows = timed_sweep(args.deals, args.cells, ["--workers", str(args.workers)])
            local.append(wall)
            local_rss.append(rss)
            wall, rss, dask_rows = timed_sweep(args.deals, args.cells, ["--scheduler", address])
            cluster.append(wall)
            cluster_rss.append(rss)
            if local_rows != dask_rows:
                sys.exit("the two sweeps disagree: this is a bug")
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in procs:
            p.wait(timeout=30)
    lw, cw = statistics.median(local), statistics.median(cluster)
    print(
        f"deals {args.deals}, cells {args.cells}, {len(local_rows):,} jobs, {args.workers} workers, "
        f"{args.repeat} run(s) each, median wall time (the same verdicts both ways)"
    )
    mib = 1 << 20
    lm, cm = statistics.median(local_rss) / mib, statistics.median(cluster_rss) / mib
    print(f"{'':28}{'wall':>10}{'client peak RSS':>18}")
    print(f"{'local process pool':28}{lw:8.2f} s{lm:14.0f} MiB")
    print(f"{'loopback Dask cluster':28}{cw:8.2f} s{cm:14.0f} MiB")
    print(f"overhead ratio Dask / local pool: {cw / lw:.2f}x")


if __name__ == "__main__":
    main()

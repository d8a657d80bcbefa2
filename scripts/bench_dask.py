"""Benchmark: the same sweep on the local process pool and on a loopback Dask cluster of the same size.

It starts a scheduler and N single-threaded workers with Dask's own commands
(`dask scheduler`, `dask worker`), runs `fcanalyze sweep` into a fresh directory
once with `--workers N` and once with `--scheduler`, checks that both datasets
hold the same verdicts, and prints both wall times and their ratio. With
--repeat R, each runs R times (alternating) and medians are shown. Example:

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


def timed_sweep(deals: str, cells: str, extra: list[str]) -> tuple[float, dict]:
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
    subprocess.run(command, check=True, capture_output=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    from fcanalyze.store import read_dataset

    table = read_dataset(out, ["deal", "cells", "status"]).to_pylist()
    shutil.rmtree(out.parent)
    return wall, {(r["deal"], r["cells"]): r["status"] for r in table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", default="1-8000")
    parser.add_argument("--cells", default="4")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    address, procs = start_cluster(args.workers)
    try:
        local, cluster = [], []
        for _ in range(args.repeat):
            wall, local_rows = timed_sweep(args.deals, args.cells, ["--workers", str(args.workers)])
            local.append(wall)
            wall, dask_rows = timed_sweep(args.deals, args.cells, ["--scheduler", address])
            cluster.append(wall)
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
    print(f"{'local process pool':28}{lw:8.2f} s")
    print(f"{'loopback Dask cluster':28}{cw:8.2f} s")
    print(f"overhead ratio Dask / local pool: {cw / lw:.2f}x")


if __name__ == "__main__":
    main()

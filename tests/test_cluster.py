"""Sweeps on a real Dask cluster on loopback: a scheduler and two worker processes started with Dask's own commands."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "distributed", reason="the dask extra is not installed (pip install 'fcanalyze[dask]')"
)

from conftest import (  # noqa: E402
    CIRCUMSTANTIAL,
    NEUTRAL_CWD,
    children,
    fcanalyze_process,
    keys,
    run_fcanalyze,
    verdicts_at,
    wait_for_rows,
)

from fcanalyze.store import read_dataset  # noqa: E402

# The `dask` command of the environment running the tests.
_BESIDE = Path(sys.executable).with_name("dask")
DASK = str(_BESIDE) if _BESIDE.exists() else shutil.which("dask") or "dask"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, workers: int = 2):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        port = self.address.rsplit(":", 1)[1]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": NEUTRAL_CWD}
        self.scheduler = subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"], **quiet
        )
        self.workers = [
            subprocess.Popen(
                [
                    DASK,
                    "worker",
                    self.address,
                    "--nthreads",
                    "1",
                    "--nworkers",
                    "1",
                    "--no-dashboard",
                    "--name",
                    f"w{i}",
                ],
                **quiet,
            )
            for i in range(workers)
        ]
        client = distributed.Client(self.address, timeout=30)
        try:
            client.wait_for_workers(workers, timeout=60)
        finally:
            client.close()

    def worker_processes(self) -> list[int]:
        """The processes that run tasks: each `dask worker` is a nanny with one child."""
        return [pid for nanny in self.workers for pid in children(nanny.pid)]

    def close(self):
        for p in self.workers + [self.scheduler]:
            p.send_signal(signal.SIGTERM)
        for p in self.workers + [self.scheduler]:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    yield c
    c.close()


def rows(path) -> list[dict]:
    table = read_dataset(path).drop_columns(CIRCUMSTANTIAL)
    return sorted(table.to_pylist(), key=lambda r: (r["cells"], r["deal"]))


def test_a_cluster_sweep_writes_the_same_rows_as_the_local_pool(cluster, tmp_path):
    args = ["sweep", "--deals", "1-80", "--cells", "4,1", "--max-seconds", "0", "--no-progress"]
    on_cluster = run_fcanalyze(*args, "--out", tmp_path / "dask", "--scheduler", cluster.address)
    assert on_cluster.returncode == 0, on_cluster.stderr
    local = run_fcanalyze(*args, "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    assert rows(tmp_path / "dask") == rows(tmp_path / "local")
    assert len(rows(tmp_path / "dask")) == 160
    # The summary table is the same too.
    assert on_cluster.stdout.splitlines()[1:4] == local.stdout.splitlines()[1:4]
    # Resume works the same way: nothing left to do.
    again = run_fcanalyze(*args, "--out", tmp_path / "dask", "--scheduler", cluster.address)
    assert "(160 were already there, 0 run now)" in again.stdout


def test_killing_a_worker_mid_sweep_loses_nothing_and_duplicates_nothing(cluster, tmp_path):
    out = tmp_path / "ds"
    args = [
        "sweep",
        "--deals",
        "1-200",
        "--cells",
        "1",
        "--out",
        out,
        "--scheduler",
        cluster.address,
        "--no-progress",
        "--max-seconds",
        "0",
    ]
    proc = fcanalyze_process(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_rows(out, 10, proc)
    victim = cluster.worker_processes()[0]
    os.kill(victim, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert sorted(keys(out)) == [(d, "freecell", 1) for d in range(1, 201)]
    assert {r["deal"]: r["status"] for r in read_dataset(out).to_pylist()} == verdicts_at(1)
    # The nanny brought the worker back for the next test.
    client = distributed.Client(cluster.address, timeout=30)
    try:
        client.wait_for_workers(2, timeout=60)
    finally:
        client.close()


def test_without_a_scheduler_dask_is_not_imported(tmp_path):
    code = (
        "import sys; from fcanalyze.sweep import sweep; "
        f"sweep('1-3', cells=4, out={str(tmp_path / 'ds')!r}, workers=1); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=NEUTRAL_CWD)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_scheduler_errors_are_one_line(tmp_path, run_cli):
    result = run_cli("sweep", "-d", "1-3", "-o", tmp_path / "a", "--scheduler", "tcp://127.0.0.1:9", "--workers", "2")
    assert result.exit_code == 2 and "--workers does not apply with --scheduler" in result.output
    begin = time.monotonic()
    result = run_cli(
        "sweep", "-d", "1-3", "-o", tmp_path / "b", "--scheduler", f"tcp://127.0.0.1:{free_port()}", "--no-progress"
    )
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: cannot reach the Dask scheduler at tcp://127.0.0.1:")
    assert len(result.output.strip().splitlines()) == 1
    assert time.monotonic() - begin < 40

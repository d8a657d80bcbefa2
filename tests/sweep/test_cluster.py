"""Sweeps on a real Dask cluster on loopback: a scheduler and two worker processes started with Dask's own commands."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

distributed = pytest.importorskip(
    "distributed", reason="the dask extra is not installed (pip install 'fcanalyze[dask]')"
)

import pyarrow as pa  # noqa: E402
import pyarrow.compute  # noqa: E402
from conftest import (  # noqa: E402
    CIRCUMSTANTIAL,
    HANG,
    NEUTRAL_CWD,
    children,
    fcanalyze_process,
    keys,
    no_dask_client,
    run_fcanalyze,
    verdicts_at,
    wait_for_rows,
)

from fcanalyze.cluster import quiet_teardown  # noqa: E402
from fcanalyze.dataset.chunks import Chunk, ChunkStore  # noqa: E402
from fcanalyze.dataset.store import part_files, read_dataset  # noqa: E402
from fcanalyze.game.variant import Variant  # noqa: E402
from fcanalyze.solving.budgets import Budgets  # noqa: E402
from fcanalyze.sweep.cluster import run_chunk  # noqa: E402

SHIPPED_TABLE = Path(__file__).parents[2] / "fcanalyze" / "data" / "microsoft-32000.parquet"
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
            client.wait_for_workers(workers, timeout=HANG)
        finally:
            client.close()

    def wait_for_workers(self) -> None:
        """Until the nannies have brought back any worker a test killed."""
        client = distributed.Client(self.address, timeout=30)
        try:
            client.wait_for_workers(len(self.workers), timeout=HANG)
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
    args = ["sweep", "--deals", "1-200", "--cells", "2", "--out", out, "--scheduler", cluster.address]
    proc = fcanalyze_process(*args, "--no-progress", "--max-seconds", "0", stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)  # fmt: skip
    wait_for_rows(out, 10, proc)
    victim = cluster.worker_processes()[0]
    os.kill(victim, signal.SIGKILL)
    _, stderr = proc.communicate(timeout=HANG)
    assert proc.returncode == 0, stderr
    assert sorted(keys(out)) == [(d, "freecell", 2) for d in range(1, 201)]
    assert {r["deal"]: r["status"] for r in read_dataset(out).to_pylist()} == verdicts_at(2)
    cluster.wait_for_workers()


def test_a_task_run_again_after_writing_its_part_replaces_it(cluster, tmp_path):
    # What Dask does when a worker dies after a task wrote its part but before its
    # result reached the client: the task runs again, elsewhere.
    store = ChunkStore(str(tmp_path / "ds"))
    chunk = Chunk("freecell", 1, 101, 130)
    client = distributed.Client(cluster.address, timeout=30)
    try:
        args = (store, chunk, Variant.parse("freecell", cells=1), Budgets(None, None, 1 << 30), "all", False)
        first = client.submit(run_chunk, *args, pure=False).result()
        file = Path(chunk.path(store.root))
        written = file.stat().st_mtime_ns
        second = client.submit(run_chunk, *args, pure=False).result()
    finally:
        client.close()
    assert first.counts == second.counts and sum(first.counts.values()) == 30
    assert file.stat().st_mtime_ns > written
    assert [p.name for p in part_files(tmp_path / "ds")] == [chunk.file_name()]
    # A sweep over the same deals finds that chunk done and runs the rest.
    result = run_fcanalyze("sweep", "-d", "101-150", "-k", "1", "-o", tmp_path / "ds", "--scheduler",
                           cluster.address, "--no-progress", "--max-seconds", "0")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "(30 were already there, 20 run now)" in result.stdout
    assert sorted(keys(tmp_path / "ds")) == [(d, "freecell", 1) for d in range(101, 151)]
    assert {r["deal"]: r["status"] for r in read_dataset(tmp_path / "ds").to_pylist()} == {
        d: v for d, v in verdicts_at(1).items() if d >= 101 and d <= 150
    }


def test_a_client_killed_with_sigkill_resumes_where_it_stopped(cluster, tmp_path):
    out = tmp_path / "ds"
    args = ["sweep", "-d", "1-200", "-k", "2,1", "-o", out, "--scheduler", cluster.address, "--max-seconds", "0"]
    proc = fcanalyze_process(*args, "--no-progress", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_rows(out, 20, proc)
    proc.kill()
    proc.wait()
    before = len(keys(out))
    assert 20 <= before < 400
    again = run_fcanalyze(*args, "--no-progress")
    assert again.returncode == 0, again.stderr
    # The chunks written before the kill were not run again.
    done = int(again.stdout.split("(", 1)[1].split(" were already there")[0].replace(",", ""))
    assert done >= before - 40  # the tasks in flight at the kill may have finished since
    assert sorted(keys(out)) == sorted((d, "freecell", k) for d in range(1, 201) for k in (1, 2))
    got = {(r["deal"], r["cells"]): r["status"] for r in read_dataset(out).to_pylist()}
    assert got == {(d, k): v for k in (1, 2) for d, v in verdicts_at(k).items()}
    # Every 1-cell job of a deal proved unsolvable with 2 cells was settled without a search.
    by_key = {(r["deal"], r["cells"]): r for r in read_dataset(out).to_pylist()}
    for d in range(1, 201):
        if by_key[(d, 2)]["status"] == "unsolvable":
            assert by_key[(d, 1)]["implied_by"] == 2 and by_key[(d, 1)]["nodes"] is None


def test_an_fsspec_url_location(cluster, tmp_path):
    url = f"file://{tmp_path}/bucket/sweep"
    args = ["sweep", "-d", "1-60", "-k", "4", "-o", url, "--scheduler", cluster.address, "--no-progress"]
    result = run_fcanalyze(*args, "--solutions", "none")
    assert result.returncode == 0, result.stderr
    assert f"in {tmp_path}/bucket/sweep" in result.stdout
    table = read_dataset(url)
    assert sorted(table["deal"].to_pylist()) == list(range(1, 61))
    assert set(table["status"].to_pylist()) == {"solved"}
    assert table["solution"].null_count == 60 and table["moves"].null_count == 0
    # Readers that know nothing of fcanalyze prune by the shard folders.
    import pyarrow.dataset as ds

    found = ds.dataset(str(tmp_path / "bucket" / "sweep"), format="parquet", partitioning="hive")
    assert found.to_table(filter=ds.field("shard") == 0).num_rows == 60
    assert found.to_table(filter=ds.field("shard") == 1).num_rows == 0


def test_a_cluster_sweep_of_the_extended_range_starts_at_once_and_stops_on_ctrl_c(cluster, tmp_path):
    out = tmp_path / "ds"
    args = ["sweep", "-d", "1-8589934591", "-k", "4", "-o", out, "--scheduler", cluster.address, "--no-progress"]
    proc = fcanalyze_process(*args, "--solutions", "none", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # "At once": rows come while the range is still being handed out (listing 8.6
    # billion jobs first would take hours, and hold gigabytes: the memory says which).
    wait_for_rows(out, 1, proc)
    peak_kib = int(next(line for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                        if line.startswith("VmHWM:")).split()[1])  # fmt: skip
    proc.send_signal(signal.SIGINT)
    # It stops, long before the rest of the range could be done, whatever the load.
    _, stderr = proc.communicate(timeout=HANG)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stderr and "Traceback" not in stderr
    assert peak_kib < 200 * 1024, peak_kib
    assert all(table_deal < 1_000_000 for table_deal in read_dataset(out)["deal"].to_pylist())
    cluster.wait_for_workers()


def test_a_report_on_the_cluster_reads_the_shards_there(cluster, tmp_path):
    out = tmp_path / "ds"
    swept = run_fcanalyze("sweep", "-d", "1-120", "-k", "4,1", "-o", out, "--scheduler", cluster.address,
                          "--no-progress", "--max-seconds", "0")  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    here = run_fcanalyze("report", out)
    there = run_fcanalyze("report", out, "--scheduler", cluster.address)
    assert here.returncode == 0 and there.returncode == 0, there.stderr
    assert "read a shard (a million deals) at a time" in there.stdout
    # The verdict table and the transitions are the same either way.
    verdicts = here.stdout.split("\n\n")[0].strip().splitlines()
    assert verdicts[0].startswith("Verdicts per variant") and "\n".join(verdicts) in there.stdout
    step = next(line for line in here.stdout.splitlines() if line.startswith("freecell") and " 4 " in line
                and " 1 " in line and "120" in line)  # fmt: skip
    assert step in there.stdout
    refused = run_fcanalyze("report", SHIPPED_TABLE, "--scheduler", cluster.address)
    assert refused.returncode == 2 and "reads one cluster sweep's dataset" in refused.stderr


def test_a_relative_out_is_where_the_client_runs_not_where_the_workers_do(cluster, tmp_path):
    command = [sys.executable, "-m", "fcanalyze", "sweep", "-d", "1-5", "-k", "4", "-o", "here", "--scheduler",
               cluster.address, "--no-progress"]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert sorted(keys(tmp_path / "here")) == [(d, "freecell", 4) for d in range(1, 6)]


def test_a_cluster_sweep_leaves_a_local_sweeps_dataset_alone(cluster, tmp_path, run_cli):
    assert run_cli("sweep", "-d", "1-3", "-k", "4", "-o", tmp_path / "ds", "--no-progress").exit_code == 0
    result = run_cli("sweep", "-d", "1-6", "-k", "4", "-o", tmp_path / "ds", "--scheduler", cluster.address)
    assert result.exit_code == 2
    assert "holds a local sweep's parts, which a cluster sweep does not add to" in result.output


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
    with no_dask_client():
        result = run_cli(
            "sweep", "-d", "1-3", "-o", tmp_path / "b", "--scheduler", f"tcp://127.0.0.1:{free_port()}", "--no-progress"
        )
    assert result.exit_code == 2, result.output
    assert result.output.startswith("Error: cannot reach the Dask scheduler at tcp://127.0.0.1:")
    assert len(result.output.strip().splitlines()) == 1


def test_scheduler_local_runs_a_cluster_of_this_machines_cores(tmp_path):
    args = ["sweep", "-d", "1-40", "-k", "4,0", "--no-progress", "--max-seconds", "0"]
    local = run_fcanalyze(*args, "-o", tmp_path / "pool", "--workers", "2")
    chunked = run_fcanalyze(*args, "-o", tmp_path / "chunks", "--scheduler", "local", "--workers", "2")
    assert local.returncode == 0 and chunked.returncode == 0, chunked.stderr
    assert rows(tmp_path / "chunks") == rows(tmp_path / "pool")
    assert list((tmp_path / "chunks").glob("part-*")) == [] and list((tmp_path / "chunks").glob("shard=0000/*"))
    # Run again without --scheduler, it keeps to the dataset's layout: nothing to do,
    # and no local pool's part file beside the chunks.
    more = run_fcanalyze(*args[:2], "1-50", *args[3:], "-o", tmp_path / "chunks")
    assert more.returncode == 0, more.stderr
    assert "holds a cluster sweep's chunks: running on a Dask cluster of this machine's cores" in more.stderr
    assert "(80 were already there, 20 run now)" in more.stdout
    assert list((tmp_path / "chunks").glob("part-*")) == []
    assert sorted(keys(tmp_path / "chunks")) == sorted((d, "freecell", k) for d in range(1, 51) for k in (0, 4))


def test_the_clients_teardown_logs_nothing_even_where_dask_set_a_level_of_its_own(caplog):
    # Dask's configuration gives distributed.client a level of its own: its
    # "Couldn't gather keys" with a traceback came through a Ctrl-C once.
    import logging

    import distributed  # noqa: F401  (applies Dask's logging configuration)

    client_log = logging.getLogger("distributed.client")
    before = client_log.level
    with caplog.at_level(logging.DEBUG), quiet_teardown():
        client_log.error("Couldn't gather keys")
        logging.getLogger("tornado.application").error("Exception in callback")
        logging.getLogger("fcanalyze.sweep").warning("stopped")
    assert [r.name for r in caplog.records] == ["fcanalyze.sweep"]
    assert client_log.level == before


def test_the_extended_range_without_a_scheduler_runs_on_this_machine_in_flat_memory(tmp_path):
    out = tmp_path / "ds"
    args = ["sweep", "-d", "1-8589934591", "-k", "4", "-o", out, "--no-progress", "--solutions", "none"]
    proc = fcanalyze_process(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_rows(out, 1, proc)  # hours, and gigabytes, if it listed the range first
    status = Path(f"/proc/{proc.pid}/status").read_text().splitlines()
    peak_kib = int(next(line for line in status if line.startswith("VmHWM:")).split()[1])
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=HANG)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert peak_kib < 200 * 1024, peak_kib
    table = read_dataset(out, ["deal", "status"])
    assert table.num_rows % 20_000 == 0 and max(table["deal"].to_pylist()) < 1_000_000


def test_a_chunk_an_earlier_run_began_is_run_again_with_its_own_bounds(tmp_path):
    # An earlier run's task began deals 1..40 (its client died; Dask does not stop a
    # running task, which may still write 1..40): a sweep of 1..20 runs 1..40 again
    # rather than 1..20, so the two write the same file, never two holding deal 5.
    out = tmp_path / "ds"
    begun = Chunk("freecell", 4, 1, 40)
    ChunkStore(str(out)).mark(begun)
    # A stale mark over jobs already in a file is ignored.
    shipped = read_dataset(SHIPPED_TABLE)
    deal, cells = shipped["deal"], shipped["cells"]
    these = pa.compute.and_(pa.compute.equal(cells, 4), pa.compute.and_(pa.compute.greater_equal(deal, 51),
                                                                       pa.compute.less_equal(deal, 60)))  # fmt: skip
    ChunkStore(str(out)).write(Chunk("freecell", 4, 51, 60), shipped.filter(these))
    ChunkStore(str(out)).mark(Chunk("freecell", 4, 41, 60))
    args = ["sweep", "-d", "1-20", "-k", "4", "-o", out, "--no-progress", "--scheduler", "local", "--workers", "2"]
    done = run_fcanalyze(*args)
    assert done.returncode == 0, done.stderr
    assert "(0 were already there, 20 run now)" in done.stdout
    names = sorted(p.name for p in out.glob("shard=0000/*"))
    assert names == [Chunk("freecell", 4, 41, 60).file_name().join((".", ".begun")), begun.file_name(),
                     Chunk("freecell", 4, 51, 60).file_name()]  # fmt: skip
    assert sorted(keys(out)) == [(d, "freecell", 4) for d in [*range(1, 41), *range(51, 61)]]
    # Resumed with other deals, the summary says its table is of the jobs run now.
    again = run_fcanalyze(*args[:2], "1-45", *args[3:])
    assert "(40 were already there, 5 run now)" in again.stdout
    assert "the verdicts of the jobs run now; the 40 already there are not read" in again.stdout
    assert sorted(keys(out)) == [(d, "freecell", 4) for d in [*range(1, 46), *range(51, 61)]]


def test_retry_unknown_reruns_only_the_sweeps_deals(tmp_path):
    out = tmp_path / "ds"
    base = ["sweep", "-k", "4", "-o", out, "--no-progress", "--scheduler", "local", "--workers", "2"]
    assert run_fcanalyze(*base, "-d", "1-100", "--max-nodes", "200").returncode == 0
    before = {r["deal"]: r for r in read_dataset(out).to_pylist()}
    unknown = sorted(d for d, r in before.items() if r["status"] == "unknown")
    assert len(unknown) > 3
    again = run_fcanalyze(*base, "-d", str(unknown[0]), "--retry-unknown")
    assert again.returncode == 0, again.stderr
    assert "(0 were already there, 1 run now)" in again.stdout
    after = {r["deal"]: r for r in read_dataset(out).to_pylist()}
    assert after[unknown[0]]["status"] == "solved"
    assert all(after[d] == before[d] for d in unknown[1:])

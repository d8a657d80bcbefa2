"""Hardening of whole runs: reports and exports of odd datasets, stops by signal, reads during a sweep, read-only datasets."""

from __future__ import annotations

import builtins
import errno
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import HANG, no_dask_client, one_error_line

from fcanalyze.dataset.store import read_dataset
from fcanalyze.errors import FcanalyzeError
from fcanalyze.outputs import write_atomically
from fcanalyze.sweep import plan_sweep, sweep

NEUTRAL_CWD = Path(__file__).parent


@pytest.fixture(scope="module")
def two_variants(tmp_path_factory):
    out = tmp_path_factory.mktemp("two") / "ds"
    sweep(range(1, 13), [4, 1], out, workers=1)
    sweep(range(1, 13), [4, 1], out, variant="bakers-game", workers=1)
    return out


def test_report_out_on_a_dataset_of_two_variants(two_variants, tmp_path, run_cli):
    result = run_cli("report", two_variants, "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep" / "report.md").stat().st_size > 0
    assert (tmp_path / "rep" / "min_cells.png").stat().st_size > 0
    assert "bakers-game" in (tmp_path / "rep" / "report.md").read_text()


def test_export_refuses_to_write_inside_the_dataset(two_variants, run_cli):
    before = sorted(p.name for p in two_variants.iterdir())
    for target in (two_variants / "all.parquet", two_variants / "sub" / "all.csv"):
        one_error_line(run_cli("export", two_variants, target), "is inside the dataset")
    assert sorted(p.name for p in two_variants.iterdir()) == before
    assert read_dataset(two_variants).num_rows == 48


def test_export_of_a_directory_without_a_dataset_says_so(run_cli, tmp_path):
    one_error_line(run_cli("export", tmp_path, tmp_path / "all.csv"), "holds no fcanalyze dataset")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_leaves_no_file_and_no_temporary(tmp_path):
    target = tmp_path / "summary.csv"

    def half_then_disk_full(path):
        path.write_text("deal,cells\n1,")
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(FcanalyzeError, match=r"cannot write .*summary\.csv: No space left on device"):
        write_atomically(target, half_then_disk_full)
    assert list(tmp_path.iterdir()) == []
    # An old version stays whole.
    target.write_text("old\n")
    with pytest.raises(FcanalyzeError):
        write_atomically(target, half_then_disk_full)
    assert target.read_text() == "old\n" and len(list(tmp_path.iterdir())) == 1


def test_sweep_refuses_a_variant_that_sets_cells(run_cli, tmp_path):
    one_error_line(
        run_cli("sweep", "--variant", "freecell,cells=2", "-o", tmp_path / "x"),
        "sets cells, which a sweep takes from --cells",
    )
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "address,message",
    [
        ("tcp://no such host", "is not a scheduler address"),
        ("tcp://host:99999", "is not a scheduler address"),
        ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler at tcp://127.0.0.1:1"),
    ],
)
def test_a_bad_scheduler_fails_at_once(run_cli, tmp_path, address, message):
    with no_dask_client():
        one_error_line(run_cli("sweep", "-d", "1-3", "-o", tmp_path / "a", "--scheduler", address), message)
    # The dataset directory the failed sweep made is not left behind, empty but for its lock.
    assert not (tmp_path / "a").exists()


def test_a_failed_sweep_leaves_a_directory_it_did_not_make_as_it_was(run_cli, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("kept")
    one_error_line(
        run_cli("sweep", "-d", "1-3", "-o", mine, "--scheduler", "tcp://127.0.0.1:1"), "cannot reach the Dask"
    )
    assert (mine / "notes.txt").read_text() == "kept"


def test_an_unwritable_log_file_fails_before_the_dataset_is_made(run_cli, tmp_path):
    failed = run_cli("sweep", "-d", "1-3", "-o", tmp_path / "ds", "--log-file", tmp_path / "no" / "such" / "x.log")
    one_error_line(failed, "cannot write to ")
    assert failed.stderr.rstrip().endswith("/no/such/x.log: No such file or directory")
    assert not (tmp_path / "ds").exists()


def test_a_read_only_dataset_reports_when_done_and_refuses_work_left(two_variants, monkeypatch):
    real_open = builtins.open

    def read_only(file, mode="r", *args, **kwargs):
        if str(file).endswith(".lock") and "w" in mode:
            raise OSError(errno.EROFS, "Read-only file system", str(file))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", read_only)
    done = plan_sweep(range(1, 13), [4, 1], two_variants)
    try:
        assert done.to_run == 0 and done.run().by_cells[4]["left"] == 0
    finally:
        done.close()
    with pytest.raises(
        FcanalyzeError, match=r"cannot write to .*Read-only file system.*12 of its jobs are still to run"
    ):
        plan_sweep(range(1, 13), [4, 2, 1], two_variants)


def _no_traceback(err: str) -> None:
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("delay", [0.15, 0.5, 1.5])
def test_a_signal_at_any_moment_of_solve_stops_it_cleanly(sig, code, delay):
    # 1568 with 1 cell takes minutes: the signal always comes in the middle.
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcanalyze", "solve", "1568", "--cells", "1"],
        cwd=NEUTRAL_CWD,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)  # picks the moment: starting up, reading the deal, searching
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=HANG)
    assert proc.returncode == code, err
    _no_traceback(err)


def test_reads_never_fail_while_a_sweep_writes(tmp_path):
    out = tmp_path / "live"
    proc = subprocess.Popen(
        [sys.executable, "-m", "fcanalyze", "sweep", "-d", "1-4000", "-k", "4", "-o", out, "--no-progress", "-j", "1"],
        cwd=NEUTRAL_CWD,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    failures: list[str] = []
    reads = 0
    stop = threading.Event()

    def reader():
        nonlocal reads
        while not stop.is_set():
            try:
                table = read_dataset(out)
                assert table.num_rows == len(set(zip(table["deal"].to_pylist(), table["cells"].to_pylist())))
                reads += 1
            except Exception as e:
                failures.append(f"{type(e).__name__}: {e}")

    # From the first part on, every read must succeed.
    give_up = time.monotonic() + HANG
    while not list(out.glob("part-*.parquet")) and time.monotonic() < give_up:
        time.sleep(0.01)
    thread = threading.Thread(target=reader)
    thread.start()
    try:
        proc.communicate(timeout=HANG)
    finally:
        stop.set()
        thread.join()
    assert proc.returncode == 0
    # Reads run as often as the machine lets them; what matters is that none failed.
    assert failures == [] and reads > 0, (reads, failures[:3])
    assert read_dataset(out).num_rows == 4000


def test_reading_a_dataset_never_aborts_the_process_at_exit(two_variants):
    # Reading parts through Python file objects let Arrow's threads outlive the
    # interpreter: about one run in ten died with "terminate called without an active
    # exception" (SIGABRT) after its work was done. Twenty runs would see it.
    code = f"from fcanalyze.dataset.store import read_dataset; print(read_dataset({str(two_variants)!r}).num_rows)"
    for _ in range(20):
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=NEUTRAL_CWD)
        assert (run.returncode, run.stdout.strip(), run.stderr) == (0, "48", "")


def test_a_path_too_long_is_shown_by_its_end_on_one_short_line(run_cli, tmp_path):
    name = tmp_path / ("q" * 300)
    failed = run_cli("report", name)
    one_error_line(failed, "File name too long: ...")
    assert len(failed.stderr) < 140 and failed.stderr.rstrip().endswith("q" * 50)


def test_the_retry_command_works_from_anywhere_with_the_same_workers(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "few.txt").write_text("1-2\n")
    out = tmp_path / "ds"
    ran = run_cli("sweep", "-d", "@few.txt", "-k", "1", "-o", out, "-j", "1", "--max-nodes", "10", "--no-progress")
    lines = ran.stdout.splitlines()
    retry = lines[next(i for i, line in enumerate(lines) if "To run them" in line) + 1]
    assert f"--deals @{tmp_path / 'few.txt'} " in retry and " --workers 1 " in retry and "--retry-unknown" in retry

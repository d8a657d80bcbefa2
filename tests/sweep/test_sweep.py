"""Sweeps for real: deal ranges, the dataset's schema, resume, kills of the main process and of workers."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import pyarrow.parquet as pq
import pytest
from conftest import (
    HANG,
    alive,
    budget_leaving,
    children,
    fcanalyze_process,
    keys,
    peak_rss_of,
    rows,
    run_fcanalyze,
    verdicts_at,
    wait_for_rows,
)

import fcanalyze
from fcanalyze.dataset.jobs import DealSpans, JobSpace
from fcanalyze.dataset.store import SCHEMA, Dataset, read_dataset
from fcanalyze.errors import FcanalyzeError
from fcanalyze.game.deals import parse_deal_ranges, parse_deal_spans
from fcanalyze.referee.replay import replay
from fcanalyze.solving.budgets import kept_proofs
from fcanalyze.sweep import parse_cells, plan_sweep, run_sweep, sweep

# --- deal ranges and cell lists -----------------------------------------------------------


def test_deal_ranges_take_ranges_lists_and_files(tmp_path):
    assert parse_deal_ranges("1-5") == [1, 2, 3, 4, 5]
    assert parse_deal_ranges("3, 1-2,617,2") == [1, 2, 3, 617]
    assert parse_deal_ranges("8589934590-8589934591") == [8589934590, 8589934591]
    listing = tmp_path / "deals.txt"
    listing.write_text("# hard ones\n11982\n\n1-3, 617  # and some easy\n")
    assert parse_deal_ranges(f"@{listing}") == [1, 2, 3, 617, 11982]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty item"),
        ("1-", "bad deal range '1-'"),
        ("5-3", "runs backwards"),
        ("0-10", "out of range"),
        ("1-8589934592", "out of range"),
        ("seven", "whole number"),
        ("1,,2", "empty item"),
        ("@/no/such/list", "/no/such/list: no such file"),
    ],
)
def test_bad_deal_ranges_say_what_is_wrong(text, message):
    with pytest.raises(FcanalyzeError, match=message):
        parse_deal_spans(text)


def test_deal_spans_hold_any_range_in_constant_memory():
    spans = DealSpans(parse_deal_spans("5-9, 1-3, 4, 100, 8589934590-8589934591"))
    assert spans.spans == [(1, 9), (100, 100), (8589934590, 8589934591)]
    assert len(spans) == 12 and list(spans) == [*range(1, 10), 100, 8589934590, 8589934591]
    assert [spans[i] for i in (0, 8, 9, 11)] == [1, 9, 100, 8589934591]
    assert 100 in spans and 10 not in spans and 8589934591 in spans
    everything = DealSpans(parse_deal_spans("1-8589934591"))
    assert len(everything) == 8589934591 and everything[8589934590] == 8589934591
    space = JobSpace(everything, [0, 4, 2], "freecell")
    assert len(space) == 3 * 8589934591
    assert space.key(0) == (1, "freecell", 4) and space.key(8589934591) == (1, "freecell", 2)
    assert (5, "freecell", 2) in space and (5, "freecell", 3) not in space and (5, "bakers-game", 2) not in space


def test_a_plan_past_the_local_pools_limit_goes_to_a_cluster_of_this_machine(tmp_path):
    # The local pool's dataset indexes its rows in memory; past MAX_SWEEP_JOBS the
    # sweep uses the chunked layout, which keeps nothing per row, on a Dask cluster
    # of this machine's cores (test_cluster.py runs it). Planning it costs nothing.
    try:
        import fsspec  # noqa: F401
    except ImportError:
        with pytest.raises(FcanalyzeError, match=r"needs fsspec: pip install 'fcanalyze\[dask\]'"):
            plan_sweep("1-8589934591", "0-4", tmp_path / "big")
        return
    plan = plan_sweep("1-8589934591", "0-4", tmp_path / "big")
    try:
        assert plan.why is not None and plan.why.startswith("42,949,672,955 jobs are more than the local pool")
        assert len(plan.space) == 5 * 8589934591
    finally:
        plan.close()


def test_cell_lists():
    assert parse_cells("1,2,4") == [4, 2, 1]
    assert parse_cells("0-2") == [2, 1, 0]
    assert parse_cells(3) == [3]
    for bad, message in [("9", "out of range"), ("x", "bad cell count"), ("", "bad cell count")]:
        with pytest.raises(FcanalyzeError, match=message):
            parse_cells(bad)


# --- the dataset ----------------------------------------------------------------------------


def test_a_sweep_writes_one_verified_row_per_job_with_the_documented_schema(tmp_path):
    out = sweep("1-40", cells="4,1", out=tmp_path / "ds", workers=2)
    table = read_dataset(out)
    assert table.schema.equals(SCHEMA)
    assert table.num_rows == 80 and len(set(keys(out))) == 80
    by_job = {(r["deal"], r["cells"]): r for r in table.to_pylist()}
    # Verdicts at 1 cell agree with the cross-check against fc-solve; 4 cells: all won.
    expected = verdicts_at(1)
    for deal in range(1, 41):
        assert by_job[(deal, 1)]["status"] == expected[deal]
        assert by_job[(deal, 4)]["status"] == "solved"
    for r in by_job.values():
        assert r["variant"] == "freecell" and r["columns"] == 8 and r["engine_version"] == fcanalyze.__version__
        assert r["solvable"] == (r["status"] == "solved")
        assert r["verified"] == (r["status"] == "solved")
        assert r["nodes"] > 0 and r["states"] > 0 and r["seconds"] >= 0 and r["finished_at"] is not None
        if r["status"] == "solved":
            rules = fcanalyze.Variant.parse("freecell", cells=r["cells"])
            verdict = replay(fcanalyze.microsoft_deal(r["deal"], rules), rules, r["solution"])
            assert verdict.won and verdict.moves == r["moves"] and verdict.card_moves == r["card_moves"]
            assert verdict.score == r["score"]
        else:
            assert r["solution"] is None and r["moves"] is None
    # Plain pyarrow reads the directory as one dataset.
    assert pq.read_table(out).num_rows == 80


def test_rows_are_the_same_with_one_worker_and_with_two(tmp_path):
    one = sweep("1-25", cells="4,2", out=tmp_path / "one", workers=1)
    two = sweep("1-25", cells="4,2", out=tmp_path / "two", workers=2)
    assert rows(one) == rows(two)


def test_rerunning_skips_what_is_done_and_adds_the_rest(tmp_path):
    out = tmp_path / "ds"
    sweep("1-10", cells=4, out=out, workers=2)
    first = {r["deal"]: r["finished_at"] for r in read_dataset(out).to_pylist()}
    summary = run_sweep("1-20", cells=4, out=out, workers=2)
    assert (summary.already_done, summary.ran) == (10, 10)
    table = read_dataset(out).to_pylist()
    assert sorted(r["deal"] for r in table) == list(range(1, 21))
    assert all(first[r["deal"]] == r["finished_at"] for r in table if r["deal"] <= 10)
    assert run_sweep("1-20", cells=4, out=out).ran == 0


def test_a_sweep_with_a_spill_dir_proves_on_disk_what_outgrows_its_memory(tmp_path):
    """11982 with 4 cells does not fit in 1 MiB; with --spill-dir the job goes on as a
    layered proof and is proved lost, its row saying where it spilled."""
    spill = tmp_path / "spill"
    spill.mkdir()

    # A budget below what a worker holds is an error row that says how much it holds. A
    # worker is forked from this process and holds about what it held then, which grows
    # as this process reads datasets: so each budget is measured just before its sweep,
    # by a sweep like it whose dataset this process has already read one like.
    def starved(name: str, **options) -> str:
        for probe in range(2):
            run_sweep("11982", cells=4, out=tmp_path / f"{name}{probe}", workers=1, max_memory="1M", **options)
            (error,) = read_dataset(tmp_path / f"{name}{probe}").column("error").to_pylist()
            held = float(re.search(r"the process already holds ([0-9,.]+) MiB", error).group(1).replace(",", ""))
        return budget_leaving(1, held=int(held * 2**20))

    plain = run_sweep("11982", cells=4, out=tmp_path / "a", workers=1, max_memory=starved("held"))
    assert plain.by_cells[4]["unknown"] == 1
    small = starved("held-spilling", spill_dir=spill)
    layered = run_sweep("11982", cells=4, out=tmp_path / "b", workers=1, max_memory=small, spill_dir=spill)
    assert layered.by_cells[4]["unsolvable"] == 1, read_dataset(tmp_path / "b").column("error").to_pylist()
    (row,) = read_dataset(tmp_path / "b").to_pylist()
    assert row["status"] == "unsolvable" and row["peak_memory"] <= 2 << 20
    assert row["budgets"].endswith(f"spill_dir={spill}") and ",max_disk=" in row["budgets"]
    assert list(spill.iterdir()) == []
    # --layered starts it on disk at once, and the row says so.
    at_once = run_sweep("11982", cells=4, out=tmp_path / "c", workers=1, spill_dir=spill, layered=True)
    assert at_once.by_cells[4]["unsolvable"] == 1
    (first,) = read_dataset(tmp_path / "c").to_pylist()
    assert first["budgets"].endswith(f"spill_dir={spill},layered=yes") and first["states"] < row["states"]


def test_retry_unknown_replaces_unknown_rows_in_place(tmp_path):
    out = tmp_path / "ds"
    summary = run_sweep("1-6", cells=4, out=out, workers=2, max_nodes=20)
    assert summary.by_cells[4]["unknown"] == 6
    assert {r["limit"] for r in read_dataset(out).to_pylist()} == {"nodes"}
    # Without --retry-unknown, unknown rows count as done.
    assert run_sweep("1-6", cells=4, out=out).ran == 0
    summary = run_sweep("1-6", cells=4, out=out, workers=2, retry_unknown=True)
    assert summary.ran == 6 and summary.by_cells[4]["solved"] == 6
    assert sorted(keys(out)) == [(d, "freecell", 4) for d in range(1, 7)]
    assert {r["budgets"].split(",")[0] for r in read_dataset(out).to_pylist()} == {"max_nodes=none"}


def test_an_escalating_library_sweep_doubles_the_time_of_the_undecided_jobs_until_they_are_decided(tmp_path):
    # Deal 144 with 1 cell needs some 170,000 positions: not 0.01 s (on a busy machine
    # other jobs may not make it either). Each round runs again only the jobs the round
    # before left undecided, with twice its time, until none is left.
    rounds = []

    def undecided(summary) -> int:
        return sum(c["unknown"] + c["error"] for c in summary.by_cells.values())

    summary = run_sweep(
        "1,2,144",
        cells=[4, 1],
        out=tmp_path / "e",
        workers=1,
        max_seconds=0.01,
        escalate=60,
        on_round=lambda s, following: rounds.append((s.ran, s.max_seconds, following, undecided(s))),
    )
    assert rounds[0][:2] == (6, 0.01) and rounds[0][3] >= 1 and rounds[1][1] == 0.02
    assert all(later[0] == earlier[3] for earlier, later in zip(rounds, rounds[1:])), rounds
    assert [following for _, _, following, _ in rounds] == [seconds for _, seconds, _, _ in rounds[1:]] + [None]
    assert not any(c["unknown"] or c["error"] for c in summary.by_cells.values())
    with pytest.raises(FcanalyzeError, match="--escalate 5 must be above --max-seconds"):
        run_sweep("1", cells=4, out=tmp_path / "f", max_seconds=10, escalate=5)


def test_a_job_that_kills_its_worker_twice_gets_an_error_row_and_the_sweep_goes_on(tmp_path, monkeypatch):
    import fcanalyze.sweep.rows as sweep_module

    real = sweep_module.solve_within

    def crashing(deal, rules, budgets):
        if deal == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(deal, rules, budgets)

    # Workers are forked, so they inherit the patched solver.
    monkeypatch.setattr(sweep_module, "solve_within", crashing)
    summary = run_sweep("1-6", cells=4, out=tmp_path / "ds", workers=2)
    assert summary.worker_deaths == 2
    by_deal = {r["deal"]: r for r in read_dataset(tmp_path / "ds").to_pylist()}
    assert sorted(by_deal) == [1, 2, 3, 4, 5, 6]
    assert by_deal[3]["status"] == "error" and by_deal[3]["solvable"] is None
    assert "killed by signal 9" in by_deal[3]["error"]
    assert all(by_deal[d]["status"] == "solved" for d in (1, 2, 4, 5, 6))


def test_a_chunk_sent_to_a_worker_that_just_died_goes_back_to_the_queue(tmp_path):
    """The race CI once hit: a worker dies after the pool's last look and before its
    next chunk is sent. The send must not raise, nor blame the chunk's jobs."""
    from fcanalyze.game.variant import Variant
    from fcanalyze.solving.budgets import Budgets
    from fcanalyze.sweep.pool import Pool
    from fcanalyze.sweep.queue import JobQueue

    rules = Variant.parse("freecell", cells=4)
    space = JobSpace(DealSpans(parse_deal_spans("1-6")), [4], rules.name)
    queue = JobQueue(space, rules, Budgets(), "host", {}, {}, set(), lambda row: None, len(space))
    pool = Pool(rules, Budgets(), workers=1, host="host")
    worker = pool._spawn()
    worker.process.kill()
    worker.process.join()
    pool._send_chunk(worker, queue)
    assert not worker.outstanding
    assert [job[1] for job in queue.next_chunk(6)] == [1, 2, 3, 4, 5, 6]
    pool._stop_workers([worker])


def _queue(deals: str, cells: list[int], kept=None, recorded=None):
    from fcanalyze.game.variant import Variant
    from fcanalyze.solving.budgets import Budgets
    from fcanalyze.sweep.queue import JobQueue

    rules = Variant.parse("freecell", cells=max(cells))
    space = JobSpace(DealSpans(parse_deal_spans(deals)), cells, rules.name)
    recorded = {} if recorded is None else recorded
    queue = JobQueue(space, rules, Budgets(), "host", kept or {}, recorded, set(), lambda row: None, len(space))
    return space, queue


def test_the_jobs_the_table_knows_to_be_long_go_first_each_alone():
    # Deals 1..1000 with 2 cells: the shipped table took 3.0 billion positions for 982
    # and 38 million for 267; every other job under 20 million.
    space, queue = _queue("1-1000", [2])
    assert {space.key(i)[0] for i in queue.long} == {982, 267}
    assert [job[1] for job in queue.next_chunk(50)] == [982]
    assert [job[1] for job in queue.next_chunk(50)] == [267]
    handed = []
    while chunk := queue.next_chunk(50):
        assert not any(queue.is_long(index) for index, _, _ in chunk)
        handed += [deal for _, deal, _ in chunk]
    # The cursor passes over them; every other job comes once, in order.
    assert handed == [d for d in range(1, 1001) if d not in (267, 982)]
    assert queue.left() == 0 and not queue.has_pending()
    # One the dataset has already is not handed out again.
    _, queue = _queue("1-1000", [2], kept={(982, "freecell", 2): "unknown"})
    assert [job[1] for job in queue.next_chunk(50)] == [267]


def test_a_long_job_still_waits_for_its_verdict_with_more_cells_then_goes_alone():
    recorded: dict = {}
    space, queue = _queue("975-990", [4, 2], recorded=recorded)
    chunks = []
    while queue.has_work():
        chunk = queue.next_chunk(6)
        assert chunk, "jobs wait only for jobs handed out"
        chunks.append(chunk)
        for index, _, _ in chunk:
            key = space.key(index)
            recorded[key] = "solved"
            queue.recorded_row(key)
    flat = [(deal, cells) for chunk in chunks for _, deal, cells in chunk]
    assert sorted(flat) == sorted((d, c) for d in range(975, 991) for c in (4, 2))
    alone = [chunk for chunk in chunks if any(deal == 982 and cells == 2 for _, deal, cells in chunk)]
    assert len(alone) == 1 and len(alone[0]) == 1
    assert flat.index((982, 4)) < flat.index((982, 2))


def test_no_job_waits_behind_a_long_one(tmp_path):
    # 982 with 2 cells runs its 3 s; the pool sends its worker nothing more meanwhile,
    # so the 39 other jobs (some 0.2 s in all) all end on the other worker before it.
    out = sweep("961-1000", cells=2, out=tmp_path / "ds", workers=2, max_seconds=3)
    table = read_dataset(out).to_pylist()
    assert len(table) == 40
    long = next(r for r in table if r["deal"] == 982)
    assert long["status"] == "unknown" and long["limit"] == "seconds"
    assert all(r["finished_at"] < long["finished_at"] for r in table if r["deal"] != 982)


def test_an_engine_bug_becomes_an_error_row_not_a_verdict(tmp_path, monkeypatch):
    import fcanalyze.sweep.rows as sweep_module
    from fcanalyze.solving.solve import EngineError

    def buggy(deal, rules, budgets):
        raise EngineError(f"engine bug: its solution of deal {deal} fails the referee")

    monkeypatch.setattr(sweep_module, "solve_within", buggy)
    sweep("1-2", cells=4, out=tmp_path / "ds", workers=1)
    table = read_dataset(tmp_path / "ds").to_pylist()
    assert [r["status"] for r in table] == ["error", "error"]
    assert all("fails the referee" in r["error"] and not r["verified"] for r in table)


def test_one_sweep_at_a_time_per_dataset(tmp_path, run_cli):
    held = Dataset.open(tmp_path / "ds")
    try:
        result = run_cli("sweep", "-d", "1-3", "-o", tmp_path / "ds", "--no-progress")
        assert result.exit_code == 2 and "another sweep is writing" in result.output
    finally:
        held.close()


# --- kills ----------------------------------------------------------------------------------


def test_kill_9_of_the_main_process_loses_nothing_finished_and_duplicates_nothing(tmp_path):
    out = tmp_path / "ds"
    args = ["sweep", "--deals", "1-200", "--cells", "1", "--out", out, "--workers", "2", "--no-progress"]
    proc = fcanalyze_process(*args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_rows(out, 20, proc)
    workers = children(proc.pid)
    assert len(workers) == 2
    proc.kill()
    proc.wait()
    # The workers die with the main process instead of running on.
    # (A worker that outlived it would go on for good: the wait ends only as a hang.)
    give_up = time.monotonic() + HANG
    while any(alive(w) for w in workers) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers)
    partial = keys(out)
    assert 0 < len(partial) < 200 and len(set(partial)) == len(partial)

    rerun = run_fcanalyze(*args)
    assert rerun.returncode == 0, rerun.stderr
    assert f"({len(partial)} were already there, {200 - len(partial)} run now)" in rerun.stdout
    assert sorted(keys(out)) == [(d, "freecell", 1) for d in range(1, 201)]
    expected = verdicts_at(1)
    assert {r["deal"]: r["status"] for r in read_dataset(out).to_pylist()} == expected


def test_kill_9_of_a_worker_retries_its_job(tmp_path):
    out = tmp_path / "ds"
    args = ["sweep", "--deals", "1-200", "--cells", "1", "--out", out, "--workers", "2", "--no-progress", "-v"]
    proc = fcanalyze_process(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_rows(out, 10, proc)
    os.kill(children(proc.pid)[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=HANG)
    assert proc.returncode == 0, stderr
    assert "worker killed by signal 9; retrying the job" in stderr
    assert "1 worker(s) died and were replaced" in stdout
    assert sorted(keys(out)) == [(d, "freecell", 1) for d in range(1, 201)]
    assert {r["deal"]: r["status"] for r in read_dataset(out).to_pylist()} == verdicts_at(1)


def test_ctrl_c_stops_the_sweep_and_keeps_what_is_done(tmp_path):
    # Jobs of milliseconds under any load (4 cells), and far too many to finish before
    # the signal comes: it is sent as soon as rows are on disk, however late that is.
    out = tmp_path / "ds"
    args = ["sweep", "--deals", "1-32000", "--cells", "4", "--out", out, "--no-progress", "--workers", "1"]
    proc = fcanalyze_process(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_rows(out, 10, proc)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=HANG)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stderr and "run the same command again to resume" in stderr
    done = keys(out)
    assert 0 < len(done) < 32000 and len(set(done)) == len(done)
    # The summary says how many jobs are left for the rerun.
    head, row = stdout.splitlines()[1:3]
    assert head.split()[6] == "left" and int(row.split()[6].replace(",", "")) == 32000 - len(done)


# --- the command line -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (["--deals", "1-"], "bad deal range '1-'"),
        (["--deals", "0"], "out of range"),
        (["--deals", "10-1"], "runs backwards"),
        (["--cells", "9"], "cell count 9 is out of range"),
        (["--cells", "two"], "bad cell count"),
        (["--variant", "spider"], "spider"),
        (["--workers", "0"], "0 is not in the range x>=1"),
        (["--max-memory", "lots"], "bad memory size"),
    ],
)
def test_bad_sweep_arguments_are_one_line_errors_before_any_work(tmp_path, run_cli, args, message):
    out = tmp_path / "ds"
    result = run_cli("sweep", *args, "--out", out, "--no-progress")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:") and message in lines[0]
    assert not out.exists() or not list(out.glob("part-*"))


def test_an_unwritable_output_is_a_one_line_error(tmp_path, run_cli):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = run_cli("sweep", "-d", "1-2", "--out", blocker / "ds", "--no-progress")
    assert result.exit_code == 2 and result.output.startswith("Error: cannot write to")
    assert len(result.output.strip().splitlines()) == 1
    assert blocker.read_text() == "not a directory"


def test_cli_sweep_then_export_to_parquet_and_csv(tmp_path):
    out = tmp_path / "ds"
    done = run_fcanalyze("sweep", "-d", "5-1,", "-o", out)
    assert done.returncode == 2 and "runs backwards" in done.stderr
    done = run_fcanalyze(
        "sweep", "-d", "1-12", "-k", "4,2", "-o", out, "--no-progress", "--log-file", tmp_path / "sweep.log", "-vv"
    )
    assert done.returncode == 0, done.stderr
    assert "freecell: 24 jobs" in done.stdout
    table = done.stdout.splitlines()
    assert any(line.split()[:2] == ["4", "12"] for line in table)
    log = (tmp_path / "sweep.log").read_text()
    # Records from the workers reach the one log.
    assert "fcanalyze-worker" in log and "deal 12, freecell, 2 free cells:" in log

    exported = run_fcanalyze("export", out, tmp_path / "all.parquet")
    assert exported.returncode == 0 and "wrote 24 rows" in exported.stdout
    single = pq.read_table(tmp_path / "all.parquet").to_pylist()
    assert [(r["cells"], r["deal"]) for r in single] == [(k, d) for k in (2, 4) for d in range(1, 13)]
    assert run_fcanalyze("export", out, tmp_path / "all.csv").returncode == 0
    csv_lines = (tmp_path / "all.csv").read_text().splitlines()
    assert len(csv_lines) == 25 and csv_lines[0].startswith('"deal","variant","cells"')
    bad = run_fcanalyze("export", out, tmp_path / "all.xlsx")
    assert bad.returncode == 2 and "name it *.parquet or *.csv" in bad.stderr
    missing = run_fcanalyze("export", tmp_path / "nothing", tmp_path / "x.csv")
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_the_reserve_games_sweep_their_own_cell_counts_by_default(tmp_path):
    # Seahaven deals 2 cards into its 4 cells: 4, 3 and 2 cells by default, not 1.
    plan = plan_sweep("1-15", None, tmp_path / "seahaven", variant="seahaven", workers=2)
    assert plan.space.cells == [4, 3, 2]
    plan.run()
    plan.close()
    rows = read_dataset(tmp_path / "seahaven").to_pylist()
    assert len(rows) == 45 and {r["variant"] for r in rows} == {"seahaven"} and {r["columns"] for r in rows} == {10}
    for r in rows:
        assert r["status"] in ("solved", "unsolvable")
        if r["status"] == "solved":
            rules = fcanalyze.Variant.parse("seahaven", cells=r["cells"])
            board = fcanalyze.microsoft_deal(r["deal"], rules)
            assert board.cells[:2] != [None, None]  # the dealt cards are in the cells
            assert replay(board, rules, r["solution"]).won
    # Fewer cells never win what more cannot.
    won = {(r["deal"], r["cells"]) for r in rows if r["status"] == "solved"}
    assert all((d, k + 1) in won for d, k in won if k < 4)
    eight_off = plan_sweep("1", None, tmp_path / "eight-off", variant="eight-off")
    assert eight_off.space.cells == [8, 7, 6, 5, 4]
    eight_off.close()


def test_max_memory_bounds_each_sweep_worker_as_the_os_counts_it(tmp_path):
    """A sweep's worker runs deal 982 with 2 cells, which fills its memory budget: no
    process of the sweep holds more than --max-memory (the main process holds far less)."""

    peak, out = peak_rss_of(
        "sweep",
        "--deals",
        "982",
        "--cells",
        "2",
        "--max-memory",
        "200M",
        "--max-seconds",
        "60",
        "--out",
        str(tmp_path / "out"),
        "--no-progress",
        "--workers",
        "1",
    )
    assert "1 job without a verdict" in out
    assert peak <= 200 << 20, f"{peak / 2**20:.0f} MiB"


def test_the_library_sweeps_the_same_cell_counts_as_the_command_line_by_default(tmp_path, run_cli):
    """`fcanalyze sweep` runs 4, 2 and 1 cells unless told; so does sweep() from Python."""
    from fcanalyze.sweep import sweep

    path = sweep("1-3", out=tmp_path / "lib", workers=1)
    assert run_cli("sweep", "--deals", "1-3", "--out", tmp_path / "cli", "--workers", "1").exit_code == 0
    for where in (path, tmp_path / "cli"):
        assert sorted({(r["deal"], r["cells"]) for r in read_dataset(where, ["deal", "cells"]).to_pylist()}) == [
            (d, k) for d in (1, 2, 3) for k in (1, 2, 4)
        ]


def test_a_shortest_sweep_records_each_won_jobs_line_and_whether_it_is_proved(tmp_path):
    """sweep(shortest=True): every won row carries its count of moves not to a foundation,
    no more than the plain sweep's, and a shortest_proved flag; lost rows carry none; the
    budgets text says so."""
    plain = read_dataset(sweep("1-6", cells=[4, 1], out=tmp_path / "plain", workers=2)).to_pylist()
    short = read_dataset(sweep("1-6", cells=[4, 1], out=tmp_path / "short", workers=2, shortest=True)).to_pylist()
    by_key = {(r["deal"], r["cells"]): r for r in plain}
    for row in short:
        before = by_key[(row["deal"], row["cells"])]
        assert row["status"] == before["status"]
        if row["status"] == "solved":
            assert row["shortest_proved"] is not None
            assert row["non_foundation_moves"] <= before["non_foundation_moves"]
            rules = fcanalyze.Variant.parse("freecell", cells=row["cells"])
            assert replay(fcanalyze.microsoft_deal(row["deal"], rules), rules, row["solution"]).won
            assert row["budgets"].endswith(",shortest=yes")
        else:
            assert row["shortest_proved"] is None and row["non_foundation_moves"] is None
    assert all(r["shortest_proved"] is None for r in plain)


def test_ctrl_c_of_a_sweep_keeps_the_layered_proof_its_worker_was_in(tmp_path):
    # Ctrl-C reaches the whole process group. The worker's layered proof once died
    # with it, leaving an orphan directory of entries and no checkpoint, and the rerun
    # started afresh; now the worker is asked to stop, and keeps the proof.
    spill, out = tmp_path / "spill", tmp_path / "ds"
    spill.mkdir(mode=0o700)
    args = ["sweep", "--deals", "26063", "--cells", "1", "--workers", "1", "--spill-dir", spill, "--layered"]
    args += ["--max-memory", "300M", "--out", out, "--no-progress"]
    proc = fcanalyze_process(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    give_up = time.monotonic() + HANG
    # The event: the proof's directory, once it has an entry file in it.
    while not list(spill.glob("fcanalyze-proof-*/level-*")) and time.monotonic() < give_up:
        assert proc.poll() is None, "the sweep ended before its proof could be stopped"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=HANG)
    assert proc.returncode == 130, stderr
    kept = kept_proofs(spill)
    assert len(kept) == 1, sorted(p.name for p in spill.iterdir())
    assert [p for p in spill.iterdir() if p not in kept] == []  # no orphan beside it
    # The rerun goes on from it, to the verdict (with no time budget: a busy machine is
    # slow, never wrong).
    rerun = run_fcanalyze(*args, "--max-seconds", "0")
    assert rerun.returncode == 0, rerun.stderr
    assert [r["status"] for r in read_dataset(out, ["status"]).to_pylist()] == ["unsolvable"]
    assert kept_proofs(spill) == []

"""The engine's verdicts through fcanalyze.solve: exact, verified, budgeted, deterministic, interruptible."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
from conftest import DATA, HANG, budget_leaving, peak_rss_of, read_crosschecks

import fcanalyze
from fcanalyze import Variant, microsoft_deal, solve
from fcanalyze.cluster import cores
from fcanalyze.dataset.store import read_frame
from fcanalyze.errors import FcanalyzeError
from fcanalyze.referee.replay import replay
from fcanalyze.solving.budgets import Budgets, kept_proofs, parse_memory
from fcanalyze.solving.solve import EngineError, solve_within


def test_deal_one_is_solved_and_the_solution_replays():
    result = solve(1)
    assert result.status == "solved" and result.limit is None and result.solvable is True
    verdict = replay(microsoft_deal(1), Variant(), result.solution)
    assert verdict.won
    assert (result.moves, result.card_moves, result.score) == (verdict.moves, verdict.card_moves, verdict.score)
    assert result.moves == len(result.solution)
    assert sum(1 for m in result.solution if m.endswith("h")) == 52  # every card goes home explicitly
    assert result.nodes > 0 and result.states > 0 and result.peak_memory > 0


@pytest.mark.parametrize("cells", [4, 3, 1])
def test_scores_count_the_expansion_of_every_sequence_move(cells):
    # The referee scores a sequence move from the size of its expansion; replaying it
    # card by card scores each single move as played. Both must agree, and the score is
    # 10 a card home (52 of them) plus 5 for each card out of a free cell.
    rules = Variant(cells=cells)
    scored = 0
    for deal in range(1, 41):
        result = solve(deal, cells=cells)
        if result.status != "solved":
            continue
        by_card = replay(microsoft_deal(deal, rules), rules, result.solution, card_by_card=True)
        assert by_card.won and result.score == by_card.score
        assert result.score is not None and result.score >= 520 and result.score % 5 == 0
        scored += 1
    assert scored >= 10


def test_deal_11982_is_proved_unsolvable_with_four_cells():
    result = solve(11982)
    assert result.status == "unsolvable" and result.solvable is False
    assert result.solution == [] and result.moves is None


def test_deal_one_is_proved_unsolvable_with_two_cells():
    assert solve(1, cells=2).status == "unsolvable"
    assert solve(1, cells=3).status == "solved"


CROSSCHECKED = [(c.deal, c.cells, c.theirs, c.ours) for c in read_crosschecks()]
# Quick ones for every run; all 400 behind the slow marker.
QUICK = [r for r in CROSSCHECKED if r[0] <= 12]


@pytest.mark.parametrize("deal, cells", [(28082, 1), (29027, 2), (253, 2), (21538, 2)])
def test_wandering_wins_are_shortened_under_200_moves(deal, cells):
    # The first two came out of a whole-table sweep at 241 and 305 moves after the first
    # shortening pass (the shipped table has wins of 125 and 141 for them); the wider
    # passes that lines still over 200 moves get must bring them down. The exhaustive
    # pass won the last two 41,306 and 6,048 moves deep, and shortening left 317 and 253
    # moves: a win still over 250 is looked for again by best-first, whose lines are short.
    result = solve(deal, cells=cells)
    assert result.status == "solved" and result.moves is not None
    assert result.moves <= 200, result.moves
    rules = Variant.parse("freecell", cells=cells)
    assert replay(microsoft_deal(deal, rules), rules, result.solution).won


@pytest.mark.parametrize("deal,cells,theirs,ours", QUICK)
def test_small_cell_verdicts_agree_with_fc_solve(deal, cells, theirs, ours):
    result = solve(deal, cells=cells)
    assert result.status == ours
    if theirs == "solved":
        assert result.status == "solved"
    if theirs == "exhausted":  # fc-solve ran out of positions without a win
        assert result.status == "unsolvable"


@pytest.mark.slow
def test_all_crosschecked_small_cell_verdicts():
    for deal, cells, _, ours in CROSSCHECKED:
        assert solve(deal, cells=cells).status == ours, (deal, cells)


def test_crosscheck_data_has_no_conflicts_and_covers_both_sides():
    assert len(CROSSCHECKED) == 400
    kinds = {(theirs, ours) for _, _, theirs, ours in CROSSCHECKED}
    assert ("exhausted", "unsolvable") in kinds and ("solved", "solved") in kinds
    assert ("solved", "unsolvable") not in kinds and ("exhausted", "solved") not in kinds


@pytest.mark.parametrize(
    "kwargs,limit",
    [
        ({"max_nodes": 50}, "nodes"),
        ({"max_memory": "1M"}, "memory"),
    ],
)
def test_budgets_give_unknown_with_their_limit(kwargs, limit):
    result = solve(11982, **kwargs)
    assert result.status == "unknown" and result.limit == limit and result.solvable is None
    assert result.solution == []


def test_time_budget():
    # Proving deal 90 unsolvable with 1 cell visits about 2 million positions (seconds).
    result = solve(90, cells=1, max_seconds=0.1)
    assert result.status == "unknown" and result.limit == "seconds"
    assert result.seconds < 1.0


def test_bad_budgets_are_refused():
    with pytest.raises(fcanalyze.FcanalyzeError, match="bad memory size"):
        solve(1, max_memory="lots")
    with pytest.raises(fcanalyze.FcanalyzeError, match=r"max_nodes must be 1\.\."):
        solve(1, max_nodes=0)


_RUN_ONE = """
import json, sys, fcanalyze
for deal, cells in [(617, 4), (1, 2), (109, 1), (3, 2)]:
    r = fcanalyze.solve(deal, cells=cells).to_dict()
    r.pop("seconds")
    r.pop("verify_seconds")
    print(json.dumps(r))
"""


def test_same_results_and_counters_in_separate_processes(tmp_path):
    runs = [
        subprocess.run(
            [sys.executable, "-c", _RUN_ONE],
            capture_output=True,
            text=True,
            check=True,
            cwd=tmp_path,
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
        ).stdout
        for seed in ("1", "2")
    ]
    assert runs[0] == runs[1]
    assert [json.loads(line)["status"] for line in runs[0].splitlines()] == ["solved", "unsolvable", "solved", "solved"]


def test_ctrl_c_stops_a_long_search(tmp_path):
    # Deal 982 with 2 cells runs for minutes (its proof took 93 minutes at 19 GiB).
    # A thread of the child says when the search has spent half a second of CPU (the
    # engine lets go of the interpreter as it searches): the signal comes mid-search.
    code = """if True:
        import os, threading, fcanalyze
        start = os.times().user
        def announce():
            while os.times().user < start + 0.5:
                threading.Event().wait(0.01)
            print("searching", flush=True)
        threading.Thread(target=announce, daemon=True).start()
        fcanalyze.solve(982, cells=2)
        print("finished")
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    assert proc.stdout.readline().strip() == "searching"
    proc.send_signal(signal.SIGINT)
    # The engine checks for a signal as it searches: the process ends long before the
    # search could (the timeout only keeps a hang from stalling the suite).
    _, err = proc.communicate(timeout=HANG)
    assert "KeyboardInterrupt" in err and proc.returncode != 0


def test_a_solution_the_referee_rejects_fails_loudly(monkeypatch):
    from fcanalyze import _engine

    real = _engine.solve

    def corrupted(*args, **kwargs):
        out = real(*args, **kwargs)
        out["solution"] = out["solution"].rsplit(" ", 1)[0]  # the last move dropped
        return out

    monkeypatch.setattr(_engine, "solve", corrupted)
    with pytest.raises(EngineError, match="fails the referee"):
        solve(1)


def test_variants_reach_the_engine():
    # Deal 1's verdicts differ by rules: Baker's Game (same-suit building) is harder. It
    # still wins with 4 cells, and not with 2 (Freecell Solver agrees: `--game
    # bakers_game` solves it with 4 cells and, with `-l ve` and 2, cannot).
    assert solve(1, variant="bakers-game").status == "solved"
    assert solve(1, cells=2, variant="bakers-game").status == "unsolvable"
    assert solve(1, cells=2).status == "unsolvable"
    relaxed = solve(1, cells=2, variant="relaxed-freecell")
    assert relaxed.status == "solved"  # runs move freely: deal 1 wins even with 2 cells
    assert replay(
        microsoft_deal(1, Variant.parse("relaxed-freecell", cells=2)),
        Variant.parse("relaxed-freecell", cells=2),
        relaxed.solution,
    ).won


def test_solve_cli(run_cli):
    result = run_cli("solve", "1")
    assert result.exit_code == 0
    assert result.stdout.startswith("deal 1 (freecell, 4 free cells): SOLVED\nmoves: ")
    assert "verified by the referee" in result.stdout
    proof = run_cli("solve", "11982", "--json")
    assert proof.exit_code == 1 and json.loads(proof.stdout)["status"] == "unsolvable"
    unknown = run_cli("solve", "11982", "--max-nodes", "10")
    assert unknown.exit_code == 3 and "UNKNOWN (limit: nodes)" in unknown.stdout
    assert "a search with more may decide it: --max-nodes 20" in unknown.stdout
    # A deal of the shipped table: the line after says what the table has, from a bigger search.
    assert unknown.stdout.rstrip().endswith(
        "the shipped table has it, from a bigger search: unsolvable (proved lost); see: fcanalyze lookup 11982"
    )
    # A lost 1-cell deal of 39 million positions does not fit when the search has 16 MiB:
    # the line says what ran out and what to pass for more.
    budget = budget_leaving(16)
    cramped = run_cli("solve", "26063", "--cells", "1", "--max-memory", budget)
    size = int(budget.removesuffix("K")) * 1024
    assert cramped.exit_code == 3 and "UNKNOWN (limit: memory)" in cramped.stdout
    assert f"the memory budget ({size / 2**20:,.0f} MiB) ran out after storing" in cramped.stdout
    doubled = f"{round(2 * size / 2**30)}G" if size >= 2**29 else f"{round(2 * size / 2**20)}M"
    twice = f"--max-memory {doubled}, or prove it on disk with --spill-dir DIR\n"
    assert f"may decide it: {twice}" in cramped.stdout
    board = run_cli("solve", "--board", DATA / "ms617.board", "--cells", "3")
    assert board.exit_code == 1 and "UNSOLVABLE" in board.stdout


def test_solve_cli_says_what_the_table_has_only_for_its_jobs(run_cli):
    """The line from the shipped table comes for a classic deal at a cell count the
    table holds, and never for a board, other rules or a deal past 32,000."""
    table_line = "the shipped table has it"
    won = run_cli("solve", "617", "--cells", "4", "--max-nodes", "5")
    assert won.exit_code == 3
    assert won.stdout.rstrip().splitlines()[-1].startswith(f"{table_line}, from a bigger search: solved (won in ")
    for args in (
        ("--board", DATA / "ms617.board", "--cells", "2"),
        ("617", "--cells", "2", "--variant", "bakers-game"),
        ("617", "--cells", "5"),
        ("40000", "--cells", "2"),
    ):
        result = run_cli("solve", *args, "--max-nodes", "5")
        assert result.exit_code == 3 and table_line not in result.stdout, args


def test_solve_cli_max_seconds_zero_is_no_limit_and_json_keeps_stdout_to_itself(run_cli):
    assert run_cli("solve", "1", "--max-seconds", "0").exit_code == 0
    both = run_cli("solve", "1", "--json", "--solution-out", "-")
    assert both.exit_code == 2 and both.stdout == ""
    assert both.stderr.startswith("Error: --json and --solution-out - would both write to standard output")


def test_a_ticker_counts_seconds_on_a_terminal_and_clears_its_line():
    """`solve` without a budget is never silent on a terminal: a line counts the seconds
    until the search ends, and is wiped then; nothing at all goes to a pipe or a file."""
    import io

    from fcanalyze.cli.progress import Ticker

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    ticker = Ticker("deal 982 (freecell, 2 free cells): searching", stream=screen, every=0.02)
    give_up = time.monotonic() + HANG
    while "searching, " not in screen.getvalue() and time.monotonic() < give_up:
        time.sleep(0.01)  # waits for the first tick
    ticker.stop()
    ticker.stop()
    text = screen.getvalue()
    assert "\rdeal 982 (freecell, 2 free cells): searching, 0 s (Ctrl-C stops it" in text
    assert text.endswith("\r") and text.rstrip("\r").split("\r")[-1].strip() == ""
    piped = io.StringIO()
    Ticker("deal 1", stream=piped, every=0.02).stop()
    assert piped.getvalue() == ""


def test_a_proof_that_outgrows_memory_goes_on_layered_on_disk_and_cleans_up(tmp_path, run_cli):
    """Deal 11982 with 4 cells within 1 MiB: the in-memory proof runs out, the layered
    one (docs/correctness.md, "The layered proof") proves it lost with its layers on
    disk, and removes its files."""
    cramped = solve(11982, max_memory="1M")
    assert cramped.status == "unknown" and cramped.limit == "memory" and cramped.peak_disk == 0
    layered = solve(11982, max_memory="1M", spill_dir=tmp_path)
    assert layered.status == "unsolvable" and layered.peak_disk > 0
    assert layered.peak_memory <= 1 << 20
    assert list(tmp_path.iterdir()) == []
    # The command line says how much disk it took (about 100 KiB: within --max-disk).
    tight = run_cli("solve", "11982", "--max-memory", budget_leaving(1), "--spill-dir", tmp_path, "--max-disk", "1M")
    assert tight.exit_code == 1 and "UNSOLVABLE" in tight.stdout and "disk: 0.1 MiB" in tight.stdout
    assert list(tmp_path.iterdir()) == []


def test_layered_starts_the_layered_proof_at_once_and_can_only_prove_losses(tmp_path, run_cli):
    """--layered skips the searches in memory: 11982 with 4 cells is proved lost by the
    layered proof alone, which stores only the exhaustive pass's positions (the whole
    solve stores the quick passes' too); a winnable deal's proof meets a win, to which
    it keeps no path, and the searches in memory find the line (shown on a small
    won-in-twelve-moves board: a whole deal's winnable state space is far too big to
    exhaust in a test)."""
    spill = tmp_path / "spill"
    spill.mkdir()
    whole = solve(11982)
    layered = solve(11982, spill_dir=spill, layered=True)
    assert whole.status == layered.status == "unsolvable"
    assert 0 < layered.states < whole.states
    assert list(spill.iterdir()) == []
    board = tmp_path / "kings-over-queens.board"
    board.write_text("Foundations: H-J C-J D-J S-J\nFreecells:\nQH KH\nQS KS\nQD KD\nQC KC\n")
    assert run_cli("solve", "--board", board, "--cells", "0").exit_code == 0
    # The layered proof meets the win and keeps no path; the searches in memory find it.
    won = run_cli("solve", "--board", board, "--cells", "0", "--layered", "--spill-dir", spill)
    assert won.exit_code == 0 and "SOLVED" in won.stdout, won.output
    assert "met a won position" in won.stdout


def test_a_layered_proof_on_two_threads_stores_what_it_stores_on_one(tmp_path, run_cli):
    """--threads 2 searches the classes of a level at once; the proof stores exactly the
    positions it stores on one thread, within the same memory budget (the Rust test
    the_layered_proof_on_two_threads_stores_exactly_what_it_stores_on_one also holds
    it where classes outgrow a thread's share); the default is every core."""
    for memory in ("64M", "32M"):
        one = solve(11982, spill_dir=tmp_path, layered=True, max_memory=memory, threads=1)
        two = solve(11982, spill_dir=tmp_path, layered=True, max_memory=memory, threads=2)
        assert one.status == two.status == "unsolvable"
        assert two.states == one.states and two.peak_memory <= parse_memory(memory)
    assert Budgets(spill_dir=str(tmp_path), threads=None).threads == cores()
    out = tmp_path / "rows"
    swept = run_cli(
        "sweep",
        "--deals",
        "11982",
        "--cells",
        "4",
        "--out",
        out,
        "--spill-dir",
        tmp_path,
        "--layered",
        "--threads",
        "2",
    )
    assert swept.exit_code == 0, swept.output
    row = read_frame(out).iloc[0]
    assert row.status == "unsolvable" and row.states == one.states and row.budgets.endswith(",layered=yes,threads=2")
    assert list(tmp_path.iterdir()) == [out]


def test_a_layered_proof_stopped_by_a_budget_is_kept_and_the_next_run_goes_on_from_it(tmp_path, run_cli):
    """11982 with 4 cells, its layered proof stopped by a budget of positions a third of
    what it needs, again and again: each run is kept in --spill-dir and the next goes on
    from it, until the proof ends with what the proof in one go found (the same verdict,
    the same positions stored), and removes its files."""
    spill = tmp_path / "spill"
    spill.mkdir()
    whole = solve(11982, spill_dir=spill, layered=True)
    third = str(whole.nodes // 3)
    first = run_cli("solve", "11982", "--layered", "--spill-dir", spill, "--max-nodes", third)
    assert first.exit_code == 3 and "UNKNOWN (limit: nodes)" in first.stdout
    assert f"the layered proof is kept in {spill}" in first.stdout
    assert len(kept_proofs(spill)) == 1
    # Another job's proof (3 cells) starts afresh beside it.
    other = solve(11982, cells=3, spill_dir=spill, layered=True, max_nodes=1000)
    assert other.kept and other.resumed_seconds == 0 and len(kept_proofs(spill)) == 2
    runs = [solve(11982, spill_dir=spill, layered=True, max_nodes=int(third))]
    while runs[-1].status == "unknown":
        assert runs[-1].kept and len(runs) < 10
        runs.append(solve(11982, spill_dir=spill, layered=True, max_nodes=int(third)))
    last = runs[-1]
    assert last.status == "unsolvable" and not last.kept and last.resumed_seconds > 0
    assert last.states == whole.states and last.nodes >= whole.nodes
    assert len(kept_proofs(spill)) == 1
    goes_on = run_cli("solve", "11982", "--cells", "3", "--layered", "--spill-dir", spill)
    assert goes_on.exit_code == 1 and f"went on from a layered proof kept in {spill}" in goes_on.stdout
    assert list(spill.iterdir()) == []
    # Without --layered, a short search in memory comes first, and settles a job as
    # small as this one: the kept proof, which nothing would go on from, is removed.
    solve(11982, spill_dir=spill, layered=True, max_nodes=int(third))
    assert len(kept_proofs(spill)) == 1
    settled = solve(11982, spill_dir=spill)
    assert settled.status == "unsolvable" and kept_proofs(spill) == []


def test_a_sweep_drops_the_kept_proof_of_a_job_that_a_proof_with_more_cells_settles(tmp_path, run_cli):
    """11982 with 3 cells, its layered proof stopped and kept; then a sweep at 3 and 4
    cells proves 4 cells lost, which settles 3 cells without a search: the kept proof,
    which nothing would ever go on from, is removed with it."""
    spill = tmp_path / "spill"
    spill.mkdir()
    stopped = solve(11982, cells=3, spill_dir=spill, layered=True, max_nodes=1000)
    assert stopped.kept and len(kept_proofs(spill)) == 1
    out = tmp_path / "out"
    result = run_cli("sweep", "--deals", "11982", "--cells", "3-4", "--out", out, "--spill-dir", spill, "--layered")
    assert result.exit_code == 0, result.output
    rows = {r["cells"]: r for r in pq.read_table(out).to_pylist()}
    assert rows[4]["status"] == rows[3]["status"] == "unsolvable"
    assert rows[3]["implied_by"] == 4 and rows[3]["nodes"] is None
    assert list(spill.iterdir()) == []


def test_layered_proofs_leave_their_disk_a_floor_of_free_space_whoever_fills_it(tmp_path, monkeypatch, run_cli):
    """Proofs side by side, and proofs kept from earlier jobs, share one disk: each
    stops (limit "disk") before the free space there falls below a floor set once for
    a whole sweep, half of what was free (1 GiB with --max-disk). A floor above what the
    disk has free stops a proof at its first write; kept, it goes on once there is room."""
    spill = tmp_path / "spill"
    spill.mkdir()
    free = shutil.disk_usage(spill).free
    budgets = Budgets(spill_dir=spill)
    assert budgets.keep_free is not None and abs(budgets.keep_free - free // 2) < free // 100
    assert f",keep_free={budgets.keep_free},spill_dir=" in budgets.text()
    assert Budgets(spill_dir=spill, max_disk="5G").keep_free == min(1 << 30, budgets.keep_free)
    for bad in (-1, 1.5, "1G", True):
        with pytest.raises(FcanalyzeError, match="keep_free must be a number of bytes"):
            Budgets(spill_dir=spill, keep_free=bad)
    crowded = Budgets(spill_dir=spill, layered=True, keep_free=4 * free)
    stopped = solve_within(11982, Variant(), crowded)
    assert (stopped.status, stopped.limit, stopped.kept) == ("unknown", "disk", True)
    assert stopped.peak_disk < 1 << 20
    # A sweep's jobs get the floor its budgets were made with (here, as if the disk were
    # full), and the command says what to do.
    out = tmp_path / "out"
    monkeypatch.setattr("fcanalyze.solving.budgets.default_keep_free", lambda spill_dir, max_disk_given: 4 * free)
    args = ("sweep", "--deals", "11982", "--cells", "4", "--out", out, "--spill-dir", spill, "--layered")
    full = run_cli(*args)
    assert full.exit_code == 0, full.output
    rows = pq.read_table(out).to_pylist()
    assert [(r["status"], r["limit"]) for r in rows] == [("unknown", "disk")]
    assert all(f",keep_free={4 * free}," in r["budgets"] for r in rows)
    message = run_cli("solve", "11982", "--spill-dir", spill, "--layered")
    assert message.exit_code == 3 and "less free space than it must keep" in message.stdout
    monkeypatch.undo()
    again = run_cli(*args, "--retry-unknown")
    assert again.exit_code == 0, again.output
    rows = pq.read_table(out).to_pylist()
    assert [r["status"] for r in rows] == ["unsolvable"]
    assert list(spill.iterdir()) == []


@pytest.mark.parametrize(
    "args,message",
    [
        (["solve", "1", "--layered"], "--layered needs --spill-dir"),
        (["solve", "1", "--spill-dir", "/no/such/dir"], "--spill-dir '/no/such/dir' is not a directory"),
        (["solve", "1", "--max-disk", "5G"], "--max-disk needs --spill-dir"),
        (["solve", "1", "--spill-dir", ".", "--max-disk", "5Q"], "bad memory size '5Q'"),
        (["solve", "1", "--spill-dir", ".", "--max-disk", "0"], "disk budget must be 1M..1P"),
        (["solve"], "give a deal number N or --board FILE"),
        (["solve", "0"], "deal number 0 is out of range"),
        (["solve", "1", "--max-memory", "lots"], "bad memory size 'lots'"),
        (["solve", "1", "--max-seconds", "-1"], "give seconds above 0 and at most 10,000,000, or 0 for no limit"),
    ],
)
def test_solve_cli_errors(run_cli, args, message):
    result = run_cli(*args)
    assert result.exit_code == 2 and message in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_deep_win_the_exhaustive_search_cannot_reach_is_found_by_best_first():
    """Deal 13599 with 1 cell: the exhaustive pass had stored 518 million positions
    without reaching a win. Best-first finds one within a few million positions: once
    the job passed 40 million nodes when it woke only for the hard jobs (about 40 s),
    and since its 1-cell burst from half a million nodes, at 4.0 million (about 3 s).
    The published count has it won."""
    result = solve(13599, cells=1)
    assert result.status == "solved" and result.moves is not None
    assert result.nodes <= 10_000_000


@pytest.mark.parametrize("budget", ["64M", "300M"])
def test_max_memory_bounds_the_whole_process_as_the_os_counts_it(budget):
    """Deal 982 with 2 cells fills any memory budget in seconds; the process that runs it,
    Python and the shipped table's lookup after its unknown verdict included, stays
    within --max-memory (once it held the engine's budget and Python's own besides)."""
    peak, out = peak_rss_of("solve", "982", "--cells", "2", "--max-memory", budget, "--max-seconds", "60")
    assert "UNKNOWN (limit: memory)" in out and "fcanalyze lookup 982" in out
    assert peak <= fcanalyze.solving.budgets.parse_memory(budget), f"{peak / 2**20:.0f} MiB"


def test_a_memory_budget_the_process_already_exceeds_is_refused(run_cli):
    result = run_cli("solve", "1", "--max-memory", "2M")
    assert result.exit_code == 2 and "leaves the search nothing: the process already holds" in result.output


def test_solve_json_stays_strict_json_when_a_time_is_not_a_number(run_cli, monkeypatch):
    """A kept proof's checkpoint once gave NaN for its earlier runs' time: --json must
    still print JSON (null there), not Python's bare NaN, which JSON parsers refuse."""
    import dataclasses

    import fcanalyze.cli.solve

    real = fcanalyze.cli.solve.solve_job

    def odd_times(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), seconds=float("inf"), resumed_seconds=float("nan"))

    monkeypatch.setattr(fcanalyze.cli.solve, "solve_job", odd_times)

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    result = run_cli("solve", "617", "--json")
    assert result.exit_code == 0
    printed = json.loads(result.stdout, parse_constant=refuse)
    assert printed["status"] == "solved" and printed["seconds"] is None and printed["resumed_seconds"] is None
    assert printed["moves"] == len(printed["solution"])
    text = run_cli("solve", "617")
    assert "its earlier runs took a time its checkpoint does not say" in text.stdout


def test_shortest_gives_a_shorter_line_the_referee_replays_and_says_whether_it_is_proved(run_cli):
    """--shortest: deal 1's line has fewer moves not to a foundation than the plain
    search's, the referee replays it, and the result says whether it is proved
    shortest; counts agree between solve and the referee."""
    plain = solve(1)
    short = solve(1, shortest=True)
    assert plain.shortest_proved is None and plain.shortest_limit is None
    assert short.status == "solved" and short.shortest_proved is not None
    assert short.non_foundation_moves < plain.non_foundation_moves
    verdict = replay(microsoft_deal(1), Variant.parse("freecell"), short.solution)
    assert verdict.won and verdict.non_foundation_moves == short.non_foundation_moves
    assert short.moves - short.non_foundation_moves == 52  # every card home once
    shown = run_cli("solve", "1", "--shortest")
    assert shown.exit_code == 0
    assert f"moves: {short.moves}, {short.non_foundation_moves} of them not to a foundation" in shown.stdout
    assert "shortest: " in shown.stdout


def test_a_line_proved_shortest_is_proved_again_from_itself_and_the_cli_says_so(run_cli):
    """Deal 3 with 4 cells is proved shortest by --shortest (18 moves not to a
    foundation); the search given that line as its start proves the same count again."""
    short = solve(3, shortest=True)
    assert short.shortest_proved is True and short.non_foundation_moves == 18
    again = fcanalyze.shortest_line(3, short.solution)
    assert again.shortest_proved is True and again.non_foundation_moves == 18
    shown = run_cli("solve", "3", "--shortest")
    assert "shortest: proved, no line wins in fewer than 18 moves not to a foundation" in shown.stdout


def test_shortest_line_refuses_a_line_that_does_not_win():
    with pytest.raises(FcanalyzeError, match="does not win"):
        fcanalyze.shortest_line(1, "3a")


def test_shortest_keeps_the_best_line_when_its_budget_runs_out():
    """A budget of positions that ends the search for the shortest line early: the job is
    still won, with a line no longer than the plain search's, and says which budget
    stopped it."""
    plain = solve(1)
    short = solve(1, shortest=True, max_nodes=plain.nodes + 3_000)
    assert short.status == "solved" and short.shortest_limit == "nodes" and short.shortest_proved is False
    assert short.non_foundation_moves <= plain.non_foundation_moves


def test_take_back_lines_get_a_proved_bound_and_are_proved_shortest_where_the_proof_reaches():
    # Deal 617 with 4 cells: every line of the classic rules is legal under take-back,
    # so take-back's optimum is at most the classic one, 34 (proved below); two million
    # positions prove 34 under take-back too. The default proof stops early, with a
    # bound under the line, and names its budget.
    classic = solve(617, shortest=True, shortest_nodes=2_000_000)
    assert classic.shortest_proved is True and classic.non_foundation_moves == 34
    few = solve(617, variant="freecell,takeback=yes", shortest=True)
    assert few.status == "solved" and few.shortest_proved is False and few.shortest_limit == "nodes"
    assert few.shortest_bound is not None and few.shortest_bound < few.non_foundation_moves
    many = solve(617, variant="freecell,takeback=yes", shortest=True, shortest_nodes=2_000_000)
    assert many.shortest_proved is True and many.shortest_limit is None
    assert many.shortest_bound == many.non_foundation_moves == 34
    assert few.shortest_bound <= many.shortest_bound


def test_more_shortest_nodes_prove_more_and_an_unproved_line_names_its_budget():
    # Deal 617's line of 34 moves not to a foundation: 1,000 positions cannot prove it
    # shortest, two million do.
    few = solve(617, shortest=True, shortest_nodes=1_000)
    assert few.shortest_proved is False and few.shortest_limit == "nodes"
    many = solve(617, shortest=True, shortest_nodes=2_000_000)
    assert many.shortest_proved is True and many.shortest_limit is None
    assert many.non_foundation_moves <= few.non_foundation_moves
    # The default proof stops at its own 10,000 positions, and says so.
    default = solve(617, shortest=True)
    assert default.shortest_proved is False and default.shortest_limit == "nodes"
    # Each leaves a proved lower bound, which more positions raise, up to the optimum
    # once proved: the interval [bound, line] always holds the optimum.
    optimum = many.non_foundation_moves
    assert few.shortest_bound <= default.shortest_bound < many.shortest_bound == optimum
    assert default.non_foundation_moves >= optimum


def test_the_shortest_lines_bound_is_shown_and_recorded(run_cli, tmp_path):
    """An unproved line's row carries its lower bound; solve prints the interval, and
    a --shortest sweep records it beside the line."""
    shown = run_cli("solve", "617", "--shortest")
    result = solve(617, shortest=True)
    assert f"and none wins in fewer than {result.shortest_bound})" in shown.stdout
    out = tmp_path / "ds"
    swept = run_cli("sweep", "--deals", "617,3", "--cells", "4", "--shortest", "--out", str(out), "--no-progress")
    assert swept.exit_code == 0, swept.output
    from fcanalyze.dataset.store import read_dataset

    rows = {r["deal"]: r for r in read_dataset(out).to_pylist()}
    assert rows[617]["shortest_bound"] == result.shortest_bound < rows[617]["non_foundation_moves"]
    assert rows[3]["shortest_proved"] and rows[3]["shortest_bound"] == rows[3]["non_foundation_moves"] == 18


def test_max_memory_bounds_the_whole_process_on_several_threads(tmp_path):
    # A layered proof on 2 threads once peaked at 109.5 MB under --max-memory 100M (on 1,
    # 94 MB): the driver's path and queue stayed beside the threads' shares, uncounted.
    spill = tmp_path / "spill"
    spill.mkdir(mode=0o700)
    peak, out = peak_rss_of(
        "solve", "26063", "--cells", "1", "--spill-dir", str(spill), "--layered", "--threads", "2",
        "--max-memory", "100M", "--max-seconds", "40",
    )  # fmt: skip
    assert "deal 26063" in out
    assert peak <= 100 << 20, f"{peak / 2**20:.1f} MiB"

"""What a new user meets first: plain help, messages that say what to do, the solve/verify round trip, an honest progress bar."""

from __future__ import annotations

import re
from typing import ClassVar

import tqdm
from conftest import HANG

import fcanalyze
from fcanalyze.cli.progress import ProgressBar
from fcanalyze.sweep import plan_sweep
from fcanalyze.sweep.estimate import JobCosts


def test_no_command_prints_the_plain_help(run_cli):
    result = run_cli()
    assert result.exit_code == 0 and result.stdout.startswith("Usage: ") and "Commands:" in result.stdout
    assert result.stderr == ""


def test_messages_about_files(run_cli, tmp_path):
    a_file = tmp_path / "afile"
    a_file.write_text("")
    result = run_cli("sweep", "--out", a_file)
    assert result.exit_code == 2 and "afile is a file; a dataset is a directory" in result.stderr
    from fcanalyze.tables.shipped import table_path

    result = run_cli("export", table_path(), tmp_path / "no" / "dir" / "x.csv")
    assert result.exit_code == 2 and "the directory" in result.stderr and "does not exist" in result.stderr
    assert ".tmp" not in result.stderr
    empty = tmp_path / "empty.sol"
    empty.write_text("")
    result = run_cli("verify", "--deal", "1", empty)
    assert result.exit_code == 1 and "the solution has no moves, and 52 card(s) are not home" in result.stdout


def test_solve_writes_a_solution_that_verify_takes_back(run_cli, tmp_path):
    sol = tmp_path / "1c3.sol"
    solved = run_cli("solve", "1", "--cells", "3", "--solution-out", sol)
    assert solved.exit_code == 0 and f"solution written to {sol}" in solved.stdout
    # verify must count the written line as solve did: its moves, card moves and score.
    counts = re.search(
        r"moves: (\d+), (\d+) of them not to a foundation \((\d+) card moves with sequence moves played card by "
        r"card\), score (\d+)",
        solved.stdout,
    )
    assert counts, solved.stdout
    moves, off_home, single, score = counts.groups()
    verified = run_cli("verify", "--deal", "1", "--cells", "3", sol).stdout
    assert verified.startswith("deal 1 (freecell, 3 free cells): OK: wins in " + moves + " moves ("), verified
    assert f"), {off_home} of them not to a foundation; " in verified, verified
    assert verified.endswith(f"; {single} card moves with sequence moves played card by card; score {score}\n"), (
        verified
    )
    piped = run_cli("solve", "1", "--solution-out", "-")
    assert piped.exit_code == 0 and "SOLVED" not in piped.stdout
    assert run_cli("verify", "--deal", "1", "-", input=piped.stdout).exit_code == 0
    none = tmp_path / "617c3.sol"
    lost = run_cli("solve", "617", "--cells", "3", "--solution-out", none)
    assert lost.exit_code == 1 and not none.exists()


def test_a_sweep_with_unknown_jobs_says_how_to_retry_them(run_cli, tmp_path):
    out = tmp_path / "u"
    result = run_cli("sweep", "-d", "1-20", "-k", "2", "--max-nodes", "300", "-o", out, "--no-progress", "-j", "1")
    assert result.exit_code == 0
    retry = f"fcanalyze sweep --deals 1-20 --cells 2 --out {out} --workers 1 --retry-unknown --max-seconds 360"
    assert retry in result.stdout
    assert "'fcanalyze report" in result.stdout
    # With no --cells, the suggestion names the cell counts the sweep chose.
    out = tmp_path / "sh"
    result = run_cli("sweep", "-d", "1-20", "--variant", "seahaven", "--max-nodes", "300", "-o", out, "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"fcanalyze sweep --deals 1-20 --cells 4,3,2 --out {out} --variant seahaven --retry-unknown" in result.stdout


def test_a_sweep_whose_layered_proof_stops_keeps_it_and_its_retry_goes_on_from_it(run_cli, tmp_path):
    # 11982 with 4 cells, layered, stopped after 20,000 positions (its proof needs about
    # ten times that): the suggested retry keeps the spill directory, and goes on.
    out, spill = tmp_path / "l", tmp_path / "spill"
    spill.mkdir()
    args = ["sweep", "-d", "11982", "-k", "4", "-o", out, "--no-progress", "-j", "1", "--spill-dir", spill]
    result = run_cli(*args, "--layered", "--max-nodes", "20000")
    assert result.exit_code == 0, result.output
    retry = (
        f"fcanalyze sweep --deals 11982 --cells 4 --out {out} --workers 1 --spill-dir {spill} --layered --retry-unknown"
    )
    assert retry in result.stdout
    assert f"1 layered proof stopped by a budget is kept in {spill}" in result.stdout
    again = run_cli(*args, "--layered", "--retry-unknown")
    assert again.exit_code == 0 and "without a verdict" not in again.stdout
    assert list(spill.iterdir()) == []


def test_escalate_runs_the_undecided_jobs_again_with_doubling_budgets(run_cli, tmp_path):
    # Deal 144 with 1 cell is won after some 170,000 positions (about a fifth of a second):
    # no search wins it in 0.01 s, and the rounds double the budget until one does.
    out = tmp_path / "e"
    result = run_cli(
        "sweep", "-d", "144", "-k", "1", "--max-seconds", "0.01", "--escalate", "60", "-o", out, "--no-progress"
    )
    assert result.exit_code == 0, result.output
    rounds = result.stdout.count("Escalating: the jobs without a verdict run again with ")
    assert "run again with 0.02 s each (up to 60)" in result.stdout and 2 <= rounds < 13
    assert "without a verdict (a budget ran out" not in result.stdout
    from fcanalyze.dataset.store import read_dataset

    rows = read_dataset(out).to_pandas()
    assert len(rows) == 1 and rows.status[0] == "solved" and rows.verified[0]
    # The row says what budget decided it: the last round's.
    assert f"max_seconds={0.01 * 2**rounds:g}" in rows.budgets[0]


class _Bar:
    """Stands in for tqdm, keeping what the sweep told it."""

    made: ClassVar[list] = []

    def __init__(self, total, **kwargs):
        self.total, self.n, self.postfix = total, 0, None
        _Bar.made.append(self)

    def update(self, n):
        self.n += n

    def set_postfix(self, postfix, refresh=False):
        self.postfix = dict(postfix)

    closed = False

    def close(self):
        self.closed = True


def test_progress_is_weighed_by_cost_and_its_last_tally_is_exact(tmp_path):
    tallies = []
    plan = plan_sweep("1-40", "0-4", tmp_path / "p", workers=2, progress=lambda t, final: tallies.append((t, final)))
    try:
        total = plan.estimate().cost
        summary = plan.run()
    finally:
        plan.close()
    first, (last, final) = tallies[0][0], tallies[-1]
    assert (first.done, first.total, first.ran, first.to_run) == (0, total, 0, 200)
    assert final and [f for _, f in tallies].count(True) == 1
    assert (last.done, last.total, last.ran) == (total, total, 200)
    assert [t.done for t, _ in tallies] == sorted(t.done for t, _ in tallies)
    counts = {s: sum(c[s] for c in summary.by_cells.values()) for s in ("solved", "unsolvable", "unknown")}
    assert {s: n for s, n in last.counts.items() if n} == {s: n for s, n in counts.items() if n}
    # Each job weighs its expected time: a 1-cell job of these deals weighs many times a
    # 4-cell one, so half the jobs done is not half the time.
    costs = JobCosts("freecell", None)
    assert sum(costs(d, 1) for d in range(1, 41)) > 10 * sum(costs(d, 4) for d in range(1, 41))


def test_the_progress_bar_ends_exact(tmp_path, monkeypatch):
    monkeypatch.setattr(tqdm, "tqdm", _Bar)
    plan = plan_sweep("1-40", "4,1", tmp_path / "p", workers=2, progress=ProgressBar())
    try:
        summary = plan.run()
    finally:
        plan.close()
    bar = _Bar.made[-1]
    assert bar.total == plan.estimate().cost == bar.n and bar.closed
    counts = {s: sum(c[s] for c in summary.by_cells.values()) for s in ("solved", "unsolvable", "unknown")}
    assert bar.postfix == {"jobs": "80/80", **{s: f"{n:,}" for s, n in counts.items()}}


def test_boards_print_as_their_layout_and_solve_documents_itself(run_cli):
    assert str(fcanalyze.microsoft_deal(617)) == run_cli("deal", "617").stdout
    doc = fcanalyze.solve.__doc__
    for needed in ("status", "limit", "solution", "peak_memory", "bakers-game", "FcanalyzeError", "EngineError"):
        assert needed in doc


def test_the_command_line_starts_without_the_heavy_libraries():
    # `fcanalyze --help`, `solve` and `verify` answer at once: pyarrow, pandas and
    # matplotlib come in only with the commands that read or write datasets.
    import subprocess
    import sys

    code = "import sys, fcanalyze.cli.main; print(sorted({m.split('.')[0] for m in sys.modules} & {'pyarrow', 'pandas', 'matplotlib', 'dask'}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_tour_runs_no_job_of_billions_and_spills_where_the_user_says():
    """The tour's hard sweep once listed 982, whose 2-cell proof takes 3.1 billion
    positions (over ten minutes, 6.5 GB); its spill demo used /tmp, shared with every
    user, and a memory budget the proof fit in. The tour's jobs are the shipped table's,
    so their size can be read there."""
    from pathlib import Path

    from fcanalyze.tables.shipped import lookup

    tour = (Path(__file__).parents[2] / "docs" / "tour.md").read_text()
    listed = re.search(r"printf '([0-9\\n]+)' > hard\.txt", tour)
    assert listed is not None
    deals = [int(d) for d in listed.group(1).split("\\n") if d]
    sweep_line = next(line for line in tour.splitlines() if "--deals @hard.txt" in line and "sweep" in line)
    cells = [int(k) for k in re.search(r"--cells ([0-9,]+)", sweep_line).group(1).split(",")]
    budget = float(re.search(r"--max-seconds ([0-9]+)", sweep_line).group(1))
    for deal in deals:
        for k in cells:
            verdict = lookup(deal).verdicts[k]
            # Some 1.3 million positions a second: every job ends well inside its budget.
            assert verdict.status in ("solved", "unsolvable") and (verdict.nodes or 0) < budget * 1_000_000, (deal, k)
    spills = re.findall(r"--spill-dir (\S+)", tour)
    assert spills and "/tmp" not in spills
    # The demo's proof outgrows its memory budget: 26063 with 1 cell stores some 24.7
    # million positions in 736 MiB in memory.
    assert all(int(m) <= 200 for m in re.findall(r"26063 --cells 1 --max-memory ([0-9]+)M", tour))

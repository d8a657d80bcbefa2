"""Reports built from real sweeps: the counts, the deals lost as cells go, the fewest cells, plots that decode."""

from __future__ import annotations

import dataclasses
import os

import matplotlib.image
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import crosscheck_verdicts, run_fcanalyze

from fcanalyze import report
from fcanalyze.outputs import percent
from fcanalyze.store import read_dataset
from fcanalyze.sweep import sweep

DEALS = range(1, 61)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return sweep(f"{DEALS.start}-{DEALS.stop - 1}", cells="4,2,1", out=tmp_path_factory.mktemp("r") / "ds", workers=2)


def test_summary_counts_match_the_exhaustive_verdicts(dataset):
    known = crosscheck_verdicts()
    table = report.summarize(dataset).set_index("cells")
    assert list(table.index) == [4, 2, 1]
    for cells in (2, 1):
        solved = sum(known[(d, cells)] == "solved" for d in DEALS)
        row = table.loc[cells]
        assert (row["jobs"], row["solved"], row["unsolvable"], row["unknown"]) == (60, solved, 60 - solved, 0)
        assert row["solvable_share"] == pytest.approx(solved / 60)
    assert table.loc[4, "solved"] == 60
    # Medians and maxima are those of the rows themselves.
    rows = read_dataset(dataset).to_pandas()
    won4 = rows[(rows["cells"] == 4) & (rows["status"] == "solved")]
    assert table.loc[4, "moves_median"] == won4["moves"].median()
    assert table.loc[4, "moves_max"] == won4["moves"].max()
    assert table.loc[1, "nodes_max"] == rows[rows["cells"] == 1]["nodes"].max()
    assert table.loc[2, "engine_seconds"] == pytest.approx(rows[rows["cells"] == 2]["seconds"].sum())


def test_transitions_list_exactly_the_deals_lost(dataset):
    known = crosscheck_verdicts()
    table, lost = report.transitions(dataset)
    steps = table.set_index(["from_cells", "to_cells"])
    lost_2_to_1 = sorted(d for d in DEALS if known[(d, 2)] == "solved" and known[(d, 1)] == "unsolvable")
    lost_4_to_2 = sorted(d for d in DEALS if known[(d, 2)] == "unsolvable")
    assert steps.loc[(2, 1), "lost_at_to"] == len(lost_2_to_1)
    assert steps.loc[(4, 2), "lost_at_to"] == len(lost_4_to_2)
    assert steps["anomalies"].sum() == 0
    assert sorted(lost[lost["won_with"] == 2]["deal"]) == lost_2_to_1
    assert sorted(lost[lost["won_with"] == 4]["deal"]) == lost_4_to_2


def test_fewest_cells_per_deal(dataset):
    known = crosscheck_verdicts()
    table = report.min_cells(dataset).set_index("deal")
    for d in DEALS:
        row = table.loc[d]
        if known[(d, 1)] == "solved":
            # Won with 1 cell; 0 was not run, so 1 is only an upper bound.
            assert (row["min_cells"], row["exact"]) == (1, False)
        elif known[(d, 2)] == "solved":
            assert (row["min_cells"], row["exact"]) == (2, True), d
        else:
            # Lost with 2 cells, won with 4; 3 was not run.
            assert (row["min_cells"], row["exact"]) == (4, False)
        assert row["cells_run"] == "4,2,1"


def test_hardest_deals_are_the_top_of_each_list(dataset):
    rows = read_dataset(dataset).to_pandas()
    top = report.hardest(dataset, n=3)
    for cells in (4, 2, 1):
        won = rows[(rows["cells"] == cells) & (rows["status"] == "solved")]
        by_nodes = top[(top["by"] == "nodes") & (top["cells"] == cells)]
        assert list(by_nodes["nodes"]) == sorted(won["nodes"], reverse=True)[:3]
        by_moves = top[(top["by"] == "moves") & (top["cells"] == cells)]
        assert list(by_moves["moves"]) == sorted(won["moves"], reverse=True)[:3]


def test_report_files_and_plots(dataset, tmp_path):
    out = tmp_path / "rep"
    done = run_fcanalyze("report", dataset, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "Deals won with more cells and lost with fewer" in done.stdout
    assert "!!!" not in done.stdout
    md = (out / "report.md").read_text()
    for png in ("solvable_share.png", "moves.png", "nodes.png", "min_cells.png"):
        assert f"]({png})" in md
        image = matplotlib.image.imread(out / png)
        assert image.shape[0] > 300 and image.shape[1] > 500
    for name in ("summary", "transitions", "lost_deals", "min_cells", "hardest"):
        assert (out / f"{name}.csv").stat().st_size > 0
        assert pq.read_table(out / f"{name}.parquet").num_rows > 0
    assert pq.read_table(out / "min_cells.parquet").num_rows == len(DEALS)
    # A table with no rows is no file: this classic sweep has no take-back rows, and a
    # file of that name left by an earlier report into the same place is removed.
    assert not (out / "takeback.csv").exists() and not (out / "takeback_gains.parquet").exists()
    (out / "takeback.csv").write_text("cells\n")
    assert run_fcanalyze("report", dataset, "--out", out).returncode == 0
    assert not (out / "takeback.csv").exists()


def test_a_wrong_verdict_is_flagged_loudly(dataset, tmp_path):
    # Turn one deal won with 2 cells into "unsolvable" at 4: fewer cells cannot help.
    table = read_dataset(dataset)
    frame = table.to_pandas()
    known = crosscheck_verdicts()
    deal = next(d for d in DEALS if known[(d, 2)] == "solved")
    frame.loc[(frame["deal"] == deal) & (frame["cells"] == 4), "status"] = "unsolvable"
    built = report.Report.build(frame)
    assert any("CONTRADICTION" in p for p in built.problems())
    assert "!!! CONTRADICTION" in built.terminal()


@pytest.mark.slow
def test_published_counts_are_compared_when_all_classic_deals_are_there(tmp_path):
    # A fresh sweep of all 32,000 deals (about 20 s on 2 cores); the default suite
    # checks the comparison on the shipped table instead.
    out = sweep("1-32000", cells=4, out=tmp_path / "classic", workers=2, max_seconds=None)
    built = report.Report.build(out)
    row = built.published.iloc[0]
    assert (row["cells"], row["measured_winnable"], row["measured_unwinnable"], row["agrees"]) == (4, 31999, 1, "yes")
    assert built.problems() == []
    # One wrong verdict must be impossible to miss.
    frame = built.data.copy()
    frame.loc[frame["deal"] == 617, "status"] = "unsolvable"
    wrong = report.Report.build(frame)
    assert any(p.startswith("MISMATCH with published counts at 4 cells") for p in wrong.problems())
    assert "> **Warning.** MISMATCH" in wrong.markdown("x", [])


def test_missing_empty_or_foreign_datasets_are_one_line_errors(tmp_path, run_cli):
    empty = tmp_path / "empty"
    empty.mkdir()
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    pq.write_table(pa.table({"x": [1, 2]}), foreign / "part-0.parquet")
    for path, message in [
        (tmp_path / "nope", "does not exist"),
        (empty, "holds no fcanalyze dataset"),
        (foreign, "not a fcanalyze dataset part"),
    ]:
        result = run_cli("report", path)
        assert result.exit_code == 2, result.output
        assert result.output.startswith("Error:") and message in result.output
        assert len(result.output.strip().splitlines()) == 1


def test_an_out_that_cannot_be_written_fails_before_the_report_is_built(dataset, tmp_path, run_cli):
    """A bad --out is one line and exit 2 at once: no report printed, then refused."""
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    read_only = tmp_path / "read-only"
    read_only.mkdir(mode=0o555)
    for out, message in [(a_file, "exists and is not a directory"), (a_file / "sub", "cannot write to")]:
        result = run_cli("report", dataset, "--out", out)
        assert result.exit_code == 2, result.output
        assert result.output.startswith("Error:") and message in result.output
        assert len(result.output.strip().splitlines()) == 1
    if os.geteuid() != 0:  # root may write anywhere
        result = run_cli("report", dataset, "--out", read_only / "r")
        assert result.exit_code == 2 and "cannot write to" in result.output


@pytest.fixture(scope="module")
def shipped_report():
    """The report of the shipped table, built once (160,000 rows take a while)."""
    from fcanalyze.table import table_path

    return report.Report.build(report.load(str(table_path())), top=2)


def test_the_terminal_report_of_the_shipped_table_fits_100_columns_and_follows_top(shipped_report):
    two = shipped_report.terminal()
    five = dataclasses.replace(shipped_report, hardest=report.hardest(shipped_report.data, 5), top=5).terminal()
    assert max(len(line) for line in five.splitlines()) <= 100
    assert "99.997%" in two and "100.00%" not in two  # 31,999 of 32,000 is not all
    assert "Hardest solved deals by solution length" in two
    assert len(five.splitlines()) - len(two.splitlines()) == 2 * 5 * 3  # 2 lists x 5 cell counts x 3 more
    # The undecided list is exactly the table's unknown jobs: none, since 982 with 2
    # cells was proved lost.
    undecided = shipped_report.undecided
    unknown = shipped_report.data[shipped_report.data["status"] == "unknown"]
    assert sorted(zip(undecided["deal"], undecided["cells"])) == sorted(zip(unknown["deal"], unknown["cells"]))
    assert len(undecided) == 0
    # Scores per cell count, the app's: every solution scores at least 520 (52 cards home).
    assert "Scores of the solved deals" in two
    assert (shipped_report.summary["score_median"] >= 520).all()
    assert "Undecided jobs" not in two
    # Every count is the published one.
    assert list(shipped_report.published["agrees"]) == ["yes", "yes", "yes", "yes", "yes"]
    assert "MISMATCH" not in two and "not won" in two and "none run" not in two
    hardest = shipped_report.hardest
    assert str(hardest["moves"].dtype) == "Int64" and str(hardest["nodes"].dtype) == "Int64"


def test_a_real_mismatch_is_still_flagged(shipped_report):
    shipped = shipped_report.data.copy()
    wrong = shipped.index[(shipped["cells"] == 3) & (shipped["status"] == "unsolvable")][:1]
    shipped.loc[wrong, "status"] = "solved"
    built = dataclasses.replace(shipped_report, published=report.published_comparison(shipped))
    assert list(built.published["agrees"])[3] == "NO"
    assert any("MISMATCH with published counts at 3 cells" in p for p in built.problems())


def test_percentages_never_round_to_all_or_nothing():
    assert [percent(x) for x in (1.0, 0.0, 0.5, 31999 / 32000, 1 / 32000, 0.99996, float("nan"))] == [
        "100.00%",
        "0.00%",
        "50.00%",
        "99.997%",
        "0.003%",
        "99.996%",
        "-",
    ]


def test_the_fewest_cells_a_reserve_game_can_be_played_with_is_exact():
    # Seahaven deals 2 cards into the cells, so a win with 2 is its fewest; FreeCell's
    # win with 2 is only an upper bound until 1 cell is run.
    frame = pd.DataFrame(
        {
            "variant": ["seahaven", "seahaven", "freecell", "freecell"],
            "deal": [1, 1, 1, 1],
            "cells": [4, 2, 4, 2],
            "status": ["solved", "solved", "solved", "solved"],
        }
    )
    fewest = report.min_cells(frame).set_index("variant")
    assert fewest.loc["seahaven", "min_cells"] == 2 and bool(fewest.loc["seahaven", "exact"])
    assert fewest.loc["freecell", "min_cells"] == 2 and not bool(fewest.loc["freecell", "exact"])


@pytest.fixture(scope="module")
def takeback_sweep(tmp_path_factory):
    """Deals 85..95 with 1 and 2 cells under take-back: deal 90 is won with 1 cell only so."""
    out = tmp_path_factory.mktemp("tb") / "ds"
    return sweep("85-95", cells="2,1", variant="freecell,takeback=yes", out=out, workers=2)


def test_takeback_is_set_beside_the_classic_table(takeback_sweep, tmp_path):
    from fcanalyze.table import table_path

    out = tmp_path / "rep"
    done = run_fcanalyze("report", table_path(), takeback_sweep, "--out", out)
    assert done.returncode == 0, done.stderr
    assert "Take-back against the same rules without it" in done.stdout and "!!!" not in done.stdout
    table = pd.read_csv(out / "takeback.csv").set_index("cells")
    classic = pd.read_parquet(table_path())
    for cells in (2, 1):
        lost = classic[(classic["cells"] == cells) & classic["deal"].between(85, 95)]
        row = table.loc[cells]
        assert row["variant"] == "freecell,takeback=yes" and row["decided_both_ways"] == 11
        assert row["won_without"] == (lost["status"] == "solved").sum()
        assert row["anomalies"] == 0
    gains = pd.read_csv(out / "takeback_gains.csv")
    assert 90 in set(gains[gains["cells"] == 1]["deal"])
    assert table.loc[1, "won_only_with_takeback"] == len(gains[gains["cells"] == 1])
    assert "](takeback.png)" in (out / "report.md").read_text()
    assert matplotlib.image.imread(out / "takeback.png").shape[0] > 300


def test_takeback_losing_a_classic_win_is_flagged(takeback_sweep):
    from fcanalyze.table import table_path

    frame = report.load([table_path(), takeback_sweep])
    # Deal 85 is won with 2 cells under the classic rules: losing it with take-back is wrong.
    wrong = frame["variant"].eq("freecell,takeback=yes") & frame["deal"].eq(85) & frame["cells"].eq(2)
    assert frame[(frame["variant"] == "freecell") & (frame["deal"] == 85) & (frame["cells"] == 2)]["status"].item() == (
        "solved"
    )
    frame.loc[wrong, "status"] = "unsolvable"
    problems = report.Report.build(frame).problems()
    assert any(p.startswith("CONTRADICTION: 1 deal(s) won without take-back but lost with it") for p in problems)


def test_the_same_job_in_two_datasets_is_refused(dataset, run_cli):
    result = run_cli("report", dataset, dataset)
    assert result.exit_code == 2
    assert "is in more than one of" in result.output and len(result.output.strip().splitlines()) == 1


def test_the_tail_script_sets_the_slowest_jobs_beside_the_same_jobs_of_another_sweep(dataset, tmp_path):
    """scripts/sweep_tail.py --before: the slowest jobs of either sweep, each beside the
    same job's row in the other, with the verdicts and figures the rows hold."""
    import subprocess
    import sys
    from pathlib import Path

    # The other sweep: the same jobs of deals 1..20 with 1 cell, searched again.
    again = sweep("1-20", cells="1", out=tmp_path / "again", workers=1)
    script = Path(__file__).parents[1] / "scripts" / "sweep_tail.py"
    out = subprocess.run(
        [sys.executable, str(script), str(dataset), "--before", str(again), "--top", "5"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = [line for line in out.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert 5 <= len(lines) <= 10
    now = read_dataset(dataset).to_pandas().set_index(["deal", "cells"])
    before = read_dataset(again).to_pandas().set_index(["deal", "cells"])
    slowest = now["seconds"].nlargest(5).index
    listed = []
    for line in lines:
        deal, cells, before_verdict, *rest = [c.strip() for c in line.strip("|").split("|")]
        key = (int(deal), int(cells))
        listed.append(key)
        now_verdict = rest[4]
        assert now_verdict.split()[0] == now.loc[key, "status"]
        if key in before.index:
            assert before_verdict.split()[0] == before.loc[key, "status"]
            # A job decided in both sweeps gets the same verdict.
            assert before_verdict == now_verdict or "unknown" in before_verdict + now_verdict
        else:
            assert before_verdict == "-"
    assert set(slowest) <= set(listed)

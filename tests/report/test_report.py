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

from fcanalyze.dataset.store import read_dataset
from fcanalyze.outputs import percent
from fcanalyze.report import analysis
from fcanalyze.report.document import Report
from fcanalyze.sweep import sweep

DEALS = range(1, 61)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    return sweep(f"{DEALS.start}-{DEALS.stop - 1}", cells="4,2,1", out=tmp_path_factory.mktemp("r") / "ds", workers=2)


def test_summary_counts_match_the_exhaustive_verdicts(dataset):
    known = crosscheck_verdicts()
    table = analysis.summarize(dataset).set_index("cells")
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
    assert table.loc[2, "engine_seconds"] == pytest.approx(rows[rows["cells"] == 2]["seconds"].sum())
    assert table.loc[1, "implied"] == rows[rows["cells"] == 1]["implied_by"].notna().sum() > 0


def test_effort_is_per_outcome_over_the_searched_rows(dataset):
    """Nodes and time of wins and of proofs of loss apart, each over the rows a search
    decided: one median over both mixed first moves with exhaustive proofs, and left
    out the rows a proof with more cells settled."""
    rows = read_dataset(dataset).to_pandas()
    effort = analysis.effort(dataset).set_index(["cells", "outcome"])
    assert list(effort.index) == [(4, "solved"), (2, "solved"), (2, "unsolvable"), (1, "solved"), (1, "unsolvable")]
    for (cells, outcome), row in effort.iterrows():
        mine = rows[(rows["cells"] == cells) & (rows["status"] == outcome)]
        searched = mine[mine["implied_by"].isna()]
        assert (row["jobs"], row["searched"], row["implied"]) == (len(mine), len(searched), len(mine) - len(searched))
        assert row["nodes_median"] == searched["nodes"].median()
        assert row["nodes_p90"] == pytest.approx(searched["nodes"].quantile(0.9))
        assert row["nodes_max"] == searched["nodes"].max()
        assert row["seconds_median"] == pytest.approx(searched["seconds"].median())
        assert row["seconds_total"] == pytest.approx(searched["seconds"].sum())
    # With 1 cell some lost deals were settled by their proof with 2 cells: no search, no nodes.
    assert effort.loc[(1, "unsolvable"), "implied"] > 0


def test_the_same_deal_is_compared_across_cell_counts(dataset):
    rows = read_dataset(dataset).to_pandas().set_index(["deal", "cells"])
    table = analysis.paired(dataset).set_index(["from_cells", "to_cells", "from_status", "to_status"])
    assert sorted(table.index) == sorted(
        [(4, 2, "solved", "solved"), (4, 2, "solved", "unsolvable"), (2, 1, "solved", "solved"),
         (2, 1, "solved", "unsolvable")]
    )  # fmt: skip
    won_both = [d for d in DEALS if rows.loc[(d, 2), "status"] == rows.loc[(d, 1), "status"] == "solved"]
    nodes = pd.Series([rows.loc[(d, 1), "nodes"] / rows.loc[(d, 2), "nodes"] for d in won_both])
    moves = pd.Series([rows.loc[(d, 1), "moves"] / rows.loc[(d, 2), "moves"] for d in won_both])
    row = table.loc[(2, 1, "solved", "solved")]
    assert row["deals"] == len(won_both) > 0
    assert row["nodes_ratio_median"] == pytest.approx(nodes.median())
    assert row["nodes_ratio_p90"] == pytest.approx(nodes.quantile(0.9))
    assert row["harder_share"] == pytest.approx((nodes > 1).mean())
    assert row["moves_ratio_median"] == pytest.approx(moves.median())
    assert row["longer_share"] == pytest.approx((moves > 1).mean())
    # Won with 2 cells and lost with 1: only deals whose 1-cell job was searched count
    # (a proof with 2 cells settles none of them; they were won there).
    lost = [d for d in DEALS if rows.loc[(d, 2), "status"] == "solved" and rows.loc[(d, 1), "status"] == "unsolvable"]
    assert table.loc[(2, 1, "solved", "unsolvable"), "deals"] == len(lost)
    assert pd.isna(table.loc[(2, 1, "solved", "unsolvable"), "moves_ratio_median"])


def test_transitions_list_exactly_the_deals_lost(dataset):
    known = crosscheck_verdicts()
    table, lost = analysis.transitions(dataset)
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
    table = analysis.min_cells(dataset).set_index("deal")
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
    top = analysis.hardest(dataset, n=3)
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
    built = Report.build(frame)
    assert any("CONTRADICTION" in p for p in built.problems())
    assert "!!! CONTRADICTION" in built.terminal()


@pytest.mark.slow
def test_published_counts_are_compared_when_all_classic_deals_are_there(tmp_path):
    # A fresh sweep of all 32,000 deals (about 20 s on 2 cores); the default suite
    # checks the comparison on the shipped table instead.
    out = sweep("1-32000", cells=4, out=tmp_path / "classic", workers=2, max_seconds=None)
    built = Report.build(out)
    row = built.published.iloc[0]
    assert (row["cells"], row["measured_winnable"], row["measured_unwinnable"], row["agrees"]) == (4, 31999, 1, "yes")
    assert built.problems() == []
    # One wrong verdict must be impossible to miss.
    frame = built.data.copy()
    frame.loc[frame["deal"] == 617, "status"] = "unsolvable"
    wrong = Report.build(frame)
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
    from fcanalyze.tables.shipped import table_path

    return Report.build(analysis.load(str(table_path())), top=2)


def test_the_terminal_report_of_the_shipped_table_fits_100_columns_and_follows_top(shipped_report):
    two = shipped_report.terminal()
    five = dataclasses.replace(shipped_report, hardest=analysis.hardest(shipped_report.data, 5), top=5).terminal()
    assert max(len(line) for line in five.splitlines()) <= 100
    verdicts = two.split("\n\n")[0]
    assert "99.997%" in verdicts and "100.00%" not in verdicts  # 31,999 of 32,000 is not all
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
    built = dataclasses.replace(shipped_report, published=analysis.published_comparison(shipped))
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
    fewest = analysis.min_cells(frame).set_index("variant")
    assert fewest.loc["seahaven", "min_cells"] == 2 and bool(fewest.loc["seahaven", "exact"])
    assert fewest.loc["freecell", "min_cells"] == 2 and not bool(fewest.loc["freecell", "exact"])


@pytest.fixture(scope="module")
def takeback_sweep(tmp_path_factory):
    """Deals 85..95 with 1 and 2 cells under take-back: deal 90 is won with 1 cell only so."""
    out = tmp_path_factory.mktemp("tb") / "ds"
    return sweep("85-95", cells="2,1", variant="freecell,takeback=yes", out=out, workers=2)


def test_takeback_is_set_beside_the_classic_table(takeback_sweep, tmp_path):
    from fcanalyze.tables.shipped import table_path

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
    from fcanalyze.tables.shipped import table_path

    frame = analysis.load([table_path(), takeback_sweep])
    # Deal 85 is won with 2 cells under the classic rules: losing it with take-back is wrong.
    wrong = frame["variant"].eq("freecell,takeback=yes") & frame["deal"].eq(85) & frame["cells"].eq(2)
    assert frame[(frame["variant"] == "freecell") & (frame["deal"] == 85) & (frame["cells"] == 2)]["status"].item() == (
        "solved"
    )
    frame.loc[wrong, "status"] = "unsolvable"
    problems = Report.build(frame).problems()
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
    script = Path(__file__).parents[2] / "scripts" / "sweep_tail.py"
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


def test_plots_keep_titles_labels_legends_and_ticks_clear_of_each_other(takeback_sweep):
    """Two variants side by side, as `report data/microsoft-32000.parquet TAKEBACK` draws
    them: every text inside the image, no legend over a plot, no two labels over each
    other, each variant its own colour, and every power of ten on a log axis."""
    import matplotlib.pyplot
    from matplotlib.text import Text

    from fcanalyze.report import plots
    from fcanalyze.tables.shipped import table_path

    built = Report.build([table_path(), takeback_sweep])
    drawn = plots.figures(built)
    # The take-back sweep counts its moves not to a foundation, so its lines have a plot.
    assert list(drawn) == ["solvable_share.png", "moves.png", "shortest.png", "nodes.png", "nodes_ecdf.png",
                           "min_cells.png", "takeback.png"]  # fmt: skip
    for name, fig in drawn.items():
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        whole = fig.bbox
        texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
        # A tick's label outside the axis's range is kept but never drawn.
        hidden = set()
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                low, high = sorted(axis.get_view_interval())
                for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                    if not low <= tick.get_loc() <= high:
                        hidden.update((id(tick.label1), id(tick.label2)))
        for text in (t for t in texts if id(t) not in hidden):
            box = text.get_window_extent(renderer)
            assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1, (name, text.get_text())
            assert whole.y0 - 1 <= box.y0 and box.y1 <= whole.y1 + 1, (name, text.get_text())
        legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
        for legend in legends:
            for ax in fig.axes:
                assert not legend.get_window_extent(renderer).overlaps(ax.get_window_extent(renderer)), name
        for ax in fig.axes:
            labels = [t.get_window_extent(renderer) for t in ax.texts if t.get_text()]
            for i, a in enumerate(labels):
                assert not any(a.overlaps(b) for b in labels[i + 1 :]), (name, ax.texts[i].get_text())
        matplotlib.pyplot.close(fig)
    # The variants apart by colour, in every panel of nodes.png.
    nodes = plots.nodes(built)
    for ax in nodes.axes:
        assert len({tuple(patch.get_facecolor()) for patch in ax.patches}) == 2
    # 982 with 2 cells took 3.04 billion positions: 10^9 is labelled.
    lost = nodes.axes[1]
    low, high = lost.get_ylim()
    assert 1e9 in [t for t in lost.get_yticks() if low <= t <= high]
    matplotlib.pyplot.close(nodes)
    # Solutions off the clipped axis are counted under it, not over the boxes.
    moves = plots.moves(built)
    assert "off the plot; the longest is 259" in moves.axes[0].get_xlabel() and not moves.axes[0].texts
    matplotlib.pyplot.close(moves)


def test_report_tables_keep_their_types_and_the_dataset_reads_as_integers(dataset, tmp_path):
    """A count stays a number in every table report --out writes (min_cells_distribution
    held its counts as text: deals_exact.sum() was the string '023920'), and the dataset
    read into pandas keeps its whole numbers whole, nulls and all."""
    out = tmp_path / "rep"
    assert run_fcanalyze("report", dataset, "--out", out).returncode == 0
    distribution = pq.read_table(out / "min_cells_distribution.parquet")
    assert [str(t) for t in distribution.schema.types] == ["large_string", "int64", "int64", "int64"]
    frame = pd.read_parquet(out / "min_cells_distribution.parquet")
    assert frame["deals_exact"].sum() + frame["deals_upper_bound"].sum() == len(DEALS)
    for file in out.glob("*.parquet"):
        table = pq.read_table(file)
        for name, kind in zip(table.column_names, table.schema.types):
            if pa.types.is_string(kind) or pa.types.is_large_string(kind):
                values = [v for v in table[name].to_pylist() if v is not None]
                assert not values or not all(v.lstrip("-").isdigit() for v in values), (file.name, name)
                assert "None" not in values and "<NA>" not in values, (file.name, name)
    # The library's reader and the documented pandas call give nullable integers.
    from fcanalyze.dataset.store import read_frame

    for rows in (read_frame(dataset), pd.read_parquet(dataset, dtype_backend="numpy_nullable")):
        assert str(rows["moves"].dtype) == "Int32" and str(rows["implied_by"].dtype) == "Int8"
        assert str(rows["nodes"].dtype) == "Int64" and rows["moves"].isna().any()
        won = rows[rows["status"] == "solved"]
        assert won["moves"].notna().all() and int(won["moves"].max()) == won["moves"].max()


def test_report_picks_cell_counts_and_deals_as_sweep_names_them(dataset, run_cli, tmp_path):
    picked = run_cli("report", dataset, "--cells", "4,2", "--deals", "1-10,55", "--out", tmp_path / "rep")
    assert picked.exit_code == 0, picked.output
    summary = pd.read_csv(tmp_path / "rep" / "summary.csv")
    assert list(summary["cells"]) == [4, 2] and list(summary["jobs"]) == [11, 11]
    fewest = pd.read_csv(tmp_path / "rep" / "min_cells.csv")
    assert sorted(fewest["deal"]) == [*range(1, 11), 55]
    for args, message in [
        (["--cells", "9"], "cell count 9 is out of range"),
        (["--cells", "x"], "bad cell count 'x'"),
        (["--deals", "5-1"], "bad deal range '5-1': it runs backwards"),
        (["--deals", "61-70"], "no rows of the dataset have the cell counts and deals asked for"),
    ]:
        refused = run_cli("report", dataset, *args)
        assert refused.exit_code == 2, refused.output
        assert refused.stderr.startswith("Error: ") and message in refused.stderr
        assert len(refused.stderr.splitlines()) == 1 and refused.stdout == ""


def test_undecided_jobs_are_in_report_md_and_point_to_the_shipped_table(tmp_path):
    """982 with 2 cells needs a proof of 3.1 billion positions: a retry with a sweep's
    budgets does not finish it, and the shipped table has it lost. Deal 32,001 is past
    the table: only a bigger budget can help it."""
    out = sweep("982,32001", cells=2, out=tmp_path / "ds", workers=1, max_nodes=1000)
    done = run_fcanalyze("report", out, "--out", tmp_path / "rep")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "The shipped table settles 1 of them (0 won, 1 lost" in text
    assert "see each with 'fcanalyze lookup 982'" in text
    assert "The other 1 may be decided with more of the budget that ran out" in text
    jobs = pd.read_csv(tmp_path / "rep" / "undecided.csv").set_index("deal")
    assert jobs.loc[982, "table_status"] == "unsolvable" and pd.isna(jobs.loc[32001, "table_status"])
    assert (jobs["limit"] == "nodes").all()
    md = (tmp_path / "rep" / "report.md").read_text()
    section = md.split("## Undecided jobs", 1)[1]
    assert "fcanalyze lookup 982" in section and "| freecell | 2 | 982 | unknown | nodes |" in section
    assert "| freecell | 2 | 32001 | unknown | nodes |" in section


def test_the_guide_names_every_column_of_every_table_a_report_writes(dataset):
    from pathlib import Path

    guide = (Path(__file__).parents[2] / "docs" / "guide.md").read_text()
    reported = Report.build(dataset)
    for name, frame in reported.tables().items():
        assert f"`{name}.csv`" in guide, name
        section = guide.split(f"`{name}.csv`", 1)[1].split("\n\n", 1)[0]
        for column in frame.columns:
            assert f"`{column}`" in section, (name, column)


def test_deal_numbers_print_plainly_in_every_table():
    # "18,032" pasted into `lookup` or `--deals` would be deals 18 and 32.
    from fcanalyze.report.render import format_table

    frame = pd.DataFrame({"variant": ["freecell"], "cells": [1], "deal": [18032], "nodes": [200_878_200]})
    for markdown in (False, True):
        text = format_table(frame, markdown=markdown)
        assert "18032" in text and "18,032" not in text and "200,878,200" in text

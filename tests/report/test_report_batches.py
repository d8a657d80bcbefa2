"""A report built a shard at a time (for datasets too big to load) against the same report built from the whole table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

pytest.importorskip("fsspec", reason="the dask extra is not installed (pip install 'fcanalyze[dask]')")

from fcanalyze.dataset import chunks
from fcanalyze.dataset.chunks import Chunk, ChunkStore
from fcanalyze.dataset.store import SCHEMA, chunked_layout, read_dataset
from fcanalyze.report.batches import build_by_shard, quantile_of_counts, three_figures
from fcanalyze.report.document import Report

SHIPPED = Path(__file__).parents[2] / "fcanalyze" / "data" / "microsoft-32000.parquet"


@pytest.fixture
def sharded(tmp_path, monkeypatch):
    """The shipped table (deals 1..32,000 at 0..4 cells, 30 undecided rows faked in
    so that the lists have something) written as a cluster sweep would, in shards of
    8,000 deals and chunks of 2,000."""
    monkeypatch.setattr(chunks, "SHARD_DEALS", 8_000)
    table = read_dataset(SHIPPED)
    frame = table.to_pandas()
    faked = frame.index[(frame["cells"] == 1) & (frame["status"] == "solved")][:30]
    # Every job of the table is decided: its verdict column holds no null to fake with.
    frame["solvable"] = frame["solvable"].astype("boolean")
    frame.loc[faked, ["status", "solvable", "moves", "card_moves", "score", "solution", "limit"]] = [
        "unknown",
        None,
        None,
        None,
        None,
        None,
        "seconds",
    ]
    frame["host"], frame["finished_at"] = "shipped", pd.Timestamp("2026-01-01", tz="UTC")
    table = pa.Table.from_pandas(frame, schema=SCHEMA, preserve_index=False)
    store = ChunkStore(str(tmp_path / "ds"))
    for cells in range(5):
        for first in range(1, 32_001, 2_000):
            chunk = Chunk("freecell", cells, first, first + 1_999)
            rows = table.filter(pa.compute.and_(
                pa.compute.equal(table["cells"], cells),
                pa.compute.and_(pa.compute.greater_equal(table["deal"], first),
                                pa.compute.less_equal(table["deal"], chunk.last)),
            ))  # fmt: skip
            store.write(chunk, rows)
    return tmp_path / "ds", table


def test_a_report_by_shard_is_the_whole_report(sharded):
    path, table = sharded
    assert chunked_layout(path) == (160_000, {"freecell": [4, 3, 2, 1, 0]})
    assert len(list(path.glob("shard=*"))) == 4
    whole = Report.build(table.to_pandas(types_mapper=lambda t: {pa.int8(): pd.Int8Dtype(), pa.int32(): pd.Int32Dtype(),
                                                                  pa.int64(): pd.Int64Dtype()}.get(t)))  # fmt: skip
    parts = Report(**build_by_shard(path, 10, 160_000))
    pd.testing.assert_frame_equal(parts.summary, whole.summary, check_dtype=False)
    # Effort per outcome: counts and maxima exact, quantiles of nodes to three figures.
    approximate = ["nodes_median", "nodes_p90"]
    exact = [c for c in whole.effort.columns if c not in approximate]
    assert set(whole.effort["outcome"]) == {"solved", "unsolvable", "undecided"}
    pd.testing.assert_frame_equal(parts.effort[exact], whole.effort[exact], check_dtype=False)
    for column in approximate:
        np.testing.assert_allclose(parts.effort[column], whole.effort[column], rtol=0.005)
    # The same deal with fewer cells: counts and shares exact, ratios to three figures.
    approximate = ["nodes_ratio_median", "nodes_ratio_p90", "moves_ratio_median"]
    exact = [c for c in whole.paired.columns if c not in approximate]
    assert len(whole.paired) >= 8  # won at both and won then lost, at each of 4 steps
    pd.testing.assert_frame_equal(parts.paired[exact], whole.paired[exact], check_dtype=False)
    for column in approximate:
        np.testing.assert_allclose(parts.paired[column], whole.paired[column], rtol=0.005)
    pd.testing.assert_frame_equal(parts.transitions, whole.transitions, check_dtype=False)
    pd.testing.assert_frame_equal(
        parts.lost.sort_values(["won_with", "deal"], ignore_index=True),
        whole.lost.sort_values(["won_with", "deal"], ignore_index=True), check_dtype=False,
    )  # fmt: skip
    pd.testing.assert_frame_equal(parts.min_cells_distribution(), whole.min_cells_distribution(), check_dtype=False)
    pd.testing.assert_frame_equal(parts.hardest, whole.hardest, check_dtype=False)
    pd.testing.assert_frame_equal(parts.published, whole.published, check_dtype=False)
    assert list(parts.published["agrees"]) == ["yes", "so far", "yes", "yes", "yes"]  # 0..4 cells
    pd.testing.assert_frame_equal(parts.undecided, whole.undecided, check_dtype=False)
    assert len(parts.undecided) == 30  # the 30 faked: the table has none
    assert "read a shard (a million deals) at a time" in parts.terminal()
    assert parts.problems() == whole.problems()


def test_the_cli_reports_a_big_dataset_by_shard(sharded, run_cli, monkeypatch, tmp_path):
    from fcanalyze.report import batches as report_batches

    path, _ = sharded
    monkeypatch.setattr(report_batches, "BATCH_ROWS", 100_000)
    result = run_cli("report", path, "--out", tmp_path / "rep")
    assert result.exit_code == 0, result.output
    assert "read a shard (a million deals) at a time" in result.output
    assert (tmp_path / "rep" / "report.md").exists() and (tmp_path / "rep" / "moves.png").exists()


def test_counted_quantiles_are_pandas_quantiles():
    rng = np.random.default_rng(7)
    for _ in range(50):
        values = rng.integers(0, 40, size=rng.integers(1, 300))
        distinct, counts = np.unique(values, return_counts=True)
        for q in (0.5, 0.9, 0.0, 1.0):
            assert quantile_of_counts(distinct, counts, q) == pytest.approx(pd.Series(values).quantile(q))
    assert list(three_figures(np.array([7, 999, 1234, 98_765, 1_234_567]))) == [7, 999, 1230, 98_800, 1_230_000]


def test_steps_between_cell_counts_are_the_datasets_not_a_shards(sharded):
    # Shard 0 (deals 1..8,000) was swept at 4 cells only, the others at 4, 2 and 1:
    # every shard's transitions are the steps 4 -> 2 -> 1, none 4 -> 1.
    path, _table = sharded
    for file in path.glob("shard=0000/freecell.c[0123].*.parquet"):
        file.unlink()
    for file in path.glob("shard=*/freecell.c[03].*.parquet"):
        file.unlink()
    rows = read_dataset(path)
    whole = Report.build(rows.to_pandas(types_mapper=lambda t: {pa.int8(): pd.Int8Dtype(), pa.int32(): pd.Int32Dtype(),
                                                                 pa.int64(): pd.Int64Dtype()}.get(t)))  # fmt: skip
    parts = Report(**build_by_shard(path, 10, rows.num_rows))
    assert list(zip(parts.transitions["from_cells"], parts.transitions["to_cells"])) == [(4, 2), (2, 1)]
    pd.testing.assert_frame_equal(parts.transitions, whole.transitions, check_dtype=False)
    pd.testing.assert_frame_equal(
        parts.lost.sort_values(["won_with", "deal"], ignore_index=True),
        whole.lost.sort_values(["won_with", "deal"], ignore_index=True), check_dtype=False,
    )  # fmt: skip
    assert parts.problems() == whole.problems() == []
    parts.terminal()


def test_a_report_by_shard_picks_cells_and_deals_as_the_whole_does(sharded):
    path, table = sharded
    frame = table.to_pandas(types_mapper=lambda t: {pa.int8(): pd.Int8Dtype(), pa.int32(): pd.Int32Dtype(),
                                                    pa.int64(): pd.Int64Dtype()}.get(t))  # fmt: skip
    picked = {"cells": [4, 2, 1], "deals": [(1, 9_000), (20_000, 20_000)]}
    whole = Report.build(frame, **picked)
    parts = Report(**build_by_shard(path, 10, 160_000, **picked))
    assert list(parts.summary["cells"]) == [4, 2, 1] and list(parts.summary["jobs"]) == [9_001] * 3
    pd.testing.assert_frame_equal(parts.summary, whole.summary, check_dtype=False)
    pd.testing.assert_frame_equal(parts.transitions, whole.transitions, check_dtype=False)
    assert list(zip(parts.transitions["from_cells"], parts.transitions["to_cells"])) == [(4, 2), (2, 1)]
    exact = ["variant", "from_cells", "to_cells", "from_status", "to_status", "deals", "harder_share"]
    pd.testing.assert_frame_equal(parts.paired[exact], whole.paired[exact], check_dtype=False)

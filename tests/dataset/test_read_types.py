"""Every kind of Parquet file fcanalyze writes reads back with its types: in pandas with a plain read_parquet, in pyarrow, in DuckDB."""

from __future__ import annotations

import pandas as pd
import pyarrow.parquet as pq
import pytest
from conftest import REPO_ROOT, run_fcanalyze

# A column of each kind that holds nulls in a sweep of won and lost jobs, and what each
# reader must call it: pandas' nullable type, the Arrow type, DuckDB's type.
EXPECTED = {
    "deal": ("Int64", "int64", "BIGINT"),
    "cells": ("Int8", "int8", "TINYINT"),
    "moves": ("Int32", "int32", "INTEGER"),
    "score": ("Int32", "int32", "INTEGER"),
    "nodes": ("Int64", "int64", "BIGINT"),
    "implied_by": ("Int8", "int8", "TINYINT"),
    "solvable": ("boolean", "bool", "BOOLEAN"),
    "shortest_proved": ("boolean", "bool", "BOOLEAN"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One file of each kind: a sweep's part file, an export, a report's table and the
    shipped table (a cluster's chunk file is checked in test_chunks)."""
    tmp = tmp_path_factory.mktemp("kinds")
    # 1..12 with 2 and 1 cells: wins, proofs of loss, and losses implied by more cells.
    done = run_fcanalyze("sweep", "-d", "1-12", "-k", "2,1", "-o", tmp / "ds", "--no-progress", "--shortest")
    assert done.returncode == 0, done.stderr
    assert run_fcanalyze("export", tmp / "ds", tmp / "export.parquet").returncode == 0
    assert run_fcanalyze("report", tmp / "ds", "--out", tmp / "report").returncode == 0
    return {
        "part file": next((tmp / "ds").glob("part-*.parquet")),
        "export": tmp / "export.parquet",
        "report table": tmp / "report" / "summary.parquet",
        "shipped table": REPO_ROOT / "data" / "microsoft-32000.parquet",
    }


@pytest.mark.parametrize("kind", ["part file", "export", "shipped table"])
def test_rows_read_with_their_types_in_pandas_pyarrow_and_duckdb(files, kind):
    path = files[kind]
    frame = pd.read_parquet(path)  # plainly: no dtype_backend
    arrow = pq.read_table(path).schema
    # Lost rows have no moves and no shortest line: the columns hold nulls.
    assert frame["moves"].isna().any() and frame["shortest_proved"].isna().any()
    for column, (pandas_type, arrow_type, _) in EXPECTED.items():
        assert str(frame[column].dtype) == pandas_type, (kind, column, frame[column].dtype)
        assert str(arrow.field(column).type) == arrow_type, (kind, column)
    # A whole number stays whole, where a float column would print 102.0.
    won = frame[frame["status"] == "solved"]
    assert str(won["moves"].iloc[0]) == str(int(won["moves"].iloc[0]))
    duckdb = pytest.importorskip("duckdb")
    described = {r[0]: r[1] for r in duckdb.sql(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()}
    for column, (_, _, duck_type) in EXPECTED.items():
        assert described[column] == duck_type, (kind, column, described[column])


def test_a_report_table_reads_as_whole_numbers_in_pandas(files):
    frame = pd.read_parquet(files["report table"])
    for column in ("cells", "jobs", "solved", "unsolvable", "moves_max", "non_foundation_moves_max"):
        assert pd.api.types.is_integer_dtype(frame[column]), (column, frame[column].dtype)

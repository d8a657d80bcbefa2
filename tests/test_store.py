"""The dataset store: writes that grow with the rows, one row type beside the schema, and reads of single files."""

from __future__ import annotations

from datetime import datetime, timezone

import pyarrow.parquet as pq

from fcanalyze.store import COLUMNS, PART_REWRITES, Dataset, Row, part_files, read_dataset


def test_row_fields_are_the_schema_columns_in_order():
    assert Row._fields == COLUMNS


def _row(deal: int) -> Row:
    return Row(
        deal,
        "freecell",
        4,
        8,
        "unsolvable",
        False,
        None,
        5,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
        False,
        None,
        "0",
        "budgets",
        "host",
        datetime.now(timezone.utc),
    )


def test_slow_appends_rewrite_each_row_a_bounded_number_of_times(tmp_path):
    dataset = Dataset.open(tmp_path / "ds")
    batches = 100
    for b in range(batches):  # five rows a flush, as a slow sweep writes them
        dataset.append([_row(b * 5 + i) for i in range(5)])
    dataset.close()
    files = part_files(tmp_path / "ds")
    # A part takes PART_REWRITES flushes at most, then a new one starts.
    assert len(files) == -(-batches // PART_REWRITES)
    assert all(pq.read_metadata(f).num_rows <= 5 * PART_REWRITES for f in files)
    table = read_dataset(tmp_path / "ds")
    assert sorted(table["deal"].to_pylist()) == list(range(batches * 5))
    assert table["implied_by"].to_pylist() == [5] * (batches * 5)

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


def _codec(file) -> str:
    return pq.read_metadata(file).row_group(0).column(0).compression


def test_a_growing_part_is_written_plain_and_compressed_once_full_or_at_close(tmp_path):
    path = tmp_path / "ds"
    dataset = Dataset.open(path)
    dataset.append([_row(i) for i in range(5)])
    (growing,) = part_files(path)
    # Readers see the plain part whole while the sweep goes on.
    assert _codec(growing) == "UNCOMPRESSED"
    assert sorted(read_dataset(path)["deal"].to_pylist()) == list(range(5))
    for b in range(1, PART_REWRITES + 1):
        dataset.append([_row(b * 5 + i) for i in range(5)])
    full, growing = part_files(path)
    assert _codec(full) == "ZSTD" and pq.read_metadata(full).num_rows == 5 * PART_REWRITES
    assert _codec(growing) == "UNCOMPRESSED"
    dataset.close()
    assert [_codec(f) for f in part_files(path)] == ["ZSTD", "ZSTD"]
    assert sorted(read_dataset(path)["deal"].to_pylist()) == list(range(5 * (PART_REWRITES + 1)))


def test_arrow_columns_are_what_pa_array_makes_of_the_same_values():
    import pyarrow as pa

    from fcanalyze.store import SCHEMA, arrow_column

    moment = datetime(2026, 12, 3, 18, 9, 0, 123456, tzinfo=timezone.utc)
    samples = {
        pa.int8(): [4, None, -128, 127, 0],
        pa.int32(): [2**31 - 1, None, -(2**31), 98, 0],
        pa.int64(): [8_589_934_591, None, -(2**63), 2**63 - 1, 1],
        pa.float64(): [0.1, None, 45.000001, -0.0, 1e300],
        pa.bool_(): [True, None, False, True, False],
        pa.string(): ["4c 1h", None, "", "déjà vu, ✓", "x" * 1000],
        pa.timestamp("us", tz="UTC"): [moment, None, datetime(1970, 1, 1, tzinfo=timezone.utc), moment, moment],
    }
    for field in SCHEMA:
        values = samples[field.type]
        for sample in (values, [v for v in values if v is not None], [None] * 9, []):
            built = arrow_column(tuple(sample), field.type)
            built.validate(full=True)
            assert built.equals(pa.array(sample, type=field.type)), (field.name, sample)
    # Enough rows that the bitmaps run over several bytes.
    many = tuple(None if i % 3 == 0 else i % 2 == 0 for i in range(1000))
    assert arrow_column(many, pa.bool_()).to_pylist() == list(many)

"""The dataset store: writes that grow with the rows, one row type beside the schema, and reads of single files."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fcanalyze.dataset.store import COLUMNS, PART_REWRITES, SCHEMA, Dataset, Row, part_files, read_dataset
from fcanalyze.errors import FcanalyzeError, FcanalyzeWarning


def test_row_fields_are_the_schema_columns_in_order():
    assert Row._fields == COLUMNS


def _row(deal: int) -> Row:
    nothing = dict.fromkeys(
        ("limit", "moves", "card_moves", "non_foundation_moves", "score", "nodes", "states", "max_depth", "seconds",
         "verify_seconds", "peak_memory", "solution", "shortest_proved", "shortest_bound", "shortest_limit", "error")
    )  # fmt: skip
    return Row(
        deal=deal,
        variant="freecell",
        cells=4,
        columns=8,
        status="unsolvable",
        solvable=False,
        implied_by=5,
        verified=False,
        engine_version="0",
        budgets="budgets",
        host="host",
        finished_at=datetime.now(timezone.utc),
        **nothing,
    )


def test_slow_appends_rewrite_each_row_a_bounded_number_of_times(tmp_path):
    dataset = Dataset.open(tmp_path / "ds")
    batches = 100
    for b in range(batches):  # five rows a flush, as a slow sweep writes them
        dataset.append([_row(b * 5 + i + 1) for i in range(5)])
    dataset.close()
    files = part_files(tmp_path / "ds")
    # A part takes PART_REWRITES flushes at most, then a new one starts.
    assert len(files) == -(-batches // PART_REWRITES)
    assert all(pq.read_metadata(f).num_rows <= 5 * PART_REWRITES for f in files)
    table = read_dataset(tmp_path / "ds")
    assert sorted(table["deal"].to_pylist()) == list(range(1, batches * 5 + 1))
    assert table["implied_by"].to_pylist() == [5] * (batches * 5)


def _codec(file) -> str:
    return pq.read_metadata(file).row_group(0).column(0).compression


def test_a_growing_part_is_written_plain_and_compressed_once_full_or_at_close(tmp_path):
    path = tmp_path / "ds"
    dataset = Dataset.open(path)
    dataset.append([_row(i + 1) for i in range(5)])
    (growing,) = part_files(path)
    # Readers see the plain part whole while the sweep goes on.
    assert _codec(growing) == "UNCOMPRESSED"
    assert sorted(read_dataset(path)["deal"].to_pylist()) == list(range(1, 6))
    for b in range(1, PART_REWRITES + 1):
        dataset.append([_row(b * 5 + i + 1) for i in range(5)])
    full, growing = part_files(path)
    assert _codec(full) == "ZSTD" and pq.read_metadata(full).num_rows == 5 * PART_REWRITES
    assert _codec(growing) == "UNCOMPRESSED"
    dataset.close()
    assert [_codec(f) for f in part_files(path)] == ["ZSTD", "ZSTD"]
    assert sorted(read_dataset(path)["deal"].to_pylist()) == list(range(1, 5 * (PART_REWRITES + 1) + 1))


def test_arrow_columns_are_what_pa_array_makes_of_the_same_values():
    import pyarrow as pa

    from fcanalyze.dataset.store import SCHEMA, arrow_column

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


@pytest.fixture
def copied(tmp_path):
    """A real sweep of deals 1..6 with 4 cells (5 and 6 unknown at 100 positions), its
    part file copied under a second name, as a user's `cp` would."""
    from fcanalyze.sweep import sweep

    path = Path(sweep("1-6", cells=4, out=tmp_path / "ds", workers=1, max_nodes=100))
    (part,) = part_files(path)
    shutil.copy(part, path / "part-copy.parquet")
    return path


def test_a_part_file_copied_under_a_second_name_counts_each_job_once(copied):
    with pytest.warns(FcanalyzeWarning, match=r"6 job\(s\) are held twice with identical rows"):
        table = read_dataset(copied)
    assert sorted(table["deal"].to_pylist()) == [1, 2, 3, 4, 5, 6]
    with pytest.warns(FcanalyzeWarning):
        assert read_dataset(copied, ["deal", "status"]).column_names == ["deal", "status"]


def test_a_job_held_twice_with_verdicts_that_cannot_both_be_right_is_refused(copied):
    # Edited with pyarrow, which makes the column nullable: the parts still read together.
    copy = copied / "part-copy.parquet"
    table = pq.read_table(copy)
    status = ["unsolvable" if d == 4 else s for d, s in zip(table["deal"].to_pylist(), table["status"].to_pylist())]
    pq.write_table(table.set_column(table.column_names.index("status"), "status", pa.array(status)), copy)
    for read in (read_dataset, Dataset.open):
        with pytest.raises(FcanalyzeError) as e:
            read(copied)
        message = str(e.value)
        assert "the job freecell deal 4 with 4 cells is solved in part-" in message
        assert "and unsolvable in part-copy.parquet" in message and "\n" not in message


def test_two_sweeps_that_wrote_one_job_each_leave_a_dataset_that_reads(copied):
    # Two sweeps into one dataset at once (its .lock file removed): the same jobs, run
    # twice, with their own figures. Each job counts once, by its decided row, else its
    # latest, and the reader says so; nothing is refused.
    copy = copied / "part-copy.parquet"
    table = pq.read_table(copy)
    later = [t + timedelta(seconds=5) for t in table["finished_at"].to_pylist()]
    nodes = [n + 1 for n in table["nodes"].to_pylist()]
    table = table.set_column(table.column_names.index("nodes"), "nodes", pa.array(nodes, pa.int64()))
    table = table.set_column(
        table.column_names.index("finished_at"), "finished_at", pa.array(later, SCHEMA.field("finished_at").type)
    )
    pq.write_table(table, copy)
    for read in (read_dataset, Dataset.open):
        with pytest.warns(FcanalyzeWarning, match=r"held more than once with different rows .* two sweeps wrote"):
            read(copied)
    with pytest.warns(FcanalyzeWarning):
        rows = read_dataset(copied).to_pylist()
    assert sorted(r["deal"] for r in rows) == list(range(1, 7))
    # Each job's two rows share a status: the later one, the copy's, is kept.
    assert {r["deal"]: r["nodes"] for r in rows} == {r["deal"]: r["nodes"] for r in table.to_pylist()}


def test_a_retry_replaces_every_copy_of_a_row(copied):
    from fcanalyze.sweep import sweep

    with pytest.warns(FcanalyzeWarning, match=r"6 job\(s\) are held twice"):
        sweep("1-6", cells=4, out=copied, workers=1, retry_unknown=True)
    # Deals 5 and 6 were run again: their new rows are in one file, their old ones in
    # neither (had one copy been left, the dataset would hold two answers, and be refused).
    with pytest.warns(FcanalyzeWarning, match=r"4 job\(s\) are held twice"):
        table = read_dataset(copied)
    assert sorted(zip(table["deal"].to_pylist(), table["status"].to_pylist())) == [(d, "solved") for d in range(1, 7)]


def test_a_status_that_is_not_a_verdict_is_refused_with_its_file_and_value(copied):
    copy = copied / "part-copy.parquet"
    copy.unlink()
    (part,) = part_files(copied)
    # Edited as a pandas user would.
    frame = pd.read_parquet(part)
    frame.loc[frame["deal"] == 5, "status"] = "done"
    frame.to_parquet(part)
    for read in (read_dataset, Dataset.open):
        with pytest.raises(FcanalyzeError, match=r"holds a row whose status is 'done', which is not a verdict") as e:
            read(copied)
        assert str(part) in str(e.value)


@pytest.mark.parametrize("column,value", [("deal", -5), ("deal", 8_589_934_592), ("cells", 100)])
def test_a_row_no_job_could_have_is_refused_with_its_file(copied, column, value):
    copy = copied / "part-copy.parquet"
    table = pq.read_table(copy)
    values = table[column].to_pylist()
    values[0] = value
    pq.write_table(
        table.set_column(table.column_names.index(column), column, pa.array(values, table[column].type)), copy
    )
    with pytest.raises(FcanalyzeError, match=rf"part-copy.parquet holds a row whose {column} is {value}, which no job"):
        read_dataset(copied)

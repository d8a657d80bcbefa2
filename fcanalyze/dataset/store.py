"""The sweep dataset: a directory of Parquet part files, one row per job, written only by atomic renames."""

from __future__ import annotations

import collections
import errno
import fcntl
import functools
import itertools
import os
import time
import warnings
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import FcanalyzeError, FcanalyzeWarning
from ..game.deals import LAST_DEAL
from ..game.variant import MAX_CELLS
from ..inputs import quote
from ..status import ERROR, SOLVED, STATUSES, UNSOLVABLE
from .chunks import SHARD_PREFIX, Chunk
from .jobs import Key
from .typed import pandas_readable

# One row per (deal, variant, cells). The README documents every column.
SCHEMA = pa.schema(
    [
        pa.field("deal", pa.int64(), nullable=False),
        pa.field("variant", pa.string(), nullable=False),
        pa.field("cells", pa.int8(), nullable=False),
        pa.field("columns", pa.int8(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("solvable", pa.bool_()),
        pa.field("limit", pa.string()),
        pa.field("implied_by", pa.int8()),
        pa.field("moves", pa.int32()),
        pa.field("card_moves", pa.int32()),
        pa.field("non_foundation_moves", pa.int32()),
        pa.field("score", pa.int32()),
        pa.field("nodes", pa.int64()),
        pa.field("states", pa.int64()),
        pa.field("max_depth", pa.int32()),
        pa.field("seconds", pa.float64()),
        pa.field("verify_seconds", pa.float64()),
        pa.field("peak_memory", pa.int64()),
        pa.field("solution", pa.string()),
        pa.field("shortest_proved", pa.bool_()),
        pa.field("shortest_bound", pa.int32()),
        pa.field("shortest_limit", pa.string()),
        pa.field("verified", pa.bool_(), nullable=False),
        pa.field(ERROR, pa.string()),
        pa.field("engine_version", pa.string(), nullable=False),
        pa.field("budgets", pa.string(), nullable=False),
        pa.field("host", pa.string(), nullable=False),
        pa.field("finished_at", pa.timestamp("us", tz="UTC"), nullable=False),
    ]
)
COLUMNS = tuple(SCHEMA.names)
KEY = ("deal", "variant", "cells")


def empty_table() -> pa.Table:
    """A table of SCHEMA with no rows. (`SCHEMA.empty_table()` would import pandas, a
    quarter of a second, before a sweep's workers start; this way the first rows import
    it, while the workers are already busy.)"""
    return pa.Table.from_batches([], SCHEMA)


class Row(NamedTuple):
    """One dataset row, its fields named and ordered as SCHEMA's columns (a test holds
    the two together)."""

    deal: int
    variant: str
    cells: int
    columns: int
    status: str
    solvable: bool | None
    limit: str | None
    # The larger cell count whose proof of unsolvability settles this job without a
    # search (fewer cells can never win what more cannot); None when searched.
    implied_by: int | None
    moves: int | None
    card_moves: int | None
    # The moves that do not send a card to a foundation (docs/rules.md).
    non_foundation_moves: int | None
    score: int | None
    nodes: int | None
    states: int | None
    max_depth: int | None
    seconds: float | None
    verify_seconds: float | None
    peak_memory: int | None
    solution: str | None
    # With --shortest: whether no line has fewer non-foundation moves (proved); fewer
    # than shortest_bound no winning line has (proved; equal to non_foundation_moves
    # exactly when shortest_proved); and the budget that stopped
    # the search for it early. Null for jobs not searched so.
    shortest_proved: bool | None
    shortest_bound: int | None
    shortest_limit: str | None
    verified: bool
    error: str | None
    engine_version: str
    budgets: str
    host: str
    finished_at: datetime

    @property
    def key(self) -> Key:
        return (self.deal, self.variant, self.cells)


PART_PREFIX = "part-"
PART_SUFFIX = ".parquet"
# A part file grows by rewrites (each whole, renamed into place) until it holds this
# many rows or has been rewritten PART_REWRITES times; then a new one starts. So each
# row is encoded at most PART_REWRITES times, however slowly rows come: the writes
# grow with the rows. (Parts that only ever grew by size made a slow 1-cell sweep
# rewrite thousands of rows every half second: 162 s of a 62-minute sweep.)
PART_ROWS = 4096
PART_REWRITES = 8


def rows_to_table(rows: Sequence[Row]) -> pa.Table:
    """An Arrow table from rows, one column at a time."""
    if not rows:
        return empty_table()
    columns = list(zip(*rows))
    return pa.Table.from_arrays([arrow_column(values, f.type) for values, f in zip(columns, SCHEMA)], schema=SCHEMA)


# The typecode of Python's array module for each of SCHEMA's integer and float types.
_TYPECODES = {pa.int8(): "b", pa.int32(): "i", pa.int64(): "q", pa.float64(): "d"}
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


def arrow_column(values: Sequence, type: pa.DataType) -> pa.Array:
    """One of SCHEMA's columns from Python values (None for null; times with their time
    zone, as rows always have them), built from its buffers.

    pa.array() would do, but its first call imports pandas (to ask whether a list is a
    pandas object): 0.4 s of CPU in a sweep's main process, taken from its workers on a
    2-core machine, a thirtieth of a 4-cell sweep of the whole table. A test holds this
    to pa.array() on every type of the schema, with and without nulls."""
    n = len(values)
    null_count = values.count(None)
    if null_count == n:
        return pa.nulls(n, type)
    validity = None
    if null_count:
        validity = _bitmap([v is not None for v in values])
    if pa.types.is_string(type):
        data = [b"" if v is None else v.encode() for v in values] if null_count else list(map(str.encode, values))
        offsets = array("i", itertools.accumulate(map(len, data), initial=0))
        buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]
    elif pa.types.is_boolean(type):
        buffers = [validity, _bitmap([v is True for v in values])]
    elif pa.types.is_timestamp(type):
        micros = array("q", (0 if v is None else (v - _EPOCH) // _MICROSECOND for v in values))
        buffers = [validity, pa.py_buffer(micros)]
    else:
        code = _TYPECODES[type]
        if null_count:
            zero = 0.0 if code == "d" else 0
            values = [zero if v is None else v for v in values]
        buffers = [validity, pa.py_buffer(array(code, values))]
    return pa.Array.from_buffers(type, n, buffers, null_count)


def _bitmap(bits: list[bool]) -> pa.Buffer:
    """Arrow's bitmap of `bits`, least significant bit first."""
    return pa.py_buffer(np.packbits(np.array(bits, dtype=np.bool_), bitorder="little"))


def part_files(path: Path, chunks: bool = True) -> list[Path]:
    """A dataset directory's part files: a local sweep's, and (with `chunks`) a cluster
    sweep's in its shard folders (chunks.py)."""
    found = [p for p in path.glob(f"{PART_PREFIX}*{PART_SUFFIX}") if p.is_file()]
    if chunks:
        found += [p for p in path.glob(f"{SHARD_PREFIX}*/*{PART_SUFFIX}") if p.is_file() and not p.name.startswith(".")]
    return sorted(found)


class ReadOnlyDirectory(FcanalyzeError):
    """The dataset directory is there but cannot be written (a read-only mount)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"cannot write to {path}: {reason}")
        self.reason = reason


def lock_directory(path: Path) -> IO[str]:
    """Creates the dataset directory if need be and locks it against a second sweep;
    the lock lasts until the returned file is closed. FcanalyzeError if it cannot
    (ReadOnlyDirectory if it exists but cannot be written)."""
    if path.exists() and not path.is_dir():
        raise FcanalyzeError(f"{path} is a file; a dataset is a directory: give --out a directory name")
    try:
        path.mkdir(parents=True, exist_ok=True)
        lock = open(path / ".lock", "w")  # noqa: SIM115 - held for the sweep's life
    except OSError as e:
        if path.is_dir() and e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise ReadOnlyDirectory(path, e.strerror or str(e)) from None
        raise FcanalyzeError(f"cannot write to {path}: {e.strerror or e}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        raise FcanalyzeError(f"another sweep is writing to {path}; wait for it or use another --out") from None
    return lock


def read_dataset(path: str | os.PathLike, columns: list[str] | None = None) -> pa.Table:
    """Every row of the dataset at `path`, as one table with the dataset schema.

    `path` is a sweep's directory (a local sweep's part files, a cluster sweep's shard
    folders, or both), a cluster sweep's fsspec URL, or one Parquet file of its rows
    (an `export`, or the table shipped in data/); columns such a file leaves out come
    back as nulls. Raises
    FcanalyzeError if `path` is missing, holds no part files, or holds files that are
    not fcanalyze rows, or rows whose status is not a verdict.

    Every job comes back once. A job held twice with identical rows (a part file
    copied under a second name) is kept once, with a FcanalyzeWarning; one held twice
    with different rows is refused (FcanalyzeError naming both files), since nothing
    says which row is right.
    """
    if "://" in str(path):
        return _read_location(str(path), columns)
    path = Path(path)
    wanted = _with_keys(columns)
    if path.is_file():
        parts = [_Part(path.name, _read_part(path, wanted), functools.partial(_read_part, path))]
        return _one_row_per_job(parts, str(path)).select(wanted if columns is None else columns)
    if not path.is_dir():
        raise FcanalyzeError(
            f"{path} does not exist: give the --out directory of a sweep or a Parquet file of its rows"
        )
    files = part_files(path)
    if not files:
        raise FcanalyzeError(f"{path} holds no fcanalyze dataset ({PART_PREFIX}*{PART_SUFFIX} files)")
    parts = [_Part(str(f.relative_to(path)), _read_part(f, wanted), functools.partial(_read_part, f)) for f in files]
    return _one_row_per_job(parts, str(path)).select(wanted if columns is None else columns)


def read_frame(path: str | os.PathLike, columns: list[str] | None = None):
    """read_dataset()'s rows as a pandas DataFrame, its integer columns as pandas'
    nullable integers (Int8, Int32, Int64): a move count stays 102, not 102.0, in a
    column where the unsolved rows have none."""
    return to_frame(read_dataset(path, columns))


def to_frame(table: pa.Table):
    """An Arrow table of dataset rows as pandas, integer columns nullable (read_frame)."""
    import pandas as pd

    nullable = {pa.int8(): pd.Int8Dtype(), pa.int16(): pd.Int16Dtype(), pa.int32(): pd.Int32Dtype(),
                pa.int64(): pd.Int64Dtype()}  # fmt: skip
    return table.to_pandas(types_mapper=nullable.get)


def _with_keys(columns: list[str] | None) -> list[str]:
    """The columns asked for, and the key columns (which the check that every job comes
    once needs) if they are not among them."""
    if columns is None:
        return list(COLUMNS)
    return list(columns) + [k for k in KEY if k not in columns]


@dataclass(frozen=True)
class _Part:
    """One file's rows as read, its name for messages, and how to read all its columns."""

    name: str
    table: pa.Table
    whole: Callable[[], pa.Table]


def _one_row_per_job(parts: list[_Part], where: str) -> pa.Table:
    """The parts' rows as one table, each job once (see read_dataset)."""
    # Nullable and not-null versions of a column (a part rewritten by another program) join.
    table = pa.concat_tables([p.table for p in parts], promote_options="default") if parts else empty_table()
    if table.num_rows < 2:
        return table
    keys = table.select(list(KEY))
    counts = keys.group_by(list(KEY)).aggregate([([], "count_all")])
    if counts.num_rows == table.num_rows:
        return table
    counted = zip(*(counts[c].to_pylist() for c in (*KEY, "count_all")))
    repeated = {(d, v, c) for d, v, c, n in counted if n > 1}
    # Which parts hold each repeated job, and where in the whole table, once per row (a
    # part may hold one twice).
    holders: dict[Key, list[int]] = collections.defaultdict(list)
    at: dict[Key, list[int]] = collections.defaultdict(list)
    offset = 0
    for i, part in enumerate(parts):
        for j, key in enumerate(zip(*(part.table[c].to_pylist() for c in KEY))):
            if key in repeated:
                holders[key].append(i)
                at[key].append(offset + j)
        offset += part.table.num_rows
    # All columns, not just those asked for: two rows differing anywhere are two answers.
    rows: dict[Key, list[dict]] = collections.defaultdict(list)
    for i in sorted({i for held in holders.values() for i in held}):
        whole = parts[i].whole()
        for row in whole.to_pylist():
            key = (row["deal"], row["variant"], row["cells"])
            if key in repeated:
                rows[key].append(row)
    kept: dict[Key, int] = {}
    differing = []
    for key in sorted(holders):
        held, found = holders[key], rows[key]
        verdicts = {r["status"] for r in found} & {SOLVED, UNSOLVABLE}
        if len(verdicts) > 1:
            # Won in one row and proved lost in another: one of them is wrong, and
            # nothing here says which.
            deal, variant, cells = key
            first = held[next(j for j, r in enumerate(found) if r["status"] == SOLVED)]
            other = held[next(j for j, r in enumerate(found) if r["status"] == UNSOLVABLE)]
            raise FcanalyzeError(
                f"{where}: the job {variant} deal {deal} with {cells} cell{'' if cells == 1 else 's'} is solved in "
                f"{parts[first].name} and unsolvable in {parts[other].name}; a dataset holds each job once, and "
                "these verdicts cannot both be right: remove the row or file that should not be there"
            )
        best = max(range(len(found)), key=lambda j: _preference(found[j], j))
        kept[key] = at[key][best]
        if any(not _same_row(found[0], r) for r in found[1:]):
            differing.append(key)
    if differing:
        deal, variant, cells = key = differing[0]
        names = sorted({parts[i].name for i in holders[key]})
        warnings.warn(
            f"{where}: {len(differing):,} job(s) are held more than once with different rows (like deal {deal} with "
            f"{cells} cell{'' if cells == 1 else 's'}, in {' and '.join(names)}): two sweeps wrote into this "
            "dataset at once (was its .lock file removed?). Each is counted once, by its decided row, else its "
            "latest; 'fcanalyze export' writes a copy with one row per job",
            FcanalyzeWarning,
            stacklevel=3,
        )
    if len(differing) < len(holders):
        deal, variant, cells = key = next(k for k in sorted(holders) if k not in set(differing))
        first_name, other_name = parts[holders[key][0]].name, parts[holders[key][1]].name
        warnings.warn(
            f"{where}: {len(holders) - len(differing):,} job(s) are held twice with identical rows (like deal {deal} "
            f"with {cells} cell{'' if cells == 1 else 's'}, in {first_name} and {other_name}); each is counted once. Remove "
            "the copy to silence this",
            FcanalyzeWarning,
            stacklevel=3,
        )
    order = table.append_column("_row", pa.array(np.arange(table.num_rows)))
    first_rows = order.group_by(list(KEY)).aggregate([("_row", "min")])["_row_min"].to_numpy()
    chosen = [kept.get(k, int(r)) for k, r in zip(_keys_of(table, first_rows), first_rows)]
    return table.take(np.sort(np.array(chosen, dtype=np.int64)))


def _keys_of(table: pa.Table, rows) -> list[Key]:
    picked = table.select(list(KEY)).take(rows)
    return list(zip(*(picked[c].to_pylist() for c in KEY)))


def _preference(row: dict, order: int) -> tuple:
    """Which of a job's rows a dataset keeps when two sweeps wrote it: a decided one
    over an undecided one, then the one that finished last, then the last read."""
    finished = row.get("finished_at")
    decided = row["status"] == UNSOLVABLE or (row["status"] == SOLVED and bool(row.get("verified")))
    return (decided, finished is not None, finished or 0, order)


def _same_row(a: dict, b: dict) -> bool:
    """Whether two rows hold the same values (NaN equal to NaN)."""
    return all(x == y or (x != x and y != y) for x, y in zip(a.values(), b.values())) and a.keys() == b.keys()


def chunked_layout(path: str | os.PathLike) -> tuple[int, dict[str, list[int]]] | None:
    """A cluster sweep's dataset's rows, and its cell counts per variant (most
    first), from its file names alone (a listing per shard, no file opened); None
    for anything else (a file, a local sweep's directory, nothing)."""
    text = str(path)
    if "://" not in text and (not Path(text).is_dir() or part_files(Path(text), chunks=False)):
        return None
    rows, cells = 0, collections.defaultdict(set)
    for shard in shard_numbers(text):
        for chunk in _chunks_in(text, shard):
            rows += len(chunk)
            cells[chunk.variant].add(chunk.cells)
    return (rows, {v: sorted(ks, reverse=True) for v, ks in cells.items()}) if rows else None


def shard_numbers(path: str | os.PathLike) -> list[int]:
    """The shards of a cluster sweep's dataset (a listing, no file opened)."""
    from .chunks import ChunkStore

    text = str(path)
    if "://" in text:
        return ChunkStore(text).shards()
    found = (f.name.removeprefix(SHARD_PREFIX) for f in Path(text).glob(f"{SHARD_PREFIX}*") if f.is_dir())
    return sorted(int(n) for n in found if n.isdigit())


def read_shard(path: str | os.PathLike, shard: int, columns: list[str] | None = None) -> pa.Table:
    """Every row of one shard of a cluster sweep's dataset: its deals' rows, all
    variants and cell counts."""
    text = str(path)
    wanted = _with_keys(columns)
    parts = [
        _Part(
            chunk.file_name(),
            _read_chunk(text, shard, chunk, wanted),
            functools.partial(_read_chunk, text, shard, chunk, None),
        )
        for chunk in _chunks_in(text, shard)
    ]
    if not parts:
        return _checked(empty_table(), text, columns)
    return _one_row_per_job(parts, text).select(wanted if columns is None else columns)


def _chunks_in(path: str, shard: int) -> list[Chunk]:
    """A shard's chunks: through fsspec at a URL, from the file names in a directory
    (which reading needs no fsspec for)."""
    from .chunks import ChunkStore, shard_folder

    if "://" in path:
        return ChunkStore(path).chunks_in(shard)
    found = (Chunk.from_file_name(f.name) for f in (Path(path) / shard_folder(shard)).glob(f"*{PART_SUFFIX}"))
    return [c for c in found if c is not None]


def _read_chunk(path: str, shard: int, chunk: Chunk, columns: list[str] | None) -> pa.Table:
    """A chunk's rows, read from the shard folder it was listed in."""
    from .chunks import ChunkStore, shard_folder

    if "://" in path:
        store = ChunkStore(path)
        return _checked(store.read(chunk, columns), chunk.path(store.root), columns)
    return _read_part(Path(path) / shard_folder(shard) / chunk.file_name(), columns)


def _read_location(location: str, columns: list[str] | None) -> pa.Table:
    """A cluster sweep's dataset at an fsspec URL: every chunk file of every shard."""
    tables = [read_shard(location, shard, columns) for shard in shard_numbers(location)]
    if not tables:
        raise FcanalyzeError(f"{location} holds no fcanalyze dataset (shard=*/ folders of part files)")
    return pa.concat_tables(tables, promote_options="default")


def _read_part(file: Path, columns: list[str] | None = None) -> pa.Table:
    wanted = list(COLUMNS) if columns is None else columns
    try:
        # One open file for footer and data: a writer's rename in between then cannot
        # mix two versions of the part (the open handle keeps the one it opened). A
        # native Arrow file, not a Python one: Arrow's reader threads calling back into
        # Python could still be running at interpreter exit, which aborted the process
        # ("terminate called without an active exception") about once in ten runs.
        with pa.OSFile(str(file), "rb") as handle:
            part = pq.ParquetFile(handle)
            present = part.schema_arrow.names
            table = part.read(columns=[c for c in wanted if c in present])
    except (pa.ArrowException, OSError) as e:
        raise FcanalyzeError(f"{file} is not a readable Parquet file: {e}") from None
    except UnicodeEncodeError:  # Arrow takes only UTF-8 names
        shown = os.fsencode(file).decode("utf-8", "backslashreplace")
        raise FcanalyzeError(f"{shown} cannot be read: its name is not UTF-8; rename it") from None
    return _checked(table, file, columns)


def checked_part(table: pa.Table, name: Path | str) -> pa.Table:
    """A part file's rows, read by other means than this module's, checked as its own
    reads are (every column, in SCHEMA's types, every status a verdict)."""
    return _checked(table, name, None)


def _checked(table: pa.Table, file: Path | str, columns: list[str] | None) -> pa.Table:
    """The part's columns that were asked for, in SCHEMA's order and types, or FcanalyzeError."""
    wanted = list(COLUMNS) if columns is None else columns
    # The file's own status column, before a missing one is filled in with nulls.
    status = table.schema.field("status").type if "status" in table.column_names else None
    table = _with_columns_added(table, wanted)
    expected = pa.schema([SCHEMA.field(c) for c in wanted])
    if status is not None and (pa.types.is_string(status) or pa.types.is_large_string(status)):
        # A row whose status is no verdict (edited by hand, written by another program)
        # would count as done, and be skipped by every sweep: refused, not guessed at.
        odd = [s for s in table.column("status").unique().to_pylist() if s not in STATUSES]
        if odd:
            raise FcanalyzeError(
                f"{file} holds a row whose status is {quote(odd[0])}, which is not a verdict "
                f"({', '.join(STATUSES)}); correct that row or remove the file"
            )
    if table.column_names != expected.names or table.schema.types != expected.types:
        raise FcanalyzeError(f"{file} is not a fcanalyze dataset part (its columns differ)")
    # A deal or a cell count no job can have (a file made by hand) would be counted by
    # every report as if it were one.
    for column, low, high in (("deal", 1, LAST_DEAL), ("cells", 0, MAX_CELLS)):
        if column in table.column_names and table.num_rows:
            bounds = pc.min_max(table[column])
            least, most = bounds["min"].as_py(), bounds["max"].as_py()
            bad = least if least is not None and least < low else most if most is not None and most > high else None
            if bad is not None:
                raise FcanalyzeError(
                    f"{file} holds a row whose {column} is {bad}, which no job has ({low}..{high:,}); "
                    "correct that row or remove the file"
                )
    return table


def _with_columns_added(table: pa.Table, wanted: list[str]) -> pa.Table:
    """Columns a file lacks (parts written before a column was added; the shipped
    table, which leaves out the machine's figures) come back as nulls, in SCHEMA order."""
    for name in wanted:
        # A file without the key columns is not one of ours: leave them missing, so the
        # caller's check of the columns fails.
        if name not in table.column_names and name not in KEY:
            field = SCHEMA.field(name)
            table = table.append_column(field.with_nullable(True), pa.nulls(table.num_rows, field.type))
    return table.select([c for c in wanted if c in table.column_names])


def _write_atomically(table: pa.Table, file: Path, compressed: bool = True) -> None:
    """Readers see either the old file or the whole new one, never a partial write."""
    tmp = file.with_name(f".{file.name}.tmp")
    pq.write_table(pandas_readable(table), tmp, compression="zstd" if compressed else "none")
    os.replace(tmp, file)


@dataclass
class Dataset:
    """A dataset directory open for writing by one sweep at a time.

    Rows are appended to the current part file by rewriting it whole and renaming it
    into place, so a kill at any moment leaves every file complete. `replace` swaps
    rows for keys already stored, rewriting each file that holds them in one rename,
    so a key is never in two files.
    """

    path: Path
    # Where each stored key lives, and its status.
    where: dict[Key, Path] = field(default_factory=dict)
    status: dict[Key, str] = field(default_factory=dict)
    # The other files holding a key that `where` has (identical copies; empty as a rule).
    copies: dict[Key, list[Path]] = field(default_factory=dict)
    _lock: IO[str] | None = None
    # Why the dataset cannot be written (a read-only mount), or "" if it can.
    read_only: str = ""
    _current: Path | None = None
    _current_table: pa.Table = field(default_factory=empty_table)
    _rewrites: int = 0
    # Whether the current part's last write was compressed: a part still growing is
    # written plain, since compression is two thirds of a write's cost and the part will
    # be written again (measured: a 4-cell sweep encoded each row 2.75 times); its
    # last write, when it is full or at close(), is compressed.
    _current_compressed: bool = True

    @classmethod
    def open(cls, path: str | os.PathLike) -> Dataset:
        """Opens (creating) a dataset directory for writing; FcanalyzeError if it cannot be."""
        path = Path(path)
        try:
            lock = lock_directory(path)
        except ReadOnlyDirectory as e:
            # A finished dataset on a read-only mount can still say what it holds; the
            # sweep refuses only if it has jobs left to run.
            dataset = cls(path, read_only=e.reason)
            dataset._remember_files()
            return dataset
        dataset = cls(path, _lock=lock)
        # Temporaries are left only by a writer killed mid-write; the rename never happened.
        for tmp in path.glob(f".{PART_PREFIX}*.tmp"):
            tmp.unlink()
        try:
            dataset._remember_files()
        except BaseException:
            dataset.close()
            raise
        return dataset

    def _remember_files(self) -> None:
        """Indexes the part files' keys and statuses. A job held twice (a part file
        copied under a second name) is checked as read_dataset checks it: refused if
        its rows differ, else warned of; `replace` then leaves it in one file."""
        for file in part_files(self.path):
            self._remember(_read_part(file, ["deal", "variant", "cells", "status"]), file)
        if self.copies:
            read_dataset(self.path, ["deal", "variant", "cells", "status"])

    def close(self) -> None:
        """Compresses the part last grown, and lets go of the lock."""
        if self._current is not None and not self._current_compressed:
            try:
                _write_atomically(self._current_table, self._current)
                self._current_compressed = True
            except OSError:  # the plain file is whole and readable: only its size suffers
                pass
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def append(self, rows: Sequence[Row]) -> None:
        """Stores rows for keys not yet in the dataset."""
        if not rows:
            return
        table = rows_to_table(rows)
        start = 0
        while start < len(rows):
            if self._current is None or self._part_is_full(self._current_table.num_rows):
                self._current = self._new_part_name()
                self._current_table = empty_table()
                self._rewrites = 0
            self._rewrites += 1
            room = PART_ROWS - self._current_table.num_rows
            grown = pa.concat_tables([self._current_table, table.slice(start, room)])
            final = self._part_is_full(grown.num_rows)
            _write_atomically(grown, self._current, compressed=final)
            self._current_table, self._current_compressed = grown, final
            self._remember_rows(rows[start : start + room], self._current)
            start += room

    def replace(self, rows: Sequence[Row]) -> None:
        """Stores rows for keys already in the dataset in place of their old rows (and
        of any copies of them in other files, which leaves each key in one file)."""
        by_file: dict[Path, list[Row]] = {}
        dropped: dict[Path, set[Key]] = {}
        for row in rows:
            by_file.setdefault(self.where[row.key], []).append(row)
            for other in self.copies.pop(row.key, []):
                dropped.setdefault(other, set()).add(row.key)
        # Files that only lose copies go first: were the process killed between the
        # writes, the dataset would hold the old row once, not two different rows.
        for file in sorted(set(by_file) | set(dropped), key=lambda f: f in by_file):
            new_rows = by_file.get(file, [])
            old = self._current_table if file == self._current else _read_part(file)
            gone = dropped.get(file, set()) | {r.key for r in new_rows}
            keep = [
                (d, v, c) not in gone
                for d, v, c in zip(old["deal"].to_pylist(), old["variant"].to_pylist(), old["cells"].to_pylist())
            ]
            merged = pa.concat_tables(
                [old.filter(arrow_column(keep, pa.bool_())), rows_to_table(new_rows)], promote_options="default"
            )
            if not merged.num_rows and file != self._current:
                file.unlink()  # a copy that held nothing else
                continue
            _write_atomically(merged, file)
            if file == self._current:
                self._current_table, self._current_compressed = merged, True
            self._remember_rows(new_rows, file)

    def _remember(self, table: pa.Table, file: Path) -> None:
        keys = table.select(["deal", "variant", "cells", "status"]).to_pydict()
        where, status = self.where, self.status
        for deal, variant, cells, verdict in zip(keys["deal"], keys["variant"], keys["cells"], keys["status"]):
            key = (deal, variant, cells)
            if key in where:
                self.copies.setdefault(key, []).append(file)
                continue
            where[key] = file
            status[key] = verdict

    def _part_is_full(self, rows: int) -> bool:
        """Whether the current part, holding `rows`, takes no more: a new one starts."""
        return rows >= PART_ROWS or self._rewrites >= PART_REWRITES

    def _remember_rows(self, rows: Sequence[Row], file: Path) -> None:
        # The rows at hand, not the table made of them: reading keys back out of Arrow
        # cost a sweep's main process a tenth of its Parquet time.
        for row in rows:
            key = row.key
            self.where[key] = file
            self.status[key] = row.status

    def _new_part_name(self) -> Path:
        # Time first so that names sort in the order the parts were begun.
        stamp = f"{os.getpid()}-{len(part_files(self.path)):05d}"
        return self.path / f"{PART_PREFIX}{time.strftime('%Y%m%dT%H%M%S')}-{stamp}{PART_SUFFIX}"

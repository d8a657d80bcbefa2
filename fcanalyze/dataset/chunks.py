"""The cluster layout of a dataset: one part file per chunk of deals, named by it, in shard=N folders, on any fsspec filesystem.

A cluster sweep's workers write their rows straight to the dataset location (a
shared directory or an object store URL such as s3://bucket/sweep) as

    <location>/shard=0042/freecell.c4.0042000001-0042004096.parquet

one file per chunk: a variant, a cell count and a run of consecutive deals, every
one of which has its row in that file and in no other. Shard N holds deals
N * SHARD_DEALS + 1 .. (N + 1) * SHARD_DEALS, a hive-style folder, so that pyarrow,
Dask, DuckDB and polars can skip shards by deal range (the files also carry every
column, `cells` and `variant` included). The names alone say which jobs are done:
resuming lists the shards it reaches and never reads a row. A task run twice (Dask
retries a task whose worker died after it wrote) writes the same name again.

A file appears whole or not at all: on a filesystem by a rename, on an object store
by a single upload, which the store makes visible only once it is complete.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import FcanalyzeError
from ..outputs import write_atomically
from .typed import pandas_readable

SHARD_DEALS = 1_000_000
SHARD_PREFIX = "shard="
# A hidden file `.<chunk file name>.begun` beside the chunks: its task has begun.
MARK = ".begun"
_SHARD = re.compile(r"shard=(\d+)")
_CHUNK = re.compile(r"(?P<variant>[^/]+)\.c(?P<cells>\d+)\.(?P<first>\d{10})-(?P<last>\d{10})\.parquet")


def shard_of(deal: int) -> int:
    return (deal - 1) // SHARD_DEALS


def shard_deals(shard: int) -> tuple[int, int]:
    """The first and last deal of a shard."""
    return shard * SHARD_DEALS + 1, (shard + 1) * SHARD_DEALS


def shard_folder(shard: int) -> str:
    return f"{SHARD_PREFIX}{shard:04d}"


@dataclass(frozen=True)
class Chunk:
    """A variant's jobs with one cell count for the deals first..last, all of them."""

    variant: str
    cells: int
    first: int
    last: int

    @property
    def shard(self) -> int:
        return shard_of(self.first)

    @property
    def deals(self) -> range:
        return range(self.first, self.last + 1)

    def __len__(self) -> int:
        return self.last - self.first + 1

    def overlaps(self, first: int, last: int) -> bool:
        return self.first <= last and first <= self.last

    def file_name(self) -> str:
        # The variant quoted (freecell%2Ctakeback%3Dyes): no '=' or '/' in a name.
        return f"{quote(self.variant, safe='')}.c{self.cells}.{self.first:010d}-{self.last:010d}.parquet"

    def path(self, root: str) -> str:
        return f"{root}/{shard_folder(self.shard)}/{self.file_name()}"

    @classmethod
    def from_file_name(cls, name: str) -> Chunk | None:
        m = _CHUNK.fullmatch(name)
        if m is None:
            return None
        return cls(unquote(m["variant"]), int(m["cells"]), int(m["first"]), int(m["last"]))


def is_local(location: str) -> bool:
    return "://" not in location or location.startswith("file://")


class ChunkStore:
    """A dataset location seen through fsspec: its chunk files listed, read and written."""

    def __init__(self, location: str | os.PathLike):
        self.location = str(location)
        try:
            import fsspec
        except ImportError:
            raise FcanalyzeError("a cluster sweep needs fsspec: pip install 'fcanalyze[dask]'") from None
        try:
            self.fs, self.root = fsspec.core.url_to_fs(self.location)
        except (ImportError, ValueError) as e:
            raise FcanalyzeError(f"cannot use {self.location} as a dataset location: {e}") from None
        self.root = self.root.rstrip("/") or "/"
        self.local = type(self.fs).__name__ == "LocalFileSystem"

    def __reduce__(self):
        # Sent to the workers as its location; each opens its own filesystem.
        return (ChunkStore, (self.location,))

    def chunks_in(self, shard: int) -> list[Chunk]:
        """The chunk files of a shard (one listing; no file is opened)."""
        return self.listing(shard)[0]

    def listing(self, shard: int) -> tuple[list[Chunk], list[Chunk]]:
        """A shard's chunks written, and those whose task has begun and not written
        its file (it is running, or it died; see mark)."""
        folder = f"{self.root}/{shard_folder(shard)}"
        # Object stores' filesystems cache listings; chunks written since by other
        # workers must show.
        self.fs.invalidate_cache(folder)
        try:
            names = [name.rsplit("/", 1)[-1] for name in self.fs.ls(folder, detail=False)]
        except FileNotFoundError:
            return [], []
        written = [c for c in map(Chunk.from_file_name, names) if c is not None]
        begun = (Chunk.from_file_name(n[1 : -len(MARK)]) for n in names if n.startswith(".") and n.endswith(MARK))
        done = set(written)
        return written, [c for c in begun if c is not None and c not in done]

    def mark(self, chunk: Chunk) -> None:
        """Says that a task has begun the chunk: a sweep resumed while it may still be
        running (its client was stopped or killed; Dask does not stop a running task)
        runs that chunk again with the same bounds, so that the two write the same
        file and never two files holding the same jobs."""
        if self.local:
            self.fs.makedirs(f"{self.root}/{shard_folder(chunk.shard)}", exist_ok=True)
        self.fs.pipe_file(self._mark_path(chunk), b"")

    def unmark(self, chunk: Chunk) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.fs.rm_file(self._mark_path(chunk))

    def _mark_path(self, chunk: Chunk) -> str:
        return f"{self.root}/{shard_folder(chunk.shard)}/.{chunk.file_name()}{MARK}"

    def shards(self) -> list[int]:
        """The shard folders there are."""
        try:
            names = self.fs.ls(self.root, detail=False)
        except FileNotFoundError:
            return []
        found = (_SHARD.fullmatch(name.rstrip("/").rsplit("/", 1)[-1]) for name in names)
        return sorted(int(m[1]) for m in found if m is not None)

    def read(self, chunk: Chunk, columns: list[str] | None = None) -> pa.Table:
        with self.fs.open(chunk.path(self.root), "rb") as f:
            return pq.read_table(f, columns=columns)

    def write(self, chunk: Chunk, table: pa.Table) -> int:
        """Writes a chunk's file whole (replacing one of the same name); returns its size."""
        buffer = io.BytesIO()
        pq.write_table(pandas_readable(table), buffer, compression="zstd")
        data = buffer.getvalue()
        path = chunk.path(self.root)
        folder = path.rsplit("/", 1)[0]
        if self.local:
            self.fs.makedirs(folder, exist_ok=True)
            write_atomically(Path(path), lambda tmp: tmp.write_bytes(data))
        else:
            self.fs.pipe_file(path, data)
        return len(data)

"""The cluster layout: chunk names, the plan's ranges and gaps, and a worker's task run here against an in-memory object store."""

from __future__ import annotations

import itertools
import tracemalloc
import uuid

import pytest

pytest.importorskip("fsspec", reason="the dask extra is not installed (pip install 'fcanalyze[dask]')")

from conftest import verdicts_at

from fcanalyze.dataset.chunks import SHARD_DEALS, Chunk, ChunkStore, shard_of
from fcanalyze.dataset.store import SCHEMA, read_dataset
from fcanalyze.game.variant import Variant
from fcanalyze.solving.budgets import Budgets
from fcanalyze.sweep.cluster import chunk_deals, deal_ranges, gaps, run_chunk
from fcanalyze.sweep.solutions import HARD_NODES

UNLIMITED = Budgets(None, None, 1 << 30)


def memory_store() -> ChunkStore:
    """A fresh location in fsspec's in-memory filesystem: not a local one, so files
    are written the way an object store takes them, in one upload."""
    store = ChunkStore(f"memory://fcanalyze-{uuid.uuid4().hex}/sweep")
    assert not store.local
    return store


@pytest.mark.parametrize("variant", ["freecell", "freecell,takeback=yes", "seahaven", "eightoff"])
def test_a_chunk_is_named_by_what_it_holds(variant):
    chunk = Chunk(variant, 3, 8_589_000_001, 8_589_934_591)
    name = chunk.file_name()
    assert "/" not in name and "=" not in name
    assert Chunk.from_file_name(name) == chunk
    assert chunk.path("root") == f"root/shard=8589/{name}"
    assert Chunk.from_file_name("part-20260101T000000-1-00000.parquet") is None


def test_ranges_are_lazy_aligned_and_stay_in_their_shard():
    spans = [(1, 8_589_934_591)]
    first = list(itertools.islice(deal_ranges(spans, 20_000), 3))
    assert first == [(1, 20_000), (20_001, 40_000), (40_001, 60_000)]
    tracemalloc.start()
    last = None
    for last in itertools.islice(deal_ranges([(999_990_001, 8_589_934_591)], 20_000), 200_000):
        assert shard_of(last[0]) == shard_of(last[1])
    assert tracemalloc.get_traced_memory()[1] < 1 << 20
    tracemalloc.stop()
    # Ranges begin where the sweep does, end at the next multiple of the size.
    assert list(deal_ranges([(15, 47), (999_999, 1_000_002)], 10)) == [
        (15, 20), (21, 30), (31, 40), (41, 47), (999_999, 1_000_000), (1_000_001, 1_000_002),
    ]  # fmt: skip
    # Every deal once, in order.
    got = [d for a, b in deal_ranges([(3, 70), (90, 90), (120, 135)], 20) for d in range(a, b + 1)]
    assert got == [*range(3, 71), 90, *range(120, 136)]


def test_chunk_sizes_divide_a_shard_and_give_every_thread_work():
    assert chunk_deals(8_589_934_591, [4], 400) == 20_000
    assert chunk_deals(8_589_934_591, [4, 2, 1], 400) == 200
    assert chunk_deals(1000, [4], 2) == 50
    assert chunk_deals(3, [4], 2) == 1
    for deals, cells, threads in [(10**6, [4], 2), (32_000, [0, 1, 2, 3, 4], 2), (7, [1], 64)]:
        size = chunk_deals(deals, cells, threads)
        assert SHARD_DEALS % size == 0 and size <= max(1, deals // (threads * 8))


def test_gaps_are_what_no_chunk_covers():
    c = [Chunk("freecell", 4, a, b) for a, b in [(11, 20), (31, 35), (36, 40)]]
    assert gaps(1, 50, c) == [(1, 10), (21, 30), (41, 50)]
    assert gaps(11, 20, c) == []
    assert gaps(15, 33, c) == [(21, 30)]
    assert gaps(1, 5, []) == [(1, 5)]


def test_a_task_writes_its_chunk_whole_and_reads_back_the_same_verdicts():
    store = memory_store()
    rules = Variant.parse("freecell", cells=2)
    done = run_chunk(store, Chunk("freecell", 2, 1, 40), rules, UNLIMITED, "all", retry=False)
    assert sum(done.counts.values()) == 40 and done.bytes_written > 0
    assert [c.file_name() for c in store.chunks_in(0)] == [Chunk("freecell", 2, 1, 40).file_name()]
    table = read_dataset(store.location)
    assert table.schema == SCHEMA
    assert {r["deal"]: r["status"] for r in table.to_pylist()} == {d: v for d, v in verdicts_at(2).items() if d <= 40}
    assert all(r["verified"] for r in table.to_pylist() if r["status"] == "solved")


def test_a_task_with_fewer_cells_settles_the_deals_proved_unsolvable_with_more():
    store = memory_store()
    rules = Variant.parse("freecell", cells=2)
    run_chunk(store, Chunk("freecell", 2, 1, 60), rules, UNLIMITED, "all", retry=False)
    # Chunks at 1 cell need not line up with those at 2.
    run_chunk(store, Chunk("freecell", 1, 21, 50), rules, UNLIMITED, "all", retry=False)
    rows = {(r["deal"], r["cells"]): r for r in read_dataset(store.location).to_pylist()}
    unsolvable_at_2 = [d for d in range(21, 51) if rows[(d, 2)]["status"] == "unsolvable"]
    assert unsolvable_at_2  # deals 1..200 have 35 of them
    for d in range(21, 51):
        implied = rows[(d, 1)]["implied_by"]
        assert implied == (2 if d in unsolvable_at_2 else None)
        assert rows[(d, 1)]["status"] == verdicts_at(1)[d]


def test_a_retried_task_runs_only_the_undecided_rows_and_keeps_the_rest():
    store = memory_store()
    chunk = Chunk("freecell", 4, 1, 30)
    rules = Variant.parse("freecell")
    first = run_chunk(store, chunk, rules, Budgets(200, None, 1 << 30), "all", retry=False)
    assert 0 < first.counts["unknown"] < 30
    before = {r["deal"]: r for r in store.read(chunk).to_pylist()}
    again = run_chunk(store, chunk, rules, UNLIMITED, "all", retry=True)
    assert again.retried and again.counts == {"solved": first.counts["unknown"]}
    after = {r["deal"]: r for r in store.read(chunk).to_pylist()}
    assert sorted(after) == list(range(1, 31))
    for deal, row in before.items():
        if row["status"] == "solved":
            assert after[deal] == row  # not run again
        assert after[deal]["status"] == "solved"
    # Nothing left to retry: the file is not written again.
    assert run_chunk(store, chunk, rules, UNLIMITED, "all", retry=True).bytes_written == 0


def test_compact_rows_keep_their_figures_and_drop_solutions():
    rules = Variant.parse("freecell", cells=1)
    sizes = {}
    tables = {}
    for solutions in ("all", "none", "hard"):
        store = memory_store()
        done = run_chunk(store, Chunk("freecell", 1, 1, 200), rules, UNLIMITED, solutions, retry=False)
        sizes[solutions] = done.bytes_written
        tables[solutions] = store.read(Chunk("freecell", 1, 1, 200)).to_pylist()
    assert sizes["none"] < sizes["hard"] < sizes["all"]
    for full, bare, hard in zip(tables["all"], tables["none"], tables["hard"]):
        assert bare["solution"] is None and bare["moves"] == full["moves"] and bare["status"] == full["status"]
        keeps = full["status"] == "solved" and full["nodes"] >= HARD_NODES
        assert hard["solution"] == (full["solution"] if keeps else None)
    assert any(r["solution"] for r in tables["hard"])


def test_a_retried_chunk_reruns_only_the_sweeps_deals_and_counts_only_them():
    store = memory_store()
    chunk = Chunk("freecell", 4, 1, 30)
    rules = Variant.parse("freecell")
    run_chunk(store, chunk, rules, Budgets(200, None, 1 << 30), "all", retry=False)
    before = {r["deal"]: r for r in store.read(chunk).to_pylist()}
    unknown = sorted(d for d, r in before.items() if r["status"] == "unknown")
    mine = [(unknown[0], unknown[0])]
    again = run_chunk(store, chunk, rules, UNLIMITED, "all", retry=True, within=mine)
    assert again.counts == {"solved": 1}
    after = {r["deal"]: r for r in store.read(chunk).to_pylist()}
    assert after[unknown[0]]["status"] == "solved"
    assert all(after[d] == before[d] for d in unknown[1:])  # not the sweep's: left alone


def test_a_task_marks_its_chunk_begun_until_its_file_is_written():
    store = memory_store()
    chunk = Chunk("freecell", 4, 1, 10)
    store.mark(chunk)
    assert store.listing(0) == ([], [chunk])
    run_chunk(store, chunk, Variant.parse("freecell"), UNLIMITED, "all", retry=False)
    assert store.listing(0) == ([chunk], [])
    assert sorted(read_dataset(store.location)["deal"].to_pylist()) == list(range(1, 11))

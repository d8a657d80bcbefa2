"""Verdicts settled without a search hold up against the search: a sweep's implied rows against direct solves."""

from __future__ import annotations

from fcanalyze.dataset.store import read_dataset
from fcanalyze.solving.solve import solve
from fcanalyze.sweep import run_sweep


def test_implied_unsolvable_rows_agree_with_searching_those_jobs(tmp_path):
    out = tmp_path / "sweep"
    run_sweep("1-60", "0-2", out, workers=2)
    rows = read_dataset(out).to_pylist()
    implied = [r for r in rows if r["implied_by"] is not None]
    by_key = {(r["deal"], r["cells"]): r for r in rows}
    searched = {key: r for key, r in by_key.items() if r["implied_by"] is None}
    # Deals 1..60 include deals lost with 2 cells (so with 1 and 0 too) and with 1 cell.
    assert {r["implied_by"] for r in implied} == {1, 2}
    for r in implied:
        assert r["status"] == "unsolvable" and r["nodes"] is None and r["seconds"] is None
        # implied_by names a larger count that is unsolvable, searched or implied in turn:
        # the chain ends in a search's proof.
        proof = by_key[(r["deal"], r["implied_by"])]
        while proof["implied_by"] is not None:
            assert proof["implied_by"] > proof["cells"]
            proof = by_key[(r["deal"], proof["implied_by"])]
        assert proof["status"] == "unsolvable" and proof["nodes"] > 0
        direct = solve(r["deal"], cells=r["cells"])
        assert direct.status == "unsolvable", (r["deal"], r["cells"])
    # Every job whose deal was not proved lost with more cells was searched.
    for deal, cells in searched:
        more = [searched.get((deal, k)) for k in range(cells + 1, 3)]
        assert not any(m is not None and m["status"] == "unsolvable" for m in more), (deal, cells)

"""The shipped take-back table: every job there, verdicts monotone in cells and never worse than the classic table's, solutions that replay under take-back, and lookups."""

from __future__ import annotations

import json
import random

import pyarrow.parquet as pq
import pytest

from fcanalyze import Variant, microsoft_deal
from fcanalyze.dataset.store import SCHEMA
from fcanalyze.referee.replay import replay
from fcanalyze.tables.published import CLASSIC_DEALS
from fcanalyze.tables.shipped import CLASSIC, MACHINE_COLUMNS, TAKEBACK, TAKEBACK_CELLS, lookup, table_path

pytestmark = pytest.mark.skipif(not table_path(TAKEBACK).is_file(), reason="the take-back table is not built")


def _verdicts(path) -> dict[tuple[int, int], str]:
    t = pq.read_table(path, columns=["deal", "cells", "status"])
    return {(d, k): s for d, k, s in zip(*(t[c].to_pylist() for c in ("deal", "cells", "status")))}


@pytest.fixture(scope="module")
def table():
    return pq.read_table(table_path(TAKEBACK))


def test_every_job_is_there_under_its_canonical_name_with_the_sweeps_schema(table):
    assert table.num_rows == CLASSIC_DEALS * len(TAKEBACK_CELLS)
    assert set(table["variant"].to_pylist()) == {TAKEBACK}
    assert set(table["cells"].to_pylist()) == set(TAKEBACK_CELLS)
    assert table.schema.names == [f.name for f in SCHEMA if f.name not in MACHINE_COLUMNS]
    assert "error" not in set(table["status"].to_pylist())


def test_take_back_never_loses_what_the_classic_rules_or_more_cells_win(table):
    takeback, classic = _verdicts(table_path(TAKEBACK)), _verdicts(table_path(CLASSIC))
    gained = {k: 0 for k in TAKEBACK_CELLS}
    for (deal, cells), status in takeback.items():
        if classic[(deal, cells)] == "solved":
            # Take-back only adds moves; and every such job was won with a line of its own.
            assert status == "solved", (deal, cells)
        if status == "unsolvable":
            assert classic[(deal, cells)] == "unsolvable", (deal, cells)
        gained[cells] += status == "solved" and classic[(deal, cells)] == "unsolvable"
        for more in (k for k in TAKEBACK_CELLS if k > cells):
            if status == "solved":
                assert takeback[(deal, more)] != "unsolvable", (deal, cells, more)
    # Jobs left undecided (a budget ran out) are the 6 of docs/takeback.md; a patch only
    # ever decides more of them. 20410 with 1 cell took a layered proof of 1.8 billion
    # positions (scripts/build_table.py --proved).
    assert sum(status not in ("solved", "unsolvable") for status in takeback.values()) <= 6
    assert takeback[(20410, 1)] == "unsolvable" and classic[(20410, 1)] == "unsolvable"
    # The answer the table exists for (docs/takeback.md): none with 4 cells, some with 2 and 1.
    assert gained[4] == 0 and takeback[(11982, 4)] == "unsolvable"
    assert gained[2] > 100 and gained[1] > 200
    assert takeback[(90, 1)] == "solved" and classic[(90, 1)] == "unsolvable"


def test_a_sample_of_its_solutions_replays_under_take_back_and_not_all_without(table):
    rows = [r for r in table.to_pylist() if r["status"] == "solved"]
    classic = _verdicts(table_path(CLASSIC))
    gains = [r for r in rows if classic[(r["deal"], r["cells"])] == "unsolvable"]
    sample = random.Random(14).sample(rows, 150) + random.Random(15).sample(gains, 50)
    for r in sample:
        rules = Variant.parse(TAKEBACK, cells=r["cells"])
        verdict = replay(microsoft_deal(r["deal"], rules), rules, r["solution"])
        assert verdict.won, (r["deal"], r["cells"], verdict.summary())
        assert (verdict.moves, verdict.score) == (r["moves"], r["score"])
    # A deal won only with take-back must take a card back: the classic referee refuses it.
    # 14790 with 2 cells is the hardest of them: 91 million positions to prove it lost
    # without take-back, 167 moves to win it with.
    hardest = [r for r in gains if (r["deal"], r["cells"]) == (14790, 2)]
    assert len(hardest) == 1
    for r in gains[:20] + hardest:
        rules = Variant.parse(TAKEBACK, cells=r["cells"])
        assert replay(microsoft_deal(r["deal"], rules), rules, r["solution"]).won
        plain = Variant(cells=r["cells"])
        assert not replay(microsoft_deal(r["deal"], plain), plain, r["solution"]).won


def test_lookup_takeback(run_cli):
    done = run_cli("lookup", "90", "--takeback")
    assert done.exit_code == 0, done.output
    assert "FreeCell with take-back" in done.output and "microsoft-32000-takeback.parquet" in done.output
    facts = json.loads(run_cli("lookup", "90", "--takeback", "--json").output)
    assert facts["variant"] == TAKEBACK and facts["cells"]["1"]["status"] == "solved"
    assert facts["min_cells"] == 1 and facts["min_cells_exact"] is False  # 0 cells is not in the table
    facts_90 = lookup(90, variant=TAKEBACK)
    assert facts_90 is not None and facts_90.verdicts[1].solution is not None
    assert any(token[0] == "h" for token in facts_90.verdicts[1].solution.split())  # hs3: a take-back


def test_lookup_says_which_cell_counts_the_table_has(run_cli):
    """The take-back table has 4, 2 and 1 cells: asking for another count is bad input
    (exit 2), and a deal won with 1 cell is won 'at most' with 1 because 0 was never run,
    not because 0 is undecided."""
    done = run_cli("lookup", "90", "--takeback")
    assert "fewest cells that win it: at most 1 (the table has no fewer cells)" in done.output
    for k in ("0", "3"):
        asked = run_cli("lookup", "90", "--takeback", "--solution", k)
        assert asked.exit_code == 2 and asked.stdout == ""
        assert asked.stderr.startswith(f"Error: the take-back table has 4, 2 and 1 cells; got --solution {k}")
    assert run_cli("lookup", "90", "--takeback", "--solution", "1").exit_code == 0


def test_every_won_line_has_a_proved_lower_bound_that_no_line_of_either_table_beats(table):
    """The optimum of every won take-back job lies in [shortest_bound, non_foundation_moves],
    marked proved exactly where the two meet. Every line of the classic rules is legal
    under take-back, so no classic line of the same job may be shorter than the bound:
    one would refute it."""
    rows = table.select(["deal", "cells", "status", "shortest_bound", "non_foundation_moves", "shortest_proved"])
    rows = [r for r in rows.to_pylist() if r["status"] == "solved"]
    assert rows and all(r["shortest_bound"] is not None and r["non_foundation_moves"] is not None for r in rows)
    assert all(r["shortest_bound"] <= r["non_foundation_moves"] for r in rows)
    assert all(bool(r["shortest_proved"]) == (r["shortest_bound"] == r["non_foundation_moves"]) for r in rows)
    classic = pq.read_table(table_path(CLASSIC), columns=["deal", "cells", "status", "non_foundation_moves"])
    classic_line = {
        (d, k): n
        for d, k, s, n in zip(*(classic[c].to_pylist() for c in ("deal", "cells", "status", "non_foundation_moves")))
        if s == "solved"
    }
    beside = [(r, classic_line[(r["deal"], r["cells"])]) for r in rows if (r["deal"], r["cells"]) in classic_line]
    assert len(beside) > 60_000
    assert all(r["shortest_bound"] <= line for r, line in beside)
    # The lines are shortened: none longer than the classic line of its job (which take-back
    # may always play), and on average within a few moves of the bound at 4 cells.
    assert all(r["non_foundation_moves"] <= line for r, line in beside)
    four = [r for r in rows if r["cells"] == 4]
    assert sum(r["non_foundation_moves"] - r["shortest_bound"] for r in four) / len(four) < 5
    # Not the trivial bound (the empty tableau's 0): some lines are proved with it.
    assert sum(r["shortest_proved"] for r in rows) > 1_000
    assert min(r["shortest_bound"] for r in rows) > 0

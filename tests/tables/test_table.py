"""The shipped deal table: the published counts, verdicts monotone in cells, solutions that replay, the sweep's schema, and lookups."""

from __future__ import annotations

import collections
import json
import random

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from fcanalyze import Variant, microsoft_deal
from fcanalyze.dataset.store import SCHEMA, read_dataset
from fcanalyze.referee.replay import replay
from fcanalyze.tables.published import CLASSIC_DEALS, IMPOSSIBLE_EXTENDED_4_CELLS, WINNABLE_CLASSIC
from fcanalyze.tables.shipped import (
    EXTENDED_NAME,
    LONG_JOB_NODES,
    MACHINE_COLUMNS,
    TABLE_CELLS,
    TAKEBACK,
    extended_facts,
    long_jobs,
    lookup,
    settled_in_table,
    table_path,
)

pytestmark = pytest.mark.skipif(not table_path().is_file(), reason="the deal table is not built")


@pytest.fixture(scope="module")
def table():
    return pq.read_table(table_path())


def test_its_schema_is_the_sweeps_without_the_machine_columns(table):
    expected = [f for f in SCHEMA if f.name not in MACHINE_COLUMNS]
    assert table.schema.names == [f.name for f in expected]
    assert table.schema.types == [f.type for f in expected]
    # And reading it as a dataset gives the whole schema back, the machine's columns null.
    full = read_dataset(table_path())
    assert full.schema.names == SCHEMA.names
    assert full["host"].null_count == full.num_rows


@pytest.mark.parametrize("variant", ["freecell", TAKEBACK])
def test_no_row_names_a_path_of_the_machine_that_made_it(variant):
    budgets = pq.read_table(table_path(variant), columns=["budgets"])["budgets"]
    spills = {b.split("spill_dir=")[1].split(",")[0] for b in budgets.to_pylist() if "spill_dir=" in b}
    assert spills <= {"given"}, spills


def test_every_job_is_there_and_its_counts_agree_with_the_published_ones(table):
    assert table.num_rows == CLASSIC_DEALS * len(TABLE_CELLS)
    undecided = 0
    for cells in TABLE_CELLS:
        rows = table.filter(pc.equal(table["cells"], cells))
        assert sorted(set(rows["deal"].to_pylist())) == list(range(1, CLASSIC_DEALS + 1))
        status = rows["status"].to_pylist()
        solved, unsolvable, unknown = (status.count(s) for s in ("solved", "unsolvable", "unknown"))
        assert solved + unsolvable + unknown == CLASSIC_DEALS, cells  # no error rows
        # Every decided verdict fits the published counts; with nothing unknown, they are them.
        assert solved <= WINNABLE_CLASSIC[cells] and unsolvable <= CLASSIC_DEALS - WINNABLE_CLASSIC[cells], cells
        if unknown == 0:
            assert solved == WINNABLE_CLASSIC[cells], cells
        undecided += unknown
    # Every job is decided: the last two, 24966 with 1 cell and 982 with 2, were proved
    # lost by layered proofs of 3.05 and 3.10 billion positions. A patch only ever
    # decides more.
    assert undecided == 0


def test_verdicts_are_monotone_in_cells(table):
    won = {k: set() for k in TABLE_CELLS}
    for deal, cells, status in zip(table["deal"].to_pylist(), table["cells"].to_pylist(), table["status"].to_pylist()):
        if status == "solved":
            won[cells].add(deal)
    for fewer, more in zip(TABLE_CELLS, TABLE_CELLS[1:]):
        assert won[fewer] <= won[more], (
            f"won with {fewer} cells but lost with {more}: {sorted(won[fewer] - won[more])[:10]}"
        )


def test_solved_rows_carry_a_verified_solution_and_implied_rows_no_search(table):
    rows = table.to_pylist()
    for r in rows:
        if r["status"] == "solved":
            assert r["verified"] and r["solution"] and r["implied_by"] is None and r["moves"] > 0
        elif r["implied_by"] is not None:
            assert r["status"] == "unsolvable" and r["implied_by"] > r["cells"] and r["nodes"] is None
    implied = [r for r in rows if r["implied_by"] is not None]
    proved = {(r["deal"], r["cells"]) for r in rows if r["status"] == "unsolvable"}
    assert implied and all((r["deal"], r["implied_by"]) in proved for r in implied)


def test_a_random_sample_of_solutions_replays_in_the_referee(table):
    solved = (
        table.filter(pc.equal(table["status"], "solved")).select(["deal", "cells", "solution", "moves"]).to_pylist()
    )
    # The longest ones too, which came from the exhaustive pass.
    sample = random.Random(2026).sample(solved, 150) + sorted(solved, key=lambda r: -r["moves"])[:10]
    for r in sample:
        variant = Variant(cells=r["cells"])
        verdict = replay(microsoft_deal(r["deal"], variant), variant, r["solution"])
        assert verdict.won, (r["deal"], r["cells"], verdict.summary())
        assert verdict.moves == r["moves"]


@pytest.mark.slow
def test_every_solution_replays_in_the_referee(table):
    solved = table.filter(pc.equal(table["status"], "solved")).select(["deal", "cells", "solution"]).to_pylist()
    for r in solved:
        variant = Variant(cells=r["cells"])
        assert replay(microsoft_deal(r["deal"], variant), variant, r["solution"]).won, (r["deal"], r["cells"])


def test_lookup_gives_every_cell_count_and_the_fewest_cells():
    facts = lookup(11982)
    assert sorted(facts.verdicts) == [0, 1, 2, 3, 4]
    assert facts.verdicts[4].status == "unsolvable" and facts.min_cells is None
    assert lookup(40000) is None and lookup(0) is None


def test_lookup_command_and_its_solution_round_trip_through_verify(run_cli, tmp_path):
    shown = run_cli("lookup", "617")
    assert shown.exit_code == 0, shown.output
    lines = shown.output.splitlines()
    assert lines[1].split() == ["cells", "verdict", "moves", "no", "home", "card", "moves", "score", "how"]
    assert [line.split()[0] for line in lines[2:7]] == ["4", "3", "2", "1", "0"]
    least = lookup(617).min_cells
    assert f"fewest cells that win it: {least}" in shown.output
    solution = run_cli("lookup", "617", "--solution", least)
    assert solution.exit_code == 0
    (tmp_path / "sol.txt").write_text(solution.output)
    verified = run_cli("verify", "--deal", "617", "--cells", least, tmp_path / "sol.txt")
    assert verified.exit_code == 0 and "OK: wins" in verified.output
    # The table's score is the referee's score of the same solution.
    assert verified.output.rstrip().endswith(f"score {lookup(617).verdicts[least].score}")
    as_json = json.loads(run_cli("lookup", "617", "--json").output)
    assert as_json["min_cells"] == least and set(as_json["cells"]) == {"0", "1", "2", "3", "4"}


def test_lookup_outside_the_table_points_to_solve(run_cli):
    result = run_cli("lookup", "40000")
    assert result.exit_code == 1
    assert "fcanalyze solve 40000" in result.output
    assert run_cli("lookup", "0").exit_code == 2
    takeback = run_cli("lookup", "40000", "--takeback")
    assert takeback.exit_code == 1 and "--variant freecell,takeback=yes" in takeback.output


def test_lookup_gives_one_solution_as_json_too(run_cli):
    text = run_cli("lookup", "617", "--solution", "4").output.strip()
    as_json = json.loads(run_cli("lookup", "617", "--solution", "4", "--json").output)
    assert as_json == {"deal": 617, "variant": "freecell", "cells": 4, "solution": text}


def test_the_tables_say_how_they_settle_a_sweeps_undecided_jobs(table):
    """Each key is counted by the table of its own rules, as that table has it; jobs the
    tables do not hold (other rules, deals past 32,000, cell counts outside the table,
    or undecided there too) count nothing."""
    keys = [(982, "freecell", 2), (7567, "freecell", 1), (1, "freecell", 4), (1, "freecell", 3)]
    expected = collections.Counter(lookup(d).verdicts[k].status for d, _, k in keys)
    assert settled_in_table(keys) == expected == {"unsolvable": 1, "solved": 3}
    outside = [(40_000, "freecell", 4), (982, "bakers-game", 2), (982, "freecell", 5), (982, TAKEBACK, 2)]
    assert lookup(982, variant=TAKEBACK).verdicts[2].status == "unknown"
    assert settled_in_table(outside) == {}


def test_the_long_jobs_a_sweep_starts_first_are_the_tables_searches_of_20_million_or_more(table):
    rows = table.select(["deal", "cells", "nodes"]).to_pylist()
    expected = {(r["deal"], r["cells"]): r["nodes"] for r in rows if (r["nodes"] or 0) >= LONG_JOB_NODES}
    assert long_jobs("freecell") == expected
    assert long_jobs("freecell")[(982, 2)] > 3_000_000_000 and (1, 4) not in long_jobs("freecell")
    assert all(cells in (1, 2) for _, cells in expected)
    assert (267, 2) in long_jobs(TAKEBACK) and long_jobs("bakers-game") == {}


def test_a_sweep_that_leaves_jobs_undecided_says_what_the_table_knows_of_them(run_cli, tmp_path):
    """982 with 2 cells needs a proof of 3.1 billion positions: a sweep with a small
    budget leaves it unknown, and says the shipped table has it lost, and how to look."""
    out = tmp_path / "ds"
    result = run_cli("sweep", "--deals", "982", "--cells", "2", "--max-nodes", "20000", "--out", out)
    assert result.exit_code == 0, result.output
    assert "The shipped table settles 1 of them (1 lost)" in result.output
    assert "fcanalyze lookup 982" in result.output
    assert read_dataset(out).to_pylist()[0]["status"] == "unknown"
    # Other rules: the same job, unknown after 100 positions, and no table to point to.
    other = run_cli("sweep", "--deals", "982", "--cells", "2", "--max-nodes", "100", "--variant", "bakers-game",
                    "--out", tmp_path / "b")  # fmt: skip
    assert other.exit_code == 0 and "without a verdict" in other.output and "shipped table" not in other.output


def test_fewest_cells_is_exact_only_when_no_smaller_count_is_undecided():
    from fcanalyze.tables.shipped import DealFacts, Verdict

    def facts(*statuses):
        return DealFacts(1, {k: Verdict(k, s, None, None, None, None, None, None) for k, s in enumerate(statuses)})

    lost_below = facts("unsolvable", "unsolvable", "solved", "solved", "solved")
    assert (lost_below.min_cells, lost_below.min_cells_exact) == (2, True)
    open_below = facts("unsolvable", "unknown", "solved", "solved", "solved")
    assert (open_below.min_cells, open_below.min_cells_exact) == (2, False)
    never = facts("unsolvable", "unsolvable", "unsolvable", "unsolvable", "unsolvable")
    assert (never.min_cells, never.min_cells_exact) == (None, False)


def test_a_table_built_before_scores_existed_still_answers(tmp_path):
    old = tmp_path / "old.parquet"
    pq.write_table(pq.read_table(table_path()).drop_columns(["score"]), old)
    facts = lookup(617, old)
    assert facts is not None and facts.verdicts[4].status == "solved" and facts.verdicts[4].score is None
    assert facts.verdicts[4].moves == lookup(617).verdicts[4].moves


def test_a_patch_replaces_only_undecided_rows_and_only_with_decided_ones(table):
    """scripts/build_table.py --patch: a retry's decided rows take the place of the
    table's undecided ones; decided rows stay as they were, and a retry that decided
    nothing changes nothing."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
    import build_table

    small = table.filter(pc.less_equal(table["deal"], 3))
    rows = small.to_pylist()
    # Deal 2 with 1 cell undecided in the table; the retry decides it, decides deal 1
    # with 1 cell again (decided in the table already), and leaves deal 3 undecided.
    by_key = {(r["deal"], r["cells"]): r for r in rows}
    truth = dict(by_key[(2, 1)])
    for r in rows:
        if (r["deal"], r["cells"]) in {(2, 1), (3, 1)}:
            r.update(status="unknown", solvable=None, limit="seconds", solution=None, moves=None, verified=False)
    before = small.from_pylist(rows, schema=small.schema)
    # As --patch reads a retry's dataset: the machine's columns dropped.
    retry = small.from_pylist(
        [
            {**truth, "budgets": "max_nodes=none,max_seconds=300,max_memory=8589934592"},
            {**by_key[(1, 1)], "budgets": "max_nodes=none,max_seconds=300,max_memory=8589934592"},
            {**by_key[(3, 1)], "status": "unknown", "limit": "seconds", "solution": None},
        ],
        schema=small.schema,
    )

    after = build_table.patched(before, retry)
    assert after.num_rows == before.num_rows
    got = {(r["deal"], r["cells"]): r for r in after.to_pylist()}
    assert got[(2, 1)]["status"] == truth["status"] and got[(2, 1)]["solution"] == truth["solution"]
    assert got[(2, 1)]["budgets"].endswith("max_seconds=300,max_memory=8589934592")
    assert got[(1, 1)] == by_key[(1, 1)]
    assert got[(3, 1)]["status"] == "unknown"
    assert after.schema == before.schema


def test_every_won_line_has_a_proved_lower_bound_at_most_its_length(table):
    """The optimum of every won classic job lies in [shortest_bound, non_foundation_moves],
    and a line is marked proved shortest exactly where the two meet."""
    won = table.filter(pc.equal(table["status"], "solved"))
    bounds, lengths = won["shortest_bound"].to_pylist(), won["non_foundation_moves"].to_pylist()
    proved = won["shortest_proved"].to_pylist()
    assert None not in bounds and None not in lengths
    assert all(b <= n for b, n in zip(bounds, lengths))
    assert [b == n for b, n in zip(bounds, lengths)] == proved
    # Not the trivial bound: most lines of 4 cells are within a few moves of theirs.
    gaps = [n - b for b, n, k in zip(bounds, lengths, won["cells"].to_pylist()) if k == 4]
    assert 0 < sum(gaps) / len(gaps) < 8
    lost = table.filter(pc.not_equal(table["status"], "solved"))
    assert lost["shortest_bound"].null_count == lost.num_rows


def test_lookup_of_a_list_or_range_prints_a_line_per_deal(run_cli):
    shown = run_cli("lookup", "1-3,617,11982")
    assert shown.exit_code == 0, shown.output
    header, *lines, legend = shown.stdout.splitlines()
    assert legend.startswith("won N: N moves not to a foundation")
    assert header.split() == [
        "deal",
        "4",
        "cells",
        "3",
        "cells",
        "2",
        "cells",
        "1",
        "cell",
        "0",
        "cells",
        "fewest",
        "cells",
    ]
    assert [int(line.split()[0]) for line in lines] == [1, 2, 3, 617, 11982]
    for line in lines:
        deal = int(line.split()[0])
        facts = lookup(deal)
        words = line.split()[1:]
        for k in (4, 3, 2, 1, 0):
            v = facts.verdicts[k]
            won = str(v.moves if v.non_foundation_moves is None else v.non_foundation_moves)
            expected = ["won", won + ("*" if v.shortest_proved else "")] if v.status == "solved" else ["lost"]
            if v.status == "solved" and not v.shortest_proved and v.shortest_bound is not None:
                expected.append(f"(>={v.shortest_bound})")
            assert words[: len(expected)] == expected, (deal, k)
            words = words[len(expected) :]
        fewest = " ".join(words)
        if facts.min_cells is None:
            assert fewest == "none (lost with 4)"
        else:
            assert fewest == (str(facts.min_cells) if facts.min_cells_exact else f"at most {facts.min_cells}")
    as_json = [json.loads(line) for line in run_cli("lookup", "1,5,617", "--json").stdout.splitlines()]
    assert as_json == [lookup(d).to_json() for d in (1, 5, 617)]
    takeback = run_cli("lookup", "89-90", "--takeback").stdout.splitlines()
    assert takeback[0].split()[1:7] == ["4", "cells", "2", "cells", "1", "cell"]
    won = lookup(90, variant=TAKEBACK).verdicts[4]
    shown_90 = str(won.moves if won.non_foundation_moves is None else won.non_foundation_moves)
    assert takeback[2].split()[:3] == ["90", "won", shown_90 + ("*" if won.shortest_proved else "")]


def test_lookup_of_a_list_says_which_deals_the_table_lacks(run_cli):
    past = run_cli("lookup", "31999-32002")
    assert past.exit_code == 1
    assert [line.split()[0] for line in past.stdout.splitlines()[1:-1]] == ["31999", "32000"]
    assert past.stderr.startswith("2 deal(s) of the list are past 32,000")
    for args, message in [
        (["5-1"], "bad deal range '5-1': it runs backwards"),
        (["1,2", "--solution", "4"], "--solution prints one deal's solution; give one deal number"),
    ]:
        refused = run_cli("lookup", *args)
        assert refused.exit_code == 2 and refused.stderr.startswith("Error: ") and message in refused.stderr
        assert len(refused.stderr.splitlines()) == 1


def test_the_extended_range_deals_proved_lost_are_looked_up_and_agree_with_the_published_proofs(run_cli):
    """The deals past 32,000 that the layered proofs showed lost with 4 cells (the file
    scripts/bench_intractable.py --record writes) answer `lookup`, lost with every
    fewer cell count too; each is one of the nine that the published 2016 proofs found
    impossible. A deal past 32,000 not in it is still not in the tables."""
    proved = extended_facts()
    assert proved, f"{EXTENDED_NAME} lists no deal"
    assert set(proved) <= set(IMPOSSIBLE_EXTENDED_4_CELLS)
    for deal, facts in proved.items():
        assert lookup(deal) == facts and facts.min_cells is None
        assert {k: v.status for k, v in facts.verdicts.items()} == dict.fromkeys((4, 3, 2, 1, 0), "unsolvable")
        assert facts.verdicts[4].states > 100_000_000 and facts.verdicts[3].implied_by == 4
    deal = min(proved)
    shown = run_cli("lookup", str(deal))
    assert shown.exit_code == 0 and EXTENDED_NAME in shown.stdout
    v = proved[deal].verdicts[4]
    assert (
        f"proved by exhaustive search ({v.states:,} positions reached, by fcanalyze {v.engine_version})" in shown.stdout
    )
    assert "fewest cells that win it: none (not even 4)" in shown.stdout
    listed = run_cli("lookup", f"31999-32001,{deal}")
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:-1]] == ["31999", "32000", str(deal)]
    assert listed.stdout.splitlines()[-2].split()[1:] == ["lost"] * 5 + ["none", "(lost", "with", "4)"]
    assert listed.exit_code == 1 and listed.stderr.startswith("1 deal(s) of the list are past 32,000")
    assert lookup(deal, variant=TAKEBACK) is None

"""A sweep's estimate before it runs: each job's cost from the shipped table's positions, jobs a proof with more cells settles left out, and --dry-run."""

from __future__ import annotations

import re

import pytest

from fcanalyze.sweep.estimate import JOB_SECONDS, POSITION_SECONDS, JobCosts, duration, estimate, table_effort


def test_a_job_costs_its_positions_in_the_table_up_to_its_time_budget():
    nodes = int(table_effort("freecell").nodes[982, 2])  # a proof of 3 billion positions
    capped = estimate([(982, 982)], [2], [], "freecell", 1, 90.0)
    assert capped.jobs == 1 and capped.known == 1 and capped.seconds == pytest.approx(90.5)
    whole = estimate([(982, 982)], [2], [], "freecell", 1, None)
    assert whole.seconds == pytest.approx(JOB_SECONDS + nodes * POSITION_SECONDS)


def test_a_job_a_proof_with_more_cells_settles_costs_nothing():
    # 11982 is lost with 4 cells: with 4 in the sweep, its 3-cell job is no search.
    both = estimate([(11982, 11982)], [4, 3], [], "freecell", 1, 90.0)
    assert both.jobs == 1
    alone = estimate([(11982, 11982)], [3], [], "freecell", 1, 90.0)
    assert alone.jobs == 1 and alone.seconds > 0


def test_jobs_done_cost_nothing():
    fresh = estimate([(1, 100)], [4], [], "freecell", 1, 90.0)
    half = estimate([(1, 100)], [4], [(d, 4) for d in range(1, 51)], "freecell", 1, 90.0)
    assert fresh.jobs == 100 and half.jobs == 50 and half.worker_seconds < fresh.worker_seconds


def test_jobs_are_laid_out_on_the_workers_the_long_ones_first():
    # Two long jobs and many short ones on two workers: the long ones run side by side.
    spans = [(982, 982), (24966, 24966), (1, 1000)]
    two = estimate(spans, [2, 1], [], "freecell", 2, 90.0)
    one = estimate(spans, [2, 1], [], "freecell", 1, 90.0)
    assert two.seconds < 0.6 * one.seconds and two.worker_seconds == pytest.approx(one.worker_seconds)


def test_deals_past_the_table_cost_a_typical_job():
    found = estimate([(40_000, 40_001)], [4], [], "freecell", 1, 90.0)
    assert found.known == 0 and found.jobs == 2 and 0 < found.seconds < 1


@pytest.mark.parametrize("seconds,text", [(5, "5 s"), (600, "10 min"), (3 * 3600, "3.0 h"), (3 * 86400, "3.0 days")])
def test_durations_read_in_their_own_unit(seconds, text):
    assert duration(seconds) == text


def test_dry_run_prints_the_plan_and_its_estimate_and_runs_nothing(tmp_path, run_cli):
    out = tmp_path / "ds"
    result = run_cli("sweep", "--deals", "1-1000", "--cells", "4,2,1", "--dry-run", "--out", out, "--workers", "2")
    assert result.exit_code == 0, result.output
    assert "freecell: 3,000 jobs to run (1,000 with 4, 1,000 with 2, 1,000 with 1)" in result.stdout
    assert re.search(r"about \d+ (s|min) on 2 workers \(from the shipped table's positions\)", result.stdout)
    assert not out.exists()


def test_a_sweeps_progress_advances_by_each_jobs_estimated_time_and_ends_at_its_total(tmp_path):
    """The progress of a sweep of deals 1..60 and 982 at 2 cells starts at the estimate's
    total, advances by each job's cost as its row comes in (982's, a proof of billions
    of positions capped at its time budget, counts for more than all the others), and
    ends exactly at its total."""
    from fcanalyze.sweep import sweep

    tallies = []
    sweep(
        [*range(1, 61), 982],
        cells=[2],
        out=tmp_path / "ds",
        workers=1,
        max_seconds=1,
        progress=lambda tally, final: tallies.append((tally, final)),
    )
    costs = JobCosts("freecell", 1)
    first, (last, final) = tallies[0][0], tallies[-1]
    expected = sum(costs(d, 2) for d in [*range(1, 61), 982])
    assert first.done == 0 and first.total == expected
    assert final and last.done == last.total == expected and last.ran == 61
    assert costs(982, 2) > sum(costs(d, 2) for d in range(1, 61))
    assert all(a.done <= b.done for (a, _), (b, _) in zip(tallies, tallies[1:]))

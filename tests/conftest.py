"""Shared test helpers: where the vectors are, and a runner for the real CLI."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

DATA = Path(__file__).parent / "data"


def read_deal_vectors() -> dict[int, str]:
    """Deal number -> board text, as Freecell Solver's generator printed it."""
    deals: dict[int, str] = {}
    number = None
    for line in (DATA / "fcsolve_deals.txt").read_text().splitlines(keepends=True):
        if line.startswith("#"):
            continue
        if line.startswith("deal "):
            number = int(line.split()[1])
            deals[number] = ""
        else:
            deals[number] += line
    return deals


@dataclass(frozen=True)
class Crosscheck:
    """One line of tests/data/fcsolve_crosscheck.tsv (scripts/crosscheck_fcsolve.py)."""

    deal: int
    cells: int
    theirs: str  # fc-solve's exhaustive single-card search: "solved" or "exhausted"
    ours: str  # fcanalyze's verdict


def read_crosschecks() -> list[Crosscheck]:
    """Deals 1..200 at 1 and 2 cells, each judged by fc-solve and by fcanalyze."""
    rows = []
    for line in (DATA / "fcsolve_crosscheck.tsv").read_text().splitlines():
        if line and not line.startswith("#"):
            deal, cells, theirs, ours, agreement = line.split("\t")
            assert agreement == "ok", line  # the builder marks any disagreement
            rows.append(Crosscheck(int(deal), int(cells), theirs, ours))
    return rows


def crosscheck_verdicts() -> dict[tuple[int, int], str]:
    """(deal, cells) -> the verdict fc-solve and fcanalyze agree on."""
    return {(c.deal, c.cells): c.ours for c in read_crosschecks()}


@pytest.fixture
def run_cli():
    """Run `fcanalyze ARGS` in-process; returns the click Result (exit code, stdout, stderr)."""
    from fcanalyze.cli import cli

    runner = CliRunner()

    def run(*args, input=None):
        return runner.invoke(cli, [str(a) for a in args], input=input)

    return run

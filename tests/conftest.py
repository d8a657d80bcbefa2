"""Shared test helpers: where the vectors are, and a runner for the real CLI."""

from __future__ import annotations

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


@pytest.fixture
def run_cli():
    """Run `fcanalyze ARGS` in-process; returns the click Result (exit code, stdout, stderr)."""
    from fcanalyze.cli import cli

    runner = CliRunner()

    def run(*args, input=None):
        return runner.invoke(cli, [str(a) for a in args], input=input)

    return run

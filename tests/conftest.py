"""Shared test helpers: the vectors and cross-checks, runners for the real CLI, and a dataset's rows."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from fcanalyze.dataset.store import part_files, read_dataset

DATA = Path(__file__).parent / "data"

# A process started in the background by a shell without job control (`make check &`,
# nohup, some CI runners) has Ctrl-C ignored, and so has every process it starts: the
# tests that send SIGINT to a solve would see it ignored, as it should be there. The
# tests' processes take Ctrl-C as a terminal's foreground job does.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


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


# --- sweeps run for real -------------------------------------------------------------------

# Columns that depend on the machine and the moment, not on the job.
CIRCUMSTANTIAL = ["seconds", "verify_seconds", "finished_at", "host"]


def verdicts_at(cells: int) -> dict[int, str]:
    """Deal -> verdict at `cells` for deals 1..200, agreed by fc-solve and fcanalyze."""
    return {deal: verdict for (deal, k), verdict in crosscheck_verdicts().items() if k == cells}


def rows(path) -> list[dict]:
    table = read_dataset(path).drop_columns(CIRCUMSTANTIAL)
    return sorted(table.to_pylist(), key=lambda r: (r["variant"], r["cells"], r["deal"]))


def keys(path) -> list[tuple]:
    t = read_dataset(path, ["deal", "variant", "cells"])
    return list(zip(t["deal"].to_pylist(), t["variant"].to_pylist(), t["cells"].to_pylist()))


# Subprocesses start here, not in the repository root, where `python -m fcanalyze`
# would pick up the source tree (which has no built engine in a plain install).
# How long a test waits for something that must happen before it calls it a hang. Not a
# speed bound: the tests wait for events (rows written, a process ended), and only a
# run that never gets there meets this.
HANG = 900


REPO_ROOT = Path(__file__).resolve().parent.parent
NEUTRAL_CWD = Path(__file__).parent


def fcanalyze_process(*args, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "fcanalyze", *map(str, args)], cwd=NEUTRAL_CWD, **kwargs)


def run_fcanalyze(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fcanalyze", *map(str, args)],
        cwd=NEUTRAL_CWD,
        capture_output=True,
        text=True,
        timeout=HANG,
        **kwargs,
    )


def wait_for_rows(path: Path, at_least: int, proc: subprocess.Popen, hang: float = HANG) -> int:
    """Waits until the dataset at `path` holds `at_least` rows, however long a busy
    machine takes to write them, and returns how many it holds; fails if `proc` ends
    first (it had nothing left to be stopped in) or nothing comes within `hang`."""
    give_up = time.monotonic() + hang
    while time.monotonic() < give_up:
        assert proc.poll() is None, "the sweep finished before it could be stopped"
        try:
            n = sum(pq.read_metadata(f).num_rows for f in part_files(path))
        except (OSError, pa.ArrowException):
            n = 0
        if n >= at_least:
            return n
        time.sleep(0.05)
    raise AssertionError(f"no {at_least} rows in {hang} s: the sweep hangs")


@contextlib.contextmanager
def no_dask_client():
    """Fails the test if a Dask client is made: a scheduler address that is malformed, or
    that nothing listens on, is refused by fcanalyze's own checks at once, never after
    Dask's connect timeout (which is what makes it "at once" on any machine)."""
    try:
        import dask.distributed as distributed
    except ImportError:  # without Dask there is no client to make
        yield
        return
    real = distributed.Client

    def refuse(*args, **kwargs):
        raise AssertionError("a Dask client was made for an address fcanalyze should have refused")

    distributed.Client = refuse
    try:
        yield
    finally:
        distributed.Client = real


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.fixture
def run_cli():
    """Run `fcanalyze ARGS` in-process; returns the click Result (exit code, stdout, stderr)."""
    from fcanalyze.cli.main import cli

    runner = CliRunner()

    def run(*args, input=None):
        return runner.invoke(cli, [str(a) for a in args], input=input)

    return run


def peak_rss_of(*args: str) -> tuple[int, str]:
    """Runs `fcanalyze ARGS` and returns the most resident memory, in bytes, that it or
    any process it started held, as the OS counts it (a fresh parent, whose only
    children are these), and its standard output."""
    probe = (
        "import resource, subprocess, sys; "
        "out = subprocess.run([sys.executable, '-m', 'fcanalyze', *sys.argv[1:]], capture_output=True, text=True).stdout; "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); print(out)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True, cwd=NEUTRAL_CWD
    )
    kib, _, out = done.stdout.partition("\n")
    return int(kib) * 1024, out


def budget_leaving(mib: int, held: int | None = None) -> str:
    """A --max-memory that leaves the search `mib` MiB (a little less if the process
    grows) in a process that holds `held` bytes (default: this one, as it is now); the
    budget bounds the whole process (budgets.engine_memory)."""
    from fcanalyze.solving.budgets import PROCESS_RESERVE, resident_bytes

    held = (resident_bytes() or 0) if held is None else held
    return f"{(held + PROCESS_RESERVE + mib * 2**20) // 1024}K"


def one_error_line(result, message: str) -> None:
    """Bad input's one rule: exit status 2, nothing on stdout, one short `Error:` line
    on stderr that says `message`."""
    assert result.exit_code == 2, result.output
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert message in lines[0], lines[0]
    assert len(lines[0]) < 400

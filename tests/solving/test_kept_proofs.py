"""Kept layered proofs on disk: a proof goes on only from files that are exactly what was kept, whatever was done to them."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import HANG
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcanalyze import solve
from fcanalyze.solving.budgets import kept_proofs


@contextlib.contextmanager
def deadline(seconds: int):
    """Fails a test that would otherwise hang (a FIFO read without end) after `seconds`."""

    def fail(*_):
        raise TimeoutError(f"no outcome within {seconds} s")

    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def kept_proof_of(tmp: Path, deal: int, cells: int, max_nodes: int) -> Path:
    """A spill directory holding the kept layered proof of one job, stopped by `max_nodes`."""
    spill = tmp / f"spill-{deal}-{cells}"
    spill.mkdir()
    stopped = solve(deal, cells=cells, spill_dir=spill, layered=True, max_nodes=max_nodes)
    assert stopped.status == "unknown" and stopped.kept
    return spill


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """Two kept proofs: of deal 11982 with 4 cells (lost: its proof in one go stores
    38,868 positions) stopped a third of the way, and of deal 2 with 1 cell (won; a
    layered proof, which keeps no path, can only leave it unknown) stopped early."""
    tmp = tmp_path_factory.mktemp("kept")
    whole = solve(11982, spill_dir=tmp, layered=True)
    assert whole.status == "unsolvable" and list(tmp.iterdir()) == []
    return {
        "lost": (kept_proof_of(tmp, 11982, 4, whole.nodes // 3), whole.states),
        "won": (kept_proof_of(tmp, 2, 1, 100_000), None),
    }


def proof_dir(spill: Path) -> Path:
    (kept,) = kept_proofs(spill)
    return kept


def tamper(kept: Path, target: Path, how: str, elsewhere: Path) -> None:
    """Does `how` to `target`, a file of the kept proof in `kept`."""
    others = sorted(p for p in kept.iterdir() if p != target and p.name != "checkpoint")
    if how == "delete":
        target.unlink()
    elif how == "empty":
        target.write_bytes(b"")
    elif how == "truncate":
        target.write_bytes(target.read_bytes()[: target.stat().st_size // 2])
    elif how == "append":
        with target.open("ab") as f:
            f.write(b"\x05\x00\x00\x00\x00\x00")
    elif how == "corrupt":
        data = bytearray(target.read_bytes())
        data[len(data) // 2] ^= 0x5A
        target.write_bytes(bytes(data))
    elif how == "random":
        target.write_bytes(os.urandom(max(1, target.stat().st_size)))
    elif how == "replace":
        shutil.copyfile(others[0] if others[0] != target else others[-1], target)
    elif how == "symlink":
        # The same bytes, but through a link: a link is never followed.
        copy = elsewhere / f"copy-of-{target.name}"
        shutil.copyfile(target, copy)
        target.unlink()
        target.symlink_to(copy)
    elif how == "dev-zero":
        target.unlink()
        target.symlink_to("/dev/zero")
    elif how == "fifo":
        target.unlink()
        os.mkfifo(target)
    elif how == "extra":
        shutil.copyfile(target, kept / "level-999-00.entries")
    elif how == "shared":
        target.chmod(0o666)
    else:
        raise AssertionError(how)


TAMPERS = [
    "delete",
    "empty",
    "truncate",
    "append",
    "corrupt",
    "random",
    "replace",
    "symlink",
    "dev-zero",
    "fifo",
    "extra",
    "shared",
]


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(which=st.sampled_from(["lost", "won"]), pick=st.integers(0, 10**6), how=st.sampled_from(TAMPERS))
def test_a_tampered_kept_proof_never_yields_another_verdict(templates, which, pick, how):
    """Any file of a kept proof (an entry file or the checkpoint) deleted, emptied, cut
    short, lengthened, damaged, replaced, made a link, a FIFO or writable by others: the
    proof that goes on from it says so and starts afresh, so its verdict is the one
    the untampered proof gives, or unknown. Never "unsolvable" for the won deal, and
    for the lost one, "unsolvable" only with every position of the proof stored."""
    template, states = templates[which]
    with tempfile.TemporaryDirectory() as tmp:
        spill, elsewhere = Path(tmp) / "spill", Path(tmp) / "elsewhere"
        elsewhere.mkdir()
        shutil.copytree(template, spill, symlinks=True)
        kept = proof_dir(spill)
        files = sorted(kept.iterdir())
        target = files[pick % len(files)]
        tamper(kept, target, how, elsewhere)
        with deadline(HANG):
            if which == "lost":
                result = solve(11982, spill_dir=spill, layered=True)
                assert result.status == "unsolvable" and result.states == states
            else:
                result = solve(2, cells=1, spill_dir=spill, layered=True, max_nodes=100_000)
                assert result.status == "unknown"
                # Without --layered, a refused kept proof lets the searches in memory find the win.
                again = solve(2, cells=1, spill_dir=spill, max_nodes=2_000_000, max_memory="2G")
                assert again.status != "unsolvable"
        assert result.note is not None and result.resumed_seconds == 0, result
        for copy in elsewhere.iterdir():
            assert copy.read_bytes() == (template / kept.name / copy.name.removeprefix("copy-of-")).read_bytes()


def test_an_untampered_kept_proof_goes_on_to_the_same_count(templates):
    """The control: the same kept proof, untouched, is gone on from without a note."""
    template, states = templates["lost"]
    with tempfile.TemporaryDirectory() as tmp:
        spill = Path(tmp) / "spill"
        shutil.copytree(template, spill, symlinks=True)
        result = solve(11982, spill_dir=spill, layered=True)
    assert result.status == "unsolvable" and result.states == states
    assert result.note is None and result.resumed_seconds > 0


def test_deleted_entry_files_no_longer_make_a_winnable_deal_unsolvable(tmp_path, run_cli):
    """The reproducer: deal 2 with 1 cell, its layered proof stopped and kept, its entry
    files removed; the next solve with the same --spill-dir once said UNSOLVABLE (exit
    1). It now says the kept proof was discarded, and never calls the deal lost."""
    spill = kept_proof_of(tmp_path, 2, 1, 100_000)
    for entries in proof_dir(spill).glob("level-*.entries"):
        entries.unlink()
    # Gone on from as a layered proof, the damaged kept proof is discarded, and said so.
    result = run_cli("solve", "2", "--cells", "1", "--spill-dir", spill, "--layered", "--max-seconds", "20")
    assert result.exit_code in (0, 3) and "UNSOLVABLE" not in result.stdout, result.output
    assert "layered proof: the proof kept in" in result.stdout and "is missing" in result.stdout
    # Without --layered, a short search in memory comes before any kept proof: won at
    # once, and the proof kept meanwhile, which nothing would go on from, removed.
    result = run_cli("solve", "2", "--cells", "1", "--spill-dir", spill, "--max-seconds", "120")
    assert result.exit_code == 0 and "SOLVED" in result.stdout, result.output
    assert kept_proofs(spill) == []


def test_a_sweep_writes_no_unsolvable_row_from_a_damaged_kept_proof(tmp_path, run_cli):
    """The same through a sweep, which once wrote "unsolvable" rows for deal 2 with 1
    cell and, implied by it, with 0 cells."""
    spill = kept_proof_of(tmp_path, 2, 1, 100_000)
    for entries in proof_dir(spill).glob("level-*.entries"):
        entries.write_bytes(b"")
    out = tmp_path / "out"
    result = run_cli("sweep", "--deals", "2", "--cells", "1,0", "--out", out, "--spill-dir", spill, "--no-progress")
    assert result.exit_code == 0, result.output
    rows = {r["cells"]: r for r in pq.read_table(out).to_pylist()}
    assert rows[1]["status"] == "solved" and rows[1]["verified"]
    assert rows[0]["implied_by"] is None


def test_a_kept_proof_planted_by_someone_who_may_not_be_trusted_is_left_alone(tmp_path):
    """A kept proof's directory that others may write to (one planted in a shared /tmp
    by another user would be so, or owned by them) is not gone on from, nor removed: the
    proof starts afresh beside it, and says so."""
    spill = kept_proof_of(tmp_path, 11982, 4, 5000)
    kept = proof_dir(spill)
    kept.chmod(0o777)
    result = solve(11982, spill_dir=spill, layered=True)
    assert result.status == "unsolvable" and result.resumed_seconds == 0
    assert "may be written by other users; it was left alone" in (result.note or "")
    assert kept.is_dir() and (kept / "checkpoint").is_file()
    if os.geteuid() == 0:
        # Root, whom a planted directory would fool most: one owned by another user.
        kept.chmod(0o700)
        os.chown(kept, 65534, 65534)
        result = solve(11982, spill_dir=spill, layered=True)
        assert result.status == "unsolvable" and "owned by another user" in (result.note or "")


def test_a_symlinked_entry_file_is_never_written_through(tmp_path):
    """A kept proof whose entry file is a link to a file of the victim's: the link is
    not followed, so nothing is appended to the file it points at."""
    spill = kept_proof_of(tmp_path, 11982, 4, 5000)
    kept = proof_dir(spill)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    for entries in sorted(kept.glob("level-*.entries")):
        entries.unlink()
        entries.symlink_to(victim)
    result = solve(11982, spill_dir=spill, layered=True)
    assert result.status == "unsolvable" and "is a symbolic link, which is never followed" in (result.note or "")
    assert victim.read_text() == "precious\n"


def test_a_fifo_entry_file_ends_at_once_and_ctrl_c_still_works(tmp_path):
    """A FIFO in place of an entry file once hung the proof past --max-seconds and
    signals; it is refused as not a regular file (in a separate process, so that a
    hang fails the test rather than the suite)."""
    spill = kept_proof_of(tmp_path, 11982, 4, 5000)
    kept = proof_dir(spill)
    target = sorted(kept.glob("level-*.entries"))[0]
    target.unlink()
    os.mkfifo(target)
    assert stat.S_ISFIFO(target.lstat().st_mode)
    done = subprocess.run(
        [sys.executable, "-m", "fcanalyze", "solve", "11982", "--spill-dir", str(spill), "--layered", "--json"],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert done.returncode == 1 and '"status": "unsolvable"' in done.stdout, done.stderr
    assert "not a regular file" in done.stdout


def crc64(data: bytes) -> int:
    """CRC-64/XZ, the checksum kept proofs once sealed their checkpoints with."""
    crc = 0xFFFFFFFFFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xC96C5795D7870F42 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFFFFFFFFFF


@pytest.mark.parametrize("sealed_with", ["crc-64", "another key"])
def test_a_forged_checkpoint_never_makes_a_winnable_deal_unsolvable(tmp_path, sealed_with):
    # The forgery: every entry file deleted, the checkpoint rewritten to name none, and
    # its last line recomputed on purpose. Its proof would have nothing left to search,
    # and end "unsolvable" at once, for a deal that is won. Only the user's own key
    # (a file no one else may read) seals a checkpoint that is gone on from.
    spill = kept_proof_of(tmp_path, 2, 1, 100_000)
    kept = proof_dir(spill)
    for f in kept.iterdir():
        if f.name != "checkpoint":
            f.unlink()
    lines = (kept / "checkpoint").read_text().splitlines(keepends=True)
    head = [line for line in lines[:6]] + ["files 0\n"]
    body = "".join(head)
    if sealed_with == "crc-64":
        forged = body + f"check {crc64(body.encode()):016x}\n"
    else:
        forged = body + f"seal {crc64(b'guess' + body.encode()):016x}\n"
    (kept / "checkpoint").write_text(forged)
    again = solve(2, cells=1, spill_dir=spill, layered=True, max_seconds=20)
    assert again.status != "unsolvable"
    assert again.note and "discarded" in again.note and "sealed" in again.note


def test_a_kept_proof_of_a_won_job_no_longer_holds_its_win_back(tmp_path):
    # Deal 2 with 1 cell: a layered proof, stopped and kept, then the plain solve with
    # the same spill directory. It once went on from the kept proof, which keeps no path,
    # and ended unknown after its whole budget; a short search in memory comes first.
    spill = kept_proof_of(tmp_path, 2, 1, 100_000)
    won = solve(2, cells=1, spill_dir=spill, max_seconds=600)
    assert won.status == "solved" and won.nodes < 2_000_000
    assert kept_proofs(spill) == []


def test_a_layered_proof_that_meets_a_win_comes_back_solved(tmp_path):
    # A small board that is won: the layered proof meets a won position, and the
    # searches in memory find the line (once it ended "unknown", limit memory).
    from fcanalyze import Variant, parse_board

    rules = Variant.parse("freecell,columns=4", cells=1)
    board = parse_board("Foundations: S-9 H-9 C-K D-K\nKS QH JS TH\nKH QS JH TS\n\n\n", rules)
    result = solve(board, variant=rules, spill_dir=tmp_path, layered=True)
    assert result.status == "solved", (result.status, result.limit, result.note)
    assert "met a won position" in (result.note or "")

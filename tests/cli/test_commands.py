"""The command line: output, exit codes, and one-line errors for every kind of bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from conftest import DATA, HANG, read_deal_vectors

import fcanalyze

LG = DATA / "ms1-4cells.fcsolve-lg.snx.txt"
TFTS = DATA / "ms1-4cells.fcsolve-tfts.snx.txt"


def test_deal_prints_the_board_byte_for_byte(run_cli):
    vectors = read_deal_vectors()
    for number in (1, 2**31, 2**32, 8589934591):
        result = run_cli("deal", number)
        assert result.exit_code == 0
        assert result.stdout == vectors[number]


def test_deal_json_layout(run_cli):
    result = run_cli("deal", "617", "--format", "json", "--cells", "2")
    layout = json.loads(result.stdout)
    assert layout["deal"] == 617 and layout["cells"] == 2 and layout["variant"] == "freecell"
    assert layout["columns"][0] == ["7D", "TD", "TH", "KD", "4C", "4S", "JD"]
    assert layout["freecells"] == [None, None]


def test_deal_with_tens_written_as_10(run_cli):
    assert run_cli("deal", "1", "--tens", "10").stdout.splitlines()[1] == "2D KC KS 5C 10D 8S 9C"


def test_malformed_board_file_names_the_line(run_cli, tmp_path):
    bad = tmp_path / "bad.board"
    bad.write_text((DATA / "ms1.board").read_text().replace("QS", "QX"))
    result = run_cli("board", bad)
    assert result.exit_code == 2
    assert result.stderr == f"Error: {bad}, line 4: unknown card 'QX'; cards are written like AS, TD or 10D, KH\n"


def test_board_command_normalises(run_cli, tmp_path):
    f = tmp_path / "b.board"
    f.write_text(
        "".join(": " + line.replace("T", "10") + "\n" for line in (DATA / "ms1.board").read_text().splitlines())
    )
    result = run_cli("board", f)
    assert result.exit_code == 0 and result.stdout == (DATA / "ms1.board").read_text()


def test_verify_ok_with_counts(run_cli):
    result = run_cli("verify", "--deal", "1", LG)
    assert result.exit_code == 0
    assert result.stdout == (
        "deal 1 (freecell, 4 free cells): OK: wins in 115 moves (106 of one card, "
        "9 sequence moves), 63 of them not to a foundation; 159 card moves with sequence moves played card by card; "
        "score 695\n"
    )
    assert run_cli("verify", "--deal", "1", TFTS).exit_code == 0


def test_verify_from_a_board_file_and_stdin(run_cli):
    result = run_cli("verify", "--board", DATA / "ms1.board", "-", input=LG.read_text())
    assert result.exit_code == 0 and "OK: wins in 115 moves" in result.stdout


def test_verify_reports_the_first_illegal_move_and_exits_1(run_cli, tmp_path):
    tokens = LG.read_text().split()
    tokens[10] = "59"
    bad = tmp_path / "bad.txt"
    bad.write_text(" ".join(tokens))
    result = run_cli("verify", "--deal", "1", bad)
    assert result.exit_code == 1
    assert result.stdout == "deal 1 (freecell, 4 free cells): ILLEGAL: move 11 (59): there is no column 9 (8 columns)\n"


def test_verify_with_fewer_cells_fails_where_the_cells_run_out(run_cli):
    result = run_cli("verify", "--deal", "1", "--cells", "3", LG)
    assert result.exit_code == 1
    assert "ILLEGAL: move 4 (5d): there is no free cell d (3 free cells)" in result.stdout


def test_verify_unfinished_solution_exits_1(run_cli, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text(" ".join(LG.read_text().split()[:50]))
    result = run_cli("verify", "--deal", "1", short)
    assert result.exit_code == 1 and "NOT WON: all 50 moves are legal" in result.stdout


REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("where", ["elsewhere", "clone root"])
@pytest.mark.parametrize("entry", [["fcanalyze"], [sys.executable, "-m", "fcanalyze"]])
def test_installed_entry_points(entry, where, tmp_path):
    # In the clone's root `python -m` imports the source folder, which after
    # `pip install .` has no compiled engine of its own: it must use the installed one.
    cwd = REPO_ROOT if where == "clone root" else tmp_path
    version = subprocess.run([*entry, "--version"], capture_output=True, text=True, check=True, cwd=cwd)
    assert version.stdout.strip() == f"fcanalyze, version {fcanalyze.__version__}"
    bad = subprocess.run([*entry, "deal", "0"], capture_output=True, text=True, cwd=cwd)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1
    solved = subprocess.run([*entry, "solve", "617", "--cells", "4"], capture_output=True, text=True, cwd=cwd)
    assert solved.returncode == 0 and "SOLVED" in solved.stdout, solved.stderr


def test_import_and_help_from_the_clone_root():
    imported = subprocess.run(
        [sys.executable, "-c", "import fcanalyze; print(fcanalyze.solve(617).status)"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert imported.stdout.strip() == "solved", imported.stderr
    shown = subprocess.run([sys.executable, "-m", "fcanalyze", "--help"], capture_output=True, text=True, cwd=REPO_ROOT)
    assert shown.returncode == 0 and shown.stdout.startswith("Usage: ") and shown.stderr == ""


def test_help_explains_every_command(run_cli):
    top = run_cli("--help").stdout
    for command in ("deal", "board", "verify"):
        assert command in top
        assert run_cli(command, "-h").exit_code == 0


def test_report_and_export_count_a_copied_part_file_once_and_say_so(run_cli, tmp_path):
    import shutil

    import pandas as pd

    from fcanalyze.dataset.store import part_files
    from fcanalyze.sweep import sweep

    dataset = sweep("1-6", cells="4,2", out=tmp_path / "ds", workers=1)
    (part,) = part_files(dataset)
    shutil.copy(part, dataset / "part-copy.parquet")
    exported = run_cli("export", dataset, tmp_path / "all.csv")
    assert exported.exit_code == 0, exported.output
    assert exported.stdout == f"wrote 12 rows to {tmp_path / 'all.csv'}\n"
    assert exported.stderr.startswith("Warning: ") and "12 job(s) are held twice" in exported.stderr
    assert len(exported.stderr.splitlines()) == 1
    assert len(pd.read_csv(tmp_path / "all.csv")) == 12
    reported = run_cli("report", dataset)
    assert reported.exit_code == 0 and "12 job(s) are held twice" in reported.stderr
    verdicts = [
        line.split()[:3] for line in reported.stdout.split("\n\n")[0].splitlines() if line.startswith("freecell")
    ]
    assert verdicts == [["freecell", "4", "6"], ["freecell", "2", "6"]]


@pytest.mark.parametrize(
    "args",
    [
        ["sweep", "--deals", "1-2", "--cells", "4", "--out", b"ds\xff"],
        ["sweep", "--deals", "1-2", "--cells", "4", "--out", b""],
        ["sweep", "--deals", "1-2", "--cells", "4", "--out", b"ds", "--spill-dir", b"spill\xff"],
        ["export", "takeback.parquet", b"out\xff.csv"],
        ["export", "takeback.parquet", b""],
        ["report", "takeback.parquet", "--out", b"rep\xff"],
        ["report", "takeback.parquet", "--out", b""],
    ],
)
def test_an_output_name_that_cannot_be_written_is_refused_before_any_work(args, tmp_path):
    """A non-UTF-8 name (Parquet takes only UTF-8) failed with a traceback after the jobs
    ran; an empty one wrote into the current directory. (The root is refused by the same
    check, test_the_filesystem_root_is_no_place_for_results: a test that could write
    there if it failed is no test to run.)"""
    import os
    import shutil

    from fcanalyze.tables.shipped import table_path

    shutil.copy(table_path("freecell,takeback=yes"), tmp_path / "takeback.parquet")
    (tmp_path / os.fsdecode(b"spill\xff")).mkdir()
    before = sorted(os.listdir(tmp_path))
    argv = [sys.executable, "-m", "fcanalyze", *args]
    done = subprocess.run([os.fsencode(a) for a in argv], capture_output=True, cwd=tmp_path, timeout=HANG)
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(b"Error: "), done.stderr
    assert sorted(os.listdir(tmp_path)) == before  # nothing written


@pytest.mark.parametrize("root", ["/", "//", "/.", "/tmp/.."])
def test_the_filesystem_root_is_no_place_for_results(root):
    from fcanalyze.errors import FcanalyzeError
    from fcanalyze.outputs import check_output_path

    with pytest.raises(FcanalyzeError, match="is the filesystem's root; give a directory of its own"):
        check_output_path(root)
    assert check_output_path("/tmp/results") == "/tmp/results"


@pytest.mark.parametrize("args", [["solve", "1"], ["lookup", "1-2000"], ["deal", "617"], ["solve", "11982", "--json"]])
def test_a_closed_output_pipe_never_exits_with_a_verdicts_status(args):
    # The reader is gone before the first byte (`| head -0`, or `| true` that exits at
    # once): the write fails with EPIPE. 1 would read as "unsolvable", 0 as "solved".
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "fcanalyze", *args], stdout=write, stderr=subprocess.PIPE, text=True, timeout=300
        )
    finally:
        os.close(write)
    assert done.returncode == 141, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_a_deal_list_that_reads_like_one_number_says_how_it_was_read(run_cli):
    # A table once printed deal 18032 as "18,032": pasted, it is a list of two deals.
    result = run_cli("lookup", "18,032")
    assert result.exit_code == 0
    assert "read '18,032' as a list of deals, 18 and 32; for deal 18032 write it without commas" in result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[1:3]] == ["18", "32"]
    # A single deal number with its separators where they belong is that number.
    assert run_cli("lookup", "18,032", "--solution", "4").exit_code == 2
    assert run_cli("deal", "11,982").stdout == run_cli("deal", "11982").stdout


@pytest.mark.parametrize("command", ["deal", "board", "solve", "lookup", "sweep", "report", "export", "verify"])
def test_every_option_of_every_command_has_help(command):
    from fcanalyze.cli.main import cli

    for param in cli.commands[command].params:
        if isinstance(param, click.Option):
            assert param.help and len(param.help) > 20, f"{command} {param.opts} has no help"
            assert "24 GiB" not in param.help, f"{command} {param.opts} names a machine"

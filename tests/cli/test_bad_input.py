"""Bad input of every kind: one short `Error:` line that says what to fix, exit status 2, nothing on stdout."""

from __future__ import annotations

import pytest
from conftest import DATA, one_error_line

import fcanalyze
from fcanalyze.solving.budgets import Budgets, parse_memory

# Every kind of bad input the command line has met, with the words its error says.
BAD_INPUT = [
    # Deal numbers, cell counts and variants.
    (["deal", "0"], "deal number 0 is out of range: Microsoft deals are 1..8,589,934,591"),
    (["deal", "-5"], "deal number -5 is out of range"),
    (["deal", "8589934592"], "deal number 8589934592 is out of range"),
    (["deal", "12x"], "a deal number must be a whole number, got '12x'"),
    (["deal", "1", "--cells", "9"], "cell count 9 is out of range: 0..8"),
    (["deal", "1", "--variant", "spider"], "unknown variant 'spider'"),
    (["deal", "1", "--variant", "freecell,columns=3"], "columns must be 4..10, got 3"),
    (["deal", "1", "--variant", "freecell,empty=queens"], "empty must be one of any|kings"),
    (["board", "/no/such/board"], "/no/such/board: no such file"),
    (["verify", str(DATA / "ms1-4cells.fcsolve-lg.snx.txt")], "give exactly one of --deal N or --board FILE"),
    (["verify", "--deal", "1", "/no/such/solution"], "/no/such/solution: no such file"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["solve"], "give a deal number N or --board FILE (see"),
    (["solve", "1", "--board", "x.board"], "give a deal number N or --board FILE, not both"),
    (["sweep", "--cells", "4-2"], "bad cell range '4-2': it runs backwards; write 2-4"),
    (["deal", "617", "--formt", "json"], "No such option '--formt'"),
    (["solve", "-5"], "deal number -5 is out of range"),
    (["solve", "--max-seconds", "5", "-5"], "deal number -5 is out of range"),
    (["lookup", "-5"], "deal number -5 is out of range"),
    (["deal", "-5"], "deal number -5 is out of range"),
    (["sweep", "--escalate", "30"], "--escalate 30 must be above --max-seconds (90)"),
    (["sweep", "--max-seconds", "0", "--escalate", "30"], "--escalate 30 must be above --max-seconds (no limit)"),
    # Budgets that would overflow the engine, or mean nothing.
    (["solve", "1", "--max-memory", "inf"], "bad memory size 'inf'"),
    (["solve", "1", "--max-memory", "1e30"], "bad memory size '1e30'"),
    (["solve", "1", "--max-memory", "2000P"], "memory budget must be 1M..1P"),
    (["solve", "1", "--max-memory", "512"], "memory budget must be 1M..1P"),
    (["solve", "1", "--max-nodes", "1e23"], "'1e23' is not a whole number"),
    (["solve", "1", "--threads", "0"], "threads must be 1..1,024, got 0"),
    (["solve", "1", "--shortest-nodes", "5000"], "--shortest-nodes needs --shortest"),
    (
        ["solve", "11982", "--spill-dir", "/tmp", "--threads", "1024", "--max-memory", "40M"],
        "1,024 threads need a memory budget of at least 16,384M (16 MiB a thread); give --threads 2 or less",
    ),
    (["sweep", "--shortest", "--shortest-nodes", "0"], "--shortest-nodes must be 1..1,000,000,000,000,000, got 0"),
    (["solve", "1", "--threads", "two"], "'two' is not a whole number"),
    (["sweep", "--threads", "100000"], "threads must be 1..1,024, got 100000"),
    (["solve", "1", "--max-nodes", "-5"], "max_nodes must be 1..1,000,000,000,000,000, got -5"),
    (["solve", "1", "--cells", "9"], "cell count 9 is out of range: 0..8"),
    (["solve", "1", "--max-nodes", "99999999999999999999999"], "max_nodes must be 1..1,000,000,000,000,000"),
    (["solve", "1", "--max-seconds", "nan"], "'nan' is not a number"),
    (["solve", "1", "--max-seconds", "inf"], "'inf' is not a number"),
    (["solve", "1", "--max-seconds", "1e12"], "give seconds above 0 and at most 10,000,000, or 0 for no limit"),
    (["sweep", "--max-memory", "1e30"], "bad memory size '1e30'"),
    (["sweep", "--max-nodes", "99999999999999999999999"], "max_nodes must be 1.."),
    (["sweep", "--max-seconds", "nan"], "'nan' is not a number"),
    (["sweep", "--max-seconds", "-1"], "give seconds above 0 and at most 10,000,000, or 0 for no limit; got -1"),
    (["sweep", "--escalate", "-5"], "give the most seconds a job may get in the last round, above 0"),
    # Digits that str.isdigit() takes and int() does not, or int() takes and should not.
    (["deal", "²"], "a deal number must be a whole number, got '²'"),
    (["solve", "³"], "a deal number must be a whole number, got '³'"),
    (["deal", "٣"], "a deal number must be a whole number"),
    (["deal", "--", "--5"], "a deal number must be a whole number, got '--5'"),
    (["verify", "--deal", "²", "-"], "a deal number must be a whole number"),
    (["sweep", "--deals", "1-²"], "bad deal range '1-²'"),
    (["sweep", "--cells", "٣"], "bad cell count '٣'"),
    (["sweep", "--cells", "0-99999999999999"], "out of range: 0..8"),
    (["solve", "1", "--variant", "freecell,columns=٣"], "columns must be a whole number"),
    (["deal", "9" * 5000], "a deal number must be a whole number, got '999"),
    # Python's int() reads '1_000' as 1000; only ASCII digits count here.
    (["lookup", "1_000"], "a deal number must be a whole number, got '1_000'"),
    (["verify", "--deal", "1_0", "-"], "a deal number must be a whole number, got '1_0'"),
    (["solve", "1", "--cells", "0_4"], "'0_4' is not a whole number"),
    (["sweep", "--deals", "1-1_000"], "bad deal range '1-1_000'"),
    (["sweep", "--cells", "1_0"], "bad cell count '1_0'"),
    (["solve", "1", "--max-nodes", "1_000"], "'1_000' is not a whole number"),
    (["deal", "1,0000"], "a deal number must be a whole number, got '1,0000'"),
    # A layout that deals more cards into the cells than there are cells.
    (["sweep", "--variant", "seahaven", "--cells", "0-4"], "seahaven deals 2 cards into the free cells"),
    (["solve", "1", "--variant", "eight-off", "--cells", "3"], "eight-off deals 4 cards into the free cells"),
    # Unbounded reads.
    (["board", "/dev/zero"], "/dev/zero is larger than 16 MiB"),
    (["verify", "--deal", "1", "/dev/zero"], "/dev/zero is larger than 16 MiB"),
    (["sweep", "--deals", "@/dev/zero"], "/dev/zero is larger than 64 MiB"),
]


@pytest.mark.parametrize("args,message", BAD_INPUT)
def test_bad_input_is_one_short_error_line(run_cli, args, message):
    one_error_line(run_cli(*args), message)


def test_a_solution_file_that_is_not_moves_is_bad_input_and_an_empty_one_does_not_win(run_cli, tmp_path):
    """Text that is not in the notation is bad input (exit 2, naming the token); moves
    that are well formed but illegal, or no moves at all, are a failed verification
    (exit 1)."""
    garbled = tmp_path / "garbled.txt"
    garbled.write_text("3a hello 1h\n")
    one_error_line(run_cli("verify", "--deal", "1", garbled), "garbled.txt: move 2: 'hello' is not a move")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    result = run_cli("verify", "--deal", "1", empty)
    assert result.exit_code == 1 and "NOT WON: the solution has no moves" in result.output
    illegal = tmp_path / "illegal.txt"
    illegal.write_text("1h\n")
    result = run_cli("verify", "--deal", "1", illegal)
    assert result.exit_code == 1 and "ILLEGAL: move 1 (1h)" in result.output


def test_a_board_with_a_unicode_digit_rank_is_refused(run_cli):
    one_error_line(run_cli("board", "-", input="Foundations: H-² \n"), "bad foundation 'H-²'")


def test_a_megabyte_of_garbage_is_quoted_by_a_short_prefix(run_cli, tmp_path):
    junk = tmp_path / "junk.txt"
    junk.write_text("Q" * 2_000_000)
    one_error_line(run_cli("board", str(junk)), "unknown card 'QQQQ")
    one_error_line(run_cli("verify", "--deal", "1", str(junk)), "junk.txt: move 1: 'QQQQ")


@pytest.mark.parametrize(
    "solution,message",
    [
        ("12v" + "f" * 5000, "a run size of 5000 digits is more than a deck of 52 cards"),
        ("26v99999999", "a run size v99999999 (2,576,980,377 in decimal) is more than a deck"),
    ],
)
def test_absurd_run_sizes_are_bad_input_said_plainly(run_cli, solution, message):
    one_error_line(run_cli("verify", "--deal", "1", "-", input=solution), message)


def test_a_run_larger_than_its_column_is_an_illegal_move_said_plainly(run_cli):
    result = run_cli("verify", "--deal", "1", "-", input="26v20")
    message = "column 2 holds only 7 card(s), not 32 (v20 is hexadecimal)"
    assert result.exit_code == 1 and message in result.stdout and len(result.stdout) < 400, result.output


def test_budgets_check_their_ranges_from_python_too():
    assert Budgets(10, 2.5, "1.5G") == Budgets(10, 2.5, 3 << 29)
    assert parse_memory("512MiB") == 512 << 20
    for bad in (
        {"max_memory": float("inf")},
        {"max_seconds": float("nan")},
        {"max_nodes": 10**30},
        {"max_nodes": 1.5},
        {"max_memory": "²G"},
        {"max_seconds": 0},
        {"threads": 0},
        {"threads": True},
        {"threads": 2.0},
    ):
        with pytest.raises(fcanalyze.FcanalyzeError):
            Budgets(**bad)
    with pytest.raises(fcanalyze.FcanalyzeError, match="max_seconds"):
        fcanalyze.solve(1, max_seconds=float("nan"))


def test_the_engine_binding_refuses_a_nan_budget_itself():
    from fcanalyze import _engine

    with pytest.raises(ValueError, match="budgets must be positive"):
        _engine.Budgets(max_seconds=float("nan"))
    with pytest.raises(ValueError, match="max_disk must be a positive"):
        _engine.Spill("/tmp", max_disk=0)
    for threads in (0, 1025):
        with pytest.raises(ValueError, match=r"threads must be 1\.\.1024"):
            _engine.Spill("/tmp", threads=threads)

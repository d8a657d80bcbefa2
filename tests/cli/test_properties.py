"""Properties of the parsers, the referee and the command line over generated input (Hypothesis): bad text is refused with a one-line error, never a traceback.

Each property runs a few hundred examples by default; its `_at_length` twin, behind
the slow marker, runs it thousands of times with fresh randomness.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fcanalyze
from fcanalyze.errors import FcanalyzeError
from fcanalyze.game.board import format_board, parse_board
from fcanalyze.game.deals import microsoft_deal, parse_deal_spans
from fcanalyze.game.notation import format_move, parse_move
from fcanalyze.game.variant import FREECELL, Variant
from fcanalyze.inputs import whole_number
from fcanalyze.referee.replay import replay
from fcanalyze.solving.budgets import check_nodes, check_seconds, parse_memory
from fcanalyze.sweep import parse_cells

# Characters that have broken parsers before: digits int() takes and ASCII ones it
# refuses, signs, separators, control characters, NUL, letters of the notation.
ODD = list("0123456789-+_,.:;@#vVhHaA \t\n\r\x00\x7f²³٣١𝟘½ⅫTJQKCDHS") + ["\u200b", "é", "𝕂", "\ufeff"]
PIECES = st.text(alphabet=st.sampled_from(ODD) | st.characters(codec="utf-8"), min_size=1, max_size=6)

DEAL_617 = format_board(microsoft_deal(617))
SOLUTION_617 = fcanalyze.solve(617).solution


@st.composite
def mutated(draw, valid: str) -> str:
    """`valid` after one to four edits: an insertion, a deletion, a replacement, a
    piece repeated, a cut, or its lines in another order."""
    text = valid
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        edit = draw(st.sampled_from(["insert", "delete", "replace", "repeat", "cut", "shuffle"]))
        if edit == "insert":
            text = text[:i] + draw(PIECES) + text[i:]
        elif edit == "delete":
            text = text[:i] + text[j:]
        elif edit == "replace":
            text = text[:i] + draw(PIECES) + text[j:]
        elif edit == "repeat":
            text = text[:j] + text[i:j] * draw(st.integers(2, 400)) + text[j:]
        elif edit == "cut":
            text = text[:i]
        else:
            text = "".join(draw(st.permutations(text.splitlines(keepends=True))))
    return text


OPTION_PARSERS = {
    "deal ranges": (parse_deal_spans, "1-32000,617,11982"),
    "cells": (parse_cells, "0-4"),
    "variant": (Variant.parse, "bakers-game,empty=kings"),
    "memory": (parse_memory, "1.5G"),
    "seconds": (check_seconds, "30"),
    "nodes": (lambda text: check_nodes(whole_number(text)), "1000"),
}

QUICK = settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
AT_LENGTH = settings(max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def quick_and_at_length(strategy):
    """The property as two tests: a quick one, and one of many more examples behind
    the slow marker."""

    def make(body):
        quick = QUICK(given(strategy)(body))
        long = pytest.mark.slow(AT_LENGTH(given(strategy)(body)))
        return quick, long

    return make


def option_text_is_parsed_or_refused_with_a_reason(case: tuple[str, str]) -> None:
    name, text = case
    parse, _ = OPTION_PARSERS[name]
    try:
        parse(text)
    except FcanalyzeError as e:
        assert str(e) and "\n" not in str(e)


option_cases = st.sampled_from(sorted(OPTION_PARSERS)).flatmap(
    lambda name: st.tuples(st.just(name), mutated(OPTION_PARSERS[name][1]) | st.text(max_size=30))
)
(
    test_option_text_is_parsed_or_refused_with_a_reason,
    test_option_text_is_parsed_or_refused_with_a_reason_at_length,
) = quick_and_at_length(option_cases)(option_text_is_parsed_or_refused_with_a_reason)


def a_board_is_parsed_to_a_fixed_point_or_refused(text: str) -> None:
    try:
        board = parse_board(text)
    except FcanalyzeError as e:
        assert str(e) and "\n" not in str(e)
        return
    # What parses prints in normal form, which parses to the same position.
    assert parse_board(format_board(board)) == board


(
    test_a_board_is_parsed_to_a_fixed_point_or_refused,
    test_a_board_is_parsed_to_a_fixed_point_or_refused_at_length,
) = quick_and_at_length(mutated(DEAL_617))(a_board_is_parsed_to_a_fixed_point_or_refused)


def the_referee_judges_any_move_list(tokens: list[str]) -> None:
    """Whatever the moves, the referee gives a verdict (or refuses notation it cannot
    read), and a won verdict means every card went home."""
    board = microsoft_deal(617)
    try:
        verdict = replay(board, FREECELL, tokens)
    except FcanalyzeError:
        return
    assert verdict.moves <= len(tokens)
    if verdict.won:
        assert verdict.moves == len(tokens) and verdict.failed_move is None
    else:
        assert verdict.reason


move_lists = st.lists(
    st.sampled_from(SOLUTION_617) | st.sampled_from(["1a", "a1", "1h", "ah", "12", "8h", "2v3", "57", "b8"]),
    max_size=120,
)
(
    test_the_referee_judges_any_move_list,
    test_the_referee_judges_any_move_list_at_length,
) = quick_and_at_length(move_lists)(the_referee_judges_any_move_list)


def a_winning_line_cut_short_does_not_win(cut: int) -> None:
    """Every proper prefix of a won line is legal and leaves cards out; the whole line wins."""
    line = SOLUTION_617[:cut]
    verdict = replay(microsoft_deal(617), FREECELL, line)
    assert verdict.failed_move is None and verdict.moves == len(line)
    assert verdict.won == (cut == len(SOLUTION_617))


(
    test_a_winning_line_cut_short_does_not_win,
    test_a_winning_line_cut_short_does_not_win_at_length,
) = quick_and_at_length(st.integers(0, len(SOLUTION_617)))(a_winning_line_cut_short_does_not_win)


def a_move_token_prints_back_as_read(token: str) -> None:
    try:
        move = parse_move(token)
    except FcanalyzeError:
        return
    assert parse_move(format_move(move)) == move


(
    test_a_move_token_prints_back_as_read,
    test_a_move_token_prints_back_as_read_at_length,
) = quick_and_at_length(mutated("26v4") | st.text(alphabet="0123456789abcdhv", max_size=6))(
    a_move_token_prints_back_as_read
)


def clean_exit(result) -> None:
    """An outcome of the command line: a verdict's status, or bad input's one line."""
    assert result.exit_code in (0, 1, 2, 3), (result.exit_code, result.output[-500:])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: "), result.stderr[-500:]


COMMAND_LINE_CASES = st.one_of(
    st.tuples(st.just(("board", "-")), mutated(DEAL_617)),
    st.tuples(st.just(("solve", "--board", "-", "--max-nodes", "2000")), mutated(DEAL_617)),
    st.tuples(st.just(("verify", "--deal", "617", "-")), mutated(" ".join(SOLUTION_617))),
    st.tuples(
        st.sampled_from(["--max-nodes", "--max-seconds", "--max-memory", "--variant", "--cells"]).map(
            lambda option: ("solve", "617", "--max-nodes", "2000", option)
        ),
        mutated("2") | mutated("64M") | mutated("freecell,columns=8"),
    ),
)


@QUICK
@given(COMMAND_LINE_CASES)
def test_the_command_line_gives_a_status_or_one_error_line(run_cli, case):
    args, text = case
    if args[-1] == "-":
        clean_exit(run_cli(*args, input=text))
    else:
        clean_exit(run_cli(*args, text))

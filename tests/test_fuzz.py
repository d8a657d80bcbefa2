"""Fuzzing the parsers with generated malformed input: every outcome is an exit status in {0, 1, 2, 3}, never a traceback."""

from __future__ import annotations

import contextlib
import random

import pytest

import fcanalyze
from fcanalyze.game.deals import parse_deal_spans
from fcanalyze.game.variant import Variant
from fcanalyze.inputs import whole_number
from fcanalyze.solving.budgets import check_nodes, check_seconds, parse_memory
from fcanalyze.sweep import parse_cells

# Characters that have broken parsers before: digits int() takes and ASCII ones it
# refuses, signs, separators, control characters, NUL, a lone surrogate's neighbours.
ODD = list("0123456789-+_,.:;@#vVhHaA \t\n\r\x00\x7f²³٣١𝟘½ⅫTJQKCDHS") + ["\u200b", "é", "𝕂", "\ufeff"]


def mutate(text: str, rng: random.Random) -> str:
    """One to four random edits: insert, delete, replace, duplicate a piece, cut, or repeat."""
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randint(1, 12))
        edit = rng.randrange(7)
        if edit == 0:
            text = text[:i] + rng.choice(ODD) + text[i:]
        elif edit == 1:
            text = text[:i] + text[j:]
        elif edit == 2:
            text = text[:i] + "".join(rng.choice(ODD) for _ in range(j - i)) + text[j:]
        elif edit == 3:
            text = text[:j] + text[i:j] + text[j:]
        elif edit == 4:
            text = text[:i]
        elif edit == 5:
            text = text[:i] + text[i:j] * rng.randint(2, 400) + text[j:]
        else:
            lines = text.splitlines(keepends=True)
            rng.shuffle(lines)
            text = "".join(lines)
    return text


def _clean(result) -> None:
    assert result.exit_code in (0, 1, 2, 3), (result.exit_code, result.output[-500:])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    if result.exit_code == 2:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("Error: "), result.stderr[-500:]


def _fuzz_cli(run_cli, cases: int, seed: int) -> None:
    rng = random.Random(seed)
    board = fcanalyze.format_board(fcanalyze.microsoft_deal(617))
    solution = fcanalyze.solve(617).solution
    for _ in range(cases):
        kind = rng.randrange(4)
        if kind == 0:
            _clean(run_cli("board", "-", input=mutate(board, rng)))
        elif kind == 1:
            _clean(run_cli("solve", "--board", "-", "--max-nodes", "2000", input=mutate(board, rng)))
        elif kind == 2:
            _clean(run_cli("verify", "--deal", "617", "-", input=mutate(" ".join(solution), rng)))
        else:
            option, valid = rng.choice(
                [
                    ("--max-nodes", "2000"),
                    ("--max-seconds", "0.5"),
                    ("--max-memory", "64M"),
                    ("--variant", "freecell,columns=8"),
                    ("--cells", "2"),
                ]
            )
            _clean(run_cli("solve", mutate("617", rng), option, mutate(valid, rng), "--max-nodes", "2000"))


def _fuzz_option_parsers(cases: int, seed: int) -> None:
    rng = random.Random(seed)
    parsers = [
        (parse_deal_spans, "1-32000,617,11982"),
        (parse_cells, "0-4"),
        (Variant.parse, "bakers-game,empty=kings"),
        (parse_memory, "1.5G"),
        (check_seconds, "30"),
        (check_nodes, None),
    ]
    for _ in range(cases):
        parse, valid = rng.choice(parsers)
        text = mutate(valid or "1000", rng)
        with contextlib.suppress(fcanalyze.FcanalyzeError):
            parse(text if parse is not check_nodes else whole_number(text))


def test_fuzz_cli_parsers_quickly(run_cli):
    _fuzz_cli(run_cli, cases=300, seed=1)


def test_fuzz_option_parsers_quickly():
    _fuzz_option_parsers(cases=3000, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2, 6))
def test_fuzz_cli_parsers_at_length(run_cli, seed):
    _fuzz_cli(run_cli, cases=3000, seed=seed)
    _fuzz_option_parsers(cases=30000, seed=seed)

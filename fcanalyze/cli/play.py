"""`deal`, `board` and `verify`: a deal or board printed, and a solution replayed by the referee."""

from __future__ import annotations

import sys

import click

from ..errors import FcanalyzeError, NotationError
from ..game.board import Board, parse_board
from ..game.deals import microsoft_deal, parse_deal_number
from ..game.notation import parse_solution
from ..game.variant import Variant
from ..inputs import read_text
from ..outputs import json_text
from ..referee.replay import replay
from .options import CONTEXT, DealNumberCommand, variant_of, variant_options


def _starting_board(deal: str | None, board_file: str | None, variant: Variant) -> tuple[Board, str]:
    if (deal is None) == (board_file is None):
        raise click.UsageError("give exactly one of --deal N or --board FILE")
    if deal is not None:
        number = parse_deal_number(deal)
        return microsoft_deal(number, variant), f"deal {number}"
    assert board_file is not None
    text, name = read_text(board_file, "board file")
    return parse_board(text, variant, source=name), name


def _emit_board(board: Board, fmt: str, extra: dict, ten: str) -> None:
    if fmt == "json":
        click.echo(json_text({**extra, **board.to_json()}))
    else:
        click.echo(board.to_text(ten), nl=False)


def board_format_options(f):
    """--format and --tens, shared by `deal` and `board`, which print a board."""
    f = click.option(
        "--tens",
        type=click.Choice(["T", "10"]),
        default="T",
        show_default=True,
        help="How a ten is written in board text: T (TD, as Freecell Solver writes it) or 10 (10D).",
    )(f)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["text", "json"]),
        default="text",
        show_default=True,
        help="text: board text, a line per column, as make-microsoft-freecell-board -t prints it "
        "(what 'board', 'solve --board' and 'verify --board' read); json: the same layout as one "
        "JSON object (columns, cells, foundations, and the deal, variant and cell count).",
    )(f)


@click.command(cls=DealNumberCommand, context_settings=CONTEXT)
@click.argument("number", metavar="N")
@variant_options
@board_format_options
def deal(number, variant, cells, fmt, tens):
    """Print Microsoft deal N (1..8,589,934,591).

    With 8 columns the layout is bit for bit the classic generator's. With another
    column count (--variant freecell,columns=N) the same shuffled deck is dealt
    round-robin into N columns.
    """
    rules = variant_of(variant, cells)
    n = parse_deal_number(number)
    extra = {"deal": n, "variant": rules.name, "cells": rules.cells}
    _emit_board(microsoft_deal(n, rules), fmt, extra, tens)


@click.command()
@click.argument("board_file", metavar="FILE")
@variant_options
@board_format_options
def board(board_file, variant, cells, fmt, tens):
    """Check a board file and print it in normal form ('-' reads standard input).

    A malformed or impossible board is reported as one line naming the line and
    the problem, with exit status 2.
    """
    rules = variant_of(variant, cells)
    text, name = read_text(board_file, "board file")
    _emit_board(parse_board(text, rules, source=name), fmt, {"variant": rules.name, "cells": rules.cells}, tens)


@click.command()
@click.argument("solution_file", metavar="SOLUTION_FILE")
@click.option("--deal", "deal_number", metavar="N", help="Replay from Microsoft deal N.")
@click.option("--board", "board_file", metavar="FILE", help="Replay from the position in a board file.")
@variant_options
def verify(solution_file, deal_number, board_file, variant, cells):
    """Replay a solution and say whether it wins.

    SOLUTION_FILE holds moves in standard notation ('-' reads standard input).
    Prints OK with the single-card and multi-card move counts and the score (the
    FreeCell Solitaire app's: +10 a card home, +5 a card out of a free cell onto a
    column) and exits 0, or names the first illegal move (1-based) and why, and
    exits 1. A file that is not moves in that notation (a token like 'hello') is bad
    input: one line naming the token, exit status 2.
    """
    rules = variant_of(variant, cells)
    start, what = _starting_board(deal_number, board_file, rules)
    text, name = read_text(solution_file, "solution file")
    try:
        moves = parse_solution(text)
    except NotationError as e:
        raise FcanalyzeError(f"{name}: {e}") from None
    verdict = replay(start, rules, moves)
    click.echo(f"{what} ({rules.describe()}): {verdict.summary()}")
    if not verdict.won:
        sys.exit(1)

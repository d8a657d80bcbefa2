"""The `fcanalyze` command line: thin commands over the library, one-line errors, exit status 2 on bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import __version__
from .board import Board, parse_board
from .deals import microsoft_deal, parse_deal_number
from .errors import FcanalyzeError
from .referee import replay
from .solving import solve as solve_job
from .variant import MAX_CELLS, MIN_CELLS, Variant

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class FcanalyzeGroup(click.Group):
    """Reports every input error as one `Error:` line with exit status 2, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as e:
            hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
            _fail(e.format_message() + hint, 2)
        except click.ClickException as e:
            _fail(e.format_message(), e.exit_code)
        except FcanalyzeError as e:
            _fail(str(e), 2)
        except OSError as e:
            _fail(f"{e.strerror or e}: {e.filename}" if e.filename else str(e), 2)
        except (click.Abort, KeyboardInterrupt):
            click.echo("Aborted.", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


def _fail(message: str, code: int):
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def _variant_options(f):
    """--variant and --cells, shared by every command that plays a deal."""
    f = click.option(
        "--cells",
        "-k",
        type=click.IntRange(MIN_CELLS, MAX_CELLS),
        default=None,
        help="Number of free cells (0..8). Default: the variant's, 4 for FreeCell.",
    )(f)
    f = click.option(
        "--variant",
        default="freecell",
        show_default=True,
        metavar="SPEC",
        help="Rules: freecell, bakers-game, relaxed-freecell, single-move-freecell, "
        "optionally with overrides such as 'freecell,columns=10,empty=kings'. "
        "Keys: columns=4..10, build=alternate|suit, empty=any|kings, moves=supermove|single|relaxed.",
    )(f)
    return f


def _variant(spec: str, cells: int | None) -> Variant:
    return Variant.parse(spec, cells=cells)


def _read_text(path: str) -> tuple[str, str]:
    """(text, name) of a file, '-' meaning standard input."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    p = Path(path)
    if p.is_dir():
        raise FcanalyzeError(f"{path} is a directory, not a file")
    try:
        return p.read_text(encoding="utf-8"), path
    except FileNotFoundError:
        raise FcanalyzeError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise FcanalyzeError(f"{path}: not a text file") from None


def _starting_board(deal: str | None, board_file: str | None, variant: Variant) -> tuple[Board, str]:
    if (deal is None) == (board_file is None):
        raise click.UsageError("give exactly one of --deal N or --board FILE")
    if deal is not None:
        number = parse_deal_number(deal)
        return microsoft_deal(number, variant), f"deal {number}"
    text, name = _read_text(board_file)
    return parse_board(text, variant, source=name), name


def _emit_board(board: Board, fmt: str, extra: dict, ten: str) -> None:
    if fmt == "json":
        click.echo(json.dumps({**extra, **board.to_json()}))
    else:
        click.echo(board.to_text(ten), nl=False)


@click.group(cls=FcanalyzeGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="fcanalyze")
def cli():
    """Decide, measure and compare Microsoft FreeCell deals.

    Deals are numbered as in Microsoft FreeCell: 1..32,000 classic and up to
    8,589,934,591 extended. Boards use Freecell Solver's text format and solutions
    its standard notation (3a, a5, 1h, 54, 26v4).
    """


@cli.command(context_settings={**CONTEXT, "ignore_unknown_options": True})
@click.argument("number", metavar="N")
@_variant_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Board text (as make-microsoft-freecell-board -t prints it) or a JSON layout.")
@click.option("--tens", type=click.Choice(["T", "10"]), default="T", show_default=True,
              help="How to write tens in board text.")
def deal(number, variant, cells, fmt, tens):
    """Print Microsoft deal N (1..8,589,934,591).

    With 8 columns the layout is bit for bit the classic generator's. With another
    column count (--variant freecell,columns=N) the same shuffled deck is dealt
    round-robin into N columns.
    """
    rules = _variant(variant, cells)
    n = parse_deal_number(number)
    extra = {"deal": n, "variant": rules.name, "cells": rules.cells}
    _emit_board(microsoft_deal(n, rules), fmt, extra, tens)


@cli.command()
@click.argument("board_file", metavar="FILE")
@_variant_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--tens", type=click.Choice(["T", "10"]), default="T", show_default=True)
def board(board_file, variant, cells, fmt, tens):
    """Check a board file and print it in normal form ('-' reads standard input).

    A malformed or impossible board is reported as one line naming the line and
    the problem, with exit status 2.
    """
    rules = _variant(variant, cells)
    text, name = _read_text(board_file)
    _emit_board(parse_board(text, rules, source=name), fmt, {"variant": rules.name, "cells": rules.cells}, tens)


@cli.command()
@click.argument("solution_file", metavar="SOLUTION_FILE")
@click.option("--deal", "deal_number", metavar="N", help="Replay from Microsoft deal N.")
@click.option("--board", "board_file", metavar="FILE", help="Replay from the position in a board file.")
@_variant_options
def verify(solution_file, deal_number, board_file, variant, cells):
    """Replay a solution and say whether it wins.

    SOLUTION_FILE holds moves in standard notation ('-' reads standard input).
    Prints OK with the single-card and multi-card move counts and exits 0, or names
    the first illegal move (1-based) and why, and exits 1.
    """
    rules = _variant(variant, cells)
    start, what = _starting_board(deal_number, board_file, rules)
    text, _ = _read_text(solution_file)
    verdict = replay(start, rules, text)
    click.echo(f"{what} ({rules.describe()}): {verdict.summary()}")
    if not verdict.won:
        sys.exit(1)


def _budget_options(f):
    """--max-nodes, --max-seconds and --max-memory: when a search gives up with `unknown`."""
    f = click.option("--max-memory", metavar="SIZE", default=None,
                     help="Memory for the search, like 2G or 512M. Default: 8G, which lets two "
                     "workers share a 24 GiB machine.")(f)
    f = click.option("--max-seconds", type=click.FloatRange(min=0, min_open=True), default=None,
                     help="Give up after this many seconds. Default: no limit.")(f)
    f = click.option("--max-nodes", type=click.IntRange(min=1), default=None,
                     help="Give up after expanding this many positions. Default: no limit.")(f)
    return f


@cli.command()
@click.argument("number", metavar="[N]", required=False)
@click.option("--board", "board_file", metavar="FILE", help="Solve the position in a board file instead.")
@_variant_options
@_budget_options
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def solve(number, board_file, variant, cells, max_nodes, max_seconds, max_memory, as_json):
    """Decide deal N (or --board FILE): solved, unsolvable, or unknown.

    A solution is replayed by the independent referee before it is shown.
    "unsolvable" is proved by exhaustive search with sound pruning only; "unknown"
    says which budget ran out. Exit status: 0 solved, 1 unsolvable, 3 unknown.
    """
    rules = _variant(variant, cells)
    if (number is None) == (board_file is None):
        raise click.UsageError("give a deal number N or --board FILE, not both")
    if number is not None:
        target = parse_deal_number(number)
        what = f"deal {target}"
    else:
        text, what = _read_text(board_file)
        target = parse_board(text, rules, source=what)
    result = solve_job(
        target, variant=rules, max_nodes=max_nodes, max_seconds=max_seconds, max_memory=max_memory
    )
    if as_json:
        click.echo(json.dumps(result.to_dict()))
    else:
        verdict = result.status.upper() + (f" (limit: {result.limit})" if result.limit else "")
        click.echo(f"{what} ({rules.describe()}): {verdict}")
        if result.status == "solved":
            click.echo(f"moves: {result.moves} ({result.card_moves} single-card moves), verified by the referee")
            click.echo("solution: " + " ".join(result.solution))
        click.echo(
            f"nodes: {result.nodes:,}  states: {result.states:,}  max depth: {result.max_depth}  "
            f"time: {result.seconds:.3f} s  memory: {result.peak_memory / 2**20:.1f} MiB"
        )
    sys.exit({"solved": 0, "unsolvable": 1}.get(result.status, 3))


def main() -> None:
    cli(prog_name="fcanalyze")

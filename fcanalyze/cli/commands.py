"""The `fcanalyze` command line: thin commands over the library, one-line errors, exit status 2 on bad input."""

from __future__ import annotations

import contextlib
import functools
import math
import re
import shlex
import sys
import warnings
from pathlib import Path

import click

from .. import __version__
from ..errors import FcanalyzeError, FcanalyzeWarning, NotationError
from ..game.board import Board, parse_board
from ..game.deals import microsoft_deal, parse_deal_number
from ..game.notation import parse_solution
from ..game.variant import Variant, check_cell_count
from ..inputs import quote, read_text, short_path, whole_number
from ..outputs import check_output_path, json_text, write_atomically
from ..referee.replay import replay
from ..solving.budgets import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_SECONDS,
    MAX_SECONDS,
    check_nodes,
    check_seconds,
    kept_proofs,
    parse_memory,
    retry_seconds,
)
from ..solving.solve import EngineError
from ..solving.solve import solve as solve_job
from ..status import ERROR, SOLVED, UNKNOWN, UNSOLVABLE
from ..sweep.solutions import HARD_NODES, SOLUTIONS

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class FcanalyzeGroup(click.Group):
    """Reports every input error as one `Error:` line with exit status 2, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            with warnings.catch_warnings():
                warnings.showwarning = functools.partial(_show_warning, warnings.showwarning)
                code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as e:
            if isinstance(e, getattr(click.exceptions, "NoArgsIsHelpError", ())) and e.ctx is not None:
                # `fcanalyze` (or a group) alone: the help, plainly, not as an error.
                click.echo(e.ctx.get_help())
                sys.exit(0)
            hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
            _fail(e.format_message() + hint, 2)
        except click.ClickException as e:
            _fail(e.format_message(), e.exit_code)
        except FcanalyzeError as e:
            _fail(str(e), 2)
        except EngineError as e:  # a bug, never a verdict: said in a line, with its own status
            _fail(f"{e}; please report it", 4)
        except OSError as e:
            _fail(f"{e.strerror or e}: {short_path(e.filename)}" if e.filename else str(e), 2)
        except (click.Abort, KeyboardInterrupt):
            click.echo("Aborted.", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)


def _show_warning(others, message, category, filename, lineno, file=None, line=None) -> None:
    """fcanalyze's warnings as one `Warning:` line on stderr, without the source line;
    any other as Python shows it (`others`)."""
    if issubclass(category, FcanalyzeWarning):
        click.echo(f"Warning: {message}", err=True)
    else:
        others(message, category, filename, lineno, file, line)


def _count(n: int, noun: str) -> str:
    """`1 job`, `2,000 jobs`."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _fail(message: str, code: int):
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


class _Checked(click.ParamType):
    """An option value checked by one of the library's own parsers, so that the CLI and
    the Python API accept and refuse the same things with the same words."""

    def __init__(self, name: str, check, convert=str):
        self.name = name
        self._check = check
        self._convert = convert

    def convert(self, value, param, ctx):
        try:
            return self._check(self._convert(value) if isinstance(value, str) else value)
        except (FcanalyzeError, ValueError) as e:
            self.fail(str(e), param, ctx)


def _whole_number(text: str) -> int:
    """A whole number, negative ones too: the option's own check says what range it takes."""
    stripped = text.strip()
    value = whole_number(stripped[1:]) if stripped.startswith("-") else whole_number(stripped)
    if value is None:
        raise FcanalyzeError(f"{quote(text)} is not a whole number")
    return -value if stripped.startswith("-") else value


def _number(text: str) -> float:
    if not re.fullmatch(r"[+-]?[0-9]*\.?[0-9]+(e[+-]?[0-9]+)?", text.strip(), re.ASCII | re.IGNORECASE):
        raise FcanalyzeError(f"{quote(text)} is not a number")
    return float(text)


def _variant_options(f):
    """--variant and --cells, shared by every command that plays a deal."""
    f = click.option(
        "--cells",
        "-k",
        type=_Checked("count", check_cell_count, _whole_number),
        default=None,
        help="Number of free cells (0..8). Default: the variant's, 4 for FreeCell.",
    )(f)
    f = click.option(
        "--variant",
        default="freecell",
        show_default=True,
        metavar="SPEC",
        help="Rules: freecell, bakers-game, relaxed-freecell, single-move-freecell, seahaven "
        "(Seahaven Towers), eight-off (Eight Off), optionally with overrides such as "
        "'freecell,columns=10,empty=kings' or 'freecell,takeback=yes' (the FreeCell Solitaire "
        "app's take-back: the top card of a foundation may come back). Keys: columns=4..10, "
        "build=alternate|suit, empty=any|kings, moves=supermove|single|relaxed, "
        "deal=tableau|reserve, takeback=yes|no.",
    )(f)
    return f


def _variant(spec: str, cells: int | None) -> Variant:
    return Variant.parse(spec, cells=cells)


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


class DealNumberCommand(click.Command):
    """A command whose argument is a deal number: `-5` is a deal number out of range,
    not an unknown option (and unknown options are still refused as such)."""

    def parse_args(self, ctx, args):
        takes_value = {
            name
            for p in self.params
            if isinstance(p, click.Option) and not p.is_flag and not p.count
            for name in p.opts + p.secondary_opts
        }
        for before, token in zip([None, *args], args):
            if token == "--":
                break
            if re.fullmatch(r"-[0-9][0-9,_]*", token) and before not in takes_value:
                parse_deal_number(token)  # a negative number: says it is out of range
        return super().parse_args(ctx, args)


@click.group(cls=FcanalyzeGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="fcanalyze")
def cli():
    """Decide, measure and compare Microsoft FreeCell deals.

    Deals are numbered as in Microsoft FreeCell: 1..32,000 classic and up to
    8,589,934,591 extended. Boards use Freecell Solver's text format and solutions
    its standard notation (3a, a5, 1h, 54, 26v4).
    """


# Reading the shipped table takes a process some 150 MiB (table.read_deals); below
# this memory budget `solve` only points to it, so that it stays within its budget.
LOOKUP_MEMORY = 256 << 20


def _table_says(target: int | Board, rules: Variant, max_memory: int | None) -> str | None:
    """For a job the shipped tables hold (a classic deal 1..32,000 under their rules and
    cell counts), what they say of it, and how to see it; None for any other job."""
    from ..tables.published import CLASSIC_DEALS
    from ..tables.shipped import TABLE_CELL_COUNTS, TAKEBACK

    cells = TABLE_CELL_COUNTS.get(rules.name, ())
    if isinstance(target, Board) or rules.cells not in cells or not 1 <= target <= CLASSIC_DEALS:
        return None
    flag = " --takeback" if rules.name == TAKEBACK else ""
    if max_memory is not None and max_memory < LOOKUP_MEMORY:
        return f"the shipped table has this job; see: fcanalyze lookup {target}{flag}"
    from ..tables.shipped import lookup as lookup_deal

    try:
        facts = lookup_deal(target, variant=rules.name)
    except FcanalyzeError:  # a source tree without the table: nothing to add
        return None
    verdict = facts.verdicts.get(rules.cells) if facts is not None else None
    if verdict is None or verdict.status not in (SOLVED, UNSOLVABLE):
        return None
    how = f"won in {verdict.moves} moves" if verdict.status == SOLVED else "proved lost"
    return (
        f"the shipped table has it, from a bigger search: {verdict.status} ({how}); "
        f"see: fcanalyze lookup {target}{flag}"
    )


@cli.command(cls=DealNumberCommand, context_settings=CONTEXT)
@click.argument("number", metavar="N")
@_variant_options
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Board text (as make-microsoft-freecell-board -t prints it) or a JSON layout.",
)
@click.option(
    "--tens", type=click.Choice(["T", "10"]), default="T", show_default=True, help="How to write tens in board text."
)
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
    text, name = read_text(board_file, "board file")
    _emit_board(parse_board(text, rules, source=name), fmt, {"variant": rules.name, "cells": rules.cells}, tens)


@cli.command()
@click.argument("solution_file", metavar="SOLUTION_FILE")
@click.option("--deal", "deal_number", metavar="N", help="Replay from Microsoft deal N.")
@click.option("--board", "board_file", metavar="FILE", help="Replay from the position in a board file.")
@_variant_options
def verify(solution_file, deal_number, board_file, variant, cells):
    """Replay a solution and say whether it wins.

    SOLUTION_FILE holds moves in standard notation ('-' reads standard input).
    Prints OK with the single-card and multi-card move counts and the score (the
    FreeCell Solitaire app's: +10 a card home, +5 a card out of a free cell onto a
    column) and exits 0, or names the first illegal move (1-based) and why, and
    exits 1. A file that is not moves in that notation (a token like 'hello') is bad
    input: one line naming the token, exit status 2.
    """
    rules = _variant(variant, cells)
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


def _seconds_check(takes: str, zero_is_no_limit: bool):
    """A check of a seconds option, whose error says what the option `takes`
    (`check_seconds` speaks of the library's max_seconds)."""

    def check(value: float) -> float | None:
        if zero_is_no_limit and value == 0:
            return 0.0
        try:
            return check_seconds(value)
        except FcanalyzeError:
            raise FcanalyzeError(f"give {takes}; got {value:g}") from None

    return check


# --max-seconds: 0 is no limit (leaving it out is the default).
_seconds_or_zero = _seconds_check(
    f"seconds above 0 and at most {MAX_SECONDS:,.0f}, or 0 for no limit", zero_is_no_limit=True
)
_escalate_seconds = _seconds_check(
    f"the most seconds a job may get in the last round, above 0 and at most {MAX_SECONDS:,.0f}",
    zero_is_no_limit=False,
)


NODES = _Checked("count", check_nodes, _whole_number)
MEMORY = _Checked("size", parse_memory)


def _budget_options(f):
    """--max-nodes, --max-seconds and --max-memory: when a search gives up with `unknown`."""
    f = click.option(
        "--max-memory",
        metavar="SIZE",
        type=MEMORY,
        default=None,
        help="Most memory this process may hold, as the OS counts it (peak resident), like 2G or 512M; "
        "the search gets what Python and fcanalyze leave of it. Default: 8G, which lets two workers share a "
        "24 GiB machine.",
    )(f)
    f = click.option(
        "--max-seconds",
        type=_Checked("seconds", _seconds_or_zero, _number),
        default=None,
        help="Give up after this many seconds (0: no limit, as in 'sweep'). Default: no limit.",
    )(f)
    f = click.option(
        "--max-nodes", type=NODES, default=None, help="Give up after expanding this many positions. Default: no limit."
    )(f)
    return f


def _shortest_option(f):
    """--shortest: once won, the shortest line the search can find."""
    return click.option(
        "--shortest",
        is_flag=True,
        help="Once a deal is won, search for its shortest line: the fewest moves that do not go to a "
        "foundation (a sequence move counts as one), within what is left of the budgets; it is proved "
        "shortest where the search can prove it. Takes some 0.1 s more a won 4-cell job.",
    )(f)


def _spill_options(f):
    """--spill-dir, --max-disk and --layered: proofs bigger than memory, on disk."""
    f = click.option(
        "--layered",
        is_flag=True,
        help="Start the layered proof at once (needs --spill-dir), skipping the searches in "
        "memory: for a job already left unknown for want of memory, which the layered proof "
        "can only prove lost.",
    )(f)
    f = click.option(
        "--max-disk",
        metavar="SIZE",
        type=_Checked("size", lambda v: parse_memory(v, "disk budget")),
        default=None,
        help="Most disk a layered proof may fill in --spill-dir, like 50G. Default: half the space free "
        "there. Whatever fills the disk (two workers' proofs, proofs kept from earlier jobs), a proof "
        "also stops before the free space falls below half of what it was at the start (1 GiB with "
        "--max-disk).",
    )(f)
    f = click.option(
        "--spill-dir",
        metavar="DIR",
        default=None,
        help="When a proof outgrows --max-memory, go on with a layered proof that keeps the "
        "positions of later layers in files under DIR (an existing directory, on a fast "
        "local disk; the files are removed when the proof ends). It holds a small part of "
        "the proof in memory at a time, and can only prove a deal lost: a win it meets "
        "leaves the job unknown.",
    )(f)
    return f


@cli.command(cls=DealNumberCommand, context_settings=CONTEXT)
@click.argument("number", metavar="[N]", required=False)
@click.option("--board", "board_file", metavar="FILE", help="Solve the position in a board file instead.")
@_variant_options
@_budget_options
@_spill_options
@_shortest_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
@click.option(
    "--solution-out",
    metavar="FILE",
    default=None,
    help="Also write just the solution's moves to FILE ('-': standard output, alone), in "
    "the notation 'fcanalyze verify' reads. Nothing is written unless solved.",
)
def solve(
    number,
    board_file,
    variant,
    cells,
    max_nodes,
    max_seconds,
    max_memory,
    spill_dir,
    max_disk,
    layered,
    shortest,
    as_json,
    solution_out,
):
    """Decide deal N (or --board FILE): solved, unsolvable, or unknown.

    A solution is replayed by the independent referee before it is shown.
    "unsolvable" is proved by exhaustive search with sound pruning only; "unknown"
    says which budget ran out. Without a budget the search runs until it decides
    (a line on the terminal counts its seconds; Ctrl-C stops it). For a classic
    deal of the shipped table left unknown, the verdict the table has is shown too.
    Exit status: 0 solved, 1 unsolvable, 2 bad input, 3 unknown, 4 an engine bug
    (please report it), 130 interrupted.

    \b
    Round trip:
      fcanalyze solve 1 --cells 3 --solution-out 1.sol
      fcanalyze verify --deal 1 --cells 3 1.sol
    """
    rules = _variant(variant, cells)
    if number is None and board_file is None:
        raise click.UsageError("give a deal number N or --board FILE")
    if number is not None and board_file is not None:
        raise click.UsageError("give a deal number N or --board FILE, not both")
    if number is not None:
        target = parse_deal_number(number)
        what = f"deal {target}"
    else:
        text, what = read_text(board_file, "board file")
        target = parse_board(text, rules, source=what)
    if as_json and solution_out == "-":
        raise click.UsageError("--json and --solution-out - would both write to standard output; give a file")
    from .progress import Ticker

    ticker = Ticker(f"{what} ({rules.describe()}): searching")
    try:
        result = solve_job(
            target,
            variant=rules,
            max_nodes=max_nodes,
            max_seconds=max_seconds or None,
            max_memory=max_memory,
            spill_dir=spill_dir,
            max_disk=max_disk,
            layered=layered,
            shortest=shortest,
            whole_process=True,
        )
    except KeyboardInterrupt:
        ticker.stop()
        known = _table_says(target, rules, max_memory)
        click.echo(
            f"Interrupted after {ticker.elapsed():,.1f} s: {what} ({rules.describe()}) undecided; "
            + (known if known else "with --max-seconds S the search stops by itself, as unknown"),
            err=True,
        )
        sys.exit(130)
    finally:
        ticker.stop()
    moves_text = " ".join(result.solution) + "\n"
    if solution_out == "-":
        if result.status == SOLVED:
            click.echo(moves_text, nl=False)
        else:
            click.echo(f"{what} ({rules.describe()}): {result.status}, no solution", err=True)
        sys.exit({SOLVED: 0, UNSOLVABLE: 1}.get(result.status, 3))
    if solution_out is not None and result.status == SOLVED:
        write_atomically(Path(solution_out), lambda p: p.write_text(moves_text, encoding="utf-8"))
    if as_json:
        click.echo(json_text(result.to_dict()))
    else:
        verdict = result.status.upper() + (f" (limit: {result.limit})" if result.limit else "")
        click.echo(f"{what} ({rules.describe()}): {verdict}")
        if result.status == SOLVED:
            click.echo(
                f"moves: {result.moves}, {result.non_foundation_moves} of them not to a foundation "
                f"({result.card_moves} card moves with sequence moves played card by card), "
                f"score {result.score}, verified by the referee"
            )
            if result.shortest_proved is not None:
                click.echo(_shortest_says(result))
            click.echo("solution: " + " ".join(result.solution))
            if solution_out is not None:
                click.echo(f"solution written to {solution_out}")
        click.echo(
            f"nodes: {result.nodes:,}  states: {result.states:,}  max depth: {result.max_depth:,}  "
            f"time: {result.seconds:.3f} s  memory: {result.peak_memory / 2**20:.1f} MiB"
            + (f"  disk: {result.peak_disk / 2**20:.1f} MiB" if result.peak_disk else "")
        )
        if result.note:
            click.echo(f"layered proof: {result.note}")
        if result.resumed_seconds:
            earlier = result.resumed_seconds
            took = f"took {earlier:,.0f} s" if math.isfinite(earlier) else "took a time its checkpoint does not say"
            click.echo(
                f"went on from a layered proof kept in {spill_dir} (its earlier runs {took}; "
                "nodes and states count them)"
            )
        if result.limit is not None:
            click.echo(_more_budget(result.limit, result.states, max_nodes, max_seconds, max_memory, spill_dir))
            known = _table_says(target, rules, max_memory)
            if known:
                click.echo(known)
        if result.kept:
            click.echo(
                f"the layered proof is kept in {spill_dir} ({_size(result.peak_disk)} at most): the same "
                "command with the same --spill-dir goes on from where it stopped"
            )
    sys.exit({SOLVED: 0, UNSOLVABLE: 1}.get(result.status, 3))


def _shortest_says(result) -> str:
    """What the search for the shortest line says of the line shown."""
    moves = f"{result.non_foundation_moves} moves not to a foundation"
    if result.shortest_proved:
        return f"shortest: proved, no line wins in fewer than {moves}"
    if result.shortest_limit is not None:
        return (
            f"shortest: the best line found before the {result.shortest_limit} budget ran out ({moves}); "
            "not proved shortest"
        )
    return f"shortest: the shortest line found ({moves}); not proved shortest"


def _size(n: int) -> str:
    """Bytes as MiB below a GiB, else as GiB."""
    return f"{n / 2**20:.1f} MiB" if n < 2**30 else f"{n / 2**30:.1f} GiB"


def _more_budget(
    limit: str,
    states: int,
    max_nodes: int | None,
    max_seconds: float | None,
    max_memory: int | None,
    spill_dir: str | None = None,
) -> str:
    """Which budget ran out, and the option that gives the search more of it."""
    if limit == "memory":
        budget = max_memory or DEFAULT_MAX_MEMORY
        twice = f"{round(2 * budget / 2**30)}G" if budget >= 2**29 else f"{round(2 * budget / 2**20)}M"
        if spill_dir is not None:
            return (
                f"the layered proof met a win, or one of its classes outgrew the memory budget "
                f"({budget / 2**20:,.0f} MiB); to find the win or go on, give it more: --max-memory {twice}"
            )
        # A packed store holds some 84 million positions a GiB (docs/correctness.md).
        return (
            f"the memory budget ({budget / 2**20:,.0f} MiB) ran out after storing {states:,} positions (a GiB "
            f"holds some 80 million); a search with more may decide it: --max-memory {twice}, or prove it on "
            "disk with --spill-dir DIR"
        )
    if limit == "disk":
        return (
            "the layered proof filled its --max-disk, left --spill-dir's disk with less free space than it "
            "must keep (half of what was free at the start; 1 GiB with --max-disk), or could not write there; "
            "give it more room"
        )
    # Each search starts from the deal again: the hint says "a search with more", not "go on".
    if limit == "seconds" and max_seconds:
        return f"the time budget ran out; a search with more time may decide it: --max-seconds {2 * max_seconds:g}"
    if limit == "nodes" and max_nodes is not None:
        return f"the budget of positions ran out; a search with more may decide it: --max-nodes {2 * max_nodes}"
    return f"the {limit} budget ran out"


@cli.command(cls=DealNumberCommand, context_settings=CONTEXT)
@click.argument("number", metavar="N")
@click.option(
    "--solution",
    "solution_cells",
    type=click.IntRange(0, 4),
    default=None,
    metavar="K",
    help="Print just the solution with K cells (0..4), in the notation 'verify' reads.",
)
@click.option("--json", "as_json", is_flag=True, help="Print everything as one JSON object.")
@click.option(
    "--takeback",
    is_flag=True,
    help="Look in the take-back table instead (freecell,takeback=yes: the FreeCell Solitaire app's "
    "rule, with 4, 2 and 1 cells).",
)
def lookup(number, solution_cells, as_json, takeback):
    """Look up Microsoft deal N (1..32,000) in the shipped table, without solving.

    Gives the verdict with 4, 3, 2, 1 and 0 free cells under classic FreeCell rules
    (with --takeback: with 4, 2 and 1 cells when the top card of a foundation may be
    taken back), the fewest cells that win it, and the solution's moves. Every
    verdict in the tables came from fcanalyze's own sweeps: solutions replayed by the
    referee, "unsolvable" proved by exhaustive search or by a proof with more cells.
    N may be a list or range, as for sweep (1-20, 1,5,617, @FILE): one line per
    deal (with --json, one JSON object a line). For other deals or rules, use
    'fcanalyze solve'. Exit status: 0 found, 1 not in the table (a deal past 32,000,
    or no solution with K cells), 2 bad input.
    """
    from ..tables.shipped import CLASSIC, TABLE_CELL_COUNTS, TABLE_NAMES, TAKEBACK
    from ..tables.shipped import lookup as lookup_deal

    variant = TAKEBACK if takeback else CLASSIC
    text = number.strip()
    if text.startswith("@") or "," in text or "-" in text[1:]:
        if solution_cells is not None:
            raise click.UsageError("--solution prints one deal's solution; give one deal number")
        _lookup_list(text, variant, as_json)
        return
    n = parse_deal_number(number)
    facts = lookup_deal(n, variant=variant)
    if facts is None:
        click.echo(
            f"deal {n} is not in the shipped table, which holds the classic deals 1..32,000; "
            f"decide it with: fcanalyze solve {n} --cells K" + (f" --variant {TAKEBACK}" if takeback else ""),
            err=True,
        )
        sys.exit(1)
    if solution_cells is not None:
        held = TABLE_CELL_COUNTS[variant]
        if solution_cells not in held:
            *most, fewest = sorted(held, reverse=True)
            counts = ", ".join(str(k) for k in most) + f" and {fewest}"
            raise click.UsageError(
                f"the {'take-back' if takeback else 'classic'} table has {counts} cells; got --solution {solution_cells}"
            )
        v = facts.verdicts.get(solution_cells)
        if v is None or v.status != SOLVED:
            status = v.status if v is not None else "missing"
            click.echo(f"deal {n} has no solution with {solution_cells} cells in the table ({status})", err=True)
            sys.exit(1)
        if as_json:
            click.echo(json_text({"deal": n, "variant": variant, "cells": solution_cells, "solution": v.solution}))
        else:
            click.echo(v.solution)
        return
    if as_json:
        click.echo(json_text(facts.to_json()))
        return
    rules = "FreeCell with take-back" if takeback else "classic FreeCell"
    click.echo(f"deal {n}, {rules}, from the shipped table ({TABLE_NAMES[variant]}):")
    click.echo(f"{'cells':>5}  {'verdict':<10}  {'moves':>5}  {'no home':>8}  {'card moves':>10}  {'score':>5}  how")
    for k in sorted(facts.verdicts, reverse=True):
        v = facts.verdicts[k]
        if v.implied_by is not None:
            how = f"implied: unsolvable with {v.implied_by} cell{'s' if v.implied_by != 1 else ''}"
        elif v.status == SOLVED and v.shortest_proved:
            how = "shortest line, proved: none has fewer moves not to a foundation"
        elif v.status == SOLVED and v.shortest_proved is not None:
            how = "the shortest line the search found, not proved shortest"
        elif v.status == SOLVED:
            how = f"solution replayed by the referee ({v.nodes:,} positions expanded)"
        elif v.status == UNSOLVABLE:
            how = f"proved by exhaustive search ({v.nodes:,} positions expanded)"
        else:
            retry = f"fcanalyze solve {n} --cells {k}" + (f" --variant {TAKEBACK}" if takeback else "")
            how = f"undecided: the {v.limit or 'search'} budget ran out ({retry} --max-seconds 600)"
        moves = "-" if v.moves is None else str(v.moves)
        off_home = "-" if v.non_foundation_moves is None else str(v.non_foundation_moves)
        card_moves = "-" if v.card_moves is None else str(v.card_moves)
        score = "-" if v.score is None else str(v.score)
        click.echo(f"{k:>5}  {v.status:<10}  {moves:>5}  {off_home:>8}  {card_moves:>10}  {score:>5}  {how}")
    least = facts.min_cells
    if least is None:
        undecided = [k for k, v in facts.verdicts.items() if v.status not in (SOLVED, UNSOLVABLE)]
        click.echo("fewest cells that win it: " + ("none (not even 4)" if not undecided else "undecided"))
    elif facts.min_cells_exact:
        click.echo(f"fewest cells that win it: {least}")
    elif least - 1 not in facts.verdicts:
        click.echo(f"fewest cells that win it: at most {least} (the table has no fewer cells)")
    else:
        click.echo(f"fewest cells that win it: at most {least} (fewer are undecided)")
    if least is not None:
        click.echo(f"its solution: fcanalyze lookup {n} --solution {least}" + (" --takeback" if takeback else ""))


def _lookup_list(text: str, variant: str, as_json: bool) -> None:
    """`lookup` of a list or range of deals: a line per deal, the table read once."""
    from ..game.deals import parse_deal_spans
    from ..tables.published import CLASSIC_DEALS
    from ..tables.shipped import TABLE_CELL_COUNTS, TAKEBACK, lookup_spans

    spans = parse_deal_spans(text)
    found = lookup_spans(spans, variant)
    counts = sorted(TABLE_CELL_COUNTS[variant], reverse=True)
    if not as_json and found:
        click.echo(
            f"{'deal':>6}  "
            + "  ".join(f"{f'{k} cell' + ('s' if k != 1 else ''):<9}" for k in counts)
            + "  fewest cells"
        )
    for facts in found:
        if as_json:
            click.echo(json_text(facts.to_json()))
            continue
        cells = []
        for k in counts:
            v = facts.verdicts.get(k)
            if v is None:
                word = "-"
            else:
                won = f"won {v.moves if v.non_foundation_moves is None else v.non_foundation_moves}"
                won += "*" if v.shortest_proved else ""
                word = {SOLVED: won, UNSOLVABLE: "lost"}.get(v.status, v.status)
            cells.append(f"{word:<9}")
        least = facts.min_cells
        undecided = any(v.status not in (SOLVED, UNSOLVABLE) for v in facts.verdicts.values())
        if least is None:
            fewest = "undecided" if undecided else f"none (lost with {max(counts)})"
        elif facts.min_cells_exact:
            fewest = str(least)
        else:
            fewest = f"at most {least}"
        click.echo(f"{facts.deal:>6}  " + "  ".join(cells) + f"  {fewest}")
    if not as_json and found:
        click.echo("won N: N moves not to a foundation (a sequence move counts as one); *: proved shortest")
    past = sum(hi - max(lo, CLASSIC_DEALS + 1) + 1 for lo, hi in spans if hi > CLASSIC_DEALS)
    if past:
        flag = f" --variant {TAKEBACK}" if variant == TAKEBACK else ""
        click.echo(
            f"{past:,} deal(s) of the list are past {CLASSIC_DEALS:,}, which the table does not hold; "
            f"decide them with: fcanalyze solve N --cells K{flag}",
            err=True,
        )
        sys.exit(1)


DEFAULT_SWEEP_DEALS = "1-1000"


@cli.command(context_settings=CONTEXT)
@click.option(
    "--deals",
    "-d",
    "deals",
    default=DEFAULT_SWEEP_DEALS,
    show_default=True,
    metavar="RANGES",
    help="Deals to run: ranges and numbers like 1-32000 or 1-100,617,11982, or @FILE "
    "with one number or range per line.",
)
@click.option(
    "--cells",
    "-k",
    "cells",
    default=None,
    metavar="LIST",
    help="Free-cell counts to run each deal with, like 4 or 1,2,4 or 0-4. Default: 4,2,1; for a "
    "variant that deals cards into the cells, its own count down to the fewest that hold them "
    "(seahaven 4,3,2; eight-off 8-4).",
)
@click.option(
    "--out",
    "-o",
    default="fcanalyze-results",
    show_default=True,
    metavar="DIR",
    help="Dataset directory: created if missing; jobs already in it are skipped. With --scheduler, a "
    "directory every worker can reach, or an fsspec URL (s3://bucket/path, gs://..., file://...).",
)
@click.option(
    "--variant",
    default="freecell",
    show_default=True,
    metavar="SPEC",
    help="Rules, as for 'fcanalyze solve' (the cell counts come from --cells).",
)
@click.option(
    "--workers", "-j", type=click.IntRange(min=1), default=None, help="Solver processes. Default: one per core."
)
@click.option(
    "--max-seconds",
    type=_Checked("seconds", _seconds_or_zero, _number),
    default=DEFAULT_MAX_SECONDS,
    show_default=True,
    help="Per-job time budget; a job that runs out is recorded as unknown. 0: no limit.",
)
@click.option("--max-nodes", type=NODES, default=None, help="Per-job budget of positions expanded. Default: no limit.")
@click.option(
    "--max-memory",
    metavar="SIZE",
    type=MEMORY,
    default=None,
    help="Most memory each worker process may hold while it runs a job, as the OS counts it (peak resident), "
    "like 2G. Default: 8G, or less so that all workers fit in 80% of this machine's memory.",
)
@_spill_options
@_shortest_option
@click.option(
    "--retry-unknown",
    is_flag=True,
    help="Run the jobs recorded as unknown or error again (with these budgets) and replace their rows.",
)
@click.option(
    "--escalate",
    metavar="SECONDS",
    type=_Checked("seconds", _escalate_seconds, _number),
    default=None,
    help="After the sweep, run the jobs still without a verdict again with twice the time "
    "budget, then twice that, and so on up to SECONDS a job, each round replacing their rows "
    "(as --retry-unknown does). Like --escalate 600: every job gets 90 s, the hard few up to 600.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Run the jobs on the Dask cluster whose scheduler is at ADDRESS (like "
    "tcp://host:8786) instead of a local pool; 'local' starts a cluster on this machine, "
    "a worker per core (or --workers). The workers write their rows to --out themselves, a "
    "part file per chunk of deals; this process only plans and counts. A sweep of more "
    "than 50,000,000 jobs, to an fsspec URL, or into a dataset a cluster began runs "
    "so even without it. Needs the dask extra.",
)
@click.option(
    "--solutions",
    type=click.Choice(SOLUTIONS),
    default="all",
    show_default=True,
    help="Which solved rows keep their solution (every one is replayed by the referee first): "
    f"all; none; or hard, those whose search expanded at least {HARD_NODES:,} positions. "
    "Move counts stay in every row. Without solutions a 4-cell row takes about a fifth of the space.",
)
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option(
    "--log-file", metavar="FILE", default=None, help="Write every job's log record (from all workers) to FILE."
)
@click.option("--verbose", "-v", count=True, help="-v: log unknown jobs and pool events; -vv: every job.")
def sweep(
    deals,
    cells,
    out,
    variant,
    workers,
    max_seconds,
    max_nodes,
    max_memory,
    spill_dir,
    max_disk,
    layered,
    shortest,
    retry_unknown,
    escalate,
    scheduler,
    solutions,
    no_progress,
    log_file,
    verbose,
):
    """Decide many deals at several cell counts into a Parquet dataset.

    Every (deal, cells) job runs on a pool of solver processes. Each result is one
    row in DIR (status, move counts, nodes, time, the referee-verified solution);
    pandas, pyarrow, DuckDB and polars read DIR directly. Rerunning the same command
    skips what is done, so a killed sweep resumes where it stopped. With no options
    it decides deals 1..1000 at 4, 2 and 1 free cells: about 90 s on 2 cores, most of
    it one job (deal 982 with 2 cells) running to the end of its 90 s.
    """
    check_output_path(out)
    if escalate is not None and (not max_seconds or escalate <= max_seconds):
        raise click.UsageError(
            f"--escalate {escalate:g} must be above --max-seconds ({f'{max_seconds:g}' if max_seconds else 'no limit'}): "
            "it is the most time a job may get in the last round"
        )
    if log_file is not None:
        _check_writable(log_file)
    seconds, options = max_seconds or None, click.get_current_context().params
    with _dataset_dropped_if_left_empty(out):
        while True:
            plan, summary = _sweep_round(options, seconds, retry_unknown)
            unknown = sum(c[UNKNOWN] + c[ERROR] for c in summary.by_cells.values())
            # A retry round that found nothing to run is the last; so is one that leaves no job
            # undecided (a cluster sweep counts only the jobs it ran, so it needs the former).
            done = (retry_unknown and not summary.ran) or (not unknown and not summary.only_run_now)
            if summary.interrupted or escalate is None or seconds is None or seconds >= escalate or done:
                break
            seconds, retry_unknown = min(2 * seconds, escalate), True
            click.echo(
                f"Escalating: the jobs without a verdict run again with {seconds:g} s each (up to {escalate:g})."
            )
    if unknown and not summary.interrupted:
        ran_cells = cells if cells is not None else ",".join(map(str, plan.space.cells))
        # A deal file is named absolutely, so that the command works from anywhere (a list
        # read from standard input, `@-`, stays as it was).
        listed = deals.strip()[1:] if deals.strip().startswith("@") else None
        ranges = "@" + str(Path(listed).resolve()) if listed not in (None, "-") else deals
        retry = ["fcanalyze sweep", "--deals", ranges, "--cells", ran_cells, "--out", str(out)]
        if variant != "freecell":
            retry += ["--variant", variant]
        if workers is not None:
            retry += ["--workers", str(workers)]
        if scheduler is not None and scheduler != "local":
            retry += ["--scheduler", scheduler]
        for flag, value in [("--max-memory", max_memory), ("--spill-dir", spill_dir), ("--max-disk", max_disk)]:
            if value is not None:
                retry += [flag, str(value)]
        if layered:
            retry += ["--layered"]
        if shortest:
            retry += ["--shortest"]
        retry += ["--retry-unknown", "--max-seconds", f"{retry_seconds(seconds):g}"]
        click.echo(
            f"{_count(unknown, 'job')} without a verdict (a budget ran out, or an error); "
            f"'fcanalyze report {out}' lists them. To run them again with more time:\n  "
            + " ".join(shlex.quote(a) if a != "fcanalyze sweep" else a for a in retry)
        )
        _point_to_table(summary.undecided)
        kept = kept_proofs(spill_dir) if spill_dir is not None else []
        if kept:
            size = sum(f.stat().st_size for d in kept for f in d.iterdir() if f.is_file())
            click.echo(
                f"{_count(len(kept), 'layered proof')} stopped by a budget {'is' if len(kept) == 1 else 'are'} kept in "
                f"{spill_dir} ({_size(size)}): with the same --spill-dir, the command above goes on from "
                f"{'it' if len(kept) == 1 else 'them'} (delete {spill_dir}/fcanalyze-proof-* to drop them)"
            )
    if summary.interrupted:
        finished = (
            "no job finished in this run"
            if not summary.ran
            else (f"the {summary.ran:,} jobs finished are kept" if summary.ran > 1 else "the 1 job finished is kept")
        )
        click.echo(f"Interrupted: {finished} in {summary.path}; run the same command again to resume.", err=True)
        sys.exit(130)


def _check_writable(path: str) -> None:
    """Fails now, before a dataset is made, if `path` (a log file) cannot be written."""
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise FcanalyzeError(f"cannot write to {short_path(path)}: {e.strerror or e}") from None


@contextlib.contextmanager
def _dataset_dropped_if_left_empty(out: str):
    """A sweep that fails before its first row (a scheduler nobody answers at, a disk
    gone) leaves no empty dataset directory behind, if it made the directory itself:
    one holding only its lock file is removed. Anything else there is left alone."""
    # A local directory that does not exist yet; None for one that does, or a URL.
    fresh = Path(out) if "://" not in out and not Path(out).exists() else None
    try:
        yield
    except BaseException:
        if fresh is not None:
            try:
                if [p.name for p in fresh.iterdir()] == [".lock"]:
                    (fresh / ".lock").unlink()
                    fresh.rmdir()
            except OSError:  # best effort: the error being raised says what matters
                pass
        raise


def _point_to_table(undecided: list[tuple[int, str, int]]) -> None:
    """Says how many of the jobs a sweep left without a verdict the shipped tables
    settle (proofs of hours and gigabytes, made once), and how to look one up. Their
    rows stay as they are: the sweep's own searches did not decide them."""
    from ..tables.shipped import TAKEBACK, settled_in_table  # pyarrow: only when there is something to say

    settled = settled_in_table(undecided)
    if not settled:
        return
    total = sum(settled.values())
    parts = [f"{settled[s]:,} {word}" for s, word in ((SOLVED, "won"), (UNSOLVABLE, "lost")) if settled[s]]
    deal, variant, _ = min(undecided)
    flag = " --takeback" if variant == TAKEBACK else ""
    click.echo(
        f"The shipped table settles {total:,} of them ({', '.join(parts)}), with searches bigger than these "
        f"budgets; their rows stay as this sweep left them. See one with: fcanalyze lookup {deal}{flag}"
    )


def _sweep_round(options: dict, max_seconds: float | None, retry_unknown: bool):
    """Plans and runs one sweep (or one round of --escalate) with the command's `options`
    but these two, and prints its summary."""
    from ..sweep import plan_sweep
    from .progress import ProgressBar

    out = options["out"]
    plan = plan_sweep(
        options["deals"],
        options["cells"],
        out,
        variant=options["variant"],
        workers=options["workers"],
        max_seconds=max_seconds,
        max_nodes=options["max_nodes"],
        max_memory=options["max_memory"],
        spill_dir=options["spill_dir"],
        max_disk=options["max_disk"],
        layered=options["layered"],
        shortest=options["shortest"],
        retry_unknown=retry_unknown,
        progress=None if options["no_progress"] else ProgressBar(),
        scheduler=options["scheduler"],
        solutions=options["solutions"],
    )
    from ..sweep import logs

    if plan.why:
        click.echo(plan.why, err=True)
    try:
        logs.setup(options["verbose"], options["log_file"])
        summary = plan.run()
    finally:
        plan.close()
        logs.shutdown()
    click.echo(
        f"{summary.variant}: {_count(summary.jobs, 'job')} in {summary.path} "
        f"({summary.already_done:,} were already there, {summary.ran:,} run now)"
    )
    click.echo(summary.table())
    if summary.only_run_now and summary.already_done:
        click.echo(
            f"(the verdicts of the jobs run now; the {summary.already_done:,} already there are not read: "
            f"'fcanalyze report {out}' counts every row and lists the undecided ones)"
        )
    if summary.ran:
        click.echo(
            f"wall {summary.wall_seconds:.1f} s; worker time: engine {summary.engine_seconds:.1f} s, "
            f"referee {summary.verify_seconds:.1f} s; Parquet writes {summary.write_seconds:.2f} s"
            + (f"; {summary.worker_deaths} worker(s) died and were replaced" if summary.worker_deaths else "")
            + (
                f"; parts written by the workers {summary.bytes_written / 2**20:,.1f} MiB"
                if summary.bytes_written
                else ""
            )
        )
    if summary.failed_tasks:
        click.echo(
            f"{_count(summary.failed_tasks, 'chunk')} failed on the cluster (the workers' logs say why); "
            "their jobs have no rows yet: run the same command again to retry them.",
            err=True,
        )
    return plan, summary


@cli.command(context_settings=CONTEXT)
@click.argument("dataset_dir", metavar="DIR")
@click.argument("output", metavar="OUT")
def export(dataset_dir, output):
    """Write a sweep's dataset DIR as one file OUT (.parquet or .csv), sorted by variant, cells and deal."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from ..dataset.store import read_dataset

    target = Path(check_output_path(output, "OUT"))
    if target.suffix.lower() not in (".parquet", ".csv"):
        raise FcanalyzeError(f"cannot tell the format of {output}: name it *.parquet or *.csv")
    if target.is_dir():
        raise FcanalyzeError(f"{output} is a directory; give a file name")
    # Read first: a directory that holds no dataset is said to be that, whatever OUT is.
    table = read_dataset(dataset_dir).sort_by([("variant", "ascending"), ("cells", "ascending"), ("deal", "ascending")])
    source = Path(dataset_dir)
    if source.is_dir() and source.resolve() in target.resolve().parents:
        # Every later read of DIR (report, resume, pandas) would take the copy's rows as
        # more rows, and count each job twice.
        raise FcanalyzeError(f"{output} is inside the dataset {dataset_dir}; write it somewhere else")
    if target.suffix.lower() == ".csv":
        write_atomically(target, lambda p: pacsv.write_csv(table, p))
    else:
        write_atomically(target, lambda p: pq.write_table(table, p, compression="zstd"))
    click.echo(f"wrote {table.num_rows:,} rows to {output}")


@cli.command(context_settings=CONTEXT)
@click.argument("datasets", metavar="DIR...", nargs=-1, required=True)
@click.option(
    "--out",
    "-o",
    "out",
    metavar="OUTDIR",
    default=None,
    help="Also write report.md, the tables (CSV and Parquet) and PNG plots into OUTDIR.",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="Read a cluster sweep's dataset on the Dask cluster at ADDRESS, a shard (a million deals) "
    "per task; the workers must reach DIR. Without it, a cluster sweep's dataset of more than 1,000,000 rows is "
    "read a shard at a time on this machine's cores.",
)
@click.option(
    "--top",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="How many hardest deals to list per cell count.",
)
@click.option(
    "--cells",
    "-k",
    "cells",
    default=None,
    metavar="LIST",
    help="Report only these cell counts, written as for sweep: 4 or 4,2,1 or 0-4. Default: all.",
)
@click.option(
    "--deals",
    "-d",
    "deals",
    default=None,
    metavar="RANGES",
    help="Report only these deals, written as for sweep: 1-1000,617 or @FILE. Default: all.",
)
def report(datasets, out, top, scheduler, cells, deals):
    """Compare difficulty across cell counts in a sweep's dataset DIR.

    Prints, per variant and cell count, the verdict counts, the solvable share,
    the solved deals' moves (median, p90, max) and time; nodes and time per
    outcome (won, lost, undecided apart, over the rows a search decided); the
    same deals compared from one cell count to the next; the deals won with more
    cells and lost with fewer; how many cells each deal needs at fewest; the
    hardest deals; the undecided jobs, with the shipped table's verdicts where it
    has them; and, when DIR holds all of deals 1..32,000, the published counts
    beside the measured ones. Disagreements are flagged with '!!!'.

    DIR is a sweep's directory or a single Parquet file (like the shipped table).
    Several are read as one: 'report data/microsoft-32000.parquet tb/' sets a
    take-back sweep (--variant freecell,takeback=yes) beside the classic table,
    with a table of the deals only take-back wins. --cells and --deals report a
    part of it: 'report data/microsoft-32000.parquet --cells 4,2,1 --deals 1-1000'.
    """
    from ..game.deals import parse_deal_spans
    from ..report.document import Report, report_directory
    from ..sweep import parse_cells

    # The same parsers as sweep's, before any reading: a bad list fails at once.
    wanted_cells = parse_cells(cells) if cells is not None else None
    wanted_deals = parse_deal_spans(deals) if deals is not None else None
    if out is not None:
        report_directory(check_output_path(out))
    if scheduler is not None:
        from ..cluster import check_scheduler_address

        check_scheduler_address(scheduler)
    built = Report.build(list(datasets), top=top, scheduler=scheduler, cells=wanted_cells, deals=wanted_deals)
    click.echo(built.terminal())
    if out is not None:
        written = built.write(out, source=" + ".join(datasets))
        click.echo(
            f"\nwrote {len(written)} files to {out}: report.md, tables as CSV and Parquet, "
            + ", ".join(p.name for p in written if p.suffix == ".png")
        )


def main() -> None:
    cli(prog_name="fcanalyze")

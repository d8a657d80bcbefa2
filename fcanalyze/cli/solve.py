"""`solve`: one job decided, with its verdict, figures and what to give it when a budget ran out."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..errors import FcanalyzeError
from ..game.board import Board, parse_board
from ..game.deals import parse_deal_number
from ..game.variant import Variant
from ..inputs import read_text
from ..outputs import json_text, write_atomically
from ..solving.describe import result_lines
from ..solving.solve import solve as solve_job
from ..status import SOLVED, UNSOLVABLE
from .options import (
    CONTEXT,
    DealNumberCommand,
    budget_options,
    shortest_option,
    spill_options,
    variant_of,
    variant_options,
)

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


@click.command(cls=DealNumberCommand, context_settings=CONTEXT)
@click.argument("number", metavar="[N]", required=False)
@click.option("--board", "board_file", metavar="FILE", help="Solve the position in a board file instead.")
@variant_options
@budget_options
@spill_options
@shortest_option
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
    threads,
    shortest,
    shortest_nodes,
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
    rules = variant_of(variant, cells)
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
            threads=threads,
            shortest=shortest,
            shortest_nodes=shortest_nodes,
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
        budgets = {"max_nodes": max_nodes, "max_seconds": max_seconds, "max_memory": max_memory, "spill_dir": spill_dir}
        for line in result_lines(result, f"{what} ({rules.describe()})", **budgets):
            click.echo(line)
            if line.startswith("solution: ") and solution_out is not None:
                click.echo(f"solution written to {solution_out}")
        if result.limit is not None:
            known = _table_says(target, rules, max_memory)
            if known:
                click.echo(known)
    sys.exit({SOLVED: 0, UNSOLVABLE: 1}.get(result.status, 3))

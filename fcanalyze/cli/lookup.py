"""`lookup`: what the shipped tables say of a deal, or of a list of deals, without solving."""

from __future__ import annotations

import sys

import click

from ..game.deals import parse_deal_number
from ..outputs import json_text
from ..status import SOLVED, UNSOLVABLE
from .options import CONTEXT, DealNumberCommand


@click.command(cls=DealNumberCommand, context_settings=CONTEXT)
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
    """Look up Microsoft deal N (1..32,000, or one of the extended range proved lost) in the shipped tables.

    Gives the verdict with 4, 3, 2, 1 and 0 free cells under classic FreeCell rules
    (with --takeback: with 4, 2 and 1 cells when the top card of a foundation may be
    taken back), the fewest cells that win it, and the solution's moves. Every
    verdict in the tables came from fcanalyze's own sweeps: solutions replayed by the
    referee, "unsolvable" proved by exhaustive search or by a proof with more cells.
    Past 32,000 the tables hold the deals of the extended range that fcanalyze's
    layered proofs showed lost with 4 cells (scripts/bench_intractable.py).
    N may be a list or range, as for sweep (1-20, 1,5,617, @FILE): one line per
    deal (with --json, one JSON object a line). For other deals or rules, use
    'fcanalyze solve'. Exit status: 0 found, 1 not in the table (a deal past 32,000
    not proved lost, or no solution with K cells), 2 bad input.
    """
    from ..tables.published import CLASSIC_DEALS
    from ..tables.shipped import CLASSIC, EXTENDED_NAME, TABLE_CELL_COUNTS, TABLE_NAMES, TAKEBACK
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
        held = (
            "the classic deals 1..32,000 with take-back"
            if takeback
            else "the classic deals 1..32,000 and the deals of the extended range proved lost"
            " (scripts/bench_intractable.py)"
        )
        click.echo(
            f"deal {n} is not in the shipped table, which holds {held}; "
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
    source = EXTENDED_NAME if n > CLASSIC_DEALS else TABLE_NAMES[variant]

    def by(v) -> str:
        # The counts are those of the search that made the table; solve's own engine,
        # if it is a later one, may expand a different number on the same deal.
        return f", by fcanalyze {v.engine_version}" if v.engine_version else ""

    click.echo(f"deal {n}, {rules}, from the shipped table ({source}):")
    click.echo(f"{'cells':>5}  {'verdict':<10}  {'moves':>5}  {'no home':>8}  {'card moves':>10}  {'score':>5}  how")
    for k in sorted(facts.verdicts, reverse=True):
        v = facts.verdicts[k]
        if v.implied_by is not None:
            how = f"implied: unsolvable with {v.implied_by} cell{'s' if v.implied_by != 1 else ''}"
        elif v.status == SOLVED and v.shortest_proved:
            how = "shortest line, proved: none has fewer moves not to a foundation"
        elif v.status == SOLVED and v.shortest_proved is not None:
            how = "the shortest line the search found, not proved shortest" + (
                "" if v.shortest_bound is None else f" (no line has fewer than {v.shortest_bound})"
            )
        elif v.status == SOLVED:
            how = f"solution replayed by the referee ({v.nodes:,} positions expanded{by(v)})"
        elif v.status == UNSOLVABLE and v.nodes is None:
            how = f"proved by exhaustive search ({v.states:,} positions reached{by(v)})"
        elif v.status == UNSOLVABLE:
            how = f"proved by exhaustive search ({v.nodes:,} positions expanded{by(v)})"
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
    width = max([6] + [len(str(facts.deal)) for facts in found])
    if as_json:
        for facts in found:
            click.echo(json_text(facts.to_json()))
    lines = [] if as_json else [(facts, _verdict_words(facts, counts)) for facts in found]
    # A column as wide as its longest entry: "won 34 (>=28)" where a bound is known.
    column = max([9] + [len(word) for _, words in lines for word in words])
    if lines:
        click.echo(
            f"{'deal':>{width}}  "
            + "  ".join(f"{f'{k} cell' + ('s' if k != 1 else ''):<{column}}" for k in counts)
            + "  fewest cells"
        )
    for facts, words in lines:
        least = facts.min_cells
        undecided = any(v.status not in (SOLVED, UNSOLVABLE) for v in facts.verdicts.values())
        if least is None:
            fewest = "undecided" if undecided else f"none (lost with {max(counts)})"
        elif facts.min_cells_exact:
            fewest = str(least)
        else:
            fewest = f"at most {least}"
        click.echo(f"{facts.deal:>{width}}  " + "  ".join(f"{word:<{column}}" for word in words) + f"  {fewest}")
    if not as_json and found:
        click.echo(
            "won N: N moves not to a foundation (a sequence move counts as one); *: proved shortest; "
            "(>=B): no line has fewer than B"
        )
    past = sum(hi - max(lo, CLASSIC_DEALS + 1) + 1 for lo, hi in spans if hi > CLASSIC_DEALS)
    past -= sum(1 for facts in found if facts.deal > CLASSIC_DEALS)
    if past:
        flag = f" --variant {TAKEBACK}" if variant == TAKEBACK else ""
        click.echo(
            f"{past:,} deal(s) of the list are past {CLASSIC_DEALS:,}, which the table does not hold; "
            f"decide them with: fcanalyze solve N --cells K{flag}",
            err=True,
        )
        sys.exit(1)


def _verdict_words(facts, counts: list[int]) -> list[str]:
    """A deal's verdict at each cell count, as `lookup` of a list shows it."""
    words = []
    for k in counts:
        v = facts.verdicts.get(k)
        if v is None:
            words.append("-")
            continue
        won = f"won {v.moves if v.non_foundation_moves is None else v.non_foundation_moves}"
        if v.shortest_proved:
            won += "*"
        elif v.shortest_bound is not None:
            won += f" (>={v.shortest_bound})"
        words.append({SOLVED: won, UNSOLVABLE: "lost"}.get(v.status, v.status))
    return words

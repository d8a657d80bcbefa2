"""The command line's shared options and parameter types: each value checked by the library's own parser, so both refuse the same things with the same words."""

from __future__ import annotations

import re

import click

from ..errors import FcanalyzeError
from ..game.deals import parse_deal_number
from ..game.variant import Variant, check_cell_count
from ..inputs import quote, whole_number
from ..solving.budgets import (
    MAX_SECONDS,
    check_nodes,
    check_seconds,
    check_threads,
    parse_memory,
)

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def count_of(n: int, noun: str) -> str:
    """`1 job`, `2,000 jobs`."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


class Checked(click.ParamType):
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


def whole_number_text(text: str) -> int:
    """A whole number, negative ones too: the option's own check says what range it takes."""
    stripped = text.strip()
    value = whole_number(stripped[1:]) if stripped.startswith("-") else whole_number(stripped)
    if value is None:
        raise FcanalyzeError(f"{quote(text)} is not a whole number")
    return -value if stripped.startswith("-") else value


def number_text(text: str) -> float:
    if not re.fullmatch(r"[+-]?[0-9]*\.?[0-9]+(e[+-]?[0-9]+)?", text.strip(), re.ASCII | re.IGNORECASE):
        raise FcanalyzeError(f"{quote(text)} is not a number")
    return float(text)


def variant_options(f):
    """--variant and --cells, shared by every command that plays a deal."""
    f = click.option(
        "--cells",
        "-k",
        type=Checked("count", check_cell_count, whole_number_text),
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


def variant_of(spec: str, cells: int | None) -> Variant:
    return Variant.parse(spec, cells=cells)


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


def seconds_check(takes: str, zero_is_no_limit: bool):
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
seconds_or_zero = seconds_check(
    f"seconds above 0 and at most {MAX_SECONDS:,.0f}, or 0 for no limit", zero_is_no_limit=True
)
escalate_seconds = seconds_check(
    f"the most seconds a job may get in the last round, above 0 and at most {MAX_SECONDS:,.0f}",
    zero_is_no_limit=False,
)

NODES = Checked("count", check_nodes, whole_number_text)
MEMORY = Checked("size", parse_memory)


def budget_options(f):
    """--max-nodes, --max-seconds and --max-memory: when a search gives up with `unknown`."""
    f = click.option(
        "--max-memory",
        metavar="SIZE",
        type=MEMORY,
        default=None,
        help="Most memory this process may hold, as the OS counts it (peak resident), like 2G or 512M; "
        "the search gets what Python and fcanalyze leave of it. Default: 8G a job, or less in a sweep, so "
        "that all its workers fit in 80% of this machine's memory.",
    )(f)
    f = click.option(
        "--max-seconds",
        type=Checked("seconds", seconds_or_zero, number_text),
        default=None,
        help="Give up after this many seconds (0: no limit, as in 'sweep'). Default: no limit.",
    )(f)
    f = click.option(
        "--max-nodes", type=NODES, default=None, help="Give up after expanding this many positions. Default: no limit."
    )(f)
    return f


def shortest_option(f):
    """--shortest and --shortest-nodes: once won, the shortest line the search can find."""
    f = click.option(
        "--shortest-nodes",
        metavar="N",
        type=Checked("count", lambda v: check_nodes(v, "--shortest-nodes"), whole_number_text),
        default=None,
        help="With --shortest: positions the proof that no line is shorter may expand (default 10,000); "
        "--max-seconds and --max-memory bound it too. More positions prove more lines shortest; an "
        "unproved row's shortest_limit names the budget that stopped the proof.",
    )(f)
    return click.option(
        "--shortest",
        is_flag=True,
        help="Once a deal is won, search for its shortest line: the fewest moves that do not go to a "
        "foundation (a sequence move counts as one), within what is left of the budgets; it is proved "
        "shortest where the search can prove it. Takes some 0.1 s more a won 4-cell job.",
    )(f)


def spill_options(f):
    """--spill-dir, --max-disk, --layered and --threads: proofs bigger than memory, on disk."""
    f = click.option(
        "--threads",
        metavar="N",
        type=Checked("count", check_threads, whole_number_text),
        default=None,
        help="Threads a layered proof runs on: the classes of positions of one level cannot reach "
        "one another, so they are searched at once; --max-memory and --max-disk bound them all "
        "together. Default: every core for solve; 1 a job for sweep, whose workers share the cores.",
    )(f)
    f = click.option(
        "--layered",
        is_flag=True,
        help="Start the layered proof at once (needs --spill-dir), skipping the searches in "
        "memory: for a job already left unknown for want of memory, most likely lost. A won "
        "position it meets sends the job to the searches in memory, which find its line.",
    )(f)
    f = click.option(
        "--max-disk",
        metavar="SIZE",
        type=Checked("size", lambda v: parse_memory(v, "disk budget")),
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
        "the proof in memory at a time, and keeps no path: a win it meets leaves the job "
        "unknown (memory), saying the deal is won.",
    )(f)
    return f

"""The `fcanalyze` command group: every error one `Error:` line with its exit status, never a traceback."""

from __future__ import annotations

import functools
import os
import sys
import warnings

import click

from .. import __version__
from ..errors import FcanalyzeError, FcanalyzeWarning
from ..inputs import short_path
from ..solving.solve import EngineError
from .lookup import lookup
from .options import CONTEXT
from .play import board, deal, verify
from .report import export, report
from .solve import solve
from .sweep import sweep


class FcanalyzeGroup(click.Group):
    """Reports every input error as one `Error:` line with exit status 2, never a traceback."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        try:
            with warnings.catch_warnings():
                warnings.showwarning = functools.partial(show_warning, warnings.showwarning)
                code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as e:
            if isinstance(e, getattr(click.exceptions, "NoArgsIsHelpError", ())) and e.ctx is not None:
                # `fcanalyze` (or a group) alone: the help, plainly, not as an error.
                click.echo(e.ctx.get_help())
                sys.exit(0)
            hint = f" (see '{e.ctx.command_path} --help')" if e.ctx is not None else ""
            fail(e.format_message() + hint, 2)
        except click.ClickException as e:
            fail(e.format_message(), e.exit_code)
        except FcanalyzeError as e:
            fail(str(e), 2)
        except EngineError as e:  # a bug, never a verdict: said in a line, with its own status
            fail(f"{e}; please report it", 4)
        except OSError as e:
            fail(f"{e.strerror or e}: {short_path(e.filename)}" if e.filename else str(e), 2)
        except (click.Abort, KeyboardInterrupt):
            click.echo("Aborted.", err=True)
            sys.exit(130)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # The reader of our output went away (`fcanalyze solve 1 | head -1`): end as a
            # process killed by SIGPIPE ends, never with a verdict's status (1 would read
            # as "unsolvable"). Output goes nowhere from here, so that exiting, which
            # flushes it, cannot fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(CLOSED_PIPE)


# The exit status of output cut off by a closed pipe: what a shell reports for a
# process killed by SIGPIPE (128 + 13), as `yes | head -1` gives.
CLOSED_PIPE = 141


def show_warning(others, message, category, filename, lineno, file=None, line=None) -> None:
    """fcanalyze's warnings as one `Warning:` line on stderr, without the source line;
    any other as Python shows it (`others`)."""
    if issubclass(category, FcanalyzeWarning):
        click.echo(f"Warning: {message}", err=True)
    else:
        others(message, category, filename, lineno, file, line)


def fail(message: str, code: int):
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


@click.group(cls=FcanalyzeGroup, context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="fcanalyze")
def cli():
    """Decide, measure and compare Microsoft FreeCell deals.

    Deals are numbered as in Microsoft FreeCell: 1..32,000 classic and up to
    8,589,934,591 extended. Boards use Freecell Solver's text format and solutions
    its standard notation (3a, a5, 1h, 54, 26v4).
    """


for command in (deal, board, verify, solve, lookup, sweep, export, report):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="fcanalyze")

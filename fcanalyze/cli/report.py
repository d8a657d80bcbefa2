"""`report` and `export`: a dataset compared across cell counts, or written as one file."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import FcanalyzeError
from ..outputs import check_output_path, write_atomically
from .options import CONTEXT


@click.command(context_settings=CONTEXT)
@click.argument("dataset_dir", metavar="DIR")
@click.argument("output", metavar="OUT")
def export(dataset_dir, output):
    """Write a sweep's dataset DIR as one file OUT (.parquet or .csv), sorted by variant, cells and deal."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from ..dataset.store import read_dataset
    from ..dataset.typed import pandas_readable

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
        write_atomically(target, lambda p: pq.write_table(pandas_readable(table), p, compression="zstd"))
    click.echo(f"wrote {table.num_rows:,} rows to {output}")


@click.command(context_settings=CONTEXT)
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

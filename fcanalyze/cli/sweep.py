"""`sweep`: many deals at several cell counts into a dataset, with its summary and the command that retries what is left."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import FcanalyzeError
from ..inputs import short_path
from ..outputs import check_output_path, size_text
from ..solving.budgets import (
    DEFAULT_MAX_SECONDS,
    kept_proofs,
)
from ..status import SOLVED, UNSOLVABLE
from ..sweep.escalate import check_escalation, retry_command, undecided
from ..sweep.solutions import HARD_NODES, SOLUTIONS
from .options import (
    CONTEXT,
    MEMORY,
    NODES,
    Checked,
    count_of,
    escalate_seconds,
    number_text,
    seconds_or_zero,
    shortest_option,
    spill_options,
)

if TYPE_CHECKING:
    from ..sweep.summary import SweepSummary

DEFAULT_SWEEP_DEALS = "1-1000"


@click.command(context_settings=CONTEXT)
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
    type=Checked("seconds", seconds_or_zero, number_text),
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
@spill_options
@shortest_option
@click.option(
    "--retry-unknown",
    is_flag=True,
    help="Run the jobs recorded as unknown or error again (with these budgets) and replace their rows.",
)
@click.option(
    "--escalate",
    metavar="SECONDS",
    type=Checked("seconds", escalate_seconds, number_text),
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
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan (the jobs to run, per cell count) and about how long it will take, "
    "from the shipped table's positions, and run nothing.",
)
@click.option("--no-progress", is_flag=True, help="No progress bar (it is off anyway when stderr is not a terminal).")
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
    threads,
    shortest,
    shortest_nodes,
    retry_unknown,
    escalate,
    scheduler,
    solutions,
    dry_run,
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
    check_escalation(max_seconds or None, escalate)
    if log_file is not None:
        _check_writable(log_file)
    from ..sweep import logs
    from ..sweep.api import run_sweep
    from .progress import ProgressBar

    def show_plan(plan) -> None:
        if plan.why:
            click.echo(plan.why, err=True)
        said = plan_text(plan)
        if said:
            click.echo(said, err=True)

    # What the plan and every round of the sweep take, as the options gave them.
    options = dict(
        variant=variant, workers=workers, max_seconds=max_seconds or None, max_nodes=max_nodes,
        max_memory=max_memory, spill_dir=spill_dir, max_disk=max_disk, layered=layered, threads=threads,
        shortest=shortest, shortest_nodes=shortest_nodes, retry_unknown=retry_unknown, scheduler=scheduler,
        solutions=solutions,
    )  # fmt: skip
    if dry_run:
        from ..sweep.plan import plan_sweep

        with _dataset_dropped_if_left_empty(out, always=True):
            plan = plan_sweep(deals, cells, out, **options)
            try:
                if plan.why:
                    click.echo(plan.why)
                click.echo(plan_text(plan) or "nothing to run")
            finally:
                plan.close()
        return

    def show_round(summary: SweepSummary, following: float | None) -> None:
        _show_summary(summary, out)
        if following is not None:
            click.echo(
                f"Escalating: the jobs without a verdict run again with {following:g} s each (up to {escalate:g})."
            )

    with _dataset_dropped_if_left_empty(out):
        try:
            logs.setup(verbose, log_file)
            summary = run_sweep(
                deals,
                cells,
                out,
                escalate=escalate,
                progress=None if no_progress else ProgressBar(),
                on_plan=show_plan,
                on_round=show_round,
                **options,
            )
        finally:
            logs.shutdown()
    unknown = undecided(summary)
    if unknown and not summary.interrupted:
        ran_cells = cells if cells is not None else ",".join(map(str, summary.cells))
        retry = retry_command(
            deals,
            ran_cells,
            str(out),
            summary.max_seconds,
            variant=variant,
            workers=workers,
            scheduler=scheduler,
            max_memory=max_memory,
            spill_dir=spill_dir,
            max_disk=max_disk,
            layered=layered,
            threads=threads,
            shortest=shortest,
            shortest_nodes=shortest_nodes,
        )
        click.echo(
            f"{count_of(unknown, 'job')} without a verdict (a budget ran out, or an error); "
            f"'fcanalyze report {out}' lists them. To run them again with more time:\n  {retry}"
        )
        _point_to_table(summary.undecided)
        kept = kept_proofs(spill_dir) if spill_dir is not None else []
        if kept:
            size = sum(f.stat().st_size for d in kept for f in d.iterdir() if f.is_file())
            click.echo(
                f"{count_of(len(kept), 'layered proof')} stopped by a budget {'is' if len(kept) == 1 else 'are'} kept in "
                f"{spill_dir} ({size_text(size)}): with the same --spill-dir, the command above goes on from "
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
def _dataset_dropped_if_left_empty(out: str, always: bool = False):
    """A sweep that fails before its first row (a scheduler nobody answers at, a disk
    gone), or with `always` one that only planned (--dry-run), leaves no empty dataset
    directory behind, if it made the directory itself: one holding only its lock file
    is removed. Anything else there is left alone."""
    # A local directory that does not exist yet; None for one that does, or a URL.
    fresh = Path(out) if "://" not in out and not Path(out).exists() else None

    def drop() -> None:
        if fresh is not None:
            try:
                if [p.name for p in fresh.iterdir()] == [".lock"]:
                    (fresh / ".lock").unlink()
                    fresh.rmdir()
            except OSError:  # best effort: the error being raised, if any, says what matters
                pass

    try:
        yield
    except BaseException:
        drop()
        raise
    if always:
        drop()


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


def _show_summary(summary: SweepSummary, out: str) -> None:
    """Prints what one sweep (or one round of --escalate) did."""
    click.echo(
        f"{summary.variant}: {count_of(summary.jobs, 'job')} in {summary.path} "
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
            f"{count_of(summary.failed_tasks, 'chunk')} failed on the cluster (the workers' logs say why); "
            "their jobs have no rows yet: run the same command again to retry them.",
            err=True,
        )


def plan_text(plan) -> str | None:
    """The plan in a line: the jobs to run per cell count, and about how long they will
    take (a local pool's; a cluster's plan says nothing until its chunks are listed)."""
    estimate = getattr(plan, "estimate", None)
    if estimate is None or not plan.to_run:
        return None
    found = estimate()
    counts = ", ".join(f"{n:,} with {k}" for k, n in sorted(plan.open_by_cells.items(), reverse=True))
    settled = plan.to_run - found.jobs
    implied = f" (the table has {settled:,} of them lost with more cells: proofs there settle them)" if settled else ""
    return f"{plan.rules.name}: {plan.to_run:,} jobs to run ({counts}){implied}: {found.text(plan.n_workers)}"

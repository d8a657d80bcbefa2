"""A sweep from its arguments to its summary: checked, planned, run on a backend, recorded."""

from __future__ import annotations

import collections
import logging
import os
import socket
import time
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..cluster import LOCAL, check_scheduler_address, cores
from ..dataset.chunks import SHARD_PREFIX
from ..dataset.jobs import DealSpans, JobSpace
from ..dataset.store import Dataset, Row
from ..errors import FcanalyzeError, VariantError
from ..game.variant import MAX_CELLS, Variant, check_cell_count
from ..inputs import quote, whole_number
from ..outputs import check_output_path
from ..solving.budgets import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_SECONDS,
    Budgets,
    check_spill_dir,
    parse_memory,
    threads_within,
)
from ..status import ERROR, UNKNOWN
from .estimate import Estimate, JobCosts, estimate
from .progress import Progress
from .queue import JobQueue
from .recorder import Recorder
from .solutions import SOLUTIONS, with_solution_kept
from .summary import SweepSummary, catch_stop_signals

if TYPE_CHECKING:
    from .cluster import ClusterPlan

log = logging.getLogger("fcanalyze.sweep")

# The local pool's dataset keeps its rows' keys and statuses in memory (some 200
# bytes a row); past this many jobs a sweep without --scheduler runs on a Dask
# cluster of this machine's cores (--scheduler local), whose chunked layout keeps
# nothing per row.
MAX_SWEEP_JOBS = 50_000_000
# The cell counts a sweep runs when none are given: the classic comparison.
DEFAULT_CELLS = [4, 2, 1]


def default_workers() -> int:
    return cores()


def default_max_memory(workers: int) -> int:
    """8 GiB per job, or less so that all workers together fit in 80% of the machine."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return DEFAULT_MAX_MEMORY
    return min(DEFAULT_MAX_MEMORY, int(total * 0.8) // max(workers, 1))


def parse_cells(text: str | int | list[int] | tuple[int, ...]) -> list[int]:
    """Cell counts from `4`, `1,2,4` or `0-4` (or a list); sorted from most to fewest."""
    if isinstance(text, int):
        items = [text]
    elif isinstance(text, (list, tuple)):
        items = list(text)
    else:
        items = []
        for part in text.split(","):
            part = part.strip()
            lo_text, dash, hi_text = part.partition("-")
            lo, hi = whole_number(lo_text), whole_number(hi_text) if dash else whole_number(lo_text)
            if lo is None or hi is None:
                raise FcanalyzeError(f"bad cell count {quote(part)} in {quote(text)}; write e.g. 4 or 1,2,4 or 0-4")
            if hi < lo:
                raise FcanalyzeError(f"bad cell range {quote(part)}: it runs backwards; write {hi}-{lo}")
            check_cell_count(hi)  # before the range is made: `0-99999999` is refused at once
            items.extend(range(lo, hi + 1))
    if not items:
        raise FcanalyzeError("no cell counts given; write e.g. --cells 4 or --cells 1,2,4")
    for k in items:
        check_cell_count(k)
    return sorted(set(items), reverse=True)


class Backend(Protocol):
    """Where a local sweep's jobs run (pool.Pool; a cluster sweep is a ClusterPlan)."""

    deaths: int

    def rows(self, queue: JobQueue) -> Generator[list[Row], None, None]:
        """Runs the queue's jobs and yields their rows in batches as they finish, with
        an empty batch at least every fifth of a second; the caller records each
        batch before asking for the next. Closing the iterator early stops the work."""
        ...


def plan_sweep(
    deals: list[int] | range | str,
    cells: list[int] | int | str | None = None,
    out: str | os.PathLike = "fcanalyze-results",
    *,
    variant: str = "freecell",
    workers: int | None = None,
    max_nodes: int | None = None,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    max_memory: int | str | None = None,
    spill_dir: str | os.PathLike[str] | None = None,
    max_disk: int | str | None = None,
    layered: bool = False,
    threads: int | None = 1,
    shortest: bool = False,
    shortest_nodes: int | None = None,
    retry_unknown: bool = False,
    progress: Progress | None = None,
    scheduler: str | None = None,
    solutions: str = "all",
) -> SweepPlan | ClusterPlan:
    """Checks every argument, opens (and locks) the dataset and lists the jobs to run,
    before any work starts. FcanalyzeError says what is wrong. `progress` is called
    with a progress.Tally as the sweep goes (the CLI draws it as a bar). `cells` None:
    4, 2 and 1, or for a variant that deals cards into the cells (seahaven, eight-off),
    its own count down to the fewest that hold them. `solutions` (all, none, hard)
    says which solved rows keep their solution. With `scheduler`, the jobs run on that
    Dask cluster and its workers write the dataset at `out`, a directory they share
    or an fsspec URL (chunks.py). `spill_dir` and `max_disk` let proofs that outgrow
    the memory budget go on as layered proofs on disk, and `layered` start them at once,
    each on `threads` threads (1: the workers already share the cores); with `shortest`, each won job's line is the shortest the search finds within the
    budgets (budgets.Budgets)."""
    from ..game.deals import parse_deal_spans

    if progress is not None and not callable(progress):
        # A flag here (progress=True) would fail only at the first tally, after work began.
        raise FcanalyzeError(f"progress must be a function that takes a progress.Tally, or None; got {progress!r}")
    check_output_path(out)
    deal_spans = DealSpans(parse_deal_spans(deals)) if isinstance(deals, str) else DealSpans.of(deals)
    if not len(deal_spans):
        raise FcanalyzeError("no deals to sweep")
    set_cells = [
        v.strip() for k, _, v in (p.partition("=") for p in variant.split(",")) if k.strip().lower() == "cells"
    ]
    if set_cells:
        raise FcanalyzeError(
            f"--variant {quote(variant)} sets cells, which a sweep takes from --cells; "
            f"write --cells {set_cells[-1]} (or a list like --cells 0-4) instead"
        )
    # The most cells fit any layout; each job's own count is checked below.
    rules = Variant.parse(variant, cells=MAX_CELLS)
    dealt = rules.dealt_to_cells
    if cells is None:
        try:
            own = Variant.parse(variant).cells
        except VariantError:  # the preset's count is too few for this layout's dealt cards
            own = dealt
        cells = list(range(own, dealt - 1, -1)) if dealt else DEFAULT_CELLS
    cell_list = parse_cells(cells)
    for k in cell_list:
        rules.with_cells(k)  # VariantError if the deal cannot fit its cells
    rules = rules.with_cells(max(cell_list))
    space = JobSpace(deal_spans, cell_list, rules.name)
    if solutions not in SOLUTIONS:
        raise FcanalyzeError(f"--solutions must be one of {', '.join(SOLUTIONS)}, got {quote(solutions)}")

    def budgets_within(memory: int | None) -> Budgets:
        """The job budgets, with the memory each kind of sweep works out for itself."""
        spill = check_spill_dir(spill_dir)
        return Budgets(
            max_nodes,
            max_seconds,
            memory,
            spill,
            parse_memory(max_disk, "disk budget"),
            layered,
            shortest=shortest,
            shortest_nodes=shortest_nodes,
            whole_process=True,
            threads=threads_within(1 if threads is None else threads, parse_memory(memory) if spill else None),
        )

    why = None
    if scheduler is None:
        why = _chunked_here(out, len(space))
        scheduler = LOCAL if why else None
    if scheduler is not None:
        if scheduler != LOCAL:
            check_scheduler_address(scheduler)
            if workers is not None:
                raise FcanalyzeError("--workers does not apply with --scheduler: the cluster's workers run the jobs")
        elif workers is not None and workers < 1:
            raise FcanalyzeError(f"--workers must be at least 1, got {workers}")
        local_workers = (workers or default_workers()) if scheduler == LOCAL else None
        if max_memory is not None:
            memory = parse_memory(max_memory)
        else:
            memory = default_max_memory(local_workers) if local_workers else DEFAULT_MAX_MEMORY
        from .cluster import ClusterPlan, open_location

        store, release = open_location(out)
        budgets = budgets_within(memory)
        cluster = ClusterPlan(
            store, rules, space, budgets, retry_unknown, solutions, progress, scheduler, release, local_workers
        )
        cluster.why = why
        return cluster
    workers = default_workers() if workers is None else workers
    if workers < 1:
        raise FcanalyzeError(f"--workers must be at least 1, got {workers}")
    memory = parse_memory(max_memory) if max_memory is not None else default_max_memory(workers)
    budgets = budgets_within(memory)

    dataset = Dataset.open(out)
    plan = SweepPlan(dataset, rules, space, budgets, workers, retry_unknown, progress, solutions)
    if plan.to_run and dataset.read_only:
        dataset.close()
        raise FcanalyzeError(
            f"cannot write to {dataset.path} ({dataset.read_only}), and {plan.to_run:,} of its jobs are still to run"
        )
    return plan


def _chunked_here(out: str | os.PathLike, jobs: int) -> str | None:
    """Why a sweep without --scheduler must still use the chunked layout, on a Dask
    cluster of this machine's cores (--scheduler local), or None: past MAX_SWEEP_JOBS
    (the local pool's dataset indexes its rows in memory; chunks keep nothing per
    row), for an fsspec URL, or to continue a dataset a cluster sweep began (one
    layout per dataset)."""
    location = str(out)
    if "://" in location:
        why = f"{location} is an fsspec URL"
    elif jobs > MAX_SWEEP_JOBS:
        why = f"{jobs:,} jobs are more than the local pool's dataset holds ({MAX_SWEEP_JOBS:,})"
    elif Path(location).is_dir() and any(p.is_dir() for p in Path(location).glob(f"{SHARD_PREFIX}*")):
        why = f"{location} holds a cluster sweep's chunks"
    else:
        return None
    return f"{why}: running on a Dask cluster of this machine's cores, as with --scheduler local"


class SweepPlan:
    """A checked sweep with its dataset open: run() does the work, close() releases the dataset."""

    # A local sweep runs where it was asked to (ClusterPlan's may say why it does not).
    why: str | None = None

    def __init__(
        self,
        dataset: Dataset,
        rules: Variant,
        space: JobSpace,
        budgets: Budgets,
        workers: int,
        retry_unknown: bool,
        progress: Progress | None = None,
        solutions: str = "all",
    ):
        self.dataset = dataset
        self.rules = rules
        self.space = space
        self.budgets = budgets
        self.n_workers = workers
        self.solutions = solutions
        self.host = socket.gethostname()
        self.stop_requested = False
        # Statuses whose rows are run again (and replaced).
        redo = {UNKNOWN, ERROR} if retry_unknown else set()
        kept = dataset.status
        done_by_cells = collections.Counter(
            key[2] for key, status in kept.items() if status not in redo and key in space
        )
        to_run_by_cells = {k: len(space.deals) - done_by_cells[k] for k in space.cells}
        self.to_run = sum(to_run_by_cells.values())
        self._redo = redo
        self._estimate: Estimate | None = None
        # Progress advances by each job's estimated time, so that the bar's ETA starts
        # from the estimate and corrects itself as the jobs come in.
        costs = JobCosts(space.variant, budgets.max_seconds)
        total_cost = self.estimate().cost if self.to_run else 0
        self.recorder = Recorder(dataset, self.to_run, total_cost, progress, costs)
        self.queue = JobQueue(
            space, rules, budgets, self.host, kept, self.recorder.recorded, redo, self.record, self.to_run
        )
        self.summary = SweepSummary(dataset.path, rules.name, len(space), len(space) - self.to_run)
        self.summary.cells = list(space.cells)
        self.summary.max_seconds = budgets.max_seconds
        self.open_by_cells = {k: n for k, n in to_run_by_cells.items() if n}

    def estimate(self) -> Estimate:
        """How long the open jobs will take on the workers, from the shipped table's
        positions (sweep.estimate): before the sweep, for a plan or --dry-run."""
        if self._estimate is None:
            kept, redo, space = self.dataset.status, self._redo, self.space
            done = ((deal, cells) for (deal, _, cells), status in kept.items() if status not in redo)
            spans, variant, seconds = space.deals.spans, space.variant, self.budgets.max_seconds
            self._estimate = estimate(spans, space.cells, done, variant, self.n_workers, seconds)
        return self._estimate

    def record(self, row: Row) -> None:
        if self.recorder.record(with_solution_kept(row, self.solutions)):
            self.queue.recorded_row(row.key)

    def close(self) -> None:
        self.dataset.close()

    def backend(self) -> Backend:
        from .pool import Pool

        return Pool(self.rules, self.budgets, self.n_workers, self.host)

    def run(self) -> SweepSummary:
        s = self.summary
        start = time.perf_counter()
        log.info(
            "%d jobs (%s), %d already in %s, %d to run on %d worker(s); budgets %s",
            s.jobs,
            self.rules.name,
            s.already_done,
            self.dataset.path,
            self.to_run,
            self.n_workers,
            self.budgets.text(),
        )
        if self.to_run:
            recorder = self.recorder
            recorder.report(force=True)
            backend = self.backend()
            restore = catch_stop_signals(self)
            batches = backend.rows(self.queue)
            try:
                for batch in batches:
                    for row in batch:
                        self.record(row)
                    recorder.tick()
                    if self.stop_requested:
                        break
            finally:
                batches.close()
                restore()
                if self.stop_requested:
                    s.interrupted = True
                    log.warning("stopped; the jobs finished so far are kept")
                recorder.flush()
                recorder.report(force=True, final=True)
            s.ran = recorder.ran
            s.engine_seconds = recorder.engine_seconds
            s.verify_seconds = recorder.verify_seconds
            s.write_seconds = recorder.write_seconds
            s.worker_deaths = backend.deaths
        s.wall_seconds = time.perf_counter() - start
        # Counted over the dataset's rows, not the plan's jobs, which may be billions.
        s.by_cells = {cells: collections.Counter() for cells in self.space.cells}
        for key, status in self.dataset.status.items():
            if key in self.space:
                s.by_cells[key[2]][status] += 1
                if status in (UNKNOWN, ERROR):
                    s.undecided.append(key)
        for counter in s.by_cells.values():
            counter["left"] = len(self.space.deals) - sum(counter.values())
        return s

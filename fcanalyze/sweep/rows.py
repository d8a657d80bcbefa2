"""A job's dataset row: searched and refereed, or settled without a search (an error, or a proof with more cells)."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

from .. import __version__
from ..dataset.store import Row
from ..game.variant import Variant
from ..solving.budgets import Budgets
from ..solving.solve import drop_kept_proof, solve_within
from ..status import ERROR, SOLVED, UNSOLVABLE

log = logging.getLogger("fcanalyze.sweep")


def solve_row(deal: int, cells: int, variant: Variant, budgets: Budgets, host: str) -> Row:
    """One dataset row for one job; engine bugs become `error` rows."""
    rules = variant.with_cells(cells)
    try:
        r = solve_within(deal, rules, budgets)
    except Exception as e:  # an engine bug must not stop a sweep of thousands of jobs
        log.error("deal %d, %s: %s", deal, rules.describe(), e)
        return error_row(deal, rules, budgets, host, f"{type(e).__name__}: {e}")
    if r.note:
        # A kept proof not gone on from, or damaged files: worth a line whatever the verbosity.
        log.warning("deal %d, %s: layered proof: %s", deal, rules.describe(), r.note)
    solved = r.status == SOLVED
    if r.status != SOLVED and r.status != UNSOLVABLE:
        log.info("deal %d, %s: unknown (%s budget ran out after %.1f s)", deal, rules.describe(), r.limit, r.seconds)
    elif log.isEnabledFor(logging.DEBUG):  # four-cell jobs take a quarter of a millisecond
        log.debug("deal %d, %s: %s in %.3f s", deal, rules.describe(), r.status, r.seconds)
    return Row(
        deal=deal,
        variant=rules.name,
        cells=cells,
        columns=rules.columns,
        status=r.status,
        solvable=r.solvable,
        limit=r.limit,
        implied_by=None,
        moves=r.moves,
        card_moves=r.card_moves,
        non_foundation_moves=r.non_foundation_moves,
        score=r.score,
        nodes=r.nodes,
        states=r.states,
        max_depth=r.max_depth,
        seconds=r.seconds,
        verify_seconds=r.verify_seconds,
        peak_memory=r.peak_memory,
        solution=" ".join(r.solution) if solved else None,
        shortest_proved=r.shortest_proved,
        shortest_bound=r.shortest_bound,
        shortest_limit=r.shortest_limit,
        verified=solved,
        error=None,
        engine_version=__version__,
        budgets=budgets.text(),
        host=host,
        finished_at=datetime.now(timezone.utc),
    )


def error_row(deal: int, rules: Variant, budgets: Budgets, host: str, message: str) -> Row:
    return _row_without_search(deal, rules, budgets, host, status=ERROR, solvable=None, error=message)


def implied_row(deal: int, rules: Variant, budgets: Budgets, host: str, proved_at: int) -> Row:
    """The row of a job settled without a search: `proved_at` more cells were proved
    unsolvable, and fewer cells can never win a deal that more cannot (a solution with
    k cells is one with k + 1). No search ran, so its figures are null. A layered proof
    of the job kept from an earlier run is removed: nothing would ever go on from it."""
    if budgets.spill_dir is not None:
        try:
            drop_kept_proof(deal, rules, budgets.spill_dir)
        except (OSError, ValueError) as e:  # a proof left behind is disk, not a wrong row
            log.warning("deal %d, %s: its kept proof could not be removed: %s", deal, rules.describe(), e)
    return _row_without_search(deal, rules, budgets, host, status=UNSOLVABLE, solvable=False, implied_by=proved_at)


def _row_without_search(
    deal: int,
    rules: Variant,
    budgets: Budgets,
    host: str,
    *,
    status: str,
    solvable: bool | None,
    implied_by: int | None = None,
    error: str | None = None,
) -> Row:
    figures = dict.fromkeys(
        ("limit", "moves", "card_moves", "non_foundation_moves", "score", "nodes", "states", "max_depth", "seconds",
         "verify_seconds", "peak_memory", "solution", "shortest_proved", "shortest_bound", "shortest_limit")
    )  # fmt: skip
    return Row(
        deal=deal, variant=rules.name, cells=rules.cells, columns=rules.columns, status=status, solvable=solvable,
        implied_by=implied_by, verified=False, error=error, engine_version=__version__, budgets=budgets.text(),
        host=host, finished_at=datetime.now(timezone.utc), **figures,
    )  # fmt: skip

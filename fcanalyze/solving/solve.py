"""Deciding a deal: run the Rust engine, then have the referee replay every solution it returns."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import _engine
from ..errors import FcanalyzeError
from ..game.board import Board
from ..game.deals import check_deal_number, microsoft_deal
from ..game.variant import Build, EmptyColumn, Variant
from ..referee.replay import replay
from ..status import SOLVED, UNSOLVABLE
from .budgets import DEFAULT_MAX_MEMORY, Budgets, check_spill_dir, engine_memory, parse_memory, threads_within


class EngineError(RuntimeError):
    """The engine returned a solution the referee rejects: a bug, never a result."""


@dataclass(frozen=True)
class SolveResult:
    """The verdict on one job (a deal or board, a cell count, a variant) and its cost.

    status is `solved` (with a solution the referee replayed), `unsolvable` (proved by
    exhaustive search) or `unknown` (a budget ran out; `limit` names it: nodes,
    seconds, memory, disk). moves counts every move, a sequence move as one;
    non_foundation_moves those that do not send a card to a foundation (what a
    shortest line has fewest of); card_moves the single-card moves they expand to;
    score is the solution's score under the FreeCell Solitaire app's scoring
    (`fcanalyze.game.scoring`). nodes are positions expanded, states distinct positions
    stored, peak_memory the search's own bytes at most. shortest_proved is None
    unless a shortest line was searched for (`shortest`), then whether no line has
    fewer non-foundation moves; shortest_limit the budget that stopped that search
    early (its best line so far is the solution); shortest_bound a proved lower bound:
    no winning line has fewer non-foundation moves (equal to non_foundation_moves
    exactly when shortest_proved).
    """

    status: str
    limit: str | None
    solution: list[str] = field(repr=False)
    moves: int | None
    card_moves: int | None
    score: int | None
    nodes: int
    states: int
    max_depth: int
    seconds: float
    peak_memory: int
    deal: int | None = None
    # Most bytes a layered proof (spill_dir) held on disk; 0 without one.
    peak_disk: int = 0
    variant: str = "freecell"
    cells: int = 4
    # Time the referee took to replay the solution (0 unless solved).
    verify_seconds: float = 0.0
    # A layered proof that went on from one kept in spill_dir: the earlier runs' time
    # (their nodes and states are counted in). 0 otherwise.
    resumed_seconds: float = 0.0
    # Whether a layered proof that a budget stopped was kept in spill_dir to go on from.
    kept: bool = False
    # What a layered proof says of its files in a line: a kept proof it did not go on
    # from, and why (it started afresh), or files found damaged (then the job is
    # unknown, limit 'disk'). None otherwise.
    note: str | None = None
    non_foundation_moves: int | None = None
    shortest_proved: bool | None = None
    shortest_limit: str | None = None
    shortest_bound: int | None = None

    @property
    def solvable(self) -> bool | None:
        return {SOLVED: True, UNSOLVABLE: False}.get(self.status)

    def to_dict(self) -> dict:
        return asdict(self)


@functools.lru_cache(maxsize=64)
def engine_variant(rules: Variant) -> _engine.Variant:
    """The engine's Variant for `rules`: the one place the two are matched up."""
    return _engine.Variant(
        cells=rules.cells,
        columns=rules.columns,
        same_suit=rules.build is Build.SUIT,
        kings_only=rules.empty_column is EmptyColumn.KINGS,
        sequence_moves=rules.sequence_moves.value,
        takeback=rules.takeback,
    )


@functools.lru_cache(maxsize=64)
def _parsed_variant(spec: str, cells: int | None) -> Variant:
    # Sweeps solve thousands of deals under one variant; parse its text once.
    return Variant.parse(spec, cells=cells)


def solve(
    deal_or_board: int | Board,
    *,
    cells: int | None = None,
    variant: Variant | str = "freecell",
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    max_memory: int | str | None = None,
    spill_dir: str | os.PathLike[str] | None = None,
    max_disk: int | str | None = None,
    layered: bool = False,
    shortest: bool = False,
    whole_process: bool = False,
    threads: int | None = None,
    shortest_nodes: int | None = None,
) -> SolveResult:
    """Decide a Microsoft deal (by number) or a Board under `variant` with `cells` free cells.

    Arguments:
        deal_or_board: a deal number 1..8,589,934,591, or a Board (see parse_board).
        cells: free cells, 0..8; default the variant's (4 for FreeCell).
        variant: a Variant, or its text: 'freecell', 'bakers-game', 'relaxed-freecell',
            'single-move-freecell', 'seahaven', 'eight-off', optionally with overrides such as
            'freecell,columns=10,empty=kings' or 'freecell,takeback=yes' (see Variant.parse).
        max_nodes, max_seconds: give up with status 'unknown' after this many
            positions expanded or seconds; default no limit.
        max_memory: bytes, or text like '2G' or '512M'; default 8 GiB. The search's
            own structures stay within it (its peak_memory); with whole_process, the
            whole process's peak resident memory as the OS counts it does (the search
            gets what is left once what the process holds already is taken off; see
            budgets.engine_memory), as the command line's --max-memory and a sweep's
            workers do.
        spill_dir: a directory where a proof that outgrows max_memory goes on as a
            layered proof (docs/correctness.md, "The layered proof"), writing at most
            max_disk (bytes or text; default half the space free there) of files it
            removes when done, and stopping (limit 'disk') before the free space
            there falls below half of what it was (1 GiB with max_disk given). It
            keeps no path: a win it meets leaves 'unknown' (memory), and says so.
            A layered proof that a budget stops (time, nodes, memory, disk, Ctrl-C) is
            kept there, and the next solve of the same job with the same spill_dir
            goes on from it: hours of proof can be spread over several runs.
        layered: start the layered proof at once, skipping the searches in memory
            (needs spill_dir): for a job known to outgrow memory, whose first
            search in memory would only be done again.
        threads: how many threads a layered proof searches on at once (the buckets of
            a level, which cannot reach one another); default all cores. max_memory
            and max_disk bound all of them together, and the proof stores exactly
            the positions it stores on one thread.
        shortest: once the deal is won, search for its shortest line (fewest moves
            that do not go to a foundation) within what is left of the budgets, and
            prove it shortest where the search can (docs/correctness.md, "The
            shortest line"); the result says so in shortest_proved, and shortest_limit
            names the budget that stopped the proof where it is not proved.
        shortest_nodes: positions the proof of the shortest line may expand (default
            _engine.SHORTEST_NODES, 10,000); max_seconds and max_memory bound it too.

    Returns a SolveResult with:
        status: 'solved', 'unsolvable' (proved by exhaustive search) or 'unknown';
        limit: for 'unknown', the budget that ran out: 'nodes', 'seconds', 'memory'
            or 'disk';
        solution: the moves in standard notation (list of str), replayed by the
            independent referee; moves (a sequence move counts as one), card_moves;
            score (the FreeCell Solitaire app's: +10 a card home, +5 a card out of a
            free cell onto a column, sequence moves scored as their single cards);
        nodes, states, max_depth, seconds, peak_memory and peak_disk (bytes),
        verify_seconds; kept (a layered proof stopped and kept in spill_dir) and
        resumed_seconds (the earlier runs' time of a proof that went on from a kept
        one, whose nodes and states count theirs too; 0 otherwise);
        deal, variant, cells: what was solved.

    Raises FcanalyzeError (a ValueError; DealNumberError, VariantError, BoardError
    are kinds of it) for bad input, KeyboardInterrupt within about 0.1 s of Ctrl-C,
    and EngineError if the engine's solution ever failed the referee (a bug, never
    a result).

    >>> fcanalyze.solve(1, cells=3).status
    'solved'
    """
    rules = _parsed_variant(variant, cells) if isinstance(variant, str) else variant
    if cells is not None and rules.cells != cells:
        rules = rules.with_cells(cells)
    budgets = Budgets(
        max_nodes,
        max_seconds,
        parse_memory(max_memory),
        check_spill_dir(spill_dir),
        parse_memory(max_disk, "disk budget"),
        layered,
        shortest=shortest,
        whole_process=whole_process,
        threads=threads_within(threads, parse_memory(max_memory) if spill_dir is not None else None),
        shortest_nodes=shortest_nodes,
    )
    return solve_within(deal_or_board, rules, budgets)


def _refereed(board: Board, rules: Variant, line: list[str], deal: int | None, what: str):
    """The referee's replay of the engine's `line` and the seconds it took; EngineError
    if it does not win (a bug, never a result)."""
    begin = time.perf_counter()
    verdict = replay(board, rules, line)
    seconds = time.perf_counter() - begin
    if not verdict.won:
        where = f"deal {deal}" if deal is not None else "board"
        raise EngineError(
            f"engine bug: its {what} of {where} ({rules.describe()}) fails the referee: {verdict.summary()}"
        )
    return verdict, seconds


def drop_kept_proof(deal_or_board: int | Board, rules: Variant, spill_dir: str) -> bool:
    """Removes the layered proof of a job kept in `spill_dir`, if there is one, and says
    whether there was: for a job settled without it (a sweep's job with fewer cells
    than one proved lost), which nothing would ever go on from."""
    board = deal_or_board if isinstance(deal_or_board, Board) else microsoft_deal(deal_or_board, rules)
    return _engine.drop_kept_proof(board.columns, board.cells, board.foundations, engine_variant(rules), spill_dir)


def solve_within(deal_or_board: int | Board, rules: Variant, budgets: Budgets) -> SolveResult:
    """`solve`, for rules and budgets already checked: a sweep's jobs share one Budgets,
    made once, so that their disk floor (`Budgets.keep_free`) is the sweep's, not
    recomputed from each job's start."""
    if isinstance(deal_or_board, Board):
        board, deal = deal_or_board, None
    else:
        deal = check_deal_number(deal_or_board)
        board = microsoft_deal(deal, rules)
    spill = None
    if budgets.spill_dir is not None:
        spill = _engine.Spill(
            budgets.spill_dir,
            max_disk=budgets.max_disk,
            keep_free=budgets.keep_free,
            threads=budgets.threads,
            layered=budgets.layered,
        )
    engine_budgets = _engine.Budgets(
        max_nodes=budgets.max_nodes,
        max_seconds=budgets.max_seconds,
        max_memory=engine_memory(budgets.max_memory or DEFAULT_MAX_MEMORY)
        if budgets.whole_process
        else budgets.max_memory,
        spill=spill,
    )
    try:
        raw = _engine.solve(
            board.columns,
            board.cells,
            board.foundations,
            engine_variant(rules),
            engine_budgets,
            shortest=budgets.shortest,
            shortest_nodes=budgets.shortest_nodes,
        )
    except RuntimeError as e:  # the engine panicked: a bug, never a verdict
        where = f"deal {deal}" if deal is not None else "board"
        raise EngineError(f"engine bug on {where} ({rules.describe()}): {e}") from None
    moves = card_moves = score = non_foundation_moves = None
    verify_seconds = 0.0
    solution = raw["solution"].split()
    shortest = raw["shortest"]
    if raw["status"] == SOLVED:
        verdict, verify_seconds = _refereed(board, rules, solution, deal, "solution")
        moves, card_moves, score = verdict.moves, verdict.card_moves, verdict.score
        non_foundation_moves = verdict.non_foundation_moves
    return SolveResult(
        status=raw["status"],
        limit=raw["limit"],
        solution=solution,
        moves=moves,
        card_moves=card_moves,
        score=score,
        nodes=raw["nodes"],
        states=raw["states"],
        max_depth=raw["max_depth"],
        seconds=raw["seconds"],
        peak_memory=raw["peak_memory"],
        peak_disk=raw["peak_disk"],
        deal=deal,
        variant=rules.name,
        cells=rules.cells,
        verify_seconds=verify_seconds,
        resumed_seconds=raw["resumed_seconds"],
        kept=raw["kept"],
        note=raw["note"],
        non_foundation_moves=non_foundation_moves,
        shortest_proved=None if shortest is None else shortest["proved"],
        shortest_limit=None if shortest is None else shortest["limit"],
        shortest_bound=None if shortest is None else _checked_bound(shortest, non_foundation_moves, deal),
    )


def shortest_line(
    deal_or_board: int | Board,
    solution: str | list[str],
    *,
    cells: int | None = None,
    variant: Variant | str = "freecell",
    max_nodes: int | None = None,
    max_seconds: float | None = None,
    max_memory: int | str | None = None,
    shortest_nodes: int | None = None,
) -> SolveResult:
    """The shortest line of a deal already won by `solution` (notation text or tokens),
    as `solve(..., shortest=True)` would search for it, begun from `solution` rather
    than from a search for a win: for lines found before, such as a table's. The
    result is `solved` with the shortest line found (`solution` itself if none is
    shorter), replayed by the referee, and says in shortest_proved whether it is proved
    shortest; nodes and seconds are the search's. FcanalyzeError if `solution` is not a
    winning line of the deal under these rules."""
    rules = _parsed_variant(variant, cells) if isinstance(variant, str) else variant
    if cells is not None and rules.cells != cells:
        rules = rules.with_cells(cells)
    budgets = Budgets(max_nodes, max_seconds, parse_memory(max_memory), shortest=True, shortest_nodes=shortest_nodes)
    if isinstance(deal_or_board, Board):
        board, deal = deal_or_board, None
    else:
        deal = check_deal_number(deal_or_board)
        board = microsoft_deal(deal, rules)
    tokens = solution.split() if isinstance(solution, str) else list(solution)
    given = replay(board, rules, tokens)
    if not given.won:
        raise FcanalyzeError(f"the solution given does not win: {given.summary()}")
    found = _engine.shortest_line(
        board.columns,
        board.cells,
        board.foundations,
        engine_variant(rules),
        tokens,
        _engine.Budgets(max_nodes=budgets.max_nodes, max_seconds=budgets.max_seconds, max_memory=budgets.max_memory),
        shortest_nodes=budgets.shortest_nodes,
    )
    line = found["line"].split()
    verdict, verify_seconds = _refereed(board, rules, line, deal, "shortest line")
    return SolveResult(
        status=SOLVED,
        limit=None,
        solution=line,
        moves=verdict.moves,
        card_moves=verdict.card_moves,
        score=verdict.score,
        nodes=found["nodes"],
        states=0,
        max_depth=0,
        seconds=found["seconds"],
        peak_memory=0,
        deal=deal,
        variant=rules.name,
        cells=rules.cells,
        verify_seconds=verify_seconds,
        non_foundation_moves=verdict.non_foundation_moves,
        shortest_proved=found["proved"],
        shortest_limit=found["limit"],
        shortest_bound=_checked_bound(found, verdict.non_foundation_moves, deal),
    )


def _checked_bound(found: Mapping[str, Any], non_foundation_moves: int | None, deal: int | None) -> int | None:
    """The engine's proved lower bound on a won job's non-foundation moves, held to the
    line the referee replayed: a line below it, or a line said proved shortest that is
    not at it, would make the bound (or the proof) a wrong claim."""
    bound = found["bound"]
    if bound is None or non_foundation_moves is None:
        return bound
    if bound > non_foundation_moves or found["proved"] != (bound == non_foundation_moves):
        raise EngineError(
            f"engine bug on {'board' if deal is None else f'deal {deal}'}: a line of {non_foundation_moves} moves not to a foundation "
            f"beside a proved bound of {bound} (proved shortest: {found['proved']})"
        )
    return bound

"""Type stub for the Rust engine built from engine/ (fcanalyze._engine); mypy.stubtest checks it against the build."""

from typing import Literal, TypedDict, final

__all__ = [
    "DEFAULT_MAX_MEMORY",
    "SHORTEST_NODES",
    "Budgets",
    "Spill",
    "Variant",
    "__version__",
    "drop_kept_proof",
    "generate_moves",
    "lower_bounds",
    "shorter_line",
    "shortest_line",
    "solve",
]

class _Outcome(TypedDict):
    """What `solve` returns (a plain dict at run time)."""

    status: Literal["solved", "unsolvable", "unknown"]
    limit: Literal["nodes", "seconds", "memory", "interrupted", "disk"] | None
    solution: str
    nodes: int
    states: int
    max_depth: int
    peak_memory: int
    peak_disk: int
    seconds: float
    resumed_seconds: float
    kept: bool
    note: str | None
    shortest: _Shortest | None

class _Shortest(TypedDict):
    """What the search for the shortest line did (a plain dict at run time)."""

    proved: bool
    limit: Literal["nodes", "seconds", "memory", "interrupted", "disk"] | None
    # No winning line has fewer moves not to a foundation (proved).
    bound: int

__version__: str
DEFAULT_MAX_MEMORY: int
SHORTEST_NODES: int

@final
class Variant:
    """The rules a search plays (fcanalyze.solving.solve.engine_variant builds one from a
    fcanalyze.Variant). ValueError for cells past 0..8, columns past 4..10, or a
    sequence_moves other than "supermove", "single" or "relaxed"."""

    def __new__(
        cls,
        *,
        cells: int,
        columns: int,
        same_suit: bool = False,
        kings_only: bool = False,
        sequence_moves: str = "supermove",
        takeback: bool = False,
    ) -> Variant: ...

def generate_moves(
    columns: list[list[int]],
    cells: list[int | None],
    home: list[int],
    variant: Variant,
    *,
    sequences: bool = False,
) -> list[str]:
    """The moves the exhaustive search tries from a position, in standard notation."""

def drop_kept_proof(
    columns: list[list[int]], cells: list[int | None], home: list[int], variant: Variant, spill_dir: str
) -> bool:
    """Removes the layered proof of this position kept in spill_dir, if there is one
    (nothing else there), and says whether there was: for a job settled without it."""

@final
class Spill:
    """Where a proof that outgrows max_memory goes on as a layered proof: its files in
    `dir`, at most max_disk bytes of them, stopping (limit "disk") when the free space on
    dir's filesystem falls below keep_free bytes; the buckets of a level searched on
    `threads` threads at once, the budgets shared among them; with layered, the layered
    proof starts at once. ValueError for a zero max_disk or threads outside 1..1,024."""

    def __new__(
        cls,
        dir: str,
        *,
        max_disk: int | None = None,
        keep_free: int | None = None,
        threads: int = 1,
        layered: bool = False,
    ) -> Spill: ...

@final
class Budgets:
    """What a job may spend, and where a proof may spill (fcanalyze.solving.solve builds one
    from a fcanalyze.solving.budgets.Budgets). ValueError for a zero or NaN budget."""

    def __new__(
        cls,
        *,
        max_nodes: int | None = None,
        max_seconds: float | None = None,
        max_memory: int | None = None,
        spill: Spill | None = None,
    ) -> Budgets: ...

def solve(
    columns: list[list[int]],
    cells: list[int | None],
    home: list[int],
    variant: Variant,
    budgets: Budgets,
    *,
    shortest: bool = False,
    shortest_nodes: int | None = None,
) -> _Outcome:
    """Decide a position. The dict holds status, limit, solution (moves in standard
    notation separated by spaces, "" unless solved), nodes, states, max_depth,
    peak_memory, peak_disk, seconds, resumed_seconds, kept, note and shortest; see
    fcanalyze.solve for their meaning. A layered proof that a budget stops is kept in
    spill_dir, and the next call for the job goes on from it. With shortest, a won
    job's line is the shortest the search finds."""

def shorter_line(
    columns: list[list[int]],
    cells: list[int | None],
    home: list[int],
    variant: Variant,
    line: list[str],
    effort: tuple[list[int], list[int], int],
) -> tuple[str | None, bool, int, int]:
    """For tuning the shortest line's search (scripts/tune_shortest.py) and bounding a
    table's lines (scripts/shorten_table.py --bounds): a line shorter
    than `line` from the search `effort` gives as (beam widths, guide, proof nodes): beams
    of those widths weighed by the guide (the twelve weights of
    engine/src/search/shortest/beam.rs's Guide, in order), then a branch and bound of at
    most that many positions. Returns the line (None if none is shorter), whether none is
    shorter than the best, the positions expanded, and the proved lower bound (None
    under take-back)."""

def lower_bounds(
    columns: list[list[int]], cells: list[int | None], home: list[int], variant: Variant
) -> tuple[int, int]:
    """The shortest line's two lower bounds of a position after its safe foundation moves:
    blocked runs alone, and with deadlocked pairs."""

class _ShortestLine(TypedDict):
    """What `shortest_line` returns (a plain dict at run time)."""

    line: str
    proved: bool
    limit: Literal["nodes", "seconds", "memory", "interrupted", "disk"] | None
    # No winning line has fewer moves not to a foundation (proved).
    bound: int
    nodes: int
    seconds: float

def shortest_line(
    columns: list[list[int]],
    cells: list[int | None],
    home: list[int],
    variant: Variant,
    line: list[str],
    budgets: Budgets,
    *,
    shortest_nodes: int | None = None,
) -> _ShortestLine:
    """The shortest line the search finds (the effort `solve` spends with shortest), begun
    from `line`, a winning line from the position in standard notation, within `budgets`:
    the line (`line` itself if none is shorter), whether it is proved shortest, the
    budget that stopped the search early, the proved lower bound, nodes and seconds. ValueError for a line that
    is not legal from the position."""

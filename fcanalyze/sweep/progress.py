"""How a sweep tells its caller how far it has got: a callback, which the CLI draws as a bar."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

# A job's typical cost in tenths of a millisecond of a worker's time, by cell count:
# the engine's mean over the classic deals 1..32,000 in the full-table sweep
# (docs/performance.md) plus about 0.3 ms of referee and pool. Progress is weighed by
# these (whole numbers, so that it ends exactly at its total): jobs go out with the
# most cells first, and counting one per job would make the easy 4-cell jobs look
# like nearly all the work.
_EXPECTED_COST = {0: 18, 1: 730, 2: 540, 3: 65, 4: 9}


def expected_cost(cells: int) -> int:
    """The relative cost of a job with `cells` free cells (more than 4 cost as 4 do)."""
    return _EXPECTED_COST.get(cells, _EXPECTED_COST[4])


@dataclass(frozen=True)
class Tally:
    """Where a sweep stands: `done` of `total` expected cost (see expected_cost), `ran`
    of `to_run` jobs, and how many of those ran got each status."""

    done: int
    total: int
    ran: int
    to_run: int
    counts: Mapping[str, int]


class Progress(Protocol):
    """Called with a Tally when a sweep starts, at most five times a second while it
    runs, and once more at its end with `final` true (and the tally exact)."""

    def __call__(self, tally: Tally, final: bool) -> None: ...

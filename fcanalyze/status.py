"""The verdict vocabulary, in one place: a job's status, and the budget an unknown ran out of."""

from __future__ import annotations

from typing import Final, Literal

# Plain strings, as the dataset stores them and pandas compares them.
Status = Literal["solved", "unsolvable", "unknown", "error"]
SOLVED: Final = "solved"
UNSOLVABLE: Final = "unsolvable"
UNKNOWN: Final = "unknown"
# A sweep's row for a job whose worker crashed twice or whose engine misbehaved.
ERROR: Final = "error"

STATUSES: tuple[Status, ...] = (SOLVED, UNSOLVABLE, UNKNOWN, ERROR)
DECIDED: tuple[Status, ...] = (SOLVED, UNSOLVABLE)

# "disk": a layered proof (--spill-dir) filled its --max-disk, or could not write.
Limit = Literal["nodes", "seconds", "memory", "interrupted", "disk"]
LIMITS: tuple[Limit, ...] = ("nodes", "seconds", "memory", "interrupted", "disk")

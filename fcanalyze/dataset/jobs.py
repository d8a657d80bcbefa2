"""A sweep's jobs, deals x cell counts, held as spans: a plan of any size in constant memory."""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator

from ..game.deals import check_deal_number, merge_spans

Key = tuple[int, str, int]  # (deal, variant name, cells): one job, one dataset row


class DealSpans:
    """Sorted, disjoint, inclusive spans of deal numbers, indexed like the list they stand for."""

    def __init__(self, spans: Iterable[tuple[int, int]]):
        self.spans = merge_spans(list(spans))
        self._firsts = [lo for lo, _ in self.spans]
        # _starts[i]: how many deals come before span i.
        self._starts = [0]
        for lo, hi in self.spans:
            self._starts.append(self._starts[-1] + hi - lo + 1)

    @classmethod
    def of(cls, deals: Iterable[int]) -> DealSpans:
        return cls((d, d) for d in (check_deal_number(d) for d in deals))

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, position: int) -> int:
        if not 0 <= position < len(self):
            raise IndexError(position)
        i = bisect.bisect_right(self._starts, position) - 1
        return self.spans[i][0] + position - self._starts[i]

    def __contains__(self, deal: object) -> bool:
        if not isinstance(deal, int):
            return False
        i = bisect.bisect_right(self._firsts, deal) - 1
        return i >= 0 and deal <= self.spans[i][1]

    def __iter__(self) -> Iterator[int]:
        for lo, hi in self.spans:
            yield from range(lo, hi + 1)

    def position(self, deal: int) -> int:
        """Where `deal` is in the list the spans stand for (`self[position] == deal`)."""
        i = bisect.bisect_right(self._firsts, deal) - 1
        if i < 0 or deal > self.spans[i][1]:
            raise ValueError(f"deal {deal} is not in the spans")
        return self._starts[i] + deal - self.spans[i][0]

    def within(self, first: int, last: int) -> list[tuple[int, int]]:
        """The spans' parts inside first..last."""
        i = max(0, bisect.bisect_right(self._firsts, first) - 1)
        found = []
        for lo, hi in self.spans[i:]:
            if lo > last:
                break
            if hi >= first:
                found.append((max(lo, first), min(hi, last)))
        return found


class JobSpace:
    """Every (deal, variant, cells) job of a sweep, in the order the sweep hands them
    out: every deal at the most cells, then every deal at the next count, and so on,
    so that a deal's verdict with more cells is there when its job with fewer comes up.
    Index i is job `key(i)`; nothing is stored per job."""

    def __init__(self, deals: DealSpans, cells: list[int], variant: str):
        self.deals = deals
        self.cells = sorted(set(cells), reverse=True)
        self.variant = variant
        self._cells = set(self.cells)

    def __len__(self) -> int:
        return len(self.deals) * len(self.cells)

    def key(self, index: int) -> Key:
        which, position = divmod(index, len(self.deals))
        return (self.deals[position], self.variant, self.cells[which])

    def index(self, key: Key) -> int:
        """The index of job `key`, which must be in the space (`key(index) == key`)."""
        deal, _, cells = key
        return self.cells.index(cells) * len(self.deals) + self.deals.position(deal)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 3:
            return False
        deal, variant, cells = key
        return variant == self.variant and cells in self._cells and deal in self.deals

"""The report's text: tables formatted for a terminal and for Markdown, and the words and headings they use."""

from __future__ import annotations

import pandas as pd

from ..outputs import percent
from ..status import ERROR, SOLVED, UNKNOWN, UNSOLVABLE

ALWAYS_WRITTEN = ("summary", "min_cells", "min_cells_distribution", "hardest")


def _format(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if abs(value) >= 100 or value == int(value):
            return f"{value:,.0f}"
        # Fixed decimals, never an exponent: a column of times reads down as one scale.
        if abs(value) >= 0.01:
            return f"{value:.2f}"
        return f"{value:.4f}" if abs(value) >= 0.0001 else "<0.0001"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


# Columns that name deals: their numbers print plainly (18032, not 18,032), so that one
# pasted into `fcanalyze lookup` or `--deals` is that deal and not a list of two.
DEAL_COLUMNS = frozenset({"deal", "first_deal", "last_deal"})


def _format_deal(value) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return "-"
    return str(int(value))


def format_table(frame: pd.DataFrame, columns: list[str] | None = None, markdown: bool = False) -> str:
    """A plain or Markdown table, numbers right-aligned; deal numbers without separators."""
    frame = frame if columns is None else frame[columns]
    head = list(frame.columns)
    formats = [_format_deal if h in DEAL_COLUMNS else _format for h in head]
    body = [[f(v) for f, v in zip(formats, row)] for row in frame.astype(object).itertuples(index=False)]
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" for _ in head) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines)
    widths = [max([len(h)] + [len(r[i]) for r in body]) for i, h in enumerate(head)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(head, widths))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


def _share(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.copy()
    out["solvable_share"] = [percent(s) for s in out["solvable_share"]]
    return out


def _deal_list(what: str, deals: pd.Series, shown: int, where: str) -> str:
    """`what (N): d1, d2, ...`, the first `shown` deals, then how many more are in `where`."""
    more = f" and {len(deals) - shown:,} more ({where})" if len(deals) > shown else ""
    return f"{what} ({len(deals):,}): " + ", ".join(str(d) for d in list(deals)[:shown]) + more


# The terminal lists at most this many undecided jobs, report.md this many.
UNDECIDED_SHOWN = 20
UNDECIDED_LISTED = 200
# The fewest-cells label of deals that no cell count run wins.
NOT_WON = "not won"

VERDICT_COLUMNS = ["variant", "cells", "jobs", SOLVED, UNSOLVABLE, "implied", UNKNOWN, ERROR, "solvable_share"]
# The terminal's table of the solved deals' solutions, in 100 columns.
MOVES_COLUMNS = {
    "variant": "variant",
    "cells": "cells",
    SOLVED: "solved",
    "moves_median": "moves med",
    "moves_p90": "moves p90",
    "moves_max": "moves max",
    "non_foundation_moves_median": "no home med",
    "card_moves_median": "card moves med",
    "engine_seconds": "engine s",
}
# The terminal's effort table, with headings that say whose figure each is, in 100 columns.
EFFORT_COLUMNS = {
    "variant": "variant",
    "cells": "cells",
    "outcome": "outcome",
    "jobs": "jobs",
    "searched": "searched",
    "nodes_median": "nodes med",
    "nodes_p90": "nodes p90",
    "seconds_median": "s med",
    "seconds_p90": "s p90",
}
# The terminal's paired table.
PAIRED_HEADINGS = {
    "variant": "variant",
    "step": "step",
    "verdicts": "verdicts",
    "deals": "deals",
    "nodes_ratio_median": "nodes x med",
    "harder_share": "harder",
    "moves_ratio_median": "moves x med",
    "longer_share": "longer",
}

# The terminal's table of growth per step.
GROWTH_HEADINGS = {
    "from_cells": "from",
    "to_cells": "to",
    "mean_growth": "mean +",
    "median_growth": "median +",
    "longer_share": "longer",
    "proved_both": "proved both",
    "proved_mean_growth": "proved mean +",
}

# The terminal's table of scores.
SCORE_COLUMNS = {
    "variant": "variant",
    "cells": "cells",
    "score_median": "score med",
    "score_p90": "score p90",
    "score_max": "score max",
}

PUBLISHED_HEADINGS = {
    "published_winnable": "winnable: published",
    "measured_winnable": "measured",
    "published_unwinnable": "unwinnable: published",
    "measured_unwinnable": "measured ",
}

SUMMARY_COLUMNS = [
    "variant",
    "cells",
    "jobs",
    SOLVED,
    UNSOLVABLE,
    "implied",
    UNKNOWN,
    ERROR,
    "solvable_share",
    "moves_median",
    "moves_p90",
    "moves_max",
    "non_foundation_moves_median",
    "non_foundation_moves_p90",
    "card_moves_median",
    "card_moves_p90",
    "card_moves_max",
    "score_median",
    "score_p90",
    "score_max",
    "engine_seconds",
]


def shown_distribution(frame: pd.DataFrame) -> pd.DataFrame:
    """min_cells_distribution() for reading: null min_cells as `not won`."""
    labels = [NOT_WON if pd.isna(k) else str(k) for k in frame["min_cells"]]
    return frame.assign(min_cells=labels)


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """A table as Parquet should hold it: text columns as text with their nulls null
    (not the word None), every other column in its own type."""
    return frame.astype({c: "string" for c in frame.columns if frame[c].dtype == object})


def _ratio(x: float) -> str:
    """A ratio for the terminal: 0.52x, 3.1x, 250x."""
    if x != x:
        return "-"
    return f"{x:.2f}x" if x < 10 else f"{x:.0f}x" if x >= 100 else f"{x:.1f}x"


# How paired() tables show a verdict.
VERDICT_WORDS = {SOLVED: "won", UNSOLVABLE: "lost"}

"""The report's tables: from a dataset's rows, what each cell count decided, how hard and how long, and how a deal changes with fewer cells."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import cast

import pandas as pd

from ..dataset.store import read_frame
from ..errors import FcanalyzeError
from ..game.variant import MAX_CELLS, Variant
from ..status import DECIDED, ERROR, SOLVED, UNKNOWN, UNSOLVABLE
from ..tables.published import CLASSIC_DEALS, WINNABLE_CLASSIC

PUBLISHED_WINNABLE = WINNABLE_CLASSIC


def load(source: str | os.PathLike | pd.DataFrame | Sequence[str | os.PathLike]) -> pd.DataFrame:
    """The dataset as a DataFrame (a DataFrame given is returned as is).

    Several datasets (a list of paths) are read as one, so that a report can set a
    sweep beside another: the shipped table beside a take-back sweep, say. A job
    (variant, deal, cells) found in two of them is refused, as it would count twice.
    """
    if isinstance(source, pd.DataFrame):
        return source
    paths = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    frames = []
    for path in paths:
        frame = read_frame(path)
        if frame.empty:
            raise FcanalyzeError(f"{path} holds no rows")
        frames.append(frame)
    if len(frames) == 1:
        return frames[0]
    frame = pd.concat(frames, ignore_index=True)
    repeated = frame.duplicated(["variant", "deal", "cells"], keep=False)
    if repeated.any():
        first = frame[repeated].iloc[0]
        raise FcanalyzeError(
            f"the job {first['variant']} deal {first['deal']} with {first['cells']} cells is in more than one "
            f"of {', '.join(map(str, paths))}; report datasets that hold different jobs"
        )
    return frame


def select(frame: pd.DataFrame, cells: Sequence[int] | None = None, deals: Sequence[tuple[int, int]] | None = None):
    """The rows of `frame` with one of `cells` (None: any) and a deal in one of the
    inclusive spans `deals` (None: any), as `report --cells 4,2 --deals 1-1000,617`
    picks them."""
    keep = pd.Series(True, index=frame.index)
    if cells is not None:
        keep &= frame["cells"].isin(list(cells))
    if deals is not None:
        within = pd.Series(False, index=frame.index)
        for first, last in deals:
            within |= frame["deal"].between(first, last)
        keep &= within
    return frame[keep]


def _quantile(series: pd.Series, q: float) -> float:
    series = series.dropna()
    return float(series.quantile(q)) if len(series) else float("nan")


# The solved jobs' figures summarize() gives the median, p90 and maximum of.
SUMMARY_FIGURES = ("moves", "non_foundation_moves", "card_moves", "score")


def summary_row(
    variant: str,
    cells: int,
    by_status: Mapping[str, int],
    implied: int,
    figures: Mapping[str, tuple[float, float, int | None]],
    engine_seconds: float,
    referee_seconds: float,
) -> dict:
    """One row of summarize()'s table: the verdict counts of a (variant, cells), and of
    each of SUMMARY_FIGURES its (median, p90, max) over the solved jobs."""
    decided = by_status.get(SOLVED, 0) + by_status.get(UNSOLVABLE, 0)
    row = {
        "variant": variant,
        "cells": cells,
        "jobs": sum(by_status.values()),
        SOLVED: by_status.get(SOLVED, 0),
        UNSOLVABLE: by_status.get(UNSOLVABLE, 0),
        "implied": implied,
        UNKNOWN: by_status.get(UNKNOWN, 0),
        ERROR: by_status.get(ERROR, 0),
        "solvable_share": by_status.get(SOLVED, 0) / decided if decided else float("nan"),
    }
    for figure in SUMMARY_FIGURES:
        row[f"{figure}_median"], row[f"{figure}_p90"], row[f"{figure}_max"] = figures[figure]
    # Null, not 0, for rows without timings (the shipped table has none).
    row["engine_seconds"], row["referee_seconds"] = engine_seconds, referee_seconds
    return row


def summary_table(rows: list[dict]) -> pd.DataFrame:
    """summarize()'s table from its rows (summary_row), most cells first."""
    out = pd.DataFrame(rows).sort_values(["variant", "cells"], ascending=[True, False], ignore_index=True)
    return out.astype({f"{c}_max": "Int64" for c in SUMMARY_FIGURES})


def summarize(data) -> pd.DataFrame:
    """One row per (variant, cells): job counts by verdict (`implied`: the unsolvable
    ones settled by a proof with more cells, without a search), the solvable share of
    the decided jobs, the solved deals' moves, card moves and scores (median, p90, max)
    and time spent. Search effort, which differs by outcome, is effort()'s."""
    frame = load(data)
    rows = []
    for (variant, cells), group in frame.groupby(["variant", "cells"], sort=True):
        solved = group[group["status"] == SOLVED]
        figures = {}
        for figure in SUMMARY_FIGURES:
            # Datasets written before the count or the score was kept have none.
            values = solved[figure] if figure in solved else pd.Series(dtype="Int64")
            top = int(values.max()) if values.notna().any() else None
            figures[figure] = (_quantile(values, 0.5), _quantile(values, 0.9), top)
        by_status = {str(k): int(v) for k, v in group["status"].value_counts().items()}
        rows.append(
            summary_row(
                str(variant),
                int(cast(int, cells)),
                by_status,
                _implied(group),
                figures,
                float(group["seconds"].sum(min_count=1)),
                float(group["verify_seconds"].sum(min_count=1)),
            )
        )
    return summary_table(rows)


SHORTEST_COLUMNS = ["variant", "cells", "won", "counted", "searched", "proved", "mean", "median", "p90", "max",
                    "bounded", "mean_bound"]  # fmt: skip


def shortest(data) -> pd.DataFrame:
    """The length of the won deals' lines per (variant, cells), counted in moves not to a
    foundation (docs/rules.md): `won` deals, `counted` those whose count is known,
    `searched` those whose line came from a search for the shortest (--shortest),
    `proved` those proved shortest; the mean, median, p90 and max count over the
    counted ones; `bounded` those with a proved lower bound, and the bounds' mean (the
    mean optimum lies between it and the lines' mean, when every line is bounded). With
    every line searched, this is how long the deals are at each cell count, not how long
    one search's lines happened to be."""
    frame = load(data)
    rows = []
    for (variant, cells), group in frame[frame["status"] == SOLVED].groupby(["variant", "cells"], sort=True):
        counts = group["non_foundation_moves"] if "non_foundation_moves" in group else pd.Series(dtype="Int64")
        counted = counts.dropna().astype("float64")
        proved = group["shortest_proved"] if "shortest_proved" in group else pd.Series(dtype="boolean")
        bounds = group["shortest_bound"] if "shortest_bound" in group else pd.Series(dtype="Int64")
        bounded = bounds.dropna().astype("float64")
        rows.append(
            {
                "variant": variant,
                "cells": int(cast(int, cells)),
                "won": len(group),
                "counted": len(counted),
                "searched": int(proved.notna().sum()),
                "proved": int((proved == True).sum()),  # noqa: E712 - a nullable column
                "mean": float(counted.mean()) if len(counted) else float("nan"),
                "median": _quantile(counted, 0.5),
                "p90": _quantile(counted, 0.9),
                "max": int(counted.max()) if len(counted) else None,
                "bounded": len(bounded),
                "mean_bound": float(bounded.mean()) if len(bounded) else float("nan"),
            }
        )
    out = pd.DataFrame(rows, columns=SHORTEST_COLUMNS)
    out = out.sort_values(["variant", "cells"], ascending=[True, False], ignore_index=True)
    return out.astype({"cells": "int64", "won": "int64", "counted": "int64", "searched": "int64", "proved": "int64",
                       "max": "Int64", "bounded": "int64"})  # fmt: skip


SHORTEST_GROWTH_COLUMNS = ["variant", "from_cells", "to_cells", "deals", "mean_growth", "median_growth",
                           "longer_share", "proved_both", "proved_mean_growth"]  # fmt: skip


GROWTH_KEYS = ["variant", "from_cells", "to_cells"]


def shortest_growth_values(data, counts: dict[str, list[int]] | None = None) -> pd.DataFrame:
    """Per deal and step between consecutive cell counts run (4 to 3, 3 to 2, ...), for
    the deals won at both with their counts known: `growth`, the moves not to a
    foundation with fewer cells less those with more, and `proved_both`, whether both
    lines are proved shortest (the growth is then the deal's own). `counts` (variant ->
    cell counts) sets the steps, as for transitions()."""
    frame = load(data)
    columns = [*GROWTH_KEYS, "deal", "growth", "proved_both"]
    if "non_foundation_moves" not in frame:
        return pd.DataFrame(columns=columns)
    won = frame[(frame["status"] == SOLVED) & frame["non_foundation_moves"].notna()]
    if "shortest_proved" not in won:
        won = won.assign(shortest_proved=pd.NA)
    parts = []
    for variant, group in frame.groupby("variant", sort=True):
        steps = sorted(group["cells"].unique(), reverse=True) if counts is None else counts.get(str(variant), [])
        mine = won[won["variant"] == variant]
        lengths = mine.pivot_table(index="deal", columns="cells", values="non_foundation_moves", aggfunc="first")
        proved = mine.assign(p=mine["shortest_proved"].fillna(False).astype(bool)).pivot_table(
            index="deal", columns="cells", values="p", aggfunc="first"
        )
        for more, fewer in zip(steps, steps[1:]):
            if more not in lengths.columns or fewer not in lengths.columns:
                continue
            both = lengths[lengths[more].notna() & lengths[fewer].notna()]
            exact = proved.reindex(both.index)
            parts.append(
                pd.DataFrame(
                    {
                        "variant": variant,
                        "from_cells": int(more),
                        "to_cells": int(fewer),
                        "deal": both.index.astype("int64"),
                        "growth": (both[fewer] - both[more]).astype("int64"),
                        "proved_both": (exact[more] == True) & (exact[fewer] == True),  # noqa: E712
                    }
                )
            )
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]


def shortest_growth(data, counts: dict[str, list[int]] | None = None) -> pd.DataFrame:
    """How much a deal's line grows when a cell is taken away, per variant and step
    (shortest_growth_values): the deals won at both, the mean and median growth in
    moves not to a foundation, the share whose line grew, and over the deals proved
    shortest at both (`proved_both`) the mean growth, which is then exact."""
    values = shortest_growth_values(data, counts)
    rows = []
    for key, group in values.groupby(GROWTH_KEYS, sort=False):
        growth = group["growth"].astype("float64")
        exact = growth[group["proved_both"].astype(bool)]
        rows.append(
            {
                **dict(zip(GROWTH_KEYS, key)),
                "deals": len(growth),
                "mean_growth": float(growth.mean()),
                "median_growth": _quantile(growth, 0.5),
                "longer_share": float((growth > 0).mean()),
                "proved_both": len(exact),
                "proved_mean_growth": float(exact.mean()) if len(exact) else float("nan"),
            }
        )
    return _growth_order(pd.DataFrame(rows, columns=SHORTEST_GROWTH_COLUMNS))


def _growth_order(out: pd.DataFrame) -> pd.DataFrame:
    out = out.sort_values(["variant", "from_cells"], ascending=[True, False], ignore_index=True)
    return out.astype({"from_cells": "int64", "to_cells": "int64", "deals": "int64", "proved_both": "int64"})


def _implied(rows: pd.DataFrame) -> int:
    """How many of `rows` were settled without a search (implied_by set)."""
    return int(rows["implied_by"].notna().sum()) if "implied_by" in rows else 0


# A job's outcome for effort(): its verdict, or undecided (unknown or error).
UNDECIDED = "undecided"
OUTCOMES = (SOLVED, UNSOLVABLE, UNDECIDED)
EFFORT_TABLE_COLUMNS = ["variant", "cells", "outcome", "jobs", "searched", "implied", "nodes_median", "nodes_p90",
                        "nodes_max", "seconds_median", "seconds_p90", "seconds_max", "seconds_total"]  # fmt: skip


def outcome_of(status: pd.Series) -> pd.Series:
    """Each status as an outcome: solved, unsolvable, or undecided."""
    return status.where(status.isin(DECIDED), UNDECIDED)


def effort(data) -> pd.DataFrame:
    """Search effort per (variant, cells) and outcome, so that proofs of loss, which
    search every position, are never mixed with wins, which stop at the first.

    One row per (variant, cells, outcome) present: `jobs` counts the outcome's rows,
    `searched` those a search decided (nodes known), `implied` those settled without
    one by a proof with more cells (no nodes, no time). Nodes and seconds (median, p90,
    max) and `seconds_total` are over the searched rows only. An undecided row's
    figures say where its budget stopped it, not what its deal needs."""
    frame = load(data)
    rows = []
    keyed = frame.assign(outcome=outcome_of(frame["status"]))
    for (variant, cells, outcome), group in keyed.groupby(["variant", "cells", "outcome"], sort=True):
        searched = group[group["nodes"].notna()] if "nodes" in group else group.head(0)
        row = {
            "variant": variant,
            "cells": int(cast(int, cells)),
            "outcome": outcome,
            "jobs": len(group),
            "searched": len(searched),
            "implied": _implied(group),
        }
        for column in ("nodes", "seconds"):
            values = searched[column] if column in searched else pd.Series(dtype="float64")
            row[f"{column}_median"] = _quantile(values, 0.5)
            row[f"{column}_p90"] = _quantile(values, 0.9)
            row[f"{column}_max"] = values.max() if values.notna().any() else None
        row["seconds_total"] = float(searched["seconds"].sum(min_count=1)) if "seconds" in searched else float("nan")
        rows.append(row)
    return _effort_order(pd.DataFrame(rows, columns=EFFORT_TABLE_COLUMNS))


def _effort_order(out: pd.DataFrame) -> pd.DataFrame:
    """effort()'s rows in order (variant, most cells first, solved, unsolvable,
    undecided) and types (counts and node maxima whole)."""
    rank = out["outcome"].map({o: i for i, o in enumerate(OUTCOMES)})
    out = out.assign(rank=rank).sort_values(["variant", "cells", "rank"], ascending=[True, False, True])
    out = out.drop(columns="rank").reset_index(drop=True)
    return out.astype({"cells": "int64", "jobs": "int64", "searched": "int64", "implied": "int64",
                       "nodes_max": "Int64", "seconds_max": "float64"})  # fmt: skip


PAIRED_COLUMNS = ["variant", "from_cells", "to_cells", "from_status", "to_status", "deals", "nodes_ratio_median",
                  "nodes_ratio_p90", "harder_share", "moves_ratio_median", "longer_share"]  # fmt: skip


def paired_ratios(data, counts: dict[str, list[int]] | None = None) -> pd.DataFrame:
    """Per deal and step between consecutive cell counts run (4 to 2, 2 to 1, ...):
    its verdicts at both counts and how its search and solution changed, as ratios of
    the count with fewer cells to the count with more (`nodes_ratio`, and `moves_ratio`
    when won at both). Only deals searched at both counts are here: a row settled
    without a search has no figures. `counts` (variant -> cell counts) sets the steps,
    as for transitions()."""
    frame = load(data)
    columns = ["variant", "from_cells", "to_cells", "from_status", "to_status", "deal", "nodes_ratio", "moves_ratio"]
    parts = []
    searched = frame[frame["status"].isin(DECIDED) & frame["nodes"].notna() & (frame["nodes"] > 0)]
    for variant, group in frame.groupby("variant", sort=True):
        steps = sorted(group["cells"].unique(), reverse=True) if counts is None else counts.get(str(variant), [])
        mine = searched[searched["variant"] == variant]
        wide = mine.set_index(["deal", "cells"])[["status", "nodes", "moves"]].unstack("cells")
        for more, fewer in zip(steps, steps[1:]):
            if more not in wide["status"].columns or fewer not in wide["status"].columns:
                continue
            both = wide[wide["status"][more].notna() & wide["status"][fewer].notna()]
            if both.empty:
                continue
            nodes_more = both["nodes"][more].astype("float64")
            moves_more = both["moves"][more].astype("float64")
            parts.append(
                pd.DataFrame(
                    {
                        "variant": variant,
                        "from_cells": int(more),
                        "to_cells": int(fewer),
                        "from_status": both["status"][more].astype(str),
                        "to_status": both["status"][fewer].astype(str),
                        "deal": both.index.astype("int64"),
                        "nodes_ratio": both["nodes"][fewer].astype("float64") / nodes_more,
                        "moves_ratio": both["moves"][fewer].astype("float64") / moves_more,
                    }
                )
            )
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]


def paired(data, counts: dict[str, list[int]] | None = None) -> pd.DataFrame:
    """The same deal with fewer cells, summed up per step and pair of verdicts (won at
    both, won then lost, ...): the deals searched at both counts, the median and p90 of
    their nodes ratio (fewer cells over more), the share whose search grew
    (`harder_share`), and for deals won at both, the median moves ratio and the share
    whose solution grew (`longer_share`). See paired_ratios()."""
    ratios = paired_ratios(data, counts)
    rows = []
    keys = ["variant", "from_cells", "to_cells", "from_status", "to_status"]
    for key, group in ratios.groupby(keys, sort=False):
        won_both = group[(group["from_status"] == SOLVED) & (group["to_status"] == SOLVED)]
        rows.append(
            {
                **dict(zip(keys, key)),
                "deals": len(group),
                "nodes_ratio_median": _quantile(group["nodes_ratio"], 0.5),
                "nodes_ratio_p90": _quantile(group["nodes_ratio"], 0.9),
                "harder_share": float((group["nodes_ratio"] > 1).mean()),
                "moves_ratio_median": _quantile(won_both["moves_ratio"], 0.5),
                "longer_share": float((won_both["moves_ratio"] > 1).mean()) if len(won_both) else float("nan"),
            }
        )
    return _paired_order(pd.DataFrame(rows, columns=PAIRED_COLUMNS))


def _paired_order(out: pd.DataFrame) -> pd.DataFrame:
    """paired()'s rows in order: variant, the step from the most cells, won at both first."""
    rank = {SOLVED: 0, UNSOLVABLE: 1}
    order = out.assign(a=out["from_status"].map(rank), b=out["to_status"].map(rank))
    order = order.sort_values(
        ["variant", "from_cells", "to_cells", "a", "b"], ascending=[True, False, False, True, True]
    )
    out = order.drop(columns=["a", "b"]).reset_index(drop=True)
    return out.astype({"from_cells": "int64", "to_cells": "int64", "deals": "int64"})


def _verdicts(frame: pd.DataFrame) -> pd.DataFrame:
    """variant, deal -> status at each cell count run (columns are cell counts)."""
    return frame.pivot_table(index=["variant", "deal"], columns="cells", values="status", aggfunc="first")


TRANSITION_COLUMNS = ["variant", "from_cells", "to_cells", "decided_at_both", "won_at_from", "lost_at_to", "anomalies"]


def transitions(data, counts: dict[str, list[int]] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Deals won with K cells and lost with the next smaller count run, per variant.

    Returns (table, lost): the table has one row per step (from_cells, to_cells) with
    the deals decided at both counts, those won at from_cells, those lost at
    to_cells, and `anomalies`: deals lost at from_cells but won at to_cells, which
    fewer cells can never do (a nonzero count means a wrong verdict somewhere).
    `lost` lists the deals lost at each step. `counts` (variant -> cell counts) sets
    the steps, when `data` is part of a dataset that may not hold them all (a shard).
    """
    frame = load(data)
    table, lost = [], []
    for variant, group in frame.groupby("variant", sort=True):
        wide = _verdicts(group).droplevel("variant")
        steps = sorted(wide.columns, reverse=True) if counts is None else counts.get(str(variant), [])
        wide = wide.reindex(columns=steps)
        for more, fewer in zip(steps, steps[1:]):
            both = wide[wide[more].isin(DECIDED) & wide[fewer].isin(DECIDED)]
            won = both[more] == SOLVED
            lost_here = both[won & (both[fewer] == UNSOLVABLE)]
            anomalies = both[(both[more] == UNSOLVABLE) & (both[fewer] == SOLVED)]
            table.append(
                {
                    "variant": variant,
                    "from_cells": int(more),
                    "to_cells": int(fewer),
                    "decided_at_both": len(both),
                    "won_at_from": int(won.sum()),
                    "lost_at_to": len(lost_here),
                    "anomalies": len(anomalies),
                }
            )
            lost += [
                {"variant": variant, "deal": int(d), "won_with": int(more), "lost_with": int(fewer)}
                for d in lost_here.index
            ]
    columns = ["variant", "deal", "won_with", "lost_with"]
    return pd.DataFrame(table, columns=TRANSITION_COLUMNS), pd.DataFrame(lost, columns=columns)


def _fewest_cells(variant: str) -> int:
    """The fewest cells `variant` can be played with: those its deal fills (0 for an
    unknown name, as in a dataset written by a newer version)."""
    try:
        return Variant.parse(variant, cells=MAX_CELLS).dealt_to_cells
    except FcanalyzeError:
        return 0


def min_cells(data) -> pd.DataFrame:
    """For each (variant, deal), the fewest free cells among those run that win it.

    `exact` is true when that count is the fewest the game can be played with (0, or
    the cells its deal fills) or the count one below it was run and
    proved unsolvable; otherwise `min_cells` is an upper bound (fewer cells were not
    run, or not decided). A deal won at no count run has `min_cells` null and
    `needs_more_than` set to the largest count proved unsolvable.
    """
    frame = load(data)
    # Column operations over all rows at once: a loop over 32,000 deals took 17 s.
    rows = frame[["variant", "deal", "cells", "status"]].copy()
    rows["cells"] = rows["cells"].astype(int)
    keys = ["variant", "deal"]
    best = rows[rows["status"] == SOLVED].groupby(keys)["cells"].min().rename("min_cells")
    lost = rows[rows["status"] == UNSOLVABLE].groupby(keys)["cells"].max().rename("most_lost")
    lost_set = set(
        zip(
            rows.loc[rows["status"] == UNSOLVABLE, "variant"],
            rows.loc[rows["status"] == UNSOLVABLE, "deal"],
            rows.loc[rows["status"] == UNSOLVABLE, "cells"],
        )
    )
    run = (
        rows.sort_values("cells", ascending=False)
        .groupby(keys, sort=False)["cells"]
        .agg(lambda ks: ",".join(map(str, ks)))
        .rename("cells_run")
    )
    out = pd.concat([best, lost, run], axis=1).sort_index().reset_index()
    won = out["min_cells"].notna()
    # No game is played with fewer cells than its deal fills (seahaven 2, eight-off 4).
    fewest = {v: _fewest_cells(v) for v in out["variant"].unique()}
    out["exact"] = [
        bool(w) and (int(b) == fewest[v] or (v, d, int(b) - 1) in lost_set)
        for w, b, v, d in zip(won, out["min_cells"].fillna(0), out["variant"], out["deal"])
    ]
    out["needs_more_than"] = out["most_lost"].where(~won)
    out["deal"] = out["deal"].astype(int)
    for column in ("min_cells", "needs_more_than"):
        out[column] = out[column].astype("Int64")
    return out[["variant", "deal", "min_cells", "exact", "needs_more_than", "cells_run"]]


def hardest(data, n: int = 10) -> pd.DataFrame:
    """The n solved deals with the most nodes, and the n with the most moves, per
    (variant, cells); `by` says which list a row belongs to."""
    frame = load(data)
    solved = frame[frame["status"] == SOLVED]
    parts = []
    for by in ("nodes", "moves"):
        top = (
            solved.sort_values([by, "deal"], ascending=[False, True])
            .groupby(["variant", "cells"], sort=True)
            .head(n)
            .copy()
        )
        top = top.sort_values(["variant", "cells", by, "deal"], ascending=[True, False, False, True])
        top.insert(0, "by", by)
        parts.append(top[["by", "variant", "cells", "deal", "nodes", "moves", "card_moves", "seconds"]])
    out = pd.concat(parts, ignore_index=True)
    # Whole numbers stay whole (102, not 102.0) in the files and in pandas, nulls and all.
    return out.astype({"cells": "Int64", "deal": "Int64", "nodes": "Int64", "moves": "Int64", "card_moves": "Int64"})


def undecided(data) -> pd.DataFrame:
    """The jobs without a verdict (unknown or error), with the budget that ran out."""
    frame = load(data)
    out = frame[~frame["status"].isin(DECIDED)].sort_values(["variant", "cells", "deal"], ascending=[True, False, True])
    columns = ["variant", "cells", "deal", "status", "limit", "nodes", "seconds", "max_seconds"]
    # The time budget each had (from its budgets text; null for none, or not read).
    budgets = out["budgets"] if "budgets" in out else pd.Series(pd.NA, index=out.index, dtype="string")
    limit = pd.to_numeric(budgets.astype("string").str.extract(r"max_seconds=([0-9.]+)")[0], errors="coerce")
    out = out.assign(max_seconds=limit.astype("float64"))
    return out[columns].reset_index(drop=True).astype({"cells": "Int64", "deal": "Int64", "nodes": "Int64"})


def with_table_verdicts(jobs: pd.DataFrame) -> pd.DataFrame:
    """undecided()'s jobs with `table_status`: the shipped table's verdict on each
    (solved or unsolvable, from searches far bigger than a sweep's budgets), or null
    for a job it does not hold or leaves undecided too."""
    from ..tables.shipped import table_verdicts

    keys = list(zip(jobs["deal"].astype(int), jobs["variant"], jobs["cells"].astype(int)))
    known = table_verdicts(keys) if keys else {}
    statuses = pd.array([known.get(k) for k in keys], dtype="string")
    return jobs.assign(table_status=statuses)


def without_takeback(variant: str) -> str | None:
    """The name of `variant`'s rules without take-back, or None if it has no take-back."""
    rules = Variant.parse(variant, cells=MAX_CELLS)
    return replace(rules, takeback=False).name if rules.takeback else None


TAKEBACK_COLUMNS = [
    "variant",
    "cells",
    "decided_both_ways",
    "won_without",
    "won_with",
    "won_only_with_takeback",
    "anomalies",
]


def takeback_comparison(data) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Take-back against the same rules without it, for the jobs run both ways.

    Returns (table, gained). The table has a row per take-back variant and cell count:
    the deals decided both ways, those won without take-back and with it, those won
    only with it, and `anomalies`, deals won without take-back but lost with it, which
    can never be (take-back only adds moves; nonzero means a wrong verdict). `gained`
    lists the deals won only with take-back.
    """
    frame = load(data)
    table, gained = [], []
    wide = _verdicts(frame)
    names = set(frame["variant"].unique())
    for variant in sorted(names):
        classic = without_takeback(variant)
        if classic is None or classic not in names:
            continue
        mine, theirs = wide.loc[variant], wide.loc[classic]
        for cells in sorted(set(mine.columns) & set(theirs.columns), reverse=True):
            both = pd.concat([theirs[cells].rename("without"), mine[cells].rename("with")], axis=1, join="inner")
            both = both[both["without"].isin(DECIDED) & both["with"].isin(DECIDED)]
            if both.empty:
                continue
            only = both[(both["without"] == UNSOLVABLE) & (both["with"] == SOLVED)]
            table.append(
                {
                    "variant": variant,
                    "cells": int(cells),
                    "decided_both_ways": len(both),
                    "won_without": int((both["without"] == SOLVED).sum()),
                    "won_with": int((both["with"] == SOLVED).sum()),
                    "won_only_with_takeback": len(only),
                    "anomalies": int(((both["without"] == SOLVED) & (both["with"] == UNSOLVABLE)).sum()),
                }
            )
            gained += [{"variant": variant, "cells": int(cells), "deal": int(d)} for d in only.index]
    return (
        pd.DataFrame(table, columns=TAKEBACK_COLUMNS),
        pd.DataFrame(gained, columns=["variant", "cells", "deal"]),
    )


def published_comparison(data) -> pd.DataFrame:
    """For each cell count where the dataset holds every classic deal 1..32,000 under
    classic FreeCell rules, the measured counts beside the published ones."""
    frame = load(data)
    rows = []
    classic = frame[(frame["variant"] == "freecell") & (frame["columns"] == 8)]
    for cells, group in classic.groupby("cells", sort=True):
        cells = int(cells)
        if cells not in PUBLISHED_WINNABLE:
            continue
        deals = group[group["deal"] <= CLASSIC_DEALS]
        if deals["deal"].nunique() < CLASSIC_DEALS:
            continue
        solved = int((deals["status"] == SOLVED).sum())
        unsolvable = int((deals["status"] == UNSOLVABLE).sum())
        undecided = CLASSIC_DEALS - solved - unsolvable
        published = PUBLISHED_WINNABLE[cells]
        rows.append(
            {
                "cells": cells,
                "published_winnable": published,
                "measured_winnable": solved,
                "published_unwinnable": CLASSIC_DEALS - published,
                "measured_unwinnable": unsolvable,
                "undecided": undecided,
                # "so far": the undecided deals could still make up the difference.
                "agrees": (
                    "yes"
                    if solved == published and unsolvable == CLASSIC_DEALS - published
                    else "so far"
                    if solved <= published and unsolvable <= CLASSIC_DEALS - published
                    else "NO"
                ),
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "cells",
            "published_winnable",
            "measured_winnable",
            "published_unwinnable",
            "measured_unwinnable",
            "undecided",
            "agrees",
        ],
    )


# --- output -----------------------------------------------------------------------------


# The tables report --out writes even when they have no rows; the others only with rows.
DISTRIBUTION_COLUMNS = ["variant", "min_cells", "deals_exact", "deals_upper_bound"]


def min_cells_distribution(m: pd.DataFrame) -> pd.DataFrame:
    """From min_cells(): how many deals need each number of cells at fewest, exactly
    and as an upper bound; `min_cells` null counts the deals no count run wins."""
    rows: list[tuple] = []
    for variant, group in m.groupby("variant", sort=True):
        won = group[group["min_cells"].notna()]
        for cells, deals in won.groupby("min_cells", sort=True):
            exact = int(deals["exact"].astype(bool).sum())
            rows.append((variant, int(cast(int, cells)), exact, len(deals) - exact))
        never = int(group["min_cells"].isna().sum())
        if never:
            rows.append((variant, None, never, 0))
    out = pd.DataFrame(rows, columns=DISTRIBUTION_COLUMNS)
    return out.astype({"min_cells": "Int64", "deals_exact": "int64", "deals_upper_bound": "int64"})

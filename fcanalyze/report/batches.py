"""Reports on datasets too big to load: a cluster sweep's dataset read a shard at a time, each shard's tables merged into the whole's."""

from __future__ import annotations

import collections
import concurrent.futures
import math
import multiprocessing
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from ..dataset.store import chunked_layout, read_shard, shard_numbers, to_frame
from ..errors import FcanalyzeError
from ..status import SOLVED, UNSOLVABLE
from ..tables.published import CLASSIC_DEALS
from .analysis import (
    DISTRIBUTION_COLUMNS,
    EFFORT_TABLE_COLUMNS,
    GROWTH_KEYS,
    PAIRED_COLUMNS,
    SHORTEST_COLUMNS,
    SHORTEST_GROWTH_COLUMNS,
    SUMMARY_FIGURES,
    _effort_order,
    _growth_order,
    _paired_order,
    hardest,
    min_cells,
    min_cells_distribution,
    outcome_of,
    paired_ratios,
    published_comparison,
    select,
    shortest_growth_values,
    summary_row,
    summary_table,
    takeback_comparison,
    transitions,
    undecided,
    with_table_verdicts,
)

# A cluster sweep's dataset with more rows than this is reported a shard (a million
# deals) at a time: memory then follows a shard's rows, not the dataset's.
BATCH_ROWS = 1_000_000
# Rows drawn at random, in proportion from every shard, for the plots' boxes.
SAMPLE_ROWS = 200_000
# The most deals each list keeps (deals lost at a step, undecided jobs, take-back's gains).
LISTED = 100_000
# Columns a report reads: never the solutions.
READ = ["deal", "variant", "cells", "columns", "status", "limit", "implied_by", "moves", "non_foundation_moves",
        "card_moves", "score", "shortest_proved", "shortest_bound", "nodes", "seconds", "verify_seconds"]  # fmt: skip
KEYS = ["variant", "cells"]
# Quantiles come from counts of each value: exact for moves, card moves and scores,
# which take few values; node counts, seconds and ratios are counted to three
# significant figures, so their medians and p90s are within 0.5%.
FIGURES = SUMMARY_FIGURES
EFFORT_KEYS = [*KEYS, "outcome"]
PAIRED_KEYS = ["variant", "from_cells", "to_cells", "from_status", "to_status"]


def three_figures(values: np.ndarray) -> np.ndarray:
    """Whole numbers rounded to three significant figures (below 1,000 unchanged)."""
    values = values.astype(np.int64)
    digits = np.floor(np.log10(np.maximum(values, 1))).astype(np.int64)
    scale = np.power(10, np.maximum(digits - 2, 0))
    return (np.round(values / scale) * scale).astype(np.int64)


def three_figures_float(values: np.ndarray) -> np.ndarray:
    """Positive numbers rounded to three significant figures (0 stays 0)."""
    values = values.astype(np.float64)
    digits = np.floor(np.log10(np.where(values > 0, values, 1.0)))
    scale = np.power(10.0, digits - 2)
    return np.where(values > 0, np.round(values / scale) * scale, 0.0)


def _histogram(frame: pd.DataFrame, keys: list[str], column: str, rounding) -> pd.DataFrame:
    """Counts of each value of `column` (rounded) per `keys`, nulls left out."""
    values = frame[[*keys, column]].dropna()
    values = values.assign(**{column: rounding(values[column].to_numpy())})
    return values.groupby([*keys, column], as_index=False).size().rename(columns={"size": "count"})


def quantile_of_counts(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """pandas' quantile (linear between the two nearest ranks) of the values repeated
    as many times as counted."""
    order = np.argsort(values)
    values, counts = values[order].astype(float), counts[order]
    n = int(counts.sum())
    if n == 0:
        return float("nan")
    ends = np.cumsum(counts)  # the rank after each value's last
    position = q * (n - 1)
    low, high = math.floor(position), math.ceil(position)
    at_low = values[np.searchsorted(ends, low, side="right")]
    at_high = values[np.searchsorted(ends, high, side="right")]
    return float(at_low + (at_high - at_low) * (position - low))


class _Sum:
    """A table summed (or with `how` "max", maximized) over shards by its key columns."""

    def __init__(self, keys: list[str], how: str = "sum"):
        self.keys = keys
        self.how = how
        self.frame: pd.DataFrame | None = None

    def add(self, frame: pd.DataFrame) -> None:
        if frame.empty:
            return
        both = frame if self.frame is None else pd.concat([self.frame, frame], ignore_index=True)
        grouped = both.groupby(self.keys, as_index=False, sort=False, dropna=False)
        self.frame = grouped.sum(min_count=1) if self.how == "sum" else grouped.max()

    def result(self, columns: list[str]) -> pd.DataFrame:
        return pd.DataFrame(columns=columns) if self.frame is None else self.frame[columns]


class _List:
    """The first LISTED rows of a list that may run to billions."""

    def __init__(self, name: str):
        self.name = name
        self.parts: list[pd.DataFrame] = []
        self.rows = 0
        self.total = 0

    def add(self, frame: pd.DataFrame, total: int) -> None:
        """`frame`: the first rows of a shard's list, which has `total`."""
        self.total += total
        if self.rows < LISTED and len(frame):
            self.parts.append(frame.head(LISTED - self.rows))
            self.rows += len(self.parts[-1])

    def result(self, empty: pd.DataFrame) -> pd.DataFrame:
        return pd.concat(self.parts, ignore_index=True) if self.parts else empty

    def cut(self) -> str | None:
        return f"{self.name}: the first {LISTED:,} of {self.total:,}" if self.total > LISTED else None


def shard_parts(
    path: str,
    shard: int,
    rows: int,
    top: int,
    counts: dict[str, list[int]],
    cells: list[int] | None = None,
    deals: list[tuple[int, int]] | None = None,
) -> dict:
    """One shard's small tables, which the whole report is merged from: counts,
    histograms, maxima, the hardest deals, the first LISTED of each list (with the
    list's length), a sample; of its rows with one of `cells` and a deal in `deals`
    (None: all). Runs in a process of the pool, or on a Dask worker."""
    frame = select(to_frame(read_shard(path, shard, READ)), cells, deals)
    solved = frame[frame["status"] == SOLVED]
    parts: dict = {"status": frame.groupby([*KEYS, "status"], as_index=False).size().rename(columns={"size": "count"})}
    parts["implied"] = frame[frame["implied_by"].notna()].groupby(KEYS, as_index=False).size()
    for figure in FIGURES:
        parts[figure] = _histogram(solved, KEYS, figure, lambda v: v.astype(np.int64))
    parts["seconds"] = frame.groupby(KEYS, as_index=False)[["seconds", "verify_seconds"]].sum(min_count=1)
    parts["maxima"] = solved[[*KEYS, *FIGURES]].groupby(KEYS, as_index=False).max()
    # Shortest lines: counts here, lengths in the non_foundation_moves histogram.
    proved = solved["shortest_proved"]
    parts["shortest_counts"] = solved.assign(
        counted=solved["non_foundation_moves"].notna(), searched=proved.notna(), proved=proved == True  # noqa: E712
    ).groupby(KEYS, as_index=False).agg(
        won=("deal", "size"), counted=("counted", "sum"), searched=("searched", "sum"), proved=("proved", "sum"),
        total=("non_foundation_moves", lambda x: x.sum(min_count=0)),
        bounded=("shortest_bound", "count"), bound_total=("shortest_bound", lambda x: x.sum(min_count=0)),
    )  # fmt: skip
    growth = shortest_growth_values(frame, counts)
    parts["growth_counts"] = growth.assign(
        longer=growth["growth"] > 0, exact=growth["growth"].where(growth["proved_both"].astype(bool), 0)
    ).groupby(GROWTH_KEYS, as_index=False).agg(
        deals=("deal", "size"), longer=("longer", "sum"), total=("growth", "sum"),
        proved_both=("proved_both", "sum"), proved_total=("exact", "sum"),
    )  # fmt: skip
    parts["growth_values"] = _histogram(growth, GROWTH_KEYS, "growth", lambda v: v.astype(np.int64))
    # Effort per outcome, over the searched rows (nodes known).
    keyed = frame.assign(outcome=outcome_of(frame["status"]), searched=frame["nodes"].notna(),
                         implied=frame["implied_by"].notna())  # fmt: skip
    searched = keyed[keyed["searched"]]
    parts["effort_counts"] = keyed.groupby(EFFORT_KEYS, as_index=False).agg(
        jobs=("deal", "size"), searched=("searched", "sum"), implied=("implied", "sum")
    )
    parts["effort_sums"] = searched.groupby(EFFORT_KEYS, as_index=False).agg(
        nodes_max=("nodes", "max"),
        seconds_max=("seconds", "max"),
        # Null, not 0, where no row has a time (the shipped table has none).
        seconds_total=("seconds", lambda x: x.sum(min_count=1)),
    )
    parts["effort_nodes"] = _histogram(searched, EFFORT_KEYS, "nodes", three_figures)
    parts["effort_seconds"] = _histogram(searched, EFFORT_KEYS, "seconds", three_figures_float)
    # The same deal with fewer cells: counts exact, ratios to three figures.
    ratios = paired_ratios(frame, counts)
    won_both = ratios[(ratios["from_status"] == SOLVED) & (ratios["to_status"] == SOLVED)]
    parts["paired_counts"] = (
        ratios.assign(harder=ratios["nodes_ratio"] > 1)
        .groupby(PAIRED_KEYS, as_index=False)
        .agg(deals=("deal", "size"), harder=("harder", "sum"))
    )
    parts["paired_longer"] = (
        won_both.assign(longer=won_both["moves_ratio"] > 1)
        .groupby(PAIRED_KEYS, as_index=False)
        .agg(won_both=("deal", "size"), longer=("longer", "sum"))
    )
    parts["paired_nodes"] = _histogram(ratios, PAIRED_KEYS, "nodes_ratio", three_figures_float)
    parts["paired_moves"] = _histogram(won_both, PAIRED_KEYS, "moves_ratio", three_figures_float)
    # The steps between the dataset's cell counts, not just those of this shard.
    parts["transitions"], lost = transitions(frame, counts)
    parts["takeback"], gained = takeback_comparison(frame)
    parts["distribution"] = min_cells_distribution(min_cells(frame))
    parts["hardest"] = hardest(frame, top)
    stuck = frame[~frame["status"].isin((SOLVED, UNSOLVABLE))]
    if len(stuck):
        # Their budgets (for the time they had), read for them alone: the column is
        # a string a row, which the other tables never need.
        budgets = to_frame(read_shard(path, shard, ["deal", "variant", "cells", "budgets"]))
        stuck = stuck.merge(budgets, on=["deal", "variant", "cells"], how="left")
    for name, listed in (("lost", lost), ("gained", gained), ("undecided", undecided(stuck))):
        parts[name] = listed.head(LISTED)
        parts[f"{name}_total"] = len(listed)
    parts["classic"] = frame.loc[frame["deal"] <= CLASSIC_DEALS, ["deal", "variant", "cells", "columns", "status"]]
    parts["sample"] = frame.sample(n=min(len(frame), math.ceil(SAMPLE_ROWS * len(frame) / max(rows, 1))),
                                   random_state=shard)  # fmt: skip
    return parts


def map_shards(
    path: str,
    shards: list[int],
    rows: int,
    top: int,
    counts: dict[str, list[int]],
    scheduler: str | None,
    cells: list[int] | None = None,
    deals: list[tuple[int, int]] | None = None,
) -> Iterator[dict]:
    """shard_parts of every shard, in shard order: on the Dask cluster at `scheduler`
    (which must reach `path`), else on a pool of this machine's cores."""
    if scheduler is not None:
        from ..cluster import connect

        client, disconnect = connect(scheduler)
        try:
            # A few tasks per worker thread ahead, so results wait in memory only briefly.
            ahead = 4 * max(1, sum(client.nthreads().values()))
            futures: collections.deque = collections.deque()
            for shard in shards:
                futures.append(client.submit(shard_parts, path, shard, rows, top, counts, cells, deals, pure=False))
                if len(futures) >= ahead:
                    yield futures.popleft().result()
            while futures:
                yield futures.popleft().result()
        finally:
            disconnect()
        return
    from ..cluster import cores

    workers = min(cores(), len(shards))
    if workers <= 1:
        yield from (shard_parts(path, shard, rows, top, counts, cells, deals) for shard in shards)
        return
    # Spawned, not forked: Arrow's threads in this process do not survive a fork.
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        jobs = [(path, shard, rows, top, counts, cells, deals) for shard in shards]
        yield from pool.map(shard_parts, *zip(*jobs))


def build_by_shard(
    path: str | os.PathLike,
    top: int,
    rows: int,
    scheduler: str | None = None,
    counts: dict[str, list[int]] | None = None,
    cells: Sequence[int] | None = None,
    deals: Sequence[tuple[int, int]] | None = None,
) -> dict:
    """The tables of the report (report.document.Report's fields) of a cluster sweep's
    dataset of `rows` rows, read a shard at a time,
    the shards on all cores (or on the Dask cluster at `scheduler`). Every count is
    exact, and so are the maxima and the hardest deals; node quantiles are to three
    significant figures; the plots' boxes are of a sample; the lists of deals keep
    their first LISTED; the per-deal table of fewest cells is left out (its
    distribution is there). `counts`: the dataset's cell counts per variant, if the
    caller has listed them (store.chunked_layout). `cells` and `deals` pick rows as
    report.select does."""
    location = str(path) if "://" in str(path) else str(Path(path).absolute())
    sums = {name: _Sum([*KEYS, name] if name in FIGURES else KEYS) for name in (*FIGURES, "seconds", "implied")}
    sums["status"] = _Sum([*KEYS, "status"])
    sums["maxima"] = _Sum(KEYS, how="max")
    sums["effort_counts"] = _Sum(EFFORT_KEYS)
    sums["effort_sums"] = _Sum(EFFORT_KEYS)
    sums["effort_maxima"] = _Sum(EFFORT_KEYS, how="max")
    sums["effort_nodes"] = _Sum([*EFFORT_KEYS, "nodes"])
    sums["effort_seconds"] = _Sum([*EFFORT_KEYS, "seconds"])
    sums["paired_counts"] = _Sum(PAIRED_KEYS)
    sums["paired_longer"] = _Sum(PAIRED_KEYS)
    sums["paired_nodes"] = _Sum([*PAIRED_KEYS, "nodes_ratio"])
    sums["paired_moves"] = _Sum([*PAIRED_KEYS, "moves_ratio"])
    sums["shortest_counts"] = _Sum(KEYS)
    sums["growth_counts"] = _Sum(GROWTH_KEYS)
    sums["growth_values"] = _Sum([*GROWTH_KEYS, "growth"])
    sums["transitions"] = _Sum(["variant", "from_cells", "to_cells"])
    sums["takeback"] = _Sum(["variant", "cells"])
    sums["distribution"] = _Sum(["variant", "min_cells"])
    lists = {"lost": _List("deals lost"), "gained": _List("deals won only with take-back"),
             "undecided": _List("undecided jobs")}  # fmt: skip
    tops: list[pd.DataFrame] = []
    samples: list[pd.DataFrame] = []
    classic: list[pd.DataFrame] = []  # the rows of deals 1..32,000, for the published counts
    first: dict = {}
    if counts is None:
        layout = chunked_layout(location)
        counts = layout[1] if layout else {}
    wanted_cells = None if cells is None else sorted(set(cells), reverse=True)
    wanted_deals = None if deals is None else list(deals)
    if wanted_cells is not None:
        counts = {variant: [k for k in ks if k in wanted_cells] for variant, ks in counts.items()}
    shards = map_shards(location, shard_numbers(location), rows, top, counts, scheduler, wanted_cells, wanted_deals)
    for parts in shards:
        first = first or parts
        parts["effort_maxima"] = parts["effort_sums"].drop(columns="seconds_total")
        parts["effort_sums"] = parts["effort_sums"][[*EFFORT_KEYS, "seconds_total"]]
        for name, total in sums.items():
            total.add(parts[name])
        for name, listed in lists.items():
            listed.add(parts[name], parts[f"{name}_total"])
        tops = [_top(pd.concat([*tops, parts["hardest"]], ignore_index=True), top)]
        classic.append(parts["classic"])
        samples.append(parts["sample"])
    if not first:
        raise FcanalyzeError(f"{path} holds no rows")
    if sums["status"].frame is None:
        raise FcanalyzeError("no rows of the dataset have the cell counts and deals asked for")
    summary = _summary(sums["status"], sums["implied"], {f: sums[f] for f in FIGURES}, sums["seconds"], sums["maxima"])
    distribution = sums["distribution"].result(DISTRIBUTION_COLUMNS)
    order = [math.inf if pd.isna(k) else int(k) for k in distribution["min_cells"]]
    distribution = distribution.assign(order=order).sort_values(["variant", "order"]).drop(columns="order")
    distribution = distribution.astype({"min_cells": "Int64", "deals_exact": "int64", "deals_upper_bound": "int64"})
    cut = [c for c in (listed.cut() for listed in lists.values()) if c]
    note = (
        f"This dataset's {rows:,} rows were read a shard (a million deals) at a time: every count is exact; "
        "node medians and p90s are to three significant figures; the plots' boxes are of a random sample of "
        f"{SAMPLE_ROWS:,} rows; min_cells.csv is left out (its distribution is below)"
        + ("; lists kept to their first " + ", ".join(cut) if cut else "")
        + "."
    )
    return dict(
        data=pd.concat(samples, ignore_index=True),
        summary=summary,
        transitions=sums["transitions"].result(list(first["transitions"].columns)),
        lost=lists["lost"].result(first["lost"].head(0)),
        min_cells=pd.DataFrame(columns=["variant", "deal", "min_cells", "exact", "needs_more_than", "cells_run"]),
        hardest=tops[0],
        published=published_comparison(pd.concat(classic, ignore_index=True)),
        undecided=with_table_verdicts(
            lists["undecided"]
            .result(first["undecided"].head(0))
            .sort_values(["variant", "cells", "deal"], ascending=[True, False, True], ignore_index=True)
        ),
        takeback=sums["takeback"].result(list(first["takeback"].columns)),
        gained=lists["gained"].result(first["gained"].head(0)),
        top=top,
        distribution=distribution.reset_index(drop=True),
        note=note,
        effort=_effort(sums),
        paired=_paired(sums),
        shortest=_shortest(sums),
        shortest_growth=_growth(sums),
    )


def _shortest(sums: dict[str, _Sum]) -> pd.DataFrame:
    """shortest()'s table, from the counts and the histogram of moves not to a foundation."""
    counts = sums["shortest_counts"].result(
        [*KEYS, "won", "counted", "searched", "proved", "total", "bounded", "bound_total"]
    )
    lengths = sums["non_foundation_moves"].result([*KEYS, "non_foundation_moves", "count"])
    keys = list(zip(counts["variant"], counts["cells"]))
    out = counts.assign(
        mean=counts["total"].astype("float64") / counts["counted"].astype("float64").where(counts["counted"] > 0),
        median=[_counted(lengths, KEYS, k, "non_foundation_moves", 0.5) for k in keys],
        p90=[_counted(lengths, KEYS, k, "non_foundation_moves", 0.9) for k in keys],
        max=pd.array([_largest(lengths, k) for k in keys], dtype="Int64"),
        mean_bound=counts["bound_total"].astype("float64")
        / counts["bounded"].astype("float64").where(counts["bounded"] > 0),
    )
    out = out[SHORTEST_COLUMNS].sort_values(["variant", "cells"], ascending=[True, False], ignore_index=True)
    return out.astype({"cells": "int64", "won": "int64", "counted": "int64", "searched": "int64", "proved": "int64",
                       "max": "Int64", "bounded": "int64"})  # fmt: skip


def _largest(lengths: pd.DataFrame, key: tuple) -> int | None:
    mine = lengths[(lengths["variant"] == key[0]) & (lengths["cells"] == key[1])]["non_foundation_moves"]
    return int(mine.max()) if len(mine) else None


def _growth(sums: dict[str, _Sum]) -> pd.DataFrame:
    """shortest_growth()'s table, from the counts and the histogram of growths."""
    counts = sums["growth_counts"].result([*GROWTH_KEYS, "deals", "longer", "total", "proved_both", "proved_total"])
    values = sums["growth_values"].result([*GROWTH_KEYS, "growth", "count"])
    keys = list(zip(*(counts[k] for k in GROWTH_KEYS)))
    deals = counts["deals"].astype("float64")
    proved = counts["proved_both"].astype("float64")
    out = counts.assign(
        mean_growth=counts["total"].astype("float64") / deals,
        median_growth=[_counted(values, GROWTH_KEYS, k, "growth", 0.5) for k in keys],
        longer_share=counts["longer"].astype("float64") / deals,
        proved_mean_growth=(counts["proved_total"].astype("float64") / proved).where(proved > 0),
    )
    return _growth_order(out[SHORTEST_GROWTH_COLUMNS])


def _effort(sums: dict[str, _Sum]) -> pd.DataFrame:
    """effort()'s table, from the counts, sums, maxima and histograms."""
    counts = sums["effort_counts"].result([*EFFORT_KEYS, "jobs", "searched", "implied"])
    totals = sums["effort_sums"].result([*EFFORT_KEYS, "seconds_total"])
    most = sums["effort_maxima"].result([*EFFORT_KEYS, "nodes_max", "seconds_max"])
    out = counts.merge(totals, on=EFFORT_KEYS, how="left").merge(most, on=EFFORT_KEYS, how="left")
    for figure in ("nodes", "seconds"):
        h = sums[f"effort_{figure}"].result([*EFFORT_KEYS, figure, "count"])
        for q, name in ((0.5, "median"), (0.9, "p90")):
            out[f"{figure}_{name}"] = [
                _counted(h, EFFORT_KEYS, key, figure, q) for key in zip(*(out[k] for k in EFFORT_KEYS))
            ]
    return _effort_order(out[EFFORT_TABLE_COLUMNS])


def _paired(sums: dict[str, _Sum]) -> pd.DataFrame:
    """paired()'s table, from the counts and the histograms of ratios."""
    counts = sums["paired_counts"].result([*PAIRED_KEYS, "deals", "harder"])
    longer = sums["paired_longer"].result([*PAIRED_KEYS, "won_both", "longer"])
    out = counts.merge(longer, on=PAIRED_KEYS, how="left")
    keys = list(zip(*(out[k] for k in PAIRED_KEYS)))
    nodes, moves = (
        sums["paired_nodes"].result([*PAIRED_KEYS, "nodes_ratio", "count"]),
        sums["paired_moves"].result([*PAIRED_KEYS, "moves_ratio", "count"]),
    )
    out["nodes_ratio_median"] = [_counted(nodes, PAIRED_KEYS, k, "nodes_ratio", 0.5) for k in keys]
    out["nodes_ratio_p90"] = [_counted(nodes, PAIRED_KEYS, k, "nodes_ratio", 0.9) for k in keys]
    out["harder_share"] = out["harder"].astype("float64") / out["deals"].astype("float64")
    out["moves_ratio_median"] = [_counted(moves, PAIRED_KEYS, k, "moves_ratio", 0.5) for k in keys]
    won = out["won_both"].astype("float64")
    out["longer_share"] = (out["longer"].astype("float64") / won).where(won > 0)
    return _paired_order(out[PAIRED_COLUMNS])


def _counted(histogram: pd.DataFrame, keys: list[str], key: tuple, column: str, q: float) -> float:
    """The quantile q of `column` in the histogram's rows for `key`."""
    mine = histogram
    for name, value in zip(keys, key):
        mine = mine[mine[name] == value]
    return quantile_of_counts(mine[column].to_numpy(dtype=np.float64), mine["count"].to_numpy(dtype=np.int64), q)


def _top(frame: pd.DataFrame, n: int) -> pd.DataFrame:
    """hardest()'s selection again, over the hardest of several shards."""
    parts = []
    for by in ("nodes", "moves"):
        mine = frame[frame["by"] == by].sort_values([by, "deal"], ascending=[False, True])
        mine = mine.groupby(["variant", "cells"], sort=True).head(n)
        parts.append(mine.sort_values(["variant", "cells", by, "deal"], ascending=[True, False, False, True]))
    return pd.concat(parts, ignore_index=True)


def _summary(status: _Sum, implied: _Sum, histograms: dict[str, _Sum], seconds: _Sum, maxima: _Sum) -> pd.DataFrame:
    """summarize()'s table, from the counts: its quantiles from the histograms."""
    counts = status.result([*KEYS, "status", "count"])
    settled = implied.result([*KEYS, "size"])
    times = seconds.result([*KEYS, "seconds", "verify_seconds"])
    most = maxima.result([*KEYS, *FIGURES])
    rows = []
    for (variant, cells), group in counts.groupby(KEYS, sort=True):
        figures = {}
        for figure in FIGURES:
            h = histograms[figure].result([*KEYS, figure, "count"])
            h = h[(h["variant"] == variant) & (h["cells"] == cells)]
            values, n = h[figure].to_numpy(dtype=np.int64), h["count"].to_numpy(dtype=np.int64)
            top = most[(most["variant"] == variant) & (most["cells"] == cells)][figure].dropna()
            figures[figure] = (
                quantile_of_counts(values, n, 0.5),
                quantile_of_counts(values, n, 0.9),
                int(top.iloc[0]) if len(top) else None,
            )
        time = times[(times["variant"] == variant) & (times["cells"] == cells)]
        rows.append(
            summary_row(
                str(variant),
                int(cast(int, cells)),
                dict(zip(group["status"], group["count"].astype(int))),
                int(settled[(settled["variant"] == variant) & (settled["cells"] == cells)]["size"].sum()),
                figures,
                float(time["seconds"].sum(min_count=1)),
                float(time["verify_seconds"].sum(min_count=1)),
            )
        )
    return summary_table(rows)

"""The tail of a sweep: its slowest jobs and its move counts per cell count, to compare engines by.

    python scripts/sweep_tail.py DATASET [--top 20] [--before OLD_DATASET] [--decided-by TABLE]

DATASET is a sweep's directory or one Parquet file of its rows. Prints, per cell
count, the engine time, the verdicts, how many jobs were settled by a proof with more
cells, and the mean, p99 and largest solution lengths (a sequence move counting as
one), and of the moves not to a foundation with how many lines are proved shortest
and the mean of their proved lower bounds;
then the slowest jobs with their time, nodes, stored positions and peak memory.
With --before, the slowest jobs of either sweep are listed as a Markdown table, each
beside the same job in OLD_DATASET (another engine's sweep of the same jobs). With
--decided-by, the slowest jobs are a Markdown table, each beside its row in TABLE (the
shipped table, data/microsoft-32000.parquet): the verdict and the search it took
there, which for a job left unknown says how far it was from its verdict.
"""

from __future__ import annotations

import argparse

import pandas as pd

from fcanalyze.dataset.store import read_dataset


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--before", metavar="OLD_DATASET", help="list the slowest jobs beside their rows in this sweep")
    parser.add_argument("--decided-by", metavar="TABLE", help="list the slowest jobs beside their rows in this table")
    args = parser.parse_args()
    frame = read_dataset(args.dataset).to_pandas()
    if args.before:
        print_side_by_side(read_dataset(args.before).to_pandas(), frame, args.top)
        return
    if args.decided_by:
        print_beside_decisions(frame, read_dataset(args.decided_by).to_pandas(), args.top)
        return

    print(
        f"{'cells':>5} {'jobs':>7} {'solved':>7} {'unsolv.':>7} {'implied':>7} {'unknown':>7} "
        f"{'engine s':>9} {'moves mean':>10} {'p99':>6} {'max':>7} {'>300':>5}"
    )
    for cells, group in frame.groupby("cells", sort=True):
        moves = group.loc[group["status"] == "solved", "moves"].dropna()
        status = group["status"].value_counts()
        print(
            f"{cells:>5} {len(group):>7,} {status.get('solved', 0):>7,} {status.get('unsolvable', 0):>7,} "
            f"{group['implied_by'].notna().sum():>7,} {status.get('unknown', 0):>7,} "
            f"{group['seconds'].sum():>9.1f} {moves.mean():>10.1f} {moves.quantile(0.99):>6.0f} "
            f"{moves.max():>7.0f} {(moves > 300).sum():>5}"
        )
    if "non_foundation_moves" in frame and frame["non_foundation_moves"].notna().any():
        print()
        print("moves not to a foundation (a sequence move counting as one), over the won jobs")
        print(
            f"{'cells':>5} {'won':>7} {'mean':>7} {'median':>7} {'p90':>6} {'max':>5} {'proved shortest':>16} "
            f"{'bounded':>8} {'mean bound':>10}"
        )
        for cells, group in frame.groupby("cells", sort=True):
            won = group[group["status"] == "solved"]
            lengths = won["non_foundation_moves"].dropna()
            proved = int(won["shortest_proved"].fillna(False).astype(bool).sum())
            bounds = won["shortest_bound"].dropna() if "shortest_bound" in won else pd.Series(dtype="float64")
            print(
                f"{cells:>5} {len(won):>7,} {lengths.mean():>7.2f} {lengths.median():>7g} "
                f"{lengths.quantile(0.9):>6g} {lengths.max():>5.0f} {proved:>16,} "
                f"{len(bounds):>8,} {bounds.mean() if len(bounds) else float('nan'):>10.2f}"
            )
    print()
    print(f"the {args.top} slowest jobs")
    slow = frame.sort_values("seconds", ascending=False).head(args.top)
    print(
        f"{'deal':>6} {'cells':>5} {'status':>10} {'seconds':>8} {'nodes':>12} {'states':>12} "
        f"{'peak MiB':>8} {'moves':>6}"
    )
    for r in slow.itertuples():
        moves = "-" if r.moves != r.moves or r.moves is None else f"{r.moves:.0f}"
        limit = f" ({r.limit})" if isinstance(r.limit, str) else ""
        print(
            f"{r.deal:>6} {r.cells:>5} {r.status + limit:>10} {r.seconds:>8.2f} {r.nodes:>12,.0f} "
            f"{r.states:>12,.0f} {r.peak_memory / 2**20:>8.0f} {moves:>6}"
        )


def print_side_by_side(before: pd.DataFrame, after: pd.DataFrame, top: int) -> None:
    """The `top` slowest jobs of either sweep, slowest now first, as Markdown rows."""
    key = ["deal", "cells"]
    figures = ["status", "limit", "seconds", "nodes", "states", "peak_memory"]
    both = after[key + figures].merge(before[key + figures], on=key, how="outer", suffixes=("", "_before"))
    slow = both.nlargest(top, "seconds")
    slow = pd.concat([slow, both.nlargest(top, "seconds_before")]).drop_duplicates(key)
    slow = slow.sort_values(["seconds", "seconds_before"], ascending=False)

    def cells(r, suffix: str) -> str:
        status = getattr(r, "status" + suffix)
        if not isinstance(status, str):
            return "- | - | - | - | -"
        limit = getattr(r, "limit" + suffix)
        verdict = f"{status} ({limit})" if isinstance(limit, str) else status
        values = [getattr(r, name + suffix) for name in ("seconds", "nodes", "states", "peak_memory")]
        if any(pd.isna(v) for v in values):  # settled without a search: no figures
            return f"{verdict} | - | - | - | -"
        seconds, nodes, states, peak = values
        return f"{verdict} | {seconds:.2f} | {nodes:,.0f} | {states:,.0f} | {peak / 2**20:.0f}"

    print(
        "| deal | cells | before: verdict | s | nodes | states | peak MiB | now: verdict | s | nodes | states | peak MiB |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for r in slow.itertuples():
        print(f"| {r.deal} | {r.cells} | {cells(r, '_before')} | {cells(r, '')} |")


def print_beside_decisions(frame: pd.DataFrame, table: pd.DataFrame, top: int) -> None:
    """The `top` slowest jobs of `frame` as Markdown rows, each beside the verdict, nodes
    and stored positions of its row in `table`."""
    key = ["deal", "cells"]
    slow = frame.nlargest(top, "seconds").merge(
        table[key + ["status", "nodes", "states"]], on=key, how="left", suffixes=("", "_table")
    )
    print(
        "| deal | cells | verdict | s | nodes | states | peak MiB | the table: verdict | nodes | states |\n"
        "|---:|---:|---|---:|---:|---:|---:|---|---:|---:|"
    )
    for r in slow.itertuples():
        verdict = f"{r.status} ({r.limit})" if isinstance(r.limit, str) else r.status
        decided = (
            f"{r.status_table} | {r.nodes_table:,.0f} | {r.states_table:,.0f}"
            if isinstance(r.status_table, str) and not pd.isna(r.nodes_table)
            else f"{r.status_table if isinstance(r.status_table, str) else '-'} | - | -"
        )
        print(
            f"| {r.deal} | {r.cells} | {verdict} | {r.seconds:.2f} | {r.nodes:,.0f} | {r.states:,.0f} | "
            f"{r.peak_memory / 2**20:.0f} | {decided} |"
        )


if __name__ == "__main__":
    main()

"""Builds the shipped deal tables in fcanalyze/data/ from fcanalyze's own sweeps: the classic one, and take-back's.

The table is exactly what this command decides, with fcanalyze's default budgets:

    fcanalyze sweep --deals 1-32000 --cells 0-4 --out build/table-sweep

(a resumable dataset; rerun it and it finishes what is left), then, for the jobs
whose default time budget ran out (90 s a job; the file shipped was begun with 30 s),

    fcanalyze sweep --deals 1-32000 --cells 0-4 --out build/table-sweep --retry-unknown --max-seconds 200

This script runs both (or takes an existing dataset with --from), checks that all
160,000 jobs are there, none in error, and that no count contradicts the published
ones (jobs still unknown are counted and allowed), drops the columns that describe
the machine and the moment (host, timestamps, times), and writes one sorted,
compressed Parquet file. data/microsoft-32000.parquet links to it.

The file shipped now was made from the first command (36.5 minutes on 2 workers, 38
jobs unknown), then the retry with 200 s stopped after 7 minutes (5 decided), then
the retry with `--max-seconds 120` run to its end (17 more decided), then
`--max-seconds 1200 --max-memory 9G` on the 16 jobs still unknown (9 decided, the
other 7 ran out of memory), then the leaner engine's `--max-seconds 2400
--max-memory 9G` (2 more decided), then `--max-seconds 1800 --max-memory 18G
--workers 1` (982 and 17760 with 2 cells ran out of time; stopped before the 1-cell
three), then `python scripts/build_table.py --from build/table-sweep`: 5 jobs were
undecided. (Then `fcanalyze solve 24966 --cells 1 --max-memory 19G` ran 27 minutes
and stopped at its memory budget after storing 1.09 billion positions.) With the
engine that wakes best-first for hard jobs, a retry of those 5,

    fcanalyze sweep --deals 13599,20410,24966 --cells 1 --max-seconds 120 --out build/table-retry
    fcanalyze sweep --deals 982,17760 --cells 2 --max-seconds 120 --out build/table-retry
    python scripts/build_table.py --patch build/table-retry

won 13599 with 1 cell (40 s) and 17760 with 2 cells (51 s), and the patch put those
two rows in place of the undecided ones: 3 jobs were undecided. Then

    fcanalyze sweep --deals 20410 --cells 1 --max-seconds 5400 --max-memory 18G --workers 1 --out build/table-retry2
    python scripts/build_table.py --patch build/table-retry2

proved 20410 with 1 cell lost (650.6 s, 665 million positions): 2 jobs are undecided.
With the store that packs positions into 12 bytes, the same with `--max-memory 20G`
on 982 with 2 cells and 24966 with 1 ran out of memory after storing 1.56 and 1.67
billion positions: they were still undecided. Then the layered proof (a class of
positions in memory at a time, the entries of later classes on disk), alone:

    fcanalyze sweep --deals 24966 --cells 1 --workers 1 --layered --spill-dir DIR \
        --max-memory 16G --max-disk 40G --max-seconds 6600 --out build/table-retry3
    python scripts/build_table.py --patch build/table-retry3

proved 24966 with 1 cell lost (5,280 s, 3,047,821,305 positions): 1 job was undecided,
982 with 2 cells, whose layered proof met a class too big for 16 GB. With the store
of 10 bytes a slot for the largest tables,

    fcanalyze sweep --deals 982 --cells 2 --workers 1 --layered --spill-dir DIR \
        --max-memory 19G --max-disk 60G --max-seconds 7200 --out build/table-retry4
    python scripts/build_table.py --patch build/table-retry4

proved it lost (5,566 s, 3,095,862,346 positions, 18.9 GiB peak RSS): every job of the
table is decided. (A layered proof that a budget stops is kept in DIR: the same
command goes on from it.)
Every solved row's score comes from the referee's replay of its solution.

    python scripts/build_table.py                       # sweep, then write the table
    python scripts/build_table.py --from full-sweep-dir # write it from a finished sweep

With --takeback it builds fcanalyze/data/microsoft-32000-takeback.parquet instead:
deals 1..32,000 with 4, 2 and 1 free cells (the app's three) under the FreeCell Solitaire app's
take-back rule, from

    fcanalyze sweep --deals 1-32000 --cells 4,2,1 --variant freecell,takeback=yes --out build/takeback-sweep

and the same with --retry-unknown --max-seconds 200. Its check holds it against the
classic table: take-back only adds moves, so every deal the classic rules win must be
won, and every deal take-back loses must be lost without it. The file shipped now
came from that sweep with `--cells 2,1` (62 minutes on 2 workers, 80 jobs unknown),
then `--cells 4` (13 s of engine time), then `--retry-unknown --max-seconds 50` on
the jobs whose deal the classic table does not show won (57 jobs, 31 decided), then
`python scripts/build_table.py --takeback --from build/takeback-sweep`: 49 jobs were
undecided. Then, with the engine that wakes best-first for hard jobs, the 20 of them
whose deal the classic table shows won (take-back only adds moves, so they are wins):

    fcanalyze sweep --deals 13599 --cells 1 --variant freecell,takeback=yes --max-seconds 300 --out build/takeback-retry
    fcanalyze sweep --deals 209,267,9084,16322,20033,20105,21846,24934,27063,29987 --cells 2 \
        --variant freecell,takeback=yes --max-seconds 75 --out build/takeback-retry
    fcanalyze sweep --deals 3999,5009,7440,11744,14103,15604,19619,26225,31841 --cells 1 \
        --variant freecell,takeback=yes --max-seconds 75 --out build/takeback-retry
    python scripts/build_table.py --takeback --patch build/takeback-retry

won 16; then the same sweeps of the 4 left with `--retry-unknown --max-seconds 240`
and the patch again won 3999 and 11744 with 1 cell: 31 jobs were undecided. The
last two wins by the classic table, retried once the engine's steps were cheaper,

    fcanalyze sweep --deals 267 --cells 2 --variant freecell,takeback=yes \
        --max-seconds 1200 --max-memory 10G --out build/takeback-retry5
    fcanalyze sweep --deals 7440 --cells 1 --variant freecell,takeback=yes \
        --max-seconds 1200 --max-memory 10G --out build/takeback-retry6

won in 256 and 648 s, and `--takeback --patch` of each put them in: 29 jobs were
undecided. Then, with the engine whose best-first hunt ends after 12 million nodes,

    fcanalyze sweep --deals 4336,20792,21779,29577 --cells 2 --variant freecell,takeback=yes \
        --max-seconds 120 --out build/takeback-retry8
    fcanalyze sweep --deals 3613,3628,5196,6123,6846,8559,8816,9613,10120,15630,16330,17977,21453,22628,23981,29147,30154,31068 \
        --cells 1 --variant freecell,takeback=yes --max-seconds 120 --out build/takeback-retry8
    fcanalyze sweep --deals 14790 --cells 2 --variant freecell,takeback=yes --max-seconds 600 --out build/takeback-retry9

proved 15 lost (all four with 2 cells, 11 of the 18 with 1) and won 14790 with 2 cells
in 39 s; `--takeback --patch` of each put them in: 13 jobs were undecided. Then

    fcanalyze sweep --deals 3613,3628,5196,8816,15630,22628,29147 --cells 1 --variant freecell,takeback=yes \
        --max-seconds 480 --max-memory 9G --out build/takeback-retry10

proved 4 of them lost, and the same of 8816 and 29147 with `--max-seconds 900
--max-memory 10G` proved 29147 lost; the patches put them in: 8 jobs were undecided.
With the store that packs positions into 12 bytes,

    fcanalyze sweep --deals 8816,8983,18032,25887 --cells 1 --variant freecell,takeback=yes \
        --max-seconds 900 --max-memory 10G --out build/takeback-retry13
    python scripts/build_table.py --takeback --patch build/takeback-retry13

proved 25887 lost: 7 jobs are undecided (docs/takeback.md), none of them a deal the
classic table shows won.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fcanalyze.dataset.store import SCHEMA, read_dataset
from fcanalyze.game.deals import microsoft_deal
from fcanalyze.game.variant import FREECELL, Variant
from fcanalyze.referee.replay import replay
from fcanalyze.status import SOLVED, UNSOLVABLE
from fcanalyze.tables.published import CLASSIC_DEALS, WINNABLE_CLASSIC
from fcanalyze.tables.shipped import MACHINE_COLUMNS, TABLE_CELLS, TAKEBACK_CELLS, table_path
from fcanalyze.tables.shipped import TAKEBACK as TAKEBACK_NAME

SWEEP = ["fcanalyze", "sweep", "--deals", f"1-{CLASSIC_DEALS}", "--cells", "0-4"]
TAKEBACK = Variant.parse(TAKEBACK_NAME)
TAKEBACK_SWEEP = SWEEP[:4] + ["--cells", ",".join(map(str, TAKEBACK_CELLS)), "--variant", TAKEBACK_NAME]
RETRY = ["--retry-unknown", "--max-seconds", "200"]
# Columns with few distinct values are stored as dictionaries; solutions are not.
DICTIONARY_COLUMNS = ["variant", "status", "limit", "engine_version", "budgets"]
TABLE_ROW_GROUP = 4000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="a finished sweep's dataset (skip the sweep)")
    parser.add_argument("--sweep-dir", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--takeback", action="store_true", help="the take-back table (4, 2 and 1 cells)")
    parser.add_argument(
        "--patch",
        type=Path,
        default=None,
        help="a sweep of the table's undecided jobs: its decided rows replace theirs in the table as it is",
    )
    parser.add_argument(
        "--recount",
        action="store_true",
        help="write the table as it is again, its counts (score, moves not to a foundation) from the referee",
    )
    args = parser.parse_args()
    rules, cells, sweep = (
        (TAKEBACK, TAKEBACK_CELLS, TAKEBACK_SWEEP) if args.takeback else (FREECELL, TABLE_CELLS, SWEEP)
    )
    out = args.out or table_path(TAKEBACK_NAME if args.takeback else FREECELL.name)

    source = args.source
    if args.recount:
        return write(pq.read_table(out), cells, rules, out, args.takeback)
    if args.patch is not None:
        table = patched(conformed(pq.read_table(out)), conformed(read_dataset(args.patch)))
        return write(table, cells, rules, out, args.takeback)
    if source is None:
        source = args.sweep_dir or Path("build/takeback-sweep" if args.takeback else "build/table-sweep")
        for command in (sweep + ["--out", str(source)], sweep + ["--out", str(source)] + RETRY):
            print("+", " ".join(command), flush=True)
            status = subprocess.call(command)
            if status != 0:
                print(f"the sweep exited with status {status}; rerun this script to resume it", file=sys.stderr)
                return status

    table = read_dataset(source)
    table = table.filter(pc.and_(pc.equal(table["variant"], rules.name), pc.less_equal(table["deal"], CLASSIC_DEALS)))
    table = table.filter(pc.is_in(table["cells"], pa.array(cells, pa.int8())))
    return write(table.drop_columns(list(MACHINE_COLUMNS)), cells, rules, out, args.takeback)


# The table's columns: the sweep's, but those of the machine and the moment.
TABLE_SCHEMA = pa.schema([f for f in SCHEMA if f.name not in MACHINE_COLUMNS])


def conformed(table: pa.Table) -> pa.Table:
    """`table` with TABLE_SCHEMA's columns in order, those it lacks (columns added to the
    sweep's schema since it was written) as nulls."""
    for field in TABLE_SCHEMA:
        if field.name not in table.column_names:
            table = table.append_column(field, pa.nulls(table.num_rows, field.type))
    return table.select(TABLE_SCHEMA.names).cast(TABLE_SCHEMA)


def write_sorted(rows: list[dict], out: Path) -> int:
    """Writes `rows` (the table's, as dicts) as the table at `out`, checked as write() checks."""
    takeback = out.name == table_path(TAKEBACK_NAME).name
    rules, cells = (TAKEBACK, TAKEBACK_CELLS) if takeback else (FREECELL, TABLE_CELLS)
    return write(pa.Table.from_pylist(rows, TABLE_SCHEMA), cells, rules, out, takeback)


def write(table: pa.Table, cells: tuple[int, ...], rules: Variant, out: Path, takeback: bool) -> int:
    """Checks the table, counts its solutions' moves and scores them by replaying them,
    and writes it sorted and compressed; 1 (and nothing written) if a check fails."""
    table = conformed(table)
    problems = check(table, cells) + (against_classic(table) if takeback else [])
    if problems:
        for p in problems:
            print("not written:", p, file=sys.stderr)
        return 1
    table = with_counts(table, rules)
    table = table.sort_by([("cells", "descending"), ("deal", "ascending")])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    pq.write_table(
        table,
        tmp,
        compression="zstd",
        compression_level=19,
        use_dictionary=DICTIONARY_COLUMNS,
        # Row groups of a few thousand rows: a lookup reads the few whose deals may hold
        # its deal (table.read_deals), not the whole table.
        row_group_size=TABLE_ROW_GROUP,
    )
    tmp.replace(out)
    print(f"wrote {table.num_rows:,} rows to {out} ({out.stat().st_size / 2**20:.1f} MiB)")
    return 0


def patched(table: pa.Table, retry: pa.Table) -> pa.Table:
    """`table` with each undecided row replaced by `retry`'s row for the same job, where
    that one is decided. Decided rows are never replaced."""
    keys = ("deal", "variant", "cells")
    decided = (SOLVED, UNSOLVABLE)
    undecided = {
        tuple(key) for *key, status in zip(*(table[c].to_pylist() for c in (*keys, "status"))) if status not in decided
    }
    take = [
        tuple(key) in undecided and status in decided
        for *key, status in zip(*(retry[c].to_pylist() for c in (*keys, "status")))
    ]
    fresh = retry.filter(pa.array(take, pa.bool_())).select(table.column_names).cast(table.schema)
    replaced = set(zip(*(fresh[c].to_pylist() for c in keys)))
    keep = [key not in replaced for key in zip(*(table[c].to_pylist() for c in keys))]
    print(f"{len(replaced)} of the table's {len(undecided)} undecided jobs are decided in the patch")
    return pa.concat_tables([table.filter(pa.array(keep, pa.bool_())), fresh])


def with_counts(table: pa.Table, variant: Variant) -> pa.Table:
    """The table with every solved row's `score` and `non_foundation_moves` from the
    referee's replay of its solution (rows from sweeps made before these were kept have
    none), each replay checked to win and to agree with the counts the row has."""
    scores: list[int | None] = []
    counts: list[int | None] = []
    for deal, cells, status, solution, moves, score, off_home in zip(
        *(
            table[c].to_pylist()
            for c in ("deal", "cells", "status", "solution", "moves", "score", "non_foundation_moves")
        )
    ):
        if status != SOLVED:
            scores.append(None)
            counts.append(None)
            continue
        rules = variant.with_cells(cells)
        verdict = replay(microsoft_deal(deal, rules), rules, solution)
        if (
            not verdict.won
            or moves != verdict.moves
            or score not in (None, verdict.score)
            or off_home not in (None, verdict.non_foundation_moves)
        ):
            raise SystemExit(
                f"deal {deal} with {cells} cells: the stored solution or its counts fail: {verdict.summary()}"
            )
        scores.append(verdict.score)
        counts.append(verdict.non_foundation_moves)
    for name, values in (("score", scores), ("non_foundation_moves", counts)):
        at = table.schema.get_field_index(name)
        table = table.set_column(at, table.schema.field(at), pa.array(values, pa.int32()))
    return table


def check(table: pa.Table, cell_counts: tuple[int, ...]) -> list[str]:
    """Why the table must not ship: a job missing or in error, or counts that contradict
    the published ones (only the classic rules have any). Jobs still unknown (a budget
    ran out) are allowed, and counted."""
    problems = []
    expected = CLASSIC_DEALS * len(cell_counts)
    if table.num_rows != expected:
        problems.append(f"{table.num_rows:,} rows, not {expected:,}")
    classic = table.num_rows and table["variant"][0].as_py() == FREECELL.name
    for cells in cell_counts:
        rows = table.filter(pc.equal(table["cells"], cells))
        counts = {k: v for k, v in zip(*[c.to_pylist() for c in pc.value_counts(rows["status"]).flatten()])}
        solved, unsolvable = counts.get("solved", 0), counts.get("unsolvable", 0)
        unknown = rows.num_rows - solved - unsolvable - counts.get("error", 0)
        if counts.get("error"):
            problems.append(f"{cells} cells: {counts['error']} error rows")
        if classic and (solved > WINNABLE_CLASSIC[cells] or unsolvable > CLASSIC_DEALS - WINNABLE_CLASSIC[cells]):
            problems.append(
                f"{cells} cells: {solved:,} winnable and {unsolvable:,} not, against the published "
                f"{WINNABLE_CLASSIC[cells]:,} and {CLASSIC_DEALS - WINNABLE_CLASSIC[cells]:,}"
            )
        print(
            f"{cells} cells: {solved:,} solved, {unsolvable:,} unsolvable, {unknown:,} unknown "
            + (f"(published: {WINNABLE_CLASSIC[cells]:,} winnable)" if classic else "")
        )
    return problems


def against_classic(table: pa.Table) -> list[str]:
    """Why a take-back table contradicts the shipped classic one: a deal the classic
    rules win that take-back loses, which cannot be (take-back only adds moves)."""
    classic = pq.read_table(table_path(), columns=["deal", "cells", "status"])
    won = {(d, k) for d, k, s in zip(*(classic[c].to_pylist() for c in ("deal", "cells", "status"))) if s == SOLVED}
    lost = [
        (d, k)
        for d, k, s in zip(*(table[c].to_pylist() for c in ("deal", "cells", "status")))
        if s == "unsolvable" and (d, k) in won
    ]
    return [f"deal {d} with {k} cells: won without take-back, lost with it" for d, k in lost]


if __name__ == "__main__":
    sys.exit(main())

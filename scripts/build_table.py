"""Builds the shipped deal tables in fcanalyze/data/ from fcanalyze's own sweeps: the classic one, and take-back's.

The classic table (data/microsoft-32000.parquet, a link to fcanalyze/data/) holds
every job of deals 1..32,000 at 0 to 4 free cells, each decided by fcanalyze itself.
To rebuild it from scratch, from the root of a clone with fcanalyze installed, on a
machine of 24 GiB with some 60 GB of free disk, run in this order:

1. The sweep with the default budgets (90 s and 8 GiB a job), then the jobs it leaves
   unknown again with 200 s each, both into build/table-sweep (a resumable dataset:
   rerun the command and it finishes what is left); then the table is written:

       python scripts/build_table.py

   `--from DIR` writes the table from a finished sweep instead. The jobs left unknown
   are those of step 2.

2. The three jobs whose proofs no sweep budget holds (0.67 to 3.1 billion positions),
   one at a time, then patched in. DIR is a private directory (`mkdir -m 700`) on a
   local disk; a layered proof that a budget stops is kept there, and the same command
   goes on from it:

       fcanalyze sweep --deals 20410 --cells 1 --workers 1 --max-memory 18G \
           --max-seconds 5400 --out build/table-retry
       fcanalyze sweep --deals 24966 --cells 1 --workers 1 --layered --spill-dir DIR \
           --max-memory 16G --max-disk 40G --max-seconds 6600 --out build/table-retry
       fcanalyze sweep --deals 982 --cells 2 --workers 1 --layered --spill-dir DIR \
           --max-memory 19G --max-disk 60G --max-seconds 7200 --out build/table-retry
       python scripts/build_table.py --patch build/table-retry

   `--patch DATASET` puts each decided row of DATASET in place of the table's undecided
   row for the same job; it never replaces a decided row.

3. The shortest line of every won job, as `--shortest` finds it, begun from the job's
   own line (no job is decided again); it rewrites the table through this script's
   checks:

       python scripts/shorten_table.py

The take-back table (data/microsoft-32000-takeback.parquet) holds deals 1..32,000 at
4, 2 and 1 free cells (the FreeCell Solitaire app's three) under its take-back rule,
`freecell,takeback=yes`. In this order:

       python scripts/build_table.py --takeback
       fcanalyze sweep --deals 1-32000 --cells 4,2,1 --variant freecell,takeback=yes \
           --out build/takeback-sweep --retry-unknown --max-seconds 900 --max-memory 10G
       python scripts/build_table.py --takeback --from build/takeback-sweep
       python scripts/shorten_table.py --takeback

The first runs the sweep and its 200 s retry into build/takeback-sweep and writes the
table; the second gives the jobs still unknown 900 s and 10 GiB each; the third writes
the table again from the sweep. Seven jobs stayed undecided; a layered proof decides
one over as many runs as it takes (the same command goes on from the proof kept in
DIR), and its result is patched in:

       fcanalyze solve 20410 --cells 1 --variant freecell,takeback=yes --layered \
           --spill-dir DIR --max-memory 7G --threads 1 --max-disk 30G --max-seconds 1800 \
           --json > 20410.json
       python scripts/build_table.py --takeback --proved 20410.json --budgets \
           max_nodes=none,max_seconds=1800,max_memory=7516192768,max_disk=32212254720,spill_dir=given,layered=yes

Six jobs stay undecided (docs/takeback.md).

After a change to how a solution's score or its moves not to a foundation are counted,
write a table again as it is, every count from the referee's replay, without searching:

       python scripts/build_table.py --recount [--takeback]

Before it writes, this script checks that every job is there and none in error, that
no count contradicts the published ones (jobs still unknown are counted and allowed),
and for take-back that no deal the shipped classic table wins is lost; a table that
fails is not written. It drops the columns of the machine and the moment (host,
timestamps, times), replays every solution with the referee (each won row's score and
moves not to a foundation come from that replay), and writes one sorted,
zstd-compressed Parquet file in row groups of a few thousand rows.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from fcanalyze.dataset.store import SCHEMA, read_dataset
from fcanalyze.dataset.typed import pandas_readable
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
        "--proved",
        type=Path,
        nargs="+",
        default=None,
        metavar="JSON",
        help="results of `fcanalyze solve --json`, each a proof of a loss of one of the table's undecided "
        "jobs (a layered proof, say, run over several sessions): each replaces that job's row",
    )
    parser.add_argument(
        "--budgets",
        default=None,
        help="with --proved: the budgets of the proofs' last run, as the budgets column writes them",
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
    if args.proved is not None:
        if args.budgets is None:
            parser.error("--proved needs --budgets, the proofs' budgets as the budgets column writes them")
        table = patched(conformed(pq.read_table(out)), conformed(proved_rows(args.proved, args.budgets)))
        return write(table, cells, rules, out, args.takeback)
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
    sweep's schema since it was written) as nulls, and no machine's path in it."""
    for field in TABLE_SCHEMA:
        if field.name not in table.column_names:
            table = table.append_column(field, pa.nulls(table.num_rows, field.type))
    # A row proved on disk names the directory it spilled to, a path of the machine
    # that ran it: the shipped table says only that it spilled.
    budgets = pc.replace_substring_regex(table["budgets"], r"spill_dir=[^,]*", "spill_dir=given")
    table = table.set_column(table.schema.get_field_index("budgets"), "budgets", budgets)
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
    problems = bound_problems(table)
    if problems:
        for p in problems[:10]:
            print("not written:", p, file=sys.stderr)
        return 1
    table = table.sort_by([("cells", "descending"), ("deal", "ascending")])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    pq.write_table(
        pandas_readable(table),
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


def proved_rows(paths: list[Path], budgets: str) -> pa.Table:
    """Table rows from `fcanalyze solve --json` results that prove their jobs lost. A
    win is refused: its line must be replayed by the referee, as a sweep's row is
    (`--patch`)."""
    from fcanalyze import __version__

    rows = []
    for path in paths:
        result = json.loads(path.read_text())
        if result.get("status") != UNSOLVABLE:
            sys.exit(f"{path}: {result.get('status')}, not a proved loss: patch a sweep's row in instead (--patch)")
        rows.append(
            {
                "deal": result["deal"],
                "variant": result["variant"],
                "cells": result["cells"],
                "columns": Variant.parse(result["variant"]).columns,
                "status": UNSOLVABLE,
                "solvable": False,
                "nodes": result["nodes"],
                "states": result["states"],
                "max_depth": result["max_depth"],
                "peak_memory": result["peak_memory"],
                "verified": False,
                "engine_version": __version__,
                "budgets": budgets,
            }
        )
    return pa.Table.from_pylist(rows, TABLE_SCHEMA)


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


def bound_problems(table: pa.Table) -> list[str]:
    """Why a table's lower bounds contradict its lines, as the referee counted them: a
    line with fewer moves not to a foundation than its row's proved bound (one of the
    two is wrong), or a row said proved shortest whose bound is not its line's count."""
    if "shortest_bound" not in table.column_names:
        return []
    columns = ("deal", "cells", "non_foundation_moves", "shortest_bound", "shortest_proved")
    problems = []
    for deal, cells, moves, bound, proved in zip(*(table[c].to_pylist() for c in columns)):
        if bound is None:
            continue
        if moves is None or bound > moves or bool(proved) != (bound == moves):
            problems.append(
                f"deal {deal} with {cells} cells: a line of {moves} moves not to a foundation, a proved "
                f"bound of {bound}, proved shortest {proved}"
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

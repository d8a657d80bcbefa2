"""Gives every won job of a shipped table the shortest line the search finds (as `--shortest` does), begun from its line.

    python scripts/shorten_table.py                      # the classic table, all cores
    python scripts/shorten_table.py --takeback           # the take-back table
    python scripts/shorten_table.py --cells 4 --workers 2
    python scripts/shorten_table.py --bounds --proof-nodes 20000   # lower bounds only
    python scripts/shorten_table.py --takeback --classic-lines     # the classic table's shorter lines

Each won row of fcanalyze/data/ is handed to `fcanalyze.shortest_line` with its own
solution: the search for the shortest line (docs/correctness.md, "The shortest line")
starts from it, so no job is decided again. The line found is replayed by the
referee, and the row gets it with its move counts, score, `non_foundation_moves`,
`shortest_proved` and `shortest_limit`; its verdict and the search figures that
decided it (nodes, states) stay as they were, and its budgets text says
`shortest=yes`. Lost and undecided rows keep their nulls.

With --bounds, no beam runs again (the rows' lines are the beam's already): each won
row not proved shortest gets the deepening proof alone, begun from its line, of at most
--proof-nodes positions. It leaves the row a proved lower bound (`shortest_bound`: no
line has fewer moves not to a foundation), and proves the line shortest, or finds a
shortest one, where it can; a row proved shortest already gets its own count. Both
tables get bounds (`--bounds --takeback` for the take-back one).

With --takeback --classic-lines, no search runs: a won take-back job whose line is
longer than the classic table's line of the same job takes that line (every classic
line is legal under take-back; the writer's replay checks it there). Its bound stays,
and it is proved shortest if the line meets it. A take-back optimum is never above the
classic one, and this makes each take-back line no longer than the classic line too.

Work is kept as it goes in build/shorten-<table>/ (build/bound-<table>/ with --bounds;
a Parquet file a batch of jobs), so a run that is stopped goes on where it stopped; the
table is rewritten once every won job is done (scripts/build_table.py writes it, and
refuses a bound above its line as the referee counts it).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from tqdm import tqdm

import fcanalyze
from fcanalyze import _engine
from fcanalyze.game.deals import microsoft_deal
from fcanalyze.game.variant import Variant
from fcanalyze.referee.replay import replay
from fcanalyze.solving.solve import engine_variant
from fcanalyze.status import SOLVED
from fcanalyze.tables.shipped import CLASSIC, TAKEBACK, table_path

sys.path.insert(0, str(Path(__file__).parent))
from build_table import write_sorted

# Jobs a batch of work kept on disk holds.
BATCH = 2000
RESULT = pa.schema(
    [
        ("deal", pa.int64()),
        ("cells", pa.int8()),
        ("solution", pa.string()),
        ("moves", pa.int32()),
        ("card_moves", pa.int32()),
        ("non_foundation_moves", pa.int32()),
        ("score", pa.int32()),
        ("shortest_proved", pa.bool_()),
        ("shortest_bound", pa.int32()),
        ("shortest_limit", pa.string()),
    ]
)
# The engine's guide (engine/src/search/shortest/beam.rs); no beam runs with --bounds,
# but the effort names one.
GUIDE = [1, 3, 1, 1, 9, 3, 1, 5, 3, 0, 0, 0]


def shorten(job: tuple[int, int, str, str]) -> dict:
    deal, cells, variant, solution = job
    found = fcanalyze.shortest_line(deal, solution, cells=cells, variant=variant)
    return {
        "deal": deal,
        "cells": cells,
        "solution": " ".join(found.solution),
        "moves": found.moves,
        "card_moves": found.card_moves,
        "non_foundation_moves": found.non_foundation_moves,
        "score": found.score,
        "shortest_proved": found.shortest_proved,
        "shortest_bound": found.shortest_bound,
        "shortest_limit": found.shortest_limit,
    }


def bound(job: tuple[int, int, str, str, int, bool, str | None, int]) -> dict:
    """A won row's proved lower bound: its own count if it is proved shortest, else the
    deepening proof's, begun from its line (which it may replace by a shortest one,
    replayed by the referee)."""
    deal, cells, variant, solution, moves, proved, limit, proof_nodes = job
    row = {"deal": deal, "cells": cells, "shortest_proved": proved, "shortest_limit": limit}
    if proved:
        return {**row, "non_foundation_moves": moves, "shortest_bound": moves}
    rules = Variant.parse(variant, cells=cells)
    board = microsoft_deal(deal, rules)
    tokens = solution.split()
    found, proved, _, floor = _engine.shorter_line(
        board.columns, board.cells, board.foundations, engine_variant(rules), tokens, ([], GUIDE, proof_nodes)
    )
    line = found.split() if found else tokens
    verdict = replay(board, rules, line)
    assert verdict.won, f"deal {deal} with {cells} cells: the line found does not win"
    counted = verdict.non_foundation_moves
    assert floor <= counted and proved == (floor == counted), (deal, cells, floor, counted)
    return {
        **row,
        "solution": " ".join(line),
        "moves": verdict.moves,
        "card_moves": verdict.card_moves,
        "non_foundation_moves": counted,
        "score": verdict.score,
        "shortest_proved": proved,
        "shortest_bound": floor,
        "shortest_limit": None if proved else "nodes",
    }


def adopt_classic_lines(path: Path) -> int:
    """--takeback --classic-lines: each won take-back row takes the classic table's line
    of its job where that is shorter. The line's moves are the same under take-back, so
    its counts come with it; the table's writer replays every line under take-back and
    refuses one that does not win, or whose counts or bound do not hold."""
    columns = ["deal", "cells", "status", "solution", "moves", "card_moves", "non_foundation_moves"]
    classic = pq.read_table(table_path(CLASSIC), columns=columns).to_pylist()
    classic_line = {(r["deal"], r["cells"]): r for r in classic if r["status"] == SOLVED}
    rows = pq.read_table(path).to_pylist()
    adopted = 0
    for row in rows:
        theirs = classic_line.get((row["deal"], row["cells"])) if row["status"] == SOLVED else None
        if theirs is None or theirs["non_foundation_moves"] >= row["non_foundation_moves"]:
            continue
        proved = theirs["non_foundation_moves"] == row["shortest_bound"]
        row.update(
            {name: theirs[name] for name in ("solution", "moves", "card_moves", "non_foundation_moves")},
            score=None,  # the writer's replay scores it
            shortest_proved=proved,
            shortest_limit=None if proved else row["shortest_limit"],
        )
        adopted += 1
    print(f"{adopted:,} jobs took the classic table's shorter line", flush=True)
    return write_sorted(rows, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--takeback", action="store_true", help="the take-back table")
    parser.add_argument("--cells", type=int, action="append", help="only these cell counts (repeatable)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="where work is kept (default build/shorten-<table>)")
    parser.add_argument("--no-write", action="store_true", help="shorten, but leave the table as it is")
    parser.add_argument("--bounds", action="store_true", help="lower bounds only: the deepening proof, no beam")
    parser.add_argument(
        "--classic-lines",
        action="store_true",
        help="with --takeback: take the classic table's shorter lines, no search",
    )
    parser.add_argument(
        "--proof-nodes", type=int, default=_engine.SHORTEST_NODES, help="with --bounds: the proof's positions a job"
    )
    args = parser.parse_args()
    variant = TAKEBACK if args.takeback else CLASSIC
    path = table_path(variant)
    if args.classic_lines:
        if not args.takeback:
            parser.error("--classic-lines is for the take-back table: give --takeback too")
        return adopt_classic_lines(path)
    work = args.work or Path("build") / f"{'bound' if args.bounds else 'shorten'}-{path.stem}"
    work.mkdir(parents=True, exist_ok=True)
    table = pq.read_table(path)
    done = {}
    for part in sorted(work.glob("batch-*.parquet")):
        for row in pq.read_table(part).to_pylist():
            done[(row["deal"], row["cells"])] = row
    columns = ["deal", "cells", "solution", "non_foundation_moves", "shortest_proved", "shortest_limit"]
    won = table.filter(pa.compute.equal(table["status"], SOLVED)).select(columns).to_pylist()
    jobs = [
        (r["deal"], r["cells"], variant, r["solution"])
        + ((r["non_foundation_moves"], bool(r["shortest_proved"]), r["shortest_limit"], args.proof_nodes)
           if args.bounds else ())
        for r in won
        if (r["deal"], r["cells"]) not in done and (args.cells is None or r["cells"] in args.cells)
    ]  # fmt: skip
    # Most cells first: those jobs take longest, and the end of the run stays busy.
    jobs.sort(key=lambda j: (-j[1], j[0]))
    print(f"{path.name}: {len(won):,} won jobs, {len(done):,} shortened already, {len(jobs):,} to go", flush=True)
    begin = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        batch: list[dict] = []
        work_on = bound if args.bounds else shorten
        for result in tqdm(pool.imap_unordered(work_on, jobs, chunksize=16), total=len(jobs), unit="job"):
            batch.append({name: result.get(name) for name in RESULT.names})
            done[(result["deal"], result["cells"])] = result
            if len(batch) >= BATCH:
                pq.write_table(pa.Table.from_pylist(batch, RESULT), work / f"batch-{time.time_ns()}.parquet")
                batch = []
        if batch:
            pq.write_table(pa.Table.from_pylist(batch, RESULT), work / f"batch-{time.time_ns()}.parquet")
    print(f"shortened {len(jobs):,} jobs in {time.perf_counter() - begin:,.0f} s", flush=True)
    missing = [(r["deal"], r["cells"]) for r in won if (r["deal"], r["cells"]) not in done]
    if missing or args.no_write:
        print(f"{len(missing):,} won jobs have no line yet: the table is left as it is", flush=True)
        return 0 if args.no_write else 1
    rows = table.to_pylist()
    for row in rows:
        line = done.get((row["deal"], row["cells"])) if row["status"] == SOLVED else None
        if line is not None:
            # A bound-only result leaves the line's columns it did not change as they were.
            row.update({k: v for k, v in line.items() if v is not None or k in ("shortest_limit", "shortest_bound")})
            if ",shortest=yes" not in row["budgets"]:
                row["budgets"] += ",shortest=yes"
            # The bound's own budget, for a row whose bound a deepening proof gave.
            if args.bounds and line.get("solution") is not None:
                row["budgets"] = row["budgets"].split(",bound_nodes=")[0] + f",bound_nodes={args.proof_nodes}"
        else:
            row.update(non_foundation_moves=None, shortest_proved=None, shortest_bound=None, shortest_limit=None)
    return write_sorted(rows, path)


if __name__ == "__main__":
    sys.exit(main())

"""Gives every won job of a shipped table the shortest line the search finds (as `--shortest` does), begun from its line.

    python scripts/shorten_table.py                      # the classic table, all cores
    python scripts/shorten_table.py --takeback           # the take-back table
    python scripts/shorten_table.py --cells 4 --workers 2

Each won row of fcanalyze/data/ is handed to `fcanalyze.shortest_line` with its own
solution: the search for the shortest line (docs/correctness.md, "The shortest line")
starts from it, so no job is decided again. The line found is replayed by the
referee, and the row gets it with its move counts, score, `non_foundation_moves`,
`shortest_proved` and `shortest_limit`; its verdict and the search figures that
decided it (nodes, states) stay as they were, and its budgets text says
`shortest=yes`. Lost and undecided rows keep their nulls.

Work is kept as it goes in build/shorten-<table>/ (a Parquet file a batch of jobs), so
a run that is stopped goes on where it stopped; the table is rewritten once every won
job has its line (scripts/build_table.py writes it).
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
        ("shortest_limit", pa.string()),
    ]
)


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
        "shortest_limit": found.shortest_limit,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--takeback", action="store_true", help="the take-back table")
    parser.add_argument("--cells", type=int, action="append", help="only these cell counts (repeatable)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--work", type=Path, default=None, help="where work is kept (default build/shorten-<table>)")
    parser.add_argument("--no-write", action="store_true", help="shorten, but leave the table as it is")
    args = parser.parse_args()
    variant = TAKEBACK if args.takeback else CLASSIC
    path = table_path(variant)
    work = args.work or Path("build") / f"shorten-{path.stem}"
    work.mkdir(parents=True, exist_ok=True)
    table = pq.read_table(path)
    done = {}
    for part in sorted(work.glob("batch-*.parquet")):
        for row in pq.read_table(part).to_pylist():
            done[(row["deal"], row["cells"])] = row
    won = table.filter(pa.compute.equal(table["status"], SOLVED)).select(["deal", "cells", "solution"]).to_pylist()
    jobs = [
        (r["deal"], r["cells"], variant, r["solution"])
        for r in won
        if (r["deal"], r["cells"]) not in done and (args.cells is None or r["cells"] in args.cells)
    ]
    # Most cells first: those jobs take longest, and the end of the run stays busy.
    jobs.sort(key=lambda j: (-j[1], j[0]))
    print(f"{path.name}: {len(won):,} won jobs, {len(done):,} shortened already, {len(jobs):,} to go", flush=True)
    begin = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers) as pool:
        batch: list[dict] = []
        for result in tqdm(pool.imap_unordered(shorten, jobs, chunksize=16), total=len(jobs), unit="job"):
            batch.append(result)
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
            row.update(line)
            if ",shortest=yes" not in row["budgets"]:
                row["budgets"] += ",shortest=yes"
        else:
            row.update(non_foundation_moves=None, shortest_proved=None, shortest_limit=None)
    return write_sorted(rows, path)


if __name__ == "__main__":
    sys.exit(main())

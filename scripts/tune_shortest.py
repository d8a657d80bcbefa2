"""Tunes the beam of `--shortest`: a guide's mean line length over a sample of won deals, and coordinate descent on its weights.

    python scripts/tune_shortest.py --cells 4 --width 300
    python scripts/tune_shortest.py --cells 1 --width 300 --guide 0,2,0,1,10,2,1,6,3,0,3,0 --descend

The sample is `--sample` deals spread evenly over 1..32,000 (the won ones at `--cells`).
For each guide tried it prints the mean length, in moves not to a foundation
(docs/rules.md), of the lines that beams of `--width` find from each deal's plain
solution, with the branch and bound off: the beam alone is what the guide steers.
`--descend` then moves one weight at a time by +-1 while the mean drops, the method
docs/tuning.md names for `GUIDE` and `FEW_CELLS_GUIDE`. The engine's guides are listed
in engine/src/search/shortest/beam.rs, weight by weight in this order.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import statistics

from fcanalyze import _engine
from fcanalyze.game.deals import microsoft_deal
from fcanalyze.game.variant import FREECELL
from fcanalyze.referee.replay import replay
from fcanalyze.solving.solve import engine_variant, solve

WEIGHTS = [
    "lower_bound",
    "out",
    "buried",
    "buried_next",
    "cell",
    "column",
    "disorder",
    "runs",
    "runs_above_next",
    "waiting",
    "parked",
    "deadlocks",
]
# The engine's guides (engine/src/search/shortest/beam.rs), in WEIGHTS order.
GUIDE = (1, 3, 1, 1, 9, 3, 1, 5, 3, 0, 0, 0)
FEW_CELLS_GUIDE = (0, 2, 0, 1, 10, 2, 1, 6, 3, 0, 3, 0)


def won_lines(deals: list[int], cells: int) -> dict[int, list[str]]:
    """Each won deal's plain solution (the search's own line, not shortened)."""
    rules = FREECELL.with_cells(cells)
    lines = {}
    for deal in deals:
        result = solve(deal, variant=rules, max_seconds=30)
        if result.status == "solved":
            lines[deal] = result.solution
    return lines


def length(args: tuple[int, list[str], int, int, tuple[int, ...]]) -> int:
    """The moves not to a foundation of the best line the beam finds for one deal, as the
    referee counts them."""
    deal, line, cells, width, guide = args
    rules = FREECELL.with_cells(cells)
    board = microsoft_deal(deal, rules)
    found, _, _, _ = _engine.shorter_line(
        board.columns, board.cells, board.foundations, engine_variant(rules), line, ([width], list(guide), 0)
    )
    verdict = replay(board, rules, found.split() if found else line)
    assert verdict.won, f"deal {deal}: the beam's line does not win"
    return verdict.non_foundation_moves


def mean_length(lines: dict[int, list[str]], cells: int, width: int, guide: tuple[int, ...], workers: int) -> float:
    jobs = [(deal, line, cells, width, guide) for deal, line in lines.items()]
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        return statistics.fmean(pool.map(length, jobs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=4)
    parser.add_argument("--width", type=int, default=300, help="beam width (default 300)")
    parser.add_argument("--sample", type=int, default=320, help="deals spread over 1..32,000 (default 320)")
    parser.add_argument("--guide", help="twelve comma-separated weights (default: the engine's for these cells)")
    parser.add_argument("--descend", action="store_true", help="coordinate descent from the guide")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    guide = (
        tuple(int(w) for w in args.guide.split(",")) if args.guide else (GUIDE if args.cells >= 3 else FEW_CELLS_GUIDE)
    )
    if len(guide) != len(WEIGHTS):
        parser.error(f"--guide needs {len(WEIGHTS)} weights ({', '.join(WEIGHTS)})")
    step = 32_000 // args.sample
    lines = won_lines(list(range(step // 2 or 1, 32_001, step))[: args.sample], args.cells)
    best = mean_length(lines, args.cells, args.width, guide, args.workers)
    print(f"{len(lines)} won deals at {args.cells} cells, width {args.width}: guide {guide}: mean {best:.3f}")
    improved = args.descend
    while improved:
        improved = False
        for i, name in enumerate(WEIGHTS):
            for delta in (1, -1):
                trial = guide[:i] + (guide[i] + delta,) + guide[i + 1 :]
                mean = mean_length(lines, args.cells, args.width, trial, args.workers)
                print(f"  {name} {guide[i]} -> {trial[i]}: mean {mean:.3f}")
                if mean < best:
                    guide, best, improved = trial, mean, True
                    break
    if args.descend:
        print(f"best guide {','.join(map(str, guide))}: mean {best:.3f}")


if __name__ == "__main__":
    main()

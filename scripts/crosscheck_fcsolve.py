"""Cross-check fcanalyze's verdicts against Freecell Solver's exhaustive single-card preset.

For each deal, runs `fc-solve -l tfts --freecells-num K -mi LIMIT` (Debian
freecell-solver-bin) and fcanalyze.solve, and prints one tab-separated line per
deal: deal, cells, fc-solve's verdict (solved / exhausted / limit), ours, and
whether they conflict. fc-solve's "exhausted" is not a proof (its pruning is not
guaranteed sound) but a solution from it is: fcanalyze calling such a deal
unsolvable would be a bug, and so would fc-solve exhausting a deal we solved.

  python scripts/crosscheck_fcsolve.py --cells 1 --deals 1-200 [--max-iters 2000000]
  python scripts/crosscheck_fcsolve.py --variant seahaven --cells 4 --deals 1-200

Other variants are given to fc-solve as its own games (`--game seahaven_towers`,
`--game eight_off`, `--game bakers_game`), with the board fcanalyze deals, cells
included, in fc-solve's board format.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import fcanalyze
from fcanalyze.game.board import format_board
from fcanalyze.game.deals import microsoft_deal
from fcanalyze.game.variant import Variant

# fc-solve's game for each of our variants (its games set columns, building and what
# fills an empty column; --freecells-num after it sets the cells).
FCSOLVE_GAMES: dict[str, tuple[str, ...]] = {
    "freecell": (),
    "bakers-game": ("--game", "bakers_game"),
    "seahaven": ("--game", "seahaven_towers"),
    "eight-off": ("--game", "eight_off"),
}


def fcsolve_verdict(board_text: str, cells: int, max_iters: int, game: tuple[str, ...] = ()) -> str:
    out = subprocess.run(
        ["fc-solve", *game, "-l", "tfts", "--freecells-num", str(cells), "-mi", str(max_iters), "-"],
        input=board_text,
        capture_output=True,
        text=True,
    ).stdout
    if "This game is solveable." in out:
        return "solved"
    # fc-solve says "could not solve" both when it ran out of states and when it hit
    # the iteration limit; only the first is an (unproven) exhaustion.
    checked = re.search(r"Total number of states checked is (\d+)", out)
    if "I could not solve this game." in out and checked and int(checked.group(1)) < max_iters:
        return "exhausted"
    return "limit"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, required=True)
    parser.add_argument("--deals", default="1-200", help="a range like 1-200")
    parser.add_argument("--max-iters", type=int, default=2_000_000)
    parser.add_argument("--variant", default="freecell", choices=sorted(FCSOLVE_GAMES))
    args = parser.parse_args()
    rules = Variant.parse(args.variant, cells=args.cells)
    lo, hi = map(int, args.deals.split("-"))
    conflicts = 0
    for deal in range(lo, hi + 1):
        board = format_board(microsoft_deal(deal, rules))
        theirs = fcsolve_verdict(board, args.cells, args.max_iters, FCSOLVE_GAMES[args.variant])
        ours = fcanalyze.solve(deal, variant=rules).status
        clash = (theirs == "solved" and ours != "solved") or (theirs == "exhausted" and ours == "solved")
        conflicts += clash
        print(f"{deal}\t{args.variant}\t{args.cells}\t{theirs}\t{ours}\t{'CONFLICT' if clash else 'ok'}", flush=True)
    print(f"# {conflicts} conflicts", flush=True)
    return 1 if conflicts else 0


if __name__ == "__main__":
    sys.exit(main())

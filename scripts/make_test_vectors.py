"""Regenerate tests/data vectors from Freecell Solver (Debian freecell-solver-bin), the peer.

Writes:
  tests/data/fcsolve_deals.txt      deals as make-microsoft-freecell-board -t prints them
  tests/data/fcsolve_solutions.txt  fc-solve -m -snx solutions under several variants

The tests only read these files; they never need fc-solve. Run:
  python scripts/make_test_vectors.py
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def deal_numbers() -> list[int]:
    """Classic deals, the edges of each generator regime, and a seeded random spread."""
    numbers = list(range(1, 41)) + [164, 617, 1941, 11982, 31999, 32000, 32001]
    for edge in (2**31, 2**32):
        numbers += range(edge - 3, edge + 4)
    numbers += range(2**33 - 5, 2**33)
    rng = random.Random(20261130)
    for low, high in ((1, 2**31 - 1), (2**31, 2**32 - 1), (2**32, 2**33 - 1)):
        numbers += sorted(rng.randint(low, high) for _ in range(20))
    return sorted(set(numbers))


def board(number: int) -> str:
    return subprocess.run(
        ["make-microsoft-freecell-board", "-t", str(number)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


# (our variant spec, cells, fc-solve arguments); every run is capped so the script
# finishes in minutes, and a deal fc-solve does not solve within the cap is skipped.
SOLUTION_RUNS = [
    ("freecell", 4, ["-l", "lg"]),
    ("freecell", 4, ["-l", "tfts"]),
    ("freecell", 3, ["--freecells-num", "3", "-l", "lg"]),
    ("freecell", 2, ["--freecells-num", "2", "-l", "lg"]),
    ("freecell", 1, ["--freecells-num", "1", "-l", "tfts"]),
    ("freecell", 0, ["--freecells-num", "0", "-l", "tfts"]),
    ("bakers-game", 4, ["--game", "bakers_game"]),
    ("freecell,empty=kings", 4, ["--empty-stacks-filled-by", "kings"]),
    ("relaxed-freecell", 2, ["--freecells-num", "2", "--sequence-move", "unlimited"]),
]


def solutions(deals: range) -> list[str]:
    rows = []
    for spec, cells, args in SOLUTION_RUNS:
        for number in deals:
            out = subprocess.run(
                ["fc-solve", "-mi", "300000", *args, "-m", "-snx", "-"],
                input=board(number),
                capture_output=True,
                text=True,
            ).stdout
            if "This game is solveable." not in out:
                continue
            body = out.split("-=-=-=-=-=-=-=-=-=-=-=-", 1)[1].split("This game is solveable.")[0]
            moves = " ".join(body.split())
            rows.append(f"{number}\t{spec}\t{cells}\t{' '.join(args)}\t{moves}")
        print(
            f"{spec} {cells} cells: {sum(r.split(chr(9))[1:3] == [spec, str(cells)] for r in rows)} solutions",
            file=sys.stderr,
        )
    return rows


def main() -> None:
    if shutil.which("fc-solve") is None:
        sys.exit("fc-solve not found: apt-get install freecell-solver-bin")
    DATA.mkdir(parents=True, exist_ok=True)
    with open(DATA / "fcsolve_deals.txt", "w") as f:
        f.write("# Microsoft deals from make-microsoft-freecell-board -t N; a line 'deal N' starts each.\n")
        for number in deal_numbers():
            f.write(f"deal {number}\n{board(number)}")
    with open(DATA / "fcsolve_solutions.txt", "w") as f:
        f.write("# deal\tvariant\tcells\tfc-solve arguments\tsolution (fc-solve -m -snx)\n")
        f.write("\n".join(solutions(range(1, 31))) + "\n")


if __name__ == "__main__":
    main()

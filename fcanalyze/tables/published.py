"""Published counts that verdicts are checked against: which Microsoft deals can be won with how many free cells."""

from __future__ import annotations

# Source: the per-deal table of the fewest free cells each of Microsoft deals 1..32,000
# needs, compiled by Theodore Pringle and hosted with Freecell Solver's reports; the
# counts below are its totals, as the project's rules brief gives them ("Published
# facts to check against"). Every deal not counted as winnable is proved unwinnable.
CLASSIC_DEALS = 32_000
WINNABLE_CLASSIC = {4: 31_999, 3: 31_801, 2: 25_381, 1: 6_289, 0: 69}

# Source: Shlomi Fish, Freecell Solver's author, who in 2016 settled with a disk-backed
# solver on a 256 GB machine the 4-cell deals of 1..8,589,934,591 that every solver had
# given up on, and found all nine impossible.
# Used to check the extended range's verdicts (scripts/bench_intractable.py, the
# tests), never as one.
IMPOSSIBLE_EXTENDED_4_CELLS = (
    219837216,
    1252215044,
    2255988055,
    2901685480,
    2902413565,
    4260084873,
    6687921694,
    7489392343,
    6825625742,
)

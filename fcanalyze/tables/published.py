"""Published counts that verdicts are checked against: which Microsoft deals can be won with how many free cells."""

from __future__ import annotations

# Source: the per-deal table of the fewest free cells each of Microsoft deals 1..32,000
# needs, compiled by Theodore Pringle and hosted with Freecell Solver's reports; the
# counts below are its totals, as the project's rules brief gives them ("Published
# facts to check against"). Every deal not counted as winnable is proved unwinnable.
CLASSIC_DEALS = 32_000
WINNABLE_CLASSIC = {4: 31_999, 3: 31_801, 2: 25_381, 1: 6_289, 0: 69}

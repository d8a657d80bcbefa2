"""Rule variants: free cells, columns, how columns build, what fills an empty column, sequence moves, take-back, the layout."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from enum import Enum

from ..errors import VariantError
from ..inputs import quote, whole_number
from .cards import DECK_SIZE

MIN_CELLS, MAX_CELLS = 0, 8
MIN_COLUMNS, MAX_COLUMNS = 4, 10


def check_cell_count(k: int) -> int:
    """A cell count as the commands take it (`--cells`): MIN_CELLS..MAX_CELLS."""
    if isinstance(k, bool) or not isinstance(k, int) or not MIN_CELLS <= k <= MAX_CELLS:
        raise VariantError(f"cell count {k} is out of range: {MIN_CELLS}..{MAX_CELLS}")
    return k


class Build(str, Enum):
    """How a card may be placed on a column."""

    ALTERNATE = "alternate"  # one rank lower, opposite colour (FreeCell)
    SUIT = "suit"  # one rank lower, same suit (Baker's Game)


class EmptyColumn(str, Enum):
    """What may be moved into an empty column."""

    ANY = "any"
    KINGS = "kings"


class SequenceMoves(str, Enum):
    """How many cards may move from column to column in one move."""

    SUPERMOVE = "supermove"  # up to (1 + empty cells) * 2^(empty columns)
    SINGLE = "single"  # one card per move, always
    RELAXED = "relaxed"  # any run, regardless of free space


class Layout(str, Enum):
    """Where the shuffled deck is dealt (deals.microsoft_deal gives the details)."""

    TABLEAU = "tableau"  # all 52 cards round-robin into the columns (FreeCell)
    RESERVE = "reserve"  # columns of equal height, the cards left over into the first cells (Seahaven, Eight Off)


@dataclass(frozen=True)
class Variant:
    """The rules a deal is played under. The defaults are classic FreeCell with 4 cells."""

    cells: int = 4
    columns: int = 8
    build: Build = Build.ALTERNATE
    empty_column: EmptyColumn = EmptyColumn.ANY
    sequence_moves: SequenceMoves = SequenceMoves.SUPERMOVE
    layout: Layout = Layout.TABLEAU
    # The top card of a foundation may be taken back onto a column or into a free cell
    # (the FreeCell Solitaire app, seed 003); docs/rules.md gives its notation.
    takeback: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.cells, int) or not MIN_CELLS <= self.cells <= MAX_CELLS:
            raise VariantError(f"free cells must be {MIN_CELLS}..{MAX_CELLS}, got {quote(self.cells)}")
        if not isinstance(self.columns, int) or not MIN_COLUMNS <= self.columns <= MAX_COLUMNS:
            raise VariantError(f"columns must be {MIN_COLUMNS}..{MAX_COLUMNS}, got {quote(self.columns)}")
        # Accept the plain strings too, so Variant(build="suit") works from Python.
        object.__setattr__(self, "build", _enum(Build, self.build, "build"))
        object.__setattr__(self, "empty_column", _enum(EmptyColumn, self.empty_column, "empty"))
        object.__setattr__(self, "sequence_moves", _enum(SequenceMoves, self.sequence_moves, "moves"))
        object.__setattr__(self, "layout", _enum(Layout, self.layout, "deal"))
        object.__setattr__(self, "takeback", _yes_no(self.takeback, "takeback"))
        if self.dealt_to_cells > self.cells:
            raise VariantError(
                f"{_canonical_name(self)} deals {self.dealt_to_cells} cards into the free cells, so it needs at "
                f"least {self.dealt_to_cells} of them, not {self.cells}"
            )

    @property
    def dealt_to_cells(self) -> int:
        """How many cards the deal puts into the free cells (0 unless the layout is reserve)."""
        return DECK_SIZE % self.columns if self.layout is Layout.RESERVE else 0

    def with_cells(self, cells: int) -> Variant:
        return _with_cells(self, cells)

    @property
    def name(self) -> str:
        """Canonical name of the rules apart from the cell count, e.g. `freecell` or
        `bakers-game,empty=kings`. `Variant.parse(v.name, cells=v.cells)` gives back `v`
        (the name's preset sets only the default cell count: 4, or 8 for eight-off)."""
        return _canonical_name(self)

    def _canonical_name(self) -> str:
        best = None
        for preset, rules in PRESETS.items():
            # A layout is named by its own presets: FreeCell-like rules dealt to the
            # tableau keep the names they had before the reserve presets existed.
            if rules.get("layout", Layout.TABLEAU) is not self.layout:
                continue
            overrides = _overrides(rules, self)
            if best is None or len(overrides) < len(best[1]):
                best = (preset, overrides)
        assert best is not None
        preset, overrides = best
        return ",".join([preset] + [f"{k}={v}" for k, v in overrides])

    def describe(self) -> str:
        cells = "1 free cell" if self.cells == 1 else f"{self.cells} free cells"
        return f"{self.name}, {cells}"

    @classmethod
    def parse(cls, spec: str, cells: int | None = None) -> Variant:
        """A variant from a preset name and optional overrides.

        Examples: `freecell`, `bakers-game`, `relaxed-freecell`, `seahaven`, `eight-off`,
        `freecell,takeback=yes`, `freecell,columns=10,empty=kings`, `build=suit,moves=single`.
        Keys: columns (4..10), build (alternate|suit), empty (any|kings),
        moves (supermove|single|relaxed), deal (tableau|reserve), takeback (yes|no),
        cells (0..8).
        """
        parts = [p.strip() for p in spec.split(",") if p.strip()]
        if not parts:
            raise VariantError("empty variant; try 'freecell' or 'bakers-game'")
        rules: dict[str, object] = dict(PRESETS["freecell"])
        if "=" not in parts[0]:
            preset = parts.pop(0).lower()
            if preset not in PRESETS:
                raise VariantError(
                    f"unknown variant {quote(preset)}; known: {', '.join(PRESETS)}"
                    " (optionally with overrides like ',empty=kings')"
                )
            rules = dict(PRESETS[preset])
        for part in parts:
            key, sep, value = part.partition("=")
            key, value = key.strip().lower(), value.strip().lower()
            field = _KEYS.get(key)
            if not sep or field is None:
                raise VariantError(f"bad variant setting {quote(part)}; use key=value with keys {', '.join(_KEYS)}")
            if field in ("cells", "columns"):
                number = whole_number(value)
                if number is None:
                    raise VariantError(f"{key} must be a whole number, got {quote(value)}")
                rules[field] = number
            else:
                rules[field] = value
        if cells is not None:
            rules["cells"] = cells
        return cls(**rules)  # type: ignore[arg-type]


# A sweep asks for these once per job; a variant is immutable, so each is worked out once.
@functools.lru_cache(maxsize=256)
def _canonical_name(variant: Variant) -> str:
    return variant._canonical_name()


@functools.lru_cache(maxsize=256)
def _with_cells(variant: Variant, cells: int) -> Variant:
    return replace(variant, cells=cells)


def _yes_no(value: object, key: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value in ("yes", "no"):
        return value == "yes"
    raise VariantError(f"{key} must be yes or no, got {quote(value)}")


def _enum(kind, value, key):
    try:
        return kind(value)
    except ValueError:
        allowed = "|".join(m.value for m in kind)
        raise VariantError(f"{key} must be one of {allowed}, got {quote(value)}") from None


_KEYS = {
    "cells": "cells",
    "columns": "columns",
    "build": "build",
    "empty": "empty_column",
    "moves": "sequence_moves",
    "deal": "layout",
    "takeback": "takeback",
}
_KEY_OF_FIELD = {field: key for key, field in _KEYS.items()}

PRESETS: dict[str, dict[str, object]] = {
    "freecell": {},
    "bakers-game": {"build": Build.SUIT},
    "relaxed-freecell": {"sequence_moves": SequenceMoves.RELAXED},
    "single-move-freecell": {"sequence_moves": SequenceMoves.SINGLE},
    # The two games of the rules pages (RULES.md, seeds 002 and 004) dealt as they are
    # played: the cards left over from even columns start in the cells.
    "seahaven": {
        "columns": 10,
        "build": Build.SUIT,
        "empty_column": EmptyColumn.KINGS,
        "layout": Layout.RESERVE,
    },
    "eight-off": {"cells": 8, "build": Build.SUIT, "empty_column": EmptyColumn.KINGS, "layout": Layout.RESERVE},
}


def _overrides(preset_rules: dict[str, object], variant: Variant) -> list[tuple[str, str]]:
    """The key=value settings that turn `preset_rules` into `variant` (cells aside)."""
    base = Variant(**preset_rules)  # type: ignore[arg-type]
    out = []
    for field in ("columns", "build", "empty_column", "sequence_moves", "layout", "takeback"):
        mine, theirs = getattr(variant, field), getattr(base, field)
        if mine != theirs:
            text = ("yes" if mine else "no") if isinstance(mine, bool) else str(getattr(mine, "value", mine))
            out.append((_KEY_OF_FIELD[field], text))
    return out


FREECELL = Variant()

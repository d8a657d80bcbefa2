"""fcanalyze: decide, measure and compare Microsoft FreeCell deals across free-cell counts."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
from typing import TYPE_CHECKING


def _find_engine() -> None:
    """Lets a source tree without a built engine use the installed one.

    Standing in a clone (as the README has you do) puts its `fcanalyze/` folder ahead
    of the installed package on sys.path; only the installed copy holds the compiled
    `_engine`. Adding that copy's folder to this package's path finds it there.
    """
    here = os.path.dirname(os.path.abspath(__file__))
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)

    def has_engine(folder: str) -> bool:
        try:
            return any(name.startswith("_engine") and name.endswith(suffixes) for name in os.listdir(folder))
        except OSError:
            return False

    if has_engine(here):
        return
    for entry in sys.path:
        folder = os.path.join(os.path.abspath(entry or os.curdir), __name__)
        if folder != here and has_engine(folder):
            __path__.append(folder)
            return


_find_engine()

from .lazy import submodule  # noqa: E402 - after the engine's folder is found

# The names below load on first use (PEP 562), so that `import fcanalyze.launch` costs
# next to nothing: the command line can then catch Ctrl-C from its very first moment.
_EXPORTS = {
    "Board": "game.board",
    "format_board": "game.board",
    "parse_board": "game.board",
    "card_text": "game.cards",
    "parse_card": "game.cards",
    "LAST_DEAL": "game.deals",
    "microsoft_deal": "game.deals",
    "BoardError": "errors",
    "DealNumberError": "errors",
    "FcanalyzeError": "errors",
    "NotationError": "errors",
    "VariantError": "errors",
    "SolveResult": "solving.solve",
    "solve": "solving.solve",
    "shortest_line": "solving.solve",
    "FREECELL": "game.variant",
    "Variant": "game.variant",
    "__version__": "_engine",
}

__all__ = [
    "FREECELL",
    "LAST_DEAL",
    "Board",
    "BoardError",
    "DealNumberError",
    "FcanalyzeError",
    "NotationError",
    "SolveResult",
    "Variant",
    "VariantError",
    "__version__",
    "card_text",
    "format_board",
    "microsoft_deal",
    "parse_board",
    "parse_card",
    "shortest_line",
    "solve",
]

ENGINE_MISSING = (
    "fcanalyze's Rust engine (fcanalyze._engine) is not built here. Install with "
    "'pip install .' and run from outside the source tree, or use 'pip install -e .' "
    "to build it in place."
)


# The subpackages, imported on first use too: so that `fcanalyze.dataset.store.read_frame`
# works after a plain `import fcanalyze`, as the docs write such names.
_SUBPACKAGES = frozenset({"cli", "dataset", "game", "referee", "report", "solving", "sweep", "tables"})


def __getattr__(name: str) -> object:
    if name in _SUBPACKAGES:
        return submodule(__name__, name)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'fcanalyze' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}._engine":
            raise
        raise ImportError(ENGINE_MISSING) from e
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBPACKAGES)


if TYPE_CHECKING:
    from ._engine import __version__
    from .errors import BoardError, DealNumberError, FcanalyzeError, NotationError, VariantError
    from .game.board import Board, format_board, parse_board
    from .game.cards import card_text, parse_card
    from .game.deals import LAST_DEAL, microsoft_deal
    from .game.variant import FREECELL, Variant
    from .solving.solve import SolveResult, shortest_line, solve

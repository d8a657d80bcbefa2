"""fcanalyze: decide, measure and compare Microsoft FreeCell deals across free-cell counts."""

try:
    from ._engine import __version__
except ImportError as e:  # pragma: no cover - only without a build
    raise ImportError(
        "fcanalyze's Rust engine (fcanalyze._engine) is not built here. Install with "
        "'pip install .' and run from outside the source tree, or use 'pip install -e .' "
        "to build it in place."
    ) from e
from .board import Board, format_board, parse_board
from .cards import card_text, parse_card
from .deals import LAST_DEAL, microsoft_deal
from .errors import BoardError, DealNumberError, FcanalyzeError, NotationError, VariantError
from .solving import SolveResult, solve
from .variant import FREECELL, Variant

__all__ = [
    "Board",
    "BoardError",
    "DealNumberError",
    "FREECELL",
    "FcanalyzeError",
    "LAST_DEAL",
    "NotationError",
    "Variant",
    "__version__",
    "card_text",
    "format_board",
    "microsoft_deal",
    "parse_board",
    "parse_card",
    "solve",
]

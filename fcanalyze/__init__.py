"""fcanalyze: decide, measure and compare Microsoft FreeCell deals across free-cell counts."""

from ._engine import __version__
from .board import Board, format_board, parse_board
from .cards import card_text, parse_card
from .deals import LAST_DEAL, microsoft_deal
from .errors import BoardError, DealNumberError, FcanalyzeError, NotationError, VariantError
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
]

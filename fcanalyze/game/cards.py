"""Playing cards as small integers, and their text form (`AS`, `TD`, `10D`)."""

from __future__ import annotations

from ..errors import CardError
from ..inputs import quote

# A card is an int 0..51: rank_index * 4 + suit, suits in the order C, D, H, S.
# That is exactly the order of a fresh Microsoft deck (AC AD AH AS 2C ...), so
# the deal generator can use card numbers directly.
SUITS = "CDHS"
RANKS = "A23456789TJQK"
DECK_SIZE = 52

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def make_card(rank: int, suit: int) -> int:
    """The card of `rank` (1 = ace .. 13 = king) and `suit` (0..3, CDHS)."""
    return (rank - 1) * 4 + suit


def card_rank(card: int) -> int:
    """Rank 1 (ace) .. 13 (king)."""
    return card // 4 + 1


def card_suit(card: int) -> int:
    """Suit index 0..3 in the order C, D, H, S."""
    return card % 4


def is_red(card: int) -> bool:
    return card % 4 in (DIAMONDS, HEARTS)


# Lookup tables: the referee calls these in its inner loop.
RANK_OF = tuple(card_rank(c) for c in range(DECK_SIZE))
SUIT_OF = tuple(card_suit(c) for c in range(DECK_SIZE))
RED_OF = tuple(is_red(c) for c in range(DECK_SIZE))


def rank_text(rank: int, ten: str = "T") -> str:
    return ten if rank == 10 else RANKS[rank - 1]


def card_text(card: int, ten: str = "T") -> str:
    """`AS`, `TD` (or `10D` with ten="10"), `KH`."""
    return rank_text(RANK_OF[card], ten) + SUITS[SUIT_OF[card]]


def parse_rank(text: str) -> int:
    """Rank from `A`, `2`..`9`, `T`, `10`, `J`, `Q`, `K` (any case); raises CardError."""
    t = text.upper()
    if t == "10":
        return 10
    if len(t) == 1 and t in RANKS:
        return RANKS.index(t) + 1
    raise CardError(f"unknown rank {quote(text)}")


def parse_card(text: str) -> int:
    """Card from its text, e.g. `AS`, `td`, `10H`; raises CardError naming the text."""
    if len(text) < 2 or text[-1].upper() not in SUITS:
        raise CardError(f"unknown card {quote(text)}")
    try:
        rank = parse_rank(text[:-1])
    except CardError:
        raise CardError(f"unknown card {quote(text)}") from None
    return make_card(rank, SUITS.index(text[-1].upper()))

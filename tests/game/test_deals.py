"""Microsoft deals must match Freecell Solver's generator byte for byte across the whole range."""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from conftest import read_deal_vectors

from fcanalyze import DealNumberError, Variant, format_board, microsoft_deal
from fcanalyze.game.cards import card_text
from fcanalyze.game.deals import LAST_DEAL, parse_deal_number, shuffled_deck

VECTORS = read_deal_vectors()


def test_vectors_cover_every_generator_regime():
    numbers = set(VECTORS)
    assert {1, 617, 11982, 32000} <= numbers
    for edge in (2**31, 2**32):
        assert {edge - 1, edge, edge + 1} <= numbers
    assert LAST_DEAL == 8_589_934_591 and LAST_DEAL in numbers
    assert sum(n >= 2**32 for n in numbers) >= 20
    assert sum(2**31 <= n < 2**32 for n in numbers) >= 20


@pytest.mark.parametrize("number", sorted(VECTORS))
def test_deal_matches_make_microsoft_freecell_board(number):
    assert format_board(microsoft_deal(number)) == VECTORS[number]


def test_deal_one_is_the_shipped_board():
    from conftest import DATA

    assert format_board(microsoft_deal(1)) == (DATA / "ms1.board").read_text()
    assert format_board(microsoft_deal(11982)) == (DATA / "ms11982.board").read_text()


def test_every_deal_is_a_permutation_of_the_deck():
    for number in (1, 2**31 + 5, 2**32 + 5, LAST_DEAL):
        assert sorted(shuffled_deck(number)) == list(range(52))


@pytest.mark.parametrize("bad", [0, -1, LAST_DEAL + 1, 2**40])
def test_out_of_range_numbers_are_refused_not_wrapped(bad):
    with pytest.raises(DealNumberError, match="out of range"):
        microsoft_deal(bad)


@pytest.mark.parametrize(
    "text,number", [("617", 617), ("11,982", 11982), (" 8589934591 ", LAST_DEAL), ("8,589,934,591", LAST_DEAL)]
)
def test_deal_numbers_parse_from_user_text(text, number):
    assert parse_deal_number(text) == number


@pytest.mark.parametrize("text", ["", "abc", "1.5", "1e3", "0x10"])
def test_non_numbers_are_refused(text):
    with pytest.raises(DealNumberError, match="whole number"):
        parse_deal_number(text)


def test_other_column_counts_deal_the_same_deck_round_robin():
    deck = shuffled_deck(617)
    board = microsoft_deal(617, Variant(columns=10, cells=2))
    assert len(board.columns) == 10 and board.cells == [None, None]
    assert [len(c) for c in board.columns] == [6, 6] + [5] * 8
    assert board.columns[3] == deck[3::10]


@pytest.mark.parametrize("number", [1, 617, 11982, 8_589_934_591])
def test_the_reserve_layouts_deal_even_columns_and_the_rest_into_the_first_cells(number):
    deck = shuffled_deck(number)
    seahaven = microsoft_deal(number, Variant.parse("seahaven"))
    assert [len(c) for c in seahaven.columns] == [5] * 10
    assert seahaven.columns[3] == deck[3:50:10]
    assert seahaven.cells == [deck[50], deck[51], None, None]
    eight_off = microsoft_deal(number, Variant.parse("eight-off"))
    assert [len(c) for c in eight_off.columns] == [6] * 8
    assert eight_off.columns[7] == deck[7:48:8]
    assert eight_off.cells == deck[48:] + [None] * 4
    # The classic deal's first 48 cards lie where Eight Off has them.
    classic = microsoft_deal(number)
    assert [c[:6] for c in classic.columns] == eight_off.columns
    # Fewer cells keep the dealt cards; more add empty ones.
    assert microsoft_deal(number, Variant.parse("seahaven", cells=2)).cells == [deck[50], deck[51]]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make-microsoft-freecell-board") is None, reason="needs freecell-solver-bin")
def test_random_deals_across_the_whole_range_match_the_peer():
    rng = random.Random()
    for number in [rng.randint(1, LAST_DEAL) for _ in range(20000)]:
        want = subprocess.run(
            ["make-microsoft-freecell-board", "-t", str(number)], capture_output=True, text=True, check=True
        ).stdout
        assert format_board(microsoft_deal(number)) == want, number


def test_card_text_round_trips():
    from fcanalyze.game.cards import parse_card

    assert [card_text(c) for c in range(4)] == ["AC", "AD", "AH", "AS"]
    for c in range(52):
        assert parse_card(card_text(c)) == c
        assert parse_card(card_text(c, ten="10").lower()) == c

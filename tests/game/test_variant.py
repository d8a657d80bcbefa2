"""Variants: presets, overrides, canonical names, and refusal of impossible settings."""

from __future__ import annotations

import pytest

from fcanalyze import Variant, VariantError
from fcanalyze.game.variant import Build, EmptyColumn, SequenceMoves


def test_default_is_classic_freecell():
    v = Variant()
    assert (v.cells, v.columns, v.build, v.empty_column, v.sequence_moves) == (
        4,
        8,
        Build.ALTERNATE,
        EmptyColumn.ANY,
        SequenceMoves.SUPERMOVE,
    )
    assert v.name == "freecell" and v.describe() == "freecell, 4 free cells"


@pytest.mark.parametrize(
    "spec,name",
    [
        ("freecell", "freecell"),
        ("bakers-game", "bakers-game"),
        ("build=suit", "bakers-game"),
        ("relaxed-freecell", "relaxed-freecell"),
        ("freecell,moves=single", "single-move-freecell"),
        ("bakers-game,empty=kings", "bakers-game,empty=kings"),
        ("freecell,columns=10,empty=kings", "freecell,columns=10,empty=kings"),
        (" Bakers-Game , columns = 6 ", "bakers-game,columns=6"),
        # The reserve games, and the tableau-dealt rules that resemble them: names
        # that datasets hold already must not change.
        ("seahaven", "seahaven"),
        ("build=suit,empty=kings,columns=10,deal=reserve", "seahaven"),
        ("bakers-game,empty=kings,columns=10", "bakers-game,columns=10,empty=kings"),
        ("eight-off", "eight-off"),
        ("eight-off,moves=single", "eight-off,moves=single"),
        ("freecell,deal=reserve,columns=10", "seahaven,build=alternate,empty=any"),
    ],
)
def test_specs_have_a_canonical_name_that_parses_back(spec, name):
    v = Variant.parse(spec)
    assert v.name == name
    assert Variant.parse(v.name) == v


def test_the_reserve_games_rules():
    seahaven, eight_off = Variant.parse("seahaven"), Variant.parse("eight-off")
    assert (seahaven.cells, seahaven.columns, seahaven.dealt_to_cells) == (4, 10, 2)
    assert (eight_off.cells, eight_off.columns, eight_off.dealt_to_cells) == (8, 8, 4)
    for v in (seahaven, eight_off):
        assert v.build is Build.SUIT and v.empty_column is EmptyColumn.KINGS
        assert v.sequence_moves is SequenceMoves.SUPERMOVE
    assert Variant.parse("seahaven", cells=2).cells == 2  # two cards fit two cells
    assert Variant().dealt_to_cells == 0


def test_cells_are_separate_from_the_name():
    v = Variant.parse("bakers-game", cells=2)
    assert v.cells == 2 and v.name == "bakers-game"
    assert Variant.parse("freecell,cells=0").cells == 0
    assert v.with_cells(8).cells == 8


@pytest.mark.parametrize(
    "spec,message",
    [
        ("", "empty variant"),
        ("klondike", "unknown variant 'klondike'"),
        ("freecell,columns=11", "columns must be 4..10"),
        ("freecell,columns=x", "columns must be a whole number"),
        ("freecell,cells=9", "free cells must be 0..8"),
        ("freecell,build=rank", "build must be one of alternate|suit"),
        ("freecell,foo=1", "bad variant setting 'foo=1'"),
        ("freecell,kings", "bad variant setting 'kings'"),
        ("freecell,deal=stock", "deal must be one of tableau|reserve"),
        ("seahaven,cells=1", "seahaven deals 2 cards into the free cells, so it needs at least 2 of them, not 1"),
        ("eight-off,cells=3", "eight-off deals 4 cards into the free cells"),
    ],
)
def test_bad_specs_are_refused(spec, message):
    with pytest.raises(VariantError, match=message):
        Variant.parse(spec)

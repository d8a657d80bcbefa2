"""The referee's rules through real positions: the supermove table, safe moves, wins, move generation."""

from __future__ import annotations

import itertools
import random

import pytest
from positions import CHAIN, full_board

from fcanalyze import Variant, microsoft_deal
from fcanalyze.game.cards import parse_card
from fcanalyze.game.notation import CELL, COLUMN, FOUNDATION, Move, parse_move
from fcanalyze.referee.position import IllegalMove, Position, supermove_limit

# RULES.md's table: empty cells -> limits for (non-empty destination with 0, 1, 2 empty
# columns) and (empty destination with 1, 2 empty columns in all).
SUPERMOVE_TABLE = {
    0: (1, 2, 4, 1, 2),
    1: (2, 4, 8, 2, 4),
    2: (3, 6, 12, 3, 6),
    3: (4, 8, 16, 4, 8),
    4: (5, 10, 20, 5, 10),
}
# (destination empty?, empty columns other than the destination) for each table column.
TABLE_COLUMNS = [(False, 0), (False, 1), (False, 2), (True, 0), (True, 1)]
FILLERS = ["2C", "3D", "4C", "5D"]  # what occupies the cells that are not empty


def table_position(empty_cells: int, dest_empty: bool, other_empty: int, run: int):
    """Column 1 holds KD and then a run of `run` cards from QH down; column 2 holds KC
    (or nothing); `other_empty` further columns are empty; 4 - empty_cells cells are full."""
    filled = FILLERS[: 4 - empty_cells]
    columns = [["KD"] + CHAIN[:run], [] if dest_empty else ["KC"]]
    fillers = 8 - 2 - other_empty
    board = full_board(columns, cells=filled + [None] * empty_cells, fillers=fillers)
    return Position(board, Variant())


@pytest.mark.parametrize("empty_cells", sorted(SUPERMOVE_TABLE))
@pytest.mark.parametrize("table_column", range(5))
def test_supermove_table_cell(empty_cells, table_column):
    dest_empty, other_empty = TABLE_COLUMNS[table_column]
    expected = SUPERMOVE_TABLE[empty_cells][table_column]
    for run in range(1, len(CHAIN) + 1):
        pos = table_position(empty_cells, dest_empty, other_empty, run)
        assert pos.empty_cells() == empty_cells
        assert pos.empty_columns() == other_empty + dest_empty
        assert pos.sequence_move_limit(1) == expected
        move = parse_move(f"12v{run:x}")
        if run <= expected:
            before = [list(c) for c in pos.board.columns]
            assert pos.apply(move).count == run
            assert pos.board.columns[1] == before[1] + before[0][-run:]
        else:
            with pytest.raises(IllegalMove, match=f"the limit is {expected}"):
                pos.apply(move)


@pytest.mark.parametrize("empty_cells,empty_columns", list(itertools.product(range(5), range(3))))
def test_expanded_sequence_moves_reach_the_same_position_one_card_at_a_time(empty_cells, empty_columns):
    for run in range(2, len(CHAIN) + 1):
        pos = table_position(empty_cells, False, empty_columns, run)
        move = parse_move(f"12v{run:x}")
        if run > pos.sequence_move_limit(1):
            continue
        singles = pos.expand(move)
        moves, from_cells = pos.expansion_counts(move, run)
        assert moves == len(singles)
        assert from_cells == sum(s.source_kind == CELL and s.dest_kind == COLUMN for s in singles)
        by_supermove = pos.copy()
        by_supermove.apply(move)
        one_by_one = pos.copy()
        for single in singles:
            assert one_by_one.apply(single).count == 1
        assert one_by_one.board == by_supermove.board
        if run <= empty_cells + 1:
            assert len(singles) == 2 * run - 1


def test_destination_column_is_not_counted_and_single_and_relaxed_rules():
    pos = table_position(4, True, 0, 6)  # 4 cells, the only empty column is the destination
    assert pos.sequence_move_limit(1) == 5
    assert pos.sequence_move_limit(2) == 10  # onto a non-empty column, column 2 counts
    assert supermove_limit(4, 2, Variant(sequence_moves="single")) == 1
    relaxed = Position(table_position(0, False, 0, 12).board, Variant(sequence_moves="relaxed"))
    assert relaxed.apply(parse_move("12vc")).count == 12
    single = Position(table_position(4, False, 2, 2).board, Variant(sequence_moves="single"))
    with pytest.raises(IllegalMove, match="one card at a time"):
        single.apply(parse_move("12v2"))


def test_kings_only_empty_columns():
    variant = Variant(empty_column="kings")
    board = full_board([["KD"] + CHAIN[:3], [], ["2C", "KS"]], cells=[None] * 4, variant=variant, fillers=5)
    pos = Position(board, variant)
    with pytest.raises(IllegalMove, match="only a king may fill empty column 2"):
        pos.apply(parse_move("12"))
    # Empty columns cannot park cards under kings-only, so only the cells count.
    assert pos.sequence_move_limit(0) == 5
    pos.apply(parse_move("32"))
    assert pos.board.columns[1] == [parse_card("KS")]


def _board_with_foundations(foundations, tops):
    return full_board([[t] for t in tops], foundations=foundations)


@pytest.mark.parametrize(
    "foundations,card,safe",
    [
        ({}, "AH", True),
        ({"C": 1, "S": 1, "D": 1}, "2D", True),
        ({"C": 1, "D": 1}, "2D", False),
        ({"C": 1, "S": 1}, "2D", False),  # AD is not home: 2D cannot go at all
        ({"C": 1, "S": 1, "H": 1}, "2H", True),
        ({"H": 4, "C": 4, "S": 4}, "5H", True),
        ({"H": 4, "C": 3, "S": 4}, "5H", False),
        ({"H": 4, "C": 4, "S": 4, "D": 4}, "5S", True),
        ({"H": 3, "D": 4, "S": 4}, "5S", False),  # 4H not home: it may need 5S
        ({"H": 2}, "4H", False),  # not playable at all
        ({"D": 6, "H": 5, "C": 4, "S": 4}, "7D", False),
    ],
)
def test_safe_to_foundation(foundations, card, safe):
    pos = Position(_board_with_foundations(foundations, [card]), Variant())
    assert pos.safe_to_foundation(parse_card(card)) is safe


def test_safe_to_foundation_same_suit_building():
    variant = Variant(build="suit")
    board = full_board([["7D"]], foundations={"D": 6}, variant=variant)
    assert Position(board, variant).safe_to_foundation(parse_card("7D"))
    assert not Position(board, Variant()).safe_to_foundation(parse_card("7D"))


def test_win_is_all_52_home():
    pos = Position(full_board([["KS"]], foundations={"C": 13, "D": 13, "H": 13, "S": 12}), Variant())
    assert not pos.is_won()
    pos.apply(parse_move("1h"))
    assert pos.is_won()
    assert not Position(microsoft_deal(1), Variant()).is_won()


def _every_conceivable_move(variant):
    cols, cells = range(variant.columns), range(variant.cells)
    sources = [(COLUMN, i) for i in cols] + [(CELL, i) for i in cells]
    dests = [(COLUMN, i) for i in cols] + [(CELL, i) for i in cells] + [(FOUNDATION, 0)]
    for (sk, s), (dk, d) in itertools.product(sources, dests):
        for count in [None] + list(range(1, 14)):
            yield Move(sk, s, dk, d, count)


@pytest.mark.parametrize(
    "cells,spec",
    [
        (4, "freecell"),
        (1, "freecell"),
        (0, "freecell"),
        (2, "bakers-game"),
        (4, "freecell,empty=kings"),
        (3, "relaxed-freecell"),
        (2, "single-move-freecell,columns=10"),
    ],
)
def test_generated_moves_are_exactly_the_moves_check_accepts(cells, spec):
    """Along seeded random walks, legal_moves() and check() agree on every conceivable move."""
    variant = Variant.parse(spec, cells=cells)
    rng = random.Random(f"{spec}/{cells}")
    checked = 0
    for deal in (1, 617, 2**32 + 7):
        pos = Position(microsoft_deal(deal, variant), variant)
        for _ in range(60):
            legal = set(pos.legal_moves())
            for move in _every_conceivable_move(variant):
                try:
                    count = pos.check(move)
                except IllegalMove:
                    assert move.count is None or move not in legal, move
                    continue
                assert move.with_count(count) in legal, move
                checked += 1
            if not legal:
                break
            pos.apply(rng.choice(sorted(legal)))
    assert checked >= 100  # the walks really exercised the rules

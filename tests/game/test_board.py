"""Board text: reading, writing, and one precise error per kind of malformed board."""

from __future__ import annotations

import pytest
from conftest import DATA

from fcanalyze import BoardError, Variant, format_board, microsoft_deal, parse_board
from fcanalyze.game.cards import parse_card

MS1 = (DATA / "ms1.board").read_text()


def test_deal_board_round_trips():
    board = parse_board(MS1)
    assert board == microsoft_deal(1)
    assert format_board(board) == MS1


def test_tens_colon_prefixes_and_fc_solve_state_headers_are_accepted():
    text = "Foundations: H-0 C-0 D-0 S-0\nFreecells:  -  -  -  -\n" + "".join(
        ": " + line.replace("T", "10") + "\n" for line in MS1.splitlines()
    )
    assert parse_board(text) == microsoft_deal(1)


def test_midgame_position_round_trips_with_foundations_cells_and_empty_columns():
    text = (
        "Foundations: H-2 C-A D-0 S-K\n"
        "Freecells: 6C - QD -\n"
        "KD QC TC 9H\n"
        ":\n"
        "3H 4H 5H 6H 7H 8H\n"
        "AD 2D 3D 4D 5D 6D 7D\n"
        "8D 9D TD JD\n"
        "KC 2C 3C 4C 5C 7C 8C 9C JC\n"
        "TH KH QH\n"
        "JH\n"
    )
    board = parse_board(text)
    assert board.foundations == [1, 0, 2, 13]  # CDHS
    assert board.cells == [parse_card("6C"), None, parse_card("QD"), None]
    assert board.columns[1] == []
    again = parse_board(format_board(board))
    assert again == board
    assert format_board(board).splitlines()[0] == "Foundations: H-2 C-A D-0 S-K"


def _replace_line(text: str, index: int, new: str) -> str:
    lines = text.splitlines()
    lines[index] = new
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "text,line,message",
    [
        (_replace_line(MS1, 3, "JC 5S QD QH TH QS 6X"), 4, "unknown card '6X'"),
        (_replace_line(MS1, 3, "JC 5S QD QH TH QS 1H"), 4, "unknown card '1H'"),
        (_replace_line(MS1, 4, "5D AD JS 4H 8H 6C 9H"), 5, "9H appears twice (also on line 3)"),
        (_replace_line(MS1, 4, "5D AD JS 4H 8H 6C 6C"), 5, "6C appears twice (earlier on the same line)"),
        ("Freecells: 6S\n" + MS1, 2, "6S appears twice (also on line 1)"),
        (MS1 + "AH\n", 9, "too many columns: this variant has 8"),
        ("Freecells: - - - - 6S\n" + MS1.replace(" 6S\n", "\n"), None, None),
        ("Foundations: H-0 C-2 D-0 S-0\n" + MS1, 1, "AC is on line 7, but the foundation C-2 says it is already home"),
        ("Foundations: H-0 C-0 X-2\n" + MS1, 1, "bad foundation 'X-2'"),
        ("Foundations: H-0 H-2\n" + MS1, 1, "foundation H is given twice"),
        ("Foundations: H-14\n" + MS1, 1, "the rank must be 0..13"),
        ("Foundations: H-0\nFoundations: H-0\n" + MS1, 2, "a second Foundations line"),
        ("Tableau: AS\n" + MS1, 1, "unknown line 'Tableau: AS'"),
        (MS1.replace(" 6S\n", "\n"), None, "1 card(s) missing: 6S"),
        ("\n".join(MS1.splitlines()[:7]) + "\n", None, "6 card(s) missing: 3C 3H 5H 7D 7S TC"),
    ],
)
def test_malformed_boards_name_the_line_and_the_problem(text, line, message):
    if message is None:  # five slots written but one card: packed into the four cells
        assert parse_board(text).cells == [parse_card("6S"), None, None, None]
        return
    with pytest.raises(BoardError) as err:
        parse_board(text, source="b.txt")
    assert err.value.line == line
    assert message in str(err.value)
    assert str(err.value).startswith("b.txt" + (f", line {line}: " if line else ": "))
    assert "\n" not in str(err.value)


def test_more_cards_than_cells_depends_on_the_variant():
    text = "Freecells: 6S 6H\n" + MS1.replace(" 6S\n", "\n").replace(" 6H\n", "\n")
    assert parse_board(text, Variant(cells=2)).cells == [parse_card("6S"), parse_card("6H")]
    with pytest.raises(BoardError, match="2 cards in the free cells, more than the 1 free cells"):
        parse_board(text, Variant(cells=1))
    with pytest.raises(BoardError, match="more than the 0 free cells"):
        parse_board(text, Variant(cells=0))


def test_column_count_comes_from_the_variant():
    board = parse_board(MS1, Variant(columns=10))
    assert len(board.columns) == 10 and board.columns[8:] == [[], []]
    with pytest.raises(BoardError, match="too many columns: this variant has 7"):
        parse_board(MS1, Variant(columns=7))


def test_json_layout():
    layout = microsoft_deal(1).to_json()
    assert layout["columns"][0] == ["JD", "KD", "2S", "4C", "3S", "6D", "6S"]
    assert layout["freecells"] == [None] * 4
    assert layout["foundations"] == {"H": 0, "C": 0, "D": 0, "S": 0}


def _tall_board(column_cards: list[str]) -> str:
    """A board with `column_cards` as its first column and the rest of the deck after."""
    from fcanalyze.game.cards import card_text

    rest = [card_text(c) for c in range(52) if card_text(c) not in column_cards]
    others = [rest[i::7] for i in range(7)]
    return "\n".join(" ".join(col) for col in [column_cards, *others]) + "\n"


def test_columns_that_could_grow_past_the_engines_limit_are_refused(run_cli, tmp_path):
    from fcanalyze.game.cards import card_text

    deck = [card_text(c) for c in range(52)]
    # 26 cards topped by a 2: with the ace of the other colour on top it would be 27.
    low_top = [c for c in deck if c[0] != "2"][:25] + ["2H"]
    path = tmp_path / "tall.board"
    path.write_text(_tall_board(low_top))
    for args in (["board", path], ["solve", "--board", path]):
        result = run_cli(*args)
        assert result.exit_code == 2, result.output
        assert "column 1 holds 26 cards and could grow to 27" in result.output
        assert len(result.output.strip().splitlines()) == 1
    # 14 cards topped by a king can grow to 26: accepted, and the engine decides it.
    king_top = [c for c in deck if c[0] != "K"][:13] + ["KS"]
    path.write_text(_tall_board(king_top))
    assert run_cli("board", path).exit_code == 0
    assert run_cli("solve", "--board", path, "--max-seconds", "5").exit_code in (0, 1, 3)


def test_the_engine_refuses_tall_columns_itself_without_a_panic():
    from fcanalyze import _engine

    columns = [list(range(0, 52, 2)), list(range(1, 52, 2))]  # 26 cards each, topped by kings
    freecell = _engine.Variant(cells=4, columns=8)
    with pytest.raises(ValueError, match="could grow to"):
        _engine.solve(columns[:1] + [[]] * 7, [None] * 4, [0, 0, 0, 0], freecell, _engine.Budgets())
    with pytest.raises(ValueError, match="could grow to"):
        _engine.solve(
            [list(range(27))] + [list(range(27, 52))] + [[]] * 6, [None] * 4, [0, 0, 0, 0], freecell, _engine.Budgets()
        )
    with pytest.raises(ValueError, match=r"cells must be 0\.\.8"):
        _engine.Variant(cells=9, columns=8)
    with pytest.raises(ValueError, match="unknown sequence_moves"):
        _engine.Variant(cells=4, columns=8, sequence_moves="teleport")

"""The engine's exhaustive move set against the referee's legal moves, on real positions.

A proof of unsolvability is only as good as the moves the search tries. The engine
tries each single-card move once per destination kind (the first empty cell, the
first empty column: others give the same position up to order), so after that
normalisation its moves must be exactly the referee's legal single-card moves, less
the ones that cannot change the position (cell to cell, a whole column into an
empty one). Under the relaxed rule, run moves are real moves and must match too.
Under take-back the engine leaves out settled cards (no win needs them back; the
referee's own `settled_heights` says which they are) and cards of no use at once (no
card that fits on one is at a column's top or in a cell, and the card below it is
settled once it is off; into a cell, only the latter counts), and must offer every
other.
"""

from __future__ import annotations

import random

import pytest

from fcanalyze import Variant, _engine, microsoft_deal
from fcanalyze.game.cards import make_card
from fcanalyze.game.notation import CELL, COLUMN, FOUNDATION, parse_move
from fcanalyze.game.variant import SequenceMoves
from fcanalyze.referee.position import Position
from fcanalyze.solving.solve import engine_variant


def engine_moves(pos: Position) -> set:
    v, b = pos.variant, pos.board
    moves = _engine.generate_moves(b.columns, b.cells, b.foundations, engine_variant(v))
    return {normalise(pos, parse_move(m)) for m in moves}


def referee_moves(pos: Position) -> set:
    relaxed = pos.variant.sequence_moves is SequenceMoves.RELAXED
    settled = pos.settled_heights()
    out = set()
    for m in pos.legal_moves():
        if m.source_kind == CELL and m.dest_kind == CELL:
            continue
        if m.source_kind == FOUNDATION and not _takeback_of_use(pos, m, settled):
            continue
        if (
            m.dest_kind == COLUMN
            and m.source_kind == COLUMN
            and not pos.board.columns[m.dest]
            and m.count == len(pos.board.columns[m.source])
        ):
            continue
        if m.count > 1 and not relaxed:
            continue
        out.add(normalise(pos, m))
    return out


def _takeback_of_use(pos: Position, m, settled: list[int]) -> bool:
    """Whether the engine should offer take-back `m`: an unsettled card with a use next."""
    home = pos.board.foundations
    suit = m.source
    if home[suit] <= settled[suit]:
        return False
    card = make_card(home[suit], suit)
    off = pos.copy()
    off.board.foundations[suit] -= 1
    below_may_come_back = off.settled_heights()[suit] < home[suit] - 1
    if m.dest_kind == CELL:
        return below_may_come_back
    ready = [col[-1] for col in pos.board.columns if col] + [c for c in pos.board.cells if c is not None]
    return below_may_come_back or any(pos.fits_on(x, card) for x in ready)


def normalise(pos: Position, m) -> tuple:
    if m.dest_kind == CELL:
        dest = ("a free cell",)
    elif m.dest_kind == COLUMN and not pos.board.columns[m.dest]:
        dest = ("an empty column",)
    else:
        dest = (m.dest_kind, m.dest)
    return (m.source_kind, m.source) + dest + (m.count or 1,)


@pytest.mark.parametrize(
    "spec,cells",
    [
        ("freecell", 4),
        ("freecell", 2),
        ("freecell", 1),
        ("freecell", 0),
        ("bakers-game", 3),
        ("freecell,empty=kings", 4),
        ("relaxed-freecell", 2),
        ("single-move-freecell,columns=10", 3),
        ("freecell,columns=5", 4),
        ("freecell,takeback=yes", 2),
        ("freecell,takeback=yes", 0),
        ("freecell,takeback=yes,empty=kings", 1),
        ("bakers-game,takeback=yes", 3),
    ],
)
def test_engine_tries_every_legal_move(spec, cells):
    variant = Variant.parse(spec, cells=cells)
    rng = random.Random(f"{spec}:{cells}")
    positions = offering_takebacks = 0
    for deal in (1, 617, 11982, 28140, 2**31 + 3, 2**32 + 9, 8589934591):
        pos = Position(microsoft_deal(deal, variant), variant)
        for _ in range(80):
            expected = referee_moves(pos)
            assert engine_moves(pos) == expected, (deal, pos.board)
            positions += 1
            offering_takebacks += any(m[0] == FOUNDATION for m in expected)
            legal = pos.legal_moves()
            if not legal:
                break
            # Half the time a foundation move or a take-back when there is one, so
            # that walks reach positions with cards home to take back.
            rare = [m for m in legal if FOUNDATION in (m.source_kind, m.dest_kind)]
            pos.apply(rng.choice(rare if rare and rng.random() < 0.5 else legal))
    assert positions >= 40  # walks with few cells get stuck sooner
    if variant.takeback and variant.build.value == "alternate":
        assert offering_takebacks >= 10, offering_takebacks

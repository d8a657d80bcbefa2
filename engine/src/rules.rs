//! The rule variant the engine plays: cells, columns, building, empty columns, sequence moves.

use crate::card::Card;

pub const MAX_COLUMNS: usize = 10;
pub const MAX_CELLS: usize = 8;

/// How many cards may move between columns at once.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SequenceMoves {
    /// Up to (1 + empty cells) * 2^(empty columns): shortcuts for single-card moves.
    Supermove,
    /// One card at a time.
    Single,
    /// Any run, regardless of free space: real extra moves, not shortcuts.
    Relaxed,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Rules {
    pub cells: usize,
    pub columns: usize,
    /// Build down in the same suit (Baker's Game) instead of alternating colours.
    pub same_suit: bool,
    /// Only kings may fill an empty column.
    pub kings_only: bool,
    pub sequence_moves: SequenceMoves,
}

impl Rules {
    pub const FREECELL: Rules = Rules {
        cells: 4,
        columns: 8,
        same_suit: false,
        kings_only: false,
        sequence_moves: SequenceMoves::Supermove,
    };

    pub fn with_cells(self, cells: usize) -> Rules {
        Rules { cells, ..self }
    }

    /// Whether `card` may be placed on `onto` in a column.
    #[inline]
    pub fn fits(&self, card: Card, onto: Card) -> bool {
        card.rank() + 1 == onto.rank()
            && if self.same_suit {
                card.suit() == onto.suit()
            } else {
                card.is_red() != onto.is_red()
            }
    }

    /// The cards `card` may be placed on in a column: two, one (same suit) or none (a king).
    #[inline]
    pub fn parents(&self, card: Card) -> impl Iterator<Item = Card> {
        let (rank, suit) = (card.rank(), card.suit());
        let choices: [Option<u8>; 2] = if rank == 13 {
            [None, None]
        } else if self.same_suit {
            [Some(suit), None]
        } else if card.is_red() {
            [Some(0), Some(3)]
        } else {
            [Some(1), Some(2)]
        };
        choices.into_iter().flatten().map(move |s| Card::new(rank + 1, s))
    }

    #[inline]
    pub fn may_fill_empty(&self, card: Card) -> bool {
        !self.kings_only || card.rank() == 13
    }

    /// Largest run that may move between columns; `empty_columns` excludes the destination.
    /// Under kings-only, empty columns cannot hold cards in transit, so only cells count.
    #[inline]
    pub fn sequence_limit(&self, empty_cells: usize, empty_columns: usize) -> usize {
        match self.sequence_moves {
            SequenceMoves::Single => 1,
            SequenceMoves::Relaxed => Card::COUNT,
            SequenceMoves::Supermove if self.kings_only => 1 + empty_cells,
            SequenceMoves::Supermove => (1 + empty_cells) << empty_columns,
        }
    }
}

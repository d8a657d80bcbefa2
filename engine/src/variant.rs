//! The rule variant the engine plays: cells, columns, building, empty columns, sequence moves.

use crate::card::Card;

pub const MAX_COLUMNS: usize = 10;

pub const NO_PARENT: u8 = u8::MAX;

/// Card numbers are (rank - 1) * 4 + suit, suits in CDHS order (D and H red), so a
/// card's parents are the cards four numbers up, of the suits of the other colour
/// (or of its own suit).
const fn parent_table(same_suit: bool) -> [[u8; 2]; Card::COUNT] {
    let mut table = [[NO_PARENT; 2]; Card::COUNT];
    let mut c = 0;
    while c < Card::COUNT - 4 {
        let base = (c - c % 4 + 4) as u8;
        let suit = (c % 4) as u8;
        table[c] = if same_suit {
            [base + suit, NO_PARENT]
        } else if suit == 1 || suit == 2 {
            [base, base + 3]
        } else {
            [base + 1, base + 2]
        };
        c += 1;
    }
    table
}

static ALTERNATE_PARENTS: [[u8; 2]; Card::COUNT] = parent_table(false);
static SAME_SUIT_PARENTS: [[u8; 2]; Card::COUNT] = parent_table(true);

/// The inverse of `parent_table`: the cards that may be placed on each card.
const fn child_table(same_suit: bool) -> [[u8; 2]; Card::COUNT] {
    let parents = parent_table(same_suit);
    let mut table = [[NO_PARENT; 2]; Card::COUNT];
    let mut c = 0;
    while c < Card::COUNT {
        let mut k = 0;
        while k < 2 {
            let p = parents[c][k];
            if p != NO_PARENT {
                let slot = if table[p as usize][0] == NO_PARENT { 0 } else { 1 };
                table[p as usize][slot] = c as u8;
            }
            k += 1;
        }
        c += 1;
    }
    table
}

static ALTERNATE_CHILDREN: [[u8; 2]; Card::COUNT] = child_table(false);
static SAME_SUIT_CHILDREN: [[u8; 2]; Card::COUNT] = child_table(true);

/// A table of card pairs as bit sets (bit c for card number c), for tests on many
/// cards at once.
const fn mask_table(pairs: [[u8; 2]; Card::COUNT]) -> [u64; Card::COUNT] {
    let mut table = [0u64; Card::COUNT];
    let mut c = 0;
    while c < Card::COUNT {
        let mut k = 0;
        while k < 2 {
            if pairs[c][k] != NO_PARENT {
                table[c] |= 1 << pairs[c][k];
            }
            k += 1;
        }
        c += 1;
    }
    table
}

static ALTERNATE_PARENT_MASKS: [u64; Card::COUNT] = mask_table(parent_table(false));
static SAME_SUIT_PARENT_MASKS: [u64; Card::COUNT] = mask_table(parent_table(true));
static ALTERNATE_CHILD_MASKS: [u64; Card::COUNT] = mask_table(child_table(false));
static SAME_SUIT_CHILD_MASKS: [u64; Card::COUNT] = mask_table(child_table(true));
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
pub struct Variant {
    pub cells: usize,
    pub columns: usize,
    /// Build down in the same suit (Baker's Game) instead of alternating colours.
    pub same_suit: bool,
    /// Only kings may fill an empty column.
    pub kings_only: bool,
    pub sequence_moves: SequenceMoves,
    /// The top card of a foundation may be taken back onto a column or into a cell
    /// (the FreeCell Solitaire app's rule). Safe automatic moves then follow the
    /// stricter rule `Position::safe_to_foundation` gives for it.
    pub takeback: bool,
}

impl Variant {
    pub const FREECELL: Variant = Variant {
        cells: 4,
        columns: 8,
        same_suit: false,
        kings_only: false,
        sequence_moves: SequenceMoves::Supermove,
        takeback: false,
    };

    pub fn with_cells(self, cells: usize) -> Variant {
        Variant { cells, ..self }
    }

    /// Whether `card` may be placed on `onto` in a column.
    #[inline]
    pub fn fits(&self, card: Card, onto: Card) -> bool {
        self.fits_number(card.index(), onto.index())
    }

    /// The numbers of the cards the card numbered `card` may be placed on in a
    /// column: two, one (same suit) or none (a king), `NO_PARENT` filling the rest.
    #[inline]
    pub fn parents(&self, card: u8) -> [u8; 2] {
        let table = if self.same_suit { &SAME_SUIT_PARENTS } else { &ALTERNATE_PARENTS };
        table[usize::from(card)]
    }

    /// The numbers of the cards that may be placed on the card numbered `card`: two,
    /// one (same suit) or none (an ace), `NO_PARENT` filling the rest.
    #[inline]
    pub fn children(&self, card: u8) -> [u8; 2] {
        let table = if self.same_suit { &SAME_SUIT_CHILDREN } else { &ALTERNATE_CHILDREN };
        table[usize::from(card)]
    }

    /// `parents` as a bit set (bit c for card number c).
    #[inline]
    pub fn parent_mask(&self, card: u8) -> u64 {
        let table = if self.same_suit { &SAME_SUIT_PARENT_MASKS } else { &ALTERNATE_PARENT_MASKS };
        table[usize::from(card)]
    }

    /// `children` as a bit set (bit c for card number c).
    #[inline]
    pub fn child_mask(&self, card: u8) -> u64 {
        let table = if self.same_suit { &SAME_SUIT_CHILD_MASKS } else { &ALTERNATE_CHILD_MASKS };
        table[usize::from(card)]
    }

    /// `fits` for card numbers: whether the card numbered `card` may go on `onto`.
    #[inline]
    pub fn fits_number(&self, card: u8, onto: u8) -> bool {
        let [a, b] = self.parents(card);
        onto == a || onto == b
    }

    /// Whether a proof under these rules replaces a position whose free cells are full,
    /// with no column empty, and one of whose loose cards (in a cell, or alone in its
    /// column) can only usefully go back onto a column by the position after that move
    /// (`Position::loose_card_return`): not under the take-back rule (whose cards off
    /// the foundations could go on the column) or relaxed runs (whose moves the rule's
    /// test does not look at). Without cells, a card alone in its column still may.
    pub fn loose_card_returns(&self) -> bool {
        !self.takeback && self.sequence_moves != SequenceMoves::Relaxed
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parents_and_children_are_exactly_the_cards_a_card_fits_on_and_that_fit_on_it() {
        for rules in [Variant::FREECELL, Variant { same_suit: true, ..Variant::FREECELL }] {
            for c in 0..Card::COUNT as u8 {
                let card = Card::from_index(c).unwrap();
                // The rule itself: one rank higher, of the other colour (or the same suit).
                let fits = |onto: Card| {
                    card.rank() + 1 == onto.rank()
                        && if rules.same_suit { card.suit() == onto.suit() } else { card.is_red() != onto.is_red() }
                };
                let mut expected: Vec<u8> =
                    (0..Card::COUNT as u8).filter(|&o| fits(Card::from_index(o).unwrap())).collect();
                let mut got: Vec<u8> = rules.parents(c).into_iter().filter(|&p| p != NO_PARENT).collect();
                expected.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, expected, "{card}");
                for o in 0..Card::COUNT as u8 {
                    assert_eq!(rules.fits_number(c, o), fits(Card::from_index(o).unwrap()));
                    assert_eq!(rules.children(o).contains(&c), fits(Card::from_index(o).unwrap()));
                }
            }
        }
    }
}

//! A position in 74 bytes, for the searches that keep one for every node they expand.

use crate::card::Card;
use crate::variant::{MAX_CELLS, MAX_COLUMNS};

use super::{Position, MAX_HEIGHT, NO_CARD};

/// A position in 74 bytes rather than a `Position`'s 282, for the best-first pass, which
/// keeps one for every node it expands: millions, whose pages the kernel must also zero
/// before they are first written. The same cards in the same places: columns and cells
/// keep their real slots, which the solution refers to; the columns' cards lie one
/// column after another in `cards` (52 at most, whatever the variant).
#[derive(Clone, Copy)]
pub struct PackedPosition {
    lens: [u8; MAX_COLUMNS],
    cells: [u8; MAX_CELLS],
    home: [u8; 4],
    cards: [u8; Card::COUNT],
}

impl Position {
    pub fn pack(&self) -> PackedPosition {
        let mut cards = [0u8; Card::COUNT];
        let mut at = 0;
        for col in 0..MAX_COLUMNS {
            let column = self.column(col);
            cards[at..at + column.len()].copy_from_slice(column);
            at += column.len();
        }
        PackedPosition { lens: self.lens, cells: self.cells, home: self.home, cards }
    }
}

impl PackedPosition {
    pub fn unpack(&self) -> Position {
        let mut s = Position {
            cols: [[NO_CARD; MAX_HEIGHT]; MAX_COLUMNS],
            lens: self.lens,
            cells: self.cells,
            home: self.home,
        };
        let mut at = 0;
        for col in 0..MAX_COLUMNS {
            let n = s.len(col);
            s.cols[col][..n].copy_from_slice(&self.cards[at..at + n]);
            at += n;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Variant;

    /// Packing keeps every card in its place: along random walks under several rules,
    /// and on a layout that fills ten columns and eight cells, the unpacked position
    /// equals the original, fingerprint and every column, cell and foundation.
    #[test]
    fn a_packed_position_unpacks_to_the_same_cards_in_the_same_places() {
        assert_eq!(std::mem::size_of::<PackedPosition>(), 74);
        let check = |s: &Position, rules: &Variant| {
            let back = s.pack().unpack();
            assert_eq!(&back, s);
            assert_eq!(back.fingerprint(rules), s.fingerprint(rules));
            assert_eq!(back.home(), s.home());
            for slot in 0..MAX_CELLS {
                assert_eq!(back.cell(slot), s.cell(slot));
            }
        };
        let mut rng = 0xFACE_u64;
        let mut seen = 0;
        for rules in crate::testdata::walk_rules() {
            for _ in 0..10 {
                crate::testdata::random_walk(&rules, 200, &mut rng, |s, _| {
                    check(s, &rules);
                    seen += 1;
                });
            }
        }
        assert!(seen > 200, "{seen}");
        // Every card in play in ten columns and eight cells, one foundation started.
        let wide = Variant { columns: 10, cells: 8, ..Variant::FREECELL };
        let in_play: Vec<u8> = (0..52).filter(|&c| c != 0).collect();
        let (cells, rest) = in_play.split_at(8);
        let columns: Vec<Vec<u8>> = rest.chunks(5).map(<[u8]>::to_vec).collect();
        let cells: Vec<Option<u8>> = cells.iter().map(|&c| Some(c)).collect();
        let s = Position::new(&wide, &columns, &cells, [1, 0, 0, 0]).expect("layout");
        assert_eq!(s.empty_cells(&wide), 0);
        check(&s, &wide);
    }
}

//! The loose card a proof puts back: with every cell full and no column empty, a card that can only usefully go back onto the column end it fits.

use crate::variant::Variant;

use super::{card, Move, Place, Position, NO_CARD};

/// What `Position::loose_card_going_back` looks at: a position's cells and column ends,
/// none of its columns empty.
pub struct ColumnEnds<C, E> {
    /// A bit for each card at the end of a column.
    pub tops: u64,
    /// A bit for each card alone in its column.
    pub alone: u64,
    /// A cell's card.
    pub cell: C,
    /// The column a card ends, if it ends one.
    pub column_ending_in: E,
}

impl Position {
    /// In a proof (under rules where `Variant::loose_card_returns`), with every free
    /// cell full and no column empty: the move that puts a *loose* card x (one in a
    /// cell, or alone in its column, whose place it could go back to) onto a column
    /// whose end card p x fits on, when p can make no move (not home, not onto a card;
    /// the cells are full and no column is empty) and no card but x could be put on p
    /// (none at a column's end or in a cell); a card alone in its column must also be
    /// one that may fill an empty column, and take no card itself (none that fits on it
    /// at a column's end or in a cell). Such a position is replaced by the one this
    /// move leads to, and never stored: whatever it can do, that one can do too, or it
    /// can put x back and then do it (docs/correctness.md, "A loose card goes back",
    /// proves no win is lost). The first such cell, then the lowest such card alone in
    /// its column, then the first column, is taken. None if there is none.
    pub fn loose_card_return(&self, rules: &Variant) -> Option<Move> {
        if self.lens[..rules.columns].contains(&0) || self.cells[..rules.cells].contains(&NO_CARD) {
            return None;
        }
        let (_, from, column) = self.loose_card_going_back(
            rules,
            ColumnEnds {
                tops: self.tops(rules),
                alone: (0..rules.columns).filter(|&i| self.len(i) == 1).fold(0, |bits, i| bits | 1 << self.cols[i][0]),
                cell: |slot| self.cell(slot).map(|c| c.index()),
                column_ending_in: |c| (0..rules.columns).find(|&i| self.column(i).last() == Some(&c)),
            },
        )?;
        Some(Move::new(from, Place::Column(column as u8), 1))
    }

    /// The rule of `loose_card_return` on a view of a position's cells and column ends
    /// (`ColumnEnds`), which the caller has seen to have no empty column; the
    /// foundations are this position's. The search also asks it
    /// about a child not yet played, seen through its parent. Where the loose card is
    /// (a cell, or the column it is alone in) and the column it goes onto: the card, its
    /// place and the column.
    #[inline]
    pub fn loose_card_going_back<C, E>(&self, rules: &Variant, view: ColumnEnds<C, E>) -> Option<(u8, Place, usize)>
    where
        C: Fn(usize) -> Option<u8>,
        E: Fn(u8) -> Option<usize>,
    {
        debug_assert!(rules.loose_card_returns(), "not under take-back or relaxed runs");
        let mut in_cells = 0u64;
        for slot in 0..rules.cells {
            in_cells |= 1 << (view.cell)(slot)?;
        }
        let free = view.tops | in_cells;
        let from_cell = (0..rules.cells).find_map(|slot| {
            let x = (view.cell)(slot)?;
            Some((x, Place::Cell(slot as u8), self.stuck_end_for(rules, x, view.tops, free, &view.column_ending_in)?))
        });
        from_cell.or_else(|| {
            // Cards alone in their columns that may come back into an empty one and take
            // no card.
            let mut alone = view.alone;
            while alone != 0 {
                let x = alone.trailing_zeros() as u8;
                alone &= alone - 1;
                if !rules.may_fill_empty(card(x)) || rules.child_mask(x) & free != 0 {
                    continue;
                }
                let Some(a) = (view.column_ending_in)(x) else { continue };
                if let Some(column) = self.stuck_end_for(rules, x, view.tops, free, &view.column_ending_in) {
                    return Some((x, Place::Column(a as u8), column));
                }
            }
            None
        })
    }

    /// For `loose_card_going_back`: the first column ending in a card x fits on that can
    /// neither move (not home, not onto a card at a column's end, `tops`: the cells are
    /// full and no column is empty) nor take a card but x (none in `free`, the cards at
    /// the columns' ends and in the cells).
    #[inline(always)]
    fn stuck_end_for<E>(&self, rules: &Variant, x: u8, tops: u64, free: u64, column_ending_in: &E) -> Option<usize>
    where
        E: Fn(u8) -> Option<usize>,
    {
        let mut ends = rules.parent_mask(x) & tops;
        let mut first = None;
        while ends != 0 {
            let p = ends.trailing_zeros() as u8;
            ends &= ends - 1;
            let movable = rules.parent_mask(p) & tops != 0 || self.can_go_home(card(p));
            let wanted = rules.child_mask(p) & !(1 << x) & free != 0;
            if movable || wanted {
                continue;
            }
            if let Some(column) = column_ending_in(p) {
                first = Some(first.map_or(column, |f: usize| f.min(column)));
            }
        }
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Card;
    use crate::testdata::columns;
    use crate::variant::Variant;

    #[test]
    fn a_loose_card_goes_back_only_onto_a_card_that_can_neither_move_nor_take_another() {
        // Home: clubs to T, diamonds to the given height, hearts and spades to 9. JH in
        // the cell fits on QS (column 1) and QC (buried under JS in column 3).
        let one_cell = Variant { columns: 4, ..Variant::FREECELL.with_cells(1) };
        let c = |t: &str| Card::parse(t).unwrap().index();
        let at = |rules: &Variant, layout: &str, diamonds: u8| {
            let mut cols = columns(layout);
            cols.resize(rules.columns, vec![]);
            Position::new(rules, &cols, &[Some(c("JH"))], [10, diamonds, 9, 9]).unwrap()
        };
        let back_onto = Move::new(Place::Cell(0), Place::Column(0), 1);
        let back_onto_first = Some(back_onto);
        // QS cannot go home (TS is not), KH is under it, KD home, JD home: JH goes back.
        let s = at(&one_cell, "KH QS\nTH JC KC\nTS QC JS\nKS QH", 13);
        assert_eq!(s.loose_card_return(&one_cell), back_onto_first);
        let mut f = s.clone();
        f.play(back_onto);
        assert_eq!((f.cell(0), f.top(0)), (None, Card::from_index(c("JH"))));
        // KH ends a column: QS could move onto it.
        let s = at(&one_cell, "QS\nTH JC KC\nTS QC JS\nQH KS KH", 13);
        assert_eq!(s.loose_card_return(&one_cell), None);
        // JD ends a column: it could go on QS instead. Buried, it could not.
        let s = at(&one_cell, "KH QS\nKD QD TH JC KC\nTS QC JS\nKS QH JD", 10);
        assert_eq!(s.loose_card_return(&one_cell), None);
        let s = at(&one_cell, "KH QS\nKD QD TH JC KC\nTS QC JS\nKS JD QH", 10);
        assert_eq!(s.loose_card_return(&one_cell), back_onto_first);
        // An empty column: no card goes back, whatever could go there.
        let five = Variant { columns: 5, ..one_cell };
        let s = at(&five, "KH QS\nTH JC KC\nTS QC JS\nKS QH", 13);
        assert_eq!(s.loose_card_return(&five), None);
        let kings_only = Variant { kings_only: true, ..five };
        assert_eq!(s.loose_card_return(&kings_only), None);
        // With no card in the cell there is nothing to put back.
        let mut cols = columns("KH QS JH\nTH JC KC\nTS QC JS\nKS QH");
        cols.resize(4, vec![]);
        let s = Position::new(&one_cell, &cols, &[None], [10, 13, 9, 9]).unwrap();
        assert_eq!(s.loose_card_return(&one_cell), None);
        // Two cells: only when both are full, and not while JD in the other cell could
        // go on QS.
        let two_cells = Variant { columns: 4, ..Variant::FREECELL.with_cells(2) };
        let two = |layout: &str, other: Option<u8>| {
            Position::new(&two_cells, &columns(layout), &[Some(c("JH")), other], [10, 10, 9, 9]).unwrap()
        };
        let s = two("KH QS\nKD QD TH JC KC\nTS QC JS\nJD KS QH", None);
        assert_eq!(s.loose_card_return(&two_cells), None);
        let s = two("KH QS\nKD QD TH JC KC\nTS QC JS\nKS QH", Some(c("JD")));
        assert_eq!(s.loose_card_return(&two_cells), None);
        let s = two("KH QS\nQD TH JC KC\nTS QC JS\nJD KS QH", Some(c("KD")));
        assert_eq!(s.loose_card_return(&two_cells), back_onto_first);
    }

    #[test]
    fn a_card_alone_in_its_column_goes_back_only_if_it_takes_no_card_and_may_come_back() {
        // No cells. Home: clubs to T, diamonds to the given height, hearts and spades to
        // 9. JH is alone in column 4; it fits on QS (column 1), which cannot move (KH is
        // under it, KD is home) and takes no other card (JD is home).
        let no_cells = Variant { columns: 4, ..Variant::FREECELL.with_cells(0) };
        let c = |t: &str| Card::parse(t).unwrap().index();
        let at = |rules: &Variant, layout: &str, diamonds: u8| {
            Position::new(rules, &columns(layout), &[], [10, diamonds, 9, 9]).unwrap()
        };
        let back_onto = Move::new(Place::Column(3), Place::Column(0), 1);
        let back_onto_first = Some(back_onto);
        let s = at(&no_cells, "KH QS\nTH JC KC\nTS QC JS KS QH\nJH", 13);
        assert_eq!(s.loose_card_return(&no_cells), back_onto_first);
        let mut f = s.clone();
        f.play(back_onto);
        assert_eq!((f.len(3), f.top(0)), (0, Card::from_index(c("JH"))));
        // Under kings only JH could not come back into the empty column it leaves.
        let kings_only = Variant { kings_only: true, ..no_cells };
        assert_eq!(s.loose_card_return(&kings_only), None);
        // TS ends a column and could go on JH: JH stays.
        let s = at(&no_cells, "KH QS\nTH JC KC\nQC JS KS QH TS\nJH", 13);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // JH is not alone: under it lies QC, which it fits on, but that place is kept.
        let s = at(&no_cells, "KH QS\nTH JC KC\nTS JS KS QH\nQC JH", 13);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // KH ends a column: QS could move onto it.
        let s = at(&no_cells, "QS\nTH JC KC\nTS QC JS QH KS KH\nJH", 13);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // JD ends a column and could go on QS.
        let s = at(&no_cells, "KH QS\nKD QD TH JC KC\nTS QC JS KS QH JD\nJH", 10);
        assert_eq!(s.loose_card_return(&no_cells), None);
        // With a cell, only when it is full (JS there goes nowhere: QH may move onto KC).
        let one_cell = Variant { columns: 4, ..Variant::FREECELL.with_cells(1) };
        let cols = columns("KH QS\nTH JC KC\nTS QC JS KS QH\nJH");
        let s = Position::new(&one_cell, &cols, &[None], [10, 13, 9, 9]).unwrap();
        assert_eq!(s.loose_card_return(&one_cell), None);
        let s = Position::new(&one_cell, &cols, &[Some(c("JS"))], [10, 13, 9, 9]);
        assert!(s.is_err(), "JS is in a column already");
        let cols = columns("KH QS\nTH JC KC\nTS QC KS QH\nJH");
        let s = Position::new(&one_cell, &cols, &[Some(c("JS"))], [10, 13, 9, 9]).unwrap();
        assert_eq!(s.loose_card_return(&one_cell), back_onto_first);
    }
}

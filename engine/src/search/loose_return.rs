//! The loose card a proof puts back, as the depth-first pass plays it and, for a child not yet played, as it foresees it.

use crate::card::Card;
use crate::position::{ColumnEnds, Move, Place, Played, Position};
use crate::variant::Variant;

/// Puts a loose card of `child`, just played, back onto a column if one has to go
/// (`Position::loose_card_return`), adding the move to `played`; whether one did.
/// Nothing follows it automatically: the card was not safe to send home where it was,
/// no foundation has changed, and it uncovers no card (it was in a cell, or alone in
/// its column), so no card has become safe.
pub(super) fn return_loose_card(child: &mut Position, rules: &Variant, played: &mut Vec<Played>) -> bool {
    let r = child.loose_card_return(rules);
    if let Some(r) = r {
        played.push(child.play(r));
    }
    r.is_some()
}

/// A position's column ends, worked out once for all its children (`quiet_return`).
pub(super) struct Ends {
    tops: u64,
    /// The cards alone in their columns.
    alone: u64,
    /// The column each card ends (u8::MAX: none).
    column_ending_in: [u8; Card::COUNT],
    empty_columns: usize,
    free_cells: usize,
    /// The cards the cell cards and the cards alone in their columns fit on: a child
    /// with none of them at a column's end puts no card back (`quiet_return`).
    wanted: u64,
}

impl Ends {
    /// `state`'s column ends; `free_cells` are its empty cells, which the caller has counted.
    pub(super) fn of(state: &Position, rules: &Variant, free_cells: usize) -> Ends {
        let mut ends = Ends {
            tops: 0,
            alone: 0,
            column_ending_in: [u8::MAX; Card::COUNT],
            empty_columns: 0,
            free_cells,
            wanted: 0,
        };
        for i in 0..rules.columns {
            match state.column(i).last() {
                Some(&c) => {
                    ends.tops |= 1 << c;
                    if state.len(i) == 1 {
                        ends.alone |= 1 << c;
                    }
                    ends.column_ending_in[usize::from(c)] = i as u8;
                }
                None => ends.empty_columns += 1,
            }
        }
        let mut loose = ends.alone;
        for slot in 0..rules.cells {
            if let Some(c) = state.cell(slot) {
                loose |= 1 << c.index();
            }
        }
        while loose != 0 {
            ends.wanted |= rules.parent_mask(loose.trailing_zeros() as u8);
            loose &= loose - 1;
        }
        ends
    }
}

/// The loose card, where it is (a cell, or the column it is alone in) and the column it
/// goes back onto (`Position::loose_card_return`) in the child a single-card move `m`
/// with no automatic move after it leads to from `state` (whose column ends are
/// `ends`), seen through `state` without playing `m`. None if no card of the child goes
/// back, or if `m` is no such move.
pub(super) fn quiet_return(state: &Position, rules: &Variant, m: Move, ends: &Ends) -> Option<(u8, Place, usize)> {
    // A card leaving a cell leaves it free; the rule wants every cell full.
    let Place::Column(from) = m.from else { return None };
    if m.count != 1 || matches!(m.to, Place::Foundation(_) | Place::Home) {
        return None;
    }
    let from = usize::from(from);
    let column = state.column(from);
    let moved = column[column.len() - 1];
    let uncovered = column.len().checked_sub(2).map(|k| column[k]);
    let (into_cell, to) = match m.to {
        Place::Cell(slot) => (Some(usize::from(slot)), None),
        Place::Column(j) => (None, Some(usize::from(j))),
        _ => return None,
    };
    // Every cell of the child must be full: the move fills the last free one, or none is free.
    if ends.free_cells != usize::from(into_cell.is_some()) {
        return None;
    }
    let covered = to.and_then(|j| state.column(j).last().copied());
    // And no column of the child may be empty.
    if ends.empty_columns + usize::from(uncovered.is_none()) != usize::from(to.is_some() && covered.is_none()) {
        return None;
    }
    // The child's column ends, and the cards alone in its columns: the moved card
    // leaves its column, uncovering the card below it (alone if it was the first),
    // and covers a card (alone no more), fills an empty column (where it is alone), or
    // goes into a cell. `wanted` gains the cards a card made loose fits on.
    let (mut tops, mut alone, mut wanted) = (ends.tops & !(1 << moved), ends.alone & !(1 << moved), ends.wanted);
    if let Some(u) = uncovered {
        tops |= 1 << u;
        if column.len() == 2 {
            alone |= 1 << u;
            wanted |= rules.parent_mask(u);
        }
    }
    match (to, covered) {
        (Some(_), Some(c)) => {
            tops = tops & !(1 << c) | 1 << moved;
            alone &= !(1 << c);
        }
        (Some(_), None) => {
            tops |= 1 << moved;
            alone |= 1 << moved;
            wanted |= rules.parent_mask(moved);
        }
        (None, _) => wanted |= rules.parent_mask(moved),
    }
    // No card a loose card of the child fits on ends a column: none goes back (the
    // parent's loose cards, and the card the move makes loose, cover the child's).
    if wanted & tops == 0 {
        return None;
    }
    state.loose_card_going_back(
        rules,
        ColumnEnds {
            tops,
            alone,
            cell: |slot| if Some(slot) == into_cell { Some(moved) } else { state.cell(slot).map(|c| c.index()) },
            column_ending_in: |c| {
                if c == moved {
                    to
                } else if Some(c) == uncovered {
                    Some(from)
                } else if Some(c) == covered {
                    None
                } else {
                    Some(usize::from(ends.column_ending_in[usize::from(c)])).filter(|&i| i != usize::from(u8::MAX))
                }
            },
        },
    )
}

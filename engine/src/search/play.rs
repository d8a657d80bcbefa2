//! Playing a move with the safe foundation moves after it, taking moves back, and the one move every proving search skips.

use crate::position::{Move, Place, Played, Position};
use crate::variant::Variant;

/// Plays `m` and the safe foundation moves after it on `child`; `played` becomes what
/// `undo_to(child, played, 0)` takes back.
pub(super) fn play_with_autoplay(child: &mut Position, rules: &Variant, m: Move, played: &mut Vec<Played>) {
    played.clear();
    played.push(child.play(m));
    child.autoplay_after(rules, m, played);
}

pub(super) fn undo_to(state: &mut Position, played: &mut Vec<Played>, len: usize) {
    while played.len() > len {
        let p = played.pop().unwrap_or_else(|| unreachable!());
        state.undo(p);
    }
}

/// Drops from `moves` the single-card moves, to a column or cell, of the card that
/// `into` (the moves into this position) moved, when that move was all that happened
/// (no automatic foundation move followed) and went from a column or cell to a column
/// or cell. The searches that prove (the exhaustive pass and the complete best-first
/// strategies) use this: moving a card from A to B and then on to C reaches nothing
/// that moving it straight from A to C (or leaving it at A) does not, and the parent
/// tries that move. Why that loses no position is argued in docs/correctness.md ("The
/// card just moved").
pub(super) fn leave_card_just_moved(moves: &mut Vec<Move>, into: &[Played]) {
    if let [p] = into {
        if p.m.count == 1 && is_cell_or_column(p.m.from) && is_cell_or_column(p.m.to) {
            moves.retain(|m| !(m.from == p.m.to && m.count == 1 && is_cell_or_column(m.to)));
        }
    }
}

fn is_cell_or_column(place: Place) -> bool {
    matches!(place, Place::Column(_) | Place::Cell(_))
}

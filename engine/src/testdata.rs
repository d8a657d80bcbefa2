//! Layouts shared by the engine's unit tests.

use crate::card::Card;
use crate::moves::generate;
use crate::position::{fmix64, Move, Position};
use crate::variant::Variant;

/// Microsoft deal 1, one column a line.
pub const MS1: &str = "JD KD 2S 4C 3S 6D 6S\n2D KC KS 5C TD 8S 9C\n9H 9S 9D TS 4S 8D 2H\n\
                       JC 5S QD QH TH QS 6H\n5D AD JS 4H 8H 6C\n7H QC AS AC 2C 3D\n\
                       7C KH AH 4D JH 8C\n5H 3H 3C 7S 7D TC";

/// Microsoft deal 11982, the one 4-cell deal of 1..32,000 that cannot be won.
pub const MS11982: &str = "AH 3D KD JC 6C JD KC\nAS 3H 6H 5D 2C 7D 8D\n4H QS 5S 5C TH 8H 2S\n\
                           AC QC 4D 8C QH 9C 3S\n2D 8S 9H 9D 6D 2H\n6S 7H JH TD TC QD\n\
                           TS AD 9S KH 4S 4C\nJS KS 3C 7C 7S 5H";

/// Microsoft deal 26063, lost with 1 cell after a proof of tens of millions of positions.
pub const MS26063: &str = "3D 8C 5S 6S JH 8H 8D\n3S 5H KD TH TC KC 4C\n7S QH 7H 7C TS 4H 4S\n\
                           QC 5C 2S 2C AC 4D KH\n3C 9S 6D 8S AH 7D\nAD 5D QD QS TD 6H\n\
                           2H 9D 9C 2D JC AS\n9H JD JS KS 3H 6C";

/// Card numbers per column from text like `MS1`.
pub fn columns(text: &str) -> Vec<Vec<u8>> {
    text.lines().map(|l| l.split_whitespace().map(|t| Card::parse(t).expect("a card").index()).collect()).collect()
}

/// The rules the random-walk tests go through: FreeCell with 4, 1 and 0 cells, and
/// same-suit building, kings only in empty columns and take-back with 2.
pub fn walk_rules() -> [Variant; 6] {
    [
        Variant::FREECELL,
        Variant::FREECELL.with_cells(1),
        Variant::FREECELL.with_cells(0),
        Variant { same_suit: true, ..Variant::FREECELL.with_cells(2) },
        Variant { kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { takeback: true, ..Variant::FREECELL.with_cells(2) },
    ]
}

/// A random walk of at most `steps` moves (runs of several cards among them) under
/// `rules` from deal 1, which `visit` sees at each step with its moves before one is
/// taken; `rng` is the walk's state, drawn on from call to call.
pub fn random_walk(rules: &Variant, steps: usize, rng: &mut u64, mut visit: impl FnMut(&Position, &[Move])) {
    let mut s = Position::new(&Variant::FREECELL, &columns(MS1), &[None; 4], [0; 4]).expect("deal 1");
    let mut moves = vec![];
    for _ in 0..steps {
        moves.clear();
        generate(&s, rules, true, &mut moves);
        if moves.is_empty() {
            return;
        }
        visit(&s, &moves);
        *rng = fmix64(rng.wrapping_add(0x9E37_79B9_7F4A_7C15));
        let m = moves[(*rng >> 8) as usize % moves.len()];
        let mut played = vec![s.play(m)];
        s.autoplay_after(rules, m, &mut played);
    }
}

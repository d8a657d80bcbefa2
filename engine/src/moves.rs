//! Move generation: every move that can lead somewhere new, up to column and cell symmetry.

use crate::card::Card;
use crate::position::{Move, Place, Position};
use crate::variant::{SequenceMoves, Variant, NO_PARENT};

/// Appends the moves worth trying from `s` to `out`.
///
/// Single-card moves are always generated, so the search stays complete over them.
/// With `sequences`, runs of several cards are added too: as shortcuts under the
/// supermove rule (within its limit), and as the genuinely extra moves they are
/// under the relaxed rule, where they are always generated.
///
/// Of several empty cells, or several empty columns, only the first is a destination:
/// the others lead to positions that differ only in the order of cells or columns,
/// which the canonical fingerprint treats as the same position. Moving a whole column
/// into an empty one is skipped for the same reason.
pub fn generate(s: &Position, rules: &Variant, sequences: bool, out: &mut Vec<Move>) {
    home_moves(s, rules, out);
    play_moves(s, rules, sequences, false, out);
}

/// Appends the moves to the foundations.
pub fn home_moves(s: &Position, rules: &Variant, out: &mut Vec<Move>) {
    for i in 0..rules.columns {
        if let Some(&c) = s.column(i).last() {
            if s.can_go_home(card(c)) {
                out.push(Move::new(Place::Column(i as u8), Place::Home, 1));
            }
        }
    }
    for slot in 0..rules.cells {
        if let Some(c) = s.cell(slot) {
            if s.can_go_home(c) {
                out.push(Move::new(Place::Cell(slot as u8), Place::Home, 1));
            }
        }
    }
}

/// Appends every move `generate` would except those to the foundations. With
/// `keep_runs`, moves that break up a run (the deepest card moved lies on a card it
/// may be built on) are left out, and so are cards taken back off the foundations:
/// they rarely help, which passes that prove nothing may exploit.
///
/// Under the take-back rule, the top card of a foundation may come back onto a column
/// or into a cell, unless it is settled or of no use at once (`takeback_moves`).
pub fn play_moves(s: &Position, rules: &Variant, sequences: bool, keep_runs: bool, out: &mut Vec<Move>) {
    let sequences = sequences || rules.sequence_moves == SequenceMoves::Relaxed;
    let ncols = rules.columns;

    // One look at every column and cell: which column each card tops (a move onto a
    // card is found by looking up the cards a moving card may go on, not by trying
    // every pair of columns), and the free space.
    let mut column_topped_by = [u8::MAX; Card::COUNT];
    let (mut first_empty_col, mut empty_cols) = (None, 0);
    for i in 0..ncols {
        match s.column(i).last() {
            Some(&c) => column_topped_by[usize::from(c)] = i as u8,
            None => {
                first_empty_col = first_empty_col.or(Some(i));
                empty_cols += 1;
            }
        }
    }
    let first_cell = s.first_empty_cell(rules);
    let empty_cells = s.empty_cells(rules);

    // Column to column.
    let limit_onto_card = rules.sequence_limit(empty_cells, empty_cols);
    let limit_into_empty = rules.sequence_limit(empty_cells, empty_cols.saturating_sub(1));
    for src in 0..ncols {
        let cards = s.column(src);
        if cards.is_empty() {
            continue;
        }
        // Runs longer than either limit cannot move whole, so need not be measured.
        let run = if sequences { s.run_length_up_to(rules, src, limit_onto_card.max(limit_into_empty)) } else { 1 };
        let breaks_run = |k: usize| {
            keep_runs && k < cards.len() && rules.fits_number(cards[cards.len() - k], cards[cards.len() - k - 1])
        };
        // With `keep_runs`, only the whole run may move: any part of it lies on a card
        // it fits on. (The whole run breaks one too when a limit cut its measure short.)
        let fewest = if keep_runs { run } else { 1 };
        // Onto a card: each card of the movable run has at most two cards to go on.
        for k in fewest..=run.min(limit_onto_card) {
            if breaks_run(k) {
                continue;
            }
            for parent in rules.parents(cards[cards.len() - k]) {
                let dst = if parent == NO_PARENT { u8::MAX } else { column_topped_by[usize::from(parent)] };
                if dst != u8::MAX {
                    out.push(Move::new(Place::Column(src as u8), Place::Column(dst), k as u8));
                }
            }
        }
        // Into the first empty column.
        if let Some(dst) = first_empty_col {
            let most = run.min(limit_into_empty).min(cards.len() - 1);
            for k in fewest..=most {
                if !breaks_run(k) && rules.may_fill_empty(card(cards[cards.len() - k])) {
                    out.push(Move::new(Place::Column(src as u8), Place::Column(dst as u8), k as u8));
                }
            }
        }
    }

    // Cell to column: onto the columns its parents top, or into the first empty one.
    for slot in 0..rules.cells {
        let Some(c) = s.cell(slot) else { continue };
        for parent in rules.parents(c.index()) {
            if parent != NO_PARENT && column_topped_by[usize::from(parent)] != u8::MAX {
                out.push(Move::new(Place::Cell(slot as u8), Place::Column(column_topped_by[usize::from(parent)]), 1));
            }
        }
        if let Some(dst) = first_empty_col {
            if rules.may_fill_empty(c) {
                out.push(Move::new(Place::Cell(slot as u8), Place::Column(dst as u8), 1));
            }
        }
    }

    if rules.takeback && !keep_runs {
        takeback_moves(s, rules, &column_topped_by, first_empty_col, first_cell, out);
    }

    // Column to a cell.
    if let Some(slot) = first_cell {
        for src in 0..ncols {
            let cards = s.column(src);
            let breaks_run =
                keep_runs && cards.len() >= 2 && rules.fits_number(cards[cards.len() - 1], cards[cards.len() - 2]);
            if !cards.is_empty() && !breaks_run {
                out.push(Move::new(Place::Column(src as u8), Place::Cell(slot as u8), 1));
            }
        }
    }
}

/// Cards taken back off the foundations: onto a card, into the first empty column, or
/// into the first empty cell. A card is taken back only if it is not settled and if it
/// can be *used* at once: a card that fits on it is at the top of a column or in a cell
/// (so it can go on it next), or the card below it on its foundation is not settled
/// once it is off (so that card can come back next). Into a cell, only the second use
/// is possible. docs/correctness.md proves both rules lose no win, in positions where
/// every safe foundation move has been made (as the search's are): that is what rules
/// out a chain of take-backs ending in a card that could have gone home safely.
fn takeback_moves(
    s: &Position,
    rules: &Variant,
    column_topped_by: &[u8; Card::COUNT],
    first_empty_col: Option<usize>,
    first_cell: Option<usize>,
    out: &mut Vec<Move>,
) {
    let settled = s.settled_heights(rules);
    for suit in 0..4u8 {
        let height = s.home()[usize::from(suit)];
        if height == settled[usize::from(suit)] {
            continue;
        }
        let c = (height - 1) * 4 + suit;
        let mut lower = s.home();
        lower[usize::from(suit)] -= 1;
        let below_may_come_back = crate::position::settled_heights(lower, rules)[usize::from(suit)] < height - 1;
        let child_ready = rules.children(c).into_iter().any(|x| {
            x != NO_PARENT
                && (column_topped_by[usize::from(x)] != u8::MAX
                    || (0..rules.cells).any(|slot| s.cell(slot).is_some_and(|y| y.index() == x)))
        });
        let from = Place::Foundation(suit);
        if child_ready || below_may_come_back {
            for parent in rules.parents(c) {
                if parent != NO_PARENT && column_topped_by[usize::from(parent)] != u8::MAX {
                    out.push(Move::new(from, Place::Column(column_topped_by[usize::from(parent)]), 1));
                }
            }
            if let Some(dst) = first_empty_col {
                if rules.may_fill_empty(card(c)) {
                    out.push(Move::new(from, Place::Column(dst as u8), 1));
                }
            }
        }
        if let (Some(slot), true) = (first_cell, below_may_come_back) {
            out.push(Move::new(from, Place::Cell(slot as u8), 1));
        }
    }
}

#[inline]
fn card(c: u8) -> Card {
    Card::from_index(c).unwrap_or_else(|| unreachable!("no card {c}"))
}

/// Whether `m` is a move `generate` gives from `s` (with runs), or the same move to
/// another empty cell or column than the first: a line the engine wrote, read back.
pub fn is_legal(s: &Position, rules: &Variant, m: Move) -> bool {
    let mut legal = Vec::with_capacity(64);
    generate(s, rules, true, &mut legal);
    let empty = |p: Place| match p {
        Place::Cell(i) => usize::from(i) < rules.cells && s.cell(usize::from(i)).is_none(),
        Place::Column(i) => usize::from(i) < rules.columns && s.len(usize::from(i)) == 0,
        Place::Home | Place::Foundation(_) => false,
    };
    legal.contains(&m)
        || empty(m.to)
            && legal.iter().any(|l| {
                l.from == m.from
                    && l.count == m.count
                    && matches!((l.to, m.to), (Place::Cell(_), Place::Cell(_)) | (Place::Column(_), Place::Column(_)))
                    && empty(l.to)
            })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{columns, MS1};

    fn names(moves: &[Move]) -> Vec<String> {
        let mut v: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn deal_one_opening_moves() {
        let rules = Variant::FREECELL;
        let s = Position::new(&rules, &columns(MS1), &[None; 4], [0; 4]).unwrap();
        let mut out = vec![];
        generate(&s, &rules, true, &mut out);
        // Onto a card: 6H? no. 8C on 9? 9 tops: 9C (col 2) is black; 8H would fit, not 8C.
        // Tops: 6S 9C 2H 6H 6C 3D 8C TC. Red 8s/9s absent at tops: no column moves.
        // So: eight moves to cell a and nothing else.
        assert_eq!(names(&out), vec!["1a", "2a", "3a", "4a", "5a", "6a", "7a", "8a"]);
    }

    #[test]
    fn runs_move_as_one_within_the_limit_and_only_first_empty_targets() {
        let rules = Variant::FREECELL;
        // Column 1 holds a run 9S 8H 7C; column 2 is topped by TH; columns 7 and 8 are empty.
        let mut c = columns(
            "KD 9S 8H 7C\nAS TH\n2S 3S 4S 5S 6S 7S 8S TS JS QS KS\n\
                          AH 2H 3H 4H 5H 6H 7H 9H JH QH KH\nAC 2C 3C 4C 5C 6C 8C 9C TC JC QC KC\n\
                          AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD",
        );
        c.resize(8, vec![]);
        let s = Position::new(&rules, &c, &[None; 4], [0; 4]).unwrap();
        let mut out = vec![];
        generate(&s, &rules, true, &mut out);
        let names = names(&out);
        assert!(names.contains(&"12v3".to_string()), "{names:?}");
        // Into the first empty column only (column 7), 1..3 cards of the run.
        for k in ["17", "17v2", "17v3"] {
            assert!(names.contains(&k.to_string()), "{k} missing from {names:?}");
        }
        assert!(!names.iter().any(|n| n.starts_with("18")));
        // Singles only: 12v3 is not generated, 17C to column 2 does not fit.
        let mut singles = vec![];
        generate(&s, &rules, false, &mut singles);
        assert!(singles.iter().all(|m| m.count == 1));
        assert!(!crate::moves::tests::names(&singles).contains(&"12v3".to_string()));
    }

    #[test]
    fn keep_runs_leaves_out_exactly_the_run_breaking_moves() {
        let rules = Variant::FREECELL.with_cells(2);
        let mut s = Position::new(&rules, &columns(MS1), &[None; 2], [0; 4]).unwrap();
        let mut rng = 0x5EED_u64;
        for _ in 0..300 {
            let (mut all, mut kept) = (vec![], vec![]);
            generate(&s, &rules, true, &mut all);
            home_moves(&s, &rules, &mut kept);
            play_moves(&s, &rules, true, true, &mut kept);
            let breaks_run = |m: &Move| match m.from {
                Place::Column(i) => {
                    let cards = s.column(usize::from(i));
                    let lead = cards.len() - usize::from(m.count);
                    lead >= 1 && rules.fits(card(cards[lead]), card(cards[lead - 1]))
                }
                _ => false,
            };
            let expected: Vec<Move> = all.iter().copied().filter(|m| m.to == Place::Home || !breaks_run(m)).collect();
            assert_eq!(kept, expected);
            if all.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s.apply(all[(rng >> 33) as usize % all.len()]);
        }
    }

    #[test]
    fn kings_only_and_same_suit_rules() {
        let rules = Variant { kings_only: true, same_suit: true, ..Variant::FREECELL };
        let mut c = columns(
            "QD KS\nJD\nAS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS\n\
                          AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH\nAC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC\n\
                          AD 2D 3D 4D 5D 6D 7D 8D 9D TD KD",
        );
        c.resize(8, vec![]);
        let s = Position::new(&rules, &c, &[None; 4], [0; 4]).unwrap();
        let mut out = vec![];
        generate(&s, &rules, true, &mut out);
        let names = names(&out);
        assert!(names.contains(&"17".to_string()), "KS may fill an empty column");
        assert!(!names.contains(&"27".to_string()), "JD may not");
        assert!(!names.contains(&"21".to_string()), "JD does not go on KS");
    }
}

//! Differential tests: the engine's search against a plain exhaustive one on small positions.
//!
//! The plain search tries every single-card move, foundation moves included, with no
//! automatic moves and no other shortcut than merging positions by canonical
//! fingerprint. Whatever the engine prunes (safe autoplay, its passes' orders and
//! caps) must never change a verdict, so on positions small enough to exhaust both
//! ways the two must agree, for several rule variants.

use std::collections::HashSet;

use crate::moves::generate;
use crate::position::Position;
use crate::search::{solve, Budget, Status};
use crate::variant::{SequenceMoves, Variant};

/// Every position reachable from `s`, depth first, until a win; None if more than
/// `limit` positions would be needed.
fn plain_search(start: &Position, rules: &Variant, limit: usize) -> Option<bool> {
    let mut seen = HashSet::new();
    let mut stack = vec![start.clone()];
    seen.insert(start.fingerprint(rules));
    let mut moves = vec![];
    while let Some(s) = stack.pop() {
        if s.is_won() {
            return Some(true);
        }
        moves.clear();
        // Single cards, except under the relaxed rule where runs are moves of their own.
        generate(&s, rules, false, &mut moves);
        for &m in &moves {
            let mut child = s.clone();
            child.apply(m);
            if seen.insert(child.fingerprint(rules)) {
                if seen.len() > limit {
                    return None;
                }
                stack.push(child);
            }
        }
    }
    Some(false)
}

/// A random position: suits home up to random ranks, the other cards dealt at random
/// into the rules' columns, with one card in a cell when there is a cell.
fn random_position(rules: &Variant, rng: &mut u64) -> Position {
    let mut next = |n: u64| {
        *rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*rng >> 33) % n
    };
    let home: [u8; 4] = std::array::from_fn(|_| 6 + next(5) as u8);
    let mut cards: Vec<u8> = (0..52u8).filter(|&c| c / 4 + 1 > home[usize::from(c % 4)]).collect();
    for i in (1..cards.len()).rev() {
        cards.swap(i, next(i as u64 + 1) as usize);
    }
    let mut cells = vec![None; rules.cells];
    if rules.cells > 0 {
        cells[0] = cards.pop();
    }
    let mut columns = vec![vec![]; rules.columns];
    for (i, c) in cards.into_iter().enumerate() {
        columns[i % rules.columns].push(c);
    }
    Position::new(rules, &columns, &cells, home).expect("a consistent layout")
}

#[test]
fn the_engine_agrees_with_the_plain_search_on_small_positions() {
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 4, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Single, ..Variant::FREECELL.with_cells(1) },
    ];
    let mut rng = 0x000D_1FF5_EED5_u64;
    for rules in variants {
        let (mut won, mut lost) = (0, 0);
        for _ in 0..120 {
            let start = random_position(&rules, &mut rng);
            let Some(plain) = plain_search(&start, &rules, 300_000) else { continue };
            let engine = solve(&start, &rules, Budget::default(), &mut || false);
            let expected = if plain { Status::Solved } else { Status::Unsolvable };
            assert_eq!(engine.status, expected, "{rules:?}\n{start:?}");
            if plain {
                won += 1
            } else {
                lost += 1
            }
        }
        // The positions must exercise both verdicts, or the test proves little.
        assert!(won >= 10 && lost >= 10, "{rules:?}: {won} won, {lost} lost");
    }
}

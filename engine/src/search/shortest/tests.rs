//! The shortest line held to a plain breadth-first search: on small random positions, the lower bound never exceeds the fewest costed moves to a win, and the proof finds exactly that many.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;

use crate::card::Card;
use crate::differential::every_takeback;
use crate::moves::generate;
use crate::position::{Place, Position};
use crate::search::meter::Meter;
use crate::search::Budget;
use crate::variant::{SequenceMoves, Variant};

use super::bound::{blocked_runs, lower_bound};
use super::proof::branch_and_bound;
use super::{cost, shorter_line, Effort, GUIDE};

/// Positions reachable from a random small position, past which a case is skipped.
const MAX_STATES: usize = 60_000;

/// Every position reachable from `root` by any move (no automatic ones; under take-back,
/// every card back from every foundation), and for each
/// the fewest moves not to a foundation that win from it (None: no win). None if there
/// are more than MAX_STATES.
fn fewest_costed_moves(root: &Position, rules: &Variant) -> Option<(Vec<Position>, Vec<Option<u32>>)> {
    let mut index: HashMap<u128, usize> = HashMap::new();
    let mut positions = vec![root.clone()];
    // For each position, the positions one move before it and that move's cost.
    let mut before: Vec<Vec<(usize, u32)>> = vec![vec![]];
    index.insert(root.fingerprint(rules), 0);
    let mut next = 0;
    let mut moves = vec![];
    while next < positions.len() {
        let s = positions[next].clone();
        moves.clear();
        // Under take-back, every foundation's top card back to every place it may go,
        // not only the take-backs the engine generates.
        if rules.takeback {
            every_takeback(&s, rules, &mut moves);
        }
        generate(&s, &Variant { takeback: false, ..*rules }, true, &mut moves);
        for &m in &moves {
            let mut child = s.clone();
            child.apply(m);
            let fp = child.fingerprint(rules);
            let at = *index.entry(fp).or_insert_with(|| {
                positions.push(child);
                before.push(vec![]);
                positions.len() - 1
            });
            before[at].push((next, u32::from(m.to != Place::Home)));
        }
        if positions.len() > MAX_STATES {
            return None;
        }
        next += 1;
    }
    // Backwards from the won positions, moves of cost 0 first (a 0-1 breadth-first search).
    let mut fewest: Vec<Option<u32>> = vec![None; positions.len()];
    let mut queue = VecDeque::new();
    for (i, s) in positions.iter().enumerate() {
        if s.is_won() {
            fewest[i] = Some(0);
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let d = fewest[i].unwrap_or_else(|| unreachable!("queued with a distance"));
        for &(j, cost) in &before[i] {
            if fewest[j].is_none_or(|f| d + cost < f) {
                fewest[j] = Some(d + cost);
                if cost == 0 {
                    queue.push_front(j);
                } else {
                    queue.push_back(j);
                }
            }
        }
    }
    Some((positions, fewest))
}

/// A random small position: each suit's lowest cards home (so 8 to 16 cards in play),
/// the rest shuffled into the columns and cells.
fn small_position() -> impl Strategy<Value = (Variant, Position)> {
    let rules = prop_oneof![
        (0usize..=4).prop_map(|cells| Variant::FREECELL.with_cells(cells)),
        (0usize..=2).prop_map(|cells| Variant { same_suit: true, ..Variant::FREECELL.with_cells(cells) }),
        (0usize..=2).prop_map(|cells| Variant { kings_only: true, ..Variant::FREECELL.with_cells(cells) }),
        (0usize..=1).prop_map(|cells| Variant {
            sequence_moves: SequenceMoves::Relaxed,
            ..Variant::FREECELL.with_cells(cells)
        }),
        (0usize..=2).prop_map(|cells| Variant { takeback: true, ..Variant::FREECELL.with_cells(cells) }),
        // Take-back beside each other rule: the settled cards and the safe moves differ
        // with same-suit building, and an empty column's rule changes what a take-back opens.
        (0usize..=2, 0usize..3).prop_map(|(cells, other)| {
            let rules = Variant { takeback: true, ..Variant::FREECELL.with_cells(cells) };
            match other {
                0 => Variant { same_suit: true, ..rules },
                1 => Variant { kings_only: true, ..rules },
                _ => Variant { sequence_moves: SequenceMoves::Relaxed, ..rules },
            }
        }),
    ];
    // Foundations shrink toward 11 (fewer cards in play), the deal toward sorted order,
    // and each card's place toward the first column.
    (rules, proptest::array::uniform4(0u8..=2))
        .prop_flat_map(|(rules, below)| {
            let home = below.map(|b| 11 - b);
            let cards: Vec<u8> = (0..52u8)
                .filter(|&c| Card::from_index(c).is_some_and(|k| k.rank() > home[usize::from(k.suit())]))
                .collect();
            let places = proptest::collection::vec(0..rules.columns + rules.cells, cards.len());
            (Just(rules), Just(home), Just(cards).prop_shuffle(), places)
        })
        .prop_filter_map("a layout the rules can hold", |(rules, home, cards, places)| {
            let mut columns = vec![vec![]; rules.columns];
            let mut cells = vec![None; rules.cells];
            for (c, place) in cards.into_iter().zip(places) {
                match cells.get_mut(place.wrapping_sub(rules.columns)) {
                    Some(cell @ None) => *cell = Some(c),
                    _ => columns[place % rules.columns].push(c),
                }
            }
            Position::new(&rules, &columns, &cells, home).ok().map(|s| (rules, s))
        })
}

/// The lower bound is at most the fewest costed moves to a win from every position
/// reachable from `root`, and the stronger bound at least the weaker.
fn the_bound_holds(rules: &Variant, root: &Position) -> TestCaseResult {
    let Some((positions, fewest)) = fewest_costed_moves(root, rules) else { return Ok(()) };
    for (s, fewest) in positions.iter().zip(&fewest) {
        if let Some(fewest) = *fewest {
            let (weak, strong) = (blocked_runs(s, rules), lower_bound(s, rules));
            prop_assert!(weak <= strong, "{s:?}");
            prop_assert!(strong <= fewest, "bound {strong} above {fewest} for {s:?} under {rules:?}");
        }
    }
    Ok(())
}

/// The branch and bound finds a line of exactly the fewest costed moves from `root`,
/// legal and winning, and proves that none is shorter.
fn the_proof_is_exact(rules: &Variant, root: &Position) -> TestCaseResult {
    let Some((_, fewest)) = fewest_costed_moves(root, rules) else { return Ok(()) };
    let Some(optimum) = fewest[0] else { return Ok(()) };
    // The proof plays safe foundation moves at once, as every search does: that must
    // cost no line its length.
    let mut start = root.clone();
    start.autoplay(rules, &mut vec![]);
    let mut never = || false;
    let mut meter = Meter::new(Budget::default(), Instant::now(), &mut never);
    let found = branch_and_bound(&start, rules, optimum + 1, 0, &mut meter);
    prop_assert!(found.stopped.is_none());
    let Some((line, cost)) = found.line else { return Err(TestCaseError::fail(format!("no line of {optimum}"))) };
    prop_assert_eq!(cost, optimum);
    prop_assert_eq!(super::cost(&line), optimum);
    let mut s = start.clone();
    for &m in &line {
        prop_assert!(crate::moves::is_legal(&s, rules, m), "{m} is not legal");
        s.apply(m);
    }
    prop_assert!(s.is_won());
    // Below the optimum there is nothing, and the search says it has proved so.
    let none = branch_and_bound(&start, rules, optimum, 0, &mut meter);
    prop_assert!(none.line.is_none() && none.stopped.is_none());
    Ok(())
}

/// The search for the shortest line, begun from any winning line the plain search
/// finds, at every size of proof from none to ample: its lower bound never exceeds the
/// fewest costed moves, its line is never below the bound, it says proved exactly when
/// the two meet, and with ample positions it proves the optimum.
fn the_interval_holds(rules: &Variant, root: &Position) -> TestCaseResult {
    let Some((_, fewest)) = fewest_costed_moves(root, rules) else { return Ok(()) };
    let Some(optimum) = fewest[0] else { return Ok(()) };
    let found = crate::search::solve(root, rules, Budget::default(), &mut || false);
    prop_assert_eq!(found.status, crate::search::Status::Solved);
    let known = found.solution;
    for proof_nodes in [0, 1, 10, 100, 1_000_000] {
        let effort = Effort { widths: vec![4], guide: GUIDE, proof_nodes };
        let mut never = || false;
        let mut meter = Meter::new(Budget::default(), Instant::now(), &mut never);
        let shortest = shorter_line(root, rules, &known, &effort, &mut meter);
        let line = shortest.line.unwrap_or_else(|| known.clone());
        let bound = shortest.bound;
        prop_assert!(bound <= optimum, "bound {bound} above the optimum {optimum} at {proof_nodes} positions");
        prop_assert!(optimum <= cost(&line) && bound <= cost(&line));
        prop_assert_eq!(shortest.proved, bound == cost(&line));
        prop_assert_eq!(shortest.limit.is_none(), shortest.proved || proof_nodes == 0);
        if proof_nodes == 1_000_000 {
            prop_assert!(shortest.proved && cost(&line) == optimum);
        }
        let mut s = root.clone();
        for &m in &line {
            prop_assert!(crate::moves::is_legal(&s, rules, m), "{m} is not legal");
            s.apply(m);
        }
        prop_assert!(s.is_won());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn the_shortest_lines_interval_holds_the_optimum_at_every_size_of_proof((rules, root) in small_position()) {
        the_interval_holds(&rules, &root)?;
    }

    #[test]
    fn the_lower_bound_never_exceeds_the_fewest_costed_moves_to_a_win((rules, root) in small_position()) {
        the_bound_holds(&rules, &root)?;
    }

    #[test]
    fn the_proof_finds_exactly_the_fewest_costed_moves((rules, root) in small_position()) {
        the_proof_is_exact(&rules, &root)?;
    }
}

/// A position proptest once shrank a failure to, kept as a case of its own: ten cards
/// in play and no free cell.
#[test]
fn the_bound_and_the_proof_hold_on_a_position_that_once_failed() {
    let rules = Variant::FREECELL.with_cells(0);
    let columns = [vec![48, 47], vec![], vec![49, 44], vec![42, 45], vec![], vec![50], vec![46, 40, 51], vec![43, 38]];
    let start = Position::new(&rules, &columns, &[], [10, 11, 9, 10]).expect("a consistent layout");
    the_bound_holds(&rules, &start).expect("the bound holds");
    the_proof_is_exact(&rules, &start).expect("the proof is exact");
    the_interval_holds(&rules, &start).expect("the interval holds");
}

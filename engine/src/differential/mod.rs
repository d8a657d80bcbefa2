//! Differential tests: the engine's search against a plain exhaustive one on small positions that proptest draws and shrinks.
//!
//! The plain search tries every single-card move, foundation moves included (and under
//! the take-back rule every card that may come back off a foundation, to every column
//! it may go on), with no automatic moves and no other shortcut than merging positions
//! by canonical fingerprint. Whatever the engine prunes (safe autoplay, settled cards
//! never taken back, its passes' orders and caps) must never change a verdict, so on
//! positions small enough to exhaust both ways the two must agree, for several rule
//! variants.

use std::cell::Cell;
use std::collections::HashSet;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed, TestCaseResult, TestRunner};

use crate::card::Card;
use crate::moves::generate;
use crate::position::{Move, Place, Position};
use crate::search::{
    breadth_first_applies, complete_best_first, exhaustive_pass, exhaustive_pass_returning, prove_layered, settle_pass,
    solve, Budget, Limit, Schedule, Spill, Status, BREADTH_FIRST, DEFERRED, ON_THREADS, SENT_BREADTH_FIRST,
};
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
        // The engine's take-back moves leave settled cards out, so they are written out
        // here instead: every foundation's top card, to every place it may go.
        // They come first so that they are popped last: a win is usually found before
        // the many positions they open up are.
        if rules.takeback {
            every_takeback(&s, rules, &mut moves);
        }
        generate(&s, &Variant { takeback: false, ..*rules }, false, &mut moves);
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

/// Every move taking a card back off a foundation: onto any column whose top card it
/// fits on, into any empty column it may fill, and into the first free cell.
pub(crate) fn every_takeback(s: &Position, rules: &Variant, out: &mut Vec<Move>) {
    for suit in 0..4u8 {
        let height = s.home()[usize::from(suit)];
        if height == 0 {
            continue;
        }
        let c = Card::from_index((height - 1) * 4 + suit).expect("a card");
        for i in 0..rules.columns {
            let lands = match s.top(i) {
                Some(onto) => rules.fits(c, onto),
                None => rules.may_fill_empty(c),
            };
            if lands {
                out.push(Move::new(Place::Foundation(suit), Place::Column(i as u8), 1));
            }
        }
        if let Some(slot) = s.first_empty_cell(rules) {
            out.push(Move::new(Place::Foundation(suit), Place::Cell(slot as u8), 1));
        }
    }
}

/// Small positions under `rules`, as proptest draws them: each suit home up to a rank
/// from `lowest` to `lowest + span - 1`, the other cards dealt in a random order into the
/// columns, with one in a cell when there is a cell. A failing position shrinks toward
/// fewer cards in play (higher foundations) and the cards nearer their sorted order.
fn positions(rules: Variant, lowest: u8, span: u8) -> impl Strategy<Value = Position> {
    let highest = lowest + span - 1;
    proptest::array::uniform4(0..span)
        .prop_flat_map(move |below| {
            let home: [u8; 4] = below.map(|b| highest - b);
            let cards: Vec<u8> = (0..52u8).filter(|&c| c / 4 + 1 > home[usize::from(c % 4)]).collect();
            (Just(home), Just(cards).prop_shuffle())
        })
        .prop_map(move |(home, mut cards)| {
            let mut cells = vec![None; rules.cells];
            if rules.cells > 0 {
                cells[0] = cards.pop();
            }
            let mut columns = vec![vec![]; rules.columns];
            for (i, c) in cards.into_iter().enumerate() {
                columns[i % rules.columns].push(c);
            }
            Position::new(&rules, &columns, &cells, home).expect("a consistent layout")
        })
}

/// Holds `check` on `cases` positions from `strategy`, as proptest runs a property: a
/// failing position is shrunk to a smaller one before it is reported, and its seed kept
/// in `proptest-regressions/differential/<name>.txt`, whose cases run first from then
/// on. The seed is fixed: every run draws the same positions, so that the tests' counts
/// of won and lost positions are the same each time.
fn check_positions<S: Strategy>(
    name: &str,
    seed: u64,
    cases: u32,
    strategy: S,
    check: impl Fn(&S::Value) -> TestCaseResult,
) {
    let file: &'static str = Box::leak(format!("proptest-regressions/differential/{name}.txt").into_boxed_str());
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(file))),
        max_shrink_iters: 2_000,
        ..Config::default()
    };
    if let Err(failure) = TestRunner::new(config).run(&strategy, |start| check(&start)) {
        panic!("{name}: {failure}");
    }
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
        Variant { columns: 4, takeback: true, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, takeback: true, kings_only: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, takeback: true, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant {
            columns: 4,
            takeback: true,
            sequence_moves: SequenceMoves::Relaxed,
            ..Variant::FREECELL.with_cells(0)
        },
    ];
    for (i, rules) in variants.into_iter().enumerate() {
        let (won, lost) = (Cell::new(0), Cell::new(0));
        check_positions("engine_agrees", 0x000D_1FF5_EED5 + i as u64, 120, positions(rules, 6, 5), |start| {
            let Some(plain) = plain_search(start, &rules, 300_000) else { return Ok(()) };
            let engine = solve(start, &rules, Budget::default(), &mut || false);
            let expected = if plain { Status::Solved } else { Status::Unsolvable };
            prop_assert_eq!(engine.status, expected, "{:?}", rules);
            let count = if plain { &won } else { &lost };
            count.set(count.get() + 1);
            Ok(())
        });
        // The positions must exercise both verdicts, or the test proves little.
        let (won, lost) = (won.get(), lost.get());
        assert!(won >= 10 && lost >= 10, "{rules:?}: {won} won, {lost} lost");
    }
}

#[test]
fn takeback_wins_positions_lost_without_it_and_the_engine_finds_those_wins() {
    // The same random positions with and without take-back: some are won only with it
    // (so the take-back moves and the settled-card rule are exercised), none the other
    // way round, and the engine agrees with the plain search on each. Foundations from
    // 5 to 11 leave room for cards worth taking back (they were tuned to give dozens).
    for base in [
        Variant { columns: 5, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(1) },
    ] {
        let takeback = Variant { takeback: true, ..base };
        let (won, lost, only_with_takeback) = (Cell::new(0), Cell::new(0), Cell::new(0));
        check_positions("takeback_wins", 0x7AC3_BAC3, 200, positions(base, 5, 7), |start| {
            let (Some(plain), Some(with)) =
                (plain_search(start, &base, 100_000), plain_search(start, &takeback, 100_000))
            else {
                return Ok(());
            };
            prop_assert!(with || !plain, "won without take-back but lost with it");
            let engine = solve(start, &takeback, Budget::default(), &mut || false);
            prop_assert_eq!(engine.status, if with { Status::Solved } else { Status::Unsolvable });
            only_with_takeback.set(only_with_takeback.get() + usize::from(with && !plain));
            let count = if with { &won } else { &lost };
            count.set(count.get() + 1);
            Ok(())
        });
        let (won, lost, only_with_takeback) = (won.get(), lost.get(), only_with_takeback.get());
        assert!(won >= 10 && lost >= 10, "{base:?}: {won} won, {lost} lost");
        assert!(only_with_takeback >= 5, "{base:?}: only {only_with_takeback} positions need take-back");
    }
}

#[test]
fn a_position_whose_shortest_wins_use_one_move_for_two_takebacks_is_won() {
    // From the independent review of docs/correctness.md: no shortest win here follows
    // each take-back at once by its use (one move uses two take-backs), which an earlier
    // statement of Claim 3 assumed. The engine must still find a win.
    let rules = Variant { columns: 4, takeback: true, ..Variant::FREECELL.with_cells(0) };
    let columns = crate::testdata::columns("JS KC QS\nTS KH JC\nQC 6S KS\n8S 7S 9S");
    let start = Position::new(&rules, &columns, &[], [10, 13, 12, 5]).expect("a consistent layout");
    assert_eq!(plain_search(&start, &rules, 1_000_000), Some(true));
    assert_eq!(plain_search(&start, &Variant { takeback: false, ..rules }, 1_000_000), Some(false));
    assert_eq!(solve(&start, &rules, Budget::default(), &mut || false).status, Status::Solved);
}

#[test]
fn leaving_the_card_just_moved_alone_stores_exactly_the_same_positions() {
    // The exhaustive pass and the complete best-first strategy do not move the card
    // just moved on again by itself (docs/correctness.md, "The card just moved"). That
    // prunes moves, never positions: on a lost position, where each visits everything
    // reachable, each must store the very same number of positions either way, and
    // agree with the plain search.
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
    ];
    for (i, rules) in variants.into_iter().enumerate() {
        let (won, lost) = (Cell::new(0), Cell::new(0));
        check_positions("card_just_moved", 0x1A57_CA4D + i as u64, 150, positions(rules, 6, 5), |start| {
            let Some(plain) = plain_search(start, &rules, 300_000) else { return Ok(()) };
            let expected = if plain { Status::Solved } else { Status::Unsolvable };
            let mut stored_by_pass = vec![];
            // The exhaustive pass here stores the positions whose loose card has to go
            // back too, as best-first does (the next test covers leaving them out).
            let exhaustive =
                |start: &Position, rules: &Variant, rest| exhaustive_pass_returning(start, rules, rest, false);
            for pass in [exhaustive, complete_best_first] {
                let (resting, stored_resting) = pass(start, &rules, true);
                let (moving, stored_moving) = pass(start, &rules, false);
                prop_assert_eq!((resting, moving), (expected, expected), "{:?}", rules);
                if !plain {
                    prop_assert_eq!(stored_resting, stored_moving, "{:?}", rules);
                }
                stored_by_pass.push(stored_resting);
            }
            // The exhaustive pass stores positions when it first generates them and
            // expands them later (docs/correctness.md, "Stored when first generated"):
            // on a lost position it must still reach all that best-first, in its quite
            // different order, reaches.
            if !plain {
                prop_assert_eq!(stored_by_pass[0], stored_by_pass[1], "{:?}", rules);
            }
            let count = if plain { &won } else { &lost };
            count.set(count.get() + 1);
            Ok(())
        });
        let (won, lost) = (won.get(), lost.get());
        assert!(won >= 10 && lost >= 10, "{rules:?}: {won} won, {lost} lost");
    }
}

#[test]
fn putting_a_loose_card_back_loses_no_win() {
    // With every free cell full and no column empty, the exhaustive pass replaces a
    // position with a loose card (in a cell, or alone in its column) that fits on a
    // column's end card which can neither move nor take another card by the position
    // with the card put there (docs/correctness.md, "A loose card goes back"). That
    // prunes positions: the verdict must still be the plain search's, with the card
    // just moved left alone or not, and a lost position must store no more than without
    // the rule, and across the positions of each variant fewer. Positions with many
    // cards in play, for long lines where the rule comes up again and again. Without
    // cells only a card alone in its column goes back, so the last variants hold that
    // part of the rule to the plain search on its own.
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 6, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Single, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 4, same_suit: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(3) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 6, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 6, same_suit: true, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 6, sequence_moves: SequenceMoves::Single, ..Variant::FREECELL.with_cells(0) },
    ];
    for (i, rules) in variants.into_iter().enumerate() {
        assert!(rules.loose_card_returns());
        let (won, lost, stored_with, stored_without) = (Cell::new(0), Cell::new(0), Cell::new(0), Cell::new(0));
        // Half with foundations from 3 (about 30 cards in play), half from 5.
        let fuller = prop_oneof![positions(rules, 3, 4), positions(rules, 5, 4)];
        check_positions("loose_card_back", 0x0CE1_1CA2_D000 + i as u64, 300, fuller, |start| {
            let Some(plain) = plain_search(start, &rules, 400_000) else { return Ok(()) };
            let expected = if plain { Status::Solved } else { Status::Unsolvable };
            let (with, with_stored) = exhaustive_pass_returning(start, &rules, true, true);
            let (with_moving, with_moving_stored) = exhaustive_pass_returning(start, &rules, false, true);
            let (without, without_stored) = exhaustive_pass_returning(start, &rules, true, false);
            prop_assert_eq!((with, with_moving, without), (expected, expected, expected), "{:?}", rules);
            if plain {
                won.set(won.get() + 1);
            } else {
                prop_assert_eq!(with_stored, with_moving_stored, "{:?}", rules);
                prop_assert!(with_stored <= without_stored, "{:?}", rules);
                stored_with.set(stored_with.get() + with_stored);
                stored_without.set(stored_without.get() + without_stored);
                lost.set(lost.get() + 1);
            }
            Ok(())
        });
        let (won, lost, stored_with, stored_without) = (won.get(), lost.get(), stored_with.get(), stored_without.get());
        assert!(won >= 10 && lost >= 10, "{rules:?}: {won} won, {lost} lost");
        assert!(stored_with < stored_without, "{rules:?}: the rule never came up ({stored_with} stored)");
        eprintln!("{rules:?}: {won} won, {lost} lost, {stored_with} stored against {stored_without}");
    }
}

#[test]
fn the_last_pass_agrees_with_the_plain_search_whatever_its_schedule() {
    // Best-first joining, resting, waking and ending (and the exhaustive pass's share
    // changing when it wakes) only reorder the work of two complete searches, and
    // restarts only ever win: no schedule may change a verdict. Small thresholds bring
    // every phase up in small searches.
    let schedules = [
        // Rests as soon as the exhaustive pass joins (after 64 rounds), wakes a round later,
        // and ends 200 nodes after that; a restart node for every exhaustive one.
        Schedule {
            late_join_states: 5,
            best_first_states: 20,
            hard_after_nodes: 300,
            hard_for_nodes: 200,
            burst_after_nodes: u64::MAX,
            restart_every: 1,
        },
        // Rests and never wakes, so restarts run to the end: one node for every 3
        // exhaustive ones.
        Schedule {
            late_join_states: 5,
            best_first_states: 1,
            hard_after_nodes: u64::MAX,
            hard_for_nodes: u64::MAX,
            burst_after_nodes: u64::MAX,
            restart_every: 3,
        },
        // Hard from the start: never rests (and restarts, which end when a job turns
        // hard, never run); best-first ends after 100 nodes.
        Schedule {
            late_join_states: 5,
            best_first_states: 1,
            hard_after_nodes: 0,
            hard_for_nodes: 100,
            burst_after_nodes: u64::MAX,
            restart_every: 3,
        },
        // Due to rest before the exhaustive pass has joined: it waits for it.
        Schedule {
            late_join_states: 1_000,
            best_first_states: 20,
            hard_after_nodes: u64::MAX,
            hard_for_nodes: u64::MAX,
            burst_after_nodes: 0,
            restart_every: 0,
        },
        // A burst of the larger share before resting, then waking (the product gives one
        // only to jobs with at most one cell; here every variant has it), and restarts.
        Schedule {
            late_join_states: 5,
            best_first_states: 200,
            hard_after_nodes: 600,
            hard_for_nodes: u64::MAX,
            burst_after_nodes: 100,
            restart_every: 24,
        },
    ];
    let variants = [
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Single, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
    ];
    for (i, rules) in variants.into_iter().enumerate() {
        let (won, lost, woke) = (Cell::new(0), Cell::new(0), Cell::new(0));
        // Fuller positions than the other tests', for longer searches.
        check_positions("any_schedule", 0x5C4E_D01E + i as u64, 90, positions(rules, 4, 4), |start| {
            let Some(plain) = plain_search(start, &rules, 300_000) else { return Ok(()) };
            let expected = if plain { Status::Solved } else { Status::Unsolvable };
            for schedule in schedules {
                let (status, nodes) = settle_pass(start, &rules, schedule);
                prop_assert_eq!(status, expected, "{:?} {:?}", rules, schedule);
                woke.set(woke.get() + usize::from(nodes > schedules[0].hard_after_nodes));
            }
            let count = if plain { &won } else { &lost };
            count.set(count.get() + 1);
            Ok(())
        });
        let (won, lost, woke) = (won.get(), lost.get(), woke.get());
        assert!(won >= 5 && lost >= 5, "{rules:?}: {won} won, {lost} lost");
        // Searches long enough for best-first to rest and wake again.
        assert!(woke >= 5, "{rules:?}: only {woke} searches went past the wake-up");
    }
}

mod layered;

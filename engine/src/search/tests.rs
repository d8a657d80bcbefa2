//! Tests of the passes in turn: verdicts, budgets, restarts, and the modules' layering.

use super::*;
use crate::moves::generate;
use crate::position::Place;
use crate::testdata::{columns, MS1, MS11982};
use crate::variant::SequenceMoves;
use depth_first::DepthFirstSearch;

/// Replays a solution with the engine's own move checks (the Python referee is the
/// independent judge; this only guards the engine's bookkeeping).
fn replays_to_a_win(start: &Position, rules: &Variant, solution: &[Move]) -> bool {
    let mut s = start.clone();
    for &m in solution {
        let mut legal = vec![];
        generate(&s, rules, true, &mut legal);
        // Moves to other empty cells/columns than the first are legal too.
        let ok = legal.contains(&m)
            || legal
                .iter()
                .any(|l| l.from == m.from && l.count == m.count && same_kind(l.to, m.to) && is_empty(&s, m.to));
        if !ok {
            return false;
        }
        s.apply(m);
    }
    s.is_won()
}

fn same_kind(a: Place, b: Place) -> bool {
    matches!(
        (a, b),
        (Place::Cell(_), Place::Cell(_)) | (Place::Column(_), Place::Column(_)) | (Place::Home, Place::Home)
    )
}

fn is_empty(s: &Position, p: Place) -> bool {
    match p {
        Place::Cell(i) => s.cell(usize::from(i)).is_none(),
        Place::Column(i) => s.len(usize::from(i)) == 0,
        Place::Home | Place::Foundation(_) => false,
    }
}

fn never() -> impl FnMut() -> bool {
    || false
}

#[test]
fn the_modules_depend_only_on_those_listed_before_them() {
    // The order of the module comment; each file's `super::` paths (and, in a
    // module's own files, `super::super::`) may only name modules before its own.
    let order = [
        "meter",
        "play",
        "score",
        "loose_return",
        "spill",
        "best_first",
        "depth_first",
        "frontier",
        "settle",
        "bucket",
        "level_threads",
        "layered",
        "shortest",
    ];
    let files: [(&str, &str, &str); 21] = [
        ("meter", include_str!("meter.rs"), "super::"),
        ("play", include_str!("play.rs"), "super::"),
        ("score", include_str!("score.rs"), "super::"),
        ("loose_return", include_str!("loose_return.rs"), "super::"),
        ("spill", include_str!("spill/mod.rs"), "super::"),
        ("spill", include_str!("spill/codec.rs"), "super::super::"),
        ("spill", include_str!("spill/files.rs"), "super::super::"),
        ("spill", include_str!("spill/checkpoint.rs"), "super::super::"),
        ("spill", include_str!("spill/inside.rs"), "super::super::"),
        ("best_first", include_str!("best_first.rs"), "super::"),
        ("depth_first", include_str!("depth_first.rs"), "super::"),
        ("frontier", include_str!("frontier.rs"), "super::"),
        ("settle", include_str!("settle.rs"), "super::"),
        ("bucket", include_str!("bucket.rs"), "super::"),
        ("level_threads", include_str!("level_threads.rs"), "super::"),
        ("layered", include_str!("layered.rs"), "super::"),
        ("shortest", include_str!("shortest/mod.rs"), "super::"),
        ("shortest", include_str!("shortest/beam.rs"), "super::super::"),
        ("shortest", include_str!("shortest/bound.rs"), "super::super::"),
        ("shortest", include_str!("shortest/proof.rs"), "super::super::"),
        ("shortest", include_str!("shortest/tests.rs"), "super::super::"),
    ];
    for (module, source, prefix) in files {
        let at = order.iter().position(|m| *m == module).expect("a module of the list");
        for (i, _) in source.match_indices(prefix) {
            let rest = &source[i + prefix.len()..];
            let name: String = rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
            if let Some(used) = order.iter().position(|m| *m == name) {
                assert!(used < at, "{module} uses {name}, which the module comment lists after it");
            }
        }
    }
}

#[test]
fn deal_one_is_solved_with_a_solution_that_replays() {
    let rules = Variant::FREECELL;
    let s = Position::new(&rules, &columns(MS1), &[None; 4], [0; 4]).unwrap();
    let out = solve(&s, &rules, Budget::default(), &mut never());
    assert_eq!(out.status, Status::Solved);
    assert!(replays_to_a_win(&s, &rules, &out.solution));
    assert!(out.nodes > 0 && out.states > 0);
}

#[test]
fn deal_11982_is_proved_unsolvable() {
    let rules = Variant::FREECELL;
    let s = Position::new(&rules, &columns(MS11982), &[None; 4], [0; 4]).unwrap();
    let out = solve(&s, &rules, Budget::default(), &mut never());
    assert_eq!(out.status, Status::Unsolvable);
    assert!(out.solution.is_empty());
}

#[test]
fn budgets_give_unknown_with_their_limit() {
    let rules = Variant::FREECELL;
    let s = Position::new(&rules, &columns(MS11982), &[None; 4], [0; 4]).unwrap();
    let few = Budget { max_nodes: 100, ..Budget::default() };
    assert_eq!(solve(&s, &rules, few, &mut never()).status, Status::Unknown(Limit::Nodes));
    let small = Budget { max_memory: 100_000, ..Budget::default() };
    assert_eq!(solve(&s, &rules, small, &mut never()).status, Status::Unknown(Limit::Memory));
    let mut calls = 0;
    let mut stop = || {
        calls += 1;
        true
    };
    let out = solve(&s, &rules, Budget { max_seconds: f64::INFINITY, ..Budget::default() }, &mut stop);
    // Polled only every 100 ms: a search that ends sooner is not interrupted.
    assert!(matches!(out.status, Status::Unknown(Limit::Interrupted) | Status::Unsolvable));
}

#[test]
fn a_growth_that_would_end_past_the_deadline_is_not_begun() {
    // Deal 11982's proof grows the exhaustive pass's store several times. Once it has
    // grown, make the next growth look a second a slot: hours, past an hour's budget.
    let rules = Variant::FREECELL;
    let mut root = Position::new(&rules, &columns(MS11982), &[None; 4], [0; 4]).unwrap();
    root.autoplay(&rules, &mut vec![]);
    let hour = Budget { max_seconds: 3600.0, ..Budget::default() };
    for slow in [false, true] {
        let mut search = DepthFirstSearch::new(&root, &rules, DepthFirst::EXHAUSTIVE, hour.max_memory);
        let mut never = || false;
        let mut meter = Meter::new(hour, Instant::now(), &mut never);
        let (mut grown, mut bytes) = (false, search.seen.bytes());
        let status = loop {
            if let Some(pass) = search.step(&rules, &mut meter) {
                break pass;
            }
            if !grown && search.seen.bytes() > bytes {
                (grown, bytes) = (true, search.seen.bytes());
                if slow {
                    search.seen.pretend_growth_takes(1.0);
                }
            }
        };
        let Pass::Settled(status, ..) = status else { unreachable!("the exhaustive pass settles") };
        if slow {
            // It stops, as the deadline would have stopped it, without the memory.
            assert_eq!(status, Status::Unknown(Limit::Seconds));
            assert_eq!(search.seen.bytes(), bytes, "the store did not grow again");
            assert!(search.seen.must_grow_for(depth_first::MAX_LEVEL_MOVES));
        } else {
            assert_eq!(status, Status::Unsolvable);
            assert!(search.seen.bytes() > 4 * bytes, "the proof grows its store more");
        }
    }
}

#[test]
fn restarts_win_with_lines_that_replay_and_give_up_after_their_nodes() {
    // Deal 1 with three cells: some restarts win, others give up; each is its own order.
    let rules = Variant::FREECELL.with_cells(3);
    let s = Position::new(&rules, &columns(MS1), &[None; 3], [0; 4]).unwrap();
    let mut root = s.clone();
    root.autoplay(&rules, &mut vec![]);
    let (mut won, mut gave_up, mut lines) = (0, 0, std::collections::HashSet::new());
    for n in 1..=40 {
        match restart_pass(&s, &rules, n) {
            Some((Status::Solved, line)) => {
                assert!(replays_to_a_win(&root, &rules, &line), "restart {n}");
                lines.insert(line);
                won += 1;
            }
            None => gave_up += 1,
            Some((status, _)) => panic!("restart {n} settled deal 1 as {status:?}"),
        }
    }
    assert!(won >= 3 && gave_up >= 3, "{won} won, {gave_up} gave up");
    assert!(lines.len() >= 2, "the restarts' orders differ");
}

#[test]
fn the_memory_budget_holds_with_restarts_beside_the_proof() {
    // With one and two cells the restarts take a share of the budget: the whole
    // search still holds at most the budget, and a budget too small for a restart
    // ends them rather than the search.
    for cells in [1, 2] {
        let rules = Variant::FREECELL.with_cells(cells);
        let s = Position::new(&rules, &columns(MS11982), &vec![None; cells], [0; 4]).unwrap();
        for max_memory in [1 << 20, 3 << 20, 64 << 20] {
            let out = solve(&s, &rules, Budget { max_memory, ..Budget::default() }, &mut never());
            assert!(out.peak_memory <= max_memory, "{cells} cells: {} > {max_memory}", out.peak_memory);
            assert!(matches!(out.status, Status::Unsolvable | Status::Unknown(Limit::Memory)), "{:?}", out.status);
        }
    }
}

#[test]
fn same_input_same_counters() {
    let rules = Variant::FREECELL.with_cells(2);
    let s = Position::new(&rules, &columns(MS1), &[None; 2], [0; 4]).unwrap();
    let a = solve(&s, &rules, Budget::default(), &mut never());
    let b = solve(&s, &rules, Budget::default(), &mut never());
    assert_eq!((a.status, a.nodes, a.states, a.max_depth), (b.status, b.nodes, b.states, b.max_depth));
    assert_eq!(a.solution, b.solution);
}

#[test]
fn relaxed_rules_settle_deal_one_and_lose_only_what_the_standard_rules_lose() {
    // Under the relaxed rule runs are real moves, so the exhaustive pass generates
    // them too. Relaxed play has every standard move and more, so a relaxed loss
    // must be a standard loss as well.
    for cells in [1, 2] {
        let relaxed = Variant { sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(cells) };
        let s = Position::new(&relaxed, &columns(MS1), &vec![None; cells], [0; 4]).unwrap();
        let out = solve(&s, &relaxed, Budget::default(), &mut never());
        match out.status {
            Status::Solved => assert!(replays_to_a_win(&s, &relaxed, &out.solution)),
            Status::Unsolvable => {
                let standard = Variant::FREECELL.with_cells(cells);
                let s = Position::new(&standard, &columns(MS1), &vec![None; cells], [0; 4]).unwrap();
                assert_eq!(solve(&s, &standard, Budget::default(), &mut never()).status, Status::Unsolvable);
            }
            Status::Unknown(limit) => panic!("deal 1 with {cells} cells ran out of {}", limit.name()),
        }
    }
}

//! The layered proof held to the exhaustive pass: the same positions stored on one thread or two, breadth first, and across any number of stops and kept proofs.

use super::*;

/// A directory of its own under the system's temporary one, for one test's files.
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fcanalyze-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a writable temporary directory");
    dir
}

#[test]
fn the_layered_proof_stores_exactly_what_the_exhaustive_pass_stores() {
    // The layered proof searches one class of positions at a time and forgets the
    // classes it is done with (docs/correctness.md, "The layered proof"). On a lost
    // position it must visit exactly the positions the exhaustive pass visits, each
    // once: the same count. On a won one it meets a win, and says unknown (it keeps no
    // path). Variants with and without take-back, where the level leaves the
    // foundations out.
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, takeback: true, kings_only: true, ..Variant::FREECELL.with_cells(1) },
    ];
    layered_proofs_store_what_the_exhaustive_pass_stores("layered", &variants, 0x1A7E_4ED5, false, 1);
}

/// Proves random small positions of each variant with a layered proof (at most 150
/// each, those the plain search can exhaust): a lost one must store exactly as many
/// positions as the exhaustive pass, a won one must say unknown (memory); and at least
/// half the lost ones must have had levels to spill. Each proof removes its files. With
/// `breadth_first`, the proof searches every bucket breadth first where it may, which
/// stores the positions whose loose card has to go back too: the count to match is then
/// the exhaustive pass's without putting such cards back. The proofs run on `threads`.
fn layered_proofs_store_what_the_exhaustive_pass_stores(
    name: &str,
    variants: &[Variant],
    seed: u64,
    breadth_first: bool,
    threads: usize,
) {
    let dir = scratch_dir(name);
    let spill = Spill { dir: dir.clone(), threads, max_bytes: u64::MAX, keep_free: 0 };
    let budget = Budget { max_memory: 64 << 20, ..Budget::default() };
    for (i, &rules) in variants.iter().enumerate() {
        let (won, lost, spilled) = (Cell::new(0), Cell::new(0), Cell::new(0));
        check_positions(name, seed + i as u64, 150, positions(rules, 6, 5), |start| {
            let Some(plain) = plain_search(start, &rules, 60_000) else { return Ok(()) };
            let layered = prove_layered(start, &rules, budget, &spill, &mut || false);
            if plain {
                prop_assert_eq!(layered.status, Status::Unknown(Limit::Memory), "{:?}", rules);
                won.set(won.get() + 1);
            } else {
                let returning = !(breadth_first && breadth_first_applies(&rules));
                let (status, stored) = exhaustive_pass_returning(start, &rules, true, returning);
                prop_assert_eq!((status, layered.status), (Status::Unsolvable, Status::Unsolvable));
                prop_assert_eq!(layered.states as usize, stored, "{:?}", rules);
                spilled.set(spilled.get() + usize::from(layered.peak_disk > 0));
                lost.set(lost.get() + 1);
            }
            Ok(())
        });
        let (won, lost, spilled) = (won.get(), lost.get(), spilled.get());
        assert!(won >= 10 && lost >= 10, "{rules:?}: {won} won, {lost} lost");
        assert!(spilled * 2 >= lost, "{rules:?}: only {spilled} of {lost} lost positions had levels to spill");
    }
    assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_layered_proof_on_two_threads_stores_exactly_what_it_stores_on_one() {
    // The buckets of a level searched on two threads at once (`level_threads`), each
    // with half the memory, a bucket that outgrows its half searched again alone: a lost
    // position's proof must store exactly the positions the proof on one thread stores,
    // and a won one meet a win all the same. With 64 MiB every bucket fits a thread's
    // half; with the tight budget some do not, and are searched again alone.
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
    ];
    let dir = scratch_dir("two-threads");
    let one = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let two = Spill { threads: 2, ..one.clone() };
    for (max_memory, tight) in [(64 << 20, false), (TIGHT_MEMORY, true)] {
        let budget = Budget { max_memory, ..Budget::default() };
        let before = DEFERRED.load(std::sync::atomic::Ordering::Relaxed);
        for (i, &rules) in variants.iter().enumerate() {
            let lost = Cell::new(0);
            check_positions("two_threads", 0x2_7A2E + i as u64, 60, positions(rules, 6, 5), |start| {
                // A proof stopped for memory is kept; each run starts afresh all the same.
                let alone = prove_layered(start, &rules, budget, &one, &mut || false);
                empty(&dir);
                let beside = prove_layered(start, &rules, budget, &two, &mut || false);
                empty(&dir);
                prop_assert_eq!(beside.status, alone.status, "{:?}", rules);
                if alone.status == Status::Unsolvable {
                    prop_assert_eq!(beside.states, alone.states, "{:?}", rules);
                    lost.set(lost.get() + 1);
                }
                Ok(())
            });
            assert!(lost.get() >= 5, "{rules:?}: only {} lost", lost.get());
        }
        let deferred = DEFERRED.load(std::sync::atomic::Ordering::Relaxed) - before;
        assert!(!tight || deferred > 0, "no bucket outgrew a thread's half of {max_memory} bytes");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Removes every proof kept in `dir`.
fn empty(dir: &std::path::Path) {
    for entry in std::fs::read_dir(dir).expect("the directory") {
        std::fs::remove_dir_all(entry.expect("an entry").path()).expect("a removable proof");
    }
}

/// A memory budget under which some buckets of the small positions outgrow half of it.
const TIGHT_MEMORY: usize = 1 << 20;

#[test]
fn the_frontier_search_reaches_exactly_what_the_exhaustive_pass_reaches() {
    // A bucket too big for memory is searched breadth first, holding only the layers
    // around the one expanded (engine/src/search/frontier.rs). Forced on every bucket
    // here, the proof must still reach every position the exhaustive pass reaches, each
    // exactly once (the same count), and meet a win where there is one. Under rules where
    // some move cannot be taken back it is never used: the proof is the depth-first one.
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
        Variant {
            columns: 4,
            same_suit: true,
            sequence_moves: SequenceMoves::Relaxed,
            ..Variant::FREECELL.with_cells(1)
        },
        Variant { columns: 4, kings_only: true, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
    ];
    // The breadth-first search stores every position, with a loose card to put back too: its
    // three layers hold what they must only while every move can be taken back.
    BREADTH_FIRST.set(true);
    layered_proofs_store_what_the_exhaustive_pass_stores("frontier", &variants, 0xF207_713E, true, 1);
    BREADTH_FIRST.set(false);
}

#[test]
fn the_frontier_search_on_two_threads_reaches_exactly_what_it_reaches_on_one() {
    // On two threads, each owns the positions of its shard of fingerprints and the two
    // hand each other children, meeting once a layer (engine/src/search/frontier_threads/).
    // Forced on every bucket, the proof must reach exactly the positions the exhaustive
    // pass reaches (the one-thread frontier search's count), and meet every win.
    let variants = [
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
    ];
    let before = ON_THREADS.get();
    BREADTH_FIRST.set(true);
    layered_proofs_store_what_the_exhaustive_pass_stores("frontier-threads", &variants, 0xF207_7772, true, 2);
    BREADTH_FIRST.set(false);
    let searched = ON_THREADS.get() - before;
    assert!(searched >= 500, "only {searched} buckets searched on two threads");
}

#[test]
fn a_bucket_that_outgrows_memory_is_searched_breadth_first_and_a_proof_stopped_in_it_goes_on_so() {
    // Deal 11982 with 4 cells at a budget its largest bucket outgrows depth first: the
    // proof goes on breadth first and ends lost, having reached every position the
    // exhaustive pass reaches. Stopped again and again, each run going on from the kept
    // one (whose bucket had outgrown memory: breadth first at once, from the start of the
    // layer it stopped in), it ends the same, having done no run's work again but the
    // layer each stopped in.
    let (rules, start) = deal_11982();
    let (status, stored) = exhaustive_pass(&start, &rules, true);
    assert_eq!(status, Status::Unsolvable);
    let dir = scratch_dir("outgrown");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let tight = Budget { max_memory: 1 << 20, ..Budget::default() };
    let out = prove_layered(&start, &rules, tight, &spill, &mut || false);
    assert_eq!(out.status, Status::Unsolvable);
    assert_eq!(out.states as usize, stored);
    assert!(out.peak_memory <= 1 << 20, "{}", out.peak_memory);
    let depth_first_alone = prove_layered(&start, &rules, Budget::default(), &spill, &mut || false);
    assert!(depth_first_alone.peak_memory > 1 << 20, "the budget is tight: {}", depth_first_alone.peak_memory);
    let mut runs = 0;
    let out = loop {
        let short = Budget { max_nodes: 1 + stored as u64 / 10, ..tight };
        let out = prove_layered(&start, &rules, short, &spill, &mut || false);
        runs += 1;
        assert!(runs < 40, "no end in sight");
        if out.status != Status::Unknown(Limit::Nodes) {
            break out;
        }
        assert!(out.kept);
    };
    assert_eq!((out.status, out.states as usize), (Status::Unsolvable, stored));
    assert!(runs > 2 && runs <= 20, "{runs} runs of a tenth of the nodes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn under_take_back_a_proof_that_outgrows_memory_is_left_unknown_and_never_goes_breadth_first() {
    // The breadth-first search may not search take-back rules (a card taken back from a
    // foundation breaks its layers), so a bucket that outgrows memory under them leaves
    // the job unknown, kept, whether it outgrew from its entries or from what a kept proof
    // held inside it. Deal 11982 under take-back, stopped at many points at the least
    // budget that proves it (to 4 KiB), then gone on from at 8 KiB less: each run must
    // end lost with the exhaustive pass's count, or unknown for want of memory and kept,
    // with no bucket sent breadth first; and the run at the first budget after it must
    // end lost with that count, so nothing kept was lost.
    let (freecell, start) = deal_11982();
    let rules = Variant { takeback: true, ..freecell };
    let (status, stored) = exhaustive_pass(&start, &rules, true);
    assert_eq!(status, Status::Unsolvable);
    let dir = scratch_dir("takeback-outgrown");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let prove = |max_memory: usize, max_nodes: u64| {
        prove_layered(&start, &rules, Budget { max_memory, max_nodes, ..Budget::default() }, &spill, &mut || false)
    };
    let ends = |max_memory: usize| {
        let out = prove(max_memory, u64::MAX);
        (out.status, out.states as usize) == (Status::Unsolvable, stored)
    };
    let need = (16..).map(|k| k << 12).find(|&m| ends(m)).unwrap_or_else(|| unreachable!());
    let tight = need - (8 << 10);
    let nodes = prove(need, u64::MAX).nodes;
    let (sent, mut squeezed) = (SENT_BREADTH_FIRST.get(), 0);
    for twentieth in 1..20 {
        let first = prove(need, nodes * twentieth / 20);
        assert_eq!((first.status, first.kept), (Status::Unknown(Limit::Nodes), true));
        let out = prove(tight, u64::MAX);
        if out.status != Status::Unsolvable {
            assert_eq!((out.status, out.kept), (Status::Unknown(Limit::Memory), true), "{:?}", out.note);
            squeezed += 1;
        }
        assert!(ends(need), "gone on from a kept proof, at {twentieth}/20 of the nodes");
    }
    assert_eq!(SENT_BREADTH_FIRST.get(), sent, "a bucket went breadth first under take-back");
    assert!(squeezed >= 5, "only {squeezed} runs outgrew {tight} bytes");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_proof_on_two_threads_stopped_again_and_again_goes_on_to_the_same_count() {
    // Deal 11982 with 4 cells on two threads, stopped every tenth of its nodes until it
    // ends, each run going on from the one kept (inside the buckets it stopped in too):
    // it must store in all exactly what the exhaustive pass stores. With the tight budget some buckets outgrow a thread's half
    // and are searched alone (depth first with the whole budget, or breadth first).
    let (rules, start) = deal_11982();
    let (status, stored) = exhaustive_pass(&start, &rules, true);
    assert_eq!(status, Status::Unsolvable);
    let dir = scratch_dir("two-threads-resumed");
    let spill = Spill { dir: dir.clone(), threads: 2, max_bytes: u64::MAX, keep_free: 0 };
    for max_memory in [Budget::default().max_memory, 1 << 20] {
        let mut runs = 0;
        let out = loop {
            let short = Budget { max_nodes: (1 + stored as u64 / 10), max_memory, ..Budget::default() };
            let out = prove_layered(&start, &rules, short, &spill, &mut || false);
            runs += 1;
            assert!(runs < 40, "no end in sight");
            if out.status != Status::Unknown(Limit::Nodes) {
                break out;
            }
            assert!(out.kept);
        };
        assert_eq!(
            (out.status, out.states as usize),
            (Status::Unsolvable, stored),
            "{max_memory} bytes {:?}",
            out.note
        );
        // Every run goes on where the one before ended, in a bucket too: a tenth of the
        // nodes each, and no run done again.
        assert!(runs > 2 && runs <= 20, "{runs}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_layered_proof_stopped_again_and_again_goes_on_to_the_same_verdict_and_count() {
    // A layered proof stopped by a budget is kept, and the next one of the same job goes
    // on from it, searching again the bucket it was in. Stopped every few thousand nodes
    // until it ends, it must store in all exactly what the exhaustive pass stores (each
    // bucket's store is counted once, when it is finished), and meet a win where there is
    // one; and the proofs of other jobs in the same directory must not be taken for it.
    let variants = [
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 5, same_suit: true, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 5, takeback: true, ..Variant::FREECELL.with_cells(1) },
    ];
    let dir = scratch_dir("resumed");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    for (i, rules) in variants.into_iter().enumerate() {
        let (lost, won, stops) = (Cell::new(0), Cell::new(0), Cell::new(0));
        // Each case is a job and another job, whose proof is kept beside the job's all along.
        let pairs = (positions(rules, 6, 5), positions(rules, 6, 5));
        check_positions("stopped_again", 0x5E5_0DE + i as u64, 300, pairs, |(start, other)| {
            if lost.get() >= 6 && won.get() >= 4 {
                return Ok(());
            }
            let Some(plain) = plain_search(start, &rules, 60_000) else { return Ok(()) };
            let (status, stored) = exhaustive_pass(start, &rules, true);
            let _ = prove_layered(other, &rules, Budget { max_nodes: 50, ..Budget::default() }, &spill, &mut || false);
            let mut runs = 0;
            let out = loop {
                // Each run goes on where the one before ended, in its bucket too: a lost
                // position's proof ends after some ten runs of a tenth of its nodes each.
                // (A won position's goes far beyond the exhaustive pass, which stops at the
                // win: its budgets grow.)
                let grow = if plain { runs } else { 0 };
                let short = Budget { max_nodes: (1 + stored as u64 / 10) << grow, ..Budget::default() };
                let out = prove_layered(start, &rules, short, &spill, &mut || false);
                runs += 1;
                prop_assert!(runs < 40, "{:?}: no end in sight", rules);
                if out.status != Status::Unknown(Limit::Nodes) {
                    break out;
                }
                prop_assert!(out.kept, "a proof stopped by its node budget is kept");
                if !plain {
                    prop_assert!(runs <= 20, "{:?}: {runs} runs of a tenth of the nodes", rules);
                }
            };
            prop_assert!(!out.kept);
            stops.set(stops.get() + runs - 1);
            if plain {
                prop_assert_eq!(out.status, Status::Unknown(Limit::Memory), "{:?}", rules);
                won.set(won.get() + 1);
            } else {
                prop_assert_eq!((status, out.status), (Status::Unsolvable, Status::Unsolvable));
                prop_assert_eq!(out.states as usize, stored, "{:?}", rules);
                prop_assert!(runs == 1 || out.resumed_seconds > 0.0);
                lost.set(lost.get() + 1);
            }
            // The other job's proof goes on where it stopped, and ends.
            let other_out = prove_layered(other, &rules, Budget::default(), &spill, &mut || false);
            prop_assert_ne!(other_out.status, Status::Unknown(Limit::Nodes));
            Ok(())
        });
        let (lost, won, stops) = (lost.get(), won.get(), stops.get());
        assert!(lost >= 6 && won >= 4 && stops >= 20, "{rules:?}: {lost} lost, {won} won, {stops} stops");
    }
    // Every proof ended, and removed its files.
    assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_breadth_first_search_stopped_again_and_again_goes_on_from_the_layer_it_stopped_in() {
    // Every bucket searched breadth first (as if it had outgrown memory), a proof stopped
    // inside one keeps the fingerprints of the layer it stopped in and of the one before,
    // and that layer's positions; the next run goes on from there. Stopped every tenth of
    // its nodes until it ends, it must store in all exactly what one run stores, and give
    // the same verdict.
    breadth_first_stopped_again_and_again("breadth-first-resumed", 0xB7E_ADF, &|_| 1);
}

#[test]
fn a_breadth_first_search_on_two_threads_stopped_again_and_again_goes_on_on_one_or_two() {
    // The same on two threads, and on two and one in turn: a search stopped on two
    // threads is kept as one on one thread is, and either goes on from the other's.
    let before = ON_THREADS.get();
    breadth_first_stopped_again_and_again("breadth-first-threads", 0xB7E_AD2, &|_| 2);
    breadth_first_stopped_again_and_again("breadth-first-turns", 0xB7E_ADF, &|run| 1 + run % 2);
    assert!(ON_THREADS.get() - before >= 100);
}

/// Proves random small positions of four variants, each bucket breadth first, a run
/// at a time on `threads(run)` threads, each run stopped after a tenth of the nodes
/// one whole run takes; asserts the same verdict and count as one run, and that at
/// least 20 runs went on from a kept layer.
fn breadth_first_stopped_again_and_again(name: &str, seed: u64, threads: &dyn Fn(usize) -> usize) {
    let variants = [
        Variant { columns: 5, ..Variant::FREECELL.with_cells(1) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(2) },
        Variant { columns: 4, ..Variant::FREECELL.with_cells(0) },
        Variant { columns: 5, sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(0) },
    ];
    let dir = scratch_dir(name);
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    BREADTH_FIRST.set(true);
    let kept_layers = Cell::new(0);
    for (i, rules) in variants.into_iter().enumerate() {
        let lost = Cell::new(0);
        check_positions(name, seed + i as u64, 500, positions(rules, 6, 5), |start| {
            if lost.get() >= 6 {
                return Ok(());
            }
            let one = prove_layered(start, &rules, Budget::default(), &spill, &mut || false);
            if one.status != Status::Unsolvable || one.nodes < 30 {
                return Ok(());
            }
            let mut runs = 0;
            let out = loop {
                // A tenth of the nodes a run; doubled every 20 runs, for a layer that
                // holds more than a tenth (each run goes on from the start of its layer).
                let short = Budget { max_nodes: (1 + one.nodes / 10) << (runs / 20), ..Budget::default() };
                let on = Spill { threads: threads(runs), ..spill.clone() };
                let out = prove_layered(start, &rules, short, &on, &mut || false);
                runs += 1;
                prop_assert!(runs < 100, "{:?}: no end in sight", rules);
                if out.status != Status::Unknown(Limit::Nodes) {
                    break out;
                }
                prop_assert!(out.kept, "a proof stopped by its node budget is kept");
                kept_layers.set(kept_layers.get() + kept_stores(&dir));
            };
            prop_assert_eq!((out.status, out.states), (Status::Unsolvable, one.states), "{:?}", rules);
            lost.set(lost.get() + 1);
            Ok(())
        });
        assert!(lost.get() >= 6, "{rules:?}: {} lost", lost.get());
    }
    BREADTH_FIRST.set(false);
    assert!(kept_layers.get() >= 20, "{} kept layers", kept_layers.get());
    assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kept_breadth_first_search_does_again_only_the_layer_it_stopped_in() {
    // Deal 11982 with 4 cells, every bucket breadth first, stopped every thirtieth of its
    // nodes: each run goes on from the start of the layer the one before ended in, so all the
    // runs together expand little more than one run does. (Searched again from its
    // entries, as a kept proof's breadth-first bucket was before, they expanded 11% more.)
    let (rules, start) = deal_11982();
    let dir = scratch_dir("breadth-first-11982");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    BREADTH_FIRST.set(true);
    let one = prove_layered(&start, &rules, Budget::default(), &spill, &mut || false);
    assert_eq!(one.status, Status::Unsolvable);
    let (mut runs, mut kept_layers) = (0, 0);
    let out = loop {
        let short = Budget { max_nodes: 1 + one.nodes / 30, ..Budget::default() };
        let out = prove_layered(&start, &rules, short, &spill, &mut || false);
        runs += 1;
        assert!(runs < 60, "no end in sight");
        if out.status != Status::Unknown(Limit::Nodes) {
            break out;
        }
        assert!(out.kept);
        kept_layers += kept_stores(&dir);
    };
    BREADTH_FIRST.set(false);
    assert_eq!((out.status, out.states), (Status::Unsolvable, one.states));
    assert!(kept_layers > runs / 2, "{kept_layers} of {runs} runs kept a layer");
    assert!(out.nodes * 100 <= one.nodes * 105, "{} nodes in {runs} runs, {} in one", out.nodes, one.nodes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// How many stores of searches kept inside their buckets the kept proofs in `dir` hold.
fn kept_stores(dir: &std::path::Path) -> usize {
    let Ok(kept) = std::fs::read_dir(dir) else { return 0 };
    kept.flatten()
        .filter_map(|proof| std::fs::read_dir(proof.path()).ok())
        .flat_map(|files| files.flatten())
        .filter(|file| file.file_name().to_string_lossy().ends_with(".store"))
        .count()
}

/// Deal 11982 with 4 cells, lost after a proof of some 60 thousand positions.
fn deal_11982() -> (Variant, Position) {
    let rules = Variant::FREECELL;
    let start = Position::new(&rules, &crate::testdata::columns(crate::testdata::MS11982), &[None; 4], [0; 4]);
    (rules, start.expect("deal 11982"))
}

#[test]
fn a_kept_proof_is_not_gone_on_from_without_its_checkpoint_or_under_other_rules() {
    let (rules, start) = deal_11982();
    let dir = scratch_dir("checkpoint");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let stop = Budget { max_nodes: 20_000, ..Budget::default() };
    let first = prove_layered(&start, &rules, stop, &spill, &mut || false);
    assert_eq!((first.status, first.kept), (Status::Unknown(Limit::Nodes), true));
    let kept: Vec<_> = std::fs::read_dir(&dir).expect("the directory").map(|e| e.expect("an entry").path()).collect();
    assert_eq!(kept.len(), 1);
    // Under other rules (3 cells) the job is another: it starts afresh.
    let fewer = rules.with_cells(3);
    let other = prove_layered(&start, &fewer, stop, &spill, &mut || false);
    assert_eq!(other.resumed_seconds, 0.0);
    // Without its checkpoint (which no run leaves so), the directory is discarded, and
    // the proof starts afresh, saying so.
    std::fs::remove_file(kept[0].join("checkpoint")).expect("the checkpoint");
    let afresh = prove_layered(&start, &rules, Budget::default(), &spill, &mut || false);
    assert_eq!((afresh.status, afresh.resumed_seconds), (Status::Unsolvable, 0.0));
    assert!(afresh.note.as_deref().is_some_and(|n| n.contains("holds no checkpoint")), "{:?}", afresh.note);
    assert!(!kept[0].exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_kept_proof_of_a_job_settled_otherwise_is_dropped_and_nothing_else() {
    let (rules, start) = deal_11982();
    let dir = scratch_dir("drop-kept");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let stop = Budget { max_nodes: 1000, ..Budget::default() };
    assert!(prove_layered(&start, &rules, stop, &spill, &mut || false).kept);
    let fewer = rules.with_cells(3);
    let other = Position::new(&fewer, &crate::testdata::columns(crate::testdata::MS11982), &[None; 3], [0; 4]);
    assert!(prove_layered(&other.expect("deal 11982"), &fewer, stop, &spill, &mut || false).kept);
    let stranger = dir.join("not-a-proof");
    std::fs::create_dir(&stranger).expect("a directory");
    // Another job's proof is left; the job's own goes, once.
    assert!(crate::search::drop_kept(&start, &rules, &dir));
    assert!(!crate::search::drop_kept(&start, &rules, &dir));
    assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 2);
    assert!(stranger.is_dir());
    let afresh = prove_layered(&start, &rules, Budget::default(), &spill, &mut || false);
    assert_eq!((afresh.status, afresh.resumed_seconds), (Status::Unsolvable, 0.0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_layered_proof_says_when_its_disk_runs_out_or_cannot_be_written() {
    let (rules, start) = deal_11982();
    let dir = scratch_dir("small-disk");
    let small = Spill { dir: dir.clone(), threads: 1, max_bytes: 1000, keep_free: 0 };
    let out = prove_layered(&start, &rules, Budget::default(), &small, &mut || false);
    assert_eq!((out.status, out.kept), (Status::Unknown(Limit::Disk), true));
    // With more room, the next proof goes on from it.
    let enough = Spill { dir: dir.clone(), threads: 1, max_bytes: 10 << 20, keep_free: 0 };
    let out = prove_layered(&start, &rules, Budget::default(), &enough, &mut || false);
    assert_eq!(out.status, Status::Unsolvable);
    assert!(out.resumed_seconds > 0.0);
    assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 0);
    assert!(out.peak_disk > 1000 && out.peak_disk < 10 << 20, "{}", out.peak_disk);
    // Past the space its filesystem must keep free (here more than any disk has), the
    // proof stops at its first write, and is kept; with that floor gone it goes on.
    let crowded = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: u64::MAX };
    let out = prove_layered(&start, &rules, Budget::default(), &crowded, &mut || false);
    assert_eq!((out.status, out.kept), (Status::Unknown(Limit::Disk), true));
    assert!(out.peak_disk < 1000, "stopped at once: {}", out.peak_disk);
    let roomy = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 1 };
    let out = prove_layered(&start, &rules, Budget::default(), &roomy, &mut || false);
    assert_eq!(out.status, Status::Unsolvable);
    assert!(out.resumed_seconds > 0.0);
    let _ = std::fs::remove_dir_all(&dir);
    let file = scratch_dir("not-a-dir").join("file");
    std::fs::write(&file, b"").expect("a file");
    let nowhere = Spill { dir: file.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let out = prove_layered(&start, &rules, Budget::default(), &nowhere, &mut || false);
    assert_eq!(out.status, Status::Unknown(Limit::Disk));
    let _ = std::fs::remove_dir_all(file.parent().expect("a parent"));
}

#[test]
fn a_search_kept_inside_its_bucket_is_taken_up_on_one_thread_or_two() {
    // Deal 11982 with 4 cells, stopped halfway on one thread: the kept proof holds the
    // store of the bucket it stopped in and the positions stored and not expanded. Gone on
    // from on one thread or two, it takes them up, and ends as the proof in one go.
    let (rules, start) = deal_11982();
    let (_, stored) = exhaustive_pass(&start, &rules, true);
    let dir = scratch_dir("inside");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    for threads in [1, 2] {
        let half = Budget { max_nodes: stored as u64 / 2, ..Budget::default() };
        let out = prove_layered(&start, &rules, half, &spill, &mut || false);
        assert_eq!((out.status, out.kept), (Status::Unknown(Limit::Nodes), true));
        let kept: Vec<String> = std::fs::read_dir(&dir)
            .expect("the directory")
            .flat_map(|d| std::fs::read_dir(d.expect("an entry").path()).expect("the kept proof"))
            .map(|f| f.expect("a file").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            kept.iter().any(|f| f.ends_with(".store")) && kept.iter().any(|f| f.ends_with(".unexpanded")),
            "{kept:?}"
        );
        let spill = Spill { threads, ..spill.clone() };
        let rest = prove_layered(&start, &rules, Budget::default(), &spill, &mut || false);
        assert_eq!((rest.status, rest.states as usize), (Status::Unsolvable, stored), "{threads}: {:?}", rest.note);
        assert!(rest.resumed_seconds > 0.0);
    }
    assert_eq!(std::fs::read_dir(&dir).expect("the directory").count(), 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bucket_out_of_memory_breadth_first_is_tried_depth_first_again_by_the_next_run() {
    // Deal 11982 with 4 cells within 48 KiB: a bucket outgrows that depth first, then
    // breadth first, and the proof is kept. Its checkpoint does not send the next run
    // breadth first at once: with more memory, depth first may fit, and is faster.
    let (rules, start) = deal_11982();
    let dir = scratch_dir("out-of-memory-breadth-first");
    let spill = Spill { dir: dir.clone(), threads: 1, max_bytes: u64::MAX, keep_free: 0 };
    let tiny = Budget { max_memory: 48 << 10, ..Budget::default() };
    let out = prove_layered(&start, &rules, tiny, &spill, &mut || false);
    assert_eq!((out.status, out.kept), (Status::Unknown(Limit::Memory), true));
    let checkpoints: Vec<String> = std::fs::read_dir(&dir)
        .expect("the directory")
        .flatten()
        .filter_map(|proof| std::fs::read_to_string(proof.path().join("checkpoint")).ok())
        .collect();
    assert_eq!(checkpoints.len(), 1);
    assert!(checkpoints[0].contains("\nfrontier 0\n"), "{}", checkpoints[0]);
    assert!(!checkpoints[0].contains("frontier_kept"));
    let out = prove_layered(&start, &rules, Budget::default(), &spill, &mut || false);
    assert_eq!(out.status, Status::Unsolvable);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "a benchmark: scripts/bench_frontier_threads.py runs it"]
fn the_frontier_search_on_threads_timed() {
    // Deal 26063 with 1 cell (lost), every bucket breadth first, on the threads that
    // FCANALYZE_BENCH_THREADS says (1 if unset): the verdict, the positions and the
    // seconds, as a line scripts/bench_frontier_threads.py reads.
    let rules = Variant::FREECELL.with_cells(1);
    let start = Position::new(&rules, &crate::testdata::columns(crate::testdata::MS26063), &[None; 1], [0; 4]);
    let threads = std::env::var("FCANALYZE_BENCH_THREADS").map_or(1, |t| t.parse().expect("a thread count"));
    let dir = scratch_dir(&format!("bench-{threads}"));
    let spill = Spill { dir: dir.clone(), threads, max_bytes: u64::MAX, keep_free: 0 };
    BREADTH_FIRST.set(true);
    let began = std::time::Instant::now();
    let out = prove_layered(&start.expect("deal 26063"), &rules, Budget::default(), &spill, &mut || false);
    let seconds = began.elapsed().as_secs_f64();
    BREADTH_FIRST.set(false);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status, Status::Unsolvable);
    println!("frontier-bench threads {threads} positions {} seconds {seconds:.3}", out.states);
}

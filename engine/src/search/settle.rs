//! The last pass: best-first strategies, restarts and the exhaustive depth-first pass side by side.

use crate::position::Position;
use crate::variant::Variant;

use super::best_first::{BestFirstSearch, Step};
use super::depth_first::{DepthFirst, DepthFirstSearch};
use super::meter::{Meter, CHECK_EVERY};
use super::score::PORTFOLIO;
use super::{Limit, Pass, Status};

/// How big the best-first pass may grow before it rests and the exhaustive pass goes on
/// alone (docs/tuning.md, `BEST_FIRST_STATES`).
const BEST_FIRST_STATES: usize = 3_000_000;
/// Node expansions after which a job with at most one free cell counts as one of the
/// hard few: best-first wakes and gets a round for every DEPTH_FIRST_STEPS exhaustive
/// nodes, for HARD_FOR_NODES nodes (or until it holds its half of the memory budget),
/// to hunt the deep wins the exhaustive pass would reach only after a billion positions.
/// A node count rather than a time keeps every search repeatable (docs/tuning.md).
const HARD_AFTER_NODES: u64 = 40_000_000;
/// The same with two cells or more (docs/tuning.md, `HARD_AFTER_NODES_MORE_CELLS`).
const HARD_AFTER_NODES_MORE_CELLS: u64 = 20_000_000;
/// Node expansions, from the hard point on, for which best-first has its larger share;
/// then it ends, and the exhaustive pass goes on alone with the whole memory budget
/// (docs/tuning.md, `HARD_FOR_NODES`).
const HARD_FOR_NODES: u64 = 12_000_000;
/// Node expansions of the exhaustive pass for each round in which every best-first
/// strategy expands one; a best-first node costs about three times as much, so the
/// exhaustive pass has about 40% of the time while best-first runs (docs/tuning.md).
const DEPTH_FIRST_STEPS: usize = 6;
/// The same with at most one free cell, where three searched jobs in four are lost: the
/// exhaustive pass has 90% of the time (docs/tuning.md).
const DEPTH_FIRST_STEPS_FEW_CELLS: usize = 96;
/// Node expansions after which a job with at most one free cell has a burst of
/// best-first: its first strategy alone, with the larger share (DEPTH_FIRST_STEPS),
/// until best-first has stored BEST_FIRST_STATES and rests. Most lost jobs are proved
/// before this and pay nothing (docs/tuning.md, `BEST_FIRST_BURST_AFTER_NODES`).
const BEST_FIRST_BURST_AFTER_NODES: u64 = 500_000;
/// One node of restarts for every RESTART_EVERY of the exhaustive pass's with two cells,
/// and for every RESTART_EVERY_FEW_CELLS with one cell or none, until the job turns
/// hard (then best-first's larger share hunts the deep wins). Jobs with more cells
/// reach this pass rarely, and get none (docs/tuning.md).
const RESTART_EVERY: usize = 12;
const RESTART_EVERY_FEW_CELLS: usize = 24;
/// The restarts' share of the memory budget, taken from the exhaustive pass's until
/// that needs it all. One restart holds little: it gives up after at most
/// 4,000 x 2^k nodes, k growing by one for every doubling of the restarts made.
const RESTART_MEMORY_SHARE: usize = 16;
/// Positions the first two best-first strategies store before the third strategy and
/// the exhaustive pass join them: most deals that reach this pass are won or proved
/// before that, and for them the others would only cost time.
const LATE_JOIN_STATES: usize = 50_000;
const EARLY_STRATEGIES: usize = 2;

/// When the last pass's parts join, rest and wake: the constants above, or (in tests)
/// small enough for every phase to come up in searches of a few hundred positions.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Schedule {
    pub(crate) late_join_states: usize,
    pub(crate) best_first_states: usize,
    pub(crate) hard_after_nodes: u64,
    /// How long best-first's larger share lasts from then on (HARD_FOR_NODES).
    pub(crate) hard_for_nodes: u64,
    /// When best-first's first strategy alone gets the larger share, until best-first
    /// rests (BEST_FIRST_BURST_AFTER_NODES with at most one cell; never with more,
    /// where best-first has the larger share from the start).
    pub(crate) burst_after_nodes: u64,
    /// One node of restarts (`DepthFirst::restart`) for every this many of the
    /// exhaustive pass's; 0: no restarts.
    pub(crate) restart_every: usize,
}

impl Schedule {
    const DEFAULT: Schedule = Schedule {
        late_join_states: LATE_JOIN_STATES,
        best_first_states: BEST_FIRST_STATES,
        hard_after_nodes: HARD_AFTER_NODES,
        hard_for_nodes: HARD_FOR_NODES,
        burst_after_nodes: BEST_FIRST_BURST_AFTER_NODES,
        restart_every: RESTART_EVERY_FEW_CELLS,
    };

    /// The schedule a job under `rules` runs: with at most one cell, a burst of
    /// best-first and restarts at RESTART_EVERY_FEW_CELLS; with two cells or more, no
    /// burst, best-first wakes sooner (HARD_AFTER_NODES_MORE_CELLS), and only two cells
    /// have restarts (RESTART_EVERY).
    pub(super) fn for_rules(rules: &Variant) -> Schedule {
        if rules.cells <= 1 {
            Schedule::DEFAULT
        } else {
            Schedule {
                hard_after_nodes: HARD_AFTER_NODES_MORE_CELLS,
                burst_after_nodes: u64::MAX,
                restart_every: if rules.cells == 2 { RESTART_EVERY } else { 0 },
                ..Schedule::DEFAULT
            }
        }
    }
}

/// The last pass, which always settles the deal (or runs out of a budget): best-first
/// strategies side by side with the exhaustive depth-first pass, until best-first has
/// stored its share of positions; then the exhaustive pass alone, until the job turns
/// out hard (HARD_AFTER_NODES) and best-first wakes with a larger share. Until then,
/// restarts (with at most two cells) take a share of the exhaustive pass's nodes.
/// Best-first finds most wins soon and short, and some deep ones; restarts find the
/// deep wins that a few orders find soon; the exhaustive pass, which stores a
/// position in 12 to 16 bytes and expands it in a third of the time, makes the large proofs.
pub(super) fn settle(root: &Position, rules: &Variant, meter: &mut Meter, schedule: Schedule) -> Pass {
    if root.is_won() {
        return Pass::Settled(Status::Solved, vec![], 1);
    }
    let budget = meter.budget.max_memory;
    // Half the budget at most for best-first, a sixteenth for the restarts while they
    // run; the exhaustive pass has the rest, and all of it once the others are done.
    let best_first_bytes = budget / 2;
    let per_strategy = best_first_bytes / PORTFOLIO.len();
    let mut restarts = Restarts::new(schedule.restart_every, budget);
    let mut frontiers: Vec<BestFirstSearch> =
        PORTFOLIO[..EARLY_STRATEGIES].iter().map(|&w| BestFirstSearch::new(root, rules, w, per_strategy)).collect();
    let mut exhaustive: Option<DepthFirstSearch> = None;
    let mut moves = Vec::with_capacity(64);
    // Positions stored by best-first searches that ended.
    let mut dropped = 0;
    let best_first_stored =
        |f: &[BestFirstSearch], dropped: usize| dropped + f.iter().map(|f| f.seen.len()).sum::<usize>();
    let stored = |f: &[BestFirstSearch], d: &Option<DepthFirstSearch>, dropped: usize| {
        best_first_stored(f, dropped) + d.as_ref().map_or(0, |d| d.seen.len())
    };
    // An upper bound on the most held at once: each structure's own peak (its store's
    // growth included), as if all had peaked together; `r` is the restarts' most
    // (`Restarts::peak_bytes`).
    let peak_bytes = |f: &[BestFirstSearch], d: &Option<DepthFirstSearch>, r: usize| {
        f.iter().map(BestFirstSearch::peak_bytes).sum::<usize>()
            + d.as_ref().map_or(0, DepthFirstSearch::peak_bytes)
            + r
    };
    let mut depth_first_steps = if rules.cells <= 1 { DEPTH_FIRST_STEPS_FEW_CELLS } else { DEPTH_FIRST_STEPS };
    // Best-first rests, keeping what it stored, from best_first_states until the job is
    // hard; it may first have a burst of the larger share (burst_after_nodes).
    let (mut resting, mut hard, mut burst) = (false, false, false);
    let mut turn = 0usize;
    let outcome = 'search: loop {
        match restarts.run(root, rules, meter) {
            // A restart ran out of its own memory: no other would fare better. They end,
            // and the exhaustive pass gets their memory.
            Some(Pass::Settled(Status::Unknown(Limit::Memory), ..)) => {
                meter.note_memory(peak_bytes(&frontiers, &exhaustive, restarts.peak_bytes()));
                restarts.end(&mut exhaustive);
            }
            Some(Pass::Settled(status, path, _)) => {
                break 'search Pass::Settled(status, path, stored(&frontiers, &exhaustive, dropped))
            }
            _ => {}
        }
        if let Some(search) = exhaustive.as_mut() {
            let steps = if frontiers.is_empty() || resting { CHECK_EVERY as usize } else { depth_first_steps };
            restarts.due += steps;
            for _ in 0..steps {
                if let Some(pass) = search.step(rules, meter) {
                    if matches!(pass, Pass::Settled(Status::Unknown(Limit::Memory), ..))
                        && search.seen.max_bytes() < budget
                    {
                        // The proof needs the memory best-first holds (or held, if its
                        // strategies have all ended) and the restarts': both end here.
                        meter.note_memory(peak_bytes(&frontiers, &exhaustive, restarts.peak_bytes()));
                        dropped = best_first_stored(&frontiers, dropped);
                        frontiers.clear();
                        restarts.end(&mut None);
                        if let Some(search) = exhaustive.as_mut() {
                            search.seen.set_max_bytes(budget);
                        }
                        continue 'search;
                    }
                    break 'search match pass {
                        Pass::Settled(status, path, _) => {
                            Pass::Settled(status, path, stored(&frontiers, &exhaustive, dropped))
                        }
                        Pass::Undecided(_) => unreachable!("the exhaustive pass settles"),
                    };
                }
            }
        }
        let mut k = 0;
        // In a burst only the first strategy runs: it finds nearly all the wins the burst
        // is for, and alone it reaches them sooner and costs the proof less.
        let running = if burst && !hard { 1 } else { usize::MAX };
        while k < frontiers.len().min(running) && !resting {
            match frontiers[k].step(rules, meter, &mut moves) {
                Err(limit) => {
                    break 'search Pass::Settled(
                        Status::Unknown(limit),
                        vec![],
                        stored(&frontiers, &exhaustive, dropped),
                    )
                }
                Ok(Step::Won(path)) => {
                    break 'search Pass::Settled(Status::Solved, path, stored(&frontiers, &exhaustive, dropped))
                }
                // Any one strategy that runs out has expanded every reachable position, with
                // every single-card move among the moves: a proof.
                Ok(Step::Exhausted) if !frontiers[k].keep_runs => {
                    break 'search Pass::Settled(Status::Unsolvable, vec![], stored(&frontiers, &exhaustive, dropped))
                }
                Ok(Step::Exhausted) | Ok(Step::OutOfMemory) => {
                    meter.note_memory(peak_bytes(&frontiers, &exhaustive, restarts.peak_bytes()));
                    dropped += frontiers.remove(k).seen.len();
                    continue;
                }
                Ok(Step::Expanded) => {}
            }
            k += 1;
        }
        turn += 1;
        if exhaustive.is_none()
            && (frontiers.is_empty()
                || (turn.is_multiple_of(64) && best_first_stored(&frontiers, dropped) >= schedule.late_join_states))
        {
            frontiers.extend(
                PORTFOLIO[EARLY_STRATEGIES..].iter().map(|&w| BestFirstSearch::new(root, rules, w, per_strategy)),
            );
            exhaustive = Some(DepthFirstSearch::new(
                root,
                rules,
                DepthFirst::EXHAUSTIVE,
                budget - best_first_bytes - restarts.bytes,
            ));
        }
        if !frontiers.is_empty() && turn.is_multiple_of(64) {
            for f in frontiers.iter_mut() {
                // A strategy's store grows within what its own queue and positions leave
                // of its share.
                let others = f.bytes() - f.seen.bytes();
                f.seen.set_others(others);
            }
            let held = frontiers.iter().map(BestFirstSearch::bytes).sum::<usize>();
            meter.note_memory(peak_bytes(&frontiers, &exhaustive, restarts.peak_bytes()));
            // Best-first ends when it outgrows its half of the budget, or when its hunt
            // past the hard point is over (HARD_FOR_NODES): the exhaustive pass has the
            // time and the memory.
            let hunt_over = hard
                && exhaustive.is_some()
                && meter.nodes >= schedule.hard_after_nodes.saturating_add(schedule.hard_for_nodes);
            if held > best_first_bytes || hunt_over {
                dropped = best_first_stored(&frontiers, dropped);
                frontiers.clear();
                if let Some(search) = exhaustive.as_mut() {
                    search.seen.set_max_bytes(budget - restarts.bytes);
                }
            } else if !hard
                && exhaustive.is_some()
                && best_first_stored(&frontiers, dropped) >= schedule.best_first_states
            {
                // Only beside the exhaustive pass: resting alone, nothing would run.
                resting = true;
            }
        }
        if !burst && meter.nodes >= schedule.burst_after_nodes {
            (burst, depth_first_steps) = (true, DEPTH_FIRST_STEPS);
        }
        if !hard && meter.nodes >= schedule.hard_after_nodes {
            (hard, resting, depth_first_steps) = (true, false, DEPTH_FIRST_STEPS);
            // Best-first's larger share takes over the hunt for deep wins; the restarts
            // end, and the exhaustive pass gets their memory.
            meter.note_memory(peak_bytes(&frontiers, &exhaustive, restarts.peak_bytes()));
            restarts.end(&mut exhaustive);
        }
    };
    meter.note_memory(peak_bytes(&frontiers, &exhaustive, restarts.peak_bytes()));
    // What the restarts stored counts among the job's positions.
    match outcome {
        Pass::Settled(status, path, stored) => Pass::Settled(status, path, stored + restarts.stored()),
        Pass::Undecided(_) => unreachable!("the last pass settles"),
    }
}

/// The restarts of the last pass (`DepthFirst::restart`): one at a time, each given
/// one node for every `every` of the exhaustive pass's (counted in `due`), each in its
/// own order, until a win, or until they end (`end`).
struct Restarts {
    every: usize,
    /// The exhaustive pass's nodes not yet matched by restart nodes.
    due: usize,
    /// Their share of the memory budget while they run; 0 once they have ended.
    bytes: usize,
    current: Option<DepthFirstSearch>,
    /// Restarts made; positions stored by those that ended, and the most one held.
    made: u64,
    ended_stored: usize,
    ended_peak: usize,
}

impl Restarts {
    fn new(every: usize, budget: usize) -> Restarts {
        let bytes = if every > 0 { budget / RESTART_MEMORY_SHARE } else { 0 };
        Restarts { every, due: 0, bytes, current: None, made: 0, ended_stored: 0, ended_peak: 0 }
    }

    /// Runs the restart nodes due. Some when a restart won (Solved, with its line), a
    /// budget of the job ran out (Unknown), or the restart ran out of its own memory
    /// (Unknown(Memory): the caller ends the restarts).
    fn run(&mut self, root: &Position, rules: &Variant, meter: &mut Meter) -> Option<Pass> {
        if self.bytes == 0 || self.due < self.every {
            return None;
        }
        let steps = self.due / self.every;
        self.due %= self.every;
        for _ in 0..steps {
            let (bytes, made) = (self.bytes, &mut self.made);
            let r = self.current.get_or_insert_with(|| {
                *made += 1;
                DepthFirstSearch::new(root, rules, DepthFirst::restart(*made), bytes)
            });
            match r.step(rules, meter) {
                None => {}
                Some(pass @ Pass::Settled(Status::Solved | Status::Unknown(_), ..)) => return Some(pass),
                // It gave up, or ran out of positions (which proves nothing here: the
                // exhaustive pass proves): the next one starts next round (the nodes
                // still due this round are forgone).
                Some(_) => {
                    self.retire();
                    break;
                }
            }
        }
        None
    }

    fn retire(&mut self) {
        if let Some(r) = self.current.take() {
            self.ended_stored += r.seen.len();
            self.ended_peak = self.ended_peak.max(r.peak_bytes());
        }
    }

    /// Ends the restarts for good; their share of memory goes to `exhaustive`, if it runs.
    /// What they held no longer counts towards the peak (the caller has noted it): the
    /// exhaustive pass may now hold it.
    fn end(&mut self, exhaustive: &mut Option<DepthFirstSearch>) {
        self.retire();
        self.ended_peak = 0;
        let freed = std::mem::take(&mut self.bytes);
        if let Some(search) = exhaustive.as_mut() {
            search.seen.set_max_bytes(search.seen.max_bytes() + freed);
        }
    }

    /// The most one restart has held.
    fn peak_bytes(&self) -> usize {
        self.current.as_ref().map_or(0, DepthFirstSearch::peak_bytes).max(self.ended_peak)
    }

    /// Positions the restarts have stored.
    fn stored(&self) -> usize {
        self.ended_stored + self.current.as_ref().map_or(0, |r| r.seen.len())
    }
}

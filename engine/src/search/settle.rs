//! The last pass: best-first strategies, restarts and the exhaustive depth-first pass side by side.

use crate::position::Position;
use crate::variant::Variant;

use super::best_first::{BestFirstSearch, Step};
use super::depth_first::{DepthFirst, DepthFirstSearch};
use super::meter::{Meter, CHECK_EVERY};
use super::score::PORTFOLIO;
use super::{Limit, Pass, Status};

/// How big the best-first pass may grow before it rests and the exhaustive pass goes on
/// alone. Deals 3102 and 5023 with 2 cells take 1.1 to 1.3 million; a million sent them
/// to the exhaustive pass, which took ten times as long and found solutions of 4,000 moves.
const BEST_FIRST_STATES: usize = 3_000_000;
/// Node expansions after which a job counts as one of the hard few: best-first wakes,
/// gets a round for every DEPTH_FIRST_STEPS exhaustive nodes whatever the cells, for
/// HARD_FOR_NODES nodes (or until it holds its half of the memory budget). Some deep
/// wins lie where the exhaustive pass would reach them only after a billion positions,
/// and best-first finds them in a few million: deal 13599 with 1 cell in 5 s, 17760
/// with 2 cells in 17 s. But in most jobs best-first's time is spent in vain, and a
/// lost proof needs every node the budget allows, so until then it keeps its small
/// share. A 30-second job expands at most 38 million on this project's machines, so
/// a hard one turns hard with most of the sweeps' default of 90 s still to come (45 s
/// when this was tuned: some 10 s of it); a node count rather than a time keeps every
/// search repeatable. With 90 s, waking at 60 million was tried, one build per core, on
/// the eight 1-cell jobs of the full table decided past 40 million: 361.6 s, not 356.4.
/// A lost proof past 72 million pays for the hunt all the same, only later, and 20752
/// with 1 cell, which the hunt wins, took 53.6 s, not 36.0.
const HARD_AFTER_NODES: u64 = 40_000_000;
/// The same with two cells or more, where the jobs past 30 million nodes are few (8 of
/// 32,000 with 2 cells in the full table) and the wins among them are mostly best-first's:
/// woken at 30 million rather than 40, 17760 with 2 cells is won at 38.9 million nodes
/// (36.5 s), not 48.9 million (42.8 s; unknown at 45 s in the full table), and 13705 at
/// 33.0 million, not 43.0 (27.2 s, not 35.8). The two lost jobs past 30 million, and 267
/// (won by the exhaustive pass at 36.9 million), pay the earlier share: 1 to 7 s each.
/// Side by side, six 2-cell jobs of 25 to 49 million nodes took 165.8 s, against 171.4 s.
/// (Measured on FreeCell; the other variants with two cells or more follow it.) With one
/// cell, lost proofs of 30 to 45 million positions are common: woken at 35 million,
/// 26063 with 1 cell took 44.1 s to prove, at the edge of the 45 s default of then.
/// Since then a card put back (`DepthFirst::return_loose_card`) has made the exhaustive
/// pass's nodes dearer and its proofs smaller: of the full table's 2-cell jobs past 20
/// million nodes, three are wins of the hunt and one a lost proof (14790), besides the
/// two left unknown at 90 s (982 and 11266), and only 267
/// (won by the exhaustive pass) and 20792 (lost) lie between 17 and 20 million. Woken
/// at 20 million rather than 30, side by side: 29987 won in 21.0 s, not 30.5; 13705 in
/// 21.3 s, not 28.5; 17760 in 26.2 s, not 35.6; 14790 proved lost in 39.4 s, not 36.3.
const HARD_AFTER_NODES_MORE_CELLS: u64 = 20_000_000;
/// Node expansions, from the hard point on, for which best-first has its larger share;
/// then it ends, and the exhaustive pass goes on alone with the whole memory budget.
/// The deep wins best-first finds come early in that hunt: 13705 with 2 cells 3
/// million nodes in, 17760 with 2 cells 8.9 million, 20752 with 1 cell 8.3 million. A
/// lost proof pays for every node of it: while best-first hunts with all its
/// strategies, the exhaustive pass has about 40% of the time. Measured side by side
/// (one build per core) on five lost 1-cell jobs the default of then, 45 s, did not decide,
/// whose proofs take 57 to 80 million positions: 357.1 s, not 402.7 (26030 70.3 s, not
/// 86.8; 27708 89.6 s, not 106.1). The deep wins above are found at the same node.
const HARD_FOR_NODES: u64 = 12_000_000;
/// Node expansions of the exhaustive pass for each round in which every best-first
/// strategy expands one; a best-first node costs about three times as much, so the
/// exhaustive pass has about 40% of the time while best-first runs. (On deals
/// 301..1000 with 2 cells, 6 beat 3, 12 and 24; on the 1,981 searched 2-cell jobs of
/// deals 1..2000, 6 and 24 tie and 96 is 3% slower.)
const DEPTH_FIRST_STEPS: usize = 6;
/// The same with at most one free cell, where three searched jobs in four are lost and
/// best-first's time is mostly spent in vain: the exhaustive pass has 90% of the time.
/// (On the 1,589 searched 1-cell jobs of deals 1..2000: 184 s, against 198 s with 6.)
const DEPTH_FIRST_STEPS_FEW_CELLS: usize = 96;
/// Node expansions after which a job with at most one free cell has a burst of
/// best-first: its first strategy alone, with the larger share (DEPTH_FIRST_STEPS),
/// until best-first has stored BEST_FIRST_STATES and rests. Most lost jobs are proved
/// before this, and pay nothing; the deep wins that the first strategy finds in a few
/// million positions no longer wait for HARD_AFTER_NODES. Measured side by side (one
/// build per core) on 15 one-cell wins of 6 to 53 s in the full table: 228 s became 156
/// s with all strategies in the burst, and 185 s became 111 s with the first alone
/// (12284 from 45 to 12 s, 13599 from 33 to 5 s). The first alone also costs 12 lost
/// jobs of 4 to 13 million positions 73 s where all three cost 96 s. At 2 million, 25
/// of the 90 one-cell wins of over 0.5 s in the full table that best-first found came
/// within 0.5 million nodes of the burst's start: the first strategy had needed only a
/// few tens of thousands of nodes more. On the 1-cell jobs of deals 1..2000 (20 s
/// each, every job run five times), the burst from 0.5 million rather than 2 took the
/// 431 wins 19.9 million nodes, not 24.4, and the 1,568 lost jobs 1.1% more (38.6
/// million, not 38.1); side by side, 0.5 million beat 1 million by 10 s in 320, and
/// 0.1 million cost the lost jobs 6.8 s more for no faster win. On deals 1..10000,
/// side by side: the 2,040 wins 159.4 million nodes, not 176.6 (134.9 s, not 149.8),
/// the 7,955 lost jobs 182.5 million, not 178.8 (137.0 s, not 129.3).
const BEST_FIRST_BURST_AFTER_NODES: u64 = 500_000;
/// One node of restarts for every RESTART_EVERY of the exhaustive pass's with two cells,
/// and for every RESTART_EVERY_FEW_CELLS with one cell or none, until the job turns
/// hard (then best-first's larger share hunts the deep wins). Jobs with more cells
/// reach this pass rarely, and get none. Measured side by side (one build per core, 45
/// s a job) on the full table's wins of over 1 s: 40 with 2 cells took 235.0 million
/// nodes, not 273.0 (204.1 s, not 232.4; 3311 0.6 s, not 18.3; 209 0.4 s, not 11.5);
/// 40 with 1 cell 179.4 million, not 225.6 (5901 0.0 s, not 20.5; 5009 0.2 s, not
/// 18.2). The lost jobs pay the share: 25 of 1 to 10 s took 6.2% more nodes with 2
/// cells (72.2 s, 76.7 s) and 4.1% more with 1. One node in 6 with 2 cells won no more
/// and cost the lost jobs twice as much (12.3% more nodes); 267 with 2 cells, which the
/// exhaustive pass wins at 39 million nodes, then ran out of its 45 s.
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

//! The search: quick passes to find solutions fast, then an exhaustive one to settle the rest.
//!
//! 1. Greedy depth-first passes of up to a thousand nodes each, which give up sooner
//!    when they stop going deeper, skip moves breaking up runs, and (the later ones)
//!    have their move order shaken. They only ever find solutions: running out
//!    proves nothing.
//! 2. Best-first searches side by side (one with every move, one that skips
//!    run-breaking moves, a third later) up to a size bound, at which they rest; a job
//!    that turns out hard wakes them with a larger share and a larger bound. With two
//!    cells or fewer, restarts run beside them: short depth-first tries, each in its
//!    own shaken order, that only find wins.
//! 3. A depth-first search over single-card moves (plus runs under the relaxed rule,
//!    where they are real moves) that ends only with a win, exhaustion, or a budget.
//!
//! Every pass plays safe foundation moves at once and merges positions by canonical
//! fingerprint. The complete best-first search and pass 3 skip nothing else, so either
//! running out of positions has proved the deal lost.
//!
//! A proof too big for memory goes on as a layered proof (`layered`), one class of
//! positions at a time; once a deal is won, `shortest` looks for its shortest line.
//!
//! One file per part, each depending only on those listed before it (the modules form
//! no cycle; `cargo test` builds them so, and a test of the crate holds this list to
//! the files' own `use` lines):
//!
//! - `meter`: the budgets, counted and checked;
//! - `play`: a move and the safe foundation moves after it, taken back again;
//! - `score`: how positions are weighed, and the best-first strategies;
//! - `loose_return`: the loose card a proof puts back;
//! - `spill`: a layered proof's entries on disk, and its kept proofs;
//! - `best_first`: one best-first search (uses meter, play, score);
//! - `depth_first`: the quick passes, the restarts and the exhaustive pass (uses meter,
//!   play, score, loose_return, spill);
//! - `frontier`: a bucket too big for memory searched breadth first (uses meter, play,
//!   spill);
//! - `settle`: the last pass, which runs best-first and depth-first side by side;
//! - `bucket`: one bucket of a layered proof, searched depth first from its entries
//!   (uses depth_first, spill);
//! - `level_threads`: the buckets of one level on several threads (uses bucket);
//! - `layered`: the layered proof's driver (uses bucket, level_threads, frontier, spill);
//! - `shortest`: the shortest line (uses meter);
//! - this file: the order of the passes, and the results.

mod best_first;
mod bucket;
mod depth_first;
mod frontier;
mod frontier_threads;
mod layered;
mod level_threads;
mod loose_return;
mod meter;
mod play;
mod score;
mod settle;
mod shortest;
mod spill;

use std::time::Instant;

use crate::position::{Move, Played, Position};
use crate::variant::Variant;

use depth_first::{depth_first, DepthFirst};
#[cfg(test)]
pub(crate) use frontier::applies as breadth_first_applies;
#[cfg(test)]
pub(crate) use frontier_threads::ON_THREADS;
pub use layered::drop_kept;
use layered::{is_kept, layered, Layered};
#[cfg(test)]
pub(crate) use layered::{BREADTH_FIRST, SENT_BREADTH_FIRST};
#[cfg(test)]
pub(crate) use level_threads::DEFERRED;
use meter::Meter;
use settle::settle;
pub(crate) use settle::Schedule;
pub use spill::Spill;

pub use score::Weights;
pub use shortest::{cost as line_cost, lower_bounds, Effort, Guide, GUIDE, PROOF_NODES};

/// Which budget stopped a search that did not settle its deal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    Nodes,
    Seconds,
    Memory,
    Interrupted,
    /// A layered proof's disk (`Spill`) ran out or failed.
    Disk,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::Nodes => "nodes",
            Limit::Seconds => "seconds",
            Limit::Memory => "memory",
            Limit::Interrupted => "interrupted",
            Limit::Disk => "disk",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Status {
    Solved,
    Unsolvable,
    Unknown(Limit),
}

#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub max_nodes: u64,
    pub max_seconds: f64,
    pub max_memory: usize,
}

impl Default for Budget {
    /// 8 GiB: two workers fit a 24 GiB machine with room for Python and the OS.
    fn default() -> Budget {
        Budget { max_nodes: u64::MAX, max_seconds: f64::INFINITY, max_memory: 8 << 30 }
    }
}

/// What a job asks of the search beside its position and rules.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub budget: Budget,
    /// Where a proof that outgrows memory goes on as a layered proof (`Spill`).
    pub spill: Option<Spill>,
    /// Start the layered proof at once (needs `spill`): `prove_layered`.
    pub layered: bool,
    /// Once the deal is won, search for its shortest line (`shortest`), within what is
    /// left of the budget.
    pub shortest: bool,
    /// Positions the search for the shortest line may expand to prove it shortest (None:
    /// `shortest::PROOF_NODES`).
    pub shortest_nodes: Option<u64>,
}

/// What the search for the shortest line did, for a won job that asked for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortestOutcome {
    /// Whether no line has fewer moves that do not go to a foundation than the one found.
    pub proved: bool,
    /// The budget that stopped the search before it had done what it does; its best line
    /// so far is the outcome's.
    pub limit: Option<Limit>,
    /// Proved: no winning line has fewer moves not to a foundation (the line's own count
    /// when `proved`).
    pub bound: u32,
}

/// What a search found, and what it cost.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: Status,
    /// Every move from the start, foundation moves included; empty unless solved.
    pub solution: Vec<Move>,
    /// Positions expanded.
    pub nodes: u64,
    /// Distinct positions stored.
    pub states: u64,
    /// Deepest search path, in moves chosen (automatic foundation moves not counted).
    pub max_depth: u32,
    /// Most bytes the search's own structures held at once.
    pub peak_memory: usize,
    /// Most bytes a layered proof (`Spill`) held on disk at once; 0 without one.
    pub peak_disk: u64,
    pub seconds: f64,
    /// A layered proof that went on from one kept in its spill directory counts in
    /// `nodes` and `states` what the runs before did, and their time here; `seconds` is
    /// this run's. 0 otherwise.
    pub resumed_seconds: f64,
    /// Whether a layered proof stopped by a budget was kept to go on from.
    pub kept: bool,
    /// What a layered proof has to say of its files, in a line: a kept proof it did not
    /// go on from and why (it started afresh), or files found damaged (the job is
    /// then unknown, `Limit::Disk`). None otherwise.
    pub note: Option<String>,
    /// For a won job that asked for the shortest line, what that search did; its line
    /// is `solution`.
    pub shortest: Option<ShortestOutcome>,
}

/// Quick passes after the first, each with its move order shaken by a different seed:
/// a slightly different order often goes right where the first went wrong, far more
/// cheaply than a best-first search. With fewer cells most searched jobs are lost and
/// each pays for every pass, so they get fewer (docs/tuning.md, `shaken_quick_passes`).
fn shaken_quick_passes(cells: usize) -> u64 {
    match cells {
        0 | 1 => 0,
        2 => 4,
        _ => 20,
    }
}

/// A win still longer than this once shortened is looked for again, by best-first
/// (`straighter`). The exhaustive pass's lines follow its depth-first path, which can
/// run tens of thousands of moves deep (deal 253 with 2 cells: 41,306), and shortening
/// such a line can leave it at 317 moves; best-first's lines are short to begin with.
const STRAIGHTER_PAST: usize = 250;
/// Positions that second search may expand: deal 253 with 2 cells needs some 100,000.
const STRAIGHTER_NODES: u64 = 2_000_000;

/// A shortened win of the first best-first strategy alone from `root` (the start after
/// `opening`, its automatic moves), within STRAIGHTER_NODES nodes and the job's other
/// budgets (`meter`); None if it finds none by then.
fn straighter(
    start: &Position,
    root: &Position,
    opening: &[Played],
    rules: &Variant,
    meter: &mut Meter,
) -> Option<Vec<Move>> {
    let mut search = best_first::BestFirstSearch::new(root, rules, score::PORTFOLIO[0], meter.budget.max_memory);
    let mut moves = Vec::with_capacity(64);
    let last = meter.nodes.saturating_add(STRAIGHTER_NODES);
    let mut won = None;
    while meter.nodes < last {
        match search.step(rules, meter, &mut moves) {
            Ok(best_first::Step::Won(path)) => {
                won = Some(path);
                break;
            }
            Ok(best_first::Step::Expanded) => {}
            _ => break,
        }
    }
    // Its memory counts in the job's peak like any search's.
    meter.note_memory(search.peak_bytes());
    let line: Vec<Move> = opening.iter().chain(won?.iter()).map(|p| p.m).collect();
    Some(crate::shorten::shorten(start, rules, &line))
}

/// Decides `start` under `rules` as `request` asks. `interrupted` is polled about ten
/// times a second; when it says true the search stops with `Limit::Interrupted`.
pub fn decide(start: &Position, rules: &Variant, request: &Request, interrupted: &mut dyn FnMut() -> bool) -> Outcome {
    let shortest = request.shortest.then_some(request.shortest_nodes);
    match request.spill.as_ref() {
        Some(spill) if request.layered => {
            prove_layered_or_win(start, rules, request.budget, spill, shortest, interrupted)
        }
        spill => solve_spilling(start, rules, request.budget, spill, shortest, interrupted),
    }
}

/// Decides `start` under `rules` within `budget`.
pub fn solve(start: &Position, rules: &Variant, budget: Budget, interrupted: &mut dyn FnMut() -> bool) -> Outcome {
    solve_spilling(start, rules, budget, None, None, interrupted)
}

/// Before a kept proof is gone on from, the searches in memory get this many positions:
/// a job kept while it was being proved may be won all the same (a proof stopped early,
/// or started with `--layered` on a job it cannot win), and the layered proof, which
/// keeps no path, would hold its win back for as long as it ran. A second or two, next
/// to a proof of minutes or hours.
const KEPT_PROBE_NODES: u64 = 2_000_000;

/// The searches in memory from `root`: the quick passes, then the last pass. Its
/// verdict, the path of a win, and the positions stored.
fn in_memory(root: &Position, rules: &Variant, meter: &mut Meter) -> (Status, Vec<Played>, usize) {
    let mut states = 0;
    for n in 0..=shaken_quick_passes(rules.cells) {
        match depth_first(root, rules, meter, DepthFirst::quick(n, rules)) {
            Pass::Settled(status, path, stored) => return (status, path, states + stored),
            Pass::Undecided(stored) => states += stored,
        }
    }
    match settle(root, rules, meter, Schedule::for_rules(rules)) {
        Pass::Settled(status, path, stored) => (status, path, states + stored),
        Pass::Undecided(_) => unreachable!("the last pass settles"),
    }
}

/// `in_memory` within at most `nodes` more positions (and the job's own budgets): None
/// if that ran out before the job's own positions did, the job undecided.
fn in_memory_for(
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
    nodes: u64,
) -> Option<(Status, Vec<Played>, usize)> {
    let job_nodes = meter.budget.max_nodes;
    meter.budget.max_nodes = job_nodes.min(meter.nodes.saturating_add(nodes));
    let found = in_memory(root, rules, meter);
    meter.budget.max_nodes = job_nodes;
    match found.0 {
        Status::Unknown(Limit::Nodes) if meter.nodes < job_nodes => None,
        // Out of memory in a short look: the kept proof, which needs little, goes on.
        Status::Unknown(Limit::Memory) => None,
        _ => Some(found),
    }
}

/// The line of a win (`path` from `root`, the start after its `opening`), shortened,
/// and with `shortest` (Some: the proof's positions, if given), the shortest the search
/// finds, with what that search did.
fn won_line(
    start: &Position,
    root: &Position,
    opening: &[Played],
    path: &[Played],
    rules: &Variant,
    shortest: Option<Option<u64>>,
    meter: &mut Meter,
) -> (Vec<Move>, Option<ShortestOutcome>) {
    let line: Vec<Move> = opening.iter().chain(path.iter()).map(|p| p.m).collect();
    let short = crate::shorten::shorten(start, rules, &line);
    let found = if short.len() > STRAIGHTER_PAST {
        straighter(start, root, opening, rules, meter).filter(|s| s.len() < short.len()).unwrap_or(short)
    } else {
        short
    };
    match shortest {
        Some(proof_nodes) => {
            let search = shortest::shortest_line(start, rules, &found, proof_nodes, meter);
            let outcome = ShortestOutcome { proved: search.proved, limit: search.limit, bound: search.bound };
            (search.line.unwrap_or(found), Some(outcome))
        }
        None => (found, None),
    }
}

/// `solve`, and when its proof runs out of memory, a layered proof (`prove_layered`)
/// from scratch within what is left of the other budgets, if `spill` says where; once
/// won, with `shortest` (Some: the proof's own positions, if given), the search for the
/// shortest line.
fn solve_spilling(
    start: &Position,
    rules: &Variant,
    budget: Budget,
    spill: Option<&Spill>,
    shortest: Option<Option<u64>>,
    interrupted: &mut dyn FnMut() -> bool,
) -> Outcome {
    let begin = Instant::now();
    let mut meter = Meter::new(budget, begin, interrupted);
    let mut root = start.clone();
    let mut opening = vec![];
    root.autoplay(rules, &mut opening);
    let mut note = None;
    let mut states = 0;
    // A proof kept from an earlier run goes on, if it checks out, after a short look in
    // memory (KEPT_PROBE_NODES): the searches in memory ran out of memory before it
    // began, or never ran (`--layered`).
    let mut settled = None;
    if let Some(spill) = spill.filter(|spill| is_kept(&root, rules, spill)) {
        match in_memory_for(&root, rules, &mut meter, KEPT_PROBE_NODES) {
            Some(found) if matches!(found.0, Status::Solved | Status::Unsolvable) => {
                // Settled without it: nothing would ever go on from the kept proof.
                drop_kept(start, rules, &spill.dir);
                settled = Some(found);
            }
            // A budget ran out in the short look: the kept proof stays, to go on from.
            Some(found) => settled = Some(found),
            None => {
                let proof = layered(&root, rules, &mut meter, spill, true);
                if matches!(proof.pass, Pass::Settled(..)) {
                    if !proof.met_win {
                        return layered_outcome(proof, &meter, begin);
                    }
                    // A win met: the searches in memory look for its line, with what is left.
                    states += proof.stored;
                    note = proof.note;
                } else {
                    note = proof.note;
                }
            }
        }
    }
    let (mut status, path, stored) = match settled {
        Some(found) => found,
        None => in_memory(&root, rules, &mut meter),
    };
    states += stored;
    let (mut peak_disk, mut kept) = (0, false);
    if let (Status::Unknown(Limit::Memory), Some(spill)) = (status, spill) {
        let proof = layered(&root, rules, &mut meter, spill, false);
        status = match proof.pass {
            Pass::Settled(status, ..) => status,
            Pass::Undecided(_) => unreachable!("a layered proof settles"),
        };
        states += proof.stored;
        peak_disk = proof.peak_disk;
        kept = proof.kept;
        let met = proof.met_win.then(|| {
            "the layered proof met a won position: the deal is won, and a search with more memory finds its line"
                .to_string()
        });
        note = [note, proof.note, met].into_iter().flatten().reduce(|a, b| format!("{a}; then {b}"));
    }
    let (solution, shortest_outcome) = if status == Status::Solved {
        won_line(start, &root, &opening, &path, rules, shortest, &mut meter)
    } else {
        (vec![], None)
    };
    Outcome {
        status,
        solution,
        nodes: meter.nodes,
        states: states as u64,
        max_depth: meter.max_depth,
        peak_memory: meter.peak_memory,
        peak_disk,
        seconds: begin.elapsed().as_secs_f64(),
        resumed_seconds: 0.0,
        kept,
        note,
        shortest: shortest_outcome,
    }
}

/// Proves `start` lost with a layered proof alone: the exhaustive pass, one class of
/// positions at a time, the entries of later classes kept in files under `spill.dir`
/// (see `layered`). Its verdict is Unsolvable or Unknown, never Solved: it keeps no
/// path, so a win it meets leaves the job unknown (`Limit::Memory`). Stopped by a
/// budget, it is kept there, and the next proof of the job there goes on from it.
pub fn prove_layered(
    start: &Position,
    rules: &Variant,
    budget: Budget,
    spill: &Spill,
    interrupted: &mut dyn FnMut() -> bool,
) -> Outcome {
    let begin = Instant::now();
    let mut meter = Meter::new(budget, begin, interrupted);
    let mut root = start.clone();
    root.autoplay(rules, &mut vec![]);
    let proof = layered(&root, rules, &mut meter, spill, false);
    layered_outcome(proof, &meter, begin)
}

/// `prove_layered`, as `--layered` asks for it: a win the proof meets is a won job, and
/// the searches in memory find its line with what is left of the budgets (a job given
/// to a layered proof is one thought lost, but the verdict is the deal's, not the
/// guess's).
fn prove_layered_or_win(
    start: &Position,
    rules: &Variant,
    budget: Budget,
    spill: &Spill,
    shortest: Option<Option<u64>>,
    interrupted: &mut dyn FnMut() -> bool,
) -> Outcome {
    let begin = Instant::now();
    let mut meter = Meter::new(budget, begin, interrupted);
    let mut root = start.clone();
    let mut opening = vec![];
    root.autoplay(rules, &mut opening);
    let proof = layered(&root, rules, &mut meter, spill, false);
    if !proof.met_win {
        return layered_outcome(proof, &meter, begin);
    }
    let (status, path, stored) = in_memory(&root, rules, &mut meter);
    let (solution, shortest_outcome) = if status == Status::Solved {
        won_line(start, &root, &opening, &path, rules, shortest, &mut meter)
    } else {
        (vec![], None)
    };
    let met = "the layered proof met a won position; the searches in memory looked for its line".to_string();
    Outcome {
        status,
        solution,
        nodes: meter.nodes,
        states: (proof.stored + stored) as u64,
        max_depth: meter.max_depth,
        peak_memory: meter.peak_memory,
        peak_disk: proof.peak_disk,
        seconds: begin.elapsed().as_secs_f64(),
        resumed_seconds: proof.earlier.seconds,
        kept: false,
        note: Some(proof.note.map_or(met.clone(), |n| format!("{n}; then {met}"))),
        shortest: shortest_outcome,
    }
}

/// The outcome of a job that a layered proof alone settled or left.
fn layered_outcome(proof: Layered, meter: &Meter, begin: Instant) -> Outcome {
    let status = match proof.pass {
        Pass::Settled(status, ..) => status,
        Pass::Undecided(_) => unreachable!("a layered proof settles"),
    };
    Outcome {
        status,
        solution: vec![],
        nodes: proof.earlier.nodes + meter.nodes,
        states: proof.stored as u64,
        max_depth: meter.max_depth,
        peak_memory: meter.peak_memory,
        peak_disk: proof.peak_disk,
        seconds: begin.elapsed().as_secs_f64(),
        resumed_seconds: proof.earlier.seconds,
        kept: proof.kept,
        note: proof.note,
        shortest: None,
    }
}

enum Pass {
    Settled(Status, Vec<Played>, usize),
    Undecided(usize),
}

/// The exhaustive pass alone, from `start` after its safe foundation moves: its verdict
/// and the positions it stored. With `rest_last_card` false it also moves the card just
/// moved on again, so tests can check that leaving it alone loses no position.
#[cfg(test)]
pub(crate) fn exhaustive_pass(start: &Position, rules: &Variant, rest_last_card: bool) -> (Status, usize) {
    exhaustive_pass_returning(start, rules, rest_last_card, true)
}

/// `exhaustive_pass`, and with `return_loose_card` false it also stores the positions
/// whose loose card has to go back (`Position::loose_card_return`), so tests can check
/// that replacing them loses no win.
#[cfg(test)]
pub(crate) fn exhaustive_pass_returning(
    start: &Position,
    rules: &Variant,
    rest_last_card: bool,
    return_loose_card: bool,
) -> (Status, usize) {
    one_pass_to_the_end(start, rules, |root, meter| {
        match depth_first(root, rules, meter, DepthFirst::exhaustive(rest_last_card, return_loose_card)) {
            Pass::Settled(status, _, stored) => (status, stored),
            Pass::Undecided(_) => unreachable!("the exhaustive pass settles"),
        }
    })
}

/// The first best-first strategy (which skips no move) alone, to the end, from `start`
/// after its safe foundation moves: its verdict and the positions it stored.
#[cfg(test)]
pub(crate) fn complete_best_first(start: &Position, rules: &Variant, rest_last_card: bool) -> (Status, usize) {
    use best_first::{BestFirstSearch, Step};
    use score::PORTFOLIO;
    one_pass_to_the_end(start, rules, |root, meter| {
        let mut frontier = BestFirstSearch::new(root, rules, PORTFOLIO[0], Budget::default().max_memory);
        assert!(!frontier.keep_runs, "the first strategy skips no move");
        frontier.rest_last_card = rest_last_card;
        let mut moves = vec![];
        loop {
            match frontier.step(rules, meter, &mut moves) {
                Ok(Step::Expanded) => {}
                Ok(Step::Won(_)) => return (Status::Solved, frontier.seen.len()),
                Ok(Step::Exhausted) => return (Status::Unsolvable, frontier.seen.len()),
                Ok(Step::OutOfMemory) | Err(_) => unreachable!("no budget runs out on a small position"),
            }
        }
    })
}

/// The last pass alone, to the end, from `start` after its safe foundation moves, with
/// `schedule`: its verdict and the nodes it expanded.
#[cfg(test)]
pub(crate) fn settle_pass(start: &Position, rules: &Variant, schedule: Schedule) -> (Status, u64) {
    let mut nodes = 0;
    let (status, _) = one_pass_to_the_end(start, rules, |root, meter| {
        let verdict = match settle(root, rules, meter, schedule) {
            Pass::Settled(status, _, stored) => (status, stored),
            Pass::Undecided(_) => unreachable!("the last pass settles"),
        };
        nodes = meter.nodes;
        verdict
    });
    (status, nodes)
}

/// Restart `n` alone from `start` after its safe foundation moves: its verdict (or
/// None if it gave up) and, if it won, its moves from there.
#[cfg(test)]
pub(crate) fn restart_pass(start: &Position, rules: &Variant, n: u64) -> Option<(Status, Vec<Move>)> {
    let mut found = None;
    one_pass_to_the_end(start, rules, |root, meter| match depth_first(root, rules, meter, DepthFirst::restart(n)) {
        Pass::Settled(status, path, stored) => {
            found = Some((status, path.iter().map(|p| p.m).collect()));
            (status, stored)
        }
        Pass::Undecided(stored) => (Status::Unknown(Limit::Nodes), stored),
    });
    found
}

/// Runs `pass` from `start` after its safe foundation moves, with the default budget.
#[cfg(test)]
fn one_pass_to_the_end(
    start: &Position,
    rules: &Variant,
    pass: impl FnOnce(&Position, &mut Meter) -> (Status, usize),
) -> (Status, usize) {
    let mut root = start.clone();
    root.autoplay(rules, &mut vec![]);
    if root.is_won() {
        return (Status::Solved, 1);
    }
    let mut never = || false;
    let mut meter = Meter::new(Budget::default(), Instant::now(), &mut never);
    pass(&root, &mut meter)
}

/// What `shortest_of` found.
pub struct ShortestFound {
    /// The shortest line found from the start, if one is shorter than the line given.
    pub line: Option<Vec<Move>>,
    pub proved: bool,
    pub limit: Option<Limit>,
    /// As `ShortestOutcome::bound`.
    pub bound: u32,
    pub nodes: u64,
    pub seconds: f64,
}

/// The search for the shortest line from `start` that `decide` runs with `shortest`,
/// begun from `known` (a winning line from `start`) rather than from a search for a
/// win: for lines already found, such as a table's.
pub fn shortest_of(
    start: &Position,
    rules: &Variant,
    known: &[Move],
    budget: Budget,
    proof_nodes: Option<u64>,
    interrupted: &mut dyn FnMut() -> bool,
) -> ShortestFound {
    let begin = Instant::now();
    let mut meter = Meter::new(budget, begin, interrupted);
    let found = shortest::shortest_line(start, rules, known, proof_nodes, &mut meter);
    ShortestFound {
        line: found.line,
        proved: found.proved,
        limit: found.limit,
        bound: found.bound,
        nodes: meter.nodes,
        seconds: begin.elapsed().as_secs_f64(),
    }
}

/// A line from `start` shorter than `known` (a winning line from it), as hard as
/// `effort` says, within `budget`: the line if one is shorter, whether none is shorter
/// than the best, how many positions were expanded, and the proved lower bound. (For
/// tuning the effort, and bounding a table's lines; `solve` spends the default.)
pub fn shorter_line(
    start: &Position,
    rules: &Variant,
    known: &[Move],
    effort: &shortest::Effort,
    budget: Budget,
    interrupted: &mut dyn FnMut() -> bool,
) -> (Option<Vec<Move>>, bool, u64, u32) {
    let mut meter = Meter::new(budget, Instant::now(), interrupted);
    let found = shortest::shorter_line(start, rules, known, effort, &mut meter);
    (found.line, found.proved, meter.nodes, found.bound)
}

#[cfg(test)]
mod tests;

//! The search: quick passes to find solutions fast, then an exhaustive one to settle the rest.
//!
//! 1. Greedy depth-first passes of up to a thousand nodes each, which give up sooner
//!    when they stop going deeper, skip moves breaking up runs, and (the later ones)
//!    have their move order shaken. They only ever find solutions: running out
//!    proves nothing.
//! 2. Two best-first searches side by side up to a size bound: one with every move,
//!    one that skips run-breaking moves.
//! 3. A depth-first search over single-card moves (plus runs under the relaxed rule,
//!    where they are real moves) that ends only with a win, exhaustion, or a budget.
//!
//! Every pass plays safe foundation moves at once and merges positions by canonical
//! fingerprint. The complete best-first search and pass 3 prune nothing else, so either
//! running out of positions has proved the deal lost.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use crate::card::Card;
use crate::moves::{generate, home_moves, play_moves};
use crate::position::{fmix64, run_length, Hashes, Move, Place, Played, Position};
use crate::variant::Variant;
use crate::visited::{FingerprintSet, OutOfMemory};

/// Which budget stopped a search that did not settle its deal.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Limit {
    Nodes,
    Seconds,
    Memory,
    Interrupted,
}

impl Limit {
    pub fn name(self) -> &'static str {
        match self {
            Limit::Nodes => "nodes",
            Limit::Seconds => "seconds",
            Limit::Memory => "memory",
            Limit::Interrupted => "interrupted",
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
    pub seconds: f64,
}

/// How many nodes a quick depth-first pass may expand.
const QUICK_NODES: u64 = 1000;
/// A quick pass also gives up when this many nodes pass without a new deepest
/// point: one that is winning goes deeper all the time, and one that is
/// backtracking under a wrong early choice rarely recovers.
const QUICK_STALL: u64 = 200;
/// Quick passes after the first, each with its move order shaken by a different seed:
/// a slightly different order often goes right where the first went wrong, far more
/// cheaply than a best-first search. Tuned on deals 1..16000 with 4 cells; deals
/// 16001..32000 gained as much.
const SHAKEN_QUICK_PASSES: u64 = 20;
/// Shaking adds a pseudo-random 0..SHAKE to each position's score.
const SHAKE: u64 = 32;
/// How big the best-first pass may grow before the exhaustive pass takes over.
/// Deals 3102 and 5023 with 2 cells take 1.1 to 1.3 million; a million sent them to the
/// exhaustive pass, which took ten times as long and found solutions of 4,000 moves.
const BEST_FIRST_STATES: usize = 3_000_000;
/// How often budgets and interrupts are checked, in nodes.
const CHECK_EVERY: u64 = 1024;
const INTERRUPT_POLL: Duration = Duration::from_millis(100);

struct Meter<'a> {
    budget: Budget,
    start: Instant,
    last_poll: Instant,
    interrupted: &'a mut dyn FnMut() -> bool,
    nodes: u64,
    max_depth: u32,
    peak_memory: usize,
}

impl Meter<'_> {
    /// Counts one expanded node; says which budget, if any, is spent.
    #[inline]
    fn tick(&mut self, depth: u32) -> Option<Limit> {
        self.nodes += 1;
        self.max_depth = self.max_depth.max(depth);
        if self.nodes >= self.budget.max_nodes {
            return Some(Limit::Nodes);
        }
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            let now = Instant::now();
            if now.duration_since(self.start).as_secs_f64() >= self.budget.max_seconds {
                return Some(Limit::Seconds);
            }
            if now.duration_since(self.last_poll) >= INTERRUPT_POLL {
                self.last_poll = now;
                if (self.interrupted)() {
                    return Some(Limit::Interrupted);
                }
            }
        }
        None
    }

    fn note_memory(&mut self, bytes: usize) {
        self.peak_memory = self.peak_memory.max(bytes);
    }

    fn memory(&mut self, bytes: usize) -> Option<Limit> {
        self.peak_memory = self.peak_memory.max(bytes);
        (bytes > self.budget.max_memory).then_some(Limit::Memory)
    }
}

/// Decides `start` under `rules` within `budget`. `interrupted` is polled about ten
/// times a second; when it says true the search stops with `Limit::Interrupted`.
pub fn solve(start: &Position, rules: &Variant, budget: Budget, interrupted: &mut dyn FnMut() -> bool) -> Outcome {
    let begin = Instant::now();
    let mut meter =
        Meter { budget, start: begin, last_poll: begin, interrupted, nodes: 0, max_depth: 0, peak_memory: 0 };
    let mut root = start.clone();
    let mut opening = vec![];
    root.autoplay(rules, &mut opening);

    // Best-first while it stays small, then exhaustive depth-first from scratch;
    // `states` adds up what both passes stored.
    let mut states = 0;
    let mut settled = None;
    let quick = (0..=SHAKEN_QUICK_PASSES).map(DepthFirst::quick);
    let passes = quick.map(Some).chain([None]);
    for pass in passes {
        let outcome = match pass {
            Some(how) => depth_first(&root, rules, &mut meter, how),
            None => settle(&root, rules, &mut meter),
        };
        match outcome {
            Pass::Settled(status, path, stored) => {
                states += stored;
                settled = Some((status, path));
                break;
            }
            Pass::Undecided(stored) => states += stored,
        }
    }
    let (status, path) = settled.unwrap_or_else(|| unreachable!("the last pass settles"));
    let solution = if status == Status::Solved {
        let line: Vec<Move> = opening.iter().chain(path.iter()).map(|p| p.m).collect();
        crate::shorten::shorten(start, rules, &line)
    } else {
        vec![]
    };
    Outcome {
        status,
        solution,
        nodes: meter.nodes,
        states: states as u64,
        max_depth: meter.max_depth,
        peak_memory: meter.peak_memory,
        seconds: begin.elapsed().as_secs_f64(),
    }
}

enum Pass {
    Settled(Status, Vec<Played>, usize),
    Undecided(usize),
}

/// How a best-first search weighs a position: lower totals are expanded first.
#[derive(Clone, Copy, Debug)]
pub struct Weights {
    /// Per card not yet home.
    pub out: i32,
    /// Per card covering the next card its suit needs.
    pub buried: i32,
    /// Per card covering the card after that.
    pub buried_next: i32,
    /// Per card lying on a lower-ranked card.
    pub disorder: i32,
    /// Per card below the movable run at the end of its column.
    pub under_run: i32,
    /// Reward per empty free cell.
    pub cell: i32,
    /// Reward per empty column.
    pub column: i32,
    /// Per move from the start: keeps the search from wandering down long plateaus.
    pub depth: i32,
}

/// Lower is more promising.
fn score(s: &Position, rules: &Variant, w: &Weights) -> i32 {
    let home = s.home();
    let columns: i32 = (0..rules.columns).map(|i| column_score(s.column(i), &home, rules, w)).sum();
    columns + global_score(s, rules, w)
}

/// The terms of the score that do not belong to one column.
#[inline]
fn global_score(s: &Position, rules: &Variant, w: &Weights) -> i32 {
    w.out * (Card::COUNT - s.cards_home()) as i32
        - w.cell * s.empty_cells(rules) as i32
        - w.column * s.empty_columns(rules) as i32
}

/// One column's part of the score, given what is home.
#[inline]
fn column_score(cards: &[u8], home: &[u8; 4], rules: &Variant, w: &Weights) -> i32 {
    let (mut buried, mut buried_next, mut disorder) = (0i32, 0i32, 0i32);
    let mut lowest = u8::MAX;
    for (depth, &c) in cards.iter().enumerate() {
        // Card numbers are (rank - 1) * 4 + suit; decoding inline keeps this loop tight.
        let rank = c / 4 + 1;
        if rank > lowest {
            disorder += 1;
        }
        lowest = lowest.min(rank);
        let above = (cards.len() - 1 - depth) as i32;
        let next = home[usize::from(c & 3)] + 1;
        if next == rank {
            buried += above;
        } else if next + 1 == rank {
            buried_next += above;
        }
    }
    let under_run = if w.under_run != 0 { (cards.len() - run_length(rules, cards)) as i32 } else { 0 };
    w.buried * buried + w.buried_next * buried_next + w.disorder * disorder + w.under_run * under_run
}

/// Scores positions one move away from a parent, rescoring only the columns a move
/// touched (unless a card went home, which changes every column's terms).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct ChildScorer {
    columns: [i32; crate::variant::MAX_COLUMNS],
    total: i32,
    home: [u8; 4],
}

impl ChildScorer {
    fn new(parent: &Position, rules: &Variant, w: &Weights) -> ChildScorer {
        let home = parent.home();
        let mut columns = [0; crate::variant::MAX_COLUMNS];
        for (i, c) in columns.iter_mut().enumerate().take(rules.columns) {
            *c = column_score(parent.column(i), &home, rules, w);
        }
        ChildScorer { columns, total: columns.iter().sum(), home }
    }

    /// Makes this the scorer for `child`, reached from this scorer's position by `played`.
    fn advance(&mut self, child: &Position, played: &[Played], rules: &Variant, w: &Weights) {
        if child.home() != self.home {
            *self = ChildScorer::new(child, rules, w);
            return;
        }
        for p in played {
            for place in [p.m.from, p.m.to] {
                if let Place::Column(i) = place {
                    let i = usize::from(i);
                    let fresh = column_score(child.column(i), &self.home, rules, w);
                    self.total += fresh - self.columns[i];
                    self.columns[i] = fresh;
                }
            }
        }
    }

    fn score(&self, child: &Position, played: &[Played], rules: &Variant, w: &Weights) -> i32 {
        if child.home() != self.home {
            return score(child, rules, w);
        }
        let mut total = self.total;
        let mut done = 0u16;
        for p in played {
            for place in [p.m.from, p.m.to] {
                if let crate::position::Place::Column(i) = place {
                    let i = usize::from(i);
                    if done & (1 << i) == 0 {
                        done |= 1 << i;
                        total += column_score(child.column(i), &self.home, rules, w) - self.columns[i];
                    }
                }
            }
        }
        total + global_score(child, rules, w)
    }
}

struct Node {
    /// Index in `Frontier::states` once the node is expanded; `NOT_EXPANDED` before.
    state: u32,
    parent: u32,
    /// Moves from the parent into this node (one chosen move, then automatic ones)
    /// are `Frontier::played[moves_at..moves_at + moves_len]`.
    moves_at: u32,
    moves_len: u8,
    depth: u32,
}

/// One best-first strategy: how it scores positions, and whether it skips the moves that
/// break up a run. A pruning strategy that runs out proves nothing; it just stops.
#[derive(Clone, Copy)]
struct Strategy {
    weights: Weights,
    prune: bool,
}

/// The strategies the best-first pass interleaves (the first also orders the depth-first
/// passes). Their slow deals differ, so running them side by side and stopping at the
/// first verdict costs about twice the cheaper one. The weights were tuned on deals
/// 1..1000 with 4 cells; pruning the second took 5% off deals 1..32000 with 4 cells.
/// The first never prunes, so the pass stays complete.
const PORTFOLIO: [Strategy; 3] = [
    Strategy {
        weights: Weights {
            out: 8,
            buried: 4,
            buried_next: 0,
            disorder: 8,
            under_run: 0,
            cell: 12,
            column: 24,
            depth: 4,
        },
        prune: false,
    },
    Strategy {
        weights: Weights {
            out: 16,
            buried: 6,
            buried_next: 0,
            disorder: 0,
            under_run: 8,
            cell: 12,
            column: 24,
            depth: 4,
        },
        prune: true,
    },
    // Empty columns first: deal 3565 with 1 cell falls in 36,000 positions this way
    // and in none of 95 million the others tried.
    Strategy {
        weights: Weights {
            out: 8,
            buried: 2,
            buried_next: 2,
            disorder: 8,
            under_run: 0,
            cell: 24,
            column: 48,
            depth: 1,
        },
        prune: false,
    },
];

const NOT_EXPANDED: u32 = u32::MAX;

/// One best-first search: its nodes, its open list and the positions it has seen.
struct Frontier {
    weights: Weights,
    prune: bool,
    nodes: Vec<Node>,
    /// Positions of expanded nodes only: most nodes generated are never expanded, so a
    /// node's position is rebuilt from its parent's when it comes off the open list.
    states: Vec<Position>,
    played: Vec<Played>,
    open: BinaryHeap<(Reverse<i32>, u32)>,
    seen: FingerprintSet,
}

enum Step {
    Expanded,
    Won(Vec<Played>),
    Exhausted,
    OutOfMemory,
}

impl Frontier {
    fn new(root: &Position, rules: &Variant, strategy: Strategy, max_memory: usize) -> Frontier {
        let Strategy { weights, prune } = strategy;
        let fingerprint = root.fingerprint(rules);
        let mut seen = FingerprintSet::new(max_memory);
        let _ = seen.insert(fingerprint);
        let mut open = BinaryHeap::new();
        open.push((Reverse(score(root, rules, &weights)), 0u32));
        let nodes = vec![Node { state: 0, parent: u32::MAX, moves_at: 0, moves_len: 0, depth: 0 }];
        Frontier { weights, prune, nodes, states: vec![root.clone()], played: vec![], open, seen }
    }

    fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.states.capacity() * std::mem::size_of::<Position>()
            + self.played.capacity() * std::mem::size_of::<Played>()
            + self.open.capacity() * std::mem::size_of::<(Reverse<i32>, u32)>()
            + self.seen.bytes()
    }

    fn peak_bytes(&self) -> usize {
        self.seen.peak_bytes().max(self.bytes())
    }

    fn step(&mut self, rules: &Variant, meter: &mut Meter, moves: &mut Vec<Move>) -> Result<Step, Limit> {
        let Some((_, id)) = self.open.pop() else { return Ok(Step::Exhausted) };
        let depth = self.nodes[id as usize].depth;
        if let Some(limit) = meter.tick(depth) {
            return Err(limit);
        }
        let node = &self.nodes[id as usize];
        if node.state == NOT_EXPANDED {
            let mut s = self.states[self.nodes[node.parent as usize].state as usize].clone();
            let at = node.moves_at as usize;
            for p in &self.played[at..at + usize::from(node.moves_len)] {
                s.apply(p.m);
            }
            self.nodes[id as usize].state = self.states.len() as u32;
            self.states.push(s);
        }
        let parent = &self.states[self.nodes[id as usize].state as usize];
        let mut scratch = parent.clone();
        moves.clear();
        home_moves(parent, rules, moves);
        play_moves(parent, rules, true, self.prune, moves);
        // Each move is tried on one scratch copy and undone; only new positions are kept.
        let mut played = Vec::with_capacity(8);
        let scorer = ChildScorer::new(&scratch, rules, &self.weights);
        let hashes = parent.hashes(rules);
        for &m in moves.iter() {
            played.clear();
            played.push(scratch.play(m));
            scratch.autoplay_after(rules, m, &mut played);
            let fingerprint = scratch.fingerprint_after(parent, &hashes, &played);
            let fresh = match self.seen.insert(fingerprint) {
                Ok(fresh) => fresh,
                Err(OutOfMemory) => return Ok(Step::OutOfMemory),
            };
            if fresh {
                let won = scratch.is_won();
                // Adding the depth keeps the search from wandering down long plateaus.
                let priority =
                    scorer.score(&scratch, &played, rules, &self.weights) + self.weights.depth * (depth as i32 + 1);
                self.nodes.push(Node {
                    state: NOT_EXPANDED,
                    parent: id,
                    moves_at: self.played.len() as u32,
                    moves_len: played.len() as u8,
                    depth: depth + 1,
                });
                self.played.extend_from_slice(&played);
                let child_id = (self.nodes.len() - 1) as u32;
                if won {
                    return Ok(Step::Won(self.path_to(child_id)));
                }
                self.open.push((Reverse(priority), child_id));
            }
            for &p in played.iter().rev() {
                scratch.undo(p);
            }
        }
        Ok(Step::Expanded)
    }

    /// Every move from the root to node `id`.
    fn path_to(&self, mut id: u32) -> Vec<Played> {
        let mut segments = vec![];
        while id != 0 {
            let node = &self.nodes[id as usize];
            let at = node.moves_at as usize;
            segments.push(&self.played[at..at + usize::from(node.moves_len)]);
            id = node.parent;
        }
        segments.into_iter().rev().flatten().copied().collect()
    }
}

/// Node expansions of the exhaustive pass for each round in which every best-first
/// strategy expands one; a best-first node costs about three times as much, so the
/// exhaustive pass has about 40% of the time while best-first runs. (On deals
/// 301..1000 with 2 cells, 6 beat 3, 12 and 24.)
const DEPTH_FIRST_STEPS: usize = 6;
/// Positions the first two best-first strategies store before the third strategy and
/// the exhaustive pass join them: most deals that reach this pass are won or proved
/// before that, and for them the others would only cost time.
const LATE_JOIN_STATES: usize = 50_000;
const EARLY_STRATEGIES: usize = 2;

/// The last pass, which always settles the deal (or runs out of a budget): best-first
/// strategies side by side with the exhaustive depth-first pass, until best-first has
/// stored its share of positions; then the exhaustive pass alone. Best-first finds
/// most wins soon and short; the exhaustive pass, which stores a position in 16 bytes
/// and expands it in a third of the time, makes the large proofs.
fn settle(root: &Position, rules: &Variant, meter: &mut Meter) -> Pass {
    if root.is_won() {
        return Pass::Settled(Status::Solved, vec![], 1);
    }
    let budget = meter.budget.max_memory;
    // Half the budget at most for best-first; the exhaustive pass has the rest, and
    // all of it once best-first is done.
    let best_first_bytes = budget / 2;
    let per_strategy = best_first_bytes / PORTFOLIO.len();
    let mut frontiers: Vec<Frontier> =
        PORTFOLIO[..EARLY_STRATEGIES].iter().map(|&w| Frontier::new(root, rules, w, per_strategy)).collect();
    let mut exhaustive: Option<DepthFirstSearch> = None;
    let mut moves = Vec::with_capacity(64);
    // Positions stored by best-first searches that ended.
    let mut dropped = 0;
    let best_first_stored = |f: &[Frontier], dropped: usize| dropped + f.iter().map(|f| f.seen.len()).sum::<usize>();
    let stored = |f: &[Frontier], d: &Option<DepthFirstSearch>, dropped: usize| {
        best_first_stored(f, dropped) + d.as_ref().map_or(0, |d| d.seen.len())
    };
    // An upper bound on the most held at once: each structure's own peak (its store's
    // growth included), as if all had peaked together.
    let peak_bytes = |f: &[Frontier], d: &Option<DepthFirstSearch>| {
        f.iter().map(Frontier::peak_bytes).sum::<usize>() + d.as_ref().map_or(0, DepthFirstSearch::peak_bytes)
    };
    let mut turn = 0usize;
    let outcome = 'search: loop {
        if let Some(search) = exhaustive.as_mut() {
            let steps = if frontiers.is_empty() { CHECK_EVERY as usize } else { DEPTH_FIRST_STEPS };
            for _ in 0..steps {
                if let Some(pass) = search.step(rules, meter) {
                    if matches!(pass, Pass::Settled(Status::Unknown(Limit::Memory), ..))
                        && search.seen.max_bytes() < budget
                    {
                        // The proof needs the memory best-first holds (or held, if its
                        // strategies have all ended): best-first ends here.
                        meter.note_memory(peak_bytes(&frontiers, &exhaustive));
                        dropped = best_first_stored(&frontiers, dropped);
                        frontiers.clear();
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
        while k < frontiers.len() {
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
                Ok(Step::Exhausted) if !frontiers[k].prune => {
                    break 'search Pass::Settled(Status::Unsolvable, vec![], stored(&frontiers, &exhaustive, dropped))
                }
                Ok(Step::Exhausted) | Ok(Step::OutOfMemory) => {
                    meter.note_memory(peak_bytes(&frontiers, &exhaustive));
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
                || (turn.is_multiple_of(64) && best_first_stored(&frontiers, dropped) >= LATE_JOIN_STATES))
        {
            frontiers
                .extend(PORTFOLIO[EARLY_STRATEGIES..].iter().map(|&w| Frontier::new(root, rules, w, per_strategy)));
            exhaustive =
                Some(DepthFirstSearch::new(root, rules, DepthFirst::EXHAUSTIVE, meter, budget - best_first_bytes));
        }
        if !frontiers.is_empty() && turn.is_multiple_of(64) {
            for f in frontiers.iter_mut() {
                // A strategy's store grows within what its own queue and positions leave
                // of its share.
                let others = f.bytes() - f.seen.bytes();
                f.seen.set_others(others);
            }
            let held = frontiers.iter().map(Frontier::bytes).sum::<usize>();
            meter.note_memory(peak_bytes(&frontiers, &exhaustive));
            if held > best_first_bytes || best_first_stored(&frontiers, dropped) >= BEST_FIRST_STATES {
                dropped = best_first_stored(&frontiers, dropped);
                frontiers.clear();
                if let Some(search) = exhaustive.as_mut() {
                    search.seen.set_max_bytes(budget);
                }
            }
        }
    };
    meter.note_memory(peak_bytes(&frontiers, &exhaustive));
    outcome
}

/// One level of the depth-first search: the moves to try here, and how we got here.
/// Indices are 32-bit (16 bytes a level, not 32): a pass stops as out of memory before
/// its path holds 4 billion moves.
struct Frame {
    /// Index in `played` where the moves into this position start.
    entered_at: u32,
    /// This frame's moves are `moves[begin..end]`; those from `next` on are untried.
    begin: u32,
    next: u32,
    end: u32,
}

/// A move in two bytes (five bits each for where from and where to, five for the
/// count), as the depth-first path keeps its untried moves: paths millions of levels
/// deep hold tens of millions of them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct PackedMove(u16);

const _: () = assert!(crate::position::MAX_HEIGHT < 32 && crate::variant::MAX_COLUMNS + crate::variant::MAX_CELLS < 31);

impl PackedMove {
    fn pack(m: Move) -> PackedMove {
        fn place(p: Place) -> u16 {
            match p {
                Place::Column(i) => u16::from(i),
                Place::Cell(i) => 10 + u16::from(i),
                Place::Home => 31,
            }
        }
        PackedMove(place(m.from) | place(m.to) << 5 | u16::from(m.count) << 10)
    }

    fn unpack(self) -> Move {
        fn place(bits: u16) -> Place {
            match bits & 31 {
                31 => Place::Home,
                i @ 10.. => Place::Cell((i - 10) as u8),
                i => Place::Column(i as u8),
            }
        }
        Move::new(place(self.0), place(self.0 >> 5), (self.0 >> 10) as u8)
    }
}

/// The exhaustive pass: single-card moves only (and runs under the relaxed rule), tried
/// best-scored first, until a win or until every reachable position has been seen.
/// How a depth-first pass runs.
#[derive(Clone, Copy)]
struct DepthFirst {
    weights: Weights,
    /// Generate runs as single moves (shortcuts) too.
    sequences: bool,
    /// Skip moves that rarely help: those that break up a run (the deepest card moved
    /// lies on its natural parent), and every other move where a card may go home.
    /// A pass that prunes proves nothing when it runs out: it ends undecided.
    prune: bool,
    /// Give up undecided after this many nodes, or after QUICK_STALL nodes without
    /// going deeper. None: run to the end.
    cap: Option<u64>,
    /// Nonzero: add a pseudo-random 0..SHAKE, drawn from this seed and the position's
    /// fingerprint, to each position's score (deterministic, like everything here).
    shake_seed: u64,
}

impl DepthFirst {
    /// Quick pass number `n`: 0 is the plain one, later ones are shaken.
    fn quick(n: u64) -> DepthFirst {
        DepthFirst {
            weights: PORTFOLIO[0].weights,
            sequences: true,
            prune: true,
            cap: Some(QUICK_NODES),
            shake_seed: n,
        }
    }

    const EXHAUSTIVE: DepthFirst =
        DepthFirst { weights: PORTFOLIO[0].weights, sequences: false, prune: false, cap: None, shake_seed: 0 };
}

fn depth_first(root: &Position, rules: &Variant, meter: &mut Meter, how: DepthFirst) -> Pass {
    let mut search = DepthFirstSearch::new(root, rules, how, meter, meter.budget.max_memory);
    loop {
        if let Some(pass) = search.step(rules, meter) {
            meter.note_memory(search.peak_bytes());
            return pass;
        }
    }
}

/// More moves than a position has (8 cells and 10 columns give fewer than 200), and more
/// cards than one move and its automatic moves can play.
const MAX_LEVEL_MOVES: usize = 256;
const DECK: usize = 52;

/// A depth-first pass that runs a node at a time, so that it can share a core with
/// best-first searches.
struct DepthFirstSearch {
    how: DepthFirst,
    first_node: u64,
    /// The deepest point reached so far, and when (for the quick passes' stall rule).
    deepest: usize,
    deepest_at: u64,
    seen: FingerprintSet,
    state: Position,
    played: Vec<Played>,
    /// Every level's moves; a frame's untried ones run from its `next`.
    moves: Vec<PackedMove>,
    frames: Vec<Frame>,
    /// The hashes and column scores of the position at the end of the path, so that its
    /// children are hashed and scored without going over every column. There is one,
    /// brought back on the way up (`retreat`), not one per level: at some 380 bytes a
    /// level, paths millions of levels deep would hold gigabytes of them.
    context: (Hashes, ChildScorer),
    scratch: Scratch,
}

impl DepthFirstSearch {
    fn new(root: &Position, rules: &Variant, how: DepthFirst, meter: &Meter, max_memory: usize) -> DepthFirstSearch {
        let mut seen = FingerprintSet::new(max_memory);
        let _ = seen.insert(root.fingerprint(rules));
        let scratch = Scratch {
            moves: Vec::with_capacity(64),
            played: Vec::with_capacity(8),
            keyed: Vec::with_capacity(64),
            child: root.clone(),
        };
        let mut search = DepthFirstSearch {
            how,
            first_node: meter.nodes,
            deepest: 0,
            deepest_at: meter.nodes,
            seen,
            state: root.clone(),
            played: vec![],
            moves: vec![],
            frames: vec![],
            context: (root.hashes(rules), ChildScorer::new(root, rules, &how.weights)),
            scratch,
        };
        let s = &mut search;
        push_frame(&s.state, &s.context, &s.seen, rules, how, 0, &mut s.moves, &mut s.frames, &mut s.scratch);
        search
    }

    /// Everything the pass holds: the store, and the path with its moves.
    fn bytes(&self) -> usize {
        self.seen.bytes() + self.path_bytes()
    }

    /// The path: its moves, the moves into it and its frames. A path of a million levels
    /// holds some hundred megabytes of these.
    fn path_bytes(&self) -> usize {
        self.moves.capacity() * std::mem::size_of::<PackedMove>()
            + self.played.capacity() * std::mem::size_of::<Played>()
            + self.frames.capacity() * std::mem::size_of::<Frame>()
    }

    /// Takes back the move just tried, so that `step` tries it again if the pass is given
    /// more memory (`seen.set_max_bytes`), and says the memory budget ran out.
    fn out_of_memory(&mut self, mark: usize, meter: &mut Meter) -> Pass {
        undo_to(&mut self.state, &mut self.played, mark);
        if let Some(frame) = self.frames.last_mut() {
            frame.next -= 1;
        }
        meter.note_memory(self.peak_bytes());
        Pass::Settled(Status::Unknown(Limit::Memory), vec![], self.seen.len())
    }

    /// The bytes the path's vectors would add if the next level makes them grow (a full
    /// vector doubles): a level adds a frame, its moves and the moves into it.
    fn path_growth(&self) -> usize {
        fn growth<T>(v: &Vec<T>, room: usize) -> usize {
            if v.capacity() - v.len() < room {
                v.capacity().max(room) * std::mem::size_of::<T>()
            } else {
                0
            }
        }
        growth(&self.moves, MAX_LEVEL_MOVES) + growth(&self.played, DECK) + growth(&self.frames, 1)
    }

    /// The most the pass has held at once, the store's growth included (an upper bound:
    /// the path's size is brought up to date every CHECK_EVERY nodes).
    fn peak_bytes(&self) -> usize {
        self.seen.peak_bytes().max(self.bytes())
    }

    /// Goes on until one more node is expanded; Some when the pass has ended.
    fn step(&mut self, rules: &Variant, meter: &mut Meter) -> Option<Pass> {
        let how = self.how;
        loop {
            let Some(frame) = self.frames.last_mut() else {
                if how.prune {
                    return Some(Pass::Undecided(self.seen.len()));
                }
                // Every position reachable was expanded, with every single-card move among the moves.
                return Some(Pass::Settled(Status::Unsolvable, vec![], self.seen.len()));
            };
            if frame.next == frame.end {
                let (entered_at, begin) = (frame.entered_at as usize, frame.begin as usize);
                self.frames.pop();
                self.moves.truncate(begin);
                let into = &mut self.scratch.played;
                into.clear();
                into.extend_from_slice(&self.played[entered_at..]);
                undo_to(&mut self.state, &mut self.played, entered_at);
                // The context goes back to the parent's: the columns the moves touched
                // are rehashed and rescored from the position as it is again.
                self.context.0.retreat(&self.state, into);
                self.context.1.advance(&self.state, into, rules, &how.weights);
                debug_assert_eq!(self.context.0, self.state.hashes(rules));
                debug_assert_eq!(self.context.1, ChildScorer::new(&self.state, rules, &how.weights));
                continue;
            }
            let m = self.moves[frame.next as usize].unpack();
            frame.next += 1;
            let mark = self.played.len();
            self.played.push(self.state.play(m));
            self.state.autoplay_after(rules, m, &mut self.played);
            // A vector of the path that is full doubles on the next level: stop before
            // that would pass the budget rather than notice after. Like the store's own
            // refusal below, this leaves the pass as it was, to go on with more memory.
            let growth = self.path_growth();
            let indices_full = self.moves.len() + MAX_LEVEL_MOVES > u32::MAX as usize;
            if indices_full || (growth > 0 && self.bytes() + growth > self.seen.max_bytes()) {
                return Some(self.out_of_memory(mark, meter));
            }
            // The child's hashes follow from its parent's; computing its fingerprint here
            // rather than keeping it with each untried move saves 27 bytes a move, and
            // paths of a million levels hold some fifteen million untried moves.
            let mut hashes = self.context.0;
            hashes.advance(&self.state, &self.played[mark..]);
            match self.seen.insert(hashes.fingerprint) {
                Ok(true) => {}
                Ok(false) => {
                    undo_to(&mut self.state, &mut self.played, mark);
                    continue;
                }
                Err(OutOfMemory) => return Some(self.out_of_memory(mark, meter)),
            }
            if self.state.is_won() {
                return Some(Pass::Settled(Status::Solved, self.played.clone(), self.seen.len()));
            }
            if let Some(limit) = meter.tick(self.frames.len() as u32) {
                return Some(Pass::Settled(Status::Unknown(limit), vec![], self.seen.len()));
            }
            if let Some(cap) = how.cap {
                if self.frames.len() > self.deepest {
                    (self.deepest, self.deepest_at) = (self.frames.len(), meter.nodes);
                }
                if meter.nodes - self.first_node >= cap || meter.nodes - self.deepest_at > QUICK_STALL {
                    return Some(Pass::Undecided(self.seen.len()));
                }
            }
            if meter.nodes.is_multiple_of(CHECK_EVERY) {
                // The store must grow within what the path leaves of the budget.
                self.seen.set_others(self.path_bytes());
                if let Some(limit) = meter.memory(self.bytes()) {
                    return Some(Pass::Settled(Status::Unknown(limit), vec![], self.seen.len()));
                }
            }
            self.context.0 = hashes;
            self.context.1.advance(&self.state, &self.played[mark..], rules, &how.weights);
            push_frame(
                &self.state,
                &self.context,
                &self.seen,
                rules,
                how,
                mark,
                &mut self.moves,
                &mut self.frames,
                &mut self.scratch,
            );
            return None;
        }
    }
}

fn undo_to(state: &mut Position, played: &mut Vec<Played>, len: usize) {
    while played.len() > len {
        let p = played.pop().unwrap_or_else(|| unreachable!());
        state.undo(p);
    }
}

/// Generates the moves from `state`, most promising first, onto the moves stack.
/// Moves are tried in the order of the positions they lead to, best score first.
/// Positions already seen are left out: the search would turn back from them anyway.
#[allow(clippy::too_many_arguments)]
fn push_frame(
    state: &Position,
    (hashes, scorer): &(Hashes, ChildScorer),
    seen: &FingerprintSet,
    rules: &Variant,
    how: DepthFirst,
    entered_at: usize,
    moves: &mut Vec<PackedMove>,
    frames: &mut Vec<Frame>,
    scratch: &mut Scratch,
) {
    let Scratch { moves: generated, played, keyed, child } = scratch;
    generated.clear();
    if how.prune {
        // A card that may go home (though not safely) almost always should: a pass
        // that proves nothing anyway tries only that, and saves the rest.
        home_moves(state, rules, generated);
        if generated.is_empty() {
            play_moves(state, rules, how.sequences, true, generated);
        }
    } else {
        generate(state, rules, how.sequences, generated);
    }
    let w = how.weights;
    child.clone_from(state);
    keyed.clear();
    for &m in generated.iter() {
        played.clear();
        played.push(child.play(m));
        child.autoplay_after(rules, m, played);
        let child_fp = child.fingerprint_after(state, hashes, played);
        let shake = match how.shake_seed {
            0 => 0,
            seed => (fmix64(child_fp as u64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)) % SHAKE) as i32,
        };
        keyed.push((scorer.score(child, played, rules, &w) + shake, priority(state, m), m, child_fp));
        for &p in played.iter().rev() {
            child.undo(p);
        }
    }
    // Positions already seen are dropped only now, all the store's lines having been
    // asked for at once: in a store of millions those reads are trips to memory, and
    // one after another they would each be waited for.
    let warmed = keyed.iter().fold(0u128, |x, k| x ^ seen.warm(k.3));
    std::hint::black_box(warmed);
    keyed.retain(|k| !seen.contains(k.3));
    keyed.sort_by_key(|&(s, p, _, _)| (s, p));
    let begin = moves.len() as u32;
    moves.extend(keyed.iter().map(|&(_, _, m, _)| PackedMove::pack(m)));
    frames.push(Frame { entered_at: entered_at as u32, begin, next: begin, end: moves.len() as u32 });
}

/// Buffers `push_frame` reuses from node to node.
struct Scratch {
    moves: Vec<Move>,
    played: Vec<Played>,
    keyed: Vec<(i32, (u8, u8), Move, u128)>,
    child: Position,
}

/// The tie-break between moves whose positions score the same in a depth-first pass:
/// home first, then out of a cell, then onto a card, then into an empty column, then
/// into a cell.
fn priority(state: &Position, m: Move) -> (u8, u8) {
    use crate::position::Place::*;
    let class = match (m.from, m.to) {
        (_, Home) => 0,
        (Cell(_), Column(_)) => 1,
        (Column(_), Column(d)) if state.len(usize::from(d)) > 0 => 2,
        (_, Cell(_)) => 4,
        _ => 3,
    };
    // Within a kind, moving from shorter columns first empties columns sooner.
    let source = match m.from {
        Column(i) => state.len(usize::from(i)) as u8,
        _ => 0,
    };
    (class, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::Place;
    use crate::testdata::{columns, MS1, MS11982};
    use crate::variant::SequenceMoves;

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

    #[test]
    fn packed_moves_unpack_to_themselves() {
        let places = (0..10).map(Place::Column).chain((0..8).map(Place::Cell)).chain([Place::Home]);
        let places: Vec<Place> = places.collect();
        for &from in &places {
            for &to in &places {
                for count in [1, 2, 13, crate::position::MAX_HEIGHT as u8] {
                    let m = Move::new(from, to, count);
                    assert_eq!(PackedMove::pack(m).unpack(), m);
                }
            }
        }
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
            Place::Home => false,
        }
    }

    fn never() -> impl FnMut() -> bool {
        || false
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
    fn deal_11982_is_proved_unsolvable_and_deal_one_too_with_two_cells() {
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
    fn a_best_first_node_not_expanded_is_a_small_record() {
        // Most best-first nodes are never expanded: their size is the pass's memory.
        assert_eq!(std::mem::size_of::<Node>(), 20);
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
    fn relaxed_rules_search_runs_in_the_exhaustive_pass() {
        let rules = Variant { sequence_moves: SequenceMoves::Relaxed, ..Variant::FREECELL.with_cells(1) };
        let s = Position::new(&rules, &columns(MS1), &[None; 1], [0; 4]).unwrap();
        let out = solve(&s, &rules, Budget::default(), &mut never());
        assert_ne!(out.status, Status::Unknown(Limit::Nodes));
        if out.status == Status::Solved {
            assert!(replays_to_a_win(&s, &rules, &out.solution));
        }
    }
}

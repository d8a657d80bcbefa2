//! Branch and bound for the shortest line: a depth-first search over every move, cut wherever the moves made plus the lower bound reach the best line's cost.
//!
//! The search plays every move from the root (safe foundation moves at once, as
//! everywhere: they never make a line longer, docs/correctness.md), and leaves a
//! position when the moves not to a foundation that reached it plus
//! `bound::lower_bound` come to the best line's cost or more: no win through it can cost
//! less. A position reached before at no greater cost is left too: the visit before
//! searched everything this one could, under a bound no tighter. A win it meets is the
//! new best line, and the bound tightens. Children are tried cheapest bound first, so
//! shorter lines tend to come early. If the search ends, the best line is proved
//! shortest. Given a `floor` (no line is known to cost less), a win at the floor ends it
//! at once: nothing cheaper is left to find.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::moves::generate;
use crate::position::{Hashes, Move, Place, Played, Position};
use crate::variant::Variant;

use super::super::meter::Meter;
use super::super::Limit;
use super::bound::{column_bound, lower_bound};

/// Bytes a position the search has met takes in its table (a fingerprint and a cost, and
/// the table's own slack), for the memory budget.
const BYTES_PER_ENTRY: usize = 48;

/// What a branch and bound search found.
pub(crate) struct Improved {
    /// A line cheaper than the bound it was given, as its moves from the root and its
    /// cost; the cheapest found.
    pub(crate) line: Option<(Vec<Move>, u32)>,
    /// The budget that stopped it, if one did; if none did, no line from the root is
    /// cheaper than the best (the line found, or else the bound given).
    pub(crate) stopped: Option<Limit>,
}

/// Looks for the cheapest win from `root` (after its automatic moves) that costs less
/// than `below`; `floor` is a cost no line from `root` is below (0 if none is known),
/// and a line found at it is the cheapest.
pub(crate) fn branch_and_bound(
    root: &Position,
    rules: &Variant,
    below: u32,
    floor: u32,
    meter: &mut Meter,
) -> Improved {
    let mut search = Search {
        below,
        floor,
        best: None,
        met: HashMap::default(),
        path: vec![],
        frames: vec![],
        generated: Vec::with_capacity(64),
        played: Vec::with_capacity(16),
        meter,
        rules,
    };
    let mut s = root.clone();
    let hashes = s.hashes(rules);
    let stopped = if lower_bound(&s, rules) >= below {
        None
    } else {
        search.met.insert(hashes.fingerprint, 0);
        search.visit(&mut s, &hashes, 0, 0).err()
    };
    Improved { line: search.best, stopped }
}

/// A child waiting its turn: its bound-plus-cost key, the move that leads to it, its
/// cost and fingerprint.
#[derive(Clone, Copy)]
struct Child {
    key: u32,
    m: Move,
    cost: u32,
    fingerprint: u128,
}

struct Search<'m, 'a> {
    below: u32,
    floor: u32,
    best: Option<(Vec<Move>, u32)>,
    /// The least cost each position was reached at, by fingerprint.
    met: HashMap<u128, u32, BuildHasherDefault<FingerprintHasher>>,
    /// The moves from the root to the position being visited.
    path: Vec<Played>,
    /// Each depth's children, kept from visit to visit.
    frames: Vec<Vec<Child>>,
    generated: Vec<Move>,
    played: Vec<Played>,
    meter: &'m mut Meter<'a>,
    rules: &'m Variant,
}

impl Search<'_, '_> {
    /// Searches on from `s` (fingerprints `hashes`), reached at `cost`, `depth` moves from
    /// the root; Err with the budget that ran out.
    fn visit(&mut self, s: &mut Position, hashes: &Hashes, cost: u32, depth: usize) -> Result<(), Limit> {
        if s.is_won() {
            self.best = Some((self.path.iter().map(|p| p.m).collect(), cost));
            self.below = cost;
            return Ok(());
        }
        if let Some(limit) = self.meter.tick(cost) {
            return Err(limit);
        }
        if self.met.len().is_multiple_of(1024) && self.meter.memory(self.met.len() * BYTES_PER_ENTRY).is_some() {
            return Err(Limit::Memory);
        }
        if self.frames.len() <= depth {
            self.frames.push(Vec::with_capacity(64));
        }
        let mut children = std::mem::take(&mut self.frames[depth]);
        children.clear();
        self.generated.clear();
        generate(s, self.rules, true, &mut self.generated);
        let parent = s.clone();
        // The cheap bound column by column: a child's differs only in the columns its
        // moves touched.
        let mut by_column = [0u32; crate::variant::MAX_COLUMNS];
        for (i, b) in by_column.iter_mut().enumerate().take(self.rules.columns) {
            *b = column_bound(s.column(i), self.rules);
        }
        let blocked: u32 = by_column.iter().sum();
        for &m in &self.generated {
            self.played.clear();
            self.played.push(s.play(m));
            s.autoplay_after(self.rules, m, &mut self.played);
            let child_cost = cost + u32::from(m.to != Place::Home);
            let fingerprint = s.fingerprint_after(&parent, hashes, &self.played);
            let fresh = self.met.get(&fingerprint).is_none_or(|&earlier| child_cost < earlier);
            // The cheap bound first: it leaves most of what the full one would.
            if fresh && child_cost + blocked_after(s, blocked, &by_column, &self.played, self.rules) < self.below {
                let key = child_cost + lower_bound(s, self.rules);
                if key < self.below {
                    children.push(Child { key, m, cost: child_cost, fingerprint });
                }
            }
            while let Some(p) = self.played.pop() {
                s.undo(p);
            }
        }
        children.sort_unstable_by_key(|c| c.key);
        let mut outcome = Ok(());
        for child in &children {
            // The bound may have tightened since the child was weighed, and a sibling's
            // search may have met it as cheaply.
            if child.key >= self.below || self.met.get(&child.fingerprint).is_some_and(|&e| e <= child.cost) {
                continue;
            }
            self.met.insert(child.fingerprint, child.cost);
            let mark = self.path.len();
            self.path.push(s.play(child.m));
            s.autoplay_after(self.rules, child.m, &mut self.path);
            let child_hashes = hashes.after(s, &self.path[mark..]);
            outcome = self.visit(s, &child_hashes, child.cost, depth + 1);
            while self.path.len() > mark {
                let p = self.path.pop().unwrap_or_else(|| unreachable!("played above"));
                s.undo(p);
            }
            // A line at the floor is the cheapest there is: the search is done.
            if outcome.is_err() || self.below <= self.floor {
                break;
            }
        }
        self.frames[depth] = children;
        outcome
    }
}

/// `bound::blocked_runs` of `child`, reached by `played` from a position whose columns'
/// bounds are `by_column` (summing to `total`): only the columns the moves touched are
/// looked at again.
fn blocked_after(child: &Position, total: u32, by_column: &[u32], played: &[Played], rules: &Variant) -> u32 {
    let mut touched = 0u16;
    for p in played {
        for place in [p.m.from, p.m.to] {
            if let Place::Column(i) = place {
                touched |= 1 << i;
            }
        }
    }
    let mut bound = total;
    while touched != 0 {
        let i = touched.trailing_zeros() as usize;
        touched &= touched - 1;
        bound = bound - by_column[i] + column_bound(child.column(i), rules);
    }
    bound
}

/// Fingerprints are hashes already: their low 64 bits serve as the table's hash.
#[derive(Default)]
struct FingerprintHasher(u64);

impl Hasher for FingerprintHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u128(&mut self, fp: u128) {
        self.0 = fp as u64;
    }
}

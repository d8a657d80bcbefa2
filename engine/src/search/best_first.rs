//! Best-first search: a strategy's open list of positions, most promising first.

use crate::moves::{home_moves, play_moves};
use crate::position::{Move, PackedPosition, Played, Position};
use crate::variant::Variant;
use crate::visited::{FingerprintSet, OutOfMemory};

use super::meter::Meter;
use super::play::{leave_card_just_moved, play_with_autoplay, undo_to};
use super::score::{score, ChildScorer, Strategy, Weights};
use super::Limit;

struct Node {
    /// Index in `BestFirstSearch::states` once the node is expanded; `NOT_EXPANDED` before.
    state: u32,
    parent: u32,
    /// Moves from the parent into this node (one chosen move, then automatic ones)
    /// are `BestFirstSearch::played[moves_at..moves_at + moves_len]`.
    moves_at: u32,
    moves_len: u8,
    depth: u32,
}

const NOT_EXPANDED: u32 = u32::MAX;

/// One best-first search: its nodes, its open list and the positions it has seen.
pub(super) struct BestFirstSearch {
    weights: Weights,
    pub(super) keep_runs: bool,
    nodes: Vec<Node>,
    /// Positions of expanded nodes only: most nodes generated are never expanded, so a
    /// node's position is rebuilt from its parent's when it comes off the open list.
    /// Packed: a quarter of the memory, and of the fresh pages to fault in.
    states: Vec<PackedPosition>,
    played: Vec<Played>,
    open: OpenList,
    /// The fingerprints of the children of the node being expanded (a buffer kept
    /// from node to node).
    child_fingerprints: Vec<u128>,
    pub(super) seen: FingerprintSet,
    /// Do not move the card just moved on again by itself (`leave_card_just_moved`): for the
    /// strategies that skip no move, the same positions with fewer moves looked at.
    pub(super) rest_last_card: bool,
}

pub(super) enum Step {
    Expanded,
    Won(Vec<Played>),
    Exhausted,
    OutOfMemory,
}

impl BestFirstSearch {
    pub(super) fn new(root: &Position, rules: &Variant, strategy: Strategy, max_memory: usize) -> BestFirstSearch {
        let Strategy { weights, keep_runs } = strategy;
        let fingerprint = root.fingerprint(rules);
        let mut seen = FingerprintSet::new(max_memory);
        let _ = seen.insert(fingerprint);
        let mut open = OpenList::default();
        open.push(score(root, rules, &weights), 0);
        let nodes = vec![Node { state: 0, parent: u32::MAX, moves_at: 0, moves_len: 0, depth: 0 }];
        let rest_last_card = !keep_runs;
        BestFirstSearch {
            weights,
            keep_runs,
            nodes,
            states: vec![root.pack()],
            played: vec![],
            open,
            child_fingerprints: vec![],
            seen,
            rest_last_card,
        }
    }

    pub(super) fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.states.capacity() * std::mem::size_of::<PackedPosition>()
            + self.played.capacity() * std::mem::size_of::<Played>()
            + self.open.bytes()
            + self.seen.bytes()
    }

    pub(super) fn peak_bytes(&self) -> usize {
        self.seen.peak_bytes().max(self.bytes())
    }

    pub(super) fn step(&mut self, rules: &Variant, meter: &mut Meter, moves: &mut Vec<Move>) -> Result<Step, Limit> {
        let Some(id) = self.open.pop() else { return Ok(Step::Exhausted) };
        let depth = self.nodes[id as usize].depth;
        if let Some(limit) = meter.tick(depth) {
            return Err(limit);
        }
        let node = &self.nodes[id as usize];
        let parent = if node.state == NOT_EXPANDED {
            let mut s = self.states[self.nodes[node.parent as usize].state as usize].unpack();
            let at = node.moves_at as usize;
            for p in &self.played[at..at + usize::from(node.moves_len)] {
                s.apply(p.m);
            }
            self.nodes[id as usize].state = self.states.len() as u32;
            self.states.push(s.pack());
            s
        } else {
            self.states[node.state as usize].unpack()
        };
        let parent = &parent;
        let mut scratch = parent.clone();
        moves.clear();
        home_moves(parent, rules, moves);
        play_moves(parent, rules, true, self.keep_runs, moves);
        if self.rest_last_card {
            let node = &self.nodes[id as usize];
            let at = node.moves_at as usize;
            leave_card_just_moved(moves, &self.played[at..at + usize::from(node.moves_len)]);
        }
        if meter.no_time_to_grow(&self.seen, moves.len()) {
            return Err(Limit::Seconds);
        }
        // First every child's fingerprint, its store line asked for at once: in a store
        // of millions each look-up is a trip to memory, and one after another they would
        // each be waited for. A move of one card with no automatic move after it is not
        // even played (`fingerprint_of_quiet_move`); the others are tried on one scratch
        // copy and undone.
        let mut played = Vec::with_capacity(8);
        let hashes = parent.hashes(rules);
        self.child_fingerprints.clear();
        for &m in moves.iter() {
            let fingerprint = parent.fingerprint_of_quiet_move(rules, &hashes, m).unwrap_or_else(|| {
                play_with_autoplay(&mut scratch, rules, m, &mut played);
                let fingerprint = scratch.fingerprint_after(parent, &hashes, &played);
                undo_to(&mut scratch, &mut played, 0);
                fingerprint
            });
            self.seen.prefetch(fingerprint);
            self.child_fingerprints.push(fingerprint);
        }
        // Then, in the same order, each is stored if new, and only the new ones are
        // played to be weighed.
        let scorer = ChildScorer::new(&scratch, rules, &self.weights);
        for (&m, &fingerprint) in moves.iter().zip(&self.child_fingerprints) {
            let fresh = match self.seen.insert(fingerprint) {
                Ok(fresh) => fresh,
                Err(OutOfMemory) => return Ok(Step::OutOfMemory),
            };
            if !fresh {
                continue;
            }
            play_with_autoplay(&mut scratch, rules, m, &mut played);
            debug_assert_eq!(fingerprint, scratch.fingerprint_after(parent, &hashes, &played));
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
            self.open.push(priority, child_id);
            undo_to(&mut scratch, &mut played, 0);
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

/// A best-first search's open list: node ids by priority, the lowest first, and among
/// equal priorities the newest first. Priorities are small integers (a score plus a
/// multiple of the depth), so it keeps a stack of ids per priority: a push or a pop
/// touches one stack's end, where a binary heap of millions of entries went down a
/// dozen levels, most of them trips to memory. Ids grow as nodes are made, so this
/// order is exactly the one a max-heap of (Reverse(priority), id) gave.
#[derive(Default)]
struct OpenList {
    /// The priority of `stacks[0]`.
    base: i32,
    stacks: Vec<Vec<u32>>,
    /// No stack below this one holds an id.
    lowest: usize,
    len: usize,
    /// The stacks' capacity, in bytes.
    stack_bytes: usize,
}

impl OpenList {
    fn push(&mut self, priority: i32, id: u32) {
        if self.stacks.is_empty() {
            self.base = priority;
        } else if priority < self.base {
            let below = (self.base - priority) as usize;
            self.stacks.splice(0..0, (0..below).map(|_| Vec::new()));
            self.base = priority;
            self.lowest += below;
        }
        let i = (priority - self.base) as usize;
        if i >= self.stacks.len() {
            self.stacks.resize_with(i + 1, Vec::new);
        }
        let stack = &mut self.stacks[i];
        let capacity = stack.capacity();
        stack.push(id);
        self.stack_bytes += (stack.capacity() - capacity) * std::mem::size_of::<u32>();
        if self.len == 0 || i < self.lowest {
            self.lowest = i;
        }
        self.len += 1;
    }

    fn pop(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        while self.stacks[self.lowest].is_empty() {
            self.lowest += 1;
        }
        self.len -= 1;
        self.stacks[self.lowest].pop()
    }

    fn bytes(&self) -> usize {
        self.stack_bytes + self.stacks.capacity() * std::mem::size_of::<Vec<u32>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_best_first_node_not_expanded_is_a_small_record() {
        // Most best-first nodes are never expanded: their size is the pass's memory.
        assert_eq!(std::mem::size_of::<Node>(), 20);
    }

    #[test]
    fn the_open_list_pops_in_the_order_of_a_heap_of_priority_then_newest() {
        // The order the open list replaced: a max-heap of (Reverse(priority), id).
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let (mut open, mut heap) = (OpenList::default(), BinaryHeap::new());
        let mut x = 12345u64;
        let mut next_id = 0u32;
        for round in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Mostly pushes, some pops; priorities wander, below the first one too.
            if (x >> 60) < 11 || heap.is_empty() {
                let priority = ((x >> 33) % 300) as i32 - 100 + round / 200;
                open.push(priority, next_id);
                heap.push((Reverse(priority), next_id));
                next_id += 1;
            } else {
                assert_eq!(open.pop(), heap.pop().map(|(_, id)| id));
            }
        }
        while let Some((_, id)) = heap.pop() {
            assert_eq!(open.pop(), Some(id));
        }
        assert_eq!(open.pop(), None);
        assert!(open.bytes() > 0);
    }
}

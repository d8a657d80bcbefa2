//! Depth-first search: the quick passes and restarts that only find wins, and the exhaustive pass.

use crate::moves::{generate, home_moves, play_moves};
use crate::position::{fmix64, Hashes, Move, Place, Played, Position};
use crate::variant::{SequenceMoves, Variant};
use crate::visited::FingerprintSet;

use super::loose_return::{quiet_return, return_loose_card, Ends};
use super::meter::{Meter, CHECK_EVERY};
use super::play::{leave_card_just_moved, play_with_autoplay, undo_to};
use super::score::PORTFOLIO;
use super::score::{ChildScorer, Weights};
use super::spill::EntryQueue;
use super::{Limit, Pass, Status};

/// A quick depth-first pass gives up after 1,000 nodes, or when 75 pass without a new
/// deepest point: one that is winning goes deeper all the time, and one that is
/// backtracking under a wrong early choice rarely recovers. A stall of 75 rather than
/// 200 expands 14% fewer nodes at 4 cells (deals 1..6000 and 20001..26000, the
/// engine's time 5% less), 10% fewer at 3 cells and 8% fewer at 2 cells (500 deals),
/// and one deal in 12,000 more (2, not 1) left to the last pass.
const QUICK: Cap = Cap { nodes: 1000, stall: 75, back_jumps: 0 };
/// With 3 free cells or more, the first quick pass, when it stalls, jumps back to an
/// eighth of the deepest point's depth (dropping the untried moves below) and goes on
/// with the positions it has stored, where a shaken pass would start from nothing:
/// as FIRST_PASS_3_4_CELLS says with 3 or 4 cells, QUICK_BACK_JUMPS times within
/// QUICK's nodes with more. With 4 cells 15% fewer nodes (deals 1..32,000), with 3 9%
/// fewer, and shorter lines; with 2 cells, in every shaken pass, or with single-card
/// moves only it costs more (docs/tuning.md, `QUICK_BACK_JUMPS`).
const QUICK_BACK_JUMPS: u64 = 8;
const FIRST_PASS_3_4_CELLS: Cap = Cap { nodes: 8000, stall: 75, back_jumps: 64 };
/// Where a back-jump lands, in eighths of the deepest point's depth.
const BACK_JUMP_EIGHTHS: usize = 1;
/// A restart (`DepthFirst::restart`) gives up after RESTART_NODES times the Luby
/// sequence's term for its number (1, 1, 2, 1, 1, 2, 4, ...), or after RESTART_STALL
/// nodes without going deeper. The deep wins with one or two cells are found by few
/// orders but found soon by those: on 12 two-cell wins of 1.5 to 31 s, 16 shaken
/// orders each, a stall of 300 nodes cost 30,000 nodes a win, 1,000 cost 65,000, and
/// none at all 420,000. Luby's lengths keep a few long tries among the short ones.
const RESTART_NODES: u64 = 4000;
const RESTART_STALL: u64 = 300;
/// Shaking adds a pseudo-random 0..SHAKE to each position's score.
const SHAKE: u64 = 32;

/// When a pass that only looks for wins gives up: after `nodes` expanded, or after
/// `stall` of them without a new deepest point.
#[derive(Clone, Copy)]
struct Cap {
    nodes: u64,
    stall: u64,
    /// How many times a stall jumps back (see QUICK_BACK_JUMPS) before it gives up.
    back_jumps: u64,
}

/// The Luby sequence's term `i` (from 1): 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ...
/// Restarts of these lengths are within a constant factor of the best fixed length,
/// whatever it is (Luby, Sinclair and Zuckerman, 1993).
fn luby(i: u64) -> u64 {
    let mut i = i.max(1);
    loop {
        // The smallest k with 2^k - 1 >= i.
        let k = 64 - i.leading_zeros();
        if i == (1 << k) - 1 {
            return 1 << (k - 1);
        }
        i -= (1 << (k - 1)) - 1;
    }
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
/// count, and the top bit set when a loose card goes back after it, `return_loose_card`),
/// as the depth-first path keeps its untried moves: paths millions of levels deep hold
/// tens of millions of them. Places are numbered columns 0..10, cells 10..18,
/// foundations (as a take-back's source) 18..22, and 31 the foundations as a
/// destination.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct PackedMove(u16);

const _: () =
    assert!(crate::position::MAX_HEIGHT < 32 && crate::variant::MAX_COLUMNS + crate::variant::MAX_CELLS == 18);

impl PackedMove {
    fn pack(m: Move) -> PackedMove {
        fn place(p: Place) -> u16 {
            match p {
                Place::Column(i) => u16::from(i),
                Place::Cell(i) => 10 + u16::from(i),
                Place::Foundation(suit) => 18 + u16::from(suit),
                Place::Home => 31,
            }
        }
        PackedMove(place(m.from) | place(m.to) << 5 | u16::from(m.count) << 10)
    }

    /// The move, marked as one after which a loose card goes back if `returns`.
    fn returning(self, returns: bool) -> PackedMove {
        PackedMove(self.0 | u16::from(returns) << 15)
    }

    fn returns(self) -> bool {
        self.0 >> 15 != 0
    }

    fn unpack(self) -> Move {
        fn place(bits: u16) -> Place {
            match bits & 31 {
                31 => Place::Home,
                i @ 18.. => Place::Foundation((i - 18) as u8),
                i @ 10.. => Place::Cell((i - 10) as u8),
                i => Place::Column(i as u8),
            }
        }
        Move::new(place(self.0), place(self.0 >> 5), (self.0 >> 10 & 31) as u8)
    }
}

/// How a depth-first pass runs. The quick passes take shortcuts and give up soon, their
/// moves tried best-scored first; the exhaustive one (`EXHAUSTIVE`) tries single-card
/// moves only, in the order they are generated, until a win or until every reachable
/// position has been seen.
#[derive(Clone, Copy)]
pub(super) struct DepthFirst {
    weights: Weights,
    /// Generate runs as single moves (shortcuts) too.
    sequences: bool,
    /// Skip moves that rarely help: those that break up a run (the deepest card moved
    /// lies on its natural parent), and every other move where a card may go home.
    /// A pass that skips moves proves nothing when it runs out: it ends undecided.
    keep_runs: bool,
    /// When to give up undecided. None: run to the end.
    cap: Option<Cap>,
    /// Nonzero: add a pseudo-random 0..SHAKE, drawn from this seed and the position's
    /// fingerprint, to each position's score (deterministic, like everything here).
    shake_seed: u64,
    /// Do not move the card just moved on again by itself (`leave_card_just_moved`): the
    /// same positions are reached, with fewer moves looked at.
    rest_last_card: bool,
    /// Try the moves best-scored first (`weights`), not in the order generated. The
    /// exhaustive pass does not: most of the jobs it runs to the end are lost, where
    /// order cannot matter and ranking was 13 to 17% of the time, and on hard wins of one
    /// and two cells the scores' order found the win no sooner than the plain one
    /// (docs/performance.md).
    ranked: bool,
    /// Under most rules (`Variant::loose_card_returns`), a child whose cells are full,
    /// with no column empty, and one of whose loose cards (in a cell, or alone in its
    /// column) has to go back onto a column (`Position::loose_card_return`) is replaced
    /// by the position after that move: a proof with one or two cells stores far fewer
    /// positions.
    return_loose_card: bool,
}

impl DepthFirst {
    /// Quick pass number `n` under `rules`: 0 is the plain one, later ones are shaken.
    pub(super) fn quick(n: u64, rules: &Variant) -> DepthFirst {
        let jumps = n == 0 && rules.cells >= 3 && rules.sequence_moves != SequenceMoves::Single;
        let cap = match (jumps, rules.cells) {
            (false, _) => QUICK,
            (true, 3 | 4) => FIRST_PASS_3_4_CELLS,
            (true, _) => Cap { back_jumps: QUICK_BACK_JUMPS, ..QUICK },
        };
        DepthFirst {
            weights: PORTFOLIO[0].weights,
            sequences: true,
            keep_runs: true,
            cap: Some(cap),
            shake_seed: n,
            rest_last_card: false,
            ranked: true,
            return_loose_card: false,
        }
    }

    /// Restart number `n` (from 1) of the last pass (`settle`): a depth-first pass with
    /// every move (runs as single moves too), its order shaken by seed `n`, that gives
    /// up soon. Many short tries in different orders find the deep wins of one and two
    /// cells that one long search in a fixed order finds late: deal 3311 with 2 cells in
    /// 0.2 s, not 31 s. It only ever finds wins.
    pub(super) fn restart(n: u64) -> DepthFirst {
        DepthFirst {
            weights: PORTFOLIO[0].weights,
            sequences: true,
            keep_runs: false,
            cap: Some(Cap { nodes: RESTART_NODES * luby(n), stall: RESTART_STALL, back_jumps: 0 }),
            shake_seed: n,
            rest_last_card: false,
            ranked: true,
            return_loose_card: false,
        }
    }

    #[cfg(test)]
    pub(super) fn exhaustive(rest_last_card: bool, return_loose_card: bool) -> DepthFirst {
        DepthFirst { rest_last_card, return_loose_card, ..DepthFirst::EXHAUSTIVE }
    }

    pub(super) const EXHAUSTIVE: DepthFirst = DepthFirst {
        weights: PORTFOLIO[0].weights,
        sequences: false,
        keep_runs: false,
        cap: None,
        shake_seed: 0,
        rest_last_card: true,
        ranked: false,
        return_loose_card: true,
    };
}

pub(super) fn depth_first(root: &Position, rules: &Variant, meter: &mut Meter, how: DepthFirst) -> Pass {
    let mut search = DepthFirstSearch::new(root, rules, how, meter.budget.max_memory);
    loop {
        if let Some(pass) = search.step(rules, meter) {
            meter.note_memory(search.peak_bytes());
            return pass;
        }
    }
}

/// More moves than a position has (8 cells and 10 columns give fewer than 200), and more
/// cards than one move and its automatic moves can play.
pub(super) const MAX_LEVEL_MOVES: usize = 256;
const DECK: usize = 52;

/// A depth-first pass that runs a node at a time, so that it can share a core with
/// best-first searches.
pub(super) struct DepthFirstSearch {
    how: DepthFirst,
    /// Nodes this pass expanded (the meter counts every pass's).
    expanded: u64,
    /// The deepest point reached so far, and when (for the quick passes' stall rule).
    deepest: usize,
    deepest_at: u64,
    /// Back-jumps made so far (`Cap::back_jumps`).
    back_jumps: u64,
    pub(super) seen: FingerprintSet,
    state: Position,
    played: Vec<Played>,
    /// Every level's moves; a frame's untried ones run from its `next`.
    moves: Vec<PackedMove>,
    frames: Vec<Frame>,
    /// The hashes and column scores of the position at the end of the path, so that its
    /// children are hashed and scored without going over every column (the scores only
    /// in a pass that ranks its moves: `DepthFirst::ranked`). There is one,
    /// brought back on the way up (`retreat`), not one per level: at some 380 bytes a
    /// level, paths millions of levels deep would hold gigabytes of them.
    context: (Hashes, ChildScorer),
    scratch: Scratch,
    /// In a layered proof (`layered`), where the positions of higher levels go.
    pub(super) gate: Option<EntryQueue>,
}

impl DepthFirstSearch {
    pub(super) fn new(root: &Position, rules: &Variant, how: DepthFirst, max_memory: usize) -> DepthFirstSearch {
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
            expanded: 0,
            deepest: 0,
            deepest_at: 0,
            back_jumps: 0,
            seen,
            state: root.clone(),
            played: vec![],
            moves: vec![],
            frames: vec![],
            context: (root.hashes(rules), ChildScorer::new(root, rules, &how.weights)),
            scratch,
            gate: None,
        };
        let s = &mut search;
        push_frame(
            &s.state,
            &s.context,
            &mut s.seen,
            rules,
            how,
            &[],
            0,
            &mut s.moves,
            &mut s.frames,
            &mut s.scratch,
            None,
        );
        search
    }

    /// An exhaustive pass of a layered proof, which starts nowhere yet (`start_from`)
    /// and hands the positions of higher levels to `gate`.
    pub(super) fn gated(root: &Position, rules: &Variant, max_memory: usize, gate: EntryQueue) -> DepthFirstSearch {
        let mut search = DepthFirstSearch::new(root, rules, DepthFirst::EXHAUSTIVE, max_memory);
        search.frames.clear();
        search.moves.clear();
        search.forget();
        search.gate = Some(gate);
        search
    }

    /// Starts the pass, which has run out of moves, again from `start`, unless its
    /// store holds it already; with `stored`, `start` is one the store holds and the
    /// pass never expanded (`unexpanded`), and is expanded. `start`'s every move is tried
    /// (no card just moved).
    pub(super) fn start_from(
        &mut self,
        start: &Position,
        rules: &Variant,
        stored: bool,
    ) -> Result<(), crate::visited::OutOfMemory> {
        debug_assert!(self.frames.is_empty(), "the pass has run out of moves");
        self.seen.reserve(MAX_LEVEL_MOVES + 1)?;
        let hashes = start.hashes(rules);
        if !self.seen.insert_reserved(hashes.fingerprint) && !stored {
            return Ok(());
        }
        self.state.clone_from(start);
        self.played.clear();
        self.moves.clear();
        // Only the hashes: a gated pass, the only one started this way, ranks nothing.
        self.context.0 = hashes;
        let s = self;
        push_frame(
            &s.state,
            &s.context,
            &mut s.seen,
            rules,
            s.how,
            &[],
            0,
            &mut s.moves,
            &mut s.frames,
            &mut s.scratch,
            s.gate.as_mut(),
        );
        Ok(())
    }

    /// Drops the pass's path and store wherever it was, their memory with them: for a
    /// bucket of a layered proof searched again another way.
    pub(super) fn abandon(&mut self) {
        self.frames = vec![];
        self.moves = vec![];
        self.played = vec![];
        self.seen = FingerprintSet::new(self.seen.max_bytes());
    }

    /// Empties the store, which the pass, having run out of moves, needs no more, and
    /// gives back its path's memory: a path a million levels deep holds tens of
    /// megabytes even empty, which another search (a level's threads) may need.
    pub(super) fn forget(&mut self) {
        debug_assert!(self.frames.is_empty(), "the pass has run out of moves");
        self.seen = FingerprintSet::new(self.seen.max_bytes());
        self.frames = vec![];
        self.moves = vec![];
        self.played = vec![];
    }

    /// Everything the pass holds: the store, and the path with its moves.
    pub(super) fn bytes(&self) -> usize {
        self.seen.bytes() + self.path_bytes()
    }

    /// The path: its moves, the moves into it and its frames. A path of a million levels
    /// holds some hundred megabytes of these. (And a layered proof's gate, its cache and
    /// file buffers.)
    fn path_bytes(&self) -> usize {
        self.gate.as_ref().map_or(0, EntryQueue::bytes)
            + self.moves.capacity() * std::mem::size_of::<PackedMove>()
            + self.played.capacity() * std::mem::size_of::<Played>()
            + self.frames.capacity() * std::mem::size_of::<Frame>()
    }

    /// Takes back the move just tried, so that `step` tries it again if the pass is given
    /// more memory (`seen.set_max_bytes`), and says the memory budget ran out.
    fn out_of_memory(&mut self, mark: usize, meter: &mut Meter) -> Pass {
        self.put_back(mark);
        meter.note_memory(self.peak_bytes());
        Pass::Settled(Status::Unknown(Limit::Memory), vec![], self.seen.len())
    }

    /// Takes back the move just tried, not yet expanded, as untried: whatever stops the
    /// pass then leaves it at the end of its path with every position stored and not
    /// expanded the child of an untried move (`unexpanded`).
    fn put_back(&mut self, mark: usize) {
        undo_to(&mut self.state, &mut self.played, mark);
        if let Some(frame) = self.frames.last_mut() {
            frame.next -= 1;
        }
    }

    /// Calls `each` with every position the store holds that the pass has not expanded
    /// (and would have, had it gone on): the children of its path's untried moves, each
    /// stored when generated. Every other position stored is expanded, so the store and
    /// these are all a stopped pass needs to go on from (`start_from` with `stored`).
    /// Takes the path apart, top down.
    pub(super) fn unexpanded(&mut self, rules: &Variant, each: &mut impl FnMut(&Position) -> bool) -> bool {
        while let Some(frame) = self.frames.pop() {
            for i in frame.next..frame.end {
                let packed = self.moves[i as usize];
                let m = packed.unpack();
                let mark = self.played.len();
                self.played.push(self.state.play(m));
                self.state.autoplay_after(rules, m, &mut self.played);
                if packed.returns() {
                    return_loose_card(&mut self.state, rules, &mut self.played);
                }
                let went_on = each(&self.state);
                undo_to(&mut self.state, &mut self.played, mark);
                if !went_on {
                    return false;
                }
            }
            self.moves.truncate(frame.begin as usize);
            undo_to(&mut self.state, &mut self.played, frame.entered_at as usize);
        }
        true
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
    pub(super) fn peak_bytes(&self) -> usize {
        self.seen.peak_bytes().max(self.bytes())
    }

    /// Goes on until one more node is expanded; Some when the pass has ended.
    pub(super) fn step(&mut self, rules: &Variant, meter: &mut Meter) -> Option<Pass> {
        let how = self.how;
        loop {
            let Some(frame) = self.frames.last_mut() else {
                if how.keep_runs {
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
                debug_assert_eq!(self.context.0, self.state.hashes(rules));
                if how.ranked {
                    self.context.1.advance(&self.state, into, rules, &how.weights);
                    debug_assert_eq!(self.context.1, ChildScorer::new(&self.state, rules, &how.weights));
                }
                continue;
            }
            let packed = self.moves[frame.next as usize];
            let m = packed.unpack();
            frame.next += 1;
            let mark = self.played.len();
            self.played.push(self.state.play(m));
            self.state.autoplay_after(rules, m, &mut self.played);
            // Whether a loose card goes back was found as the move was generated.
            debug_assert_eq!(
                packed.returns(),
                how.return_loose_card && rules.loose_card_returns() && self.state.loose_card_return(rules).is_some()
            );
            if packed.returns() {
                return_loose_card(&mut self.state, rules, &mut self.played);
            }
            // A vector of the path that is full doubles on the next level: stop before
            // that would pass the budget rather than notice after. Like the store's own
            // refusal below, this leaves the pass as it was, to go on with more memory.
            let growth = self.path_growth();
            let indices_full = self.moves.len() + MAX_LEVEL_MOVES > u32::MAX as usize;
            if indices_full || (growth > 0 && self.bytes() + growth > self.seen.max_bytes()) {
                return Some(self.out_of_memory(mark, meter));
            }
            // The child is in the store already: its parent put it there on generating it
            // (push_frame), so it is not looked up again.
            if self.state.is_won() {
                return Some(Pass::Settled(Status::Solved, self.played.clone(), self.seen.len()));
            }
            if let Some(limit) = meter.tick(self.frames.len() as u32) {
                self.put_back(mark);
                return Some(Pass::Settled(Status::Unknown(limit), vec![], self.seen.len()));
            }
            self.expanded += 1;
            if let Some(cap) = how.cap {
                if self.frames.len() > self.deepest {
                    (self.deepest, self.deepest_at) = (self.frames.len(), self.expanded);
                }
                if self.expanded >= cap.nodes {
                    return Some(Pass::Undecided(self.seen.len()));
                }
                if self.expanded - self.deepest_at > cap.stall {
                    if self.back_jumps == cap.back_jumps {
                        return Some(Pass::Undecided(self.seen.len()));
                    }
                    self.back_jumps += 1;
                    // The levels below `keep` give up their untried moves; the loop
                    // then leaves them one by one, as it leaves any level done with.
                    let keep = (self.deepest * BACK_JUMP_EIGHTHS / 8).min(self.frames.len());
                    for frame in &mut self.frames[keep..] {
                        frame.next = frame.end;
                    }
                    (self.deepest, self.deepest_at) = (keep, self.expanded);
                }
            }
            if meter.nodes.is_multiple_of(CHECK_EVERY) {
                // The store must grow within what the path leaves of the budget.
                self.seen.set_others(self.path_bytes());
                if meter.memory(self.bytes()).is_some() {
                    // Like every other memory exit, this one puts the move back, so that a
                    // pass given more memory (`settle`) tries it again: the child is
                    // stored, and only trying its move expands it.
                    return Some(self.out_of_memory(mark, meter));
                }
            }
            if meter.no_time_to_grow(&self.seen, MAX_LEVEL_MOVES) {
                self.put_back(mark);
                return Some(Pass::Settled(Status::Unknown(Limit::Seconds), vec![], self.seen.len()));
            }
            // Room for the child's own children, made before they are generated: a refusal
            // leaves the pass as it was.
            if self.seen.reserve(MAX_LEVEL_MOVES).is_err() {
                return Some(self.out_of_memory(mark, meter));
            }
            // The context follows the path only now that the child is expanded: every exit
            // above leaves it the parent's, as `out_of_memory` needs.
            self.context.0.advance(&self.state, &self.played[mark..]);
            if how.ranked {
                self.context.1.advance(&self.state, &self.played[mark..], rules, &how.weights);
            }
            push_frame(
                &self.state,
                &self.context,
                &mut self.seen,
                rules,
                how,
                &self.played[mark..],
                mark,
                &mut self.moves,
                &mut self.frames,
                &mut self.scratch,
                self.gate.as_mut(),
            );
            if let Some(limit) = self.gate.as_ref().and_then(|g| g.failed) {
                return Some(Pass::Settled(Status::Unknown(limit), vec![], self.seen.len()));
            }
            return None;
        }
    }
}

/// Generates the moves from `state`, most promising first, onto the moves stack.
/// Moves are tried in the order of the positions they lead to, best score first.
/// Positions already seen are left out; the new ones are stored at once, so a position
/// is stored when it is first generated, and expanded later by the frame that stored
/// it (a frame is dropped only when all its moves are tried, or when the pass ends).
/// Storing on generation rather than on expansion saves a second trip to the store
/// for every move tried, and the search never plays a move into a position that a
/// sibling's subtree has reached meanwhile; docs/correctness.md ("Stored when first
/// generated") argues that it still expands every position it can reach.
/// `into` are the moves into `state`, which `leave_card_just_moved` looks at. With a
/// `gate` (a layered proof), children of a higher level go to it, not to the store.
#[allow(clippy::too_many_arguments)]
fn push_frame(
    state: &Position,
    (hashes, scorer): &(Hashes, ChildScorer),
    seen: &mut FingerprintSet,
    rules: &Variant,
    how: DepthFirst,
    into: &[Played],
    entered_at: usize,
    moves: &mut Vec<PackedMove>,
    frames: &mut Vec<Frame>,
    scratch: &mut Scratch,
    mut gate: Option<&mut EntryQueue>,
) {
    let Scratch { moves: generated, played, keyed, child } = scratch;
    // The exhaustive pass, a layered proof's too, does not rank (`DepthFirst::ranked`).
    let ranked = how.ranked;
    generated.clear();
    if how.keep_runs {
        // A card that may go home (though not safely) almost always should: a pass
        // that proves nothing anyway tries only that, and saves the rest.
        home_moves(state, rules, generated);
        if generated.is_empty() {
            play_moves(state, rules, how.sequences, true, generated);
        }
    } else {
        generate(state, rules, how.sequences, generated);
        if how.rest_last_card {
            leave_card_just_moved(generated, into);
        }
    }
    keyed.clear();
    // How a child ranks among its siblings: its position's score, then the kind of move.
    let order_key = |child: &Position, played: &[Played], m: Move, child_fp: u128| {
        (scorer.score(child, played, rules, &how.weights) + shake(how, child_fp), priority(state, m))
    };
    // A pass that gives up soon (`cap`) has a small store, and most children are new:
    // each is ranked as it is made, rather than played a second time.
    let rank_now = ranked && how.cap.is_some() && generated.len() > 1;
    // A move with no card sent home and no automatic move after it is not played: its
    // child's fingerprint follows from this position's (`fingerprint_of_quiet_move`),
    // and so does its score where it is ranked now (`score_of_quiet_move`; a card taken
    // back off a foundation changes every column's score, and is played). The others
    // are played on `child`, a copy of this position made only when one is needed.
    let quiet = gate.is_none();
    // A child whose loose card has to go back is replaced by the position after that.
    let returns = how.return_loose_card && rules.loose_card_returns();
    // Only a position with at most one free cell and at most one empty column can have
    // a child with every cell full and no column empty.
    let room = (state.empty_cells(rules), state.empty_columns(rules));
    let ends = (returns && room.0 <= 1 && room.1 <= 1).then(|| Ends::of(state, rules, room.0));
    let free = if rank_now { room } else { (0, 0) };
    let mut child_ready = false;
    for &m in generated.iter() {
        if quiet && !(rank_now && matches!(m.from, Place::Foundation(_))) {
            let back = ends.as_ref().and_then(|ends| quiet_return(state, rules, m, ends));
            let child_fp = match back {
                Some((x, from, column)) => {
                    state.fingerprint_of_quiet_move_and_return(rules, hashes, m, x, from, column)
                }
                None => state.fingerprint_of_quiet_move(rules, hashes, m),
            };
            if let Some(child_fp) = child_fp {
                debug_assert_eq!(child_fp, played_fingerprint(state, hashes, rules, m, returns));
                seen.prefetch(child_fp);
                let (score, tie) = if rank_now {
                    let score = scorer.score_of_quiet_move(state, m, free, rules, &how.weights);
                    debug_assert_eq!(score, played_score(state, scorer, rules, &how.weights, m));
                    (score + shake(how, child_fp), priority(state, m))
                } else {
                    (0, (0, 0))
                };
                keyed.push((score, tie, PackedMove::pack(m).returning(back.is_some()), child_fp));
                continue;
            }
        }
        if !child_ready {
            child.clone_from(state);
            child_ready = true;
        }
        play_with_autoplay(child, rules, m, played);
        let back = returns && return_loose_card(child, rules, played);
        let child_fp = child.fingerprint_after(state, hashes, played);
        if let Some(gate) = gate.as_deref_mut() {
            if gate.rises(state, child, played, rules) {
                gate.spill(child, child_fp, rules);
                undo_to(child, played, 0);
                continue;
            }
        }
        seen.prefetch(child_fp);
        let (score, tie) = if rank_now { order_key(child, played, m, child_fp) } else { (0, (0, 0)) };
        keyed.push((score, tie, PackedMove::pack(m).returning(back), child_fp));
        undo_to(child, played, 0);
    }
    // Positions already seen are dropped, and new ones stored, only now, each store
    // line having been asked for as its fingerprint was made: in a store of millions
    // those reads are trips to memory, and one after another they would each be waited
    // for. The caller has made room for them (`reserve`).
    keyed.retain(|k| seen.insert_reserved(k.3));
    if keyed.len() > 1 && ranked {
        if !rank_now {
            if !child_ready {
                child.clone_from(state);
            }
            // Only the new positions are ranked, each played again: in a large proof a
            // position has about one new child for several seen ones, and one child
            // needs no order.
            for k in keyed.iter_mut() {
                let m = k.2.unpack();
                play_with_autoplay(child, rules, m, played);
                (k.0, k.1) = order_key(child, played, m, k.3);
                undo_to(child, played, 0);
            }
        }
        keyed.sort_by_key(|&(s, p, _, _)| (s, p));
    }
    let begin = moves.len() as u32;
    moves.extend(keyed.iter().map(|&(_, _, m, _)| m));
    frames.push(Frame { entered_at: entered_at as u32, begin, next: begin, end: moves.len() as u32 });
}

/// The fingerprint of the position `m` leads to from `state`, found by playing it (what
/// `fingerprint_of_quiet_move` is held to in debug builds).
fn played_fingerprint(state: &Position, hashes: &Hashes, rules: &Variant, m: Move, returns: bool) -> u128 {
    let (mut child, mut played) = (state.clone(), vec![]);
    play_with_autoplay(&mut child, rules, m, &mut played);
    if returns {
        return_loose_card(&mut child, rules, &mut played);
    }
    child.fingerprint_after(state, hashes, &played)
}

/// The score of the position `m` leads to from `state`, found by playing it (what
/// `score_of_quiet_move` is held to in debug builds).
fn played_score(state: &Position, scorer: &ChildScorer, rules: &Variant, w: &Weights, m: Move) -> i32 {
    let (mut child, mut played) = (state.clone(), vec![]);
    play_with_autoplay(&mut child, rules, m, &mut played);
    scorer.score(&child, &played, rules, w)
}

/// The pseudo-random part of a child's score in a shaken pass (`shake_seed`), drawn
/// from its fingerprint.
fn shake(how: DepthFirst, child_fp: u128) -> i32 {
    match how.shake_seed {
        0 => 0,
        seed => (fmix64(child_fp as u64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)) % SHAKE) as i32,
    }
}

/// Buffers `push_frame` reuses from node to node.
struct Scratch {
    moves: Vec<Move>,
    played: Vec<Played>,
    keyed: Vec<(i32, (u8, u8), PackedMove, u128)>,
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

    #[test]
    fn luby_sequence() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
        assert_eq!(luby(1023), 512);
        assert_eq!(luby(1024), 1);
    }

    #[test]
    fn packed_moves_unpack_to_themselves() {
        let places = (0..10)
            .map(Place::Column)
            .chain((0..8).map(Place::Cell))
            .chain((0..4).map(Place::Foundation))
            .chain([Place::Home]);
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
}

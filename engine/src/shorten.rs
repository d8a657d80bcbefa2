//! Shortening a winning line: small breadth-first searches that jump ahead along it.
//!
//! The exhaustive pass finds wins by going deep, and its lines wander: deal 23638 with
//! one cell once came out at 207,413 moves. From the start of the line, a breadth-first
//! search of a few hundred positions looks for the position furthest along the line it
//! can reach (positions compared by canonical fingerprint, so a line that parks a card
//! in another cell or column still matches), the line jumps there, and so on to the
//! win. The line's own next move is always among the first positions searched, so every
//! jump goes forward and the result is never longer than the line.

use std::collections::HashMap;

use crate::moves::generate;
use crate::position::{Move, Position};
use crate::variant::Variant;

/// Positions one jump's search may expand.
const JUMP_NODES: usize = 400;
/// Lines this long or shorter are kept as found. They come from the fast passes, whose
/// lines are already short: on deals 1..3000 with 4 cells a one-move look-ahead along
/// them saved 2% of the moves and cost more time than the search had (0.3 ms a deal).
pub const LONG: usize = 150;

/// Lines still longer than this after a pass are shortened again with jumps that may
/// look further (`WIDER_JUMP_NODES`). Few are: in a sweep of the whole classic table
/// the first pass left 13 of 160,000 (up to 305 moves, for a deal won in 141); the
/// wider passes cost up to half a second each and brought all 13 under 200.
const STILL_LONG: usize = 200;
const WIDER_JUMP_NODES: [usize; 2] = [4_000, 40_000];

/// A line from `start` to the win no longer than `line` (every move, automatic ones
/// included), each move legal; lines of `LONG` moves or fewer come back as they are.
/// `start` must be the position `line` starts from.
pub fn shorten(start: &Position, rules: &Variant, line: &[Move]) -> Vec<Move> {
    let mut out = shorten_once(start, rules, line, JUMP_NODES);
    for nodes in WIDER_JUMP_NODES {
        if out.len() <= STILL_LONG {
            break;
        }
        out = shorten_once(start, rules, &out, nodes);
    }
    out
}

/// One pass along `line`, each jump's search expanding at most `jump_nodes` positions.
fn shorten_once(start: &Position, rules: &Variant, line: &[Move], jump_nodes: usize) -> Vec<Move> {
    if line.len() <= LONG {
        return line.to_vec();
    }
    // Where along the line each position last occurs: jumping there skips any loop.
    let mut along: HashMap<u128, usize> = HashMap::with_capacity(line.len() + 1);
    let mut s = start.clone();
    along.insert(s.fingerprint(rules), 0);
    for (i, &m) in line.iter().enumerate() {
        s.apply(m);
        along.insert(s.fingerprint(rules), i + 1);
    }
    if !s.is_won() {
        return line.to_vec(); // not a winning line: nothing to shorten towards
    }
    let mut out = vec![];
    let mut here = start.clone();
    let mut at = 0usize;
    while at < line.len() {
        match jump(&here, rules, &along, at, jump_nodes) {
            Some((to, moves)) => {
                for &m in &moves {
                    here.apply(m);
                }
                out.extend(moves);
                at = to;
            }
            // Cannot happen when `here` matches the line (its next move is a child);
            // then keep the rest of the line as it is, which replays from here.
            None => {
                out.extend_from_slice(&line[at..]);
                break;
            }
        }
    }
    if out.len() > line.len() {
        return line.to_vec();
    }
    out
}

/// One breadth-first search from `here` (which is the line's position `at`, up to the
/// order of columns and cells): the furthest position along the line it reaches within
/// `max_nodes` expansions, and the moves that reach it.
fn jump(
    here: &Position,
    rules: &Variant,
    along: &HashMap<u128, usize>,
    at: usize,
    max_nodes: usize,
) -> Option<(usize, Vec<Move>)> {
    // Each node: its parent and the moves from the parent; `states` holds the positions
    // of the first `max_nodes`, the only ones that may be expanded.
    let mut nodes: Vec<(usize, Vec<Move>)> = vec![(usize::MAX, vec![])];
    let mut states = vec![here.clone()];
    let mut seen = std::collections::HashSet::new();
    seen.insert(here.fingerprint(rules));
    let mut best: Option<(usize, usize)> = None; // (index along the line, node)
    let mut next = 0;
    let (mut moves, mut played) = (vec![], vec![]);
    while next < states.len() && next < max_nodes {
        let parent = states[next].clone();
        let hashes = parent.hashes(rules);
        let mut child = parent.clone();
        moves.clear();
        generate(&parent, rules, true, &mut moves);
        for &m in &moves {
            played.clear();
            played.push(child.play(m));
            child.autoplay_after(rules, m, &mut played);
            let fp = child.fingerprint_after(&parent, &hashes, &played);
            if seen.insert(fp) {
                if let Some(&j) = along.get(&fp) {
                    if j > at && best.is_none_or(|(b, _)| j > b) {
                        best = Some((j, nodes.len()));
                    }
                }
                nodes.push((next, played.iter().map(|p| p.m).collect()));
                if nodes.len() <= max_nodes {
                    states.push(child.clone());
                }
            }
            for &p in played.iter().rev() {
                child.undo(p);
            }
        }
        next += 1;
    }
    let (to, mut node) = best?;
    let mut segments = vec![];
    while node != 0 {
        segments.push(std::mem::take(&mut nodes[node].1));
        node = nodes[node].0;
    }
    Some((to, segments.into_iter().rev().flatten().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{solve, Budget, Status};
    use crate::testdata::{columns, MS1};

    #[test]
    fn a_line_with_detours_comes_back_shorter_and_still_wins() {
        let rules = Variant::FREECELL;
        let start = Position::new(&rules, &columns(MS1), &[None; 4], [0; 4]).unwrap();
        let out = solve(&start, &rules, Budget::default(), &mut || false);
        assert_eq!(out.status, Status::Solved);
        // Replay the solution, adding a pointless detour (a card to a cell and back)
        // before every move, while a cell is free.
        let mut s = start.clone();
        let mut line = vec![];
        for &m in &out.solution {
            let column = (0..rules.columns).find(|&i| s.len(i) > 1);
            if let (Some(i), Some(slot)) = (column, s.first_empty_cell(&rules)) {
                let there =
                    Move::new(crate::position::Place::Column(i as u8), crate::position::Place::Cell(slot as u8), 1);
                let back = Move::new(there.to, there.from, 1);
                s.apply(there);
                s.apply(back);
                line.extend([there, back]);
            }
            s.apply(m);
            line.push(m);
        }
        assert!(s.is_won());
        assert!(line.len() > LONG);
        let short = shorten(&start, &rules, &line);
        assert!(short.len() < line.len(), "{} not below {}", short.len(), line.len());
        assert!(short.len() <= out.solution.len());
        let mut s = start.clone();
        for &m in &short {
            let mut legal = vec![];
            generate(&s, &rules, true, &mut legal);
            assert!(legal.contains(&m), "{m} is not legal");
            s.apply(m);
        }
        assert!(s.is_won());
    }
}

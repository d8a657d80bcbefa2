//! The shortest line: once a deal is won, a line with as few moves that do not go to a foundation as the search can find, proved shortest where it can be.

mod beam;
mod bound;
mod proof;
#[cfg(test)]
mod tests;

use crate::position::{Move, Place, Position};
use crate::variant::Variant;

use super::meter::Meter;
use super::Limit;

use beam::{beam, BeamEnd};
pub use beam::{Guide, FEW_CELLS_GUIDE, GUIDE};
use bound::lower_bound;
use proof::branch_and_bound;

/// The two lower bounds of `s`: blocked runs alone, and with deadlocked pairs (for tuning).
pub fn lower_bounds(s: &Position, rules: &Variant) -> (u32, u32) {
    (bound::blocked_runs(s, rules), bound::lower_bound(s, rules))
}

/// The moves of `line` that do not go to a foundation: what a shortest line has fewest of.
pub fn cost(line: &[Move]) -> u32 {
    line.iter().filter(|m| m.to != Place::Home).count() as u32
}

/// What the search for a shorter line found.
pub(crate) struct Shortest {
    /// The shortest line found from the start, automatic moves included; None if none
    /// beat the line it was given.
    pub(crate) line: Option<Vec<Move>>,
    /// Whether no line is shorter than the one found (or than the one given, if none was).
    pub(crate) proved: bool,
    /// The budget that stopped it, if one did.
    pub(crate) limit: Option<Limit>,
    /// Fewer moves not to a foundation than this, no winning line from the start has:
    /// proved (the cost of the best line when `proved`).
    pub(crate) bound: u32,
}

/// How hard the search for the shortest line tries: beams of these `widths`, narrowest
/// first, weighed by `guide`, then a branch and bound of at most `proof_nodes`
/// positions to prove the best line shortest or find a shorter one.
#[derive(Clone, Debug)]
pub struct Effort {
    pub widths: Vec<usize>,
    pub guide: Guide,
    pub proof_nodes: u64,
}

impl Effort {
    /// The effort `--shortest` spends under `rules` (docs/tuning.md, `shortest::Effort`):
    /// a beam about a tenth of a second wide on this project's machines, wider with
    /// fewer cells, whose positions cost less, and a branch and bound of 10,000
    /// positions.
    pub fn for_rules(rules: &Variant) -> Effort {
        let (width, guide) = match rules.cells {
            0 | 1 => (1600, FEW_CELLS_GUIDE),
            2 => (1300, FEW_CELLS_GUIDE),
            3 => (1100, GUIDE),
            _ => (1000, GUIDE),
        };
        Effort { widths: vec![width], guide, proof_nodes: PROOF_NODES }
    }
}

/// Positions the branch and bound may expand to prove a line shortest, unless the job
/// says otherwise (`--shortest-nodes`; docs/tuning.md, `shortest::Effort`).
pub const PROOF_NODES: u64 = 10_000;

/// The shortest line from `start` that the effort for `rules` finds within the meter's
/// budgets, `known` (a winning line from `start`) if none is shorter; the branch and
/// bound expands at most `proof_nodes` positions (None: PROOF_NODES).
pub(crate) fn shortest_line(
    start: &Position,
    rules: &Variant,
    known: &[Move],
    proof_nodes: Option<u64>,
    meter: &mut Meter,
) -> Shortest {
    let mut effort = Effort::for_rules(rules);
    effort.proof_nodes = proof_nodes.unwrap_or(PROOF_NODES);
    shorter_line(start, rules, known, &effort, meter)
}

/// Searches for a line from `start` shorter than `known` (a winning line from `start`)
/// as hard as `effort` says: beams, then, with `proof_nodes` above 0, a branch and bound
/// that proves none is shorter or finds one.
pub(crate) fn shorter_line(
    start: &Position,
    rules: &Variant,
    known: &[Move],
    effort: &Effort,
    meter: &mut Meter,
) -> Shortest {
    let Effort { widths, guide, proof_nodes } = effort;
    let proof_nodes = *proof_nodes;
    let mut root = start.clone();
    let mut opening = vec![];
    root.autoplay(rules, &mut opening);
    let opening: Vec<Move> = opening.iter().map(|p| p.m).collect();
    let mut best: Option<Vec<Move>> = None;
    let mut best_cost = cost(known);
    // No line from the start costs less than the lower bound of its root (its opening
    // sends cards home, which costs nothing).
    let floor = lower_bound(&root, rules).min(best_cost);
    for &width in widths {
        if floor == best_cost {
            break;
        }
        match beam(&root, rules, width, guide, best_cost, meter) {
            BeamEnd::Won(line, c) => {
                debug_assert_eq!(cost(&line), c);
                if c < best_cost {
                    best_cost = c;
                    best = Some(opening.iter().copied().chain(line).collect());
                }
            }
            BeamEnd::Nothing => {}
            BeamEnd::Stopped(limit) => {
                return Shortest { line: best, proved: false, limit: Some(limit), bound: floor.min(best_cost) }
            }
        }
    }
    let floor = floor.min(best_cost);
    if floor == best_cost {
        return Shortest { line: best, proved: true, limit: None, bound: floor };
    }
    if proof_nodes == 0 {
        return Shortest { line: best, proved: false, limit: None, bound: floor };
    }
    // The proof's own budget of positions, within the job's.
    let job_nodes = meter.budget.max_nodes;
    meter.budget.max_nodes = job_nodes.min(meter.nodes.saturating_add(proof_nodes));
    // Deepening: is there a line of exactly `bound` moves not to a foundation (none has
    // fewer)? Each branch and bound that ends without one raises the bound by a move;
    // the first line it finds is a shortest; at the best line's cost, the best is one.
    // So a proof stopped by a budget still leaves a proved lower bound.
    let mut bound = floor;
    let mut limit = None;
    while bound < best_cost {
        let improved = branch_and_bound(&root, rules, bound + 1, bound, meter);
        if let Some((line, c)) = improved.line {
            debug_assert!(c == bound, "a line below a proved bound");
            best_cost = c;
            best = Some(opening.iter().copied().chain(line).collect());
        }
        if let Some(stopped) = improved.stopped {
            // Whichever budget stopped it, the proof's own positions among them, is
            // said: that is the one to raise for a proof (`--shortest-nodes`).
            limit = Some(stopped);
            break;
        }
        if best_cost > bound {
            bound += 1;
        }
    }
    meter.budget.max_nodes = job_nodes;
    Shortest { line: best, proved: bound == best_cost, limit, bound }
}

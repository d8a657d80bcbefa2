//! Beam search for short wins: the positions a move more costly than the last layer's, keeping the most promising few of each.
//!
//! The search goes layer by layer, a layer holding positions reached by the same number
//! of moves that do not go to a foundation (foundation moves cost nothing, so the
//! positions they lead to join the layer they leave). Of the positions one costed move
//! beyond a layer, the `width` that the guide weighs best make the next layer; a
//! position met before is not met again. The first win met is the search's line, and
//! no line it could find later is shorter. Nothing is proved: a win the beam dropped
//! may be shorter (`proof` settles that).

use crate::moves::generate;
use crate::position::{Move, PackedPosition, Place, Played, Position};
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::super::meter::Meter;
use super::super::Limit;
use super::bound::column_bound;

/// How the beam weighs a position: lower is kept first. Every term but `lower_bound`
/// rewards what makes the cards ahead easier to reach.
#[derive(Clone, Copy, Debug)]
pub struct Guide {
    /// Per run that holds a blocked card (`bound::blocked_runs`).
    pub lower_bound: i32,
    /// Per card not yet home.
    pub out: i32,
    /// Per card above the next card its suit needs.
    pub buried: i32,
    /// Per card above the card after that.
    pub buried_next: i32,
    /// Per card in a free cell.
    pub cell: i32,
    /// Reward per empty column.
    pub column: i32,
    /// Per card lying on a card of lower rank.
    pub disorder: i32,
    /// Per run (cards each fitting on the one below) in the columns.
    pub runs: i32,
    /// Per run above the deepest card that is next for its suit, in its column.
    pub runs_above_next: i32,
    /// Per run lying above a card that goes home sooner than any of its own: a card's
    /// turn is its rank less what its suit has home.
    pub waiting: i32,
    /// Per card in a cell that is not among the next two of its suit.
    pub parked: i32,
    /// Per pair of runs that block each other (`bound::lower_bound`'s deadlocked pairs).
    pub deadlocks: i32,
}

/// The guide the beam uses with 3 free cells or more (docs/tuning.md, `GUIDE`).
pub const GUIDE: Guide = Guide {
    lower_bound: 1,
    out: 3,
    buried: 1,
    buried_next: 1,
    cell: 9,
    column: 3,
    disorder: 1,
    runs: 5,
    runs_above_next: 3,
    waiting: 0,
    parked: 0,
    deadlocks: 0,
};

/// The guide with 2 free cells or fewer, where a card parked in a cell costs the most
/// (docs/tuning.md, `FEW_CELLS_GUIDE`).
pub const FEW_CELLS_GUIDE: Guide = Guide {
    lower_bound: 0,
    out: 2,
    buried: 0,
    buried_next: 1,
    cell: 10,
    column: 2,
    disorder: 1,
    runs: 6,
    runs_above_next: 3,
    waiting: 0,
    parked: 3,
    deadlocks: 0,
};

/// What the guide gives `s`.
pub(crate) fn weigh(s: &Position, rules: &Variant, g: &Guide) -> i32 {
    let home = s.home();
    let mut total = 0;
    for i in 0..rules.columns {
        let cards = s.column(i);
        total += g.lower_bound * column_bound(cards, rules) as i32;
        let (mut buried, mut buried_next, mut disorder, mut runs, mut waiting) = (0, 0, 0, 0, 0);
        // The runs counted when the deepest next card was met.
        let mut runs_at_next = None;
        let mut lowest = u8::MAX;
        // The soonest turn below the run being read, and the soonest in it.
        let (mut soonest_below, mut soonest_here) = (u8::MAX, u8::MAX);
        for (depth, &c) in cards.iter().enumerate() {
            let rank = c / 4 + 1;
            let turn = rank - home[usize::from(c & 3)];
            if depth == 0 || !rules.fits_number(c, cards[depth - 1]) {
                if depth > 0 && soonest_below < soonest_here {
                    waiting += 1;
                }
                soonest_below = soonest_below.min(soonest_here);
                soonest_here = u8::MAX;
                runs += 1;
            }
            soonest_here = soonest_here.min(turn);
            if rank > lowest {
                disorder += 1;
            }
            lowest = lowest.min(rank);
            let next = home[usize::from(c & 3)] + 1;
            let above = (cards.len() - 1 - depth) as i32;
            if rank == next {
                buried += above;
                runs_at_next.get_or_insert(runs);
            } else if rank == next + 1 {
                buried_next += above;
            }
        }
        if !cards.is_empty() && soonest_below < soonest_here {
            waiting += 1;
        }
        let above_next = runs_at_next.map_or(0, |r| runs - r);
        total += g.buried * buried
            + g.buried_next * buried_next
            + g.disorder * disorder
            + g.runs * runs
            + g.runs_above_next * above_next
            + g.waiting * waiting;
    }
    let occupied = (rules.cells - s.empty_cells(rules)) as i32;
    let parked =
        (0..rules.cells).filter_map(|i| s.cell(i)).filter(|c| c.rank() > home[usize::from(c.suit())] + 2).count()
            as i32;
    total += g.parked * parked;
    if g.deadlocks != 0 {
        total += g.deadlocks * (super::bound::lower_bound(s, rules) - super::bound::blocked_runs(s, rules)) as i32;
    }
    total + g.out * (52 - s.cards_home() as i32) + g.cell * occupied - g.column * s.empty_columns(rules) as i32
}

/// A position of the beam, and how it was reached.
struct Node {
    parent: u32,
    /// The moves from the parent (one chosen, then automatic ones): `Beam::moves[at..at + len]`.
    at: u32,
    len: u8,
}

/// A position one costed move beyond the layer, waiting to be weighed against the others.
struct Candidate {
    weight: i32,
    position: PackedPosition,
    parent: u32,
    at: u32,
    len: u8,
}

/// How a beam search ended.
pub(crate) enum BeamEnd {
    /// A win, as its moves from the root and their cost.
    Won(Vec<Move>, u32),
    /// Every position the beam kept was expanded without a win, or none could be
    /// cheaper than `below` (the cost of a line already known).
    Nothing,
    /// A budget ran out.
    Stopped(Limit),
}

/// Searches from `root` (after its automatic moves) for a win costing less than
/// `below`, keeping `width` positions a layer, weighed by `guide`.
pub(crate) fn beam(
    root: &Position,
    rules: &Variant,
    width: usize,
    guide: &Guide,
    below: u32,
    meter: &mut Meter,
) -> BeamEnd {
    let mut nodes = vec![Node { parent: u32::MAX, at: 0, len: 0 }];
    let mut moves: Vec<Move> = vec![];
    let mut seen = FingerprintSet::new(meter.budget.max_memory);
    let _ = seen.insert(root.fingerprint(rules));
    // The layer being expanded: its positions and their nodes.
    let mut layer: Vec<(PackedPosition, u32)> = vec![(root.pack(), 0)];
    let mut candidates: Vec<Candidate> = vec![];
    let mut candidate_moves: Vec<Move> = vec![];
    let (mut generated, mut played) = (Vec::with_capacity(64), Vec::with_capacity(16));
    let line = |nodes: &[Node], moves: &[Move], mut at: u32| {
        let mut segments = vec![];
        while at != 0 {
            let n = &nodes[at as usize];
            segments.push(&moves[n.at as usize..n.at as usize + usize::from(n.len)]);
            at = n.parent;
        }
        segments.into_iter().rev().flatten().copied().collect::<Vec<Move>>()
    };
    let mut cost = 0u32;
    while cost < below {
        candidates.clear();
        candidate_moves.clear();
        // A win one costed move beyond the layer: kept while the layer's free moves may
        // still find one that costs nothing more.
        let mut won_next: Option<Candidate> = None;
        let mut next = 0;
        while next < layer.len() {
            let (packed, id) = layer[next];
            next += 1;
            if let Some(limit) = meter.tick(cost) {
                return BeamEnd::Stopped(limit);
            }
            let parent = packed.unpack();
            let mut s = parent.clone();
            let hashes = parent.hashes(rules);
            generated.clear();
            generate(&s, rules, true, &mut generated);
            for &m in &generated {
                played.clear();
                played.push(s.play(m));
                s.autoplay_after(rules, m, &mut played);
                let fp = s.fingerprint_after(&parent, &hashes, &played);
                let fresh = match seen.insert(fp) {
                    Ok(fresh) => fresh,
                    Err(_) => {
                        undo(&mut s, &mut played);
                        return BeamEnd::Stopped(Limit::Memory);
                    }
                };
                if fresh {
                    let free = m.to == Place::Home;
                    if free {
                        let at = moves.len() as u32;
                        moves.extend(played.iter().map(|p| p.m));
                        nodes.push(Node { parent: id, at, len: played.len() as u8 });
                        let child = nodes.len() as u32 - 1;
                        if s.is_won() {
                            let found = line(&nodes, &moves, child);
                            undo(&mut s, &mut played);
                            return BeamEnd::Won(found, cost);
                        }
                        layer.push((s.pack(), child));
                    } else {
                        let at = candidate_moves.len() as u32;
                        candidate_moves.extend(played.iter().map(|p| p.m));
                        let candidate = Candidate {
                            weight: if s.is_won() { i32::MIN } else { weigh(&s, rules, guide) },
                            position: s.pack(),
                            parent: id,
                            at,
                            len: played.len() as u8,
                        };
                        if s.is_won() {
                            won_next.get_or_insert(candidate);
                        } else {
                            candidates.push(candidate);
                        }
                    }
                }
                undo(&mut s, &mut played);
            }
        }
        if let Some(won) = won_next {
            let at = moves.len() as u32;
            moves.extend_from_slice(&candidate_moves[won.at as usize..won.at as usize + usize::from(won.len)]);
            nodes.push(Node { parent: won.parent, at, len: won.len });
            return BeamEnd::Won(line(&nodes, &moves, nodes.len() as u32 - 1), cost + 1);
        }
        if candidates.is_empty() {
            return BeamEnd::Nothing;
        }
        if candidates.len() > width {
            candidates.select_nth_unstable_by_key(width, |c| c.weight);
            candidates.truncate(width);
        }
        layer.clear();
        for c in &candidates {
            let at = moves.len() as u32;
            moves.extend_from_slice(&candidate_moves[c.at as usize..c.at as usize + usize::from(c.len)]);
            nodes.push(Node { parent: c.parent, at, len: c.len });
            layer.push((c.position, nodes.len() as u32 - 1));
        }
        cost += 1;
    }
    BeamEnd::Nothing
}

fn undo(s: &mut Position, played: &mut Vec<Played>) {
    while let Some(p) = played.pop() {
        s.undo(p);
    }
}

//! How the searches weigh a position: lower scores are tried first.

use crate::card::Card;
use crate::position::{run_length, Move, Place, Played, Position, MAX_HEIGHT};
use crate::variant::Variant;

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

/// One best-first strategy: how it scores positions, and whether it skips the moves that
/// break up a run (`keep_runs`). A strategy that keeps runs proves nothing when it runs
/// out; it just stops.
#[derive(Clone, Copy)]
pub(super) struct Strategy {
    pub(super) weights: Weights,
    pub(super) keep_runs: bool,
}

/// The strategies the best-first pass interleaves (the first also orders the depth-first
/// passes). Their slow deals differ, so running them side by side and stopping at the
/// first verdict costs about twice the cheaper one. The weights were tuned on deals
/// 1..1000 with 4 cells; keeping runs in the second took 5% off deals 1..32000 with 4 cells.
/// The first keeps no runs (it skips no move), so the pass stays complete.
pub(super) const PORTFOLIO: [Strategy; 3] = [
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
        keep_runs: false,
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
        keep_runs: true,
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
        keep_runs: false,
    },
];

/// Lower is more promising.
pub(super) fn score(s: &Position, rules: &Variant, w: &Weights) -> i32 {
    let home = s.home();
    let columns: i32 = (0..rules.columns).map(|i| column_score(s.column(i), &home, rules, w)).sum();
    columns + global_score(s, rules, w)
}

/// The terms of the score that do not belong to one column.
#[inline]
fn global_score(s: &Position, rules: &Variant, w: &Weights) -> i32 {
    global_terms(s.cards_home(), s.empty_cells(rules) as i32, s.empty_columns(rules) as i32, w)
}

/// `global_score` of a position with `cards_home` cards home and that many empty cells
/// and columns.
#[inline]
fn global_terms(cards_home: usize, empty_cells: i32, empty_columns: i32, w: &Weights) -> i32 {
    w.out * (Card::COUNT - cards_home) as i32 - w.cell * empty_cells - w.column * empty_columns
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
pub(super) struct ChildScorer {
    columns: [i32; crate::variant::MAX_COLUMNS],
    total: i32,
    home: [u8; 4],
}

impl ChildScorer {
    pub(super) fn new(parent: &Position, rules: &Variant, w: &Weights) -> ChildScorer {
        let home = parent.home();
        let mut columns = [0; crate::variant::MAX_COLUMNS];
        for (i, c) in columns.iter_mut().enumerate().take(rules.columns) {
            *c = column_score(parent.column(i), &home, rules, w);
        }
        ChildScorer { columns, total: columns.iter().sum(), home }
    }

    /// Makes this the scorer for `child`, reached from this scorer's position by `played`.
    pub(super) fn advance(&mut self, child: &Position, played: &[Played], rules: &Variant, w: &Weights) {
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

    /// What `score` gives the child `m` leads to from `parent` (this scorer's position),
    /// worked out without playing `m`: for a move that `fingerprint_of_quiet_move` finds
    /// quiet (no card goes home after it), out of a column or a cell into a column or a
    /// cell. `free` is the parent's empty cells and empty columns. The quick passes weigh
    /// most of their children this way: playing and taking each back was a fifth of
    /// their work.
    pub(super) fn score_of_quiet_move(
        &self,
        parent: &Position,
        m: Move,
        free: (usize, usize),
        rules: &Variant,
        w: &Weights,
    ) -> i32 {
        let (mut cells, mut columns) = (free.0 as i32, free.1 as i32);
        let mut total = self.total;
        let k = usize::from(m.count);
        let single;
        let moving: &[u8] = match m.from {
            Place::Column(i) => {
                let i = usize::from(i);
                let cards = parent.column(i);
                let left = &cards[..cards.len() - k];
                total += column_score(left, &self.home, rules, w) - self.columns[i];
                columns += i32::from(left.is_empty());
                &cards[cards.len() - k..]
            }
            Place::Cell(slot) => {
                cells += 1;
                single = [parent
                    .cell(usize::from(slot))
                    .unwrap_or_else(|| unreachable!("a move out of a full cell"))
                    .index()];
                &single
            }
            Place::Home | Place::Foundation(_) => unreachable!("a quiet move changes no foundation"),
        };
        match m.to {
            Place::Column(j) => {
                let j = usize::from(j);
                let below = parent.column(j);
                columns -= i32::from(below.is_empty());
                let mut joined = [0u8; MAX_HEIGHT];
                let n = below.len() + moving.len();
                joined[..below.len()].copy_from_slice(below);
                joined[below.len()..n].copy_from_slice(moving);
                total += column_score(&joined[..n], &self.home, rules, w) - self.columns[j];
            }
            Place::Cell(_) => cells -= 1,
            Place::Home | Place::Foundation(_) => unreachable!("a quiet move sends no card home"),
        }
        // No card goes home: the parent's cards home are the child's.
        total + global_terms(parent.cards_home(), cells, columns, w)
    }

    pub(super) fn score(&self, child: &Position, played: &[Played], rules: &Variant, w: &Weights) -> i32 {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{random_walk, walk_rules};

    /// Along random walks under several rules and the three weightings best-first and
    /// the depth-first passes use, every move `fingerprint_of_quiet_move` answers (but a
    /// card taken back, which is played) scores without being played exactly what its
    /// played child scores.
    #[test]
    fn a_quiet_moves_score_is_its_played_childs() {
        let mut checked = 0;
        let mut rng = 0x5C0E_u64;
        for rules in walk_rules() {
            for strategy in &super::PORTFOLIO {
                let w = &strategy.weights;
                for _ in 0..10 {
                    random_walk(&rules, 200, &mut rng, |s, moves| {
                        let (h, scorer) = (s.hashes(&rules), ChildScorer::new(s, &rules, w));
                        let free = (s.empty_cells(&rules), s.empty_columns(&rules));
                        for &m in moves {
                            if matches!(m.from, Place::Foundation(_))
                                || s.fingerprint_of_quiet_move(&rules, &h, m).is_none()
                            {
                                continue;
                            }
                            let mut child = s.clone();
                            let mut played = vec![child.play(m)];
                            child.autoplay_after(&rules, m, &mut played);
                            let expected = scorer.score(&child, &played, &rules, w);
                            assert_eq!(expected, score(&child, &rules, w), "{m}");
                            assert_eq!(scorer.score_of_quiet_move(s, m, free, &rules, w), expected, "{m}");
                            checked += 1;
                        }
                    });
                }
            }
        }
        assert!(checked > 3_000, "{checked} quiet moves checked");
    }
}

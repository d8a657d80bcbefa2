//! A lower bound on the moves a position still needs that do not go to a foundation: never more than the fewest a win takes.
//!
//! A card is *blocked* when a card of its suit and lower rank lies beneath it in its
//! column: it cannot go home before that card, which it covers, so it must leave its
//! column by a move that does not go home. One move takes the top cards of a column
//! that form a run (each fits on the one below it), so the blocked cards of a column
//! leave by at least as many moves as there are runs of its cards holding one: two
//! blocked cards leave together only if every card between them lies as dealt and fits
//! on the one below it. docs/correctness.md ("The shortest line") proves the bound.

use crate::position::Position;
use crate::variant::Variant;

/// The bound for `s` under `rules`: the runs, over all columns, that hold a blocked card
/// (`blocked_runs`), one more for each pair of other runs (or cards in cells) that
/// block each other (`Groups::deadlocked_pairs`), and one more for each longer cycle of
/// cards that wait for one another, over runs of neither kind and no run twice
/// (`Groups::deadlocked_cycles`). 0 for a won position.
pub(crate) fn lower_bound(s: &Position, rules: &Variant) -> u32 {
    let mut groups = Groups::new();
    for i in 0..rules.columns {
        groups.add_column(s.column(i), rules);
    }
    for slot in 0..rules.cells {
        if let Some(c) = s.cell(slot) {
            groups.add_cell(c.index());
        }
    }
    let (pairs, unmatched) = groups.deadlocked_pairs();
    groups.forced() + pairs + groups.deadlocked_cycles(unmatched)
}

/// The runs that hold a blocked card, over all columns: a cheaper and weaker bound.
pub(crate) fn blocked_runs(s: &Position, rules: &Variant) -> u32 {
    (0..rules.columns).map(|i| column_bound(s.column(i), rules)).sum()
}

/// `ABOVE[suit][rank]`: the cards of `suit` above `rank` (0-based), as a bit set by card
/// number; `ABOVE[suit][13]` is empty (no card of the suit lies below).
const ABOVE: [[u64; 14]; 4] = {
    let mut table = [[0u64; 14]; 4];
    let mut suit = 0;
    while suit < 4 {
        let mut rank = 0;
        while rank < 13 {
            let mut above = rank + 1;
            while above < 13 {
                table[suit][rank] |= 1u64 << (above * 4 + suit);
                above += 1;
            }
            rank += 1;
        }
        suit += 1;
    }
    table
};

/// The cards of a position in groups that leave their places by one move at most (the
/// runs of each column, and each card in a cell), and for each card the cards that must
/// go home after it if it goes home from its place (`waits_for`).
struct Groups {
    /// Each group's cards as a bit set.
    cards: [u64; 64],
    /// For each group, the lowest rank of each suit at or below its top card (13: none),
    /// a byte a suit: its cards wait for no more than the top card does.
    lowest: [u32; 64],
    len: usize,
    /// The groups holding a blocked card (a card that must wait for itself), as a bit set.
    blocked: u64,
    /// For each card in play, the cards that outrank a card of their suit lying at or
    /// below it: if it went home from where it lies, each of them would go home after it.
    waits_for: [u64; 52],
    /// `holding[suit][rank]`: the groups holding that card, as a bit set.
    holding: [[u64; 13]; 4],
    /// The group each card in play is in.
    group_of: [u8; 52],
}

/// No card of a suit lies below, for each suit: 13 in every byte.
const NONE_BELOW: u32 = 0x0d0d_0d0d;

impl Groups {
    fn new() -> Groups {
        Groups {
            cards: [0; 64],
            lowest: [NONE_BELOW; 64],
            len: 0,
            blocked: 0,
            waits_for: [0; 52],
            holding: [[0; 13]; 4],
            group_of: [0; 52],
        }
    }

    /// Groups holding a blocked card.
    fn forced(&self) -> u32 {
        self.blocked.count_ones()
    }

    /// Adds card `c` to the last group. `waits` is what the cards below it in its column
    /// wait for (a card it holds is blocked), `lowest` their lowest rank of each suit
    /// (a byte a suit); returns both with `c` itself counted in.
    #[inline]
    fn add_card(&mut self, c: u8, waits: u64, lowest: u32) -> (u64, u32) {
        let (rank, suit) = (c / 4, usize::from(c & 3));
        let g = self.len - 1;
        if waits & (1 << c) != 0 {
            self.blocked |= 1 << g;
        }
        let shift = 8 * suit;
        let low = ((lowest >> shift) & 0xff).min(u32::from(rank));
        let lowest = (lowest & !(0xff << shift)) | (low << shift);
        // A lower card of its suit only adds cards to what is waited for.
        let waits = waits | ABOVE[suit][low as usize];
        self.waits_for[usize::from(c)] = waits;
        self.cards[g] |= 1 << c;
        self.group_of[usize::from(c)] = g as u8;
        self.lowest[g] = lowest;
        self.holding[suit][usize::from(rank)] |= 1 << g;
        (waits, lowest)
    }

    fn add_column(&mut self, column: &[u8], rules: &Variant) {
        let (mut waits, mut lowest) = (0u64, NONE_BELOW);
        for (j, &c) in column.iter().enumerate() {
            if j == 0 || !rules.fits_number(c, column[j - 1]) {
                self.len += 1;
            }
            (waits, lowest) = self.add_card(c, waits, lowest);
        }
    }

    fn add_cell(&mut self, c: u8) {
        self.len += 1;
        self.add_card(c, 0, NONE_BELOW);
    }

    /// A matching of groups that hold no blocked card, two groups matched only if a card
    /// of each must go home before the other can leave its place by going home: so
    /// one of them must leave by another move (docs/correctness.md). Greedy, fewest
    /// partners first: any matching is a bound, a larger one a better bound. Returns the
    /// pairs, and the groups neither blocked nor matched.
    fn deadlocked_pairs(&self) -> (u32, u64) {
        // above[suit][rank]: the groups holding a card of the suit above the rank.
        let mut above = [[0u64; 14]; 4];
        for (row, holding) in above.iter_mut().zip(&self.holding) {
            for rank in (0..13).rev() {
                row[rank] = row[rank + 1] | holding.get(rank + 1).copied().unwrap_or(0);
            }
        }
        let free = if self.len == 64 { u64::MAX } else { (1u64 << self.len) - 1 } & !self.blocked;
        // waits[a]: the groups that group a waits for (its top card does, and so at most do
        // its other cards); waited[b]: the groups that wait for b.
        let (mut waits, mut waited) = ([0u64; 64], [0u64; 64]);
        let mut rest = free;
        while rest != 0 {
            let a = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let low = self.lowest[a];
            waits[a] = (above[0][(low & 0xff) as usize]
                | above[1][((low >> 8) & 0xff) as usize]
                | above[2][((low >> 16) & 0xff) as usize]
                | above[3][(low >> 24) as usize])
                & free
                & !(1 << a);
            let mut targets = waits[a];
            while targets != 0 {
                let b = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                waited[b] |= 1 << a;
            }
        }
        // Partners: groups that wait for each other with one card of each.
        let mut partners = [0u64; 64];
        let mut rest = free;
        while rest != 0 {
            let a = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut mutual = waits[a] & waited[a] & !((2u64 << a) - 1);
            while mutual != 0 {
                let b = mutual.trailing_zeros() as usize;
                mutual &= mutual - 1;
                if self.deadlocked(self.cards[a], self.cards[b]) {
                    partners[a] |= 1 << b;
                    partners[b] |= 1 << a;
                }
            }
        }
        let mut unmatched = free;
        let mut pairs = 0;
        loop {
            // The unmatched group with the fewest unmatched partners, and its partner with
            // the fewest.
            let fewest = |set: u64| {
                let mut best: Option<(u32, usize)> = None;
                let mut rest = set;
                while rest != 0 {
                    let a = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let degree = (partners[a] & unmatched).count_ones();
                    if degree > 0 && best.is_none_or(|(d, _)| degree < d) {
                        best = Some((degree, a));
                    }
                }
                best.map(|(_, a)| a)
            };
            let Some(a) = fewest(unmatched) else { break };
            let Some(b) = fewest(partners[a] & unmatched) else { break };
            unmatched &= !(1 << a) & !(1 << b);
            pairs += 1;
        }
        (pairs, unmatched)
    }

    /// Cycles of cards, each waiting for the next and the last for the first, over the
    /// groups `free` (neither blocked nor matched), no group in two cycles: if every card
    /// of a cycle went home from its place, each would go home before the next, and the
    /// last before the first; so a card of each cycle leaves by another move, and its
    /// group is one no other term counts (docs/correctness.md). Greedy, shortest cycle
    /// through each card in turn: any such set of cycles is a bound.
    fn deadlocked_cycles(&self, free: u64) -> u32 {
        let mut within = 0u64;
        let mut rest = free;
        while rest != 0 {
            let g = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            within |= self.cards[g];
        }
        let mut cycles = 0;
        // The cards a cycle may still start from: none through a card left out is found
        // later, since `within` only shrinks.
        let mut starts = within;
        // The cards reached at each step of the search from a start, to trace a cycle back.
        let mut steps = [0u64; 52];
        while starts != 0 {
            let c = starts.trailing_zeros() as usize;
            starts &= starts - 1;
            if within & (1 << c) == 0 {
                continue;
            }
            let mut reached = 0u64;
            let mut frontier = self.waits_for[c] & within;
            let mut depth = 0;
            while frontier != 0 && frontier & (1 << c) == 0 {
                steps[depth] = frontier;
                depth += 1;
                reached |= frontier;
                let mut next = 0u64;
                let mut rest = frontier;
                while rest != 0 {
                    let f = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    next |= self.waits_for[f];
                }
                frontier = next & within & !reached;
            }
            if frontier & (1 << c) == 0 {
                continue;
            }
            // A cycle through c, `depth` cards besides it: back from c, a card of each step
            // that waits for the one after it.
            let mut used = 1u64 << self.group_of[c];
            let mut after = c;
            for step in steps[..depth].iter().rev() {
                let mut rest = *step;
                while rest != 0 {
                    let p = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    if self.waits_for[p] & (1 << after) != 0 {
                        after = p;
                        break;
                    }
                }
                used |= 1 << self.group_of[after];
            }
            cycles += 1;
            let mut rest = used;
            while rest != 0 {
                let g = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                within &= !self.cards[g];
            }
        }
        cycles
    }

    /// Whether a card of group `a` and a card of group `b` (bit sets of cards) each wait for
    /// the other.
    fn deadlocked(&self, a: u64, b: u64) -> bool {
        let mut rest = a;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut waited = self.waits_for[c] & b;
            while waited != 0 {
                let e = waited.trailing_zeros() as usize;
                waited &= waited - 1;
                if self.waits_for[e] & (1 << c) != 0 {
                    return true;
                }
            }
        }
        false
    }
}

/// One column's part of `lower_bound`.
#[inline]
pub(crate) fn column_bound(cards: &[u8], rules: &Variant) -> u32 {
    // The lowest rank of each suit seen so far, from the foot of the column up.
    let mut lowest = [u8::MAX; 4];
    let mut runs = 0;
    // Whether the run the last card belongs to holds a blocked card already.
    let mut counted = false;
    for (j, &c) in cards.iter().enumerate() {
        let (rank, suit) = (c / 4, usize::from(c & 3));
        if j == 0 || !rules.fits_number(c, cards[j - 1]) {
            counted = false;
        }
        if lowest[suit] < rank && !counted {
            runs += 1;
            counted = true;
        }
        lowest[suit] = lowest[suit].min(rank);
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::Card;

    fn cards(text: &str) -> Vec<u8> {
        text.split_whitespace().map(|t| Card::parse(t).expect("a card").index()).collect()
    }

    #[test]
    fn blocked_cards_count_once_per_run() {
        let rules = Variant::FREECELL;
        // Nothing lies on a lower card of its suit.
        assert_eq!(column_bound(&cards("KS QH 5D 2C"), &rules), 0);
        // 5H lies on 3H: one move.
        assert_eq!(column_bound(&cards("3H 9C 5H"), &rules), 1);
        // 7S 6H 5S lie on 2S, 6H on 4H, as one run: one move takes them all.
        assert_eq!(column_bound(&cards("2S 4H 7S 6H 5S"), &rules), 1);
        // The same cards but 6H replaced by 6C: 7S, 6C and 5S are no run.
        assert_eq!(column_bound(&cards("2S 4H 7S 6C 5S"), &rules), 2);
        // A run holding no blocked card costs nothing, above or below one that does.
        assert_eq!(column_bound(&cards("8D 7C 3C QH 9C"), &rules), 1);
    }
}

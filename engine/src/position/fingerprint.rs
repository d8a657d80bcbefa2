//! A position's canonical 128-bit fingerprint: the same for positions that differ only in the order of their columns or of their cells, and cheap for a position's children.

use std::sync::OnceLock;

use crate::card::Card;
use crate::variant::{Variant, MAX_COLUMNS};

use super::{card, Move, Place, Played, Position, MAX_HEIGHT, NO_CARD};

/// A position's fingerprint and its parts: each column's Zobrist word before and
/// after mixing.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Hashes {
    zobrist: [u128; MAX_COLUMNS],
    term: [u128; MAX_COLUMNS],
    pub fingerprint: u128,
}

impl Hashes {
    /// The hashes of `child`, reached by `played` from the position these are the
    /// hashes of: only the columns the moves touched are rehashed.
    pub fn after(&self, child: &Position, played: &[Played]) -> Hashes {
        let mut h = *self;
        h.advance(child, played);
        h
    }

    /// `after`, in place.
    pub fn advance(&mut self, child: &Position, played: &[Played]) {
        self.step(child, played, 1);
    }

    /// The inverse of `advance`: makes these the hashes of `parent` again, the position
    /// `played` was played from (and has since been taken back to). A depth-first
    /// search keeps one set of hashes this way, not one per level of its path.
    pub fn retreat(&mut self, parent: &Position, played: &[Played]) {
        self.step(parent, played, -1);
    }

    /// Columns `played` touched are rehashed; cards that entered a cell are added
    /// (`direction` 1) or taken away (-1), and those that left it the opposite. `now`
    /// is the position after `played` (advancing) or before it (retreating).
    fn step(&mut self, now: &Position, played: &[Played], direction: i32) {
        let t = tables();
        let mut touched = 0u16;
        // A column's word is the XOR of a key per card and height, so a single card
        // leaving or joining a column toggles one key, and toggling the same keys takes
        // the word back: advancing and retreating make the same toggles. The heights
        // are those before `played`, followed move by move.
        let incremental = played.iter().all(|p| p.m.count == 1);
        let mut lens = now.lens;
        if direction > 0 && incremental {
            // Backwards from the end, so that no count dips below zero on the way.
            for p in played.iter().rev() {
                if let Place::Column(i) = p.m.from {
                    lens[usize::from(i)] += 1;
                }
                if let Place::Column(i) = p.m.to {
                    lens[usize::from(i)] -= 1;
                }
            }
        }
        // A card's cell word is added when it enters a cell going forward, or leaves one
        // going back, and taken away otherwise.
        let cell = |fp: u128, c: usize, entering: bool| {
            if entering == (direction > 0) {
                fp.wrapping_add(t.cell[c])
            } else {
                fp.wrapping_sub(t.cell[c])
            }
        };
        for p in played {
            let c = usize::from(p.card.index());
            match p.m.from {
                Place::Column(i) => {
                    let i = usize::from(i);
                    touched |= 1 << i;
                    if incremental {
                        // It was the column's top card.
                        lens[i] -= 1;
                        self.zobrist[i] ^= t.column[usize::from(lens[i])][c];
                    }
                }
                Place::Cell(_) => self.fingerprint = cell(self.fingerprint, c, false),
                Place::Home | Place::Foundation(_) => {}
            }
            match p.m.to {
                Place::Column(i) => {
                    let i = usize::from(i);
                    touched |= 1 << i;
                    if incremental {
                        self.zobrist[i] ^= t.column[usize::from(lens[i])][c];
                        lens[i] += 1;
                    }
                }
                Place::Cell(_) => self.fingerprint = cell(self.fingerprint, c, true),
                Place::Home | Place::Foundation(_) => {}
            }
        }
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            if !incremental {
                self.zobrist[i] = zobrist(t, now.column(i), 0, 0);
            }
            let term = mix(self.zobrist[i]);
            self.fingerprint = self.fingerprint.wrapping_sub(self.term[i]).wrapping_add(term);
            self.term[i] = term;
        }
    }
}

impl Position {
    /// The fingerprint of this position's canonical form: the same for positions that
    /// differ only in the order of their columns or of their free cells.
    pub fn fingerprint(&self, rules: &Variant) -> u128 {
        self.hashes(rules).fingerprint
    }

    /// The fingerprint with its parts per column, from which the fingerprints of the
    /// positions one move away follow cheaply (`fingerprint_after`).
    pub fn hashes(&self, rules: &Variant) -> Hashes {
        let t = tables();
        let mut h = Hashes { zobrist: [0; MAX_COLUMNS], term: [0; MAX_COLUMNS], fingerprint: self.cells_term(t) };
        for i in 0..rules.columns {
            h.zobrist[i] = zobrist(t, self.column(i), 0, 0);
            h.term[i] = mix(h.zobrist[i]);
            h.fingerprint = h.fingerprint.wrapping_add(h.term[i]);
        }
        h
    }

    /// The fingerprint of this position, reached from `before` (whose `hashes` are
    /// given) by `played`. Moves only take cards off and put cards on the ends of
    /// columns, so only the cards above the lowest point each touched column fell to
    /// are rehashed, and cells change by the cards that entered or left them.
    pub fn fingerprint_after(&self, before: &Position, h: &Hashes, played: &[Played]) -> u128 {
        let t = tables();
        let mut fp = h.fingerprint;
        let mut lens = before.lens;
        let mut lowest = before.lens;
        let mut touched = 0u16;
        for p in played {
            let n = p.m.count;
            match p.m.from {
                Place::Column(i) => {
                    let i = usize::from(i);
                    lens[i] -= n;
                    lowest[i] = lowest[i].min(lens[i]);
                    touched |= 1 << i;
                }
                Place::Cell(_) => fp = fp.wrapping_sub(t.cell[usize::from(p.card.index())]),
                Place::Home | Place::Foundation(_) => {}
            }
            match p.m.to {
                Place::Column(i) => {
                    let i = usize::from(i);
                    lens[i] += n;
                    touched |= 1 << i;
                }
                Place::Cell(_) => fp = fp.wrapping_add(t.cell[usize::from(p.card.index())]),
                Place::Home | Place::Foundation(_) => {}
            }
        }
        while touched != 0 {
            let i = touched.trailing_zeros() as usize;
            touched &= touched - 1;
            let low = usize::from(lowest[i]);
            // XOR is its own inverse: take out the cards that left, put in those that came.
            let z = zobrist(t, &before.column(i)[low..], low, h.zobrist[i]);
            let z = zobrist(t, &self.column(i)[low..], low, z);
            fp = fp.wrapping_sub(h.term[i]).wrapping_add(mix(z));
        }
        fp
    }

    /// The fingerprint `fingerprint_after` gives the position `m` leads to from this one
    /// (whose `hashes` are `h`), worked out without playing `m`, when `m` sends no card
    /// home and no automatic foundation move follows it; None otherwise (a card sent
    /// home, or a card uncovered that may go home safely). A card leaving or joining a
    /// column toggles one key of its word (a run toggles one per card); a cell adds or
    /// takes away the card's word. The exhaustive pass, which needs no more of most
    /// children than this, plays none of them: a third of its work was playing and
    /// taking back moves. The quick passes weigh such a child without playing it too
    /// (`ChildScorer::score_of_quiet_move`).
    #[inline]
    pub fn fingerprint_of_quiet_move(&self, rules: &Variant, h: &Hashes, m: Move) -> Option<u128> {
        if m.count != 1 {
            return self.fingerprint_of_quiet_run(rules, h, m);
        }
        if m.to == Place::Home {
            return None;
        }
        let t = tables();
        let mut fp = h.fingerprint;
        let c = match m.from {
            Place::Column(i) => {
                let i = usize::from(i);
                let len = self.len(i);
                let c = self.cols[i][len - 1];
                // What `autoplay_after` looks at: the card uncovered.
                if len >= 2 && self.safe_to_foundation(rules, card(self.cols[i][len - 2])) {
                    return None;
                }
                let z = h.zobrist[i] ^ t.column[len - 1][usize::from(c)];
                fp = fp.wrapping_sub(h.term[i]).wrapping_add(mix(z));
                c
            }
            Place::Cell(slot) => {
                let c = self.cells[usize::from(slot)];
                fp = fp.wrapping_sub(t.cell[usize::from(c)]);
                c
            }
            Place::Foundation(suit) => self.foundation_top(suit).index(),
            Place::Home => return None,
        };
        match m.to {
            Place::Column(j) => {
                let j = usize::from(j);
                let z = h.zobrist[j] ^ t.column[self.len(j)][usize::from(c)];
                fp = fp.wrapping_sub(h.term[j]).wrapping_add(mix(z));
            }
            Place::Cell(_) => fp = fp.wrapping_add(t.cell[usize::from(c)]),
            Place::Home | Place::Foundation(_) => return None,
        }
        Some(fp)
    }

    /// `fingerprint_of_quiet_move` for a quiet single-card move `m` after which the
    /// loose card `x` goes back from `from` (a cell, or the column it is alone in) onto
    /// column `b` (`Position::loose_card_return` of the child): the fingerprint of the
    /// position after both, neither played.
    #[inline]
    pub fn fingerprint_of_quiet_move_and_return(
        &self,
        rules: &Variant,
        h: &Hashes,
        m: Move,
        x: u8,
        from: Place,
        b: usize,
    ) -> Option<u128> {
        let fp = self.fingerprint_of_quiet_move(rules, h, m)?;
        let t = tables();
        let moved = self.lead_card(m).index();
        // A column as the move left it: its key and its length.
        let after_move = |i: usize| {
            let (mut z, mut len) = (h.zobrist[i], self.len(i));
            if m.from == Place::Column(i as u8) {
                len -= 1;
                z ^= t.column[len][usize::from(moved)];
            }
            if m.to == Place::Column(i as u8) {
                z ^= t.column[len][usize::from(moved)];
                len += 1;
            }
            (z, len)
        };
        let (z, len) = after_move(b);
        let fp = fp.wrapping_sub(mix(z)).wrapping_add(mix(z ^ t.column[len][usize::from(x)]));
        Some(match from {
            Place::Column(a) => {
                // x is alone in column a: taking it out leaves the column's key empty.
                let (z, _) = after_move(usize::from(a));
                fp.wrapping_sub(mix(z)).wrapping_add(mix(z ^ t.column[0][usize::from(x)]))
            }
            _ => fp.wrapping_sub(t.cell[usize::from(x)]),
        })
    }

    /// `fingerprint_of_quiet_move` for a run of several cards from one column to
    /// another (apart, so that the exhaustive pass's single-card moves stay as lean).
    fn fingerprint_of_quiet_run(&self, rules: &Variant, h: &Hashes, m: Move) -> Option<u128> {
        let (Place::Column(i), Place::Column(j)) = (m.from, m.to) else { return None };
        let (i, j, k) = (usize::from(i), usize::from(j), usize::from(m.count));
        let len = self.len(i);
        if len > k && self.safe_to_foundation(rules, card(self.cols[i][len - k - 1])) {
            return None;
        }
        let t = tables();
        let moving = &self.cols[i][len - k..len];
        let from = zobrist(t, moving, len - k, h.zobrist[i]);
        let to = zobrist(t, moving, self.len(j), h.zobrist[j]);
        let fp = h.fingerprint.wrapping_sub(h.term[i]).wrapping_add(mix(from));
        Some(fp.wrapping_sub(h.term[j]).wrapping_add(mix(to)))
    }

    fn cells_term(&self, t: &Tables) -> u128 {
        self.cells.iter().filter(|&&c| c != NO_CARD).fold(0u128, |sum, &c| sum.wrapping_add(t.cell[usize::from(c)]))
    }
}

// --- fingerprints ---------------------------------------------------------------------------
//
// A column's contents hash to Z = XOR of table[height][card] (Zobrist hashing: two different
// columns differ by a non-empty XOR of independent random 128-bit words). The position's
// fingerprint is the wrapping sum over columns of mix(Z), plus one random word per card in a
// cell. A sum does not depend on order, which makes the fingerprint canonical under
// permutations of columns and of cells; mix (a bijection) keeps the sum from being linear in
// the table entries. Foundations need no term: the cards not in play are the ones home.

struct Tables {
    column: [[u128; Card::COUNT]; MAX_HEIGHT],
    cell: [u128; Card::COUNT],
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        // SplitMix64 from a fixed seed: the same fingerprints in every process and run.
        let mut seed = 0x5EED_F12E_CE11_u64;
        let mut next = move || {
            seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let mut word = move || (u128::from(next()) << 64) | u128::from(next());
        let mut t = Box::new(Tables { column: [[0; Card::COUNT]; MAX_HEIGHT], cell: [0; Card::COUNT] });
        for row in t.column.iter_mut() {
            for w in row.iter_mut() {
                *w = word();
            }
        }
        for w in t.cell.iter_mut() {
            *w = word();
        }
        t
    })
}

/// `z` XOR the Zobrist words of `cards` lying from height `from` up.
#[inline]
fn zobrist(t: &Tables, cards: &[u8], from: usize, z: u128) -> u128 {
    cards.iter().enumerate().fold(z, |z, (h, &c)| z ^ t.column[from + h][usize::from(c)])
}

/// MurmurHash3's 64-bit finaliser: a bijection that spreads every input bit.
#[inline]
pub(crate) fn fmix64(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    x ^= x >> 33;
    x = x.wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    x ^ (x >> 33)
}

/// A bijection on 128-bit words built from three invertible rounds.
#[inline]
fn mix(z: u128) -> u128 {
    let (mut lo, mut hi) = (z as u64, (z >> 64) as u64);
    lo = fmix64(lo ^ hi.rotate_left(17));
    hi = fmix64(hi ^ lo);
    lo = fmix64(lo ^ hi);
    (u128::from(hi) << 64) | u128::from(lo)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{columns, MS1};
    use crate::variant::Variant;

    fn ms1() -> Position {
        Position::new(&Variant::FREECELL, &columns(MS1), &[None; 4], [0; 4]).unwrap()
    }

    #[test]
    fn fingerprint_ignores_column_and_cell_order_only() {
        let rules = Variant::FREECELL;
        let cols = columns(MS1);
        let a = Position::new(&rules, &cols, &[None; 4], [0; 4]).unwrap();
        let mut rev = cols.clone();
        rev.reverse();
        let b = Position::new(&rules, &rev, &[None; 4], [0; 4]).unwrap();
        assert_eq!(a.fingerprint(&rules), b.fingerprint(&rules));

        let mut c = a.clone();
        c.apply(Move::new(Place::Column(0), Place::Cell(0), 1));
        c.apply(Move::new(Place::Column(1), Place::Cell(3), 1));
        let mut d = a.clone();
        d.apply(Move::new(Place::Column(1), Place::Cell(1), 1));
        d.apply(Move::new(Place::Column(0), Place::Cell(2), 1));
        assert_ne!(c, d);
        assert_eq!(c.fingerprint(&rules), d.fingerprint(&rules));
        assert_ne!(a.fingerprint(&rules), c.fingerprint(&rules));

        // Swapping two cards between columns is a different position.
        let mut swapped = cols.clone();
        let (x, y) = (swapped[0][0], swapped[1][0]);
        swapped[0][0] = y;
        swapped[1][0] = x;
        let e = Position::new(&rules, &swapped, &[None; 4], [0; 4]).unwrap();
        assert_ne!(a.fingerprint(&rules), e.fingerprint(&rules));
    }

    #[test]
    fn incremental_fingerprint_matches_the_full_one() {
        let rules = Variant::FREECELL;
        let mut s = ms1();
        let moves = [
            Move::new(Place::Column(5), Place::Cell(0), 1),
            Move::new(Place::Column(5), Place::Cell(1), 1),
            // That uncovers AC, which autoplay sends home, then 2C from cell b and AS.
            Move::new(Place::Column(2), Place::Cell(1), 1),
            Move::new(Place::Column(3), Place::Cell(2), 1),
        ];
        for m in moves {
            let mut legal = vec![];
            crate::moves::generate(&s, &rules, true, &mut legal);
            assert!(legal.contains(&m), "{m} is not legal here");
            let before = s.clone();
            let h = before.hashes(&rules);
            let mut played = vec![s.play(m)];
            s.autoplay(&rules, &mut played);
            assert_eq!(s.fingerprint_after(&before, &h, &played), s.fingerprint(&rules), "{m}");
        }
    }

    /// Random walks from deal 1 under `rules`, checking at every move that the
    /// incremental fingerprints equal the full one and that undoing the move and its
    /// automatic moves gives the position back. With `takeback`, any foundation's top
    /// card may also go into a free cell, and moves home or off a foundation are
    /// picked half the time there are some (they are rare). Returns the take-backs played.
    fn walk_checking_fingerprints(rules: &Variant, walks: usize, mut rng: u64, takeback: bool) -> usize {
        let mut taken_back = 0;
        for _ in 0..walks {
            let mut s = ms1();
            for _ in 0..300 {
                let mut moves = vec![];
                crate::moves::generate(&s, rules, true, &mut moves);
                if let (true, Some(slot)) = (takeback, s.first_empty_cell(rules)) {
                    let suits = (0..4u8).filter(|&suit| s.home()[usize::from(suit)] > 0);
                    moves.extend(suits.map(|suit| Move::new(Place::Foundation(suit), Place::Cell(slot as u8), 1)));
                }
                if moves.is_empty() {
                    break;
                }
                rng = fmix64(rng.wrapping_add(0x9E37_79B9_7F4A_7C15));
                let rare: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| matches!(m.from, Place::Foundation(_)) || m.to == Place::Home)
                    .collect();
                let pool = if takeback && !rare.is_empty() && rng.is_multiple_of(2) { &rare } else { &moves };
                let m = pool[(rng >> 8) as usize % pool.len()];
                taken_back += usize::from(matches!(m.from, Place::Foundation(_)));
                let before = s.clone();
                let h = before.hashes(rules);
                let mut played = vec![s.play(m)];
                s.autoplay_after(rules, m, &mut played);
                assert_eq!(s.fingerprint_after(&before, &h, &played), s.fingerprint(rules), "{m}");
                let mut after = h.after(&s, &played);
                assert_eq!(after, s.hashes(rules), "{m}");
                after.retreat(&before, &played);
                assert_eq!(after, h, "{m}");
                let mut back = s.clone();
                for &p in played.iter().rev() {
                    back.undo(p);
                }
                assert_eq!(back, before, "{m}");
            }
        }
        taken_back
    }

    #[test]
    fn incremental_fingerprint_matches_the_full_one_along_random_walks() {
        walk_checking_fingerprints(&Variant::FREECELL.with_cells(2), 50, 0x1234_5678_9abc_def0, false);
    }

    /// Along random walks under several rules, every move `fingerprint_of_quiet_move`
    /// answers (runs of several cards too) is one whose played child has no automatic
    /// move and that fingerprint; every move it declines (but those home) has one.
    #[test]
    fn a_quiet_moves_fingerprint_is_its_played_childs() {
        let (mut quiet, mut quiet_runs, mut declined) = (0, 0, 0);
        let mut rng = 0x51E7_u64;
        for rules in crate::testdata::walk_rules() {
            for _ in 0..20 {
                crate::testdata::random_walk(&rules, 200, &mut rng, |s, moves| {
                    let h = s.hashes(&rules);
                    for &m in moves {
                        let mut child = s.clone();
                        let mut played = vec![child.play(m)];
                        child.autoplay_after(&rules, m, &mut played);
                        match s.fingerprint_of_quiet_move(&rules, &h, m) {
                            Some(fp) => {
                                assert_eq!(played.len(), 1, "{m}");
                                assert_eq!(fp, child.fingerprint(&rules), "{m}");
                                quiet += 1;
                                quiet_runs += usize::from(m.count > 1);
                            }
                            None if m.to != Place::Home => {
                                assert!(played.len() > 1, "{m} declined");
                                declined += 1;
                            }
                            None => {}
                        }
                    }
                });
            }
        }
        assert!(
            quiet > 2_000 && quiet_runs > 20 && declined > 50,
            "{quiet} quiet ({quiet_runs} runs), {declined} declined"
        );
    }

    #[test]
    fn mix_is_a_bijection_on_samples() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..10_000u128 {
            assert!(seen.insert(mix(i)));
            assert!(seen.insert(mix(i << 64)) || i == 0);
        }
    }

    #[test]
    fn incremental_fingerprint_matches_the_full_one_along_random_walks_with_takeback() {
        let rules = Variant { takeback: true, ..Variant::FREECELL.with_cells(2) };
        let taken_back = walk_checking_fingerprints(&rules, 200, 0xBAC, true);
        assert!(taken_back >= 20, "only {taken_back} take-backs played");
    }
}

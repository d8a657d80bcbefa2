//! A layered proof's entries in a few bytes each, and the level and bucket each belongs to.

use crate::card::Card;
use crate::position::{Position, MAX_HEIGHT};
use crate::variant::Variant;

/// Classes of a level share a file by a hash of their class: the store holds one
/// bucket at a time, so more buckets make it smaller (down to the largest class), at
/// the cost of more buffers and files (docs/tuning.md).
pub(super) const BUCKETS: usize = 64;

/// A cell holding no card, in an entry.
const EMPTY_CELL: u32 = 63;

/// An entry that does not decode to a position: the bytes were damaged on disk.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct CorruptEntry;

/// Entries in a few bytes each: the cards home, the cells, and for each column how
/// many of the start's cards are still at its foot and what lies on them. A card
/// placed on a column lies on one it fits, which has two such cards at most (one under
/// same-suit building), so each is written as a bit, but for one put in an empty
/// column, written in full. (A column that breaks this rule, which no move makes, is
/// written card by card: the encoding never depends on it.)
#[derive(Clone)]
pub(crate) struct Codec {
    start: Vec<Vec<u8>>,
    /// For each column, the out-of-order pairs among its first k start cards, k = 0..=len.
    unnatural: Vec<Vec<u8>>,
    /// The out-of-order pairs of the start.
    start_unnatural: usize,
    takeback: bool,
}

impl Codec {
    pub(crate) fn new(start: &Position, rules: &Variant) -> Codec {
        let columns: Vec<Vec<u8>> = (0..rules.columns).map(|i| start.column(i).to_vec()).collect();
        let unnatural: Vec<Vec<u8>> = columns
            .iter()
            .map(|col| {
                let mut counts = vec![0u8; col.len() + 1];
                for k in 2..=col.len() {
                    counts[k] = counts[k - 1] + u8::from(!rules.fits_number(col[k - 1], col[k - 2]));
                }
                counts
            })
            .collect();
        let start_unnatural = unnatural.iter().map(|c| usize::from(*c.last().unwrap_or(&0))).sum();
        Codec { start: columns, unnatural, start_unnatural, takeback: rules.takeback }
    }

    /// How many of column `i`'s cards are the start's, from its foot.
    fn kept(&self, s: &Position, i: usize) -> usize {
        let (now, then) = (s.column(i), &self.start[i]);
        now.iter().zip(then).take_while(|(a, b)| a == b).count()
    }

    /// The level: cards home (but under take-back) plus the out-of-order pairs parted.
    pub(crate) fn level(&self, s: &Position, rules: &Variant) -> usize {
        let unnatural: usize =
            (0..rules.columns).map(|i| s.column(i).windows(2).filter(|w| !rules.fits_number(w[1], w[0])).count()).sum();
        let home = if self.takeback { 0 } else { s.cards_home() };
        home + self.start_unnatural - unnatural
    }

    /// A hash of the class (see the module's comment of `layered`), which picks the bucket.
    pub(crate) fn bucket(&self, s: &Position, rules: &Variant) -> usize {
        let mut h: u64 = if self.takeback { 0 } else { u64::from(u32::from_le_bytes(s.home())) };
        for i in 0..rules.columns {
            h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(self.unnatural[i][self.kept(s, i)]);
        }
        (crate::position::fmix64(h) % BUCKETS as u64) as usize
    }

    /// Appends `s` to `out` as one record: its length in a byte, then its bytes.
    pub(crate) fn encode(&self, s: &Position, rules: &Variant, out: &mut Vec<u8>) {
        let mut w = Bits::default();
        for h in s.home() {
            w.put(u32::from(h), 4);
        }
        for slot in 0..rules.cells {
            w.put(s.cell(slot).map_or(EMPTY_CELL, |c| u32::from(c.index())), 6);
        }
        for i in 0..rules.columns {
            let col = s.column(i);
            let k = self.kept(s, i);
            let on_top = &col[k..];
            w.put(k as u32, 5);
            w.put(on_top.len() as u32, 5);
            if on_top.is_empty() {
                continue;
            }
            // Each card after the first on an empty column as a bit (which of the two
            // cards that may lie on the one below it is), if every one is one of them.
            let (mut bits, mut n, mut chained) = (0u64, 0, true);
            for j in usize::from(k == 0)..on_top.len() {
                let below = if j == 0 { col[k - 1] } else { on_top[j - 1] };
                let children = rules.children(below);
                if children[0] != on_top[j] && children[1] != on_top[j] {
                    chained = false;
                    break;
                }
                bits |= u64::from(children[1] == on_top[j]) << n;
                n += 1;
            }
            w.put(u32::from(!chained), 1);
            if !chained {
                for &c in on_top {
                    w.put(u32::from(c), 6);
                }
                continue;
            }
            if k == 0 {
                w.put(u32::from(on_top[0]), 6);
            }
            w.put(bits, n);
        }
        w.finish(out);
    }

    /// Rebuilds into `out` the position `encode` wrote as `bytes` (a record without its
    /// length byte). Bytes that are not such a record (damaged on disk) are refused
    /// rather than trusted: every field is checked against the rules and the start,
    /// and the cards must be the 52, each once. No entry this proof wrote is refused.
    pub(crate) fn decode(&self, bytes: &[u8], rules: &Variant, out: &mut Position) -> Result<(), CorruptEntry> {
        let mut r = BitReader::new(bytes);
        let mut home = [0u8; 4];
        for h in home.iter_mut() {
            *h = r.get(4) as u8;
            if *h > 13 {
                return Err(CorruptEntry);
            }
        }
        // Every card, home or in play, once: bit c for card c.
        let mut cards: u64 = 0;
        let mut place = |c: u32| -> Result<u8, CorruptEntry> {
            let card = Card::from_index(c as u8).ok_or(CorruptEntry)?;
            let bit = 1u64 << c;
            if cards & bit != 0 || card.rank() <= home[usize::from(card.suit())] {
                return Err(CorruptEntry);
            }
            cards |= bit;
            Ok(c as u8)
        };
        out.reset_to(home);
        for slot in 0..rules.cells {
            match r.get(6) {
                EMPTY_CELL => {}
                c => out.set_cell_unchecked(slot, place(c)?),
            }
        }
        for i in 0..rules.columns {
            let k = r.get(5) as usize;
            let n = r.get(5) as usize;
            if k > self.start[i].len() || k + n > MAX_HEIGHT {
                return Err(CorruptEntry);
            }
            for &c in &self.start[i][..k] {
                out.push_unchecked(i, place(u32::from(c))?);
            }
            if n > 0 {
                let raw = r.get(1) == 1;
                for j in 0..n {
                    let c = if raw || (k == 0 && j == 0) {
                        r.get(6)
                    } else {
                        let below = out.column(i)[k + j - 1];
                        u32::from(rules.children(below)[r.get(1) as usize])
                    };
                    out.push_unchecked(i, place(c)?);
                }
            }
        }
        let at_home: u32 = home.iter().map(|&h| u32::from(h)).sum();
        if cards.count_ones() + at_home != Card::COUNT as u32 || !r.ended_within(bytes.len()) {
            return Err(CorruptEntry);
        }
        debug_assert!(
            {
                let cols: Vec<Vec<u8>> = (0..rules.columns).map(|i| out.column(i).to_vec()).collect();
                let cells: Vec<Option<u8>> = (0..rules.cells).map(|i| out.cell(i).map(|c| c.index())).collect();
                Position::new(rules, &cols, &cells, home).as_ref() == Ok(out)
            },
            "an entry that decodes is a valid position"
        );
        Ok(())
    }
}

/// Bits written low first into bytes.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    /// Writes the low `width` bits of `value`; with fewer than 8 pending, up to 56 fit.
    fn put(&mut self, value: impl Into<u64>, width: u32) {
        self.acc |= value.into() << self.n;
        self.n += width;
        while self.n >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// Appends the record: its length in a byte, then its bytes.
    fn finish(mut self, out: &mut Vec<u8>) {
        if self.n > 0 {
            self.bytes.push(self.acc as u8);
        }
        out.push(self.bytes.len() as u8);
        out.extend_from_slice(&self.bytes);
    }
}

struct BitReader<'a> {
    bytes: &'a [u8],
    /// The next byte to take into `acc`, which holds `n` bits not yet read, low first.
    next: usize,
    acc: u64,
    n: u32,
    /// Bits asked for in all, read or past the end.
    taken: usize,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader { bytes, next: 0, acc: 0, n: 0, taken: 0 }
    }

    /// The next `width` bits (at most 32); past the end, zeros.
    fn get(&mut self, width: u32) -> u32 {
        self.taken += width as usize;
        if self.n < width {
            while self.n <= 56 && self.next < self.bytes.len() {
                self.acc |= u64::from(self.bytes[self.next]) << self.n;
                self.next += 1;
                self.n += 8;
            }
        }
        let v = self.acc & ((1 << width) - 1);
        self.acc >>= width;
        self.n = self.n.saturating_sub(width);
        v as u32
    }

    /// Whether the bits read fill the record's `len` bytes but for the last one's
    /// padding: a record that `finish` wrote is exactly that long.
    fn ended_within(&self, len: usize) -> bool {
        self.taken.div_ceil(8) == len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::generate;
    use crate::testdata::{columns, MS1};
    use crate::variant::SequenceMoves;

    /// Positions reached from deal 1 by a random walk.
    pub(crate) fn walk(rules: &Variant, steps: usize, seed: u64) -> Vec<Position> {
        let cells = vec![None; rules.cells];
        let mut s = Position::new(rules, &columns(MS1), &cells, [0; 4]).expect("deal 1");
        let mut rng = seed;
        let mut out = vec![s.clone()];
        let mut moves = vec![];
        for _ in 0..steps {
            moves.clear();
            generate(&s, rules, true, &mut moves);
            if moves.is_empty() {
                break;
            }
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let m = moves[(rng >> 33) as usize % moves.len()];
            s.apply(m);
            out.push(s.clone());
        }
        out
    }

    #[test]
    fn entries_decode_to_the_positions_encoded_and_levels_never_fall() {
        for rules in [
            Variant::FREECELL,
            Variant::FREECELL.with_cells(1),
            Variant { same_suit: true, ..Variant::FREECELL.with_cells(2) },
            Variant { sequence_moves: SequenceMoves::Relaxed, kings_only: true, ..Variant::FREECELL },
            Variant { takeback: true, ..Variant::FREECELL.with_cells(2) },
        ] {
            for seed in 1..20 {
                let positions = walk(&rules, 300, seed);
                let codec = Codec::new(&positions[0], &rules);
                let mut record = vec![];
                // Decoded into a position that holds another: nothing of it may stay.
                let mut out = positions.last().expect("a position").clone();
                for pair in positions.windows(2) {
                    let (before, after) = (&pair[0], &pair[1]);
                    assert!(codec.level(after, &rules) >= codec.level(before, &rules), "{rules:?}");
                    record.clear();
                    codec.encode(after, &rules, &mut record);
                    assert_eq!(usize::from(record[0]), record.len() - 1);
                    codec.decode(&record[1..], &rules, &mut out).expect("an entry written decodes");
                    assert_eq!(out, *after, "{rules:?}");
                }
                // The start's own layout and a stranger's (written card by card) too.
                let stranger = walk(&rules, 40, seed + 100);
                let codec = Codec::new(stranger.last().expect("a position"), &rules);
                for p in &positions {
                    record.clear();
                    codec.encode(p, &rules, &mut record);
                    codec.decode(&record[1..], &rules, &mut out).expect("an entry written decodes");
                    assert_eq!(out, *p);
                }
            }
        }
    }

    #[test]
    fn damaged_entries_are_refused_never_trusted_or_panicked_on() {
        // Every record of a walk with each of its bytes changed, cut short or lengthened:
        // each either decodes to a valid position (the debug check in `decode` holds
        // it to Position::new) or is refused. Most are refused.
        let rules = Variant::FREECELL.with_cells(2);
        let positions = walk(&rules, 200, 3);
        let codec = Codec::new(&positions[0], &rules);
        let mut out = positions[0].clone();
        let (mut refused, mut tried) = (0, 0);
        for p in &positions {
            let mut record = vec![];
            codec.encode(p, &rules, &mut record);
            let body = &record[1..];
            for i in 0..body.len() {
                for flip in [1u8, 0x10, 0xff] {
                    let mut damaged = body.to_vec();
                    damaged[i] ^= flip;
                    tried += 1;
                    refused += usize::from(codec.decode(&damaged, &rules, &mut out).is_err());
                }
            }
            for len in 0..body.len() {
                tried += 1;
                refused += usize::from(codec.decode(&body[..len], &rules, &mut out).is_err());
            }
            let mut longer = body.to_vec();
            longer.push(0);
            assert_eq!(codec.decode(&longer, &rules, &mut out), Err(CorruptEntry));
        }
        assert!(refused * 10 >= tried * 8, "{refused} of {tried} refused");
    }

    #[test]
    fn entries_are_written_as_the_format_named_says() {
        // Kept proofs are gone on from by later versions whose FORMAT is the same: a
        // change of these bytes must bump FORMAT. A hash of the entries of deal 1's
        // positions along walks of three variants, the start's layout and a stranger's.
        let mut all = vec![];
        for rules in [
            Variant::FREECELL.with_cells(1),
            Variant { same_suit: true, ..Variant::FREECELL.with_cells(2) },
            Variant { takeback: true, ..Variant::FREECELL },
        ] {
            for seed in 1..9 {
                let positions = walk(&rules, 300, seed);
                let stranger = walk(&rules, 40, seed + 100);
                for start in [&positions[0], stranger.last().expect("a position")] {
                    let codec = Codec::new(start, &rules);
                    for p in &positions {
                        codec.encode(p, &rules, &mut all);
                    }
                }
            }
        }
        let fnv = all.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
        assert_eq!((all.len(), fnv), (17_794, 17_568_322_370_248_961_824), "{}", super::super::FORMAT);
    }

    #[test]
    fn a_typical_entry_takes_a_few_bytes() {
        // Deal 1's positions along a walk: the start's cards are written as counts and
        // the cards on them as bits, so an entry is far smaller than a position.
        let rules = Variant::FREECELL;
        let positions = walk(&rules, 200, 7);
        let codec = Codec::new(&positions[0], &rules);
        let mut record = vec![];
        for p in &positions {
            codec.encode(p, &rules, &mut record);
        }
        let mean = record.len() as f64 / positions.len() as f64;
        assert!((10.0..24.0).contains(&mean), "{mean} bytes an entry");
    }
}

//! How a packed table of the visited-position store lays out its slots: fewer bytes a fingerprint, the rest given back by its home.

use super::SLOT;

/// A packed slot's top 12 bits: its distance from home plus one (0 is an empty slot).
pub(super) const DISTANCE_BITS: u32 = 12;
pub(super) const MAX_DISTANCE: usize = (1 << DISTANCE_BITS) - 2;

/// How a packed table lays out its slots: `bytes` each, for tables of 2^`from` slots
/// up to 2^(64 - `from`). The home of a fingerprint in a table of C slots in that range
/// leaves fewer than 2^(65 - `from`) values of its high half (`unpack`), so a slot keeps
/// that many low bits of it, and gives the rest of its bits, past the distance, to the
/// low half.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Packing {
    pub(super) bytes: usize,
    pub(super) from: u32,
}

/// 12 bytes a slot from 2^24 slots: 41 bits of the high half and 43 of the low.
pub(super) const PACKED_12: Packing = Packing { bytes: 12, from: 24 };
/// 10 bytes a slot from 2^30 slots: 35 bits of the high half and 33 of the low. Only
/// tables of some 12 GB or more pack so densely: smaller ones keep more bits.
pub(super) const PACKED_10: Packing = Packing { bytes: 10, from: 30 };

impl Packing {
    /// The low bits of the high half a slot keeps.
    pub(super) const fn high(self) -> u32 {
        65 - self.from
    }

    /// The low bits of the low half a slot keeps.
    pub(super) const fn low(self) -> u32 {
        self.bytes as u32 * 8 - DISTANCE_BITS - self.high()
    }

    /// Where a slot's distance starts.
    pub(super) const fn distance_shift(self) -> u32 {
        self.bytes as u32 * 8 - DISTANCE_BITS
    }

    pub(super) const fn min_capacity(self) -> usize {
        1 << self.from
    }

    pub(super) const fn max_capacity(self) -> usize {
        1 << (64 - self.from)
    }

    /// A slot's bits, the rest of the 16 bytes read from its start left out.
    pub(super) const fn mask(self) -> u128 {
        (1 << (self.bytes * 8)) - 1
    }
}

pub(super) const fn low_bits(n: u32) -> u64 {
    (1 << n) - 1
}

// Both packings keep at least 33 bits of each half (docs/correctness.md), and a slot is
// read as the 16 bytes from its start.
const _: () = assert!(PACKED_12.low() == 43 && PACKED_10.low() == 33 && PACKED_10.high() == 35);
const _: () = assert!(PACKED_12.from <= 32 && PACKED_10.from <= 32);

/// The 16-byte words that hold `slots` slots of a layout.
pub(super) fn words(slots: usize, packing: Option<Packing>) -> usize {
    match packing {
        // A packed slot is read as the 16 bytes from its start: the last one has a few past it.
        Some(p) => (slots * p.bytes + SLOT - p.bytes).div_ceil(SLOT),
        None => slots,
    }
}

/// The slots of a layout that `words` 16-byte words hold.
pub(super) fn slots_in(words: usize, packing: Option<Packing>) -> usize {
    match packing {
        Some(p) => (words * SLOT).saturating_sub(SLOT - p.bytes) / p.bytes,
        None => words,
    }
}

/// The bytes a slot of a layout takes.
pub(super) fn slot_bytes(packing: Option<Packing>) -> usize {
    packing.map_or(SLOT, |p| p.bytes)
}

/// What a packed table keeps of a fingerprint: the high half and the low bits.
#[inline]
pub(super) fn keep(fp: u128, p: Packing) -> u128 {
    fp & ((u128::MAX << 64) | u128::from(low_bits(p.low())))
}

/// A packed slot's contents for `fp`, but for the distance.
#[inline]
pub(super) fn packed_bits(fp: u128, p: Packing) -> u128 {
    (u128::from((fp >> 64) as u64 & low_bits(p.high())) << p.low()) | u128::from(fp as u64 & low_bits(p.low()))
}

/// The fingerprint (as `keep` keeps it) in packed slot `slot` holding `entry`, of a table
/// whose `width` is floor(2^64 / capacity). With h the home and C the capacity, the high
/// half hi has h = floor(hi C / 2^64), so h width <= h 2^64 / C <= hi, and hi < (h + 1)
/// 2^64 / C <= h width + h + 2^64 / C < h width + 2^(65 - from) while 2^from <= C <=
/// 2^(64 - from) and from <= 32 (both terms are at most 2^(64 - from)): hi is the one
/// number from h width on, below 2^high past it, with the low `high` bits kept.
#[inline]
pub(super) fn unpack(entry: u128, slot: usize, width: u64, p: Packing) -> u128 {
    let home = slot - ((entry >> p.distance_shift()) as usize - 1);
    let floor = home as u64 * width;
    let high = floor + (((entry >> p.low()) as u64).wrapping_sub(floor) & low_bits(p.high()));
    (u128::from(high) << 64) | u128::from(entry as u64 & low_bits(p.low()))
}

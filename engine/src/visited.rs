//! The visited-position store: 128-bit fingerprints in an open-addressing table under a byte budget.

use std::collections::HashSet;
use std::time::Instant;

use crate::slots::{footprint, slots_within, Slots};

/// A set of nonzero 128-bit fingerprints (linear probing, at most 7/8 full while it can
/// grow, 15/16 once its budget stops it: probes run longer, but more positions fit).
///
/// Fingerprints are already uniformly mixed: a fingerprint's home slot is its high 64
/// bits scaled to the table's size, so homes keep the fingerprints' order at any size.
/// That lets the table grow in place, and to any size: first by doubling, and at the
/// end by whatever the budget has left, rather than stopping at a power of two.
///
/// A table holds whole fingerprints, 16 bytes a slot, until it grows to 2^24 slots;
/// from then on it is *packed* (`Packing`), 12 bytes a slot, and from 2^30 slots (some
/// 12 GB) 10 bytes. A packed slot holds how far the fingerprint lies from its home, the
/// low bits of its high half and the low bits of its low half. The home gives the rest
/// of the high half back (`unpack`), so the set still tells apart any two fingerprints
/// that differ in their high 64 bits or in the low bits kept: 107 of the 128 at 12 bytes,
/// 97 at 10 (docs/correctness.md, "Fingerprints", bounds what that costs). Packing holds
/// a third more positions in the same memory, and the largest tables three fifths more.
pub struct FingerprintSet {
    /// `capacity` home slots, then TAIL more that probes run on into (they never wrap),
    /// in 16-byte words: one a slot, or several packed slots (and a few bytes over).
    slots: Slots,
    capacity: usize,
    /// How the slots are packed, if they are.
    packing: Option<Packing>,
    /// The packings a growing table takes, the least dense first (tests make them
    /// start at smaller tables).
    packings: [Packing; 2],
    /// Fingerprints whose probe ran past the last slot, or (packed) further from home
    /// than a slot can say: that takes a run of thousands of full slots, which only a
    /// table filled to 15/16 makes, and then rarely; they keep the set exact if it
    /// happens. Packed, they are kept as the table keeps them (`keep`).
    overflow: HashSet<u128>,
    len: usize,
    max_bytes: usize,
    /// Bytes held by whatever else shares the budget (a search's path, other tables),
    /// as its owner last said: growth must leave room for them too.
    others: usize,
    /// The most this table and the others have held together, the moment of growth
    /// included.
    peak: usize,
    /// Seconds the last growth took per slot of the table it grew from (0 before any):
    /// a growth of a table of gigabytes takes seconds, which a search near its deadline
    /// should not start (`growth_seconds`).
    growth_seconds_per_slot: f64,
}

/// The store would need more memory than its budget allows.
#[derive(Debug, PartialEq, Eq)]
pub struct OutOfMemory;

const EMPTY: u128 = 0;
const INITIAL_CAPACITY: usize = 1 << 12;
const TAIL: usize = 1 << 10;
/// A word of the storage, and a whole fingerprint's slot.
const SLOT: usize = std::mem::size_of::<u128>();
/// A table grows when more than 14/16 of its home slots would be full; one that its
/// budget keeps from growing fills on to 15/16.
const GROW_PAST: usize = 14;
const FILL_TO: usize = 15;
/// The most of a budget kept back from the last growth for the overflow list.
const OVERFLOW_ROOM: usize = 1 << 20;
/// Growing by less than a sixteenth is not worth a pass over the table.
const MIN_GROWTH_SIXTEENTHS: usize = 17;

/// A packed slot's top 12 bits: its distance from home plus one (0 is an empty slot).
const DISTANCE_BITS: u32 = 12;
const MAX_DISTANCE: usize = (1 << DISTANCE_BITS) - 2;

/// How a packed table lays out its slots: `bytes` each, for tables of 2^`from` slots
/// up to 2^(64 - `from`). The home of a fingerprint in a table of C slots in that range
/// leaves fewer than 2^(65 - `from`) values of its high half (`unpack`), so a slot keeps
/// that many low bits of it, and gives the rest of its bits, past the distance, to the
/// low half.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Packing {
    bytes: usize,
    from: u32,
}

/// 12 bytes a slot from 2^24 slots: 41 bits of the high half and 43 of the low.
const PACKED_12: Packing = Packing { bytes: 12, from: 24 };
/// 10 bytes a slot from 2^30 slots: 35 bits of the high half and 33 of the low. Only
/// tables of some 12 GB or more pack so densely: smaller ones keep more bits.
const PACKED_10: Packing = Packing { bytes: 10, from: 30 };

impl Packing {
    /// The low bits of the high half a slot keeps.
    const fn high(self) -> u32 {
        65 - self.from
    }

    /// The low bits of the low half a slot keeps.
    const fn low(self) -> u32 {
        self.bytes as u32 * 8 - DISTANCE_BITS - self.high()
    }

    /// Where a slot's distance starts.
    const fn distance_shift(self) -> u32 {
        self.bytes as u32 * 8 - DISTANCE_BITS
    }

    const fn min_capacity(self) -> usize {
        1 << self.from
    }

    const fn max_capacity(self) -> usize {
        1 << (64 - self.from)
    }

    /// A slot's bits, the rest of the 16 bytes read from its start left out.
    const fn mask(self) -> u128 {
        (1 << (self.bytes * 8)) - 1
    }
}

const fn low_bits(n: u32) -> u64 {
    (1 << n) - 1
}

// Both packings keep at least 33 bits of each half (docs/correctness.md), and a slot is
// read as the 16 bytes from its start.
const _: () = assert!(PACKED_12.low() == 43 && PACKED_10.low() == 33 && PACKED_10.high() == 35);
const _: () = assert!(PACKED_12.from <= 32 && PACKED_10.from <= 32);

/// The 16-byte words that hold `slots` slots of a layout.
fn words(slots: usize, packing: Option<Packing>) -> usize {
    match packing {
        // A packed slot is read as the 16 bytes from its start: the last one has a few past it.
        Some(p) => (slots * p.bytes + SLOT - p.bytes).div_ceil(SLOT),
        None => slots,
    }
}

/// The slots of a layout that `words` 16-byte words hold.
fn slots_in(words: usize, packing: Option<Packing>) -> usize {
    match packing {
        Some(p) => (words * SLOT).saturating_sub(SLOT - p.bytes) / p.bytes,
        None => words,
    }
}

/// The bytes a slot of a layout takes.
fn slot_bytes(packing: Option<Packing>) -> usize {
    packing.map_or(SLOT, |p| p.bytes)
}

/// What a packed table keeps of a fingerprint: the high half and the low bits.
#[inline]
fn keep(fp: u128, p: Packing) -> u128 {
    fp & ((u128::MAX << 64) | u128::from(low_bits(p.low())))
}

/// A packed slot's contents for `fp`, but for the distance.
#[inline]
fn packed_bits(fp: u128, p: Packing) -> u128 {
    (u128::from((fp >> 64) as u64 & low_bits(p.high())) << p.low()) | u128::from(fp as u64 & low_bits(p.low()))
}

/// The fingerprint (as `keep` keeps it) in packed slot `slot` holding `entry`, of a table
/// whose `width` is floor(2^64 / capacity). With h the home and C the capacity, the high
/// half hi has h = floor(hi C / 2^64), so h width <= h 2^64 / C <= hi, and hi < (h + 1)
/// 2^64 / C <= h width + h + 2^64 / C < h width + 2^(65 - from) while 2^from <= C <=
/// 2^(64 - from) and from <= 32 (both terms are at most 2^(64 - from)): hi is the one
/// number from h width on, below 2^high past it, with the low `high` bits kept.
#[inline]
fn unpack(entry: u128, slot: usize, width: u64, p: Packing) -> u128 {
    let home = slot - ((entry >> p.distance_shift()) as usize - 1);
    let floor = home as u64 * width;
    let high = floor + (((entry >> p.low()) as u64).wrapping_sub(floor) & low_bits(p.high()));
    (u128::from(high) << 64) | u128::from(entry as u64 & low_bits(p.low()))
}

/// floor(2^64 / capacity), which `unpack` takes: computed once a growth, not a slot.
fn width_of(capacity: usize) -> u64 {
    ((1u128 << 64) / capacity as u128) as u64
}

/// The bytes an overflow set of `capacity` takes (a hash table's buckets and a control
/// byte each, at most 7/8 of them full).
fn overflow_bytes(capacity: usize) -> usize {
    capacity * 8 / 7 * (SLOT + 1)
}

/// Where a probe for a fingerprint ended.
enum Probe {
    Found,
    /// At an empty slot: the slot, and what the fingerprint's entry there would be.
    Empty(usize, u128),
    /// At the end of the table, or (packed) as far from home as a slot can say.
    Full,
}

impl FingerprintSet {
    pub fn new(max_bytes: usize) -> FingerprintSet {
        Self::with_packings(max_bytes, [PACKED_12, PACKED_10])
    }

    fn with_packings(max_bytes: usize, packings: [Packing; 2]) -> FingerprintSet {
        let slots = Slots::zeroed(INITIAL_CAPACITY + TAIL);
        let peak = slots.bytes();
        FingerprintSet {
            slots,
            capacity: INITIAL_CAPACITY,
            packing: None,
            packings,
            overflow: HashSet::new(),
            len: 0,
            max_bytes,
            others: 0,
            peak,
            growth_seconds_per_slot: 0.0,
        }
    }

    /// Says how many bytes the rest of the search holds now; growth counts them.
    pub fn set_others(&mut self, bytes: usize) {
        self.others = bytes;
        self.peak = self.peak.max(self.bytes() + bytes);
    }

    /// The most this table and the others (as last set) have held at once.
    pub fn peak_bytes(&self) -> usize {
        self.peak
    }

    /// Lets the table grow to `max_bytes` (growth included) from now on.
    pub fn set_max_bytes(&mut self, max_bytes: usize) {
        self.max_bytes = max_bytes;
    }

    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the table holds now.
    pub fn bytes(&self) -> usize {
        self.slots.bytes() + overflow_bytes(self.overflow.capacity())
    }

    /// Whether `more` fingerprints fit in `sixteenths` of the home slots.
    #[inline]
    fn has_room(&self, more: usize, sixteenths: usize) -> bool {
        (self.len + more) * 16 <= self.capacity * sixteenths
    }

    /// Whether a table its budget keeps from growing has room for `more` fingerprints:
    /// fuller, more probes spill over, so the overflow set (which may double) must fit too.
    fn can_fill_on(&self, more: usize) -> bool {
        // Growing, the set holds its old buckets beside twice as many (4 at first).
        let overflow_growth = 2 * overflow_bytes(self.overflow.capacity().max(more).max(4));
        self.has_room(more, FILL_TO) && self.bytes() + self.others + overflow_growth <= self.max_bytes
    }

    /// What the table keeps of `fp`: all of it, or (packed) what `keep` keeps.
    #[inline]
    fn kept(&self, fp: u128) -> u128 {
        self.packing.map_or(fp, |p| keep(fp, p))
    }

    /// Home slots and the tail.
    fn slot_count(&self) -> usize {
        self.capacity + TAIL
    }

    #[inline]
    fn home(fp: u128, capacity: usize) -> usize {
        ((u128::from((fp >> 64) as u64) * capacity as u128) >> 64) as usize
    }

    /// The packed slot `i`'s bits.
    #[inline]
    fn packed_at(&self, i: usize, p: Packing) -> u128 {
        let at = i * p.bytes;
        let bytes: [u8; SLOT] = self.slots.as_bytes()[at..at + SLOT].try_into().expect("16 bytes");
        u128::from_le_bytes(bytes) & p.mask()
    }

    #[inline]
    fn set_packed(&mut self, i: usize, entry: u128, p: Packing) {
        let at = i * p.bytes;
        self.slots.as_bytes_mut()[at..at + p.bytes].copy_from_slice(&entry.to_le_bytes()[..p.bytes]);
    }

    /// Looks for `fp` from slot `from` (its home, or above) to the first empty slot.
    #[inline]
    fn probe(&self, fp: u128, from: usize) -> Probe {
        let end = self.slot_count();
        if let Some(p) = self.packing {
            let home = Self::home(fp, self.capacity);
            let one_further = 1u128 << p.distance_shift();
            let mut entry = (one_further * (from - home + 1) as u128) | packed_bits(fp, p);
            for i in from..end.min(home + MAX_DISTANCE + 1) {
                let slot = self.packed_at(i, p);
                if slot == entry {
                    return Probe::Found;
                }
                if slot == EMPTY {
                    return Probe::Empty(i, entry);
                }
                entry += one_further;
            }
        } else {
            for i in from..end {
                let slot = self.slots[i];
                if slot == fp {
                    return Probe::Found;
                }
                if slot == EMPTY {
                    return Probe::Empty(i, fp);
                }
            }
        }
        Probe::Full
    }

    /// Writes what `Probe::Empty` found.
    #[inline]
    fn fill(&mut self, slot: usize, entry: u128) {
        if let Some(p) = self.packing {
            self.set_packed(slot, entry, p);
        } else {
            self.slots[slot] = entry;
        }
    }

    /// Adds `fp`; true if it was new. Err when growing would pass the byte budget.
    #[inline]
    pub fn insert(&mut self, fp: u128) -> Result<bool, OutOfMemory> {
        // 0 marks an empty slot; remapping it to 1 merges two fingerprints, a 2^-128 event
        // already inside the collision bound.
        let fp = if fp == EMPTY { 1 } else { fp };
        if !self.has_room(1, GROW_PAST) {
            if self.contains(fp) {
                return Ok(false);
            }
            if self.grow().is_err() {
                if !self.can_fill_on(1) {
                    return Err(OutOfMemory);
                }
                let new = self.place(fp);
                self.peak = self.peak.max(self.bytes() + self.others);
                return Ok(new);
            }
        }
        Ok(self.place(fp))
    }

    /// Puts `fp` in the first empty slot from its home on, unless it is already there.
    #[inline]
    fn place(&mut self, fp: u128) -> bool {
        match self.probe(fp, Self::home(fp, self.capacity)) {
            Probe::Found => false,
            Probe::Empty(slot, entry) => {
                self.fill(slot, entry);
                self.len += 1;
                true
            }
            Probe::Full => {
                let kept = self.kept(fp);
                let new = self.overflow.insert(kept);
                self.len += usize::from(new);
                new
            }
        }
    }

    /// Asks for the cache line where a search for `fp` starts, without waiting for it:
    /// issued as soon as a child's fingerprint is known, the trip to memory overlaps
    /// the work on the children after it, where a probe would wait for each in turn.
    #[inline]
    pub fn prefetch(&self, fp: u128) {
        let home = Self::home(fp, self.capacity);
        let slot: *const u8 = &self.slots.as_bytes()[home * slot_bytes(self.packing)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint; it never faults, and `slot` is in bounds.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Whether making room for `more` more fingerprints would grow the table first.
    pub fn must_grow_for(&self, more: usize) -> bool {
        !self.has_room(more, GROW_PAST)
    }

    /// About how long the next growth takes: the last one's time per slot, for this
    /// table's slots (0 before any growth, when the table is small).
    pub fn growth_seconds(&self) -> f64 {
        self.growth_seconds_per_slot * self.capacity as f64
    }

    /// Makes the next growth look `seconds_per_slot` slow, as if the last had been.
    #[cfg(test)]
    pub fn pretend_growth_takes(&mut self, seconds_per_slot: f64) {
        self.growth_seconds_per_slot = seconds_per_slot;
    }

    /// Makes room for `more` insertions by `insert_reserved`, growing now if need be.
    pub fn reserve(&mut self, more: usize) -> Result<(), OutOfMemory> {
        while !self.has_room(more, GROW_PAST) {
            if self.grow().is_err() {
                return if self.can_fill_on(more) { Ok(()) } else { Err(OutOfMemory) };
            }
        }
        Ok(())
    }

    /// Adds `fp` without growing, into room made by `reserve`; true if it was new. It
    /// cannot fail: were the room short, the table would only be fuller (and the
    /// overflow list catches a probe that runs off the end), never wrong.
    #[inline]
    pub fn insert_reserved(&mut self, fp: u128) -> bool {
        debug_assert!(self.has_room(1, FILL_TO), "insert_reserved without reserve");
        self.place(if fp == EMPTY { 1 } else { fp })
    }

    pub fn contains(&self, fp: u128) -> bool {
        let fp = if fp == EMPTY { 1 } else { fp };
        match self.probe(fp, Self::home(fp, self.capacity)) {
            Probe::Found => true,
            Probe::Empty(..) => false,
            Probe::Full => self.overflow.contains(&self.kept(fp)),
        }
    }

    /// The old table's bytes held beside the new one while growing: a table on the heap
    /// may be copied, a mapped one is moved (slots.rs).
    fn copied_bytes(&self) -> usize {
        self.slots.copied_when_growing()
    }

    /// The bytes held while growing to `capacity` slots of a layout: the old words stay
    /// until every slot has moved, and a heap table may be copied.
    fn bytes_growing_to(&self, capacity: usize, packing: Option<Packing>) -> usize {
        footprint(words(capacity + TAIL, packing).max(self.slots.len())) + self.copied_bytes()
    }

    /// The capacity to grow to in a layout within `room` bytes: twice this one, or if
    /// that does not fit, as much as does (if that is worth it).
    fn capacity_within(&self, room: usize, packing: Option<Packing>) -> Option<usize> {
        let mut capacity = self.capacity * 2;
        if self.bytes_growing_to(capacity, packing) > room {
            // The largest table that fits, whole slots of 64, beside the old table if that
            // is copied rather than moved, in whole huge pages if it is mapped.
            // What is left over is for the overflow list once the table fills on (`can_fill_on`).
            let spare = (room / 256).min(OVERFLOW_ROOM);
            let words = slots_within(room.saturating_sub(self.copied_bytes() + spare));
            capacity = slots_in(words, packing).saturating_sub(TAIL) & !63;
        }
        if let Some(p) = packing {
            // A packed slot gives its fingerprint back only in tables of its range (`unpack`).
            capacity = capacity.min(p.max_capacity());
            // Packing a table anew needs the slots of its range, and half again as many
            // as it has, so that nearly every fingerprint moves above the wider slots not
            // yet moved (grow).
            if packing != self.packing && (capacity < p.min_capacity() || capacity * 2 < self.capacity * 3) {
                return None;
            }
        }
        (capacity * 16 >= self.capacity * MIN_GROWTH_SIXTEENTHS).then_some(capacity)
    }

    /// The packing of a table of `capacity` slots: the densest whose range it is in.
    fn packing_for(&self, capacity: usize) -> Option<Packing> {
        self.packings.iter().rev().find(|p| capacity >= p.min_capacity()).copied()
    }

    /// Grows the table in place: to twice its size, or if the budget (with what the
    /// rest of the search holds) does not allow that, to as much as it does allow. It
    /// packs the table more densely as it passes 2^24 and 2^30 slots (`packings`).
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        let room = self.max_bytes.saturating_sub(self.others);
        let target = self.packing_for(self.capacity * 2);
        let (capacity, packing) = match self.capacity_within(room, target) {
            Some(capacity) => (capacity, target),
            // A budget too small to pack into more densely may still hold a larger table
            // packed as this one is.
            None if target != self.packing => {
                (self.capacity_within(room, self.packing).ok_or(OutOfMemory)?, self.packing)
            }
            None => return Err(OutOfMemory),
        };
        debug_assert!(packing.is_none_or(|p| (p.min_capacity()..=p.max_capacity()).contains(&capacity)));
        self.peak = self.peak.max(self.bytes_growing_to(capacity, packing) + self.others);
        let (began, old_capacity) = (Instant::now(), self.capacity);
        let (old_slots, old_packing, old_width) = (self.slot_count(), self.packing, width_of(self.capacity));
        if !self.slots.grow(words(capacity + TAIL, packing).max(self.slots.len())) {
            return Err(OutOfMemory);
        }
        self.capacity = capacity;
        self.packing = packing;
        let mut moved_last: Vec<u128> = self.overflow.drain().collect();
        // From the last slot down, each fingerprint moves to the first empty slot from its
        // new home on. Homes only move up as the table grows, and every slot above the
        // one being moved holds only fingerprints already moved: no fingerprint not yet
        // moved is overwritten, and none lands where a later one would block its probe.
        // The few whose new home lies below their old slot (near the start, where a
        // probe ran further than the home's index) are put in at the end, like new ones.
        // When the table is packed more densely now, a new slot must also start at or
        // above the old slot just moved (new slots are smaller; the homes spread out by
        // half again at least).
        let (old_bytes, new_bytes) = (slot_bytes(old_packing), slot_bytes(packing));
        for p in (0..old_slots).rev() {
            let fp = if let Some(op) = old_packing {
                let entry = self.packed_at(p, op);
                if entry == EMPTY {
                    continue;
                }
                self.set_packed(p, EMPTY, op);
                // Kept as the new packing keeps it, which keeps no more bits than the old.
                self.kept(unpack(entry, p, old_width, op))
            } else {
                let fp = self.slots[p];
                if fp == EMPTY {
                    continue;
                }
                self.slots[p] = EMPTY;
                self.kept(fp)
            };
            let home = Self::home(fp, capacity);
            let lowest = (p * old_bytes).div_ceil(new_bytes);
            if home < lowest {
                moved_last.push(fp);
                continue;
            }
            match self.probe(fp, home) {
                Probe::Empty(slot, entry) => self.fill(slot, entry),
                // Two fingerprints the packed table keeps alike: they are one to it now.
                Probe::Found => self.len -= 1,
                Probe::Full => moved_last.push(fp),
            }
        }
        self.len -= moved_last.len();
        for fp in moved_last {
            self.place(fp);
        }
        self.growth_seconds_per_slot = began.elapsed().as_secs_f64() / old_capacity as f64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every fingerprint lies at or past its home with no empty slot between, within the
    /// distance a packed slot can say; the overflow list holds only what no probe finds;
    /// `len` counts them all; and the bytes past the table are zero, as growth needs.
    fn assert_well_formed(set: &FingerprintSet) {
        let end = set.slot_count();
        assert!(set.slots.len() >= words(end, set.packing));
        let mut last_empty = None;
        let mut count = 0;
        for s in 0..end {
            let home = if let Some(p) = set.packing {
                let entry = set.packed_at(s, p);
                if entry == EMPTY {
                    last_empty = Some(s);
                    continue;
                }
                let distance = (entry >> p.distance_shift()) as usize - 1;
                assert!(distance <= MAX_DISTANCE && distance <= s, "slot {s}: distance {distance}");
                let home = s - distance;
                assert_eq!(
                    FingerprintSet::home(unpack(entry, s, width_of(set.capacity), p), set.capacity),
                    home,
                    "slot {s}"
                );
                home
            } else {
                let fp = set.slots[s];
                if fp == EMPTY {
                    last_empty = Some(s);
                    continue;
                }
                FingerprintSet::home(fp, set.capacity)
            };
            assert!(home <= s && home < set.capacity, "slot {s}: home {home}");
            assert!(last_empty.is_none_or(|e| e < home), "slot {s}: an empty slot between it and home {home}");
            count += 1;
        }
        assert_eq!(count + set.overflow.len(), set.len);
        assert!(set
            .overflow
            .iter()
            .all(|&o| matches!(set.probe(o, FingerprintSet::home(o, set.capacity)), Probe::Full)));
        let used = end * slot_bytes(set.packing);
        assert!(set.slots.as_bytes()[used..].iter().all(|&b| b == 0), "bytes past the table");
    }

    #[test]
    fn inserts_are_remembered_across_growth() {
        let mut set = FingerprintSet::new(1 << 30);
        let key = |i: u128| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1;
        for i in 0..100_000u128 {
            assert_eq!(set.insert(key(i)), Ok(true));
        }
        for i in 0..100_000u128 {
            assert_eq!(set.insert(key(i)), Ok(false));
            assert!(set.contains(key(i)));
        }
        assert!(!set.contains(key(100_001)));
        assert_eq!(set.len(), 100_000);
        assert!(set.bytes() <= 16 * (131_072 + TAIL));
    }

    #[test]
    fn inserts_into_reserved_room_are_remembered_and_reserving_stops_at_the_budget() {
        let key = |i: u128| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1;
        let mut set = FingerprintSet::new(1 << 30);
        // As the depth-first pass uses them: room for a level's moves, then the moves,
        // some of them seen before.
        for level in 0..2_000u128 {
            set.reserve(256).unwrap();
            let capacity = set.capacity;
            for i in 0..200u128 {
                let fp = key(level * 150 + i);
                assert_eq!(set.insert_reserved(fp), i >= 50 || level == 0, "{level} {i}");
            }
            assert_eq!(set.capacity, capacity, "no growth inside reserved room");
        }
        assert_eq!(set.len(), 1999 * 150 + 200);
        assert!((0..1999 * 150 + 200).all(|i| set.contains(key(i))));
        assert!(!set.contains(key(1999 * 150 + 200)));
        // A reservation the budget cannot hold is refused, and the set is as it was.
        let mut small = FingerprintSet::new(200_000);
        let mut i = 0;
        while small.reserve(256).is_ok() {
            small.insert_reserved(key(i));
            i += 1;
        }
        assert_eq!(small.len(), i as usize);
        assert!((0..i).all(|j| small.contains(key(j))) && small.peak_bytes() <= 200_000);
    }

    #[test]
    fn the_next_growth_is_foreseen_and_timed() {
        let mut set = FingerprintSet::new(1 << 30);
        assert_eq!(set.growth_seconds(), 0.0, "no growth timed yet");
        let mut fp = 0u128;
        while !set.must_grow_for(1) {
            fp += 1;
            set.reserve(1).unwrap();
            assert!(set.insert_reserved(fp.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)));
        }
        // Exactly when it says so, making room grows the table, and the time is kept.
        let capacity = set.capacity;
        set.reserve(1).unwrap();
        assert_eq!(set.capacity, 2 * capacity);
        assert!(!set.must_grow_for(1));
        assert!(set.growth_seconds() > 0.0);
        assert_eq!(set.growth_seconds(), set.growth_seconds_per_slot * (2 * capacity) as f64);
    }

    #[test]
    fn growth_to_what_the_budget_allows_keeps_every_fingerprint() {
        let key = |i: u128| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1;
        // Room for doublings to 131,072 slots (a small table is copied: old and new at
        // once), then for part of one more doubling, not all of it.
        let budget = 5_500_000;
        let mut set = FingerprintSet::new(budget);
        let inserted = (0..1_000_000u128).take_while(|&i| set.insert(key(i)).is_ok()).count();
        let capacity = set.capacity;
        assert!(capacity > 131_072 * 17 / 16 && !capacity.is_power_of_two(), "{capacity}");
        assert!(set.peak_bytes() <= budget && set.bytes() == (capacity + TAIL) * SLOT);
        assert_eq!(set.len(), inserted);
        assert!(inserted * 16 >= capacity * 15 - 16, "filled to 15/16 before giving up: {inserted} of {capacity}");
        for i in 0..inserted as u128 {
            assert!(set.contains(key(i)), "{i}");
            assert_eq!(set.insert(key(i)), Ok(false));
        }
        for i in inserted as u128 + 1..inserted as u128 + 100_000 {
            assert!(!set.contains(key(i)));
        }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_mapped_table_grows_within_a_budget_of_any_size_and_keeps_every_fingerprint() {
        // Past slots::MAPPED_FROM the table moves into a mapping of whole huge pages: the
        // last growth must round down to them, never past the budget.
        let key = |i: u128| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1;
        let budget = (37 << 20) + 12_345;
        let mut set = FingerprintSet::new(budget);
        let inserted = (0..10_000_000u128).take_while(|&i| set.insert(key(i)).is_ok()).count();
        assert!(matches!(set.slots, Slots::Mapped(_)));
        assert!(set.bytes() <= budget && set.peak_bytes() <= budget, "{} {}", set.bytes(), set.peak_bytes());
        assert!(set.bytes() > budget / 2 + budget / 4, "most of the budget is used: {}", set.bytes());
        assert_eq!(set.len(), inserted);
        assert!((0..inserted as u128).all(|i| set.contains(key(i)) && set.insert(key(i)) == Ok(false)));
        assert!((inserted as u128 + 1..inserted as u128 + 100_000).all(|i| !set.contains(key(i))));
    }

    #[test]
    fn a_run_past_the_last_slot_spills_over_and_survives_growth() {
        // Fingerprints with the same high half share a home: more of them than the tail
        // holds, at the very end of the table, run past its last slot.
        let crowd = |i: u128| (u128::from(u64::MAX) << 64) | (i + 1);
        let mut set = FingerprintSet::new(1 << 30);
        for i in 0..(TAIL as u128 + 500) {
            assert_eq!(set.insert(crowd(i)), Ok(true));
        }
        assert!(!set.overflow.is_empty());
        let other = |i: u128| i.wrapping_mul(0x2545_F491_4F6C_DD1D_9E37_79B9_7F4A_7C15) | 1;
        for i in 0..50_000u128 {
            assert_eq!(set.insert(other(i)), Ok(true));
        }
        assert_eq!(set.len(), TAIL + 500 + 50_000);
        assert_well_formed(&set);
        assert!((0..(TAIL as u128 + 500)).all(|i| set.contains(crowd(i)) && set.insert(crowd(i)) == Ok(false)));
        assert!((0..50_000u128).all(|i| set.contains(other(i))));
        assert!(!set.contains(crowd(TAIL as u128 + 500)));
    }

    #[test]
    fn zero_is_a_valid_fingerprint() {
        let mut set = FingerprintSet::new(1 << 20);
        assert_eq!(set.insert(0), Ok(true));
        assert_eq!(set.insert(0), Ok(false));
        assert!(set.contains(0));
    }

    #[test]
    fn budget_stops_growth() {
        let mut set = FingerprintSet::new(200_000);
        let mut result = Ok(true);
        for i in 1..100_000u128 {
            result = set.insert(i.wrapping_mul(0x2545_F491_4F6C_DD1D));
            if result.is_err() {
                break;
            }
        }
        assert_eq!(result, Err(OutOfMemory));
        assert!(set.bytes() <= 200_000);
        assert!(set.peak_bytes() <= 200_000);
    }

    #[test]
    fn growth_leaves_room_for_the_others_and_the_peak_counts_both_tables() {
        let key = |i: u128| i.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
        let fill = |set: &mut FingerprintSet| (1..1_000_000u128).take_while(|&i| set.insert(key(i)).is_ok()).count();
        let mut alone = FingerprintSet::new(1 << 20);
        let mut shared = FingerprintSet::new(1 << 20);
        shared.set_others(1 << 19);
        let (n_alone, n_shared) = (fill(&mut alone), fill(&mut shared));
        assert!(n_shared < n_alone, "{n_shared} {n_alone}");
        assert!(shared.peak_bytes() <= 1 << 20 && shared.peak_bytes() >= shared.bytes() + (1 << 19));
        // A table this small is copied as it grows: the last growth held the old table
        // and the new one at once.
        assert!(alone.peak_bytes() <= 1 << 20 && alone.peak_bytes() > alone.bytes() * 3 / 2 - TAIL * SLOT);
    }

    /// Packings like the real ones but from smaller tables, to test the change from
    /// one to the other in memory a test can have.
    const SMALL_PACKINGS: [Packing; 2] = [Packing { bytes: 12, from: 14 }, Packing { bytes: 10, from: 17 }];

    #[test]
    fn a_packed_slot_gives_back_the_fingerprint_it_keeps_at_any_capacity_and_distance() {
        let mut state = 0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210u128;
        let mut next = || {
            state = state.wrapping_mul(0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645).wrapping_add(1);
            state ^ (state >> 67)
        };
        let edges = [0u128, 1, u128::MAX, u128::MAX << 64, (u128::from(u64::MAX) << 64) ^ 1];
        for p in [PACKED_12, PACKED_10].into_iter().chain(SMALL_PACKINGS) {
            let (min, max) = (p.min_capacity(), p.max_capacity());
            for capacity in [min, min + 12_345, (min << 3) - 1, 3 << 30, 3 << 31, 1 << 34, (1 << 40) + 7, max] {
                if !(min..=max).contains(&capacity) {
                    continue;
                }
                let width = width_of(capacity);
                for fp in edges.into_iter().chain((0..5_000).map(|_| next())) {
                    let home = FingerprintSet::home(fp, capacity);
                    for distance in [0, 1, 63, MAX_DISTANCE] {
                        let entry = ((distance as u128 + 1) << p.distance_shift()) | packed_bits(fp, p);
                        assert_eq!(entry & !p.mask(), 0);
                        assert_eq!(
                            unpack(entry, home + distance, width, p),
                            keep(fp, p),
                            "{p:?} {capacity} {fp:#x} {distance}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_table_packs_past_2_24_slots_grows_packed_to_its_budget_and_keeps_every_fingerprint() {
        let key = |i: u128| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) ^ (i << 100)) | 1;
        // Wide up to 2^24 slots, packed at 2^25 (12 bytes a slot), and then no room to
        // double again: the last growth takes what 560 MiB has left.
        let budget = 560 << 20;
        let mut set = FingerprintSet::new(budget);
        let inserted = (0..100_000_000u128).take_while(|&i| set.insert(key(i)).is_ok()).count();
        assert!(
            set.packing == Some(PACKED_12)
                && set.capacity > PACKED_12.min_capacity() * 2 * 17 / 16
                && !set.capacity.is_power_of_two(),
            "{}",
            set.capacity
        );
        assert!(set.peak_bytes() <= budget && set.bytes() <= budget, "{} {}", set.peak_bytes(), set.bytes());
        assert!(set.bytes() < (set.capacity + TAIL) * 13, "12 bytes a slot: {} for {}", set.bytes(), set.capacity);
        assert_eq!(set.len(), inserted);
        assert_well_formed(&set);
        assert!(inserted * 16 >= set.capacity * 15 - 16, "filled to 15/16: {inserted} of {}", set.capacity);
        // More than a wide table of the same bytes could have held.
        assert!(inserted > budget / SLOT * 7 / 8 * 5 / 4, "{inserted}");
        assert!((0..inserted as u128).all(|i| set.contains(key(i)) && set.insert(key(i)) == Ok(false)));
        assert!((inserted as u128 + 1..inserted as u128 + 1_000_000).all(|i| !set.contains(key(i))));
    }

    #[test]
    fn a_table_packs_to_12_bytes_then_to_10_keeping_every_fingerprint_and_fills_its_budget() {
        let key = |i: u128| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) ^ (i << 100)) | 1;
        let budget = 9 << 20;
        let mut set = FingerprintSet::with_packings(budget, SMALL_PACKINGS);
        let mut layouts = vec![set.packing];
        let mut inserted = 0;
        while set.insert(key(inserted)).is_ok() {
            inserted += 1;
            if layouts.last() != Some(&set.packing) {
                layouts.push(set.packing);
                assert_well_formed(&set);
            }
        }
        let inserted = inserted as usize;
        assert_eq!(layouts, [None, Some(SMALL_PACKINGS[0]), Some(SMALL_PACKINGS[1])]);
        assert!(set.peak_bytes() <= budget && set.bytes() <= budget, "{} {}", set.peak_bytes(), set.bytes());
        assert!(set.bytes() < (set.capacity + TAIL) * 11, "10 bytes a slot: {} for {}", set.bytes(), set.capacity);
        assert_eq!(set.len(), inserted);
        assert_well_formed(&set);
        assert!(inserted * 16 >= set.capacity * 15 - 16, "filled to 15/16: {inserted} of {}", set.capacity);
        // More than 12-byte slots in the same bytes could have held, even full.
        assert!(inserted > set.bytes() / 12, "{inserted} in {}", set.bytes());
        assert!((0..inserted as u128).all(|i| set.contains(key(i)) && set.insert(key(i)) == Ok(false)));
        assert!((inserted as u128 + 1..inserted as u128 + 1_000_000).all(|i| !set.contains(key(i))));
    }

    #[test]
    fn a_budget_too_small_to_pack_into_grows_the_wide_table_instead() {
        let key = |i: u128| i.wrapping_mul(0x2545_F491_4F6C_DD1D_9E37_79B9_7F4A_7C15) | 1;
        // Doubling 2^23 wide slots (128 MiB) would pack into 2^24 (192 MiB): 180 MiB holds
        // fewer packed slots than that, but more wide ones than now.
        let budget = 180 << 20;
        let mut set = FingerprintSet::new(budget);
        let inserted = (0..100_000_000u128).take_while(|&i| set.insert(key(i)).is_ok()).count();
        assert!(set.packing.is_none() && set.capacity > PACKED_12.min_capacity() / 2 * 17 / 16, "{}", set.capacity);
        assert!(set.peak_bytes() <= budget);
        assert_eq!(set.len(), inserted);
        assert_well_formed(&set);
        assert!((0..inserted as u128).all(|i| set.contains(key(i))));
    }

    /// Inserts into `set` until it is packed as `packing`, then checks what it keeps
    /// of a fingerprint: the high half and the packing's low bits, no other bit.
    fn check_a_packed_table_keeps_the_high_half_and_the_low_bits(mut set: FingerprintSet, packing: Packing) {
        let key = |i: u128| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1;
        let mut i = 0;
        while set.packing != Some(packing) {
            set.insert(key(i)).unwrap();
            i += 1;
        }
        let fp = key(i) & !(1 << 63);
        assert_eq!(set.insert(fp), Ok(true));
        // The same fingerprint but for bits low..63: one to a packed table.
        assert_eq!(set.insert(fp | (1 << 63)), Ok(false));
        assert_eq!(set.insert(fp ^ (1 << packing.low())), Ok(false));
        // Any other bit tells them apart.
        for bit in (0..packing.low()).chain(64..128) {
            assert!(!set.contains(fp ^ (1 << bit)), "{bit}");
        }
        // More fingerprints at one home than a packed slot can count the distance to
        // spill over, and are still found.
        let crowd = |j: u128| (fp & (u128::MAX << 64)) | (j << 1);
        let before = set.len();
        for j in 1..=(MAX_DISTANCE as u128 + 500) {
            assert_eq!(set.insert(crowd(j)), Ok(true), "{j}");
        }
        assert!(!set.overflow.is_empty());
        assert_eq!(set.len(), before + MAX_DISTANCE + 500);
        assert_well_formed(&set);
        assert!((1..=(MAX_DISTANCE as u128 + 500)).all(|j| set.contains(crowd(j)) && set.insert(crowd(j)) == Ok(false)));
        assert!(!set.contains(crowd(MAX_DISTANCE as u128 + 501)));
    }

    #[test]
    fn a_packed_table_keeps_the_high_half_and_the_low_43_bits() {
        check_a_packed_table_keeps_the_high_half_and_the_low_bits(FingerprintSet::new(1 << 30), PACKED_12);
    }

    #[test]
    fn a_densely_packed_table_keeps_the_high_half_and_the_low_bits_of_its_packing() {
        let set = FingerprintSet::with_packings(1 << 30, SMALL_PACKINGS);
        check_a_packed_table_keeps_the_high_half_and_the_low_bits(set, SMALL_PACKINGS[1]);
    }
}

//! The visited-position store: 128-bit fingerprints in an open-addressing table under a byte budget.

mod packing;

use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::time::Instant;

use crate::slots::{footprint, slots_within, Slots};

use packing::{keep, packed_bits, slot_bytes, slots_in, unpack, words, Packing, MAX_DISTANCE, PACKED_10, PACKED_12};

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
pub(crate) const SLOT: usize = std::mem::size_of::<u128>();
/// A table grows when more than 14/16 of its home slots would be full; one that its
/// budget keeps from growing fills on to 15/16.
const GROW_PAST: usize = 14;
const FILL_TO: usize = 15;
/// The most of a budget kept back from the last growth for the overflow list.
const OVERFLOW_ROOM: usize = 1 << 20;
/// The first word of a table written out (`write_to`): "fcastor" and a format number.
const WRITTEN_TABLE: u64 = u64::from_le_bytes(*b"fcastor1");
/// Growing by less than a sixteenth is not worth a pass over the table.
const MIN_GROWTH_SIXTEENTHS: usize = 17;

/// floor(2^64 / capacity), which `unpack` takes: computed once a growth, not a slot.
fn width_of(capacity: usize) -> u64 {
    ((1u128 << 64) / capacity as u128) as u64
}

/// The bytes an overflow set of `capacity` takes (a hash table's buckets and a control
/// byte each, at most 7/8 of them full).
fn overflow_bytes(capacity: usize) -> usize {
    (capacity.saturating_mul(8) / 7).saturating_mul(SLOT + 1)
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

    /// Writes the table as it is, slot for slot, for `read_from` to give back the same
    /// set: a layered proof stopped inside a bucket keeps its store so, to go on from it.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        let packing = self.packing.map_or(0, |p| (p.bytes as u64) << 8 | u64::from(p.from));
        let header = [WRITTEN_TABLE, self.capacity as u64, packing, self.len as u64, self.slots.len() as u64];
        for word in header.into_iter().chain([self.overflow.len() as u64]) {
            out.write_all(&word.to_le_bytes())?;
        }
        out.write_all(self.slots.as_bytes())?;
        for fp in &self.overflow {
            out.write_all(&fp.to_le_bytes())?;
        }
        Ok(())
    }

    /// The set `write_to` wrote, as a table that may grow within `max_bytes`; Ok(None)
    /// if it does not fit in `max_bytes`. What it reads is checked for the table's shape
    /// (never trusted to size an allocation), not for what the slots hold: the files of a
    /// kept proof are checksummed and sealed (spill::checkpoint).
    pub fn read_from(input: &mut impl Read, max_bytes: usize) -> io::Result<Option<FingerprintSet>> {
        Self::read_packed(input, max_bytes, [PACKED_12, PACKED_10])
    }

    fn read_packed(
        input: &mut impl Read,
        max_bytes: usize,
        packings: [Packing; 2],
    ) -> io::Result<Option<FingerprintSet>> {
        fn bad(what: &str) -> io::Error {
            io::Error::new(io::ErrorKind::InvalidData, format!("a kept store {what}"))
        }
        let mut header = [0u64; 6];
        for word in &mut header {
            let mut bytes = [0u8; 8];
            input.read_exact(&mut bytes)?;
            *word = u64::from_le_bytes(bytes);
        }
        let [magic, capacity, packing, len, words_held, overflow] =
            header.map(|w| usize::try_from(w).unwrap_or(usize::MAX));
        if magic as u64 != WRITTEN_TABLE {
            return Err(bad("is not one"));
        }
        let mut set = FingerprintSet::with_packings(max_bytes, packings);
        let packing = match packing {
            0 => None,
            bits => Some(
                *set.packings
                    .iter()
                    .find(|p| (p.bytes << 8 | p.from as usize) == bits)
                    .ok_or_else(|| bad("is packed in a way no table is"))?,
            ),
        };
        // A packed slot gives its fingerprint back only in a table of its packing's range.
        let in_range = packing.is_none_or(|p| (p.min_capacity()..=p.max_capacity()).contains(&capacity));
        if capacity < INITIAL_CAPACITY || !in_range {
            return Err(bad("has a capacity no table has"));
        }
        // Header words are read as they are, so every sum over them is checked: a damaged
        // one must give an error, never an overflow.
        let slots = capacity.checked_add(TAIL).filter(|&s| s <= usize::MAX / SLOT);
        let counts_add_up = slots.is_some_and(|slots| {
            words_held >= words(slots, packing)
                && slots.checked_add(overflow).is_some_and(|most| len <= most)
                && overflow <= len
        });
        if !counts_add_up {
            return Err(bad("has counts that do not add up"));
        }
        let bytes = footprint(words_held).saturating_add(overflow_bytes(overflow));
        if words_held > max_bytes / SLOT || bytes > max_bytes {
            return Ok(None);
        }
        if words_held > set.slots.len() && !set.slots.grow(words_held) {
            return Ok(None);
        }
        input.read_exact(set.slots.as_bytes_mut())?;
        set.overflow.reserve(overflow);
        for _ in 0..overflow {
            let mut bytes = [0u8; SLOT];
            input.read_exact(&mut bytes)?;
            set.overflow.insert(u128::from_le_bytes(bytes));
        }
        if set.overflow.len() != overflow {
            return Err(bad("holds a fingerprint twice"));
        }
        set.capacity = capacity;
        set.packing = packing;
        set.len = len;
        set.peak = set.bytes();
        Ok(Some(set))
    }
}

#[cfg(test)]
mod tests;

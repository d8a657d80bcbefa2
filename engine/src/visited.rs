//! The visited-position store: 128-bit fingerprints in an open-addressing table under a byte budget.

use crate::slots::{footprint, slots_within, Slots};

/// A set of nonzero 128-bit fingerprints (16 bytes a slot, linear probing, at most 7/8 full).
///
/// Fingerprints are already uniformly mixed: a fingerprint's home slot is its high 64
/// bits scaled to the table's size, so homes keep the fingerprints' order at any size.
/// That lets the table grow in place, and to any size: first by doubling, and at the
/// end by whatever the budget has left, rather than stopping at a power of two.
pub struct FingerprintSet {
    /// `capacity` home slots, then TAIL more that probes run on into (they never wrap).
    slots: Slots,
    capacity: usize,
    /// Fingerprints whose probe ran past the last slot: in practice never any, as that
    /// takes a run of TAIL full slots; they keep the set exact if it happens.
    overflow: Vec<u128>,
    len: usize,
    max_bytes: usize,
    /// Bytes held by whatever else shares the budget (a search's path, other tables),
    /// as its owner last said: growth must leave room for them too.
    others: usize,
    /// The most this table and the others have held together, the moment of growth
    /// included.
    peak: usize,
}

/// The store would need more memory than its budget allows.
#[derive(Debug, PartialEq, Eq)]
pub struct OutOfMemory;

const EMPTY: u128 = 0;
const INITIAL_CAPACITY: usize = 1 << 12;
const TAIL: usize = 1 << 10;
const SLOT: usize = std::mem::size_of::<u128>();
/// Growing by less than a sixteenth is not worth a pass over the table.
const MIN_GROWTH_SIXTEENTHS: usize = 17;

impl FingerprintSet {
    pub fn new(max_bytes: usize) -> FingerprintSet {
        let slots = Slots::zeroed(INITIAL_CAPACITY + TAIL);
        let peak = slots.bytes();
        FingerprintSet { slots, capacity: INITIAL_CAPACITY, overflow: vec![], len: 0, max_bytes, others: 0, peak }
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
        self.slots.bytes() + self.overflow.len() * SLOT
    }

    #[inline]
    fn home(fp: u128, capacity: usize) -> usize {
        ((u128::from((fp >> 64) as u64) * capacity as u128) >> 64) as usize
    }

    /// Adds `fp`; true if it was new. Err when growing would pass the byte budget.
    #[inline]
    pub fn insert(&mut self, fp: u128) -> Result<bool, OutOfMemory> {
        // 0 marks an empty slot; remapping it to 1 merges two fingerprints, a 2^-128 event
        // already inside the collision bound.
        let fp = if fp == EMPTY { 1 } else { fp };
        if (self.len + 1) * 8 > self.capacity * 7 {
            if self.contains(fp) {
                return Ok(false);
            }
            self.grow()?;
        }
        Ok(self.place(fp))
    }

    /// Puts `fp` in the first empty slot from its home on, unless it is already there.
    #[inline]
    fn place(&mut self, fp: u128) -> bool {
        let mut i = Self::home(fp, self.capacity);
        while i < self.slots.len() {
            let slot = self.slots[i];
            if slot == fp {
                return false;
            }
            if slot == EMPTY {
                self.slots[i] = fp;
                self.len += 1;
                return true;
            }
            i += 1;
        }
        if self.overflow.contains(&fp) {
            return false;
        }
        self.overflow.push(fp);
        self.len += 1;
        true
    }

    /// Asks for the cache line where a search for `fp` starts, without waiting for it:
    /// issued as soon as a child's fingerprint is known, the trip to memory overlaps
    /// the work on the children after it, where a probe would wait for each in turn.
    #[inline]
    pub fn prefetch(&self, fp: u128) {
        let slot: *const u128 = &self.slots[Self::home(fp, self.capacity)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint; it never faults, and `slot` is in bounds.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Makes room for `more` insertions by `insert_reserved`, growing now if need be.
    pub fn reserve(&mut self, more: usize) -> Result<(), OutOfMemory> {
        while (self.len + more) * 8 > self.capacity * 7 {
            self.grow()?;
        }
        Ok(())
    }

    /// Adds `fp` without growing, into room made by `reserve`; true if it was new. It
    /// cannot fail: were the room short, the table would only be fuller (and the
    /// overflow list catches a probe that runs off the end), never wrong.
    #[inline]
    pub fn insert_reserved(&mut self, fp: u128) -> bool {
        debug_assert!((self.len + 1) * 8 <= self.capacity * 7, "insert_reserved without reserve");
        self.place(if fp == EMPTY { 1 } else { fp })
    }

    pub fn contains(&self, fp: u128) -> bool {
        let fp = if fp == EMPTY { 1 } else { fp };
        for &slot in &self.slots[Self::home(fp, self.capacity)..] {
            if slot == fp {
                return true;
            }
            if slot == EMPTY {
                return false;
            }
        }
        self.overflow.contains(&fp)
    }

    /// The old table's bytes held beside the new one while growing: a table on the heap
    /// may be copied, a mapped one is moved (slots.rs).
    fn copied_bytes(&self) -> usize {
        self.slots.copied_when_growing()
    }

    /// The bytes held while growing to `capacity`.
    fn bytes_growing_to(&self, capacity: usize) -> usize {
        footprint(capacity + TAIL) + self.copied_bytes()
    }

    /// Grows the table in place: to twice its size, or if the budget (with what the
    /// rest of the search holds) does not allow that, to as much as it does allow.
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        let room = self.max_bytes.saturating_sub(self.others);
        let mut capacity = self.capacity * 2;
        if self.bytes_growing_to(capacity) > room {
            // The largest table that fits, whole slots of 64 (a cache line is 4 slots),
            // beside the old table if that is copied rather than moved, in whole huge
            // pages if it is mapped.
            capacity = slots_within(room.saturating_sub(self.copied_bytes())).saturating_sub(TAIL) & !63;
            if capacity * 16 < self.capacity * MIN_GROWTH_SIXTEENTHS {
                return Err(OutOfMemory);
            }
        }
        self.peak = self.peak.max(self.bytes_growing_to(capacity) + self.others);
        let old_slots = self.slots.len();
        if !self.slots.grow(capacity + TAIL) {
            return Err(OutOfMemory);
        }
        self.capacity = capacity;
        let mut moved_last = std::mem::take(&mut self.overflow);
        // From the last slot down, each fingerprint moves to the first empty slot from its
        // new home on. Homes only move up as the table grows, and every slot above the
        // one being moved holds only fingerprints already moved: no fingerprint not yet
        // moved is overwritten, and none lands where a later one would block its probe.
        // The few whose new home lies below their old slot (near the start, where a
        // probe ran further than the home's index) are put in at the end, like new ones.
        for p in (0..old_slots).rev() {
            let fp = self.slots[p];
            if fp == EMPTY {
                continue;
            }
            self.slots[p] = EMPTY;
            let home = Self::home(fp, capacity);
            if home < p {
                moved_last.push(fp);
                continue;
            }
            match self.slots[home..].iter().position(|&s| s == EMPTY) {
                Some(k) => self.slots[home + k] = fp,
                None => moved_last.push(fp),
            }
        }
        self.len -= moved_last.len();
        for fp in moved_last {
            self.place(fp);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(inserted * 8 >= capacity * 7 - 8, "filled to 7/8 before giving up: {inserted} of {capacity}");
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
}

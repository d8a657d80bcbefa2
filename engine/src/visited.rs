//! The visited-position store: 128-bit fingerprints in an open-addressing table under a byte budget.

/// A set of nonzero 128-bit fingerprints (16 bytes a slot, linear probing, at most 7/8 full).
///
/// Fingerprints are already uniformly mixed, so their low bits index the table directly.
pub struct FingerprintSet {
    slots: Vec<u128>,
    len: usize,
    max_bytes: usize,
    /// Bytes held by whatever else shares the budget (a search's path, other tables),
    /// as its owner last said: growth must leave room for them too.
    others: usize,
    /// The most this table and the others have held together, the moment of growth
    /// (when the old and the new table both exist) included.
    peak: usize,
}

/// The store would need more memory than its budget allows.
#[derive(Debug, PartialEq, Eq)]
pub struct OutOfMemory;

const EMPTY: u128 = 0;
const INITIAL_SLOTS: usize = 1 << 12;

impl FingerprintSet {
    pub fn new(max_bytes: usize) -> FingerprintSet {
        let slots = vec![EMPTY; INITIAL_SLOTS];
        let peak = slots.len() * std::mem::size_of::<u128>();
        FingerprintSet { slots, len: 0, max_bytes, others: 0, peak }
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
        self.slots.len() * std::mem::size_of::<u128>()
    }

    /// Adds `fp`; true if it was new. Err when growing would pass the byte budget.
    #[inline]
    pub fn insert(&mut self, fp: u128) -> Result<bool, OutOfMemory> {
        // 0 marks an empty slot; remapping it to 1 merges two fingerprints, a 2^-128 event
        // already inside the collision bound.
        let fp = if fp == EMPTY { 1 } else { fp };
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.grow()?;
        }
        let mask = self.slots.len() - 1;
        let mut i = (fp as usize) & mask;
        loop {
            let slot = self.slots[i];
            if slot == fp {
                return Ok(false);
            }
            if slot == EMPTY {
                self.slots[i] = fp;
                self.len += 1;
                return Ok(true);
            }
            i = (i + 1) & mask;
        }
    }

    /// Reads the slot where a search for `fp` starts, so that its cache line is on its
    /// way before `contains` needs it: loads for several fingerprints issued one after
    /// another overlap their trips to memory, where a probe after each would wait for each.
    #[inline]
    pub fn warm(&self, fp: u128) -> u128 {
        self.slots[(fp as usize) & (self.slots.len() - 1)]
    }

    pub fn contains(&self, fp: u128) -> bool {
        let fp = if fp == EMPTY { 1 } else { fp };
        let mask = self.slots.len() - 1;
        let mut i = (fp as usize) & mask;
        loop {
            match self.slots[i] {
                EMPTY => return false,
                s if s == fp => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Doubles the table. While rehashing both tables exist, so both count against the
    /// budget, with what the rest of the search holds.
    fn grow(&mut self) -> Result<(), OutOfMemory> {
        let new_len = self.slots.len() * 2;
        let during = (new_len + self.slots.len()) * std::mem::size_of::<u128>() + self.others;
        if during > self.max_bytes {
            return Err(OutOfMemory);
        }
        self.peak = self.peak.max(during);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; new_len]);
        let mask = new_len - 1;
        for fp in old.into_iter().filter(|&s| s != EMPTY) {
            let mut i = (fp as usize) & mask;
            while self.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = fp;
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
        assert!(set.bytes() <= 16 * 2 * 131_072 * 2);
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
        // The last growth had the old table and the new one at once: half again the table.
        assert_eq!(alone.peak_bytes(), alone.bytes() * 3 / 2);
    }
}

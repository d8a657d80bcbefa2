//! The visited-position store's tests: every fingerprint kept across growth and packing, within budget.

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
    assert!(set.overflow.iter().all(|&o| matches!(set.probe(o, FingerprintSet::home(o, set.capacity)), Probe::Full)));
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

#[test]
fn a_table_written_out_reads_back_as_the_same_set_wide_or_packed_and_grows_on() {
    let key = |i: u128| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) ^ (i << 100)) | 1;
    let crowd = |i: u128| (u128::from(u64::MAX) << 64) | (i + 1);
    let budget = 9 << 20;
    for packed in [false, true] {
        let mut set = FingerprintSet::with_packings(budget, SMALL_PACKINGS);
        // A run past the last slot, so that the overflow list is written too.
        for i in 0..(TAIL as u128 + 100) {
            assert_eq!(set.insert(crowd(i)), Ok(true));
        }
        // Wide: 8,192 slots; packed: more than 2^14 (SMALL_PACKINGS).
        let inserted = if packed { 20_000 } else { 3_000 };
        for i in 0..inserted {
            assert_eq!(set.insert(key(i)), Ok(true));
        }
        assert_eq!(set.packing.is_some(), packed);
        assert!(!set.overflow.is_empty());
        let mut bytes = vec![];
        set.write_to(&mut bytes).unwrap();
        let mut back = FingerprintSet::read_packed(&mut bytes.as_slice(), budget, SMALL_PACKINGS).unwrap().unwrap();
        assert_well_formed(&back);
        assert_eq!((back.len(), back.capacity, back.packing), (set.len(), set.capacity, set.packing));
        assert!(
            (0..inserted).all(|i| back.contains(key(i))) && (0..TAIL as u128 + 100).all(|i| back.contains(crowd(i)))
        );
        assert!((inserted + 1..inserted + 100_000).all(|i| !back.contains(key(i))));
        // It grows on as the table written would have, keeping every fingerprint.
        let more = (inserted..inserted + 50_000).take_while(|&i| back.insert(key(i)).is_ok()).count() as u128;
        assert_well_formed(&back);
        assert!((0..inserted + more).all(|i| back.contains(key(i))));
        // Too big for a smaller budget: not read (Ok(None)), never past it.
        assert!(FingerprintSet::read_packed(&mut bytes.as_slice(), set.bytes() / 2, SMALL_PACKINGS).unwrap().is_none());
        // Cut short or with a wrong first word: an error, never a panic or a set.
        assert!(FingerprintSet::read_packed(&mut &bytes[..bytes.len() - 1], budget, SMALL_PACKINGS).is_err());
        let mut forged = bytes.clone();
        forged[0] ^= 1;
        assert!(FingerprintSet::read_packed(&mut forged.as_slice(), budget, SMALL_PACKINGS).is_err());
        // Counts that cannot be: an error, whatever the slots hold.
        let mut forged = bytes.clone();
        forged[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(FingerprintSet::read_packed(&mut forged.as_slice(), budget, SMALL_PACKINGS).is_err());
        // Any header word at its largest (capacity, packing, length, words held, overflow):
        // never a panic or a set, however the sums over it would overflow.
        for (word, huge) in (1..6).flat_map(|w| [(w, u64::MAX), (w, u64::MAX - 1), (w, 1 << 63)]) {
            let mut forged = bytes.clone();
            forged[8 * word..8 * word + 8].copy_from_slice(&huge.to_le_bytes());
            let read = FingerprintSet::read_packed(&mut forged.as_slice(), budget, SMALL_PACKINGS);
            assert!(!matches!(read, Ok(Some(_))), "header word {word} at {huge} read as a set");
        }
    }
}

//! The visited set's slots: a heap vector while small, then (on Linux) a mapping of its own backed by 2 MiB pages.
//!
//! Every probe of the visited set lands on a random slot of a table of up to gigabytes.
//! With 4 KiB pages nearly every probe also misses the TLB and walks the page tables,
//! itself a trip to memory (two in a virtual machine); a 2 MiB page covers 512 times
//! as much. The kernel's transparent huge pages back a region with them when asked
//! (`madvise`) and when the region's 2 MiB boundaries are those of its pages, so a large
//! table gets a mapping of its own that starts on such a boundary, and grows by moving
//! that mapping whole to another boundary (`mremap`), which moves its pages without
//! copying or splitting them. Either way growth never holds the old table beside a copy,
//! and the bytes a table holds are its mapping's, rounded up to whole huge pages.
//! Where the kernel has no transparent huge pages the same mapping is simply backed by
//! small pages.

/// Tables from this size on are mapped; smaller ones (every quick pass has one) stay on
/// the heap, where making one costs no system call.
pub const MAPPED_FROM: usize = 8 << 20;
/// The huge page size mappings are aligned and sized to.
const HUGE_PAGE: usize = 2 << 20;
const SLOT: usize = std::mem::size_of::<u128>();

/// Zeroed slots that can grow, keeping what they hold.
pub enum Slots {
    Heap(Vec<u128>),
    #[cfg(target_os = "linux")]
    Mapped(mapped::Region),
}

/// The bytes `slots` slots take once grown to that many: mapped tables take whole huge pages.
pub fn footprint(slots: usize) -> usize {
    let bytes = slots.saturating_mul(SLOT);
    if cfg!(target_os = "linux") && bytes >= MAPPED_FROM {
        bytes.checked_next_multiple_of(HUGE_PAGE).unwrap_or(usize::MAX)
    } else {
        bytes
    }
}

/// The most slots whose footprint fits in `bytes`.
pub fn slots_within(bytes: usize) -> usize {
    let slots = bytes / SLOT;
    if footprint(slots) > bytes {
        bytes / HUGE_PAGE * HUGE_PAGE / SLOT
    } else {
        slots
    }
}

impl Slots {
    pub fn zeroed(len: usize) -> Slots {
        Slots::Heap(vec![0; len])
    }

    /// The bytes held beside the grown slots while they grow: a heap vector may be
    /// copied, a mapping is moved.
    pub fn copied_when_growing(&self) -> usize {
        match self {
            Slots::Heap(_) => self.bytes(),
            #[cfg(target_os = "linux")]
            Slots::Mapped(_) => 0,
        }
    }

    /// The bytes held.
    pub fn bytes(&self) -> usize {
        match self {
            Slots::Heap(v) => v.capacity() * SLOT,
            #[cfg(target_os = "linux")]
            Slots::Mapped(r) => r.bytes(),
        }
    }

    /// Grows to `len` slots, the new ones zero; false (and unchanged) if the memory
    /// cannot be had.
    pub fn grow(&mut self, len: usize) -> bool {
        assert!(len >= self.len(), "slots only grow");
        let Some(bytes) = len.checked_mul(SLOT) else { return false };
        #[cfg(target_os = "linux")]
        if bytes >= MAPPED_FROM {
            return match self {
                Slots::Mapped(r) => r.grow(len),
                Slots::Heap(v) => match mapped::Region::new(len) {
                    Some(mut r) => {
                        r[..v.len()].copy_from_slice(v);
                        *self = Slots::Mapped(r);
                        true
                    }
                    None => false,
                },
            };
        }
        match self {
            Slots::Heap(v) => {
                v.reserve_exact(len - v.len());
                v.resize(len, 0);
                true
            }
            #[cfg(target_os = "linux")]
            Slots::Mapped(r) => r.grow(len),
        }
    }
}

impl Slots {
    /// The slots' bytes, for tables that pack several fingerprints' bits into fewer words.
    pub fn as_bytes(&self) -> &[u8] {
        let words: &[u128] = self;
        // SAFETY: any 16 initialised bytes are 16 valid u8s, and u8 needs no alignment.
        unsafe { std::slice::from_raw_parts(words.as_ptr().cast(), std::mem::size_of_val(words)) }
    }

    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        let words: &mut [u128] = self;
        // SAFETY: as for as_bytes; any bytes written make valid u128s.
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast(), std::mem::size_of_val(words)) }
    }
}

impl std::ops::Deref for Slots {
    type Target = [u128];
    fn deref(&self) -> &[u128] {
        match self {
            Slots::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Slots::Mapped(r) => r,
        }
    }
}

impl std::ops::DerefMut for Slots {
    fn deref_mut(&mut self) -> &mut [u128] {
        match self {
            Slots::Heap(v) => v,
            #[cfg(target_os = "linux")]
            Slots::Mapped(r) => r,
        }
    }
}

#[cfg(target_os = "linux")]
mod mapped {
    use super::{HUGE_PAGE, SLOT};
    use libc::{c_void, MADV_HUGEPAGE, MAP_ANONYMOUS, MAP_FAILED, MAP_NORESERVE, MAP_PRIVATE};
    use libc::{MREMAP_FIXED, MREMAP_MAYMOVE, PROT_NONE, PROT_READ, PROT_WRITE};

    /// Anonymous memory mapped at a huge-page boundary, a whole number of huge pages
    /// long, of which the first `len` slots are in use (the rest are zero).
    pub struct Region {
        ptr: *mut u128,
        bytes: usize,
        len: usize,
    }

    // SAFETY: a Region owns its mapping outright, as a Vec owns its buffer, and hands
    // out access to it only through &self and &mut self.
    unsafe impl Send for Region {}
    unsafe impl Sync for Region {}

    /// Reserves `bytes` (a multiple of HUGE_PAGE) of address space at a huge-page
    /// boundary: a mapping one huge page longer, trimmed at both ends. Nothing is
    /// backed until written (MAP_NORESERVE: the budget, not the kernel's overcommit
    /// accounting, is what limits the table). `prot` is PROT_NONE for a place the
    /// table will be moved to (it keeps its own protection, and an inaccessible
    /// mapping is charged nothing even under strict overcommit).
    fn reserve(bytes: usize, prot: i32) -> Option<*mut c_void> {
        let span = bytes.checked_add(HUGE_PAGE)?;
        // SAFETY: a fresh anonymous mapping at an address the kernel picks; the parts
        // unmapped are inside it and unused.
        unsafe {
            let raw = libc::mmap(std::ptr::null_mut(), span, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if raw == MAP_FAILED {
                return None;
            }
            let start = raw as usize;
            let aligned = start.next_multiple_of(HUGE_PAGE);
            if aligned > start {
                libc::munmap(raw, aligned - start);
            }
            let end = aligned + bytes;
            if start + span > end {
                libc::munmap(end as *mut c_void, start + span - end);
            }
            Some(aligned as *mut c_void)
        }
    }

    fn ask_for_huge_pages(at: *mut c_void, bytes: usize) {
        // SAFETY: advice on a range of our own mapping; it changes how pages are backed,
        // never what they hold. A refusal (no transparent huge pages) is harmless.
        unsafe {
            libc::madvise(at, bytes, MADV_HUGEPAGE);
        }
    }

    impl Region {
        pub fn new(len: usize) -> Option<Region> {
            let bytes = len.checked_mul(SLOT)?.checked_next_multiple_of(HUGE_PAGE)?;
            let at = reserve(bytes, PROT_READ | PROT_WRITE)?;
            ask_for_huge_pages(at, bytes);
            Some(Region { ptr: at.cast(), bytes, len })
        }

        pub fn bytes(&self) -> usize {
            self.bytes
        }

        /// Grows to `len` slots: within the mapping if it is long enough, else by moving
        /// the whole mapping (its pages, not copies of them) to the start of a longer
        /// one at another huge-page boundary. False, and unchanged, if that fails.
        pub fn grow(&mut self, len: usize) -> bool {
            let Some(bytes) = len.checked_mul(SLOT).and_then(|b| b.checked_next_multiple_of(HUGE_PAGE)) else {
                return false;
            };
            if bytes > self.bytes {
                let Some(at) = reserve(bytes, PROT_NONE) else { return false };
                // SAFETY: moves our whole mapping onto the reservation just made (which
                // MREMAP_FIXED replaces), keeping its protection and its huge-page
                // advice; the part beyond the old length is new, zeroed memory. On
                // failure the old mapping is untouched. The reservation is then left
                // as it is, not unmapped: the kernel may already have unmapped it, and
                // another thread may have mapped something there since. It costs
                // address space only (PROT_NONE, never touched), and the search it
                // belongs to ends here, out of memory.
                unsafe {
                    let moved = libc::mremap(self.ptr.cast(), self.bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, at);
                    if moved == MAP_FAILED {
                        return false;
                    }
                    self.ptr = moved.cast();
                }
                self.bytes = bytes;
            }
            self.len = len;
            true
        }
    }

    impl Drop for Region {
        fn drop(&mut self) {
            // SAFETY: the mapping is ours and nothing refers to it any more.
            unsafe {
                libc::munmap(self.ptr.cast(), self.bytes);
            }
        }
    }

    impl std::ops::Deref for Region {
        type Target = [u128];
        fn deref(&self) -> &[u128] {
            // SAFETY: `len` slots lie inside the mapping, which is readable, aligned
            // (a huge-page boundary) and zero where never written.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }

    impl std::ops::DerefMut for Region {
        fn deref_mut(&mut self) -> &mut [u128] {
            // SAFETY: as for deref; `&mut self` makes the access exclusive.
            unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_keep_their_contents_and_new_ones_are_zero_across_every_kind_of_growth() {
        let small = 1024;
        let mut slots = Slots::zeroed(small);
        for (i, s) in slots.iter_mut().enumerate() {
            *s = i as u128 + 1;
        }
        // From the heap to a mapping, within the mapping, and to a longer mapping.
        let sizes = [MAPPED_FROM / SLOT + 7, MAPPED_FROM / SLOT + 100, 3 * MAPPED_FROM / SLOT];
        let mut filled = small;
        for len in sizes {
            assert!(slots.grow(len));
            assert_eq!(slots.len(), len);
            assert!((0..filled).all(|i| slots[i] == i as u128 + 1));
            assert!(slots[filled..].iter().all(|&s| s == 0));
            for i in filled..len {
                slots[i] = i as u128 + 1;
            }
            filled = len;
            assert!(slots.bytes() >= len * SLOT && slots.bytes() <= footprint(len));
        }
    }
}

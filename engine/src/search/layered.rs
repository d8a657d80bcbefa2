//! The layered proof: a loss too big for memory, proved one class of positions at a time, later classes' entries kept on disk.
//!
//! No move makes a position "younger": without take-back, cards home never come back,
//! and no move ever puts a card on one it does not fit (a card lands on a card it may
//! be built on, in an empty column, or in a cell), so a pair of cards out of order in
//! a column, once parted, is never made again. So every position has a *level*, the
//! cards home plus the out-of-order pairs parted since the start, that no move lowers;
//! and a *class*, the cards home in each suit with the out-of-order pairs still whole
//! in each column, that every move either keeps or changes while raising the level.
//! (Under take-back, cards come back from home: level and class leave the foundations
//! out.) A class's positions are reached only from its own positions and from lower
//! levels, so the classes can be searched one after another, lowest level first, each
//! from the positions that lower levels enter it by (its *entries*), with a store
//! that holds that one class: the classes searched before are forgotten. The entries
//! wait on disk, in a file for each level and bucket of classes, as they are met.
//! docs/correctness.md ("The layered proof") argues that this visits every position
//! the plain exhaustive pass visits.
//!
//! It only proves losses: it keeps no path, so a win it meets leaves the job unknown.
//!
//! A proof that a budget stops (time, nodes, memory, disk or Ctrl-C) is *kept*: its
//! files stay in the spill directory, under a name made from its job, with a
//! checkpoint that says what it had done. The next proof of the same job there goes
//! on from it, searching again from all its entries the bucket it was in when it
//! stopped; so hours of proof can be spread over several runs.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::position::{Place, Played, Position, MAX_HEIGHT};
use crate::variant::Variant;

use super::depth_first::DepthFirstSearch;
use super::frontier::{self, frontier, Stopped};
use super::meter::Meter;
use super::{Limit, Pass, Status};

/// Where a layered proof keeps its entries, and how much disk it may fill.
#[derive(Clone, Debug)]
pub struct Spill {
    /// A directory of its own is made inside, and removed when the proof ends, unless
    /// it is kept to go on from (see the module's comment).
    pub dir: PathBuf,
    pub max_bytes: u64,
    /// Bytes that must stay free on the directory's filesystem, whoever fills it: two
    /// proofs side by side, proofs kept from earlier jobs, or anything else. The proof
    /// stops (`Limit::Disk`) when the free space falls below this. 0: not looked at.
    pub keep_free: u64,
}

/// Classes of a level share a file by a hash of their class: the store holds one
/// bucket at a time, so more buckets make it smaller (down to the largest class), at
/// the cost of more buffers and files. (With 16, 982 with 2 cells met a bucket of
/// several large classes that outgrew 9 GB.)
const BUCKETS: usize = 64;
/// Each file writes through a buffer this big at most; all of them together hold at
/// most a sixteenth of the memory budget, and MAX_BUFFERED (a proof has thousands
/// waiting at once).
const FILE_BUFFER: usize = 16 << 10;
/// The free space on the spill directory's filesystem is looked at again after this
/// many bytes written (a `statvfs` call costs about a microsecond; this is every few
/// seconds of a proof). So a proof passes `Spill::keep_free` by this much at most.
const FREE_CHECK_BYTES: u64 = 16 << 20;
/// Past this, more buffering saves few writes: the memory goes to the store instead.
const MAX_BUFFERED: usize = 256 << 20;
/// The fingerprints of entries written lately, so that an entry met again (most are
/// met two or three times, soon after one another) is not written again: at most this
/// many, and at most an eighth of the memory budget.
const WRITTEN_CACHE: usize = 1 << 22;
/// Bumped whenever entries, levels or buckets change meaning: a kept proof written
/// under another format is not gone on from.
const FORMAT: &str = "fcanalyze layered proof 1";
/// The file that makes a kept proof's directory one to go on from. Written last,
/// once every entry is in its file, and removed first when a proof goes on from it:
/// a directory without it (a proof that crashed, or one running) is never used.
const CHECKPOINT: &str = "checkpoint";
#[cfg(test)]
thread_local! {
    /// Tests set this to search every bucket breadth first (`frontier`), as if each had
    /// outgrown memory, on the thread that sets it.
    pub(crate) static BREADTH_FIRST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn breadth_first_always() -> bool {
    #[cfg(test)]
    return BREADTH_FIRST.get();
    #[cfg(not(test))]
    false
}

/// A cell holding no card, in an entry.
const EMPTY_CELL: u32 = 63;

/// Entries in a few bytes each: the cards home, the cells, and for each column how
/// many of the start's cards are still at its foot and what lies on them. A card
/// placed on a column lies on one it fits, which has two such cards at most (one under
/// same-suit building), so each is written as a bit, but for one put in an empty
/// column, written in full. (A column that breaks this rule, which no move makes, is
/// written card by card: the encoding never depends on it.)
pub(super) struct Codec {
    start: Vec<Vec<u8>>,
    /// For each column, the out-of-order pairs among its first k start cards, k = 0..=len.
    unnatural: Vec<Vec<u8>>,
    /// The out-of-order pairs of the start.
    start_unnatural: usize,
    takeback: bool,
}

impl Codec {
    pub(super) fn new(start: &Position, rules: &Variant) -> Codec {
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
    pub(super) fn level(&self, s: &Position, rules: &Variant) -> usize {
        let unnatural: usize =
            (0..rules.columns).map(|i| s.column(i).windows(2).filter(|w| !rules.fits_number(w[1], w[0])).count()).sum();
        let home = if self.takeback { 0 } else { s.cards_home() };
        home + self.start_unnatural - unnatural
    }

    /// A hash of the class (see the module's comment), which picks the bucket.
    fn bucket(&self, s: &Position, rules: &Variant) -> usize {
        let mut h: u64 = if self.takeback { 0 } else { u64::from(u32::from_le_bytes(s.home())) };
        for i in 0..rules.columns {
            h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(self.unnatural[i][self.kept(s, i)]);
        }
        (crate::position::fmix64(h) % BUCKETS as u64) as usize
    }

    pub(super) fn encode(&self, s: &Position, rules: &Variant, out: &mut Vec<u8>) {
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

    /// Rebuilds into `out` the position `encode` wrote as `bytes`.
    pub(super) fn decode(&self, bytes: &[u8], rules: &Variant, out: &mut Position) {
        let mut r = BitReader::new(bytes);
        let mut home = [0u8; 4];
        for h in home.iter_mut() {
            *h = r.get(4) as u8;
        }
        out.reset_to(home);
        for slot in 0..rules.cells {
            match r.get(6) {
                EMPTY_CELL => {}
                c => out.set_cell_unchecked(slot, c as u8),
            }
        }
        for i in 0..rules.columns {
            let k = r.get(5) as usize;
            let n = r.get(5) as usize;
            for &c in &self.start[i][..k] {
                out.push_unchecked(i, c);
            }
            if n > 0 {
                let raw = r.get(1) == 1;
                for j in 0..n {
                    let c = if raw || (k == 0 && j == 0) {
                        r.get(6) as u8
                    } else {
                        let below = out.column(i)[k + j - 1];
                        rules.children(below)[r.get(1) as usize]
                    };
                    out.push_unchecked(i, c);
                }
            }
            debug_assert!(out.len(i) <= MAX_HEIGHT);
        }
        debug_assert!(
            {
                let cols: Vec<Vec<u8>> = (0..rules.columns).map(|i| out.column(i).to_vec()).collect();
                let cells: Vec<Option<u8>> = (0..rules.cells).map(|i| out.cell(i).map(|c| c.index())).collect();
                Position::new(rules, &cols, &cells, home).as_ref() == Ok(out)
            },
            "an entry this pass wrote decodes to a valid position"
        );
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
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> BitReader<'a> {
        BitReader { bytes, next: 0, acc: 0, n: 0 }
    }

    /// The next `width` bits (at most 32); past the end, zeros.
    fn get(&mut self, width: u32) -> u32 {
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
}

/// What the depth-first pass hands over when it meets a position of a higher level:
/// its level now, and where the entries go.
pub(super) struct Gate {
    pub(super) level: usize,
    pub(super) codec: Codec,
    dir: PathBuf,
    waiting: BTreeMap<(usize, usize), Waiting>,
    /// The level and bucket whose entries are being read.
    reading: (usize, usize),
    written: Vec<u128>,
    /// Bytes the waiting buffers hold, and the most they may.
    buffered: usize,
    max_buffered: usize,
    record: Vec<u8>,
    /// Bytes in files not yet read back, and the most there have been.
    disk: u64,
    pub(super) peak_disk: u64,
    max_disk: u64,
    keep_free: u64,
    /// Bytes written since the free space was last looked at (`room_on_disk`).
    since_free_check: u64,
    /// Why the last entry could not be written.
    pub(super) failed: Option<Limit>,
    /// Whether a file could not be written or read: entries may be lost, and the
    /// proof is not kept.
    broken: bool,
}

impl Gate {
    fn new(root: &Position, rules: &Variant, dir: PathBuf, spill: &Spill, max_memory: usize) -> Gate {
        let cache = WRITTEN_CACHE.min((max_memory / 8 / 16).next_power_of_two() / 2).max(1);
        Gate {
            level: 0,
            codec: Codec::new(root, rules),
            dir,
            waiting: BTreeMap::new(),
            reading: (0, 0),
            written: vec![0; cache],
            record: Vec::with_capacity(64),
            disk: 0,
            peak_disk: 0,
            max_disk: spill.max_bytes,
            keep_free: spill.keep_free,
            // The first write looks at once: kept proofs may have filled the disk already.
            since_free_check: FREE_CHECK_BYTES,
            buffered: 0,
            max_buffered: (max_memory / 16).clamp(FILE_BUFFER, MAX_BUFFERED),
            failed: None,
            broken: false,
        }
    }

    /// Puts `root` first in line, the proof's one entry so far.
    fn enqueue(&mut self, root: &Position, rules: &Variant) {
        let (level, bucket) = (self.codec.level(root, rules), self.codec.bucket(root, rules));
        let waiting = self.waiting.entry((level, bucket)).or_insert_with(|| Waiting { buffer: vec![], on_disk: false });
        self.codec.encode(root, rules, &mut waiting.buffer);
        self.disk += waiting.buffer.len() as u64;
    }

    /// Takes up the entry files of a kept proof, in this gate's directory.
    fn adopt(&mut self) -> io::Result<()> {
        for file in fs::read_dir(&self.dir)? {
            let file = file?;
            let name = file.file_name();
            let Some((level, bucket)) = name.to_str().and_then(parse_file_name) else { continue };
            self.waiting.insert((level, bucket), Waiting { buffer: vec![], on_disk: true });
            self.disk += file.metadata()?.len();
        }
        self.peak_disk = self.peak_disk.max(self.disk);
        Ok(())
    }

    /// A path in the proof's directory for a file of its own (none is named so by
    /// `file_name`, and a kept proof takes up only those).
    pub(super) fn scratch_file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Counts `bytes` more of files against the disk budget: false if that passes it.
    pub(super) fn hold_disk(&mut self, bytes: u64) -> bool {
        self.disk += bytes;
        self.peak_disk = self.peak_disk.max(self.disk);
        self.disk <= self.max_disk && self.room_on_disk(bytes)
    }

    /// Counts `bytes` written; false when the filesystem's free space, looked at every
    /// FREE_CHECK_BYTES written, has fallen below `keep_free`.
    fn room_on_disk(&mut self, bytes: u64) -> bool {
        self.since_free_check += bytes;
        if self.keep_free == 0 || self.since_free_check < FREE_CHECK_BYTES {
            return true;
        }
        self.since_free_check = 0;
        free_bytes(&self.dir).is_none_or(|free| free >= self.keep_free)
    }

    /// Counts `bytes` of files removed.
    pub(super) fn release_disk(&mut self, bytes: u64) {
        self.disk -= bytes.min(self.disk);
    }

    /// Every waiting buffer to its file.
    fn flush_all(&mut self) -> io::Result<()> {
        for (&(level, bucket), waiting) in &mut self.waiting {
            if !waiting.buffer.is_empty() {
                waiting.flush(&self.dir, level, bucket)?;
            }
            waiting.buffer = vec![];
        }
        self.buffered = 0;
        Ok(())
    }

    pub(super) fn bytes(&self) -> usize {
        self.written.len() * 16 + self.buffered
    }

    /// Whether `child`, which `played` made from `parent` (of this gate's level), lies
    /// on a higher level. Without take-back that is when a card went home or the card
    /// moved left one it does not fit (the moves after the first all go home, but for a
    /// loose card put back onto a card it fits on, `Position::loose_card_return`, which
    /// leaves the level as it is: it comes from a cell, or from a column it is alone
    /// in, and parts no pair); under take-back, when the count of out-of-order
    /// pairs fell.
    #[inline]
    pub(super) fn rises(&self, parent: &Position, child: &Position, played: &[Played], rules: &Variant) -> bool {
        if rules.takeback {
            return self.codec.level(child, rules) != self.level;
        }
        if played.iter().any(|p| p.m.to == Place::Home) {
            return true;
        }
        let first = played[0];
        if let Place::Column(i) = first.m.from {
            let col = parent.column(usize::from(i));
            let under = col.len() - usize::from(first.m.count);
            return under > 0 && !rules.fits_number(first.card.index(), col[under - 1]);
        }
        false
    }

    /// Writes `child` (fingerprint `fp`) to its level's file, unless written lately.
    pub(super) fn spill(&mut self, child: &Position, fp: u128, rules: &Variant) {
        let slot = (crate::position::fmix64(fp as u64) as usize) & (self.written.len() - 1);
        // An empty slot holds 0, which is also a real fingerprint (the won position's,
        // all cards home): that one is written every time.
        if (fp != 0 && self.written[slot] == fp) || self.failed.is_some() {
            return;
        }
        self.written[slot] = fp;
        let level = self.codec.level(child, rules);
        debug_assert!(level > self.level, "entries lie above the level searched");
        let bucket = self.codec.bucket(child, rules);
        self.record.clear();
        self.codec.encode(child, rules, &mut self.record);
        if !self.hold_disk(self.record.len() as u64) {
            self.failed = Some(Limit::Disk);
            return;
        }
        let waiting = self.waiting.entry((level, bucket)).or_insert_with(|| Waiting { buffer: vec![], on_disk: false });
        if waiting.buffer.len() + self.record.len() > FILE_BUFFER && waiting.flush(&self.dir, level, bucket).is_err() {
            self.failed = Some(Limit::Disk);
            self.broken = true;
        }
        let before = waiting.buffer.capacity();
        waiting.buffer.extend_from_slice(&self.record);
        self.buffered += waiting.buffer.capacity() - before;
        if self.buffered > self.max_buffered {
            // Every buffer to its file, and its memory back: the next entries of a level
            // and bucket start a small buffer again.
            if self.flush_all().is_err() {
                self.failed = Some(Limit::Disk);
                self.broken = true;
            }
        }
    }

    /// The entries of the lowest level and bucket that has some, to be read in turn.
    fn next_bucket(&mut self) -> Option<io::Result<(usize, Source)>> {
        let (&(level, bucket), _) = self.waiting.iter().next()?;
        let mut waiting = self.waiting.remove(&(level, bucket))?;
        self.reading = (level, bucket);
        self.disk -= (waiting.buffer.len() as u64).min(self.disk);
        self.buffered -= waiting.buffer.capacity().min(self.buffered);
        if !waiting.on_disk {
            return Some(Ok((level, Source::Memory(io::Cursor::new(waiting.buffer)))));
        }
        let opened = waiting.flush(&self.dir, level, bucket).and_then(|()| {
            let path = file_name(&self.dir, level, bucket);
            let file = File::open(&path)?;
            self.disk -= file.metadata()?.len().min(self.disk);
            Ok(Source::File(BufReader::with_capacity(FILE_BUFFER, file), path))
        });
        Some(opened.map(|source| (level, source)))
    }
}

/// The bytes an unprivileged process may still write on `dir`'s filesystem; None if
/// that cannot be told (then only the proof's own budget, `Spill::max_bytes`, holds).
#[cfg(unix)]
#[allow(clippy::unnecessary_cast)] // the fields' types differ between platforms
fn free_bytes(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs only writes the struct it is given, which is plain data.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

/// The entries waiting for one level and bucket: those written lately in a buffer,
/// the others (if the buffer ever filled) in a file.
struct Waiting {
    buffer: Vec<u8>,
    on_disk: bool,
}

impl Waiting {
    /// Appends the buffer to the file, which is opened for that alone: a proof has
    /// thousands of files waiting, more than a process may commonly hold open.
    fn flush(&mut self, dir: &Path, level: usize, bucket: usize) -> io::Result<()> {
        let path = file_name(dir, level, bucket);
        OpenOptions::new().create(true).append(true).open(path)?.write_all(&self.buffer)?;
        self.on_disk = true;
        self.buffer.clear();
        Ok(())
    }
}

/// Where the entries of the bucket being searched come from.
enum Source {
    Memory(io::Cursor<Vec<u8>>),
    /// The file, removed once read.
    File(BufReader<File>, PathBuf),
}

impl Source {
    /// Reads the next entry's record into `record`: false at the end.
    fn next_entry(&mut self, record: &mut Vec<u8>) -> io::Result<bool> {
        match self {
            Source::Memory(bytes) => next_entry(bytes, record),
            Source::File(file, _) => next_entry(file, record),
        }
    }

    /// Back to the first entry.
    fn rewind(&mut self) -> io::Result<()> {
        match self {
            Source::Memory(bytes) => bytes.set_position(0),
            Source::File(file, _) => {
                file.seek(SeekFrom::Start(0))?;
            }
        }
        Ok(())
    }
}

fn file_name(dir: &Path, level: usize, bucket: usize) -> PathBuf {
    dir.join(format!("level-{level:03}-{bucket:02}.entries"))
}

/// The level and bucket of an entry file's name (`file_name`'s).
fn parse_file_name(name: &str) -> Option<(usize, usize)> {
    let (level, bucket) = name.strip_prefix("level-")?.strip_suffix(".entries")?.split_once('-')?;
    Some((level.parse().ok()?, bucket.parse().ok()?))
}

/// What identifies a proof's job, so that a proof goes on only from a kept proof of the
/// same one: the format, the rules and the position it starts from (entries are
/// written against its columns).
fn job(root: &Position, rules: &Variant) -> String {
    let columns: Vec<&[u8]> = (0..rules.columns).map(|i| root.column(i)).collect();
    let cells: Vec<Option<u8>> = (0..rules.cells).map(|i| root.cell(i).map(|c| c.index())).collect();
    format!("{FORMAT}, {BUCKETS} buckets; {rules:?}; columns {columns:?}; cells {cells:?}; home {:?}", root.home())
}

/// Where a proof of `job` is kept, in the spill directory: one name per job.
fn kept_dir(spill: &Path, job: &str) -> PathBuf {
    // Mixed: the jobs of a sweep share the directory.
    spill.join(format!("fcanalyze-proof-{:016x}", crate::position::fmix64(fnv1a(job.as_bytes()))))
}

/// FNV-1a: a hash of bytes that never changes from one build to the next.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// What the runs of a kept proof had done when it stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Earlier {
    /// Positions stored by the buckets it finished.
    pub(super) stored: usize,
    pub(super) nodes: u64,
    pub(super) seconds: f64,
    pub(super) peak_disk: u64,
    /// The bucket it stopped in had outgrown memory: it is searched breadth first
    /// (`frontier`) when the proof goes on. (Checkpoints written before this was
    /// recorded say nothing of it: false.)
    pub(super) frontier: bool,
}

impl Earlier {
    fn write(&self, dir: &Path, job: &str) -> io::Result<()> {
        let text = format!(
            "{job}\nstored {}\nnodes {}\nseconds {}\npeak_disk {}\nfrontier {}\n",
            self.stored,
            self.nodes,
            self.seconds,
            self.peak_disk,
            u8::from(self.frontier)
        );
        // Written whole, then named: a checkpoint is there complete or not at all.
        let part = dir.join(format!("{CHECKPOINT}.part"));
        fs::write(&part, text)?;
        fs::rename(part, dir.join(CHECKPOINT))
    }

    /// The checkpoint in `dir`, if there is one, for `job`.
    fn read(dir: &Path, job: &str) -> Option<Earlier> {
        let path = dir.join(CHECKPOINT);
        if fs::metadata(&path).ok()?.len() > 64 << 10 {
            return None;
        }
        let text = fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        if lines.next()? != job {
            return None;
        }
        fn value<T: std::str::FromStr>(line: Option<&str>, name: &str) -> Option<T> {
            line?.strip_prefix(name)?.strip_prefix(' ')?.parse().ok()
        }
        Some(Earlier {
            stored: value(lines.next(), "stored")?,
            nodes: value(lines.next(), "nodes")?,
            seconds: value(lines.next(), "seconds")?,
            peak_disk: value(lines.next(), "peak_disk")?,
            frontier: value::<u8>(lines.next(), "frontier") == Some(1),
        })
    }
}

/// Whether `spill` holds a kept proof of `root` under `rules` to go on from.
pub(super) fn is_kept(root: &Position, rules: &Variant, spill: &Spill) -> bool {
    kept_proof(root, rules, &spill.dir).is_some()
}

/// The directory of the proof of `root` (settled) kept in `spill_dir`, if there is one.
fn kept_proof(root: &Position, rules: &Variant, spill_dir: &Path) -> Option<PathBuf> {
    let job = job(root, rules);
    let kept = kept_dir(spill_dir, &job);
    Earlier::read(&kept, &job).map(|_| kept)
}

/// Removes the proof of `start` under `rules` kept in `spill_dir`, if there is one (a
/// proof of the same job, with a checkpoint: nothing else there is touched), and says
/// whether there was. For a job settled another way, such as a sweep's job that a
/// proof with more free cells settled: nothing would ever go on from its proof, which
/// would hold its disk for good.
pub fn drop_kept(start: &Position, rules: &Variant, spill_dir: &Path) -> bool {
    let mut root = start.clone();
    root.autoplay(rules, &mut vec![]);
    kept_proof(&root, rules, spill_dir).is_some_and(|kept| fs::remove_dir_all(kept).is_ok())
}

/// Takes over the kept proof of `job`, if there is one, as `dir`: what it had done.
/// Renamed first, so that of two proofs of one job only one goes on from it; its
/// checkpoint removed next, so that a run that dies leaves nothing to go on from.
fn claim(kept: &Path, dir: &Path, job: &str) -> Option<Earlier> {
    let earlier = Earlier::read(kept, job)?;
    fs::rename(kept, dir).ok()?;
    if fs::remove_file(dir.join(CHECKPOINT)).is_err() {
        let _ = fs::remove_dir_all(dir);
        return None;
    }
    Some(earlier)
}

/// Removes the proof's directory, whatever way it ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// How a layered proof ended.
pub(super) struct Layered {
    pub(super) pass: Pass,
    /// Positions stored, over every class (and every run it went on from).
    pub(super) stored: usize,
    pub(super) peak_disk: u64,
    /// What the runs it went on from had done; all zero if it started afresh.
    pub(super) earlier: Earlier,
    /// Whether it stopped and was kept, to go on from.
    pub(super) kept: bool,
}

/// Proves `root` lost, class by class, within the meter's budgets and `spill`'s disk,
/// going on from a proof of the same job kept in `spill`, if there is one. Settles as
/// Unsolvable, or as Unknown: with the budget that ran out, with `Limit::Disk` when the
/// disk ran out or failed, and with `Limit::Memory` when it met a win (it keeps no path
/// to replay; the job needs the memory to be found whole) or a class outgrew memory.
/// Stopped by a budget, it is kept (unless it met a win or a file failed).
pub(super) fn layered(root: &Position, rules: &Variant, meter: &mut Meter, spill: &Spill) -> Layered {
    let job = job(root, rules);
    let kept = kept_dir(&spill.dir, &job);
    let dir = spill.dir.join(format!(
        "fcanalyze-proof-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    ));
    let resumed = claim(&kept, &dir, &job);
    let earlier = resumed.unwrap_or_default();
    let failed = |earlier: Earlier| Layered {
        pass: Pass::Settled(Status::Unknown(Limit::Disk), vec![], earlier.stored),
        stored: earlier.stored,
        peak_disk: earlier.peak_disk,
        earlier,
        kept: false,
    };
    if resumed.is_none() && fs::create_dir_all(&dir).is_err() {
        return failed(earlier);
    }
    let _scratch = Scratch(dir.clone());
    let mut gate = Gate::new(root, rules, dir.clone(), spill, meter.budget.max_memory);
    if resumed.is_some() {
        if gate.adopt().is_err() {
            return failed(earlier);
        }
    } else {
        gate.enqueue(root, rules);
    }
    let mut search = DepthFirstSearch::gated(root, rules, meter.budget.max_memory, gate);
    // Positions stored by the buckets finished.
    let mut stored = earlier.stored;
    let mut reading: Option<Source> = None;
    let mut record = vec![];
    // The entry to search from next.
    let mut start = root.clone();
    // Whether the bucket being read outgrew memory (in this run or the one kept), and
    // is searched breadth first; and what that search stored before it stopped.
    let mut outgrown = earlier.frontier;
    let mut partial = 0;
    // How the proof ended, and whether it may be kept to go on from.
    let (status, keep) = loop {
        let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
        match advance(gate, &mut reading, &mut record, rules, &mut start) {
            Next::Entry => {}
            Next::Bucket => {
                // The classes searched so far are done with.
                stored += search.seen.len();
                meter.note_memory(search.peak_bytes());
                search.forget();
                // A bucket that outgrew memory when the proof was kept goes breadth first.
                if !(outgrown || breadth_first_always() && frontier::applies(rules)) {
                    continue;
                }
                outgrown = true;
            }
            Next::End => break (Status::Unsolvable, false),
            Next::Failed => break (Status::Unknown(Limit::Disk), false),
        }
        if start.is_won() {
            // No path to it is kept: the job stays unknown, for want of memory.
            break (Status::Unknown(Limit::Memory), false);
        }
        if !outgrown {
            match depth_first_from(&mut search, &start, rules, meter) {
                FromEntry::Done => continue,
                FromEntry::Outgrown => outgrown = true,
                FromEntry::Ended(status, keep) => break (status, keep),
            }
        }
        // The bucket outgrew memory: searched again, from all its entries, breadth first.
        meter.note_memory(search.peak_bytes());
        search.abandon();
        match search_outgrown(&mut search, &mut reading, root, rules, meter) {
            Ok(n) => {
                stored += n;
                outgrown = false;
            }
            Err(Stopped { status, won, stored: n }) => {
                partial = n;
                let broken = search.gate.as_ref().is_some_and(|g| g.broken);
                break (status, !won && !broken);
            }
        }
    };
    meter.note_memory(search.peak_bytes());
    let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
    let peak_disk = gate.peak_disk.max(earlier.peak_disk);
    let done = Earlier {
        stored,
        nodes: earlier.nodes + meter.nodes,
        seconds: earlier.seconds + meter.start.elapsed().as_secs_f64(),
        peak_disk,
        frontier: outgrown,
    };
    let kept = keep && put_by(gate, reading, &kept, &job, done).is_ok();
    let stored = stored + search.seen.len() + partial;
    Layered { pass: Pass::Settled(status, vec![], stored), stored, peak_disk, earlier, kept }
}

/// Keeps a stopped proof to go on from: every entry waiting in memory to its file, the
/// bucket being read among them (a file of it is whole still; it is removed only once
/// read to its end), then the checkpoint, then the directory under the job's name.
fn put_by(gate: &mut Gate, reading: Option<Source>, kept: &Path, job: &str, done: Earlier) -> io::Result<()> {
    gate.flush_all()?;
    if let Some(Source::Memory(entries)) = reading {
        let (level, bucket) = gate.reading;
        Waiting { buffer: entries.into_inner(), on_disk: false }.flush(&gate.dir, level, bucket)?;
    }
    done.write(&gate.dir, job)?;
    fs::rename(&gate.dir, kept)
}

/// How the depth-first search of a bucket from one of its entries ended.
enum FromEntry {
    /// Every position it reaches is searched: on to the next entry.
    Done,
    /// The bucket outgrew memory, and is to be searched breadth first.
    Outgrown,
    /// The proof ends: how, and whether it may be kept to go on from.
    Ended(Status, bool),
}

fn depth_first_from(search: &mut DepthFirstSearch, start: &Position, rules: &Variant, meter: &mut Meter) -> FromEntry {
    let outgrown = if frontier::applies(rules) {
        FromEntry::Outgrown
    } else {
        FromEntry::Ended(Status::Unknown(Limit::Memory), true)
    };
    // An entry met before in this bucket starts nothing (the store has it).
    if search.start_from(start, rules).is_err() {
        return outgrown;
    }
    // The class's search from this entry: on to the end, or a verdict.
    let pass = loop {
        if let Some(pass) = search.step(rules, meter) {
            break pass;
        }
    };
    if let Some(gate @ Gate { failed: Some(limit), .. }) = search.gate.as_ref() {
        return FromEntry::Ended(Status::Unknown(*limit), !gate.broken);
    }
    match pass {
        Pass::Settled(Status::Unsolvable, ..) => FromEntry::Done,
        Pass::Settled(Status::Solved, ..) => FromEntry::Ended(Status::Unknown(Limit::Memory), false),
        Pass::Settled(Status::Unknown(Limit::Memory), ..) => outgrown,
        Pass::Settled(status, ..) => FromEntry::Ended(status, true),
        Pass::Undecided(_) => unreachable!("the exhaustive pass settles"),
    }
}

/// Searches the bucket being read, which outgrew memory, breadth first from all its
/// entries (`frontier`); once it is done, its file is removed, as `advance` does.
fn search_outgrown(
    search: &mut DepthFirstSearch,
    reading: &mut Option<Source>,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Stopped> {
    let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
    let disk = Stopped { status: Status::Unknown(Limit::Disk), won: false, stored: 0 };
    let Some(source) = reading.as_mut() else { return Err(disk) };
    if source.rewind().is_err() {
        return Err(disk);
    }
    let mut entries = |record: &mut Vec<u8>| source.next_entry(record);
    let stored = frontier(gate, &mut entries, root, rules, meter)?;
    if let Some(Source::File(_, path)) = reading.take() {
        let _ = fs::remove_file(path);
    }
    Ok(stored)
}

/// What `advance` found.
enum Next {
    /// An entry, decoded into the position given.
    Entry,
    /// A new bucket's file is open: its entries come next.
    Bucket,
    End,
    Failed,
}

/// The next entry of the bucket being read, or the next bucket.
fn advance(
    gate: &mut Gate,
    reading: &mut Option<Source>,
    record: &mut Vec<u8>,
    rules: &Variant,
    entry: &mut Position,
) -> Next {
    if let Some(source) = reading.as_mut() {
        match source.next_entry(record) {
            Ok(true) => {
                gate.codec.decode(record, rules, entry);
                return Next::Entry;
            }
            Ok(false) => {
                if let Some(Source::File(_, path)) = reading.take() {
                    let _ = fs::remove_file(path);
                }
            }
            Err(_) => return Next::Failed,
        }
    }
    match gate.next_bucket() {
        None => Next::End,
        Some(Err(_)) => Next::Failed,
        Some(Ok((level, source))) => {
            *reading = Some(source);
            gate.level = level;
            Next::Bucket
        }
    }
}

/// Reads the next record into `record`: false at the end.
pub(super) fn next_entry(reader: &mut impl Read, record: &mut Vec<u8>) -> io::Result<bool> {
    let mut n = [0u8; 1];
    if reader.read(&mut n)? == 0 {
        return Ok(false);
    }
    record.resize(usize::from(n[0]), 0);
    reader.read_exact(record)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::generate;
    use crate::testdata::{columns, MS1};
    use crate::variant::SequenceMoves;

    /// Positions reached from deal 1 by a random walk, each with its level.
    fn walk(rules: &Variant, steps: usize, seed: u64) -> Vec<Position> {
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
                    codec.decode(&record[1..], &rules, &mut out);
                    assert_eq!(out, *after, "{rules:?}");
                }
                // The start's own layout and a stranger's (written card by card) too.
                let stranger = walk(&rules, 40, seed + 100);
                let codec = Codec::new(stranger.last().expect("a position"), &rules);
                for p in &positions {
                    record.clear();
                    codec.encode(p, &rules, &mut record);
                    codec.decode(&record[1..], &rules, &mut out);
                    assert_eq!(out, *p);
                }
            }
        }
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
        assert_eq!((all.len(), fnv1a(&all)), (17_794, 17_568_322_370_248_961_824), "{FORMAT}");
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

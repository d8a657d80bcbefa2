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
//! It ends "unsolvable" only once every entry file has been read to its end and found
//! to hold exactly what was written to it (`files`).
//!
//! A proof that a budget stops (time, nodes, memory, disk or Ctrl-C) is *kept*: its
//! files stay in the spill directory, under a name made from its job, with a
//! checkpoint that names each of them (`checkpoint`). The next proof of the same job
//! there goes on from it, if it checks out whole, searching again from all its entries
//! the bucket it was in when it stopped; so hours of proof can be spread over several
//! runs.
//!
//! One file per part: `codec` (entries, levels, buckets), `files` (entry files that are
//! checked whenever read), `checkpoint` (kept proofs), and here the gate that the
//! searches hand entries to and the driver that reads them back, bucket by bucket.

mod checkpoint;
mod codec;
mod files;

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::position::{Place, Played, Position};
use crate::variant::Variant;

use super::depth_first::DepthFirstSearch;
use super::frontier::{self, frontier, Stopped};
use super::meter::Meter;
use super::{Limit, Pass, Status};

use checkpoint::{Checkpoint, Claim, Earlier};
pub(super) use codec::Codec;
use codec::BUCKETS;
use files::{Checked, Written};

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

/// Each file writes through a buffer this big at most; all of them together hold at
/// most a sixteenth of the memory budget, and MAX_BUFFERED (a proof has thousands
/// waiting at once).
const FILE_BUFFER: usize = 16 << 10;
/// The free space on the spill directory's filesystem is looked at again after this
/// many bytes written: so a proof passes `Spill::keep_free` by this much at most.
const FREE_CHECK_BYTES: u64 = 16 << 20;
/// Past this, more buffering saves few writes: the memory goes to the store instead.
const MAX_BUFFERED: usize = 256 << 20;
/// The fingerprints of entries written lately, so that an entry met again (most are
/// met two or three times, soon after one another) is not written again: at most this
/// many, and at most an eighth of the memory budget.
const WRITTEN_CACHE: usize = 1 << 22;
/// Bumped whenever entries, levels, buckets or checkpoints change meaning: a kept
/// proof written under another format is not gone on from.
const FORMAT: &str = "fcanalyze layered proof 2";
/// The budgets and interrupts are looked at after this many entries read: entries the
/// store holds already cost no node, and a bucket may hold millions of them.
const CHECK_ENTRIES: u64 = 256;

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

/// Where the searches hand the positions of higher levels than the one searched (the
/// entries of later classes), and where the driver reads each bucket's back from.
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
    /// Whether a file could not be written or read whole: entries may be lost, and the
    /// proof is not kept.
    pub(super) broken: bool,
    /// What went wrong with the files, in a line, for the job's outcome.
    pub(super) trouble: Option<String>,
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
            trouble: None,
        }
    }

    /// Puts `root` first in line, the proof's one entry so far.
    fn enqueue(&mut self, root: &Position, rules: &Variant) {
        let (level, bucket) = (self.codec.level(root, rules), self.codec.bucket(root, rules));
        let waiting = self.waiting.entry((level, bucket)).or_default();
        self.codec.encode(root, rules, &mut waiting.buffer);
        self.disk += waiting.buffer.len() as u64;
    }

    /// Takes up the entry files of a kept proof, which `checkpoint::claim` has checked,
    /// now in this gate's directory.
    fn adopt(&mut self, files: &BTreeMap<String, Written>) {
        for (name, &written) in files {
            let Some(key) = parse_file_name(name) else { continue };
            self.waiting.insert(key, Waiting { buffer: vec![], written, on_disk: true });
            self.disk += written.len;
        }
        self.peak_disk = self.peak_disk.max(self.disk);
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

    /// A file could not be written or read whole: the proof cannot end "unsolvable",
    /// nor be kept.
    pub(super) fn break_down(&mut self, why: String) {
        self.failed = Some(Limit::Disk);
        self.broken = true;
        self.trouble.get_or_insert(why);
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
        let waiting = self.waiting.entry((level, bucket)).or_default();
        if waiting.buffer.len() + self.record.len() > FILE_BUFFER {
            if let Err(e) = waiting.flush(&self.dir, level, bucket) {
                self.break_down(e.to_string());
                return;
            }
        }
        let before = waiting.buffer.capacity();
        waiting.buffer.extend_from_slice(&self.record);
        self.buffered += waiting.buffer.capacity() - before;
        if self.buffered > self.max_buffered {
            // Every buffer to its file, and its memory back: the next entries of a level
            // and bucket start a small buffer again.
            if let Err(e) = self.flush_all() {
                self.break_down(e.to_string());
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
            let file = Checked::open(&path, waiting.written)?;
            self.disk -= waiting.written.len.min(self.disk);
            Ok(Source::File(BufReader::with_capacity(FILE_BUFFER, file), path, waiting.written))
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
/// the others (if the buffer ever filled) in a file, which holds `written`.
#[derive(Default)]
struct Waiting {
    buffer: Vec<u8>,
    written: Written,
    on_disk: bool,
}

impl Waiting {
    /// Appends the buffer to the file, which is opened for that alone (a proof has
    /// thousands of files waiting, more than a process may commonly hold open), and
    /// only if it holds what was written to it.
    fn flush(&mut self, dir: &Path, level: usize, bucket: usize) -> io::Result<()> {
        let path = file_name(dir, level, bucket);
        files::open_append(&path, &self.written)?.write_all(&self.buffer)?;
        self.written.add(&self.buffer);
        self.on_disk = true;
        self.buffer.clear();
        Ok(())
    }
}

/// Where the entries of the bucket being searched come from.
enum Source {
    Memory(io::Cursor<Vec<u8>>),
    /// The file, removed once read, and what was written to it.
    File(BufReader<Checked>, PathBuf, Written),
}

impl Source {
    /// Reads the next entry's record into `record`: false at the end.
    fn next_entry(&mut self, record: &mut Vec<u8>) -> io::Result<bool> {
        match self {
            Source::Memory(bytes) => next_entry(bytes, record),
            Source::File(file, ..) => next_entry(file, record),
        }
    }

    /// Back to the first entry.
    fn rewind(&mut self) -> io::Result<()> {
        match self {
            Source::Memory(bytes) => bytes.set_position(0),
            Source::File(file, ..) => {
                file.seek(SeekFrom::Start(0))?;
            }
        }
        Ok(())
    }

    /// The file's name, for a line on what went wrong with it.
    fn name(&self) -> String {
        match self {
            Source::Memory(_) => "entries held in memory".into(),
            Source::File(_, path, _) => path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into()),
        }
    }
}

fn file_name(dir: &Path, level: usize, bucket: usize) -> PathBuf {
    dir.join(entry_file_name(level, bucket))
}

fn entry_file_name(level: usize, bucket: usize) -> String {
    format!("level-{level:03}-{bucket:02}.entries")
}

/// The level and bucket of an entry file's name (`entry_file_name`'s, exactly).
fn parse_file_name(name: &str) -> Option<(usize, usize)> {
    let (level, bucket) = name.strip_prefix("level-")?.strip_suffix(".entries")?.split_once('-')?;
    let key = (level.parse().ok()?, bucket.parse().ok()?);
    (entry_file_name(key.0, key.1) == name && key.1 < BUCKETS).then_some(key)
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

/// Whether `spill` holds a kept proof of `root` under `rules` to go on from.
pub(super) fn is_kept(root: &Position, rules: &Variant, spill: &Spill) -> bool {
    let job = job(root, rules);
    checkpoint::looks_kept(&kept_dir(&spill.dir, &job), &job)
}

/// Removes the proof of `start` under `rules` kept in `spill_dir`, if there is one (a
/// proof of the same job, with a checkpoint, this user's: nothing else there is
/// touched), and says whether there was. For a job settled another way, such as a
/// sweep's job that a proof with more free cells settled: nothing would ever go on
/// from its proof, which would hold its disk for good.
pub fn drop_kept(start: &Position, rules: &Variant, spill_dir: &Path) -> bool {
    let mut root = start.clone();
    root.autoplay(rules, &mut vec![]);
    let job = job(&root, rules);
    checkpoint::removable(&kept_dir(spill_dir, &job), &job).is_some_and(|kept| fs::remove_dir_all(kept).is_ok())
}

/// Removes the proof's directory, whatever way it ends.
struct RemovedAtEnd(PathBuf);

impl Drop for RemovedAtEnd {
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
    /// What the job's outcome should say of the proof's files: a kept proof that was
    /// not gone on from and why, or files found damaged.
    pub(super) note: Option<String>,
}

/// Makes the proof's own directory, which no one else may enter.
fn make_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Proves `root` lost, class by class, within the meter's budgets and `spill`'s disk,
/// going on from a proof of the same job kept in `spill`, if there is one that checks
/// out. Settles as Unsolvable, or as Unknown: with the budget that ran out, with
/// `Limit::Disk` when the disk ran out or its files failed, and with `Limit::Memory`
/// when it met a win (it keeps no path to replay; the job needs the memory to be found
/// whole) or a class outgrew memory. Stopped by a budget, it is kept (unless it met a
/// win or a file failed).
///
/// With `only_kept`, it goes on only from a kept proof that checks out: without one it
/// does nothing (`Pass::Undecided`, with a note if one was refused), so that the
/// searches in memory get their turn first.
pub(super) fn layered(root: &Position, rules: &Variant, meter: &mut Meter, spill: &Spill, only_kept: bool) -> Layered {
    let job = job(root, rules);
    let kept = kept_dir(&spill.dir, &job);
    let dir = spill.dir.join(format!(
        "fcanalyze-proof-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    ));
    let mut stopped_by = None;
    let claim = checkpoint::claim(&kept, &dir, &job, &mut || {
        stopped_by = meter.check();
        stopped_by.is_none()
    });
    let mut note = None;
    let checkpoint = match claim {
        Claim::None => None,
        Claim::Resumed(checkpoint) => Some(checkpoint),
        Claim::Refused(why) => {
            note = Some(format!("{why}; the proof started afresh"));
            None
        }
        Claim::Stopped => {
            let limit = stopped_by.unwrap_or(Limit::Interrupted);
            return Layered {
                pass: Pass::Settled(Status::Unknown(limit), vec![], 0),
                stored: 0,
                peak_disk: 0,
                earlier: Earlier::default(),
                kept: true,
                note: Some("stopped while the kept proof's files were being checked".into()),
            };
        }
    };
    if only_kept && checkpoint.is_none() {
        return Layered {
            pass: Pass::Undecided(0),
            stored: 0,
            peak_disk: 0,
            earlier: Earlier::default(),
            kept: false,
            note,
        };
    }
    let earlier = checkpoint.as_ref().map_or_else(Earlier::default, |c| c.earlier);
    if checkpoint.is_none() {
        if let Err(e) = make_private_dir(&dir) {
            return Layered {
                pass: Pass::Settled(Status::Unknown(Limit::Disk), vec![], 0),
                stored: 0,
                peak_disk: 0,
                earlier,
                kept: false,
                note: Some(format!("cannot make a directory in {}: {e}", spill.dir.display())),
            };
        }
    }
    let _removed = RemovedAtEnd(dir.clone());
    let mut gate = Gate::new(root, rules, dir.clone(), spill, meter.budget.max_memory);
    match &checkpoint {
        Some(checkpoint) => gate.adopt(&checkpoint.files),
        None => gate.enqueue(root, rules),
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
    let mut entries_read = 0u64;
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
        entries_read += 1;
        if entries_read.is_multiple_of(CHECK_ENTRIES) {
            if let Some(limit) = meter.check() {
                break (Status::Unknown(limit), true);
            }
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
    if let Some(trouble) = gate.trouble.take() {
        note = Some(note.map_or(trouble.clone(), |n| format!("{n}; then {trouble}")));
    }
    let peak_disk = gate.peak_disk.max(earlier.peak_disk);
    let done = Earlier {
        stored,
        nodes: earlier.nodes + meter.nodes,
        seconds: earlier.seconds + meter.start.elapsed().as_secs_f64(),
        peak_disk,
        frontier: outgrown,
    };
    let kept = keep
        && match keep_to_go_on(gate, reading, &kept, &job, done) {
            Ok(()) => true,
            Err(e) => {
                let why = format!("the proof could not be kept in {}: {e}", spill.dir.display());
                note = Some(note.map_or(why.clone(), |n| format!("{n}; {why}")));
                false
            }
        };
    let stored = stored + search.seen.len() + partial;
    Layered { pass: Pass::Settled(status, vec![], stored), stored, peak_disk, earlier, kept, note }
}

/// Keeps a stopped proof to go on from: every entry waiting in memory to its file, the
/// bucket being read among them (a file of it is whole still; it is removed only once
/// read to its end), then the checkpoint naming them all, then the directory under
/// the job's name.
fn keep_to_go_on(gate: &mut Gate, reading: Option<Source>, kept: &Path, job: &str, done: Earlier) -> io::Result<()> {
    gate.flush_all()?;
    let mut files = BTreeMap::new();
    let (level, bucket) = gate.reading;
    match reading {
        Some(Source::Memory(entries)) => {
            let mut waiting = Waiting { buffer: entries.into_inner(), ..Waiting::default() };
            waiting.flush(&gate.dir, level, bucket)?;
            files.insert(entry_file_name(level, bucket), waiting.written);
        }
        Some(Source::File(_, _, written)) => {
            files.insert(entry_file_name(level, bucket), written);
        }
        None => {}
    }
    for (&(level, bucket), waiting) in &gate.waiting {
        if waiting.on_disk {
            files.insert(entry_file_name(level, bucket), waiting.written);
        }
    }
    Checkpoint { earlier: done, files }.write(&gate.dir, job)?;
    fs::rename(&gate.dir, kept)?;
    kept.parent().map_or(Ok(()), files::sync)
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
    if let Err(e) = source.rewind() {
        gate.break_down(format!("{}: {e}", source.name()));
        return Err(disk);
    }
    let name = source.name();
    let mut entries = |record: &mut Vec<u8>| source.next_entry(record);
    let stored = frontier(gate, &mut entries, &name, root, rules, meter)?;
    if let Some(Source::File(_, path, _)) = reading.take() {
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
    /// A file could not be read, or did not hold what was written to it; the gate's
    /// `trouble` says how.
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
                if gate.codec.decode(record, rules, entry).is_err() {
                    gate.break_down(format!("an entry in {} is damaged", source.name()));
                    return Next::Failed;
                }
                return Next::Entry;
            }
            Ok(false) => {
                if let Some(Source::File(_, path, _)) = reading.take() {
                    let _ = fs::remove_file(path);
                }
            }
            Err(e) => {
                gate.break_down(format!("{}: {e}", source.name()));
                return Next::Failed;
            }
        }
    }
    match gate.next_bucket() {
        None => Next::End,
        Some(Err(e)) => {
            gate.break_down(e.to_string());
            Next::Failed
        }
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

//! A layered proof's entries on disk: a queue of the positions of later levels, each level and bucket in a file that is checked whenever read, and the kept proofs a run goes on from.
//!
//! The searches of a layered proof (`layered`) hand the queue every position of a
//! higher level than the one they search (an *entry*); it holds them in buffers and in
//! a file for each level and bucket of classes (`codec`), and hands them back bucket by
//! bucket, lowest level first. Every file is checked against its length and CRC-64
//! whenever it is opened and when it is read to its end (`files`). A proof a budget
//! stops is kept with a checkpoint naming every file (`checkpoint`), and the next proof
//! of the job goes on from it only if it checks out whole.

mod checkpoint;
mod codec;
mod files;
mod inside;

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::position::{Place, Played, Position};
use crate::variant::Variant;

use super::Limit;

pub(super) use checkpoint::{claim, looks_kept, removable, Checkpoint, Claim, RunsSoFar};
pub(super) use codec::Codec;
use codec::BUCKETS;
use files::{Checked, Written};
use inside::{inside_file_name, parse_inside_file_name};
pub(super) use inside::{Inside, InsideFile, STORE, UNEXPANDED};

/// Where a layered proof keeps its entries, and how much disk it may fill.
#[derive(Clone, Debug)]
pub struct Spill {
    /// A directory of its own is made inside, and removed when the proof ends, unless
    /// it is kept to go on from (see the module's comment).
    pub dir: PathBuf,
    /// The threads that search the buckets of a level at once (`level_threads`).
    pub threads: usize,
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
/// Where the searches hand the positions of higher levels than the one searched (the
/// entries of later classes), and where the driver reads each bucket's back from.
///
/// Each search has a queue of its own, which holds its latest entries in buffers of its
/// own; the entries waiting, their files and the disk they fill are the proof's, shared
/// by every queue (`Shared`), so that several searches may hand entries in at once (the
/// buckets of one level, searched on several threads) and the disk budget bounds them
/// all. A queue hands its buffers in when one fills, when they hold more than their share
/// of memory, and before a bucket is read (`hand_in`).
pub(super) struct EntryQueue {
    pub(super) level: usize,
    pub(super) codec: Codec,
    pub(super) dir: PathBuf,
    shared: Arc<Shared>,
    /// This queue's entries not yet handed in, by level and bucket.
    local: BTreeMap<(usize, usize), Vec<u8>>,
    /// Bytes the local buffers hold, and the most they may.
    local_bytes: usize,
    max_local: usize,
    /// The level and bucket whose entries are being read.
    pub(super) reading: (usize, usize),
    written: Vec<u128>,
    record: Vec<u8>,
    /// Bytes written since the free space was last looked at (`room_on_disk`).
    since_free_check: u64,
    /// Why the last entry could not be written.
    pub(super) failed: Option<Limit>,
    /// Whether a file could not be written or read whole: entries may be lost, and the
    /// proof is not kept.
    pub(super) broken: bool,
    /// What went wrong with the files, in a line, for the job's outcome.
    pub(super) trouble: Option<String>,
    /// The buckets a kept proof stopped inside, by level and bucket, with what it kept
    /// of their searches (`Inside`): taken up when each is read.
    inside: BTreeMap<(usize, usize), Inside>,
}

/// What every queue of a proof shares: the entries waiting for each level and bucket
/// (in buffers, and in files once a buffer fills), and the disk the files fill.
struct Shared {
    waiting: Mutex<Waiting>,
    /// Bytes in files not yet read back (and in buffers, to be written), and the most
    /// there have been.
    disk: AtomicU64,
    peak_disk: AtomicU64,
    max_disk: u64,
    keep_free: u64,
    /// The most the waiting buffers may hold together, and what they hold (`Waiting`'s
    /// count, to be read without the lock).
    max_buffered: usize,
    buffered: AtomicUsize,
}

/// The entries waiting, by level and bucket, and the bytes their buffers hold.
#[derive(Default)]
struct Waiting {
    by_bucket: BTreeMap<(usize, usize), Entries>,
    buffered: usize,
}

impl EntryQueue {
    /// The first queue of a proof, for `root`'s entries.
    pub(super) fn new(root: &Position, rules: &Variant, dir: PathBuf, spill: &Spill, max_memory: usize) -> EntryQueue {
        let max_buffered = (max_memory / 16).clamp(FILE_BUFFER, MAX_BUFFERED);
        let shared = Arc::new(Shared {
            waiting: Mutex::new(Waiting::default()),
            disk: AtomicU64::new(0),
            peak_disk: AtomicU64::new(0),
            max_disk: spill.max_bytes,
            keep_free: spill.keep_free,
            max_buffered,
            buffered: AtomicUsize::new(0),
        });
        EntryQueue::with(Codec::new(root, rules), dir, shared, max_memory)
    }

    /// Another queue of the same proof, for a search beside this one's: `max_memory`
    /// is that search's share of the budget.
    pub(super) fn another(&self, max_memory: usize) -> EntryQueue {
        let mut queue = EntryQueue::with(self.codec.clone(), self.dir.clone(), Arc::clone(&self.shared), max_memory);
        queue.level = self.level;
        queue
    }

    fn with(codec: Codec, dir: PathBuf, shared: Arc<Shared>, max_memory: usize) -> EntryQueue {
        let cache = WRITTEN_CACHE.min((max_memory / 8 / 16).next_power_of_two() / 2).max(1);
        EntryQueue {
            level: 0,
            codec,
            dir,
            local: BTreeMap::new(),
            local_bytes: 0,
            max_local: (max_memory / 16).clamp(FILE_BUFFER, MAX_BUFFERED),
            shared,
            reading: (0, 0),
            written: vec![0; cache],
            record: Vec::with_capacity(64),
            // The first write looks at once: kept proofs may have filled the disk already.
            since_free_check: FREE_CHECK_BYTES,
            failed: None,
            broken: false,
            trouble: None,
            inside: BTreeMap::new(),
        }
    }

    /// The proof's entries waiting, locked; a queue whose holder panicked leaves them as
    /// they were between two handings in.
    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        self.shared.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Puts `root` first in line, the proof's one entry so far.
    pub(super) fn enqueue(&mut self, root: &Position, rules: &Variant) {
        let (level, bucket) = (self.codec.level(root, rules), self.codec.bucket(root, rules));
        let mut record = vec![];
        self.codec.encode(root, rules, &mut record);
        self.shared.disk.fetch_add(record.len() as u64, Ordering::Relaxed);
        let mut waiting = self.waiting();
        waiting.by_bucket.entry((level, bucket)).or_default().buffer.extend_from_slice(&record);
    }

    /// Takes up the entry files of a kept proof, which `checkpoint::claim` has checked,
    /// now in this queue's directory.
    pub(super) fn adopt(&mut self, files: &BTreeMap<String, Written>) {
        let mut bytes = 0;
        {
            let mut inside = BTreeMap::new();
            let mut waiting = self.shared.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (name, &written) in files {
                bytes += written.len;
                if let Some((key, what)) = parse_inside_file_name(name) {
                    let kept: &mut Inside = inside.entry(key).or_default();
                    *(if what == STORE { &mut kept.store } else { &mut kept.unexpanded }) = written;
                    continue;
                }
                let Some(key) = parse_file_name(name) else { continue };
                waiting.by_bucket.insert(key, Entries { buffer: vec![], written, on_disk: true });
            }
            drop(waiting);
            self.inside = inside;
        }
        let disk = self.shared.disk.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.shared.peak_disk.fetch_max(disk, Ordering::Relaxed);
    }

    /// A path in the proof's directory for a file of its own (none is named so by
    /// `file_name`, and a kept proof takes up only those).
    pub(super) fn scratch_file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Counts `bytes` more of files against the disk budget: false if that passes it.
    pub(super) fn hold_disk(&mut self, bytes: u64) -> bool {
        let disk = self.shared.disk.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.shared.peak_disk.fetch_max(disk, Ordering::Relaxed);
        disk <= self.shared.max_disk && self.room_on_disk(bytes)
    }

    /// Counts `bytes` more of files against the disk budget if they fit in it and leave
    /// the filesystem's free space (looked at now) at least `keep_free`; false, and
    /// nothing counted, if not.
    pub(super) fn hold_disk_if_room(&mut self, bytes: u64) -> bool {
        let disk = self.shared.disk.load(Ordering::Relaxed).saturating_add(bytes);
        let free = free_bytes(&self.dir);
        let room = self.shared.keep_free == 0 || free.is_none_or(|f| f >= self.shared.keep_free.saturating_add(bytes));
        room && disk <= self.shared.max_disk && self.hold_disk(bytes)
    }

    /// The most bytes of files the proof has had at once.
    pub(super) fn peak_disk(&self) -> u64 {
        self.shared.peak_disk.load(Ordering::Relaxed)
    }

    /// Counts `bytes` written; false when the filesystem's free space, looked at every
    /// FREE_CHECK_BYTES written, has fallen below `keep_free`.
    fn room_on_disk(&mut self, bytes: u64) -> bool {
        self.since_free_check += bytes;
        if self.shared.keep_free == 0 || self.since_free_check < FREE_CHECK_BYTES {
            return true;
        }
        self.since_free_check = 0;
        free_bytes(&self.dir).is_none_or(|free| free >= self.shared.keep_free)
    }

    /// Counts `bytes` of files removed.
    pub(super) fn release_disk(&mut self, bytes: u64) {
        let _ = self.shared.disk.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |d| Some(d - bytes.min(d)));
    }

    /// A file could not be written or read whole: the proof cannot end "unsolvable",
    /// nor be kept.
    pub(super) fn break_down(&mut self, why: String) {
        self.failed = Some(Limit::Disk);
        self.broken = true;
        self.trouble.get_or_insert(why);
    }

    /// Hands this queue's buffers in, then every waiting buffer to its file.
    pub(super) fn flush_all(&mut self) -> io::Result<()> {
        self.hand_in()?;
        let mut waiting = self.waiting();
        let flushed = flush_every_buffer(&mut waiting, &self.dir);
        self.shared.buffered.store(waiting.buffered, Ordering::Relaxed);
        flushed
    }

    /// Hands every local buffer in to the entries waiting.
    pub(super) fn hand_in(&mut self) -> io::Result<()> {
        let local = std::mem::take(&mut self.local);
        self.local_bytes = 0;
        let mut waiting = self.waiting();
        let handed = local
            .into_iter()
            .try_for_each(|(key, buffer)| hand_in_one(&mut waiting, &self.dir, key, &buffer, self.shared.max_buffered));
        self.shared.buffered.store(waiting.buffered, Ordering::Relaxed);
        handed
    }

    pub(super) fn bytes(&self) -> usize {
        self.own_bytes() + self.shared.buffered.load(Ordering::Relaxed)
    }

    /// The bytes this queue holds itself, without the buffers every queue of the proof
    /// shares (which `bytes` counts): what threads that each count the others' add up.
    pub(super) fn own_bytes(&self) -> usize {
        self.written.len() * 16 + self.local_bytes
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
        let buffer = self.local.entry((level, bucket)).or_default();
        let before = buffer.capacity();
        buffer.extend_from_slice(&self.record);
        self.local_bytes += buffer.capacity() - before;
        let full = buffer.len() >= FILE_BUFFER;
        let handed = if full {
            let buffer = self.local.remove(&(level, bucket)).unwrap_or_default();
            self.local_bytes -= buffer.capacity().min(self.local_bytes);
            let mut waiting = self.waiting();
            let handed = hand_in_one(&mut waiting, &self.dir, (level, bucket), &buffer, self.shared.max_buffered);
            self.shared.buffered.store(waiting.buffered, Ordering::Relaxed);
            handed
        } else if self.local_bytes > self.max_local {
            self.hand_in()
        } else {
            Ok(())
        };
        if let Err(e) = handed {
            self.break_down(e.to_string());
        }
    }

    /// The lowest level that has entries waiting, if any (the local buffers handed in).
    pub(super) fn lowest_level(&mut self) -> io::Result<Option<usize>> {
        self.hand_in()?;
        Ok(self.waiting().by_bucket.keys().next().map(|&(level, _)| level))
    }

    /// Whether a kept proof stopped inside a bucket of `level` (`Inside`).
    pub(super) fn stopped_inside(&self, level: usize) -> bool {
        self.inside.range((level, 0)..(level + 1, 0)).next().is_some()
    }

    /// What a kept proof holds of the search of bucket `key`, if it stopped inside it,
    /// taken off the queue: its files are the taker's to read and remove.
    pub(super) fn take_inside(&mut self, key: (usize, usize)) -> Option<Inside> {
        self.inside.remove(&key)
    }

    /// The file of the proof's directory where the search of bucket `key` kept `what`
    /// (STORE or UNEXPANDED) when the proof stopped inside it.
    pub(super) fn inside_file(&self, key: (usize, usize), what: &str) -> PathBuf {
        self.dir.join(inside_file_name(key, what))
    }

    /// The entries of the lowest level and bucket that has some, to be read in turn: a
    /// bucket the proof stopped inside first, since its store is taken up alone.
    pub(super) fn next_bucket(&mut self) -> Option<io::Result<(usize, Source)>> {
        if let Err(e) = self.hand_in() {
            return Some(Err(e));
        }
        let level = *self.waiting().by_bucket.keys().next().map(|(level, _)| level)?;
        let first = self.inside.range((level, 0)..(level + 1, 0)).next().map_or(0, |(&(_, bucket), _)| bucket);
        let mut buckets = self.take_level_from(level, first, 1);
        let (bucket, source) = buckets.pop()?;
        self.reading = (level, bucket);
        Some(source.map(|source| (level, source)))
    }

    /// The entries of up to `most` buckets of `level`, lowest first, each to be read in
    /// turn, taken off the queue (the buckets of one level do not reach one another, so
    /// they may be read at once).
    pub(super) fn take_level(&mut self, level: usize, most: usize) -> Vec<(usize, io::Result<Source>)> {
        self.take_level_from(level, 0, most)
    }

    /// take_level, from bucket `first` on.
    fn take_level_from(&mut self, level: usize, first: usize, most: usize) -> Vec<(usize, io::Result<Source>)> {
        let mut waiting = self.waiting();
        let keys: Vec<(usize, usize)> =
            waiting.by_bucket.range((level, first)..(level + 1, 0)).map(|(&key, _)| key).take(most).collect();
        let mut out = vec![];
        for (level, bucket) in keys {
            let Some(mut entries) = waiting.by_bucket.remove(&(level, bucket)) else { continue };
            waiting.buffered -= entries.buffer.capacity().min(waiting.buffered);
            let source = if entries.on_disk {
                entries.flush(&self.dir, level, bucket).and_then(|()| {
                    let path = file_name(&self.dir, level, bucket);
                    let file = Checked::open(&path, entries.written)?;
                    Ok(Source::File(BufReader::with_capacity(FILE_BUFFER, file), path, entries.written))
                })
            } else {
                Ok(Source::Memory(io::Cursor::new(entries.buffer)))
            };
            // Counted off the disk once read to its end (`done_with`).
            out.push((bucket, source));
        }
        self.shared.buffered.store(waiting.buffered, Ordering::Relaxed);
        out.reverse();
        out
    }

    /// Buckets taken off the queue (`take_level`) and not searched to their end, back in
    /// it, whole, to be read again: their files are whole still (and still counted).
    pub(super) fn put_back(&mut self, buckets: Vec<((usize, usize), Source)>) {
        let mut waiting = self.waiting();
        for (key, source) in buckets {
            let entries = match source {
                Source::Memory(bytes) => Entries { buffer: bytes.into_inner(), ..Entries::default() },
                Source::File(_, _, written) => Entries { buffer: vec![], written, on_disk: true },
            };
            waiting.buffered += entries.buffer.capacity();
            waiting.by_bucket.insert(key, entries);
        }
        self.shared.buffered.store(waiting.buffered, Ordering::Relaxed);
    }

    /// A bucket's entries, read to their end: their bytes off the disk count, and their
    /// file removed.
    pub(super) fn done_with(&mut self, source: Source) {
        match source {
            Source::Memory(bytes) => self.release_disk(bytes.get_ref().len() as u64),
            Source::File(_, path, written) => {
                self.release_disk(written.len);
                let _ = fs::remove_file(path);
            }
        }
    }
}

/// Hands `buffer`, entries of level and bucket `key`, in to those waiting; a buffer that
/// fills goes to its file, and so do all of them when they hold more than `max_buffered`.
fn hand_in_one(
    waiting: &mut Waiting,
    dir: &Path,
    key: (usize, usize),
    buffer: &[u8],
    max_buffered: usize,
) -> io::Result<()> {
    if buffer.is_empty() {
        return Ok(());
    }
    let entries = waiting.by_bucket.entry(key).or_default();
    let before = entries.buffer.capacity();
    entries.buffer.extend_from_slice(buffer);
    let grown = entries.buffer.capacity() - before;
    let to_file = entries.buffer.len() > FILE_BUFFER;
    if to_file {
        let freed = entries.buffer.capacity();
        entries.flush(dir, key.0, key.1)?;
        entries.buffer = vec![];
        waiting.buffered = (waiting.buffered + grown).saturating_sub(freed);
    } else {
        waiting.buffered += grown;
    }
    if waiting.buffered > max_buffered {
        // Every buffer to its file, and its memory back: the next entries of a level
        // and bucket start a small buffer again.
        flush_every_buffer(waiting, dir)?;
    }
    Ok(())
}

fn flush_every_buffer(waiting: &mut Waiting, dir: &Path) -> io::Result<()> {
    for (&(level, bucket), entries) in &mut waiting.by_bucket {
        if !entries.buffer.is_empty() {
            entries.flush(dir, level, bucket)?;
        }
        entries.buffer = vec![];
    }
    waiting.buffered = 0;
    Ok(())
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
struct Entries {
    buffer: Vec<u8>,
    written: Written,
    on_disk: bool,
}

impl Entries {
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
pub(super) enum Source {
    Memory(io::Cursor<Vec<u8>>),
    /// The file, removed once read, and what was written to it.
    File(BufReader<Checked>, PathBuf, Written),
}

impl Source {
    /// Reads the next entry's record into `record`: false at the end.
    pub(super) fn next_entry(&mut self, record: &mut Vec<u8>) -> io::Result<bool> {
        match self {
            Source::Memory(bytes) => next_entry(bytes, record),
            Source::File(file, ..) => next_entry(file, record),
        }
    }

    /// Back to the first entry.
    pub(super) fn rewind(&mut self) -> io::Result<()> {
        match self {
            Source::Memory(bytes) => bytes.set_position(0),
            Source::File(file, ..) => {
                file.seek(SeekFrom::Start(0))?;
            }
        }
        Ok(())
    }

    /// The file's name, for a line on what went wrong with it.
    pub(super) fn name(&self) -> String {
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
pub(super) fn job(root: &Position, rules: &Variant) -> String {
    let columns: Vec<&[u8]> = (0..rules.columns).map(|i| root.column(i)).collect();
    let cells: Vec<Option<u8>> = (0..rules.cells).map(|i| root.cell(i).map(|c| c.index())).collect();
    format!("{FORMAT}, {BUCKETS} buckets; {rules:?}; columns {columns:?}; cells {cells:?}; home {:?}", root.home())
}

/// Where a proof of `job` is kept, in the spill directory: one name per job.
pub(super) fn kept_dir(spill: &Path, job: &str) -> PathBuf {
    // Mixed: the jobs of a sweep share the directory.
    spill.join(format!("fcanalyze-proof-{:016x}", crate::position::fmix64(fnv1a(job.as_bytes()))))
}

/// FNV-1a: a hash of bytes that never changes from one build to the next.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// Removes the proof's directory, whatever way it ends.
pub(super) struct RemovedAtEnd(pub(super) PathBuf);

impl Drop for RemovedAtEnd {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Makes the proof's own directory, which no one else may enter.
pub(super) fn make_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Keeps a stopped proof to go on from: every entry waiting in memory to its file, the
/// buckets being read among them (each with its level and bucket: a file of one is
/// whole still, removed only once read to its end), then the checkpoint naming them all,
/// then the directory under the job's name. Every other queue of the proof has handed
/// its buffers in.
pub(super) fn keep_to_go_on(
    gate: &mut EntryQueue,
    reading: Vec<((usize, usize), Source)>,
    inside: Vec<((usize, usize), Inside)>,
    kept: &Path,
    job: &str,
    done: RunsSoFar,
) -> io::Result<()> {
    gate.flush_all()?;
    let mut files = BTreeMap::new();
    // The searches kept inside their buckets now, and those a kept proof had that this
    // run did not reach.
    for (key, kept) in inside.into_iter().chain(std::mem::take(&mut gate.inside)) {
        files.insert(inside_file_name(key, STORE), kept.store);
        files.insert(inside_file_name(key, UNEXPANDED), kept.unexpanded);
    }
    for ((level, bucket), source) in reading {
        match source {
            Source::Memory(entries) => {
                let mut waiting = Entries { buffer: entries.into_inner(), ..Entries::default() };
                waiting.flush(&gate.dir, level, bucket)?;
                files.insert(entry_file_name(level, bucket), waiting.written);
            }
            Source::File(_, _, written) => {
                files.insert(entry_file_name(level, bucket), written);
            }
        }
    }
    for (&(level, bucket), entries) in &gate.waiting().by_bucket {
        if entries.on_disk {
            files.insert(entry_file_name(level, bucket), entries.written);
        }
    }
    Checkpoint { earlier: done, files }.write(&gate.dir, job)?;
    fs::rename(&gate.dir, kept)?;
    kept.parent().map_or(Ok(()), files::sync)
}

/// What `advance` found.
pub(super) enum Next {
    /// An entry, decoded into the position given.
    Entry,
    /// A new bucket's file is open: its entries come next.
    Bucket,
    /// The bucket being read is read to its end, and done with.
    BucketDone,
    End,
    /// A file could not be read, or did not hold what was written to it; the gate's
    /// `trouble` says how.
    Failed,
}

/// The next entry of the bucket being read, or the next bucket.
pub(super) fn advance(
    gate: &mut EntryQueue,
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
                if let Some(source) = reading.take() {
                    gate.done_with(source);
                }
                return Next::BucketDone;
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

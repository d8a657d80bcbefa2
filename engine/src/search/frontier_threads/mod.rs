//! The frontier search on several threads: each owns the positions whose fingerprints fall in its shard, and they hand each other children in batches, meeting once a layer.
//!
//! A bucket too big for memory is searched breadth first (`frontier`), and a bucket that
//! size is most of a proof's work: one thread searching it while the others wait is the
//! shape of the nine intractable deals. Here every thread expands a share of a layer's
//! positions (handed out in chunks, so a slow thread takes fewer), and every child is
//! judged by the thread that owns its fingerprint (Korf and Schultze's owner-computes
//! scheme): that thread alone holds the fingerprints of its shard of the layer before,
//! of the layer expanded and of the next, so it stores each position once and no lock
//! is taken for a position. A child owned by another thread waits in a batch for it,
//! sent when full; at a layer's end each thread sends what it has and says it is done,
//! takes in every batch sent to it until each other thread has said so, and all meet
//! before the next layer is expanded. The children a thread sends in a layer reach their
//! owner in that layer (a channel keeps its order; "done" comes last), so the next layer
//! is the same set of positions as on one thread, whatever order they came in: the
//! threads store exactly what one thread stores (docs/correctness.md, "The frontier
//! search on several threads").
//!
//! The budgets bound the search as a whole: each thread's store counts what the others
//! hold, and the batches in flight. Stopped, the search is kept as the one-thread search
//! keeps it (`frontier::keep_layer`), in the same files: the fingerprints of the layer
//! it stopped in and of the one before, made again from their positions, which stay on
//! disk for that (three layers, not two), and that layer's positions. So a proof stopped
//! on two threads goes on on one, and the other way round.

use std::fs::File;
use std::io::{self, BufReader};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::frontier::{take_layer, LayerFile, Resumed, Stopped};
use super::meter::{on_threads, Meter};
use super::spill::{next_entry, EntryQueue};
use super::{Budget, Limit, Status};

mod keep;
mod thread;

use keep::keep_layer;
use thread::expand_layers;

#[cfg(test)]
thread_local! {
    /// Buckets searched so by proofs driven from this thread, counted for the tests.
    pub(crate) static ON_THREADS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Children sent to another thread at once.
const BATCH: usize = 4096;
/// The most bytes of positions a thread takes of a layer at once; and at most a
/// CHUNKS_A_THREADth of its share of the layer, so that a small layer is shared too.
const CHUNK: usize = 1 << 18;
const CHUNKS_A_THREAD: usize = 16;
/// How long a waiting thread sleeps before it looks whether the search stops.
const WAIT: Duration = Duration::from_millis(20);

/// Which thread of `threads` owns a fingerprint: by bits 48 to 63 of its low half,
/// which no store keeps (it places a fingerprint by its high half, and a packed one
/// keeps the lowest bits of its low half), so a shard's store fills as evenly, and
/// tells fingerprints apart as well, as one store of them all.
fn owner(fp: u128, threads: usize) -> usize {
    (((fp as u64) >> 48) % threads as u64) as usize
}

/// Children for another thread: their fingerprints and positions (as they are: the
/// owner encodes only those it keeps, and most are kept already).
enum Message {
    Children(Vec<u128>, Vec<Position>),
    /// The sender has sent every child of the layer.
    Done,
}

/// Where a bucket's entries are read from, a record at a time (false at the end).
type Entries<'e> = &'e mut (dyn FnMut(&mut Vec<u8>) -> io::Result<bool> + Send);

/// What the threads share.
struct Shared<'e> {
    /// The bucket searched, and on how many threads.
    key: (usize, usize),
    threads: usize,
    /// The files each thread writes its layers to, by thread and by layer modulo 3.
    paths: Vec<[PathBuf; 3]>,
    /// The layer expanded, handed out in chunks.
    reader: Mutex<ChunkReader>,
    meeting: Meeting,
    stop: AtomicBool,
    first_stop: Mutex<Option<Limit>>,
    /// The bytes each thread's stores and queue hold, as it last said, and those of
    /// the batches sent and not yet taken in.
    held: Vec<AtomicUsize>,
    in_flight: AtomicUsize,
    /// The kept search's fingerprints, taken up (`Resumed`): the layer it stopped in,
    /// which this search expands first, and the one before. Dropped by each thread once
    /// that layer is done.
    kept_bytes: AtomicUsize,
    /// The bucket's entries, which the threads read in chunks into layer 0 (None when
    /// a kept search is gone on with: its layer is layer 0), and where they come from.
    entries: Option<Mutex<Entries<'e>>>,
    source: String,
    /// An entry is a won position.
    won: AtomicBool,
}

impl Shared<'_> {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Records why the search stops, unless a reason came first, and tells every thread.
    fn note_stop(&self, limit: Limit) {
        self.first_stop.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(limit);
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The bytes held by every thread but `t`, and by the batches in flight.
    fn others(&self, t: usize) -> usize {
        let theirs: usize =
            self.held.iter().enumerate().filter(|&(u, _)| u != t).map(|(_, b)| b.load(Ordering::Relaxed)).sum();
        theirs + self.in_flight.load(Ordering::Relaxed) + self.kept_bytes.load(Ordering::Relaxed)
    }
}

/// The threads meet at the end of each layer: the next one's size, summed, says whether
/// there is one; and the layers met count the positions stored.
struct Meeting {
    state: Mutex<MeetingState>,
    all_here: Condvar,
}

struct MeetingState {
    here: usize,
    /// Layers finished by every thread.
    done: u32,
    /// The positions of the layer expanded, of the next (summed as threads come), and of
    /// the layers finished.
    layer_len: usize,
    next_len: usize,
    stored: usize,
}

impl Meeting {
    /// Waits with the others at the end of a layer, bringing `next_len` positions of the
    /// next; the next layer's size, or None if the search stops first.
    fn meet(&self, shared: &Shared, next_len: usize) -> Option<usize> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let done = state.done;
        state.next_len += next_len;
        state.here += 1;
        if state.here == shared.threads {
            state.stored += state.layer_len;
            state.layer_len = std::mem::take(&mut state.next_len);
            state.here = 0;
            state.done += 1;
            self.all_here.notify_all();
            return Some(state.layer_len);
        }
        loop {
            state = self.all_here.wait_timeout(state, WAIT).unwrap_or_else(PoisonError::into_inner).0;
            if state.done != done {
                return Some(state.layer_len);
            }
            if shared.stopping() {
                return None;
            }
        }
    }
}

/// Hands out a layer's positions, from every thread's file of it, in chunks.
#[derive(Default)]
struct ChunkReader {
    layer: Option<u32>,
    files: Vec<BufReader<File>>,
    at: usize,
    record: Vec<u8>,
}

impl ChunkReader {
    /// Puts the next chunk of layer `layer`'s positions, at most `most`, into `out`;
    /// false when none are left.
    fn next_chunk(&mut self, layer: u32, most: usize, paths: &[[PathBuf; 3]], out: &mut Vec<u8>) -> io::Result<bool> {
        if self.layer != Some(layer) {
            let slot = layer as usize % 3;
            self.files = paths
                .iter()
                .map(|p| Ok(BufReader::with_capacity(1 << 20, File::open(&p[slot])?)))
                .collect::<io::Result<_>>()?;
            (self.layer, self.at) = (Some(layer), 0);
        }
        out.clear();
        let mut n = 0;
        while out.len() < CHUNK && n < most && self.at < self.files.len() {
            if next_entry(&mut self.files[self.at], &mut self.record)? {
                n += 1;
                out.push(self.record.len() as u8);
                out.extend_from_slice(&self.record);
            } else {
                self.at += 1;
            }
        }
        Ok(!out.is_empty())
    }
}

/// The records of `bytes`, each with its length byte first, without it.
fn records(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut at = 0;
    std::iter::from_fn(move || {
        let n = usize::from(*bytes.get(at)?);
        let record = bytes.get(at + 1..at + 1 + n)?;
        at += 1 + n;
        Some(record)
    })
}

/// One thread's part: its queue, its layers' files, its shard's fingerprints.
struct Worker<'g> {
    t: usize,
    gate: &'g mut EntryQueue,
    files: [LayerFile; 3],
    before: FingerprintSet,
    current: FingerprintSet,
    kept: Option<Arc<FingerprintSet>>,
}

/// What a thread hands back: its files, the kept set if it still held it, its count.
struct Work {
    files: [LayerFile; 3],
    /// Whether its queue could not write an entry, and what went wrong with its files.
    failed: bool,
    trouble: Option<String>,
    kept: Option<Arc<FingerprintSet>>,
    nodes: u64,
    max_depth: u32,
    peak_memory: usize,
}

/// Searches bucket `key` breadth first as `frontier` does, on one thread a queue of
/// `gates` (the calling thread the first); `driver`, the proof's own queue, reads the
/// entries and keeps the search if it stops.
#[allow(clippy::too_many_arguments)]
pub(super) fn frontier_on_threads(
    driver: &mut EntryQueue,
    gates: Vec<&mut EntryQueue>,
    key: (usize, usize),
    entries: Entries,
    resumed: Option<Resumed>,
    source: &str,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Stopped> {
    let threads = gates.len();
    let max_memory = meter.budget.max_memory;
    let mut files: Vec<[LayerFile; 3]> =
        (0..threads).map(|t| [0, 1, 2].map(|slot| LayerFile::new(driver, &format!("frontier-{t}-{slot}")))).collect();
    let stop = |limit| Stopped { status: Status::Unknown(limit), won: false, stored: 0, kept: None };
    #[cfg(test)]
    ON_THREADS.set(ON_THREADS.get() + 1);
    let (kept, layer_len) = match first_layer(driver, resumed, &mut files) {
        Ok(first) => first,
        Err(()) => {
            remove_all(driver, files);
            return Err(stop(Limit::Disk));
        }
    };
    // Gone on with, the search starts with the kept layer; else the threads read the
    // entries into layer 0 first, and meet once more.
    let fill = kept.is_none();
    let shared = Shared {
        key,
        threads,
        paths: files.iter().map(|f| [0, 1, 2].map(|slot| f[slot].path.clone())).collect(),
        reader: Mutex::new(ChunkReader::default()),
        meeting: Meeting {
            state: Mutex::new(MeetingState { here: 0, done: 0, layer_len, next_len: 0, stored: 0 }),
            all_here: Condvar::new(),
        },
        stop: AtomicBool::new(false),
        first_stop: Mutex::new(None),
        held: (0..threads).map(|_| AtomicUsize::new(0)).collect(),
        in_flight: AtomicUsize::new(0),
        kept_bytes: AtomicUsize::new(kept.as_ref().map_or(0, FingerprintSet::bytes)),
        entries: fill.then(|| Mutex::new(entries)),
        source: source.to_string(),
        won: AtomicBool::new(false),
    };
    let kept = kept.map(Arc::new);
    let (senders, receivers): (Vec<Sender<Message>>, Vec<Receiver<Message>>) = (0..threads).map(|_| channel()).unzip();
    let workers: Vec<Worker> = gates
        .into_iter()
        .zip(files.drain(..))
        .enumerate()
        .map(|(t, (gate, files))| Worker {
            t,
            gate,
            files,
            before: FingerprintSet::new(max_memory),
            current: FingerprintSet::new(max_memory),
            kept: kept.clone(),
        })
        .collect();
    drop(kept);
    let nodes_left = meter.budget.max_nodes.saturating_sub(meter.nodes);
    let share = Budget {
        max_nodes: if nodes_left == u64::MAX { u64::MAX } else { (nodes_left / threads as u64).max(1) },
        ..meter.budget
    };
    // Each worker goes with its inbox and a sender to every thread.
    let jobs =
        workers.into_iter().zip(receivers).map(|(worker, inbox)| ((worker, inbox, senders.clone()), share)).collect();
    drop(senders);
    let works: Vec<Work> = on_threads(
        jobs,
        meter.start,
        &mut *meter.interrupted,
        &|| shared.stopping(),
        &|limit| shared.note_stop(limit),
        false,
        &|(worker, inbox, senders), meter| expand_layers(worker, inbox, senders, &shared, root, rules, meter),
    );
    let mut files = vec![];
    let mut kept = None;
    let mut peak = 0;
    let mut failed = false;
    for work in works {
        files.push(work.files);
        failed |= work.failed;
        if let Some(trouble) = work.trouble {
            driver.break_down(trouble);
        }
        kept = kept.or(work.kept);
        meter.nodes += work.nodes;
        meter.max_depth = meter.max_depth.max(work.max_depth);
        peak = peak.max(work.peak_memory);
    }
    meter.note_memory(peak);
    let state = shared.meeting.state.into_inner().unwrap_or_else(PoisonError::into_inner);
    // The layer every thread was in: layer 0 is the entries' once the threads have met
    // at its end (None: they stopped reading them).
    let layer = if fill { state.done.checked_sub(1) } else { Some(state.done) };
    let out = match shared.first_stop.into_inner().unwrap_or_else(PoisonError::into_inner) {
        // A won entry: the proof has no path to it, and going on would meet it again.
        _ if shared.won.into_inner() => Err(Stopped { status: Status::Solved, won: true, stored: 0, kept: None }),
        None => Ok(state.stored),
        Some(limit) => {
            // Out of memory, it keeps nothing: the next run, with more memory perhaps,
            // tries the bucket depth first again (`layered`).
            let held = kept.and_then(|k| Arc::try_unwrap(k).ok()).filter(|_| state.done == 0);
            let kept = match layer {
                Some(layer) if limit != Limit::Memory && !failed => {
                    keep_layer(driver, key, layer, held, &mut files, max_memory, root, rules).unwrap_or(None)
                }
                _ => None,
            };
            Err(Stopped { status: Status::Unknown(limit), won: false, stored: state.stored, kept })
        }
    };
    remove_all(driver, files);
    out
}

/// Lets every layer file go.
fn remove_all(driver: &mut EntryQueue, files: Vec<[LayerFile; 3]>) {
    for file in files.into_iter().flatten() {
        file.remove(driver);
    }
}

/// Starts every thread's file of layer 0, and puts in thread 0's the positions of the
/// layer a kept search stopped in (`Resumed`), if it is gone on with: its fingerprints
/// and their number. Err if a file cannot be made (a line on why, for the job, given).
fn first_layer(
    driver: &mut EntryQueue,
    resumed: Option<Resumed>,
    files: &mut [[LayerFile; 3]],
) -> Result<(Option<FingerprintSet>, usize), ()> {
    for f in files.iter_mut() {
        f[0].start(driver).map_err(|e| driver.break_down(format!("a layer file: {e}")))?;
    }
    let Some(Resumed { held, layer: positions }) = resumed else { return Ok((None, 0)) };
    let name = positions.name();
    match take_layer(driver, positions, &mut files[0][0]).and_then(|n| files[0][0].finish().map(|()| n)) {
        Ok(n) => Ok((Some(held), n)),
        Err(e) => {
            driver.break_down(format!("{name}: {e}"));
            Err(())
        }
    }
}

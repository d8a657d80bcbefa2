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
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::moves::generate;
use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::frontier::{add_layer, log_layer, take_layer, LayerFile, Resumed, Stopped};
use super::meter::{Meter, CHECK_EVERY};
use super::play::{play_with_autoplay, undo_to};
use super::spill::{next_entry, EntryQueue, Inside, InsideFile, STORE, UNEXPANDED};
use super::{Budget, Limit, Status};

/// Buckets searched so, counted for the tests.
#[cfg(test)]
pub(crate) static ON_THREADS: AtomicUsize = AtomicUsize::new(0);

/// Children sent to another thread at once.
const BATCH: usize = 4096;
/// The most bytes of positions a thread takes of a layer at once; and at most a
/// CHUNKS_A_THREADth of its share of the layer, so that a small layer is shared too.
const CHUNK: usize = 1 << 18;
const CHUNKS_A_THREAD: usize = 16;
/// How long a waiting thread sleeps before it looks whether the search stops.
const WAIT: Duration = Duration::from_millis(20);

/// Which thread of `threads` owns a fingerprint: by its low bits (a store places it
/// by its high ones, so each shard's store fills evenly).
fn owner(fp: u128, threads: usize) -> usize {
    ((fp as u64) % threads as u64) as usize
}

/// Children for another thread: their fingerprints and positions (as they are: the
/// owner encodes only those it keeps, and most are kept already).
enum Message {
    Children(Vec<u128>, Vec<Position>),
    /// The sender has sent every child of the layer.
    Done,
}

/// What the threads share.
struct Shared {
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
}

impl Shared {
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
    entries: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<bool>,
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
    let mut sets: Vec<FingerprintSet> = (0..threads).map(|_| FingerprintSet::new(max_memory)).collect();
    let stop = |limit| Stopped { status: Status::Unknown(limit), won: false, stored: 0, kept: None };
    #[cfg(test)]
    ON_THREADS.fetch_add(1, Ordering::Relaxed);
    let first = first_layer(driver, entries, resumed, source, &mut files, &mut sets, root, rules, meter);
    let finished = first.and_then(|first| {
        for f in &mut files {
            f[0].finish().map_err(|_| stop(Limit::Disk))?;
        }
        Ok(first)
    });
    let (kept, layer_len) = match finished {
        Ok(first) => first,
        Err(stopped) => {
            remove_all(driver, files);
            return Err(stopped);
        }
    };
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
    };
    let kept = kept.map(Arc::new);
    let (senders, receivers): (Vec<Sender<Message>>, Vec<Receiver<Message>>) = (0..threads).map(|_| channel()).unzip();
    let workers: Vec<Worker> = gates
        .into_iter()
        .zip(files.drain(..))
        .zip(sets.drain(..))
        .enumerate()
        .map(|(t, ((gate, files), current))| Worker {
            t,
            gate,
            files,
            before: FingerprintSet::new(max_memory),
            current,
            kept: kept.clone(),
        })
        .collect();
    drop(kept);
    let nodes_left = meter.budget.max_nodes.saturating_sub(meter.nodes);
    let share = Budget {
        max_nodes: if nodes_left == u64::MAX { u64::MAX } else { (nodes_left / threads as u64).max(1) },
        ..meter.budget
    };
    let start = meter.start;
    let polled = &mut *meter.interrupted;
    let works: Vec<Work> = std::thread::scope(|scope| {
        let mut workers = workers.into_iter().zip(receivers);
        let (first, first_inbox) = workers.next().unwrap_or_else(|| unreachable!("a thread at least"));
        let handles: Vec<_> = workers
            .map(|(worker, inbox)| {
                let (shared, senders) = (&shared, senders.clone());
                scope.spawn(move || {
                    let mut stopped = || shared.stopping();
                    let mut meter = Meter::new(share, start, &mut stopped);
                    expand_layers(worker, inbox, senders, shared, root, rules, &mut meter)
                })
            })
            .collect();
        // The calling thread works too, and is the one that hears Ctrl-C.
        let mut heard = || {
            if shared.stopping() {
                return true;
            }
            let interrupted = polled();
            if interrupted {
                shared.note_stop(Limit::Interrupted);
            }
            interrupted
        };
        let mut own = Meter::new(share, start, &mut heard);
        let mut works = vec![expand_layers(first, first_inbox, senders, &shared, root, rules, &mut own)];
        works.extend(handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))));
        works
    });
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
    let out = match shared.first_stop.into_inner().unwrap_or_else(PoisonError::into_inner) {
        None => Ok(state.stored),
        Some(limit) => {
            // Out of memory, it keeps nothing: the next run, with more memory perhaps,
            // tries the bucket depth first again (`layered`).
            let held = kept.and_then(|k| Arc::try_unwrap(k).ok()).filter(|_| state.done == 0);
            let kept = if limit == Limit::Memory || failed {
                None
            } else {
                keep_layer(driver, key, state.done, held, &mut files, max_memory, root, rules).unwrap_or(None)
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

/// Fills layer 0: each entry of the bucket once, in its owner's file and set; or the
/// layer a kept search stopped in (its positions in thread 0's file, the others' empty),
/// with the fingerprints it kept, returned. Its size.
#[allow(clippy::too_many_arguments)]
fn first_layer(
    driver: &mut EntryQueue,
    entries: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<bool>,
    resumed: Option<Resumed>,
    source: &str,
    files: &mut [[LayerFile; 3]],
    sets: &mut [FingerprintSet],
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<(Option<FingerprintSet>, usize), Stopped> {
    let stop = |limit| Stopped { status: Status::Unknown(limit), won: false, stored: 0, kept: None };
    for f in files.iter_mut() {
        f[0].start(driver).map_err(|_| stop(Limit::Disk))?;
    }
    if let Some(Resumed { held, layer: positions }) = resumed {
        let name = positions.name();
        return match take_layer(driver, positions, &mut files[0][0]) {
            Ok(n) => Ok((Some(held), n)),
            Err(e) => {
                driver.break_down(format!("{name}: {e}"));
                Err(stop(Limit::Disk))
            }
        };
    }
    let threads = files.len();
    let (mut record, mut encoded) = (vec![], vec![]);
    let mut s = root.clone();
    let (mut read, mut len) = (0u64, 0);
    loop {
        match entries(&mut record) {
            Ok(true) => {
                if driver.codec.decode(&record, rules, &mut s).is_err() {
                    driver.break_down(format!("an entry in {source} is damaged"));
                    return Err(stop(Limit::Disk));
                }
            }
            Ok(false) => return Ok((None, len)),
            Err(e) => {
                driver.break_down(format!("{source}: {e}"));
                return Err(stop(Limit::Disk));
            }
        }
        read += 1;
        if read.is_multiple_of(CHECK_EVERY) {
            if let Some(limit) = meter.check() {
                return Err(stop(limit));
            }
        }
        if s.is_won() {
            return Err(Stopped { status: Status::Solved, won: true, stored: 0, kept: None });
        }
        let fp = s.fingerprint(rules);
        let o = owner(fp, threads);
        let others: usize = sets.iter().map(FingerprintSet::bytes).sum::<usize>() - sets[o].bytes() + driver.bytes();
        sets[o].set_others(others);
        match sets[o].insert(fp) {
            Ok(true) => {
                encoded.clear();
                driver.codec.encode(&s, rules, &mut encoded);
                files[o][0].push(&encoded, driver).map_err(|_| stop(Limit::Disk))?;
                len += 1;
            }
            Ok(false) => {}
            Err(_) => return Err(stop(Limit::Memory)),
        }
    }
}

/// A thread's search: the layers, one after another, until one has no positions or the
/// search stops; then its queue's buffers handed in.
fn expand_layers(
    mut w: Worker,
    inbox: Receiver<Message>,
    outboxes: Vec<Sender<Message>>,
    shared: &Shared,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Work {
    let _panicking = StopOnPanic(shared);
    if let Err(limit) = layers(&mut w, &inbox, &outboxes, shared, root, rules, meter) {
        shared.note_stop(limit);
    }
    if let Err(e) = w.gate.hand_in() {
        w.gate.break_down(e.to_string());
        shared.note_stop(Limit::Disk);
    }
    Work {
        failed: w.gate.failed.is_some(),
        trouble: if w.gate.broken { w.gate.trouble.take() } else { None },
        files: w.files,
        kept: w.kept,
        nodes: meter.nodes,
        max_depth: meter.max_depth,
        peak_memory: meter.peak_memory,
    }
}

/// Stops the search if its thread panics, so that no other thread waits for it for
/// ever (the panic goes on at the join).
struct StopOnPanic<'a>(&'a Shared);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.note_stop(Limit::Interrupted);
        }
    }
}

/// A batch of children for each other thread, and how many positions the next layer
/// has in this thread's shard.
struct Next {
    set: FingerprintSet,
    len: usize,
    fps: Vec<Vec<u128>>,
    children: Vec<Vec<Position>>,
}

/// The layers, from the first; Err with the budget that stopped this thread
/// (`Limit::Interrupted` when another's did).
fn layers(
    w: &mut Worker,
    inbox: &Receiver<Message>,
    outboxes: &[Sender<Message>],
    shared: &Shared,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<(), Limit> {
    let threads = shared.threads;
    let max_memory = meter.budget.max_memory;
    let mut s = root.clone();
    let mut child = root.clone();
    let (mut chunk, mut encoded) = (vec![], vec![]);
    let (mut moves, mut played) = (vec![], vec![]);
    let mut layer = 0u32;
    let mut layer_len = shared.meeting.state.lock().unwrap_or_else(PoisonError::into_inner).layer_len;
    loop {
        let began = std::time::Instant::now();
        let most = (layer_len / (threads * CHUNKS_A_THREAD)).max(1);
        let slot = (layer as usize + 1) % 3;
        w.files[slot].start(w.gate).map_err(|_| Limit::Disk)?;
        // Threads that have said they are done with this layer, this one counted.
        let mut done = 1;
        let mut own = w.before.bytes() + w.current.bytes() + w.gate.bytes();
        let mut others = shared.others(w.t);
        let mut next = Next {
            set: FingerprintSet::new(max_memory),
            len: 0,
            fps: vec![vec![]; threads],
            children: vec![vec![]; threads],
        };
        loop {
            let more = shared.reader.lock().unwrap_or_else(PoisonError::into_inner).next_chunk(
                layer,
                most,
                &shared.paths,
                &mut chunk,
            );
            match more {
                Ok(true) => {}
                Ok(false) => break,
                Err(_) => {
                    w.gate.break_down("a layer of the frontier search could not be read".into());
                    return Err(Limit::Disk);
                }
            }
            for record in records(&chunk) {
                if w.gate.codec.decode(record, rules, &mut s).is_err() {
                    w.gate.break_down("an entry of a layer of the frontier search is damaged".into());
                    return Err(Limit::Disk);
                }
                if let Some(limit) = meter.tick(layer) {
                    return Err(limit);
                }
                moves.clear();
                generate(&s, rules, false, &mut moves);
                if meter.no_time_to_grow(&next.set, moves.len()) {
                    return Err(Limit::Seconds);
                }
                let hashes = s.hashes(rules);
                child.clone_from(&s);
                next.set.set_others(own + others);
                for &m in &moves {
                    play_with_autoplay(&mut child, rules, m, &mut played);
                    let fp = child.fingerprint_after(&s, &hashes, &played);
                    if w.gate.rises(&s, &child, &played, rules) {
                        w.gate.spill(&child, fp, rules);
                    } else {
                        let o = owner(fp, threads);
                        if o == w.t {
                            if is_new(w, &mut next.set, fp)? {
                                encoded.clear();
                                w.gate.codec.encode(&child, rules, &mut encoded);
                                w.files[slot].push(&encoded, w.gate).map_err(|_| Limit::Disk)?;
                                next.len += 1;
                            }
                        } else {
                            next.fps[o].push(fp);
                            next.children[o].push(child.clone());
                            if next.fps[o].len() >= BATCH {
                                send(shared, &outboxes[o], &mut next.fps[o], &mut next.children[o]);
                            }
                        }
                    }
                    undo_to(&mut child, &mut played, 0);
                }
                if let Some(limit) = w.gate.failed {
                    return Err(limit);
                }
                while let Ok(message) = inbox.try_recv() {
                    match message {
                        Message::Children(fps, children) => {
                            take_in(w, &mut next, slot, shared, &fps, &children, rules, &mut encoded)?;
                        }
                        Message::Done => done += 1,
                    }
                }
                // What this thread holds, and what the others do, said and heard now and
                // then: a word every thread writes and reads at every position would be
                // passed between their cores all the time.
                if meter.nodes.is_multiple_of(CHECK_EVERY) {
                    own = w.before.bytes() + w.current.bytes() + w.gate.bytes();
                    shared.held[w.t].store(own + next.set.bytes(), Ordering::Relaxed);
                    others = shared.others(w.t);
                    if meter.memory(own + next.set.bytes() + others).is_some() {
                        return Err(Limit::Memory);
                    }
                }
            }
        }
        // This thread's share is expanded: what it has for the others, then "done".
        for o in (0..threads).filter(|&o| o != w.t) {
            send(shared, &outboxes[o], &mut next.fps[o], &mut next.children[o]);
            let _ = outboxes[o].send(Message::Done);
        }
        while done < threads {
            match inbox.recv_timeout(WAIT) {
                Ok(Message::Children(fps, children)) => {
                    take_in(w, &mut next, slot, shared, &fps, &children, rules, &mut encoded)?;
                }
                Ok(Message::Done) => done += 1,
                Err(RecvTimeoutError::Timeout) if !shared.stopping() => {}
                Err(_) => return Err(Limit::Interrupted),
            }
        }
        w.files[slot].finish().map_err(|_| Limit::Disk)?;
        let own = w.before.bytes() + w.current.bytes() + next.set.bytes() + w.gate.bytes();
        shared.held[w.t].store(own, Ordering::Relaxed);
        meter.note_memory(own + shared.others(w.t));
        let Some(next_len) = shared.meeting.meet(shared, next.len) else { return Err(Limit::Interrupted) };
        if w.t == 0 {
            log_layer(shared.key, layer, layer_len, next_len, began.elapsed().as_secs_f64(), threads);
        }
        if let Some(kept) = w.kept.take() {
            // The last thread to let the kept set go frees it.
            if Arc::strong_count(&kept) == 1 {
                shared.kept_bytes.store(0, Ordering::Relaxed);
            }
            drop(kept);
            // The kept set held this layer and the one before: the next needs this one's
            // alone, this thread's shard of it made again from its positions.
            let mut set = FingerprintSet::new(max_memory);
            set.set_others(next.set.bytes() + w.gate.bytes() + shared.others(w.t));
            add_owned(w, &mut set, shared, layer, root, rules)?;
            w.before = set;
            w.current = next.set;
        } else {
            w.before = std::mem::replace(&mut w.current, next.set);
        }
        if next_len == 0 {
            return Ok(());
        }
        layer += 1;
        layer_len = next_len;
    }
}

/// Whether `fp`, owned by this thread, is of none of its shard's layers; if so it is
/// now of the next.
fn is_new(w: &Worker, next: &mut FingerprintSet, fp: u128) -> Result<bool, Limit> {
    if w.kept.as_ref().is_some_and(|k| k.contains(fp)) || w.before.contains(fp) || w.current.contains(fp) {
        return Ok(false);
    }
    next.insert(fp).map_err(|_| Limit::Memory)
}

/// Sends a batch of children to their owner, if there are any.
fn send(shared: &Shared, outbox: &Sender<Message>, fps: &mut Vec<u128>, children: &mut Vec<Position>) {
    if fps.is_empty() {
        return;
    }
    shared.in_flight.fetch_add(batch_bytes(fps.len()), Ordering::Relaxed);
    // A thread gone (the search stopping) takes nothing in: the batch is let go.
    let _ = outbox.send(Message::Children(std::mem::take(fps), std::mem::take(children)));
}

/// The bytes a batch of `n` children holds.
fn batch_bytes(n: usize) -> usize {
    n * (16 + std::mem::size_of::<Position>())
}

/// Takes in a batch of children another thread sent.
#[allow(clippy::too_many_arguments)]
fn take_in(
    w: &mut Worker,
    next: &mut Next,
    slot: usize,
    shared: &Shared,
    fps: &[u128],
    children: &[Position],
    rules: &Variant,
    encoded: &mut Vec<u8>,
) -> Result<(), Limit> {
    shared.in_flight.fetch_sub(batch_bytes(fps.len()), Ordering::Relaxed);
    for (&fp, child) in fps.iter().zip(children) {
        if is_new(w, &mut next.set, fp)? {
            encoded.clear();
            w.gate.codec.encode(child, rules, encoded);
            w.files[slot].push(encoded, w.gate).map_err(|_| Limit::Disk)?;
            next.len += 1;
        }
    }
    Ok(())
}

/// Adds to `set` the fingerprints this thread owns of layer `layer`'s positions, read
/// from every thread's file of it.
fn add_owned(
    w: &mut Worker,
    set: &mut FingerprintSet,
    shared: &Shared,
    layer: u32,
    root: &Position,
    rules: &Variant,
) -> Result<(), Limit> {
    let (mut record, mut s) = (vec![], root.clone());
    for paths in &shared.paths {
        let file = File::open(&paths[layer as usize % 3]).map_err(|_| Limit::Disk)?;
        let mut reader = BufReader::with_capacity(1 << 20, file);
        while next_entry(&mut reader, &mut record).map_err(|_| Limit::Disk)? {
            if w.gate.codec.decode(&record, rules, &mut s).is_err() {
                w.gate.break_down("an entry of a layer of the frontier search is damaged".into());
                return Err(Limit::Disk);
            }
            let fp = s.fingerprint(rules);
            if owner(fp, shared.threads) == w.t {
                set.insert(fp).map_err(|_| Limit::Memory)?;
            }
        }
    }
    Ok(())
}

/// Keeps a search stopped at the start of layer `layer` (every thread having finished
/// the one before) as `frontier::keep_layer` keeps one: the fingerprints of that layer
/// and of the one before as one set (the kept search's own, `held`, if it stopped in
/// the first layer it went on with; else made again from the two layers' files), and
/// that layer's positions. None, and no file left behind, as there.
#[allow(clippy::too_many_arguments)]
fn keep_layer(
    driver: &mut EntryQueue,
    key: (usize, usize),
    layer: u32,
    held: Option<FingerprintSet>,
    files: &mut [[LayerFile; 3]],
    max_memory: usize,
    root: &Position,
    rules: &Variant,
) -> io::Result<Option<Inside>> {
    if driver.broken || driver.failed.is_some() {
        return Ok(None);
    }
    let slot = layer as usize % 3;
    // The next layer, half made, first: its memory and its disk are wanted.
    for f in files.iter_mut() {
        f[(slot + 1) % 3].release(driver);
    }
    let kept = (|| {
        let held = match held {
            Some(held) => held,
            None => {
                let mut held = FingerprintSet::new(max_memory);
                held.set_others(driver.bytes());
                let layers = if layer == 0 { vec![slot] } else { vec![(slot + 2) % 3, slot] };
                for f in files.iter_mut() {
                    for &l in &layers {
                        if add_layer(driver, &mut f[l], &mut held, root, rules).is_err() {
                            return Ok(None);
                        }
                    }
                }
                held
            }
        };
        if !driver.hold_disk_if_room(held.bytes() as u64) {
            return Ok(None);
        }
        let mut file = InsideFile::create(driver, key, STORE)?;
        held.write_to(&mut file)?;
        let store = file.finish()?;
        drop(held);
        let mut file = InsideFile::create(driver, key, UNEXPANDED)?;
        let mut record = vec![];
        for f in files.iter_mut() {
            let mut reader = f[slot].reader()?;
            while next_entry(&mut reader, &mut record)? {
                file.record(&record)?;
            }
        }
        let unexpanded = file.finish()?;
        Ok(driver.hold_disk_if_room(unexpanded.len).then_some(Inside { store, unexpanded }))
    })();
    if !matches!(kept, Ok(Some(_))) {
        driver.remove_inside_files(key);
    }
    kept
}

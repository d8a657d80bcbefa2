//! One thread of the frontier search on several threads: its share of each layer expanded, its shard's children judged, the layers' ends met with the others.

use std::fs::File;
use std::io::BufReader;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, PoisonError};

use crate::moves::generate;
use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::super::frontier::log_layer;
use super::super::meter::{Meter, CHECK_EVERY};
use super::super::play::{play_with_autoplay, undo_to};
use super::super::spill::next_entry;
use super::super::Limit;
use super::{owner, records, Message, Shared, Work, Worker, BATCH, CHUNKS_A_THREAD, WAIT};
/// A thread's search: the layers, one after another, until one has no positions or the
/// search stops; then its queue's buffers handed in.
pub(super) fn expand_layers(
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
struct StopOnPanic<'a, 'e>(&'a Shared<'e>);

impl Drop for StopOnPanic<'_, '_> {
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
    /// Threads that have said they are done with the layer, this one counted.
    done: usize,
}

impl Next {
    fn new(threads: usize, max_memory: usize) -> Next {
        Next {
            set: FingerprintSet::new(max_memory),
            len: 0,
            fps: vec![vec![]; threads],
            children: vec![vec![]; threads],
            done: 1,
        }
    }

    /// Hands `child` (fingerprint `fp`) to its owner `o`, in a batch sent when full.
    fn hand_over(&mut self, o: usize, fp: u128, child: &Position, shared: &Shared, outbox: &Sender<Message>) {
        self.fps[o].push(fp);
        self.children[o].push(child.clone());
        if self.fps[o].len() >= BATCH {
            send(shared, outbox, &mut self.fps[o], &mut self.children[o]);
        }
    }
}

/// Fills layer 0 with the bucket's entries, each once: the threads read them in chunks,
/// and each entry is kept by the thread that owns it, in its set of the layer and its
/// file, as a child is. Err with the budget that stopped this thread; a won entry stops
/// every thread (`Shared::won`).
#[allow(clippy::too_many_arguments)]
fn fill_first_layer(
    w: &mut Worker,
    entries: &std::sync::Mutex<super::Entries>,
    inbox: &Receiver<Message>,
    outboxes: &[Sender<Message>],
    shared: &Shared,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Limit> {
    let threads = shared.threads;
    let mut next = Next::new(threads, meter.budget.max_memory);
    let (mut chunk, mut record, mut encoded) = (vec![], vec![], vec![]);
    let mut s = root.clone();
    let mut read = 0u64;
    loop {
        chunk.clear();
        {
            let mut entries = entries.lock().unwrap_or_else(PoisonError::into_inner);
            while chunk.len() < super::CHUNK {
                match (*entries)(&mut record) {
                    Ok(true) => {
                        chunk.push(record.len() as u8);
                        chunk.extend_from_slice(&record);
                    }
                    Ok(false) => break,
                    Err(e) => {
                        w.gate.break_down(format!("{}: {e}", shared.source));
                        return Err(Limit::Disk);
                    }
                }
            }
        }
        if chunk.is_empty() {
            break;
        }
        for record in records(&chunk) {
            decode(w, record, rules, &mut s, || format!("an entry in {} is damaged", shared.source))?;
            read += 1;
            if read.is_multiple_of(CHECK_EVERY) {
                if let Some(limit) = meter.check() {
                    return Err(limit);
                }
            }
            if s.is_won() {
                shared.won.store(true, Ordering::Relaxed);
                return Err(Limit::Interrupted);
            }
            let fp = s.fingerprint(rules);
            let o = owner(fp, threads);
            if o != w.t {
                next.hand_over(o, fp, &s, shared, &outboxes[o]);
            } else if next.set.insert(fp).map_err(|_| Limit::Memory)? {
                encoded.clear();
                w.gate.codec.encode(&s, rules, &mut encoded);
                w.files[0].push(&encoded, w.gate).map_err(|_| Limit::Disk)?;
                next.len += 1;
            }
        }
        take_in_all(w, &mut next, 0, inbox, shared, rules, &mut encoded)?;
        let own = say_held(w, &next, shared);
        let others = shared.others(w.t);
        next.set.set_others(own - next.set.bytes() + others);
        if meter.memory(own + others).is_some() {
            return Err(Limit::Memory);
        }
    }
    let len = end_layer(w, &mut next, 0, inbox, outboxes, shared, rules, &mut encoded, meter)?;
    w.current = next.set;
    Ok(len)
}

/// Says what this thread holds, for the others to count: its shard's sets, the batches
/// it has not sent, and its queue's own buffers; and gives what it holds with the
/// buffers all the queues share (counted once, here).
fn say_held(w: &Worker, next: &Next, shared: &Shared) -> usize {
    let pending: usize = next.fps.iter().map(|fps| batch_bytes(fps.len())).sum();
    let mine = w.before.bytes() + w.current.bytes() + next.set.bytes() + pending;
    shared.held[w.t].store(mine + w.gate.own_bytes(), Ordering::Relaxed);
    mine + w.gate.bytes()
}

/// Takes in every batch waiting for this thread.
fn take_in_all(
    w: &mut Worker,
    next: &mut Next,
    slot: usize,
    inbox: &Receiver<Message>,
    shared: &Shared,
    rules: &Variant,
    encoded: &mut Vec<u8>,
) -> Result<(), Limit> {
    while let Ok(message) = inbox.try_recv() {
        match message {
            Message::Children(fps, children) => take_in(w, next, slot, shared, &fps, &children, rules, encoded)?,
            Message::Done => next.done += 1,
        }
    }
    Ok(())
}

/// Ends this thread's part of a layer whose next it writes to `slot`: what it has for
/// the others, then "done"; what they send it until each has said "done"; then the
/// meeting. The next layer's size, summed over the threads.
#[allow(clippy::too_many_arguments)]
fn end_layer(
    w: &mut Worker,
    next: &mut Next,
    slot: usize,
    inbox: &Receiver<Message>,
    outboxes: &[Sender<Message>],
    shared: &Shared,
    rules: &Variant,
    encoded: &mut Vec<u8>,
    meter: &mut Meter,
) -> Result<usize, Limit> {
    let threads = shared.threads;
    for o in (0..threads).filter(|&o| o != w.t) {
        send(shared, &outboxes[o], &mut next.fps[o], &mut next.children[o]);
        let _ = outboxes[o].send(Message::Done);
    }
    while next.done < threads {
        match inbox.recv_timeout(WAIT) {
            Ok(Message::Children(fps, children)) => take_in(w, next, slot, shared, &fps, &children, rules, encoded)?,
            Ok(Message::Done) => next.done += 1,
            Err(RecvTimeoutError::Timeout) if !shared.stopping() => {}
            Err(_) => return Err(Limit::Interrupted),
        }
    }
    w.files[slot].finish().map_err(|_| Limit::Disk)?;
    let own = say_held(w, next, shared);
    meter.note_memory(own + shared.others(w.t));
    shared.meeting.meet(shared, next.len).ok_or(Limit::Interrupted)
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
    let mut layer_len = match &shared.entries {
        Some(entries) => fill_first_layer(w, entries, inbox, outboxes, shared, root, rules, meter)?,
        None => shared.meeting.state.lock().unwrap_or_else(PoisonError::into_inner).layer_len,
    };
    if layer_len == 0 {
        return Ok(());
    }
    loop {
        let began = std::time::Instant::now();
        let most = (layer_len / (threads * CHUNKS_A_THREAD)).max(1);
        let slot = (layer as usize + 1) % 3;
        w.files[slot].start(w.gate).map_err(|_| Limit::Disk)?;
        let mut next = Next::new(threads, max_memory);
        let mut own = say_held(w, &next, shared) - next.set.bytes();
        let mut others = shared.others(w.t);
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
                decode(w, record, rules, &mut s, || DAMAGED_LAYER.into())?;
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
                            next.hand_over(o, fp, &child, shared, &outboxes[o]);
                        }
                    }
                    undo_to(&mut child, &mut played, 0);
                }
                if let Some(limit) = w.gate.failed {
                    return Err(limit);
                }
                take_in_all(w, &mut next, slot, inbox, shared, rules, &mut encoded)?;
                // What this thread holds, and what the others do, said and heard now and
                // then: a word every thread writes and reads at every position would be
                // passed between their cores all the time.
                if meter.nodes.is_multiple_of(CHECK_EVERY) {
                    own = say_held(w, &next, shared) - next.set.bytes();
                    others = shared.others(w.t);
                    if meter.memory(own + next.set.bytes() + others).is_some() {
                        return Err(Limit::Memory);
                    }
                }
            }
        }
        let next_len = end_layer(w, &mut next, slot, inbox, outboxes, shared, rules, &mut encoded, meter)?;
        if w.t == 0 {
            log_layer(shared.key, layer, layer_len, next_len, began.elapsed().as_secs_f64(), threads);
        }
        if let Some(kept) = w.kept.take() {
            // The last thread to let the kept set go frees it.
            if Arc::into_inner(kept).is_some() {
                shared.kept_bytes.store(0, Ordering::Relaxed);
            }
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
            decode(w, &record, rules, &mut s, || DAMAGED_LAYER.into())?;
            let fp = s.fingerprint(rules);
            if owner(fp, shared.threads) == w.t {
                set.insert(fp).map_err(|_| Limit::Memory)?;
            }
        }
    }
    Ok(())
}

const DAMAGED_LAYER: &str = "an entry of a layer of the frontier search is damaged";

/// Decodes `record` into `s`; a record that does not decode breaks the search down,
/// saying `what` was damaged, and stops it as the disk does.
fn decode(
    w: &mut Worker,
    record: &[u8],
    rules: &Variant,
    s: &mut Position,
    what: impl FnOnce() -> String,
) -> Result<(), Limit> {
    if w.gate.codec.decode(record, rules, s).is_err() {
        w.gate.break_down(what());
        return Err(Limit::Disk);
    }
    Ok(())
}

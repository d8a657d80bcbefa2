//! The buckets of one level of a layered proof searched on several threads at once: no bucket of a level reaches another of it.
//!
//! Every move keeps a position's class or raises its level (`layered`), so the classes of
//! one level, and the buckets that hold them, reach one another only through higher
//! levels: once the lower levels are done, the buckets of a level have all their entries
//! and may be searched in any order, at the same time. Each thread searches a bucket at a
//! time with a store of its own, its share of the memory budget, and hands the entries of
//! higher levels to the proof's queue (`spill`), which they all share with the disk
//! budget. A bucket that outgrows its thread's share is left for the driver to search
//! again alone, with the whole budget, once the level's other buckets are done: so the
//! proof stores exactly what it stores on one thread.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::position::Position;
use crate::variant::Variant;

use super::bucket::{done_with_classes, keep_inside, search_bucket, BucketEnd};
use super::depth_first::DepthFirstSearch;
use super::meter::{on_threads, Meter};
use super::spill::{Inside, Source};
use super::{Budget, Limit, Status};

/// Buckets left to the driver for want of memory, counted for the tests.
#[cfg(test)]
pub(crate) static DEFERRED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// A bucket's entries: its level and bucket, and where they are read from.
pub(super) type Bucket = ((usize, usize), Source);

/// How the search of a level ended.
pub(super) enum LevelEnd {
    /// Every bucket was searched to its end but `deferred`, which outgrew a thread's
    /// share of memory; `stored` counts the positions of those searched.
    Done { stored: usize, deferred: Vec<Bucket> },
    /// The proof stops: how, whether it may be kept to go on from, and every bucket of
    /// the level not searched to its end, whole, to be kept.
    /// `inside`: what was kept of the searches stopped inside their buckets.
    Stopped { status: Status, keep: bool, stored: usize, unread: Vec<Bucket>, inside: Vec<((usize, usize), Inside)> },
}

/// What a thread did.
#[derive(Default)]
struct Work {
    stored: usize,
    nodes: u64,
    max_depth: u32,
    peak_memory: usize,
    deferred: Vec<Bucket>,
    unread: Vec<Bucket>,
    inside: Vec<((usize, usize), Inside)>,
}

/// What the threads searching a level share: the buckets left, and why the proof stops.
struct Shared {
    queue: Mutex<VecDeque<Bucket>>,
    /// Whether every thread is to stop.
    stop: AtomicBool,
    /// The first reason the proof stopped for, and whether it may be kept.
    first_stop: Mutex<Option<(Status, bool)>>,
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Records why the proof stops, unless a reason came first, and tells every thread.
    /// The proof is kept only if no thread's reason forbids it (a win met, a file failed).
    fn note_stop(&self, status: Status, keep: bool) {
        let mut first = self.first_stop.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        first.get_or_insert((status, keep)).1 &= keep;
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Searches the buckets of `level`, `buckets`, on the threads of `searches` (each a gated
/// search with a queue of its own), the calling thread among them: it alone polls
/// `meter`'s interrupts. `meter` gets the nodes and memory of them all. `template` is
/// any position under `rules`, for entries to be decoded into.
pub(super) fn search_level(
    level: usize,
    template: &Position,
    buckets: Vec<Bucket>,
    searches: &mut [DepthFirstSearch],
    rules: &Variant,
    meter: &mut Meter,
) -> LevelEnd {
    let threads = searches.len();
    let shared = Shared {
        queue: Mutex::new(VecDeque::from(buckets)),
        stop: AtomicBool::new(false),
        first_stop: Mutex::new(None),
    };
    // Each thread's share of the nodes left; memory is each search's own share.
    let nodes_left = meter.budget.max_nodes.saturating_sub(meter.nodes);
    let share = |search: &DepthFirstSearch| Budget {
        max_nodes: if nodes_left == u64::MAX { u64::MAX } else { (nodes_left / threads as u64).max(1) },
        max_seconds: meter.budget.max_seconds,
        max_memory: search.seen.max_bytes(),
    };
    let jobs = searches
        .iter_mut()
        .map(|search| {
            let budget = share(search);
            (search, budget)
        })
        .collect();
    let works: Vec<Work> = on_threads(
        jobs,
        meter.start,
        &mut *meter.interrupted,
        &|| shared.stopping(),
        &|limit| shared.note_stop(Status::Unknown(limit), true),
        true,
        &|search, meter| work(level, template, search, &shared, rules, meter),
    );
    let mut stored = 0;
    let mut peak = 0;
    let mut deferred = vec![];
    let mut unread = vec![];
    let mut inside = vec![];
    for w in works {
        stored += w.stored;
        meter.nodes += w.nodes;
        meter.max_depth = meter.max_depth.max(w.max_depth);
        peak += w.peak_memory;
        deferred.extend(w.deferred);
        unread.extend(w.unread);
        inside.extend(w.inside);
    }
    meter.note_memory(peak);
    let stopped = shared.first_stop.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    unread.extend(shared.queue.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner));
    match stopped {
        None => {
            deferred.sort_by_key(|(key, _)| *key);
            LevelEnd::Done { stored, deferred }
        }
        Some((status, keep)) => {
            unread.extend(deferred);
            unread.sort_by_key(|(key, _)| *key);
            LevelEnd::Stopped { status, keep, stored, unread, inside }
        }
    }
}

/// One thread's share of a level: buckets off `queue` until it is empty or the proof
/// stops, each searched from all its entries; then its queue's buffers handed in.
fn work(
    level: usize,
    template: &Position,
    search: &mut DepthFirstSearch,
    shared: &Shared,
    rules: &Variant,
    meter: &mut Meter,
) -> Work {
    let mut done = Work::default();
    let mut entry = template.clone();
    let mut record = vec![];
    while !shared.stopping() {
        let next = shared.queue.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop_front();
        let Some((key, mut source)) = next else { break };
        let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
        gate.level = level;
        gate.reading = key;
        match search_bucket(search, &mut source, &mut entry, &mut record, rules, meter, false) {
            BucketEnd::Done => {
                done.stored += done_with_classes(search, meter);
                search.gate.as_mut().unwrap_or_else(|| unreachable!("gated")).done_with(source);
            }
            BucketEnd::Outgrown => {
                meter.note_memory(search.peak_bytes());
                search.abandon();
                #[cfg(test)]
                DEFERRED.fetch_add(1, Ordering::Relaxed);
                match source.rewind() {
                    Ok(()) => done.deferred.push((key, source)),
                    Err(e) => {
                        search.gate.as_mut().unwrap_or_else(|| unreachable!("gated")).break_down(e.to_string());
                        shared.note_stop(Status::Unknown(Limit::Disk), false);
                        done.unread.push((key, source));
                    }
                }
            }
            BucketEnd::Stopped(status, keep) => {
                meter.note_memory(search.peak_bytes());
                // What the search had done inside the bucket, kept to go on from. (A file
                // that cannot be written only costs that: the bucket starts afresh.)
                if keep {
                    if let Ok(Some(kept)) = keep_inside(search, key, None, rules) {
                        done.inside.push((key, kept));
                    }
                }
                search.abandon();
                // A thread stopped because another did says nothing of its own.
                if status != Status::Unknown(Limit::Interrupted) || !shared.stopping() {
                    shared.note_stop(status, keep);
                }
                done.unread.push((key, source));
            }
        }
    }
    let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
    if let Err(e) = gate.hand_in() {
        gate.break_down(e.to_string());
        shared.note_stop(Status::Unknown(Limit::Disk), false);
    }
    done.nodes = meter.nodes;
    done.max_depth = meter.max_depth;
    done.peak_memory = meter.peak_memory;
    done
}

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
//! there goes on from it, if it checks out whole, in the bucket it was in when it
//! stopped: from what that bucket's search kept (its store and the positions it had
//! not expanded, or for a breadth-first search the layer it stopped in), or else from
//! all the bucket's entries; so hours of proof can be spread over several runs.
//!
//! Its entries wait on disk in `spill`'s queue; this is the driver that reads them back,
//! bucket by bucket, and searches each.

use std::fs;
use std::io;
use std::path::Path;

use crate::position::Position;
use crate::variant::Variant;

use super::bucket::{
    depth_first_from, done_with_classes, keep_inside, search_bucket, BucketEnd, FromEntry, CHECK_ENTRIES,
};
use super::depth_first::DepthFirstSearch;
use super::frontier::{self, frontier, Resumed, Stopped};
use super::frontier_threads::frontier_on_threads;
use super::level_threads::{search_level, Bucket, LevelEnd};
use super::meter::Meter;
use super::spill::{
    self, advance, claim, keep_to_go_on, make_private_dir, Claim, EntryQueue, Next, RemovedAtEnd, RunsSoFar, Source,
    Spill,
};
use super::{Limit, Pass, Status};

/// The memory a layered proof's thread holds beside its search's counted bytes: its
/// stack, and the slack of the allocator's arena of its own. Measured: 26063 with 1
/// cell at `--max-memory 100M` peaked 15 MB higher on 2 threads than on 1 before it was
/// taken off the budget.
pub(crate) const THREAD_OVERHEAD: usize = 8 << 20;
/// The least share of the budget a thread of a layered proof is started with; the
/// command line asks for more (fcanalyze.solving.budgets.THREAD_MEMORY, 16 MiB a
/// thread, overhead included) and refuses a thread count the budget cannot give it.
pub(crate) const MIN_THREAD_SHARE: usize = 128 << 10;

#[cfg(test)]
thread_local! {
    /// Tests set this to search every bucket breadth first (`frontier`), as if each had
    /// outgrown memory, on the thread that sets it.
    pub(crate) static BREADTH_FIRST: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
thread_local! {
    /// How many times a bucket was sent breadth first (`search_outgrown`) on this thread,
    /// for the tests to see which way a proof went.
    pub(crate) static SENT_BREADTH_FIRST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn breadth_first_always() -> bool {
    #[cfg(test)]
    return BREADTH_FIRST.get();
    #[cfg(not(test))]
    false
}

/// Whether `spill` holds a kept proof of `root` under `rules` to go on from.
pub(super) fn is_kept(root: &Position, rules: &Variant, spill: &Spill) -> bool {
    let job = spill::job(root, rules);
    spill::looks_kept(&spill::kept_dir(&spill.dir, &job), &job)
}

/// Removes the proof of `start` under `rules` kept in `spill_dir`, if there is one (a
/// proof of the same job, with a checkpoint, this user's: nothing else there is
/// touched), and says whether there was. For a job settled another way, such as a
/// sweep's job that a proof with more free cells settled: nothing would ever go on
/// from its proof, which would hold its disk for good.
pub fn drop_kept(start: &Position, rules: &Variant, spill_dir: &Path) -> bool {
    let mut root = start.clone();
    root.autoplay(rules, &mut vec![]);
    let job = spill::job(&root, rules);
    spill::removable(&spill::kept_dir(spill_dir, &job), &job).is_some_and(|kept| fs::remove_dir_all(kept).is_ok())
}

/// How a layered proof ended.
pub(super) struct Layered {
    pub(super) pass: Pass,
    /// Positions stored, over every class (and every run it went on from).
    pub(super) stored: usize,
    pub(super) peak_disk: u64,
    /// What the runs it went on from had done; all zero if it started afresh.
    pub(super) earlier: RunsSoFar,
    /// Whether it stopped and was kept, to go on from.
    pub(super) kept: bool,
    /// What the job's outcome should say of the proof's files: a kept proof that was
    /// not gone on from and why, or files found damaged.
    pub(super) note: Option<String>,
    /// It met a won position: the job is won, and a search that keeps its path finds
    /// the line (the status is then unknown, for want of memory).
    pub(super) met_win: bool,
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
    let job = spill::job(root, rules);
    let kept = spill::kept_dir(&spill.dir, &job);
    let dir = spill.dir.join(format!(
        "fcanalyze-proof-{}-{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
    ));
    let mut stopped_by = None;
    let claim = claim(&kept, &dir, &job, &mut || {
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
                earlier: RunsSoFar::default(),
                kept: true,
                note: Some("stopped while the kept proof's files were being checked".into()),
                met_win: false,
            };
        }
    };
    if only_kept && checkpoint.is_none() {
        return Layered {
            pass: Pass::Undecided(0),
            stored: 0,
            peak_disk: 0,
            earlier: RunsSoFar::default(),
            kept: false,
            note,
            met_win: false,
        };
    }
    let earlier = checkpoint.as_ref().map_or_else(RunsSoFar::default, |c| c.earlier);
    if checkpoint.is_none() {
        if let Err(e) = make_private_dir(&dir) {
            return Layered {
                pass: Pass::Settled(Status::Unknown(Limit::Disk), vec![], 0),
                stored: 0,
                peak_disk: 0,
                earlier,
                kept: false,
                note: Some(format!("cannot make a directory in {}: {e}", spill.dir.display())),
                met_win: false,
            };
        }
    }
    let _removed = RemovedAtEnd(dir.clone());
    let mut gate = EntryQueue::new(root, rules, dir.clone(), spill, meter.budget.max_memory);
    match &checkpoint {
        Some(checkpoint) => gate.adopt(&checkpoint.files),
        None => gate.enqueue(root, rules),
    }
    // With several threads, one search a thread, each with its share of the memory, for
    // the buckets of a level at once (`level_threads`); and this one, with the whole
    // budget, for a bucket that outgrew a share, alone.
    // Each thread but the caller's costs memory no search counts (its stack, and an
    // arena of the allocator's that keeps some of what it frees), taken off the budget
    // first; a thread that the budget cannot give MIN_THREAD_MEMORY is not started.
    let budget = meter.budget.max_memory;
    let threads = spill.threads.clamp(1, (budget / MIN_THREAD_SHARE).max(1));
    // (A budget of a few MiB, as tests give, keeps a quarter for the threads' overhead.)
    let overhead = THREAD_OVERHEAD.min(budget / (4 * threads));
    // The driver's own queue (its cache of entries written, its buffers) stays beside
    // them too.
    let held = if threads > 1 { gate.bytes() } else { 0 };
    let share = (budget.saturating_sub((threads - 1) * overhead + held) / threads).max(MIN_THREAD_SHARE / 2);
    let mut beside: Vec<DepthFirstSearch> = if threads > 1 {
        (0..threads).map(|_| DepthFirstSearch::gated(root, rules, share, gate.another(share))).collect()
    } else {
        vec![]
    };
    let mut search = DepthFirstSearch::gated(root, rules, meter.budget.max_memory, gate);
    // Positions stored by the buckets finished.
    let mut stored = earlier.stored;
    let mut reading: Option<Source> = None;
    // The buckets of a level stopped on several threads, to be kept.
    let mut unread: Vec<Bucket> = vec![];
    // What was kept of the searches stopped inside their buckets, by level and bucket.
    let mut kept_inside = vec![];
    // The positions a kept search of the bucket being read had stored and not expanded,
    // while they are searched from (its store taken up).
    let mut unexpanded: Option<Source> = None;
    // The level whose buckets outgrew a thread's share: searched alone, one by one.
    let mut deferred_level = None;
    let mut record = vec![];
    // The entry to search from next.
    let mut start = root.clone();
    // Whether the bucket being read outgrew memory (in this run or the one kept), and
    // is searched breadth first; and what that search stored before it stopped.
    let mut outgrown = earlier.frontier && frontier::applies(rules);
    // The bucket whose breadth-first search the kept proof stopped in, kept at the start
    // of a layer, and what its layers before that stored: gone on from once. And the
    // same of this run, for its checkpoint.
    let mut kept_frontier = earlier.frontier_kept;
    if !frontier::applies(rules) {
        // A breadth-first search kept under rules it may not search (where a position
        // could be met again after its layer is forgotten, and a win inside the class
        // be missed): let go, its bucket searched again from its entries, kept whole.
        if let Some((key, _)) = kept_frontier.take() {
            let gate = gate_of(&mut search);
            if let Some(inside) = gate.take_inside(key) {
                gate.let_go_inside(key, inside);
            }
        }
    }
    let mut frontier_kept = None;
    let mut partial = 0;
    let mut entries_read = 0u64;
    // How the proof ended, and whether it may be kept to go on from.
    let (status, keep) = loop {
        let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
        // (Tests that search every bucket breadth first have the driver read each.)
        if reading.is_none() && !beside.is_empty() && !outgrown && !breadth_first_always() {
            let level = match gate.lowest_level() {
                Ok(Some(level)) => level,
                Ok(None) => break (Status::Unsolvable, false),
                Err(e) => {
                    gate.break_down(e.to_string());
                    break (Status::Unknown(Limit::Disk), false);
                }
            };
            // A bucket a kept proof stopped inside is taken up alone first (`advance`), with
            // the whole budget, since its store was kept whole.
            if deferred_level != Some(level) && !gate.stopped_inside(level) {
                // The classes searched so far are done with.
                stored += done_with_classes(&mut search, meter);
                let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
                let mut buckets = vec![];
                let mut failed = None;
                for (bucket, source) in gate.take_level(level, usize::MAX) {
                    match source {
                        Ok(source) => buckets.push(((level, bucket), source)),
                        Err(e) => failed = Some(e),
                    }
                }
                if let Some(e) = failed {
                    gate.break_down(e.to_string());
                    unread = buckets;
                    break (Status::Unknown(Limit::Disk), false);
                }
                let end = search_level(level, &start, buckets, &mut beside, rules, meter);
                for other in &mut beside {
                    let theirs = other.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
                    if let Some(trouble) = theirs.trouble.take() {
                        gate_of(&mut search).break_down(trouble);
                    }
                }
                match end {
                    LevelEnd::Done { stored: n, deferred } => {
                        stored += n;
                        if !deferred.is_empty() {
                            gate_of(&mut search).put_back(deferred);
                            deferred_level = Some(level);
                        }
                        continue;
                    }
                    LevelEnd::Stopped { status, keep, stored: n, unread: left, inside } => {
                        stored += n;
                        unread = left;
                        kept_inside = inside;
                        let broken = gate_of(&mut search).broken;
                        break (status, keep && !broken);
                    }
                }
            }
        }
        let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
        match advance(gate, &mut reading, &mut record, rules, &mut start) {
            Next::Entry => {}
            Next::Bucket => {
                // The classes searched so far are done with.
                stored += done_with_classes(&mut search, meter);
                // A bucket kept inside its breadth-first search goes on breadth first.
                let reading_key = gate_of(&mut search).reading;
                outgrown |= kept_frontier.is_some_and(|(key, _)| key == reading_key);
                // A bucket the kept proof stopped inside goes on from what it kept.
                if !outgrown {
                    match take_up_inside(&mut search, &mut start, &mut record, rules, meter) {
                        Ok(TakenUp::Searched) => {}
                        Ok(TakenUp::Outgrown) if frontier::applies(rules) => outgrown = true,
                        // Under rules the frontier search may not search, the bucket wants
                        // more memory. What its kept search held is spent: nothing inside
                        // the bucket is kept (`outgrown` says so), and the next run
                        // searches it again from its entries, which are kept whole.
                        Ok(TakenUp::Outgrown) => {
                            outgrown = true;
                            break (Status::Unknown(Limit::Memory), true);
                        }
                        Ok(TakenUp::Stopped(status, keep, source)) => {
                            unexpanded = Some(source);
                            break (status, keep);
                        }
                        Err(e) => {
                            gate_of(&mut search).break_down(e.to_string());
                            break (Status::Unknown(Limit::Disk), false);
                        }
                    }
                }
                // A bucket that outgrew memory when the proof was kept goes breadth first.
                if !(outgrown || breadth_first_always() && frontier::applies(rules)) {
                    continue;
                }
                outgrown = true;
            }
            Next::BucketDone => continue,
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
            // No path to it is kept: `met_win` says so, and the job looks for the line.
            break (Status::Solved, false);
        }
        if !outgrown {
            match depth_first_from(&mut search, &start, rules, meter, false) {
                FromEntry::Done => continue,
                FromEntry::Outgrown if frontier::applies(rules) => outgrown = true,
                FromEntry::Outgrown => break (Status::Unknown(Limit::Memory), true),
                FromEntry::Ended(status, keep) => break (status, keep),
            }
        }
        // The bucket outgrew memory: searched again, from all its entries, breadth first.
        meter.note_memory(search.peak_bytes());
        search.abandon();
        match search_outgrown(&mut search, &mut beside, &mut reading, &mut kept_frontier, root, rules, meter) {
            Ok(n) => {
                stored += n;
                outgrown = false;
            }
            Err(Stopped { status, won, stored: n, kept }) => {
                let broken = search.gate.as_ref().is_some_and(|g| g.broken);
                partial = n;
                if let Some(inside) = kept.filter(|_| !won && !broken) {
                    // Kept at the start of the layer it stopped in: the layers before it
                    // count when the next run goes on from there.
                    let key = gate_of(&mut search).reading;
                    kept_inside.push((key, inside));
                    frontier_kept = Some((key, n));
                }
                break (status, !won && !broken);
            }
        }
    };
    // Every thread's buffers in the queue, for the checkpoint.
    for other in &mut beside {
        let theirs = other.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
        if let Err(e) = theirs.hand_in() {
            theirs.break_down(e.to_string());
        }
        if let Some(trouble) = theirs.trouble.take() {
            gate_of(&mut search).break_down(trouble);
        }
    }
    meter.note_memory(search.peak_bytes());
    // The bucket stopped inside (on this thread): what its search had done, kept too.
    let stored_inside = search.seen.len();
    if keep && !outgrown && reading.is_some() {
        let key = gate_of(&mut search).reading;
        if let Ok(Some(inside)) = keep_inside(&mut search, key, unexpanded.as_mut(), rules) {
            kept_inside.push((key, inside));
        }
    }
    let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
    if let Some(trouble) = gate.trouble.take() {
        note = Some(note.map_or(trouble.clone(), |n| format!("{n}; then {trouble}")));
    }
    let peak_disk = gate.peak_disk().max(earlier.peak_disk);
    let done = RunsSoFar {
        stored,
        nodes: earlier.nodes + meter.nodes,
        seconds: earlier.seconds + meter.start.elapsed().as_secs_f64(),
        peak_disk,
        // A breadth-first search stopped for want of memory is not gone on with: the next
        // run, with a larger budget perhaps, where depth first may fit and is faster,
        // searches the bucket depth first again, and breadth first only if it outgrows that.
        frontier: outgrown && status != Status::Unknown(Limit::Memory),
        // One kept earlier and not reached in this run is kept still.
        frontier_kept: frontier_kept.or(kept_frontier),
    };
    let kept = keep
        && !gate.broken
        && match keep_to_go_on(
            gate,
            reading.map(|r| (gate.reading, r)).into_iter().chain(unread).collect(),
            kept_inside,
            &kept,
            &job,
            done,
        ) {
            Ok(()) => true,
            Err(e) => {
                let why = format!("the proof could not be kept in {}: {e}", spill.dir.display());
                note = Some(note.map_or(why.clone(), |n| format!("{n}; {why}")));
                false
            }
        };
    let stored = stored + stored_inside + partial;
    // A win met is no verdict here: the proof keeps no path to replay. The job stays
    // unknown, for want of the memory to find the line, unless its caller finds it.
    let met_win = status == Status::Solved;
    let status = if met_win { Status::Unknown(Limit::Memory) } else { status };
    Layered { pass: Pass::Settled(status, vec![], stored), stored, peak_disk, earlier, kept, note, met_win }
}

/// How taking up a kept search of the bucket being read (`take_up_inside`) ended.
enum TakenUp {
    /// Its store is taken up and every position it had not expanded searched from; or
    /// there was none, or its store does not fit this run's memory (the bucket is
    /// searched afresh).
    Searched,
    /// The bucket outgrew memory: to be searched breadth first from its entries.
    Outgrown,
    /// The proof stops: how, whether it may be kept, and the positions not expanded
    /// that are left, to be kept with what the search does now (`keep_inside`).
    Stopped(Status, bool, Source),
}

/// Goes on with the search of the bucket being read where a kept proof stopped inside
/// it, if it did: its store taken up (`EntryQueue::take_up_inside`), then a search from
/// each position it had stored and not expanded. Its entries come next, as for any
/// bucket: those searched before are in the store, and start nothing.
fn take_up_inside(
    search: &mut DepthFirstSearch,
    start: &mut Position,
    record: &mut Vec<u8>,
    rules: &Variant,
    meter: &mut Meter,
) -> io::Result<TakenUp> {
    let gate = gate_of(search);
    let key = gate.reading;
    let Some(kept) = gate.take_inside(key) else { return Ok(TakenUp::Searched) };
    let max_bytes = search.seen.max_bytes();
    let Some((store, mut source)) = gate_of(search).take_up_inside(key, kept, max_bytes)? else {
        return Ok(TakenUp::Searched);
    };
    search.seen = store;
    match search_bucket(search, &mut source, start, record, rules, meter, true) {
        BucketEnd::Done => {
            gate_of(search).done_with(source);
            Ok(TakenUp::Searched)
        }
        BucketEnd::Outgrown => {
            // Every position it holds is reached from the bucket's entries again.
            gate_of(search).done_with(source);
            Ok(TakenUp::Outgrown)
        }
        BucketEnd::Stopped(status, keep) => Ok(TakenUp::Stopped(status, keep, source)),
    }
}

/// The queue of a gated search.
fn gate_of(search: &mut DepthFirstSearch) -> &mut EntryQueue {
    search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"))
}

/// Searches the bucket being read, which outgrew memory, breadth first from all its
/// entries (`frontier`), or from where a kept proof's search of it stopped; once it is
/// done, its file is removed, as `advance` does. With searches `beside` this one, it
/// runs on as many threads, one queue each (`frontier_threads`).
fn search_outgrown(
    search: &mut DepthFirstSearch,
    beside: &mut [DepthFirstSearch],
    reading: &mut Option<Source>,
    kept_frontier: &mut Option<((usize, usize), usize)>,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Stopped> {
    #[cfg(test)]
    SENT_BREADTH_FIRST.set(SENT_BREADTH_FIRST.get() + 1);
    let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
    let disk = || Stopped { status: Status::Unknown(Limit::Disk), won: false, stored: 0, kept: None };
    if !frontier::applies(rules) {
        // Never reached (every caller asks first); a win inside a class it could miss.
        return Err(Stopped { status: Status::Unknown(Limit::Memory), won: false, stored: 0, kept: None });
    }
    let Some(source) = reading.as_mut() else { return Err(disk()) };
    let key = gate.reading;
    // A breadth-first search of this bucket kept at the start of a layer goes on from
    // there, its earlier layers counted; if its set does not fit this run's memory, the
    // bucket is searched afresh from its entries. So is one that a depth-first search
    // had kept inside: what it kept is let go.
    let earlier = kept_frontier.take_if(|(k, _)| *k == key);
    let (resumed, earlier_layers) = match (gate.take_inside(key), earlier) {
        (Some(inside), Some((_, layers))) => match gate.take_up_inside(key, inside, meter.budget.max_memory) {
            Ok(Some((held, layer))) => (Some(Resumed { held, layer }), layers),
            Ok(None) => (None, 0),
            Err(e) => {
                gate.break_down(format!("the kept breadth-first search of the bucket: {e}"));
                return Err(disk());
            }
        },
        (Some(inside), None) => {
            gate.let_go_inside(key, inside);
            (None, 0)
        }
        (None, _) => (None, 0),
    };
    if let Err(e) = source.rewind() {
        gate.break_down(format!("{}: {e}", source.name()));
        return Err(disk());
    }
    let name = source.name();
    let mut entries = |record: &mut Vec<u8>| source.next_entry(record);
    let searched = if beside.len() > 1 {
        let gates: Vec<&mut EntryQueue> = beside
            .iter_mut()
            .map(|other| {
                let theirs = other.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
                (theirs.level, theirs.reading) = (gate.level, key);
                theirs
            })
            .collect();
        frontier_on_threads(gate, gates, key, &mut entries, resumed, &name, root, rules, meter)
    } else {
        frontier(gate, key, &mut entries, resumed, &name, root, rules, meter)
    };
    let stored =
        searched.map_err(|stopped| Stopped { stored: stopped.stored + earlier_layers, ..stopped })? + earlier_layers;
    if let Some(source) = reading.take() {
        gate.done_with(source);
    }
    Ok(stored)
}

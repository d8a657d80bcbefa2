//! One bucket of a layered proof searched depth first from its entries, on whichever thread: what the driver and the level's threads share.

use std::io;

use crate::position::Position;
use crate::variant::Variant;

use super::depth_first::DepthFirstSearch;
use super::meter::Meter;
use super::spill::{EntryQueue, Inside, InsideFile, Source, STORE, UNEXPANDED};
use super::{Limit, Pass, Status};

/// The budgets and interrupts are looked at after this many entries read: entries the
/// store holds already cost no node, and a bucket may hold millions of them.
pub(super) const CHECK_ENTRIES: u64 = 256;

/// Forgets the classes `search` holds, all searched to their end, noting its memory;
/// returns how many positions they stored.
pub(super) fn done_with_classes(search: &mut DepthFirstSearch, meter: &mut Meter) -> usize {
    let stored = search.seen.len();
    meter.note_memory(search.peak_bytes());
    search.forget();
    stored
}

/// How the depth-first search of a bucket from one of its entries ended.
pub(super) enum FromEntry {
    /// Every position it reaches is searched: on to the next entry.
    Done,
    /// The bucket outgrew memory: to be searched breadth first, or again with more.
    Outgrown,
    /// The proof ends: how, and whether it may be kept to go on from.
    Ended(Status, bool),
}

/// The depth-first search of a bucket from `start`: an entry, or with `stored` a
/// position stored and not expanded when the bucket's search was kept (`keep_inside`).
pub(super) fn depth_first_from(
    search: &mut DepthFirstSearch,
    start: &Position,
    rules: &Variant,
    meter: &mut Meter,
    stored: bool,
) -> FromEntry {
    // An entry met before in this bucket starts nothing (the store has it).
    if search.start_from(start, rules, stored).is_err() {
        return FromEntry::Outgrown;
    }
    // A position stored and not expanded is a node, as it would have been had the
    // search that stored it gone on (its parent's move tried).
    if stored {
        meter.nodes += 1;
    }
    // The class's search from this entry: on to the end, or a verdict.
    let pass = loop {
        if let Some(pass) = search.step(rules, meter) {
            break pass;
        }
    };
    if let Some(gate @ EntryQueue { failed: Some(limit), .. }) = search.gate.as_ref() {
        return FromEntry::Ended(Status::Unknown(*limit), !gate.broken);
    }
    match pass {
        Pass::Settled(Status::Unsolvable, ..) => FromEntry::Done,
        // A win, with no path to it (`layered` says so, and the job looks for the line).
        Pass::Settled(Status::Solved, ..) => FromEntry::Ended(Status::Solved, false),
        Pass::Settled(Status::Unknown(Limit::Memory), ..) => FromEntry::Outgrown,
        Pass::Settled(status, ..) => FromEntry::Ended(status, true),
        Pass::Undecided(_) => unreachable!("the exhaustive pass settles"),
    }
}

/// How the search of one bucket ended.
pub(super) enum BucketEnd {
    Done,
    Outgrown,
    Stopped(Status, bool),
}

/// Searches one bucket, depth first from each of its entries; or with `stored`, from
/// each position of `source` that a kept search of the bucket stored and had not
/// expanded (`keep_inside`), its store taken up.
pub(super) fn search_bucket(
    search: &mut DepthFirstSearch,
    source: &mut Source,
    entry: &mut Position,
    record: &mut Vec<u8>,
    rules: &Variant,
    meter: &mut Meter,
    stored: bool,
) -> BucketEnd {
    let mut read = 0u64;
    loop {
        let gate = search.gate.as_mut().unwrap_or_else(|| unreachable!("gated"));
        match source.next_entry(record) {
            Ok(true) => {}
            Ok(false) => return BucketEnd::Done,
            Err(e) => {
                gate.break_down(format!("{}: {e}", source.name()));
                return BucketEnd::Stopped(Status::Unknown(Limit::Disk), false);
            }
        }
        if gate.codec.decode(record, rules, entry).is_err() {
            gate.break_down(format!("an entry in {} is damaged", source.name()));
            return BucketEnd::Stopped(Status::Unknown(Limit::Disk), false);
        }
        read += 1;
        if read.is_multiple_of(CHECK_ENTRIES) {
            if let Some(limit) = meter.check() {
                return BucketEnd::Stopped(Status::Unknown(limit), true);
            }
        }
        if entry.is_won() {
            // No path to it is kept: the job stays unknown, for want of memory.
            return BucketEnd::Stopped(Status::Solved, false);
        }
        match depth_first_from(search, entry, rules, meter, stored) {
            FromEntry::Done => {}
            FromEntry::Outgrown => return BucketEnd::Outgrown,
            FromEntry::Ended(status, keep) => return BucketEnd::Stopped(status, keep),
        }
    }
}

/// Keeps the search of bucket `key`, stopped inside it, to go on from (`Inside`): its
/// store, and every position it stored and had not expanded: its path's untried
/// children (`DepthFirstSearch::unexpanded`), then the rest of `rest`, the positions a
/// search taken up had left and this one had not yet started from. Every other position
/// stored was expanded, its entries written. So a run that goes on from these expands
/// exactly what this one had not, and stores nothing twice. None if the disk budget
/// cannot hold the store: the bucket is then searched afresh, as its entries are kept.
/// Takes the search's path apart.
pub(super) fn keep_inside(
    search: &mut DepthFirstSearch,
    key: (usize, usize),
    rest: Option<&mut Source>,
    rules: &Variant,
) -> io::Result<Option<Inside>> {
    let mut gate = search.gate.take().unwrap_or_else(|| unreachable!("gated"));
    let kept = (|| {
        if !gate.hold_disk_if_room(search.seen.bytes() as u64) {
            return Ok(None);
        }
        let mut file = InsideFile::create(&gate, key, STORE)?;
        search.seen.write_to(&mut file)?;
        let store = file.finish()?;
        let mut file = InsideFile::create(&gate, key, UNEXPANDED)?;
        let mut record = vec![];
        let mut failed = None;
        search.unexpanded(rules, &mut |position| match file.position(&gate.codec, position, rules, &mut record) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        if let Some(rest) = rest {
            while rest.next_entry(&mut record)? {
                file.record(&record)?;
            }
        }
        let unexpanded = file.finish()?;
        Ok(gate.hold_disk_if_room(unexpanded.len).then_some(Inside { store, unexpanded }))
    })();
    if !matches!(kept, Ok(Some(_))) {
        gate.remove_inside_files(key);
    }
    search.gate = Some(gate);
    kept
}

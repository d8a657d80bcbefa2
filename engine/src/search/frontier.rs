//! The frontier search: a bucket of a layered proof too big for memory, searched breadth first, holding only the layers around the one expanded.
//!
//! A layered proof searches each bucket of classes depth first, holding every position
//! of it; a class larger than memory stops it. Breadth first, a search need not hold
//! them all. Within a class every move can be taken back: a move that stays in its
//! class sends no card home and parts no out-of-order pair, so the card it moves lay
//! on a card it fits, at the foot of a column or in a cell, and a move of the same
//! kind puts it back (runs, which only the relaxed rule moves whole here, move back
//! whole, that rule setting no limit). So the positions one move from a layer lie in
//! the layer before it, in it, or in the next one, and holding those three is enough
//! never to expand a position twice (Korf's frontier search); the layers' positions
//! wait in files, a few bytes each (`Codec`), and their fingerprints in memory.
//!
//! A position is skipped only when the layers held have it, and every position they
//! hold has been expanded or will be. So the search reaches every position of the
//! bucket the depth-first search reaches, and hands the gate every position of higher
//! levels that one move leads to from them (docs/correctness.md, "The frontier search").
//! Where some move cannot be taken back (an empty column that only a king may fill;
//! under take-back, where cards home stay in the class, a card that may not come back)
//! a position could be met again after its layer is forgotten, and around a cycle
//! again and again: those rules are never searched so (`applies`).

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::path::PathBuf;

use crate::moves::generate;
use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::meter::{Meter, CHECK_EVERY};
use super::play::{play_with_autoplay, undo_to};
use super::spill::{next_entry, EntryQueue};
use super::{Limit, Status};

/// Whether the frontier search may search a bucket under `rules`: whether every move
/// that stays in its class can be taken back (see the module's comment).
pub(crate) fn applies(rules: &Variant) -> bool {
    !rules.kings_only && !rules.takeback
}

/// Why a frontier search stopped before the end of its bucket.
pub(super) struct Stopped {
    pub(super) status: Status,
    /// It met a won position, which it has no path to: going on from it would again.
    pub(super) won: bool,
    /// Positions stored by the layers it finished.
    pub(super) stored: usize,
}

/// Searches the bucket whose entries `entries` gives (each record into the vector it is
/// handed; false at the end), breadth first, handing the positions of higher
/// levels to `gate`. Ok with the positions it stored, once the bucket is done.
/// `source` names where the entries come from, for a line on what went wrong with them.
pub(super) fn frontier(
    gate: &mut EntryQueue,
    entries: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<bool>,
    source: &str,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Stopped> {
    let mut layers = [LayerFile::new(gate, "frontier-a"), LayerFile::new(gate, "frontier-b")];
    let out = search(gate, entries, source, &mut layers, root, rules, meter);
    for layer in layers {
        layer.remove(gate);
    }
    out
}

/// A layer's positions, encoded one after another as in an entry file, in a file of
/// the proof's directory: a layer may hold hundreds of millions.
struct LayerFile {
    path: PathBuf,
    writer: Option<BufWriter<File>>,
    bytes: u64,
}

impl LayerFile {
    fn new(gate: &EntryQueue, name: &str) -> LayerFile {
        LayerFile { path: gate.scratch_file(name), writer: None, bytes: 0 }
    }

    /// Empties the file, to write a layer.
    fn start(&mut self, gate: &mut EntryQueue) -> io::Result<()> {
        gate.release_disk(self.bytes);
        self.bytes = 0;
        self.writer = Some(BufWriter::with_capacity(BUFFER, File::create(&self.path)?));
        Ok(())
    }

    /// Appends a record; Err when the disk budget runs out or the file cannot be written.
    fn push(&mut self, record: &[u8], gate: &mut EntryQueue) -> io::Result<()> {
        let writer = self.writer.as_mut().ok_or_else(|| io::Error::other("layer not started"))?;
        writer.write_all(record)?;
        self.bytes += record.len() as u64;
        if gate.hold_disk(record.len() as u64) {
            Ok(())
        } else {
            Err(io::Error::other("disk budget"))
        }
    }

    /// The layer written, to read from its start.
    fn reader(&mut self) -> io::Result<BufReader<File>> {
        if let Some(writer) = self.writer.take() {
            writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        }
        Ok(BufReader::with_capacity(BUFFER, File::open(&self.path)?))
    }

    fn remove(self, gate: &mut EntryQueue) {
        drop(self.writer);
        gate.release_disk(self.bytes);
        let _ = fs::remove_file(&self.path);
    }
}

/// Each layer file reads and writes through a buffer this big.
const BUFFER: usize = 1 << 20;

fn search(
    gate: &mut EntryQueue,
    entries: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<bool>,
    source: &str,
    layers: &mut [LayerFile; 2],
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Stopped> {
    let max_memory = meter.budget.max_memory;
    let stop = |limit, stored| Stopped { status: Status::Unknown(limit), won: false, stored };
    // The fingerprints of the layer before the one expanded, of that one and of the next.
    let (mut before, mut current) = (FingerprintSet::new(max_memory), FingerprintSet::new(max_memory));
    let mut s = root.clone();
    let mut record = vec![];
    let mut encoded = vec![];
    layers[0].start(gate).map_err(|_| stop(Limit::Disk, 0))?;
    let mut read = 0u64;
    loop {
        match entries(&mut record) {
            Ok(true) => {
                if gate.codec.decode(&record, rules, &mut s).is_err() {
                    gate.break_down(format!("an entry in {source} is damaged"));
                    return Err(stop(Limit::Disk, 0));
                }
            }
            Ok(false) => break,
            Err(e) => {
                gate.break_down(format!("{source}: {e}"));
                return Err(stop(Limit::Disk, 0));
            }
        }
        read += 1;
        if read.is_multiple_of(CHECK_EVERY) {
            if let Some(limit) = meter.check() {
                return Err(stop(limit, 0));
            }
        }
        if s.is_won() {
            return Err(Stopped { status: Status::Solved, won: true, stored: 0 });
        }
        current.set_others(gate.bytes());
        match current.insert(s.fingerprint(rules)) {
            Ok(true) => {
                encoded.clear();
                gate.codec.encode(&s, rules, &mut encoded);
                layers[0].push(&encoded, gate).map_err(|_| stop(Limit::Disk, 0))?;
            }
            Ok(false) => {}
            Err(_) => return Err(stop(Limit::Memory, 0)),
        }
    }
    let mut stored = 0;
    let (mut moves, mut played) = (vec![], vec![]);
    let mut child = root.clone();
    let (mut depth, mut this) = (0u32, 0);
    while !current.is_empty() {
        let mut reader = layers[this].reader().map_err(|_| stop(Limit::Disk, stored))?;
        layers[1 - this].start(gate).map_err(|_| stop(Limit::Disk, stored))?;
        let mut next = FingerprintSet::new(max_memory);
        loop {
            match next_entry(&mut reader, &mut record) {
                Ok(true) => {
                    if gate.codec.decode(&record, rules, &mut s).is_err() {
                        gate.break_down("an entry of a layer of the frontier search is damaged".into());
                        return Err(stop(Limit::Disk, stored));
                    }
                }
                Ok(false) => break,
                Err(_) => return Err(stop(Limit::Disk, stored)),
            }
            if let Some(limit) = meter.tick(depth) {
                return Err(stop(limit, stored));
            }
            // The same moves as the exhaustive pass, and the card just moved too: a layer
            // does not say which it was.
            moves.clear();
            generate(&s, rules, false, &mut moves);
            if meter.no_time_to_grow(&next, moves.len()) {
                return Err(stop(Limit::Seconds, stored));
            }
            let hashes = s.hashes(rules);
            child.clone_from(&s);
            let others = before.bytes() + current.bytes() + gate.bytes();
            next.set_others(others);
            for &m in &moves {
                play_with_autoplay(&mut child, rules, m, &mut played);
                let fp = child.fingerprint_after(&s, &hashes, &played);
                if gate.rises(&s, &child, &played, rules) {
                    gate.spill(&child, fp, rules);
                } else if !before.contains(fp) && !current.contains(fp) {
                    match next.insert(fp) {
                        Ok(true) => {
                            encoded.clear();
                            gate.codec.encode(&child, rules, &mut encoded);
                            layers[1 - this].push(&encoded, gate).map_err(|_| stop(Limit::Disk, stored))?;
                        }
                        Ok(false) => {}
                        Err(_) => return Err(stop(Limit::Memory, stored)),
                    }
                }
                undo_to(&mut child, &mut played, 0);
            }
            if let Some(limit) = gate.failed {
                return Err(stop(limit, stored));
            }
            if meter.nodes.is_multiple_of(CHECK_EVERY) && meter.memory(others + next.bytes()).is_some() {
                return Err(stop(Limit::Memory, stored));
            }
        }
        meter.note_memory(before.bytes() + current.bytes() + next.bytes() + gate.bytes());
        stored += current.len();
        (before, current) = (current, next);
        this = 1 - this;
        depth += 1;
    }
    Ok(stored)
}

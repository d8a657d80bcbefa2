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
//!
//! Stopped by a budget inside its first layers or later, it keeps what it needs to go on
//! at the start of the layer it stopped in (`keep_layer`): the fingerprints of that
//! layer and of the one before, as one set, and that layer's positions, as a search
//! kept inside its bucket keeps its store and the positions it had not expanded. Taken
//! up (`Resumed`), the set stands for the layer expanded, and nothing held before it is
//! needed: the search goes on as if it had not stopped (docs/correctness.md, "The
//! frontier search").
//! Where some move cannot be taken back (an empty column that only a king may fill;
//! under take-back, where cards home stay in the class, a card that may not come back)
//! a position could be met again after its layer is forgotten, and around a cycle
//! again and again: those rules are never searched so (`applies`).

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Write};
use std::mem;
use std::path::PathBuf;

use crate::moves::generate;
use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::meter::{Meter, CHECK_EVERY};
use super::play::{play_with_autoplay, undo_to};
use super::spill::{next_entry, EntryQueue, Inside, InsideFile, Source, STORE, UNEXPANDED};
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
    /// What it kept to go on from the start of the layer it stopped in (`keep_layer`),
    /// in the files of a search kept inside its bucket; None if it stopped before its
    /// first layer was whole, met trouble, or could not keep them.
    pub(super) kept: Option<Inside>,
}

/// A frontier search kept at the start of a layer (`keep_layer`), taken up: the
/// fingerprints of that layer and of the one before, and that layer's positions.
pub(super) struct Resumed {
    pub(super) held: FingerprintSet,
    pub(super) layer: Source,
}

/// Searches bucket `key`, whose entries `entries` gives (each record into the vector it
/// is handed; false at the end), breadth first, handing the positions of higher
/// levels to `gate`; or goes on from where a search of it was kept (`resumed`), its
/// entries then unread. Ok with the positions it stored, once the bucket is done.
/// `source` names where the entries come from, for a line on what went wrong with them.
#[allow(clippy::too_many_arguments)]
pub(super) fn frontier(
    gate: &mut EntryQueue,
    key: (usize, usize),
    entries: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<bool>,
    resumed: Option<Resumed>,
    source: &str,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<usize, Stopped> {
    let mut layers = [LayerFile::new(gate, "frontier-a"), LayerFile::new(gate, "frontier-b")];
    let max_memory = meter.budget.max_memory;
    let mut front = Front {
        before: FingerprintSet::new(max_memory),
        current: FingerprintSet::new(max_memory),
        layer_len: 0,
        this: 0,
        stored: 0,
        resumed: false,
    };
    let out = match first_layer(gate, entries, resumed, source, &mut layers[0], &mut front, root, rules, meter) {
        Err(stopped) => Err(stopped),
        Ok(()) => match search(gate, key, &mut layers, &mut front, root, rules, meter) {
            Ok(()) => Ok(front.stored),
            Err(limit) => {
                // Out of memory, it keeps nothing: the next run, with more memory perhaps,
                // tries the bucket depth first again (`layered`).
                let kept = if limit == Limit::Memory {
                    None
                } else {
                    keep_layer(gate, key, &mut front, &mut layers, root, rules).unwrap_or(None)
                };
                Err(Stopped { status: Status::Unknown(limit), won: false, stored: front.stored, kept })
            }
        },
    };
    for layer in layers {
        layer.remove(gate);
    }
    out
}

/// Where a frontier search is: the fingerprints of the layer before the one expanded
/// and of that one, how many positions that one holds (in `layers[this]`), and the
/// positions stored by the layers finished.
struct Front {
    before: FingerprintSet,
    current: FingerprintSet,
    layer_len: usize,
    this: usize,
    stored: usize,
    /// The layer expanded is a kept search's, taken up: `current` holds the layer
    /// before it too.
    resumed: bool,
}

/// A layer's positions, encoded one after another as in an entry file, in a file of
/// the proof's directory: a layer may hold hundreds of millions.
pub(super) struct LayerFile {
    pub(super) path: PathBuf,
    writer: Option<BufWriter<File>>,
    bytes: u64,
}

impl LayerFile {
    pub(super) fn new(gate: &EntryQueue, name: &str) -> LayerFile {
        LayerFile { path: gate.scratch_file(name), writer: None, bytes: 0 }
    }

    /// Empties the file, to write a layer.
    pub(super) fn start(&mut self, gate: &mut EntryQueue) -> io::Result<()> {
        gate.release_disk(self.bytes);
        self.bytes = 0;
        self.writer = Some(BufWriter::with_capacity(BUFFER, File::create(&self.path)?));
        Ok(())
    }

    /// Appends a record; Err when the disk budget runs out or the file cannot be written.
    pub(super) fn push(&mut self, record: &[u8], gate: &mut EntryQueue) -> io::Result<()> {
        let writer = self.writer.as_mut().ok_or_else(|| io::Error::other("layer not started"))?;
        writer.write_all(record)?;
        self.bytes += record.len() as u64;
        if gate.hold_disk(record.len() as u64) {
            Ok(())
        } else {
            Err(io::Error::other("disk budget"))
        }
    }

    /// Writes out what the buffer holds: the layer is whole on disk.
    pub(super) fn finish(&mut self) -> io::Result<()> {
        if let Some(writer) = self.writer.take() {
            writer.into_inner().map_err(io::IntoInnerError::into_error)?;
        }
        Ok(())
    }

    /// The layer written, to read from its start.
    pub(super) fn reader(&mut self) -> io::Result<BufReader<File>> {
        self.finish()?;
        Ok(BufReader::with_capacity(BUFFER, File::open(&self.path)?))
    }

    /// Takes the file at `path`, `bytes` long and counted against the disk budget, as
    /// this layer's, written.
    fn adopt(&mut self, path: &std::path::Path, bytes: u64) -> io::Result<()> {
        self.writer = None;
        fs::rename(path, &self.path)?;
        self.bytes = bytes;
        Ok(())
    }

    /// Lets the file go, and the disk it held.
    pub(super) fn release(&mut self, gate: &mut EntryQueue) {
        self.writer = None;
        gate.release_disk(self.bytes);
        self.bytes = 0;
        let _ = fs::remove_file(&self.path);
    }

    pub(super) fn remove(mut self, gate: &mut EntryQueue) {
        self.release(gate);
    }
}

/// With FCANALYZE_LOG_LAYERS set (to anything but empty or 0), every layer a frontier
/// search finishes is a line on standard error: the bucket, the layer, its positions,
/// the next layer's, and the seconds it took on how many threads. A bucket bigger than
/// memory may take hours; this is how its progress, and a thread count's speed, are seen.
pub(super) fn log_layer(key: (usize, usize), layer: u32, positions: usize, next: usize, seconds: f64, threads: usize) {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *ON.get_or_init(|| std::env::var_os("FCANALYZE_LOG_LAYERS").is_some_and(|v| !v.is_empty() && v != "0")) {
        eprintln!(
            "fcanalyze: level {} bucket {} layer {layer}: {positions} positions expanded in {seconds:.1} s on {threads} thread(s), {:.0} a second; {next} in the next",
            key.0,
            key.1,
            positions as f64 / seconds.max(1e-9)
        );
    }
}

/// Each layer file reads and writes through a buffer this big.
const BUFFER: usize = 1 << 20;

/// Fills the first layer: the bucket's entries, each once; or the layer a kept search
/// stopped in, with the fingerprints it held (`Resumed`), which stand for that layer's
/// own as it is expanded (a layer's children are looked for there and in the next).
#[allow(clippy::too_many_arguments)]
fn first_layer(
    gate: &mut EntryQueue,
    entries: &mut dyn FnMut(&mut Vec<u8>) -> io::Result<bool>,
    resumed: Option<Resumed>,
    source: &str,
    layer: &mut LayerFile,
    front: &mut Front,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<(), Stopped> {
    let stop = |limit| Stopped { status: Status::Unknown(limit), won: false, stored: 0, kept: None };
    if let Some(Resumed { held, layer: positions }) = resumed {
        let name = positions.name();
        return match take_layer(gate, positions, layer) {
            Ok(n) => {
                (front.current, front.layer_len, front.resumed) = (held, n, true);
                Ok(())
            }
            Err(e) => {
                gate.break_down(format!("{name}: {e}"));
                Err(stop(Limit::Disk))
            }
        };
    }
    layer.start(gate).map_err(|_| stop(Limit::Disk))?;
    let mut record = vec![];
    let mut s = root.clone();
    let mut encoded = vec![];
    let mut read = 0u64;
    loop {
        match entries(&mut record) {
            Ok(true) => {
                if gate.codec.decode(&record, rules, &mut s).is_err() {
                    gate.break_down(format!("an entry in {source} is damaged"));
                    return Err(stop(Limit::Disk));
                }
            }
            Ok(false) => return Ok(()),
            Err(e) => {
                gate.break_down(format!("{source}: {e}"));
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
        front.current.set_others(gate.bytes());
        match front.current.insert(s.fingerprint(rules)) {
            Ok(true) => {
                encoded.clear();
                gate.codec.encode(&s, rules, &mut encoded);
                layer.push(&encoded, gate).map_err(|_| stop(Limit::Disk))?;
                front.layer_len += 1;
            }
            Ok(false) => {}
            Err(_) => return Err(stop(Limit::Memory)),
        }
    }
}

/// Makes the positions a kept search had left of its layer (`Resumed`) the first
/// layer's file: counted, reading them through (which checks their checksum), then
/// moved, not copied, so that it needs no more disk. Their number; Err, and their file
/// gone, if it could not be read whole or moved.
pub(super) fn take_layer(gate: &mut EntryQueue, mut positions: Source, layer: &mut LayerFile) -> io::Result<usize> {
    let mut record = vec![];
    let mut n = 0;
    let counted = (|| {
        while positions.next_entry(&mut record)? {
            n += 1;
        }
        Ok(())
    })();
    let Source::File(reader, path, written) = positions else {
        gate.done_with(positions);
        return Err(io::Error::other("a kept layer not in its file"));
    };
    drop(reader);
    match counted.and_then(|()| layer.adopt(&path, written.len)) {
        Ok(()) => Ok(n),
        Err(e) => {
            gate.release_disk(written.len);
            let _ = fs::remove_file(&path);
            Err(e)
        }
    }
}

/// Expands the layers one after another from the first until one has no positions;
/// Err with the budget that stopped it, `front` then at the start of the layer it
/// stopped in.
fn search(
    gate: &mut EntryQueue,
    key: (usize, usize),
    layers: &mut [LayerFile; 2],
    front: &mut Front,
    root: &Position,
    rules: &Variant,
    meter: &mut Meter,
) -> Result<(), Limit> {
    let max_memory = meter.budget.max_memory;
    let mut s = root.clone();
    let mut record = vec![];
    let mut encoded = vec![];
    let (mut moves, mut played) = (vec![], vec![]);
    let mut child = root.clone();
    let mut depth = 0u32;
    while front.layer_len > 0 {
        let this = front.this;
        let mut reader = layers[this].reader().map_err(|_| Limit::Disk)?;
        layers[1 - this].start(gate).map_err(|_| Limit::Disk)?;
        let mut next = FingerprintSet::new(max_memory);
        let mut next_len = 0;
        let began = std::time::Instant::now();
        let (before, current) = (&front.before, &front.current);
        loop {
            match next_entry(&mut reader, &mut record) {
                Ok(true) => {
                    if gate.codec.decode(&record, rules, &mut s).is_err() {
                        gate.break_down("an entry of a layer of the frontier search is damaged".into());
                        return Err(Limit::Disk);
                    }
                }
                Ok(false) => break,
                Err(_) => return Err(Limit::Disk),
            }
            if let Some(limit) = meter.tick(depth) {
                return Err(limit);
            }
            // The same moves as the exhaustive pass, and the card just moved too: a layer
            // does not say which it was.
            moves.clear();
            generate(&s, rules, false, &mut moves);
            if meter.no_time_to_grow(&next, moves.len()) {
                return Err(Limit::Seconds);
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
                            layers[1 - this].push(&encoded, gate).map_err(|_| Limit::Disk)?;
                            next_len += 1;
                        }
                        Ok(false) => {}
                        Err(_) => return Err(Limit::Memory),
                    }
                }
                undo_to(&mut child, &mut played, 0);
            }
            if let Some(limit) = gate.failed {
                return Err(limit);
            }
            if meter.nodes.is_multiple_of(CHECK_EVERY) && meter.memory(others + next.bytes()).is_some() {
                return Err(Limit::Memory);
            }
        }
        meter.note_memory(before.bytes() + current.bytes() + next.bytes() + gate.bytes());
        log_layer(key, depth, front.layer_len, next_len, began.elapsed().as_secs_f64(), 1);
        if front.resumed {
            // A kept search's set holds the layer before the one just expanded too: the
            // next layer needs this one's alone, made again from its positions (kept,
            // it would carry one more layer into every later keep).
            let mut set = FingerprintSet::new(max_memory);
            set.set_others(current.bytes() + next.bytes() + gate.bytes());
            add_layer(gate, &mut layers[this], &mut set, root, rules)?;
            front.before = set;
            front.current = next;
            front.resumed = false;
        } else {
            front.before = mem::replace(&mut front.current, next);
        }
        front.stored += front.layer_len;
        (front.layer_len, front.this) = (next_len, 1 - this);
        depth += 1;
    }
    Ok(())
}

/// Adds the fingerprints of the positions in `layer`'s file to `set`; Err(Limit::Memory)
/// if they do not fit its budget, Err(Limit::Disk) if the file cannot be read whole.
pub(super) fn add_layer(
    gate: &mut EntryQueue,
    layer: &mut LayerFile,
    set: &mut FingerprintSet,
    root: &Position,
    rules: &Variant,
) -> Result<(), Limit> {
    let (mut record, mut s) = (vec![], root.clone());
    let mut reader = layer.reader().map_err(|_| Limit::Disk)?;
    loop {
        match next_entry(&mut reader, &mut record) {
            Ok(true) => {}
            Ok(false) => return Ok(()),
            Err(_) => return Err(Limit::Disk),
        }
        if gate.codec.decode(&record, rules, &mut s).is_err() {
            gate.break_down("an entry of a layer of the frontier search is damaged".into());
            return Err(Limit::Disk);
        }
        set.insert(s.fingerprint(rules)).map_err(|_| Limit::Memory)?;
    }
}

/// Keeps a search stopped inside layer `front.this` to go on from its start, in the
/// files of a search kept inside bucket `key` (`Inside`): as the store, the fingerprints
/// of the layer before and of this one, as one set; as the positions not expanded, this
/// layer's, whole in its file. The next layer's, half made, are let go, and so are the
/// children of this layer's positions already handed to the gate: they are made again
/// (handing the gate an entry twice makes nothing twice: it is stored once, when its
/// class is searched). None if the search met trouble, the set outgrows the memory
/// budget, or the disk budget cannot hold the files; and then no file is left behind.
fn keep_layer(
    gate: &mut EntryQueue,
    key: (usize, usize),
    front: &mut Front,
    layers: &mut [LayerFile; 2],
    root: &Position,
    rules: &Variant,
) -> io::Result<Option<Inside>> {
    if gate.broken || gate.failed.is_some() {
        return Ok(None);
    }
    // The next layer, half made, first: its memory and its disk are wanted.
    layers[1 - front.this].release(gate);
    let this = &mut layers[front.this];
    let held = if front.before.is_empty() {
        // The first layer, from the entries, or that of a search taken up, whose set
        // holds the layer before it already.
        Some(mem::replace(&mut front.current, FingerprintSet::new(0)))
    } else {
        // This layer's set holds the fingerprints of its positions and no others:
        // made again from them, into the set of the layer before, with this layer's own
        // set let go first.
        front.current = FingerprintSet::new(0);
        let mut held = mem::replace(&mut front.before, FingerprintSet::new(0));
        held.set_others(gate.bytes());
        add_layer(gate, this, &mut held, root, rules).is_ok().then_some(held)
    };
    write_kept(gate, key, held, &mut [this])
}

/// Writes what is kept of a breadth-first search of bucket `key` stopped at the start of
/// a layer: `held`, the fingerprints of that layer and of the one before, as its STORE,
/// and the layer's positions (`layer`, in one file or one per thread) as its
/// UNEXPANDED. None if `held` is (it could not be made) or the disk budget cannot hold
/// them; then no file of the bucket's is left behind.
pub(super) fn write_kept(
    gate: &mut EntryQueue,
    key: (usize, usize),
    held: Option<FingerprintSet>,
    layer: &mut [&mut LayerFile],
) -> io::Result<Option<Inside>> {
    let kept = (|| {
        let Some(held) = held else { return Ok(None) };
        if !gate.hold_disk_if_room(held.bytes() as u64) {
            return Ok(None);
        }
        let mut file = InsideFile::create(gate, key, STORE)?;
        held.write_to(&mut file)?;
        let store = file.finish()?;
        drop(held);
        let mut file = InsideFile::create(gate, key, UNEXPANDED)?;
        let mut record = vec![];
        for part in layer.iter_mut() {
            let mut reader = part.reader()?;
            while next_entry(&mut reader, &mut record)? {
                file.record(&record)?;
            }
        }
        let unexpanded = file.finish()?;
        Ok(gate.hold_disk_if_room(unexpanded.len).then_some(Inside { store, unexpanded }))
    })();
    if !matches!(kept, Ok(Some(_))) {
        gate.remove_inside_files(key);
    }
    kept
}

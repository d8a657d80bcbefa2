//! What a layered proof stopped inside a bucket keeps of that bucket's search, so that the next run goes on from it: its store, and the positions it stored and had not expanded.

use std::fs;
use std::io::{self, BufReader, Read, Write};
use std::path::PathBuf;

use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::files::{self, Checked, Written};
use super::{Codec, EntryQueue, Source, BUCKETS, FILE_BUFFER};

/// What a kept proof holds of the search of a bucket it stopped inside: its store and
/// the positions stored and not expanded, in two files of the proof's directory
/// (`inside_file_name`), as written.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(in crate::search) struct Inside {
    pub(in crate::search) store: Written,
    pub(in crate::search) unexpanded: Written,
}

/// What a kept search of a bucket holds (`Inside`): its store, and the positions it
/// stored and had not expanded, each in a file named for the bucket and this.
pub(in crate::search) const STORE: &str = "store";
pub(in crate::search) const UNEXPANDED: &str = "unexpanded";

pub(super) fn inside_file_name((level, bucket): (usize, usize), what: &str) -> String {
    format!("level-{level:03}-{bucket:02}.{what}")
}

/// The level and bucket of a kept search's file's name, and which of the two it is
/// (`inside_file_name`'s, exactly).
pub(super) fn parse_inside_file_name(name: &str) -> Option<((usize, usize), &'static str)> {
    let (stem, what) = name.strip_prefix("level-")?.split_once('.')?;
    let what = [STORE, UNEXPANDED].into_iter().find(|&w| w == what)?;
    let (level, bucket) = stem.split_once('-')?;
    let key = (level.parse().ok()?, bucket.parse().ok()?);
    (inside_file_name(key, what) == name && key.1 < BUCKETS).then_some((key, what))
}

/// A file of what a search stopped inside its bucket keeps (`Inside`), being written:
/// to a name of its own, renamed to the bucket's once whole and durable, so that it may
/// replace the file it was made from (the positions not expanded that a search taken up
/// had left, `take_up_inside`).
pub(in crate::search) struct InsideFile {
    file: io::BufWriter<fs::File>,
    written: Written,
    part: PathBuf,
    path: PathBuf,
}

impl InsideFile {
    pub(in crate::search) fn create(gate: &EntryQueue, key: (usize, usize), what: &str) -> io::Result<InsideFile> {
        let path = gate.inside_file(key, what);
        let part = path.with_extension(format!("{what}.part"));
        let _ = fs::remove_file(&part);
        let file = io::BufWriter::with_capacity(1 << 20, files::create_new(&part)?);
        Ok(InsideFile { file, written: Written::default(), part, path })
    }

    /// Writes `position` as an entry is written, for `Source` to read back.
    pub(in crate::search) fn position(
        &mut self,
        codec: &Codec,
        position: &Position,
        rules: &Variant,
        record: &mut Vec<u8>,
    ) -> io::Result<()> {
        record.clear();
        // A record as an entry file holds it: its length in a byte, then its bytes.
        codec.encode(position, rules, record);
        self.write_all(record)
    }

    /// Writes an entry's bytes as read from a `Source` (without their length).
    pub(in crate::search) fn record(&mut self, record: &[u8]) -> io::Result<()> {
        let len = u8::try_from(record.len()).map_err(|_| io::Error::other("an entry of more than 255 bytes"))?;
        self.write_all(&[len])?;
        self.write_all(record)
    }

    /// Makes the file durable under the bucket's name; what was written to it.
    pub(in crate::search) fn finish(mut self) -> io::Result<Written> {
        self.file.flush()?;
        self.file.get_ref().sync_all()?;
        fs::rename(&self.part, &self.path)?;
        Ok(self.written)
    }
}

impl Write for InsideFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.file.write(bytes)?;
        self.written.add(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl EntryQueue {
    /// Lets go of what a kept proof holds of the search of bucket `key`, which is to be
    /// searched afresh from its entries: its files removed, their disk freed.
    pub(in crate::search) fn let_go_inside(&mut self, key: (usize, usize), inside: Inside) {
        self.remove_inside_files(key);
        self.release_disk(inside.store.len + inside.unexpanded.len);
    }

    /// Removes the files of a search kept inside bucket `key`, whole or half written: a
    /// search is kept whole or not at all, since a file the checkpoint does not name
    /// would spoil the proof.
    pub(in crate::search) fn remove_inside_files(&self, key: (usize, usize)) {
        for what in [STORE, UNEXPANDED] {
            let path = self.inside_file(key, what);
            let _ = fs::remove_file(path.with_extension(format!("{what}.part")));
            let _ = fs::remove_file(path);
        }
    }

    /// Takes up what a kept proof holds of the search of bucket `key`, which it stopped
    /// inside: its store, as a table within `max_bytes`, and the positions it stored and
    /// had not expanded, to be read in turn (their file is removed once read to its
    /// end, `done_with`). None, and both files removed, if the store does not fit in
    /// `max_bytes` (a run with less memory): the bucket is then searched afresh from
    /// its entries, which its file still holds whole.
    pub(in crate::search) fn take_up_inside(
        &mut self,
        key: (usize, usize),
        inside: Inside,
        max_bytes: usize,
    ) -> io::Result<Option<(FingerprintSet, Source)>> {
        let store_path = self.inside_file(key, STORE);
        let unexpanded_path = self.inside_file(key, UNEXPANDED);
        let mut file = BufReader::with_capacity(1 << 20, Checked::open(&store_path, inside.store)?);
        let store = FingerprintSet::read_from(&mut file, max_bytes)?;
        if store.is_some() && file.read(&mut [0u8; 1])? != 0 {
            return Err(io::Error::other(format!("{} holds more than its store", store_path.display())));
        }
        drop(file);
        let _ = fs::remove_file(&store_path);
        self.release_disk(inside.store.len);
        let Some(store) = store else {
            let _ = fs::remove_file(&unexpanded_path);
            self.release_disk(inside.unexpanded.len);
            return Ok(None);
        };
        let reader = BufReader::with_capacity(FILE_BUFFER, Checked::open(&unexpanded_path, inside.unexpanded)?);
        Ok(Some((store, Source::File(reader, unexpanded_path, inside.unexpanded))))
    }
}

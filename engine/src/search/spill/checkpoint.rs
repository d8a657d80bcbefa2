//! A kept proof's checkpoint: what its runs had done and every entry file it holds, and the checks before a proof goes on from it.
//!
//! A proof stopped by a budget is kept to go on from. What it proves rests on its entry
//! files, so a kept proof is gone on from only if it is exactly what was kept: the
//! checkpoint names every entry file with its length and CRC-64 (written, and made
//! durable, after them); the directory holds those files and nothing else; the
//! directory, the checkpoint and every file are this user's, and no one else may write
//! to them; and every file reads back to its length and checksum. Anything else (a
//! file deleted, truncated, damaged or replaced, a link, a FIFO, a crash before the
//! files reached the disk, a directory planted by another user) and the kept proof is
//! not gone on from: the proof starts afresh and says why.
//!
//! The CRCs catch damage, not forgery: anyone who can write the files could write
//! matching CRCs. So the checkpoint's last line is a *seal*, SipHash-2-4 of the rest
//! keyed with a secret of the user's own (`proof_key`: 16 random bytes in a file only
//! the user may read, made on first use). A checkpoint rewritten by anyone without that
//! key (to name fewer files, say, so that a lost-looking proof ends at once) does not
//! check out. docs/correctness.md ("Kept proofs") states the trust model.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use std::sync::OnceLock;

use super::files::{self, not_private, Written};

/// The file that makes a kept proof's directory one to go on from. Written last,
/// once every entry is in its file, and removed first when a proof goes on from it:
/// a directory without it (a proof that crashed, or one running) is never used.
pub(crate) const CHECKPOINT: &str = "checkpoint";
/// A checkpoint names a few thousand files at most; past this it is not one.
const MAX_CHECKPOINT_BYTES: u64 = 16 << 20;

/// What the runs of a kept proof had done when it stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RunsSoFar {
    /// Positions stored by the buckets it finished.
    pub(crate) stored: usize,
    pub(crate) nodes: u64,
    pub(crate) seconds: f64,
    pub(crate) peak_disk: u64,
    /// The bucket it stopped in had outgrown memory: it is searched breadth first
    /// (`frontier`) when the proof goes on.
    pub(crate) frontier: bool,
    /// The bucket whose breadth-first search was kept at the start of the layer it
    /// stopped in (its fingerprints and positions in the files of a search kept inside
    /// it), and the positions the layers before that one stored, counted only if the
    /// next run goes on from there (`frontier::Resumed`).
    pub(crate) frontier_kept: Option<((usize, usize), usize)>,
}

/// A kept proof: what it had done, and its entry files by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Checkpoint {
    pub(crate) earlier: RunsSoFar,
    pub(crate) files: BTreeMap<String, Written>,
}

impl Checkpoint {
    fn text(&self, job: &str, key: &[u8; 16]) -> String {
        let e = &self.earlier;
        let mut text = format!(
            "{job}\nstored {}\nnodes {}\nseconds {}\npeak_disk {}\nfrontier {}\n",
            e.stored,
            e.nodes,
            e.seconds,
            e.peak_disk,
            u8::from(e.frontier),
        );
        // Written only when there is one: a checkpoint without it reads as it always did.
        if let Some(((level, bucket), stored)) = e.frontier_kept {
            text += &format!("frontier_kept {level} {bucket} {stored}\n");
        }
        text += &format!("files {}\n", self.files.len());
        for (name, w) in &self.files {
            text += &format!("{name} {} {:016x}\n", w.len, w.crc);
        }
        // The seal, last: a checkpoint cut short, changed, or written without the
        // user's key is none.
        text += &format!("seal {:016x}\n", seal(key, text.as_bytes()));
        text
    }

    /// Writes the checkpoint into `dir`, durably, after making every file it names
    /// durable: after a crash it is there with the files whole, or not at all.
    pub(crate) fn write(&self, dir: &Path, job: &str) -> io::Result<()> {
        let key = proof_key()?;
        for name in self.files.keys() {
            files::sync(&dir.join(name))?;
        }
        let part = dir.join(format!("{CHECKPOINT}.part"));
        let _ = fs::remove_file(&part);
        let mut file = files::create_new(&part)?;
        file.write_all(self.text(job, &key).as_bytes())?;
        file.sync_all()?;
        fs::rename(&part, dir.join(CHECKPOINT))?;
        files::sync(dir)
    }

    /// The checkpoint of `job` in `dir`, the directory named for the job; Err with the
    /// reason if there is none (no run leaves the job's directory without one: a proof
    /// is renamed to it once its checkpoint is written, and away from it before the
    /// checkpoint is removed) or it cannot be trusted.
    fn read(dir: &Path, job: &str) -> Result<Checkpoint, String> {
        let path = dir.join(CHECKPOINT);
        let mut file = match files::open_read(&path, true) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err("it holds no checkpoint".into()),
            Err(e) => return Err(e.to_string()),
        };
        let mut bytes = vec![];
        Read::by_ref(&mut file).take(MAX_CHECKPOINT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        if bytes.len() as u64 > MAX_CHECKPOINT_BYTES {
            return Err("its checkpoint is too big to be one".into());
        }
        let text = String::from_utf8(bytes).map_err(|_| "its checkpoint is not text".to_string())?;
        // The job (with the format) is hashed into the directory's name: another job's
        // checkpoint there is a damaged one.
        if text.lines().next() != Some(job) {
            return Err("its checkpoint is of another job".into());
        }
        let key = proof_key().map_err(|e| format!("the key that seals kept proofs cannot be read: {e}"))?;
        parse(&text, &key)
            .ok_or_else(|| "its checkpoint is damaged, or was not sealed with this user's key".to_string())
    }
}

/// The checkpoint in `text`, whose first line is its job's; None if any line is not
/// as `Checkpoint::text` writes it.
fn parse(text: &str, key: &[u8; 16]) -> Option<Checkpoint> {
    let body_end = text.rfind("seal ")?;
    let (body, check) = text.split_at(body_end);
    if check != format!("seal {:016x}\n", seal(key, body.as_bytes())) {
        return None;
    }
    let mut lines = body.lines().skip(1);
    fn value<T: std::str::FromStr>(line: Option<&str>, name: &str) -> Option<T> {
        line?.strip_prefix(name)?.strip_prefix(' ')?.parse().ok()
    }
    let earlier = RunsSoFar {
        stored: value(lines.next(), "stored")?,
        nodes: value(lines.next(), "nodes")?,
        seconds: value::<f64>(lines.next(), "seconds").filter(|s| s.is_finite() && *s >= 0.0)?,
        peak_disk: value(lines.next(), "peak_disk")?,
        frontier: match value::<u8>(lines.next(), "frontier")? {
            0 => false,
            1 => true,
            _ => return None,
        },
        frontier_kept: None,
    };
    let mut earlier = earlier;
    let mut line = lines.next();
    if let Some(kept) = line.and_then(|l| l.strip_prefix("frontier_kept ")) {
        let numbers: Vec<usize> = kept.split(' ').map(str::parse).collect::<Result<_, _>>().ok()?;
        let [level, bucket, stored] = numbers[..] else { return None };
        earlier.frontier_kept = Some(((level, bucket), stored));
        line = lines.next();
    }
    let count: usize = value(line, "files")?;
    let mut files = BTreeMap::new();
    for line in lines.by_ref().take(count) {
        let mut parts = line.split(' ');
        let (name, len, crc) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || !is_entry_file(name) {
            return None;
        }
        let written = Written { len: len.parse().ok()?, crc: u64::from_str_radix(crc, 16).ok()? };
        files.insert(name.to_string(), written);
    }
    (files.len() == count && lines.next().is_none()).then_some(Checkpoint { earlier, files })
}

/// SipHash-2-4 of `bytes` under `key`: a keyed hash, which no one without the key can
/// compute for a text of their own. (std's SipHasher is deprecated as a HashMap hasher,
/// for speed; as a keyed hash it is what is needed.)
#[allow(deprecated)]
fn seal(key: &[u8; 16], bytes: &[u8]) -> u64 {
    use std::hash::Hasher;
    let (k0, k1) = key.split_at(8);
    let mut hasher = std::hash::SipHasher::new_with_keys(
        u64::from_le_bytes(k0.try_into().unwrap_or_else(|_| unreachable!("8 bytes"))),
        u64::from_le_bytes(k1.try_into().unwrap_or_else(|_| unreachable!("8 bytes"))),
    );
    hasher.write(bytes);
    hasher.finish()
}

/// The environment variable that names the key's file instead (tests use it).
pub(crate) const KEY_FILE_VARIABLE: &str = "FCANALYZE_PROOF_KEY";

/// Where the user's key lives: $FCANALYZE_PROOF_KEY, else
/// $XDG_CONFIG_HOME/fcanalyze/proof-key, else ~/.config/fcanalyze/proof-key.
fn key_path() -> io::Result<PathBuf> {
    if let Some(path) = std::env::var_os(KEY_FILE_VARIABLE).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|p| !p.is_empty()).map(|h| PathBuf::from(h).join(".config")))
        .ok_or_else(|| io::Error::other("neither HOME nor XDG_CONFIG_HOME is set"))?;
    Ok(config.join("fcanalyze").join("proof-key"))
}

/// The user's key for sealing kept proofs: read from its file, or made there (16 bytes
/// from the OS's random source, the file readable and writable by the user alone) on
/// first use. A key file that others may read or write is refused: with it, anyone
/// could seal a forged checkpoint.
fn proof_key() -> io::Result<[u8; 16]> {
    static KEY: OnceLock<Result<[u8; 16], String>> = OnceLock::new();
    KEY.get_or_init(|| load_or_make_key(&key_path().map_err(|e| e.to_string())?).map_err(|e| e.to_string()))
        .clone()
        .map_err(io::Error::other)
}

fn load_or_make_key(path: &Path) -> io::Result<[u8; 16]> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
    if let Some(parent) = path.parent() {
        fs::DirBuilder::new().recursive(true).mode(0o700).create(parent)?;
    }
    match fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
        Ok(mut file) => {
            let mut key = [0u8; 16];
            fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
            file.write_all(&key)?;
            file.sync_all()?;
            Ok(key)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            let meta = fs::symlink_metadata(path)?;
            // SAFETY: geteuid has no preconditions and cannot fail.
            let me = unsafe { libc::geteuid() };
            if !meta.is_file() || meta.uid() != me || meta.mode() & 0o077 != 0 {
                return Err(io::Error::other(format!(
                    "{} must be a file of this user's that no one else may read or write (chmod 600 it)",
                    path.display()
                )));
            }
            let mut key = [0u8; 16];
            let mut file = fs::File::open(path)?;
            file.read_exact(&mut key)?;
            Ok(key)
        }
        Err(e) => Err(e),
    }
}

/// Whether `name` is an entry file's (`entry_file_name`'s), the only files a checkpoint names.
/// An entry file's name, or one of a search kept inside its bucket (`Inside`).
fn is_entry_file(name: &str) -> bool {
    super::parse_file_name(name).is_some() || super::parse_inside_file_name(name).is_some()
}

/// What became of a kept proof of the job.
pub(crate) enum Claim {
    /// There is none: the proof starts afresh.
    None,
    /// It checked out, and is now the proof's own directory.
    Resumed(Checkpoint),
    /// It could not be trusted, and the proof starts afresh: why. It was removed if it
    /// was this user's, and left alone otherwise.
    Refused(String),
    /// `keep_going` said to stop while the files were being read; the kept proof is
    /// left as it was.
    Stopped,
}

/// Takes over the kept proof of `job` at `kept`, if there is one that checks out (see
/// the module's comment), as `dir`: renamed, so that of two proofs of one job only one
/// goes on from it, its checkpoint removed, so that a run that dies leaves nothing to
/// go on from.
pub(crate) fn claim(kept: &Path, dir: &Path, job: &str, keep_going: &mut dyn FnMut() -> bool) -> Claim {
    let meta = match fs::symlink_metadata(kept) {
        Ok(meta) => meta,
        Err(_) => return Claim::None,
    };
    // Another user's, or one others may write to: not ours to trust or to remove.
    if !meta.is_dir() {
        return Claim::Refused(format!("{} is not a directory; it was left alone", kept.display()));
    }
    if let Some(why) = not_private(&meta) {
        return Claim::Refused(format!("{} {why}; it was left alone", kept.display()));
    }
    let checkpoint = match check(kept, job, keep_going) {
        Ok(checkpoint) => checkpoint,
        Err(Check::Stopped) => return Claim::Stopped,
        Err(Check::Bad(why)) => {
            let _ = fs::remove_dir_all(kept);
            return Claim::Refused(format!("the proof kept in {} was discarded: {why}", kept.display()));
        }
    };
    if fs::rename(kept, dir).is_err() || fs::remove_file(dir.join(CHECKPOINT)).is_err() {
        let _ = fs::remove_dir_all(dir);
        return Claim::Refused(format!("the proof kept in {} could not be taken over", kept.display()));
    }
    let _ = files::sync(dir);
    Claim::Resumed(checkpoint)
}

enum Check {
    Bad(String),
    Stopped,
}

/// The kept proof at `kept`, checked whole (see the module's comment).
fn check(kept: &Path, job: &str, keep_going: &mut dyn FnMut() -> bool) -> Result<Checkpoint, Check> {
    let checkpoint = Checkpoint::read(kept, job).map_err(Check::Bad)?;
    let listed = fs::read_dir(kept).map_err(|e| Check::Bad(e.to_string()))?;
    let mut present = vec![];
    for entry in listed {
        let name = entry.map_err(|e| Check::Bad(e.to_string()))?.file_name().to_string_lossy().into_owned();
        if name != CHECKPOINT {
            present.push(name);
        }
    }
    if let Some(extra) = present.iter().find(|name| !checkpoint.files.contains_key(*name)) {
        return Err(Check::Bad(format!("it holds {extra}, which its checkpoint does not name")));
    }
    if let Some(missing) = checkpoint.files.keys().find(|name| !present.contains(name)) {
        return Err(Check::Bad(format!("{missing}, which its checkpoint names, is missing")));
    }
    for (name, &written) in &checkpoint.files {
        match files::verify(&kept.join(name), written, keep_going) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Err(Check::Stopped),
            Err(e) => return Err(Check::Bad(e.to_string())),
        }
    }
    Ok(checkpoint)
}

/// Whether `kept` holds a checkpoint of `job` that is this user's: a proof to go on
/// from, unless its files turn out not to check out (`claim` reads them all).
pub(crate) fn looks_kept(kept: &Path, job: &str) -> bool {
    fs::symlink_metadata(kept).is_ok_and(|m| m.is_dir() && not_private(&m).is_none())
        && Checkpoint::read(kept, job).is_ok()
}

/// A kept proof's directory, for `drop_kept` to remove: only a private one of `job`.
pub(crate) fn removable(kept: &Path, job: &str) -> Option<PathBuf> {
    looks_kept(kept, job).then(|| kept.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_reads_back_as_written_and_any_change_to_it_is_refused() {
        let mut files = BTreeMap::new();
        files.insert("level-038-05.entries".to_string(), Written { len: 284_165, crc: 0x1234_5678_9abc_def0 });
        files.insert("level-039-00.entries".to_string(), Written { len: 36, crc: 7 });
        let checkpoint = Checkpoint {
            earlier: RunsSoFar {
                stored: 5,
                nodes: 6,
                seconds: 7.25,
                peak_disk: 8,
                frontier: true,
                frontier_kept: Some(((41, 7), 9)),
            },
            files,
        };
        let key = [7u8; 16];
        let text = checkpoint.text("job", &key);
        assert_eq!(parse(&text, &key), Some(checkpoint.clone()));
        // Without a breadth-first search kept at a layer's start, as checkpoints were.
        let plain =
            Checkpoint { earlier: RunsSoFar { frontier_kept: None, ..checkpoint.earlier }, ..checkpoint.clone() };
        let plain_text = plain.text("job", &key);
        assert!(!plain_text.contains("frontier_kept"));
        assert_eq!(parse(&plain_text, &key), Some(plain));
        // Sealed with another key (anyone else's, or a forger's): refused.
        assert_eq!(parse(&checkpoint.text("job", &[8u8; 16]), &key), None);
        // Each byte changed, and each length cut short: never read as a checkpoint.
        for i in 4..text.len() {
            let mut bytes = text.clone().into_bytes();
            bytes[i] ^= 0x01;
            if let Ok(changed) = String::from_utf8(bytes) {
                assert_eq!(parse(&changed, &key), None, "byte {i} changed");
            }
            assert_eq!(parse(&text[..i], &key), None, "cut at {i}");
        }
        let nan = Checkpoint { earlier: RunsSoFar { seconds: f64::NAN, ..checkpoint.earlier }, ..checkpoint };
        assert_eq!(parse(&nan.text("job", &key), &key), None, "seconds must be a number");
    }
}

//! A layered proof's files on disk: each entry file's length and checksum as written, and opening that follows no link and reads only regular files.
//!
//! A proof ends "unsolvable" only once it has read every entry it wrote. So a file
//! that does not hold what was written to it (truncated, replaced, damaged, or grown
//! by someone else) must be noticed, never read as if it were whole: every file is
//! checked against its length and CRC-64 whenever it is opened, and when read to its
//! end. A spill directory may be shared (`/tmp`): files are opened without following
//! symbolic links (O_NOFOLLOW), without waiting on a FIFO (O_NONBLOCK), and only if
//! they are regular files.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// What a file holds: its length and the CRC-64 of its bytes, as written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub(crate) len: u64,
    pub(crate) crc: u64,
}

impl Written {
    /// Counts `bytes` appended.
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        self.len += bytes.len() as u64;
        self.crc = crc64(self.crc, bytes);
    }
}

/// CRC-64/XZ (the ECMA-182 polynomial, reflected) of `bytes` appended to data whose CRC
/// was `crc`: a file's checksum grows with it, appends at a time.
pub(crate) fn crc64(crc: u64, bytes: &[u8]) -> u64 {
    let mut c = !crc;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        // Slicing by 8: the eight bytes' effects looked up at once.
        let v = c ^ u64::from_le_bytes(chunk.try_into().unwrap_or_else(|_| unreachable!("8 bytes")));
        c = (0..8).fold(0, |acc, i| acc ^ CRC_TABLES[7 - i][((v >> (8 * i)) & 0xff) as usize]);
    }
    for &b in chunks.remainder() {
        c = CRC_TABLES[0][((c ^ u64::from(b)) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

const CRC_POLY: u64 = 0xC96C_5795_D787_0F42;
static CRC_TABLES: [[u64; 256]; 8] = crc_tables();

const fn crc_tables() -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ CRC_POLY } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut j = 1;
    while j < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[j - 1][i];
            t[j][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        j += 1;
    }
    t
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

fn name_of(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// `options.open(path)`, its error naming the file and saying plainly that a link was
/// not followed.
fn open_with(options: &OpenOptions, path: &Path) -> io::Result<File> {
    options.open(path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return invalid(format!("{} is a symbolic link, which is never followed", name_of(path)));
        }
        io::Error::new(e.kind(), format!("{}: {e}", name_of(path)))
    })
}

#[cfg(unix)]
fn options() -> OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = OpenOptions::new();
    options.mode(0o600).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
    options
}

#[cfg(not(unix))]
fn options() -> OpenOptions {
    OpenOptions::new()
}

/// Opens `path` to append to it (creating it), checking that it is a regular file that
/// holds what `written` says was written to it.
pub(crate) fn open_append(path: &Path, written: &Written) -> io::Result<File> {
    let file = open_with(options().append(true).create(true), path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(invalid(format!("{} is not a regular file", name_of(path))));
    }
    if meta.len() != written.len {
        return Err(invalid(format!(
            "{} holds {} bytes, {} were written to it",
            name_of(path),
            meta.len(),
            written.len
        )));
    }
    Ok(file)
}

/// Creates `path`, which must not exist, for writing.
pub(crate) fn create_new(path: &Path) -> io::Result<File> {
    open_with(options().write(true).create_new(true), path)
}

/// Opens `path` to read it, if it is a regular file (and, with `private`, one of this
/// user's that no one else may write to).
pub(crate) fn open_read(path: &Path, private: bool) -> io::Result<File> {
    let file = open_with(options().read(true), path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(invalid(format!("{} is not a regular file", name_of(path))));
    }
    if private {
        if let Some(why) = not_private(&meta) {
            return Err(invalid(format!("{} {why}", name_of(path))));
        }
    }
    Ok(file)
}

/// Why a file or directory of a kept proof may not be trusted: another user owns it,
/// or others may write to it (so they could have planted or changed what it holds).
/// None if it is this user's own.
#[cfg(unix)]
pub(crate) fn not_private(meta: &std::fs::Metadata) -> Option<&'static str> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        Some("is owned by another user")
    } else if meta.mode() & 0o022 != 0 {
        Some("may be written by other users")
    } else {
        None
    }
}

#[cfg(not(unix))]
pub(crate) fn not_private(_meta: &std::fs::Metadata) -> Option<&'static str> {
    None
}

/// A file being read that checks, at its end, that it held what was written to it:
/// the reader sees an error rather than the end if it did not.
pub(crate) struct Checked {
    file: File,
    name: String,
    expected: Written,
    seen: Written,
}

impl Checked {
    pub(crate) fn open(path: &Path, expected: Written) -> io::Result<Checked> {
        let file = open_read(path, false)?;
        let len = file.metadata()?.len();
        if len != expected.len {
            return Err(invalid(format!("{} holds {len} bytes, {} were written to it", name_of(path), expected.len)));
        }
        Ok(Checked { file, name: name_of(path), expected, seen: Written::default() })
    }
}

impl Read for Checked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read(buf)?;
        self.seen.add(&buf[..n]);
        if n == 0 && !buf.is_empty() && self.seen != self.expected {
            return Err(invalid(if self.seen.len == self.expected.len {
                format!("{}'s checksum is not that of what was written to it", self.name)
            } else {
                format!("{} held {} bytes, {} were written to it", self.name, self.seen.len, self.expected.len)
            }));
        }
        if self.seen.len > self.expected.len {
            return Err(invalid(format!(
                "{} holds more than the {} bytes written to it",
                self.name, self.expected.len
            )));
        }
        Ok(n)
    }
}

impl Seek for Checked {
    /// Back to the start only: the checksum is of the bytes from there.
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        if to != SeekFrom::Start(0) {
            return Err(io::Error::new(io::ErrorKind::Unsupported, "a checked file goes back to its start only"));
        }
        self.seen = Written::default();
        self.file.seek(to)
    }
}

/// Reads `path` whole and checks that it is a private regular file holding `expected`;
/// `keep_going` is asked between megabytes whether to go on (false: Interrupted).
pub(crate) fn verify(path: &Path, expected: Written, keep_going: &mut dyn FnMut() -> bool) -> io::Result<()> {
    let file = open_read(path, true)?;
    let mut checked = Checked { file, name: name_of(path), expected, seen: Written::default() };
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        if !keep_going() {
            return Err(io::Error::new(io::ErrorKind::Interrupted, "stopped while checking a kept proof"));
        }
        if checked.read(&mut buffer)? == 0 {
            return Ok(());
        }
    }
}

/// Makes what was written to `file` (a file or a directory) durable.
pub(crate) fn sync(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc64_is_crc_64_xz_and_grows_by_appends() {
        assert_eq!(crc64(0, b"123456789"), 0x995D_C9BB_DF19_39FA);
        let text: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = crc64(0, &text);
        for cut in [0, 1, 7, 8, 9, 500, 999, 1000] {
            assert_eq!(crc64(crc64(0, &text[..cut]), &text[cut..]), whole, "cut at {cut}");
        }
    }

    #[test]
    fn a_checked_file_refuses_what_was_not_written_to_it() {
        let dir = std::env::temp_dir().join(format!("fcanalyze-files-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).expect("a directory");
        let path = dir.join("f");
        let mut written = Written::default();
        let bytes: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        io::Write::write_all(&mut open_append(&path, &written).expect("new"), &bytes).expect("written");
        written.add(&bytes);
        let read_all = |w: Written| -> io::Result<Vec<u8>> {
            let mut out = vec![];
            Checked::open(&path, w)?.read_to_end(&mut out)?;
            Ok(out)
        };
        assert_eq!(read_all(written).expect("whole"), bytes);
        assert!(read_all(Written { crc: written.crc ^ 1, ..written }).is_err());
        assert!(read_all(Written { len: written.len - 1, ..written }).is_err());
        // Appending to a file that does not hold what was written fails.
        assert!(open_append(&path, &Written::default()).is_err());
        #[cfg(unix)]
        {
            let link = dir.join("link");
            std::os::unix::fs::symlink(&path, &link).expect("a link");
            assert!(open_append(&link, &written).is_err(), "links are not followed");
            assert!(Checked::open(&link, written).is_err());
            assert!(open_read(Path::new("/dev/zero"), false).is_err(), "only regular files");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

//! A frontier search on several threads, stopped, kept in the files a search on one thread keeps.

use std::io;

use crate::position::Position;
use crate::variant::Variant;
use crate::visited::FingerprintSet;

use super::super::frontier::{add_layer, write_kept, LayerFile};
use super::super::spill::{EntryQueue, Inside};
/// Keeps a search stopped at the start of layer `layer` (every thread having finished
/// the one before) as `frontier::keep_layer` keeps one: the fingerprints of that layer
/// and of the one before as one set (the kept search's own, `held`, if it stopped in
/// the first layer it went on with; else made again from the two layers' files), and
/// that layer's positions. None, and no file left behind, as there.
#[allow(clippy::too_many_arguments)]
pub(super) fn keep_layer(
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
    let held = match held {
        Some(held) => Some(held),
        None => (|| {
            let mut held = FingerprintSet::new(max_memory);
            held.set_others(driver.bytes());
            let layers = if layer == 0 { vec![slot] } else { vec![(slot + 2) % 3, slot] };
            for f in files.iter_mut() {
                for &l in &layers {
                    add_layer(driver, &mut f[l], &mut held, root, rules).ok()?;
                }
            }
            Some(held)
        })(),
    };
    write_kept(driver, key, held, &mut files.iter_mut().map(|f| &mut f[slot]).collect::<Vec<_>>())
}

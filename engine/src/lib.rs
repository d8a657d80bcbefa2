//! fcanalyze's search engine: FreeCell positions and the search that decides them.
//!
//! Nothing here knows about Python except `python`, compiled only with the
//! `python` feature that maturin turns on.

pub mod card;
pub mod moves;
pub mod notation;
pub mod position;
pub mod search;
pub mod shorten;
mod slots;
pub mod variant;
pub mod visited;

#[cfg(test)]
mod differential;
#[cfg(test)]
mod testdata;

#[cfg(feature = "python")]
mod python;

/// The engine's version, which is also the package's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

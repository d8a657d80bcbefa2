//! The Python bindings, imported as `fcanalyze._engine`; the only module that knows pyo3.

use std::fmt::Write;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::position::Position;
use crate::search::{self, Budget, Request, Spill, Status};
use crate::variant::{SequenceMoves, Variant, MAX_CELLS, MAX_COLUMNS};

/// The rules a search plays, handed over once per job: fcanalyze.solving.solve builds it
/// from a fcanalyze.Variant (the same concept, the same name on both sides).
#[pyclass(frozen, name = "Variant", module = "fcanalyze._engine")]
struct PyVariant(Variant);

#[pymethods]
impl PyVariant {
    #[new]
    #[pyo3(signature = (*, cells, columns, same_suit=false, kings_only=false, sequence_moves="supermove", takeback=false))]
    fn new(
        cells: usize,
        columns: usize,
        same_suit: bool,
        kings_only: bool,
        sequence_moves: &str,
        takeback: bool,
    ) -> PyResult<Self> {
        let sequence_moves = match sequence_moves {
            "supermove" => SequenceMoves::Supermove,
            "single" => SequenceMoves::Single,
            "relaxed" => SequenceMoves::Relaxed,
            other => return Err(PyValueError::new_err(format!("unknown sequence_moves {other:?}"))),
        };
        if cells > MAX_CELLS || !(4..=MAX_COLUMNS).contains(&columns) {
            return Err(PyValueError::new_err("cells must be 0..8 and columns 4..10"));
        }
        Ok(PyVariant(Variant { cells, columns, same_suit, kings_only, sequence_moves, takeback }))
    }

    fn __repr__(&self) -> String {
        let v = &self.0;
        format!(
            "Variant(cells={}, columns={}, same_suit={}, kings_only={}, sequence_moves={:?}, takeback={})",
            v.cells,
            v.columns,
            if v.same_suit { "True" } else { "False" },
            if v.kings_only { "True" } else { "False" },
            match v.sequence_moves {
                SequenceMoves::Supermove => "supermove",
                SequenceMoves::Single => "single",
                SequenceMoves::Relaxed => "relaxed",
            },
            if v.takeback { "True" } else { "False" },
        )
    }
}

/// More threads than any machine has cores: the Python side refuses the same
/// (fcanalyze.solving.budgets.MAX_THREADS).
const MAX_THREADS: usize = 1024;

/// Where and how a proof too big for memory goes on as a layered proof, handed over with
/// the budgets: fcanalyze.solving.solve builds it from a fcanalyze.solving.budgets.Budgets.
#[pyclass(frozen, name = "Spill", module = "fcanalyze._engine")]
struct PySpill {
    spill: Spill,
    layered: bool,
}

#[pymethods]
impl PySpill {
    #[new]
    #[pyo3(signature = (dir, *, max_disk=None, keep_free=None, threads=1, layered=false))]
    fn new(
        dir: std::path::PathBuf,
        max_disk: Option<u64>,
        keep_free: Option<u64>,
        threads: usize,
        layered: bool,
    ) -> PyResult<Self> {
        if max_disk == Some(0) {
            return Err(PyValueError::new_err("max_disk must be a positive number of bytes"));
        }
        if !(1..=MAX_THREADS).contains(&threads) {
            return Err(PyValueError::new_err(format!("threads must be 1..{MAX_THREADS}")));
        }
        let spill = Spill { dir, threads, max_bytes: max_disk.unwrap_or(u64::MAX), keep_free: keep_free.unwrap_or(0) };
        Ok(PySpill { spill, layered })
    }

    fn __repr__(&self) -> String {
        let s = &self.spill;
        format!(
            "Spill({:?}, max_disk={}, keep_free={}, threads={}, layered={})",
            s.dir.display().to_string(),
            s.max_bytes,
            s.keep_free,
            s.threads,
            if self.layered { "True" } else { "False" }
        )
    }
}

/// What a job may spend, and where a proof may spill (a `Spill`), handed over once per
/// job as one typed object: fcanalyze.solving.solve builds it from a
/// fcanalyze.solving.budgets.Budgets (the same concept, the same name on both sides).
#[pyclass(frozen, name = "Budgets", module = "fcanalyze._engine")]
struct PyBudgets {
    budget: Budget,
    spill: Option<Spill>,
    layered: bool,
}

#[pymethods]
impl PyBudgets {
    #[new]
    #[pyo3(signature = (*, max_nodes=None, max_seconds=None, max_memory=None, spill=None))]
    fn new(
        max_nodes: Option<u64>,
        max_seconds: Option<f64>,
        max_memory: Option<usize>,
        spill: Option<PyRef<'_, PySpill>>,
    ) -> PyResult<Self> {
        // Python checks budgets first; this keeps a caller of the raw binding from a NaN
        // that means "no limit" or a zero that means "give up at once".
        if max_seconds.is_some_and(|s| s.is_nan() || s <= 0.0) || max_nodes == Some(0) || max_memory == Some(0) {
            return Err(PyValueError::new_err("budgets must be positive numbers (max_seconds not NaN)"));
        }
        let defaults = Budget::default();
        let budget = Budget {
            max_nodes: max_nodes.unwrap_or(defaults.max_nodes),
            max_seconds: max_seconds.unwrap_or(defaults.max_seconds),
            max_memory: max_memory.unwrap_or(defaults.max_memory),
        };
        let layered = spill.as_ref().is_some_and(|s| s.layered);
        Ok(PyBudgets { budget, spill: spill.map(|s| s.spill.clone()), layered })
    }

    fn __repr__(&self) -> String {
        let b = &self.budget;
        format!(
            "Budgets(max_nodes={}, max_seconds={}, max_memory={}, spill_dir={:?}, layered={})",
            b.max_nodes,
            b.max_seconds,
            b.max_memory,
            self.spill.as_ref().map(|s| s.dir.display().to_string()),
            if self.layered { "True" } else { "False" }
        )
    }
}

/// Decide a position. Cards are numbered (rank - 1) * 4 + suit, suits in CDHS order.
///
/// Returns a dict: status ("solved", "unsolvable", "unknown"), limit (the budget that
/// stopped an unknown, else None), solution (standard-notation moves separated by
/// spaces, foundation moves included; "" unless solved), nodes, states, max_depth,
/// peak_memory (bytes), peak_disk (bytes), seconds, resumed_seconds, kept, note (what a
/// layered proof says of its files: a kept proof not gone on from, or files damaged),
/// and shortest (for a won job asked for its shortest line: a dict of proved, limit and bound;
/// else None). `budgets` says what the job may spend and where a proof may spill
/// (search::decide): with a spill_dir, a proof that runs out of memory goes on as a
/// layered proof there; with layered too, the layered proof starts at once. A layered
/// proof stopped by a budget is kept in spill_dir (kept: true), and the next call for
/// the job with that spill_dir goes on from it (resumed_seconds: the earlier runs'
/// time; nodes and states count theirs too). With `shortest`, a won job's line is the
/// shortest the search finds (docs/correctness.md, "The shortest line").
/// The GIL is released while searching; Ctrl-C raises KeyboardInterrupt within ~0.1 s.
#[pyfunction]
#[pyo3(signature = (columns, cells, home, variant, budgets, *, shortest=false, shortest_nodes=None))]
#[allow(clippy::too_many_arguments)] // a position's three parts, its rules, its budgets, and two keywords
fn solve<'py>(
    columns: Vec<Vec<u8>>,
    cells: Vec<Option<u8>>,
    home: [u8; 4],
    variant: PyRef<'py, PyVariant>,
    budgets: PyRef<'py, PyBudgets>,
    shortest: bool,
    shortest_nodes: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = variant.py();
    let rules = variant.0;
    let start = position(&rules, &columns, &cells, home)?;
    if shortest_nodes == Some(0) {
        return Err(PyValueError::new_err("shortest_nodes must be a positive number of positions"));
    }
    let request = Request {
        budget: budgets.budget,
        spill: budgets.spill.clone(),
        layered: budgets.layered,
        shortest,
        shortest_nodes,
    };

    let mut pending: Option<PyErr> = None;
    let outcome = py.detach(|| {
        let mut interrupted = || match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                pending = Some(e);
                true
            }
        };
        // A panic is a bug, never a verdict: it reaches Python as an error of one line
        // (fcanalyze.solving.solve makes it an EngineError), not as a PanicException.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            search::decide(&start, &rules, &request, &mut interrupted)
        }))
    });
    if let Some(err) = pending {
        return Err(err);
    }
    let outcome = outcome.map_err(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        PyRuntimeError::new_err(format!("the engine failed: {why}"))
    })?;

    let out = PyDict::new(py);
    let (status, limit) = match outcome.status {
        Status::Solved => ("solved", None),
        Status::Unsolvable => ("unsolvable", None),
        Status::Unknown(limit) => ("unknown", Some(limit.name())),
    };
    out.set_item("status", status)?;
    out.set_item("limit", limit)?;
    // One string: a hundred small Python strings cost more than the split that makes them.
    let mut solution = String::with_capacity(outcome.solution.len() * 4);
    for (i, m) in outcome.solution.iter().enumerate() {
        if i > 0 {
            solution.push(' ');
        }
        write!(solution, "{m}").unwrap_or_else(|_| unreachable!("writing to a String"));
    }
    out.set_item("solution", solution)?;
    out.set_item("nodes", outcome.nodes)?;
    out.set_item("states", outcome.states)?;
    out.set_item("max_depth", outcome.max_depth)?;
    out.set_item("peak_memory", outcome.peak_memory)?;
    out.set_item("peak_disk", outcome.peak_disk)?;
    out.set_item("seconds", outcome.seconds)?;
    out.set_item("resumed_seconds", outcome.resumed_seconds)?;
    out.set_item("kept", outcome.kept)?;
    out.set_item("note", outcome.note)?;
    let shortest = match outcome.shortest {
        Some(found) => {
            let d = PyDict::new(py);
            d.set_item("proved", found.proved)?;
            d.set_item("limit", found.limit.map(|l| l.name()))?;
            d.set_item("bound", found.bound)?;
            Some(d)
        }
        None => None,
    };
    out.set_item("shortest", shortest)?;
    Ok(out)
}

/// The shortest line of a won position that the search for it finds (the default effort,
/// as `solve` with shortest spends it), starting from `line`, a winning line from the
/// position in standard notation, within `budgets`: a dict of line (the shortest found,
/// `line` itself if none is shorter), proved, limit, bound (fewer moves not to a
/// foundation no line has; None under take-back), nodes and seconds.
#[pyfunction]
#[pyo3(signature = (columns, cells, home, variant, line, budgets, *, shortest_nodes=None))]
#[allow(clippy::too_many_arguments)] // a position's three parts, its rules, a line, its budgets, a keyword
fn shortest_line<'py>(
    columns: Vec<Vec<u8>>,
    cells: Vec<Option<u8>>,
    home: [u8; 4],
    variant: PyRef<'py, PyVariant>,
    line: Vec<String>,
    budgets: PyRef<'py, PyBudgets>,
    shortest_nodes: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let py = variant.py();
    let rules = variant.0;
    let start = position(&rules, &columns, &cells, home)?;
    let known = crate::notation::parse_line(&start, &rules, &line).map_err(PyValueError::new_err)?;
    let budget = budgets.budget;
    let mut pending: Option<PyErr> = None;
    let found = py.detach(|| {
        let mut interrupted = || match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                pending = Some(e);
                true
            }
        };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            search::shortest_of(&start, &rules, &known, budget, shortest_nodes, &mut interrupted)
        }))
    });
    if let Some(err) = pending {
        return Err(err);
    }
    let found = found.map_err(|_| PyRuntimeError::new_err("the engine failed in the search for a shortest line"))?;
    let out = PyDict::new(py);
    let moves = found.line.unwrap_or(known);
    out.set_item("line", moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" "))?;
    out.set_item("proved", found.proved)?;
    out.set_item("limit", found.limit.map(|l| l.name()))?;
    out.set_item("bound", found.bound)?;
    out.set_item("nodes", found.nodes)?;
    out.set_item("seconds", found.seconds)?;
    Ok(out)
}

/// A line shorter than `line` (moves in standard notation from the position given),
/// from the search `effort` describes: (beam widths, the guide's twelve weights, the
/// branch and bound's positions). Returns the line or None, whether none is shorter
/// than the best, the positions expanded, and the proved lower bound (None under
/// take-back).
#[pyfunction]
fn shorter_line(
    columns: Vec<Vec<u8>>,
    cells: Vec<Option<u8>>,
    home: [u8; 4],
    variant: PyRef<'_, PyVariant>,
    line: Vec<String>,
    effort: (Vec<usize>, [i32; 12], u64),
) -> PyResult<(Option<String>, bool, u64, u32)> {
    let py = variant.py();
    let rules = variant.0;
    let start = position(&rules, &columns, &cells, home)?;
    let known = crate::notation::parse_line(&start, &rules, &line).map_err(PyValueError::new_err)?;
    let (widths, weights, proof_nodes) = effort;
    let [lower_bound, out, buried, buried_next, cell, column, disorder, runs, runs_above_next, waiting, parked, deadlocks] =
        weights;
    let guide = search::Guide {
        lower_bound,
        out,
        buried,
        buried_next,
        cell,
        column,
        disorder,
        runs,
        runs_above_next,
        waiting,
        parked,
        deadlocks,
    };
    let (found, proved, nodes, bound) = py.detach(|| {
        let effort = search::Effort { widths, guide, proof_nodes };
        search::shorter_line(&start, &rules, &known, &effort, Budget::default(), &mut || false)
    });
    Ok((found.map(|l| l.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")), proved, nodes, bound))
}

/// The shortest line's lower bounds of a position: (blocked runs, with deadlocked pairs).
#[pyfunction]
fn lower_bounds(
    columns: Vec<Vec<u8>>,
    cells: Vec<Option<u8>>,
    home: [u8; 4],
    variant: PyRef<'_, PyVariant>,
) -> PyResult<(u32, u32)> {
    let rules = variant.0;
    let mut start = position(&rules, &columns, &cells, home)?;
    start.autoplay(&rules, &mut vec![]);
    Ok(search::lower_bounds(&start, &rules))
}

/// The moves the exhaustive search tries from a position, in standard notation: every
/// single-card move (and run moves under the relaxed rule), with only the first empty
/// cell and first empty column as destinations, and under take-back the cards taken
/// back that the search considers (`moves::takeback_moves`). Exposed so that tests can hold the
/// engine's move generation against the referee's.
#[pyfunction]
#[pyo3(signature = (columns, cells, home, variant, *, sequences=false))]
fn generate_moves(
    columns: Vec<Vec<u8>>,
    cells: Vec<Option<u8>>,
    home: [u8; 4],
    variant: PyRef<'_, PyVariant>,
    sequences: bool,
) -> PyResult<Vec<String>> {
    let rules = variant.0;
    let start = position(&rules, &columns, &cells, home)?;
    let mut out = vec![];
    crate::moves::generate(&start, &rules, sequences, &mut out);
    Ok(out.iter().map(|m| m.to_string()).collect())
}

/// The position both functions take, checked against the rules.
fn position(rules: &Variant, columns: &[Vec<u8>], cells: &[Option<u8>], home: [u8; 4]) -> PyResult<Position> {
    Position::new(rules, columns, cells, home).map_err(|e| PyValueError::new_err(e.0))
}

/// Makes glibc's malloc hand every block of 128 KiB or more straight to the kernel and
/// take it back when freed. By default glibc raises that threshold (up to 32 MiB) each
/// time such a block is freed, after which blocks below it come from a heap that keeps
/// freed memory: a search then holds some 30 MiB more than its structures and its
/// budget say. The search's big blocks are the path's vectors, which grow by `realloc`
/// (a remap, not a copy, once mapped), and its tables, whose large ones map their own
/// memory (slots.rs), so the fixed threshold costs nothing measurable. Other allocators
/// (musl, macOS) have no such setting.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fix_mmap_threshold() {
    const M_MMAP_THRESHOLD: std::os::raw::c_int = -3;
    extern "C" {
        fn mallopt(param: std::os::raw::c_int, value: std::os::raw::c_int) -> std::os::raw::c_int;
    }
    // SAFETY: mallopt only changes a malloc tuning parameter; any value is valid.
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fix_mmap_threshold() {}

/// Removes the layered proof of this position kept in spill_dir, if there is one, and
/// says whether there was (search::drop_kept): for a job settled without it.
#[pyfunction]
fn drop_kept_proof(
    columns: Vec<Vec<u8>>,
    cells: Vec<Option<u8>>,
    home: [u8; 4],
    variant: PyRef<'_, PyVariant>,
    spill_dir: std::path::PathBuf,
) -> PyResult<bool> {
    let rules = variant.0;
    let start = position(&rules, &columns, &cells, home)?;
    Ok(search::drop_kept(&start, &rules, &spill_dir))
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    fix_mmap_threshold();
    m.add("__version__", crate::VERSION)?;
    m.add("DEFAULT_MAX_MEMORY", Budget::default().max_memory)?;
    m.add("SHORTEST_NODES", search::PROOF_NODES)?;
    m.add_class::<PyVariant>()?;
    m.add_class::<PySpill>()?;
    m.add_class::<PyBudgets>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(generate_moves, m)?)?;
    m.add_function(wrap_pyfunction!(drop_kept_proof, m)?)?;
    m.add_function(wrap_pyfunction!(shorter_line, m)?)?;
    m.add_function(wrap_pyfunction!(shortest_line, m)?)?;
    m.add_function(wrap_pyfunction!(lower_bounds, m)?)?;
    Ok(())
}

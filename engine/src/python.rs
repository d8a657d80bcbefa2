//! The Python bindings, imported as `fcanalyze._engine`; the only module that knows pyo3.

use pyo3::prelude::*;

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", crate::VERSION)?;
    Ok(())
}

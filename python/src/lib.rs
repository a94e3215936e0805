//! `sessiondb._native`: the pyo3 bindings of the sessiondb core. Thin: each
//! method converts arguments, calls the core with the GIL released, and maps
//! the error to a `sessiondb.errors` class. The public Python API is the
//! `sessiondb` package (python/python/sessiondb), which re-exports these.

mod dicts;
mod errors;
mod json;
mod keys;
mod records;
mod store;
mod viewer;

use pyo3::prelude::*;

#[pymodule]
mod _native {
    #[pymodule_export]
    use crate::store::{import_recovery_key, SessionStore, TranscriptIterator};
    #[pymodule_export]
    use crate::viewer::Viewer;
    #[pymodule_export]
    use crate::errors::error_kinds;

    use super::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        crate::records::register_records(m)?;
        crate::store::register_functions(m)?;
        Ok(())
    }
}

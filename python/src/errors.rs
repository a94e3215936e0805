//! Core [`sessiondb::Error`] -> Python exception.
//!
//! The exception classes live in pure Python (`sessiondb/errors.py`) so that
//! `IoError` can also be an `OSError` (and `FileNotFoundError` /
//! `PermissionError` where the OS said so). This file only picks the class
//! and sets its attributes, both generated from the error declaration in
//! bridge/api.rs (`class_name`, `class_of`, `set_attrs`; bridge/generated/python/errors.rs), as is
//! the module function `error_kinds()`.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;
use sessiondb::Error;

include!("../../bridge/generated/python/errors.rs");

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    ERRORS.get_or_try_init(py, || py.import("sessiondb.errors").map(Bound::unbind)).map(|m| m.bind(py))
}

/// Build the Python exception for a core error.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    match build(py, &e) {
        Ok(err) => err,
        Err(import_failure) => import_failure,
    }
}

fn build(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let inst = errors_module(py)?.getattr(class_of(e))?.call1((e.to_string(),))?;
    inst.setattr("kind", e.kind().name())?;
    inst.setattr("code", e.kind().code())?;
    set_attrs(&inst, e)?;
    Ok(PyErr::from_value(inst))
}

/// Extension: `result.map_err(py_err(py))`.
pub fn py_err(py: Python<'_>) -> impl Fn(Error) -> PyErr + '_ {
    move |e| to_py(py, e)
}

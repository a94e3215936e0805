//! Core [`sessiondb::Error`] -> Python exception.
//!
//! The exception classes live in pure Python (`sessiondb/errors.py`) so that
//! `IoError` can also be an `OSError` (and `FileNotFoundError` /
//! `PermissionError` where the OS said so). This file only picks the class
//! by [`ErrorKind`] and sets its attributes.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;
use sessiondb::{Error, ErrorKind};

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn errors_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    ERRORS.get_or_try_init(py, || py.import("sessiondb.errors").map(Bound::unbind)).map(|m| m.bind(py))
}

/// The Python class name of an error kind (`sessiondb.errors.<name>`).
pub fn class_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::RecoveryLocked => "RecoveryLockedError",
        ErrorKind::KeyMismatch => "KeyMismatchError",
        ErrorKind::KeyStoreUnavailable => "KeyStoreUnavailableError",
        ErrorKind::NotFound => "NotFoundError",
        ErrorKind::Conflict => "ConflictError",
        ErrorKind::AuthenticationFailed => "AuthenticationError",
        ErrorKind::Corrupt => "CorruptError",
        ErrorKind::Busy => "BusyError",
        ErrorKind::InvalidInput => "InvalidInputError",
        ErrorKind::Io => "IoError",
        ErrorKind::Database => "DatabaseError",
        ErrorKind::ContextOverflow => "ContextOverflowError",
        ErrorKind::Closed => "ClosedError",
        _ => "SessionDBError",
    }
}

/// Build the Python exception for a core error.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    match build(py, &e) {
        Ok(err) => err,
        Err(import_failure) => import_failure,
    }
}

fn build(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let m = errors_module(py)?;
    let kind = e.kind();
    let mut class = class_name(kind);
    let mut errno: Option<i32> = None;
    if let Error::Io { source, .. } = e {
        errno = source.raw_os_error();
        class = match source.kind() {
            std::io::ErrorKind::NotFound => "FileNotFoundIoError",
            std::io::ErrorKind::PermissionDenied => "PermissionIoError",
            _ => "IoError",
        };
    }
    let cls = m.getattr(class)?;
    let inst = cls.call1((e.to_string(),))?;
    inst.setattr("kind", kind.name())?;
    inst.setattr("code", kind.code())?;
    if let Some(n) = errno {
        inst.setattr("errno", n)?;
    }
    match e {
        Error::ContextOverflow(b) => {
            inst.setattr("capacity", b.capacity)?;
            inst.setattr("system", b.system)?;
            inst.setattr("pinned", b.pinned)?;
            inst.setattr("recent", b.recent)?;
            inst.setattr("tool_results", b.tool_results)?;
            inst.setattr("other", b.other)?;
            inst.setattr("protected_total", b.protected_total)?;
            inst.setattr("remedies", b.remedies.clone())?;
        }
        Error::Busy { timeout_ms, waited_ms } => {
            inst.setattr("timeout_ms", *timeout_ms)?;
            inst.setattr("waited_ms", *waited_ms)?;
        }
        Error::KeyMismatch { backend } | Error::RecoveryLocked { backend, .. } => inst.setattr("backend", backend)?,
        Error::KeyStoreUnavailable { backend, remedy, .. } => {
            inst.setattr("backend", backend)?;
            inst.setattr("remedy", remedy)?;
        }
        _ => {}
    }
    Ok(PyErr::from_value(inst))
}

/// Extension: `result.map_err(py_err(py))`.
pub fn py_err(py: Python<'_>) -> impl Fn(Error) -> PyErr + '_ {
    move |e| to_py(py, e)
}

//! A Python object with `get_key()` / `set_key(key)` as a core
//! [`KeyProvider`] (`KeySource::Provider`).

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sessiondb::{Error, KeyProvider, Result};

/// Wraps the host object. Python exceptions raised by the callbacks become
/// `KeyStoreUnavailable` in the core (never "no key"); the original
/// exception is kept and chained as `__cause__` by the caller.
pub struct PyKeyProvider {
    obj: Py<PyAny>,
    backend: String,
    raised: Mutex<Option<PyErr>>,
}

impl PyKeyProvider {
    pub fn new(py: Python<'_>, obj: Py<PyAny>) -> PyResult<Self> {
        let b = obj.bind(py);
        let backend = if b.hasattr("backend_name")? {
            let v = b.getattr("backend_name")?;
            let v = if v.is_callable() { v.call0()? } else { v };
            v.extract::<String>()?
        } else {
            format!("Python key provider {}", b.get_type().name()?)
        };
        Ok(PyKeyProvider { obj, backend, raised: Mutex::new(None) })
    }

    /// The Python exception a callback raised, if any.
    pub fn take_raised(&self) -> Option<PyErr> {
        self.raised.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn failed(&self, method: &str, e: PyErr) -> Error {
        let reason = Python::attach(|py| format!("{method}() raised {}", e.get_type(py).name().map(|n| n.to_string()).unwrap_or_default()));
        *self.raised.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
        Error::KeyStoreUnavailable {
            backend: self.backend.clone(),
            reason,
            remedy: "fix the key provider (see the chained exception)".into(),
        }
    }
}

impl KeyProvider for PyKeyProvider {
    fn get_key(&self) -> Result<Option<Vec<u8>>> {
        Python::attach(|py| {
            let r = self.obj.bind(py).call_method0("get_key").and_then(|v| {
                if v.is_none() {
                    Ok(None)
                } else {
                    v.extract::<std::borrow::Cow<'_, [u8]>>().map(|b| Some(b.into_owned()))
                }
            });
            r.map_err(|e| self.failed("get_key", e))
        })
    }

    fn set_key(&self, key: &[u8]) -> Result<()> {
        Python::attach(|py| {
            let bytes = PyBytes::new(py, key);
            self.obj.bind(py).call_method1("set_key", (bytes,)).map(|_| ()).map_err(|e| self.failed("set_key", e))
        })
    }

    fn backend_name(&self) -> String {
        self.backend.clone()
    }
}

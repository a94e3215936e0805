//! JSON values across the boundary through Python's own `json` module
//! (payloads are JSON in the core: `serde_json::Value`).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyModule;

static JSON: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

fn json_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    JSON.get_or_try_init(py, || py.import("json").map(Bound::unbind)).map(|m| m.bind(py))
}

/// A JSON-serialisable Python value -> `serde_json::Value` (`TypeError` if not serialisable).
pub fn from_py(v: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let text: String = json_module(v.py())?.call_method1("dumps", (v,))?.extract()?;
    serde_json::from_str(&text).map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("not JSON: {e}")))
}

/// `serde_json::Value` -> the Python value `json.loads` gives.
pub fn to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    json_module(py)?.call_method1("loads", (v.to_string(),))
}

/// A Python value (dicts, lists...) -> a core value by its serde form.
/// Errors: `InvalidInputError` naming the field that does not fit.
pub fn de<T: serde::de::DeserializeOwned>(v: &Bound<'_, PyAny>, what: &str) -> PyResult<T> {
    let value = from_py(v)?;
    serde_json::from_value(value)
        .map_err(|e| crate::errors::to_py(v.py(), sessiondb::Error::invalid(format!("{what}: {e}"))))
}

/// A JSON value as a record field (`JournalEvent.payload`, `EntryMeta.extra`):
/// each read gives a new Python value, as `json.loads` would.
#[derive(Debug, Clone, PartialEq)]
pub struct Json(pub serde_json::Value);

impl<'py> IntoPyObject<'py> for &Json {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;
    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &self.0)
    }
}

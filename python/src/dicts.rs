//! Record parameters that also take dicts (`dict(...)` in bridge/api.rs:
//! `compact_context`, `apply_compaction`, `summarize_item`): a record class
//! instance, converted by its `Back`, or a value in the core's serde shape
//! (`crate::json::de`). Errors: `InvalidInputError` naming the input.

use pyo3::prelude::*;
use pyo3::pyclass::boolean_struct::True;
use pyo3::PyClass;
use pyo3::types::PyList;
use serde::de::DeserializeOwned;

use crate::errors::py_err;
use crate::json::de;
use crate::records::Back;

/// `obj` as the core value: an `R` instance or its dict form (`what` names
/// it in the error).
pub(crate) fn record_or_dict<R, C>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<C>
where
    R: PyClass<Frozen = True> + Sync + Back<C>,
    C: DeserializeOwned,
{
    match obj.cast::<R>() {
        Ok(r) => r.get().back(what).map_err(py_err(obj.py())),
        Err(_) => de(obj, what),
    }
}

/// An iterable of `R` instances or dicts as core values: one conversion of
/// the whole list (`what` names it) when it holds no `R`, else item by
/// item (a dict named `what` without its plural `s`).
pub(crate) fn records_or_dicts<R, C>(items: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<C>>
where
    R: PyClass<Frozen = True> + Sync + Back<C>,
    C: DeserializeOwned,
{
    let py = items.py();
    let all: Vec<Bound<'_, PyAny>> = items.try_iter()?.collect::<PyResult<_>>()?;
    if !all.iter().any(|x| x.is_instance_of::<R>()) {
        return de(PyList::new(py, &all)?.as_any(), what);
    }
    let one = what.strip_suffix('s').unwrap_or(what);
    all.iter().map(|x| record_or_dict::<R, C>(x, one)).collect()
}

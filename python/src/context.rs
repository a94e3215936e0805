//! Context governance (`sessiondb::context`, `sessiondb::restore`): pure
//! functions at module level, store-backed ones as `SessionStore` methods.
//! Results are typed records (`crate::records`); inputs are `ContextItem`
//! objects or dicts in the core's serde shape.

use pyo3::prelude::*;
use pyo3::types::PyList;
use sessiondb::context::{self, CompactionOptions};

use crate::errors::py_err;
use crate::json::de;
use crate::records::{Back, CompactionPlan, ContextItem};

/// `items` as core context items: `ContextItem` objects or dicts (one
/// conversion of the whole list when it holds no `ContextItem`).
fn context_items(items: &Bound<'_, PyAny>) -> PyResult<Vec<context::ContextItem>> {
    let py = items.py();
    let all: Vec<Bound<'_, PyAny>> = items.try_iter()?.collect::<PyResult<_>>()?;
    if !all.iter().any(|x| x.is_instance_of::<ContextItem>()) {
        return de(PyList::new(py, &all)?.as_any(), "context items");
    }
    all.iter()
        .map(|x| match x.cast::<ContextItem>() {
            Ok(item) => item.get().back("context item").map_err(py_err(py)),
            Err(_) => de(x, "context item"),
        })
        .collect()
}

/// Plan compaction of `items` (`ContextItem` objects or dicts: seq, role,
/// kind, tokens, text, pinned...) down to `target_percent` (default 70) of
/// `capacity`. Raises ContextOverflowError (breakdown attributes),
/// InvalidInputError.
#[pyfunction]
#[pyo3(signature = (items, capacity, target_percent = None, options = None))]
pub fn compact_context<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    capacity: u64,
    target_percent: Option<u8>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<CompactionPlan> {
    let items = context_items(items)?;
    let options: CompactionOptions = match options {
        Some(o) if !o.is_none() => de(o, "compaction options")?,
        _ => CompactionOptions::default(),
    };
    py.detach(|| context::compact_context(&items, capacity, target_percent, &options)).map(Into::into).map_err(py_err(py))
}

/// The context `items` with `plan` (a `CompactionPlan` or its dict form)
/// applied: compacted items replaced by their summaries.
#[pyfunction]
pub fn apply_compaction<'py>(py: Python<'py>, plan: &Bound<'py, PyAny>, items: &Bound<'py, PyAny>) -> PyResult<Vec<ContextItem>> {
    let plan = match plan.cast::<CompactionPlan>() {
        Ok(p) => crate::records::Back::back(p.get(), "plan").map_err(py_err(py))?,
        Err(_) => de(plan, "compaction plan")?,
    };
    let items = context_items(items)?;
    Ok(plan.apply(&items).into_iter().map(Into::into).collect())
}

/// The deterministic summary of one item (a `ContextItem` or its dict), at
/// most 240 characters (seed 000, "Context Compaction"). Raises InvalidInputError.
#[pyfunction]
pub fn summarize_item(item: &Bound<'_, PyAny>) -> PyResult<String> {
    let items = context_items(PyList::new(item.py(), [item])?.as_any())?;
    Ok(context::summarize_item(&items[0]))
}

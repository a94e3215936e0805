//! Context governance (`sessiondb::context`, `sessiondb::restore`): pure
//! functions at module level, store-backed ones as `SessionStore` methods.
//! Results are the serde form of the core types as plain dicts, the same
//! shapes the conformance cases use.

use pyo3::prelude::*;
use sessiondb::context::{self, CompactionOptions, CompactionPlan, ContextItem};

use crate::errors::py_err;
use crate::json::{de, ser};

/// Effective Context Capacity in tokens (seed 000 "Context Utilization
/// Meter"): raw − max(min(output_reserve, model_max_output), ⌈8% raw⌉) −
/// max(2048, ⌈2% raw⌉). Raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (raw, output_reserve = None, model_max_output = None))]
pub fn effective_context_capacity(py: Python<'_>, raw: u64, output_reserve: Option<u64>, model_max_output: Option<u64>) -> PyResult<u64> {
    context::effective_context_capacity(raw, output_reserve, model_max_output).map_err(py_err(py))
}

/// Every term of the capacity: dict `capacity`, `output_reserve`, `safety_margin`... (tokens).
#[pyfunction]
#[pyo3(signature = (raw, output_reserve = None, model_max_output = None))]
pub fn capacity_breakdown<'py>(
    py: Python<'py>,
    raw: u64,
    output_reserve: Option<u64>,
    model_max_output: Option<u64>,
) -> PyResult<Bound<'py, PyAny>> {
    let b = context::capacity_breakdown(raw, output_reserve, model_max_output).map_err(py_err(py))?;
    ser(py, &b)
}

/// Capacity for a known model name (its window and maximum output). Raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (model, output_reserve = None))]
pub fn effective_context_capacity_for_model(py: Python<'_>, model: &str, output_reserve: Option<u64>) -> PyResult<u64> {
    context::effective_context_capacity_for_model(model, output_reserve).map_err(py_err(py))
}

/// Known limits of a model (dict `context_window`, `max_output`), or None.
#[pyfunction]
pub fn known_model_limits<'py>(py: Python<'py>, model: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    context::known_model_limits(model).map(|l| ser(py, &l)).transpose()
}

/// The meter: dict `percent`, `label` ("Ctx N%"), `band` (green|amber|orange|red), `overflow`...
#[pyfunction]
pub fn meter<'py>(py: Python<'py>, active_tokens: u64, capacity: u64) -> PyResult<Bound<'py, PyAny>> {
    let m = context::meter(active_tokens, capacity).map_err(py_err(py))?;
    ser(py, &m)
}

/// True when the projected context exceeds the capacity (compact before the provider call).
#[pyfunction]
pub fn should_compact(projected_tokens: u64, capacity: u64) -> bool {
    context::should_compact(projected_tokens, capacity)
}

/// Token count of `text` for `model`: dict `tokens`, `method`
/// (exact|estimate|host) and `encoding` for exact counts. A host count always wins.
#[pyfunction]
#[pyo3(signature = (model, text, host_count = None))]
pub fn count_tokens<'py>(py: Python<'py>, model: &str, text: &str, host_count: Option<u64>) -> PyResult<Bound<'py, PyAny>> {
    let c = py.detach(|| context::count_tokens(model, text, host_count));
    ser(py, &c)
}

/// The documented estimate (no tokenizer), in tokens.
#[pyfunction]
pub fn estimate_tokens(text: &str) -> u64 {
    context::estimate_tokens(text)
}

/// Plan compaction of `items` (dicts: seq, role, kind, tokens, text,
/// pinned...) down to `target_percent` (default 70) of `capacity`. Returns
/// the plan as a dict plus `compacted_seqs`. Raises ContextOverflowError
/// (breakdown attributes), InvalidInputError.
#[pyfunction]
#[pyo3(signature = (items, capacity, target_percent = None, options = None))]
pub fn compact_context<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    capacity: u64,
    target_percent: Option<u8>,
    options: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let items: Vec<ContextItem> = de(items, "context items")?;
    let options: CompactionOptions = match options {
        Some(o) if !o.is_none() => de(o, "compaction options")?,
        _ => CompactionOptions::default(),
    };
    let plan = py.detach(|| context::compact_context(&items, capacity, target_percent, &options)).map_err(py_err(py))?;
    plan_dict(py, &plan)
}

/// The context `items` with `plan` applied (compacted items replaced by their summaries).
#[pyfunction]
pub fn apply_compaction<'py>(py: Python<'py>, plan: &Bound<'py, PyAny>, items: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let plan: CompactionPlan = de(plan, "compaction plan")?;
    let items: Vec<ContextItem> = de(items, "context items")?;
    ser(py, &plan.apply(&items))
}

pub fn plan_dict<'py>(py: Python<'py>, plan: &CompactionPlan) -> PyResult<Bound<'py, PyAny>> {
    let d = ser(py, plan)?;
    d.set_item("compacted_seqs", plan.compacted_seqs())?;
    Ok(d)
}

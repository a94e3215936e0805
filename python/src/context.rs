//! Context governance (`sessiondb::context`, `sessiondb::restore`): pure
//! functions at module level, store-backed ones as `SessionStore` methods.
//! Results are typed records (`crate::results`); inputs are `ContextItem`
//! objects or dicts in the core's serde shape.

use pyo3::prelude::*;
use pyo3::types::PyList;
use sessiondb::context::{self, CompactionOptions};

use crate::errors::py_err;
use crate::json::de;
use crate::results::{CapacityBreakdown, CompactionPlan, ContextItem, ContextMeter, ModelLimits, TokenCount};

/// Effective Context Capacity in tokens (seed 000 "Context Utilization
/// Meter"): raw − max(min(output_reserve, model_max_output), ⌈8% raw⌉) −
/// max(2048, ⌈2% raw⌉). Raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (raw, output_reserve = None, model_max_output = None))]
pub fn effective_context_capacity(py: Python<'_>, raw: u64, output_reserve: Option<u64>, model_max_output: Option<u64>) -> PyResult<u64> {
    context::effective_context_capacity(raw, output_reserve, model_max_output).map_err(py_err(py))
}

/// Every term of the capacity (tokens). Raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (raw, output_reserve = None, model_max_output = None))]
pub fn capacity_breakdown(
    py: Python<'_>,
    raw: u64,
    output_reserve: Option<u64>,
    model_max_output: Option<u64>,
) -> PyResult<CapacityBreakdown> {
    context::capacity_breakdown(raw, output_reserve, model_max_output).map(Into::into).map_err(py_err(py))
}

/// Capacity for a known model name (its window and maximum output). Raises InvalidInputError.
#[pyfunction]
#[pyo3(signature = (model, output_reserve = None))]
pub fn effective_context_capacity_for_model(py: Python<'_>, model: &str, output_reserve: Option<u64>) -> PyResult<u64> {
    context::effective_context_capacity_for_model(model, output_reserve).map_err(py_err(py))
}

/// Known limits of a model (`context_window`, `max_output`), or None.
#[pyfunction]
pub fn known_model_limits(model: &str) -> Option<ModelLimits> {
    context::known_model_limits(model).map(Into::into)
}

/// The meter: `percent`, `label` ("Ctx N%"), `band` (green|amber|orange|red), `overflow`...
/// Raises InvalidInputError (capacity 0).
#[pyfunction]
pub fn meter(py: Python<'_>, active_tokens: u64, capacity: u64) -> PyResult<ContextMeter> {
    context::meter(active_tokens, capacity).map(Into::into).map_err(py_err(py))
}

/// True when the projected context exceeds the capacity (compact before the provider call).
#[pyfunction]
pub fn should_compact(projected_tokens: u64, capacity: u64) -> bool {
    context::should_compact(projected_tokens, capacity)
}

/// Token count of `text` for `model`: `tokens`, `method`
/// (exact|estimate|host) and `encoding` for exact counts. A host count always wins.
#[pyfunction]
#[pyo3(signature = (model, text, host_count = None))]
pub fn count_tokens(py: Python<'_>, model: &str, text: &str, host_count: Option<u64>) -> TokenCount {
    py.detach(|| context::count_tokens(model, text, host_count)).into()
}

/// The documented estimate (no tokenizer), in tokens.
#[pyfunction]
pub fn estimate_tokens(text: &str) -> u64 {
    context::estimate_tokens(text)
}

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
            Ok(item) => item.get().to_core().map_err(py_err(py)),
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
        Ok(p) => p.get().to_core().map_err(py_err(py))?,
        Err(_) => de(plan, "compaction plan")?,
    };
    let items = context_items(items)?;
    Ok(plan.apply(&items).into_iter().map(Into::into).collect())
}

/// The tiktoken encoding of a model name (`o200k_base`, `cl100k_base`), or
/// None when its family has none.
#[pyfunction]
pub fn encoding_for_model(model: &str) -> Option<&'static str> {
    context::encoding_for_model(model).map(context::Encoding::name)
}

/// Cut `text` to at most `max_chars` characters, ending with `…` when cut,
/// never inside a character or a common grapheme cluster.
#[pyfunction]
pub fn truncate_chars(text: &str, max_chars: usize) -> String {
    context::truncate_chars(text, max_chars)
}

/// The format of a session file from its first lines (`thclaws`, `codex`,
/// `claude-code`), or None when it is none of them. Raises IoError.
#[pyfunction]
pub fn detect_format(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Option<&'static str>> {
    py.detach(|| sessiondb::portable::detect_format(&path))
        .map(|f| f.map(sessiondb::portable::SourceFormat::as_str))
        .map_err(py_err(py))
}

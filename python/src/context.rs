//! Context governance (`sessiondb::context`, `sessiondb::restore`): pure
//! functions at module level, store-backed ones as `SessionStore` methods.
//! Results are typed records (`crate::results`); inputs are `ContextItem`
//! objects or dicts in the core's serde shape.

use pyo3::prelude::*;
use pyo3::types::PyList;
use sessiondb::context::{self, CompactionOptions};

use crate::errors::py_err;
use crate::json::de;
use crate::json::enum_parse;
use crate::records::{ContextGovernance, TranscriptEntry, TurnGovernance};
use crate::results::{CompactionPlan, ContextItem};

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

/// A `TranscriptEntry` as the core's (role and format parsed).
fn entry_core(e: &TranscriptEntry) -> sessiondb::Result<sessiondb::TranscriptEntry> {
    Ok(sessiondb::TranscriptEntry {
        session_id: e.session_id.clone(),
        seq: e.seq,
        role: sessiondb::Role::parse(e.role)?,
        format: enum_parse(e.format, "content format")?,
        content: e.content.clone(),
        created_at_ms: e.created_at_ms,
        tokens: e.tokens,
        source_line: e.source_line,
    })
}

/// A `ContextGovernance` (as `recover_context_governance` returns it) as the core's.
fn governance_core(g: &ContextGovernance) -> sessiondb::Result<context::ContextGovernance> {
    Ok(context::ContextGovernance {
        pinned: g.pinned.iter().copied().collect(),
        excluded: g.excluded.iter().copied().collect(),
        compacted: g.compacted.iter().map(|(k, t)| Ok((*k, t.to_core()?))).collect::<sessiondb::Result<_>>()?,
        history: g
            .history
            .iter()
            .map(|h| Ok(context::CompactionHistoryEntry { n: h.n, created_at_ms: h.created_at_ms, plan: h.plan.to_core()? }))
            .collect::<sessiondb::Result<_>>()?,
    })
}

/// The deterministic summary of one item (a `ContextItem` or its dict), at
/// most 240 characters (seed 000, "Context Compaction"). Raises InvalidInputError.
#[pyfunction]
pub fn summarize_item(item: &Bound<'_, PyAny>) -> PyResult<String> {
    let items = context_items(PyList::new(item.py(), [item])?.as_any())?;
    Ok(context::summarize_item(&items[0]))
}

/// The active context for the planner, from `entries` (`TranscriptEntry`
/// objects) and `governance` (`ContextGovernance`): excluded turns left
/// out, compacted turns as their summaries, tokens = the entry's count or
/// `count_tokens(model, content)`. Raises InvalidInputError.
#[pyfunction]
pub fn active_context_items(py: Python<'_>, entries: Vec<PyRef<'_, TranscriptEntry>>, governance: PyRef<'_, ContextGovernance>, model: &str) -> PyResult<Vec<ContextItem>> {
    let entries = entries.iter().map(|e| entry_core(e)).collect::<sessiondb::Result<Vec<_>>>().map_err(py_err(py))?;
    let governance = governance_core(&governance).map_err(py_err(py))?;
    Ok(py.detach(|| context::active_context_items(&entries, &governance, model)).into_iter().map(Into::into).collect())
}

/// Per-turn view of seqs `1..=entry_count` under `governance` (exclusion
/// wins, then compaction). Raises InvalidInputError.
#[pyfunction]
pub fn governance_turns(py: Python<'_>, governance: PyRef<'_, ContextGovernance>, entry_count: u64) -> PyResult<Vec<TurnGovernance>> {
    let governance = governance_core(&governance).map_err(py_err(py))?;
    Ok(governance.turns(entry_count).into_iter().map(Into::into).collect())
}

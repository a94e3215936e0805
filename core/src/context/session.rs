//! `/context` and `/compact` over a stored session: the glue every host
//! (CLI, Python, Node, Kotlin, Swift) calls, so none re-implements it.
//!
//! Source: seed 000, "Context Utilization Meter", "Context Compaction".

use serde::{Deserialize, Serialize};

use super::{ContextGovernance, ContextItem, 
    active_context_items, compact_context, known_model_limits, meter, record_compaction, recover_context_governance,
    CompactionOptions, CompactionPlan, ContextMeter, TurnGovernance,
};
use crate::error::Result;
use crate::store::{SessionStore, TranscriptEntry};

/// Where a session's context stands (what `sessiondb context` prints).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextStatus {
    /// Model whose tokenizer and output limit were used (`None`: estimate, no cap).
    pub model: Option<String>,
    /// Effective Context Capacity in tokens.
    pub capacity: u64,
    /// Active-context utilization (never cumulative usage).
    pub meter: ContextMeter,
    /// Per-turn state: verbatim, compacted or excluded, and pinned.
    pub turns: Vec<TurnGovernance>,
}

fn all_entries(store: &SessionStore, session_id: &str) -> Result<Vec<TranscriptEntry>> {
    let mut out = Vec::new();
    let mut from = 1;
    loop {
        let page = store.get_transcript(session_id, from, crate::store::transcript_max_page())?;
        match page.last() {
            Some(last) => from = last.seq + 1,
            None => break,
        }
        out.extend(page);
    }
    Ok(out)
}

fn capacity_for(raw_window: u64, output_reserve: Option<u64>, model: Option<&str>) -> Result<u64> {
    let max_output = model.and_then(known_model_limits).map(|l| l.max_output);
    super::effective_context_capacity(raw_window, output_reserve, max_output)
}

/// Meter and per-turn state of a stored session for a model with a
/// `raw_window`-token context window and an optional output reserve
/// (tokens). `model` defaults to the session's model; it picks the tokenizer
/// and caps the reserve by the model's known maximum output.
///
/// Errors: `NotFound` (session), `InvalidInput` (window 0 or too small).
pub fn context_status(
    store: &SessionStore,
    session_id: &str,
    raw_window: u64,
    output_reserve: Option<u64>,
    model: Option<String>,
) -> Result<ContextStatus> {
    let cx = active_context(store, session_id, raw_window, output_reserve, model)?;
    let active: u64 = cx.items.iter().map(|i| i.tokens).sum();
    Ok(ContextStatus { meter: meter(active, cx.capacity)?, capacity: cx.capacity, turns: cx.governance.turns(cx.entry_count), model: cx.model })
}

/// What `/context` and `/compact` both start from.
struct ActiveContext {
    /// The model asked for, else the session's.
    model: Option<String>,
    /// Effective Context Capacity (tokens).
    capacity: u64,
    governance: ContextGovernance,
    entry_count: u64,
    items: Vec<ContextItem>,
}

fn active_context(store: &SessionStore, session_id: &str, raw_window: u64, output_reserve: Option<u64>, model: Option<String>) -> Result<ActiveContext> {
    let session = store.get_session(session_id)?;
    let model = model.or(session.model);
    let capacity = capacity_for(raw_window, output_reserve, model.as_deref())?;
    let governance = recover_context_governance(store, session_id)?;
    let entries = all_entries(store, session_id)?;
    let items = active_context_items(&entries, &governance, model.as_deref().unwrap_or(""));
    Ok(ActiveContext { model, capacity, governance, entry_count: session.entry_count, items })
}

/// Plan compaction of a stored session's active context down to
/// `target_percent` (default 70) of capacity, like `/compact`; unless
/// `dry_run`, record the plan as a `compaction` context extension. The saved
/// transcript is never modified.
///
/// Errors: `NotFound`, `InvalidInput`, `ContextOverflow` (Irreducible
/// Context Overflow, with the token breakdown).
pub fn compact_session(
    store: &SessionStore,
    session_id: &str,
    raw_window: u64,
    output_reserve: Option<u64>,
    model: Option<String>,
    target_percent: Option<u8>,
    dry_run: bool,
) -> Result<CompactionPlan> {
    let cx = active_context(store, session_id, raw_window, output_reserve, model)?;
    let options = CompactionOptions { model: cx.model, ..Default::default() };
    let plan = compact_context(&cx.items, cx.capacity, target_percent, &options)?;
    if !dry_run {
        record_compaction(store, session_id, &plan)?;
    }
    Ok(plan)
}

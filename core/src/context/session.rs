//! `/context` and `/compact` over a stored session: the glue every host
//! (CLI, Python, Node, Kotlin, Swift) calls, so none re-implements it.
//!
//! Source: seed 000, "Context Utilization Meter", "Context Compaction".

use serde::{Deserialize, Serialize};

use super::governance::item_kind;
use super::planner::{self, ItemKind};
use super::{
    count_tokens, known_model_limits, meter, record_compaction, recover_context_governance, CompactedRun, CompactionOptions, CompactionPlan, ContextGovernance,
    ContextItem, ContextMeter, TurnGovernance,
};
use crate::error::Result;
use crate::store::{Role, SessionStore};

/// Where a stored session's context stands (what `/context` shows).
///
/// Where a session's context stands (what `sessiondb context` prints).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextStatus {
    /// Model whose tokenizer and output limit were used (none: estimate, no cap).
    pub model: Option<String>,
    /// Effective Context Capacity in tokens.
    pub capacity: u64,
    /// Active-context utilization (never cumulative usage).
    pub meter: ContextMeter,
    /// Per-turn state: verbatim, compacted or excluded, and pinned; a
    /// compacted turn names its run (`compacted_by`).
    ///
    /// Per-turn state: verbatim, compacted or excluded, and pinned; a
    /// compacted turn names its run (`compacted_by`, a `first_seq` of
    /// `compacted`) and holds no copy of the summary.
    pub turns: Vec<TurnGovernance>,
    /// The compaction runs in force, ascending by `first_seq`, non-overlapping.
    ///
    /// The compaction runs in force, ascending and non-overlapping (see
    /// [`ContextGovernance::compacted`]): each summary once, however many
    /// turns its run covers.
    pub compacted: Vec<CompactedRun>,
}

fn capacity_for(raw_window: u64, output_reserve: Option<u64>, model: Option<&str>) -> Result<u64> {
    let max_output = model.and_then(known_model_limits).map(|l| l.max_output);
    super::effective_context_capacity(raw_window, output_reserve, max_output)
}

/// Meter and per-turn state of a stored session (`/context`) for a model
/// with a `raw_window`-token context window and an optional output
/// reserve (tokens). `model` defaults to the session's model; it picks
/// the tokenizer and caps the reserve by the model's known maximum output.
///
/// Errors: `NotFound` (session), `InvalidInput` (window 0 or too small).
pub fn context_status(
    store: &SessionStore,
    session_id: &str,
    raw_window: u64,
    output_reserve: Option<u64>,
    model: Option<String>,
) -> Result<ContextStatus> {
    let cx = active_context_items_of(store, session_id, raw_window, output_reserve, model)?;
    // Host counts may add up past u64 (the view saturates the same way).
    let active = cx.items.iter().fold(0u64, |sum, i| sum.saturating_add(i.tokens));
    let turns = cx.seqs.iter().map(|&seq| cx.governance.turn(seq)).collect();
    let compacted = cx.governance.compacted;
    Ok(ContextStatus { meter: meter(active, cx.capacity)?, capacity: cx.capacity, turns, compacted, model: cx.model })
}

/// What `/context` and `/compact` both start from.
struct ActiveContext {
    /// The model asked for, else the session's.
    model: Option<String>,
    /// Effective Context Capacity (tokens).
    capacity: u64,
    governance: ContextGovernance,
    /// Seqs of the entries that are not retracted, in order.
    seqs: Vec<u64>,
    /// Their roles.
    roles: Vec<String>,
    /// The active context with empty `text` for verbatim items (summaries
    /// carry theirs): planning reads only tokens, kinds and call links.
    items: Vec<ContextItem>,
}

/// The active context of a stored session from the entries' planning
/// columns (tokens, content length, kind, call keys), bounded in memory by
/// the number of entries, not their size (DESIGN.md "Context governance").
/// An entry's content is decrypted, one at a time, only when its columns
/// cannot tell: a row converted from schema version 3 (no kind), or a model
/// with a real tokenizer and neither a host count nor a count stored at
/// write time with that model's encoding (`counted_tokens`: rows written
/// before SQLite schema 9 / PostgreSQL 6, or while the session had another model).
fn active_context_items_of(store: &SessionStore, session_id: &str, raw_window: u64, output_reserve: Option<u64>, model: Option<String>) -> Result<ActiveContext> {
    let session = store.get_session(session_id)?;
    let model = model.or(session.model);
    let capacity = capacity_for(raw_window, output_reserve, model.as_deref())?;
    let governance = recover_context_governance(store, session_id)?;
    let encoding = model.as_deref().and_then(super::encoding_for_model);
    let mut items = Vec::new();
    let mut run_emitted: Option<(u64, u64)> = None;
    let mut seqs = Vec::new();
    let mut roles = Vec::new();
    let mut from = 1;
    loop {
        let page = store.entry_stats(session_id, from, crate::store::transcript_max_page())?;
        let Some(last) = page.last() else { break };
        from = last.seq + 1;
        for st in page {
            seqs.push(st.seq);
            roles.push(st.role.clone());
            if governance.excluded.contains(&st.seq) {
                continue;
            }
            let role = Role::parse(&st.role).map_err(|_| crate::Error::corrupt(format!("record `transcript:{session_id}:{}:content`: unknown role", st.seq)))?;
            let pinned = governance.pinned.contains(&st.seq);
            match governance.compaction_of(st.seq) {
                Some(t) if t.last_seq.is_some() => {
                    let id = (t.seq, t.last_seq.unwrap_or(t.seq));
                    if run_emitted == Some(id) {
                        continue;
                    }
                    run_emitted = Some(id);
                    items.push(ContextItem {
                        seq: st.seq,
                        role: role.as_str().to_string(),
                        kind: ItemKind::Message,
                        tokens: t.tokens_after,
                        pinned,
                        text: t.summary.clone(),
                        call_ids: Vec::new(),
                        compacted: true,
                    });
                    continue;
                }
                _ => {}
            }
            // A host count wins; else the count stored at write time when it
            // was taken with this model's encoding; else, without a
            // tokenizer, the estimate from the stored length.
            let cheap_tokens = st.tokens.or_else(|| match encoding {
                Some(e) => super::tokens::counted_for(e, st.counted_tokens),
                None => st.content_bytes.map(|b| b.div_ceil(super::tokens::ESTIMATE_BYTES_PER_TOKEN)),
            });
            let (kind, call_keys, tokens) = match (&st.kind, &st.call_keys, cheap_tokens) {
                (Some(kind), Some(keys), Some(tokens)) => {
                    (item_kind(kind), keys.split(' ').filter(|k| !k.is_empty()).map(str::to_string).collect(), tokens)
                }
                _ => {
                    let e = store.get_transcript(session_id, st.seq, 1)?.pop().ok_or_else(|| crate::Error::not_found("entry", st.seq.to_string()))?;
                    let (kind, ids) = crate::store::entry_shape(e.role, e.format, &e.content);
                    let tokens = count_tokens(model.as_deref().unwrap_or(""), &e.content, e.tokens).tokens;
                    (item_kind(kind), crate::store::call_keys(store.key(), &ids).split(' ').filter(|k| !k.is_empty()).map(str::to_string).collect(), tokens)
                }
            };
            let (tokens, text, compacted) = match governance.compaction_of(st.seq) {
                Some(t) => (t.tokens_after, t.summary.clone(), true),
                None => (tokens, String::new(), false),
            };
            items.push(ContextItem { seq: st.seq, role: role.as_str().to_string(), kind, tokens, pinned, text, call_ids: call_keys, compacted });
        }
    }
    Ok(ActiveContext { model, capacity, governance, seqs, roles, items })
}

/// One item of what the model sees next (`active_context`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveItem {
    /// The entry's seq (a compacted run: its first seq).
    pub seq: u64,
    /// A compacted run: its last seq.
    ///
    /// A run of compacted entries: its last seq.
    pub last_seq: Option<u64>,
    /// The entry's role (a run: its first entry's).
    pub role: String,
    /// Verbatim, compacted (the summary replaces it) or excluded (not sent).
    pub state: super::TurnState,
    /// Tokens the item costs in the request (0 when excluded).
    pub tokens: u64,
    /// What is sent: the entry's content, the summary, or none when excluded.
    pub text: Option<String>,
}

/// What the model sees next (DESIGN.md "Context governance").
///
/// What the model sees next (DESIGN.md "Context governance": the active
/// context is one core function every host exposes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveContextView {
    /// The model asked for, else the session's.
    pub model: Option<String>,
    /// Effective Context Capacity (tokens).
    pub capacity: u64,
    /// Sum of the items' tokens (the meter's active tokens).
    pub tokens: u64,
    /// Every entry that is not retracted, in order: verbatim, compacted (a run is one item) or excluded.
    pub items: Vec<ActiveItem>,
}

/// What the model sees next for a `raw_window`-token window (DESIGN.md
/// "Context governance"): every visible entry in order, verbatim,
/// compacted (a run is one item with its summary) or excluded, with its
/// tokens, from stored counts. Records nothing.
///
/// Only the verbatim items' contents are decrypted (in seq ranges), so memory
/// is bounded by what the model is sent, not by the session. Call
/// [`compact_session`] first to compact.
///
/// Errors: `NotFound`, `InvalidInput` (window), `AuthenticationFailed`/`Corrupt`.
pub fn active_context(store: &SessionStore, session_id: &str, raw_window: u64, output_reserve: Option<u64>, model: Option<String>) -> Result<ActiveContextView> {
    let cx = active_context_items_of(store, session_id, raw_window, output_reserve, model)?;
    let mut by_seq: std::collections::HashMap<u64, &ContextItem> = cx.items.iter().map(|i| (i.seq, i)).collect();
    let mut out = Vec::new();
    let mut tokens = 0u64;
    let mut i = 0;
    while i < cx.seqs.len() {
        let seq = cx.seqs[i];
        if cx.governance.excluded.contains(&seq) {
            out.push(ActiveItem { seq, last_seq: None, role: cx.roles[i].clone(), state: super::TurnState::Excluded, tokens: 0, text: None });
            i += 1;
            continue;
        }
        let Some(item) = by_seq.remove(&seq) else {
            i += 1; // inside a run already emitted
            continue;
        };
        tokens = tokens.saturating_add(item.tokens);
        if item.compacted {
            let last_seq = cx.governance.compaction_of(seq).and_then(|t| t.last_seq);
            out.push(ActiveItem { seq, last_seq, role: item.role.clone(), state: super::TurnState::Compacted, tokens: item.tokens, text: Some(item.text.clone()) });
            i += 1;
            continue;
        }
        // A stretch of verbatim entries: one read per page.
        let mut j = i;
        while j + 1 < cx.seqs.len() && by_seq.get(&cx.seqs[j + 1]).is_some_and(|x| !x.compacted) && !cx.governance.excluded.contains(&cx.seqs[j + 1]) {
            j += 1;
        }
        let mut texts = std::collections::HashMap::new();
        let mut from = seq;
        while from <= cx.seqs[j] {
            let page = store.get_transcript(session_id, from, crate::store::DEFAULT_PAGE)?;
            let Some(last) = page.last().map(|e| e.seq) else { break };
            for e in page.into_iter().filter(|e| e.seq <= cx.seqs[j]) {
                texts.insert(e.seq, e.content);
            }
            from = last + 1;
        }
        out.push(ActiveItem { seq, last_seq: None, role: item.role.clone(), state: super::TurnState::Verbatim, tokens: item.tokens, text: texts.remove(&seq) });
        for k in i + 1..=j {
            let it = by_seq.remove(&cx.seqs[k]).expect("verbatim item");
            tokens = tokens.saturating_add(it.tokens);
            out.push(ActiveItem { seq: it.seq, last_seq: None, role: it.role.clone(), state: super::TurnState::Verbatim, tokens: it.tokens, text: texts.remove(&it.seq) });
        }
        i = j + 1;
    }
    Ok(ActiveContextView { model: cx.model, capacity: cx.capacity, tokens, items: out })
}

/// Plan compaction of a stored session's active context down to
/// `target_percent` (default 70) of capacity (`/compact`); unless
/// `dry_run`, record the plan. The saved transcript is never modified.
///
/// The plan is recorded as a `compaction` context extension.
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
    let mut cx = active_context_items_of(store, session_id, raw_window, output_reserve, model)?;
    let options = CompactionOptions { model: cx.model.clone(), ..Default::default() };
    // Plan on tokens alone, then give the items whose text a summary reads
    // their content and plan again, until every summary read real text: the
    // plan equals one over fully decrypted items (summaries read nothing else).
    let mut loaded = std::collections::HashSet::new();
    let plan = loop {
        let (plan, overflow) = planner::plan_runs(&cx.items, cx.capacity, target_percent, &options)?;
        let need: Vec<usize> = plan
            .transformations
            .iter()
            .filter_map(|t| planner::summary_source(&cx.items, t))
            .filter(|&i| !cx.items[i].compacted && loaded.insert(cx.items[i].seq))
            .collect();
        if need.is_empty() {
            match overflow {
                None => break plan,
                Some(b) => return Err(crate::Error::ContextOverflow(Box::new(b))),
            }
        }
        for i in need {
            let seq = cx.items[i].seq;
            let e = store.get_transcript(session_id, seq, 1)?.pop().ok_or_else(|| crate::Error::not_found("entry", seq.to_string()))?;
            // A call without a partner in the context is summarized with its
            // ids (`[assistant tool call <id>]`): give it the real ones back
            // (linked items keep the keyed hashes that link them).
            let keys = &cx.items[i].call_ids;
            let linked = cx.items.iter().enumerate().any(|(j, o)| j != i && o.call_ids.iter().any(|k| keys.contains(k)));
            if !linked {
                cx.items[i].call_ids = crate::store::entry_shape(e.role, e.format, &e.content).1;
            }
            cx.items[i].text = e.content;
        }
    };
    if !dry_run {
        record_compaction(store, session_id, &plan)?;
    }
    Ok(plan)
}

//! Context governance (seed 000, "Context Utilization Meter" and "Context
//! Compaction"), the restore boundary ("Session Restoration Boundary") and
//! the envelope helpers of the conformance cases. Thin wrappers over
//! `sessiondb::context`, `sessiondb::restore` and `sessiondb::crypto`.

use sessiondb::context::{
    self as core_ctx,
    CompactionPlan, ContextItem, CountMethod, Encoding, TokenCount,
};

use crate::error::Result;
use crate::records::{CompactedRun, ContextGovernance};

/// How a token count was obtained.
#[uniffi::remote(Enum)]
pub enum CountMethod {
    /// Counted with the model's own tokenizer.
    Exact {
        /// The encoding used.
        encoding: Encoding,
    },
    /// The documented estimate `⌈UTF-8 bytes / 3⌉`.
    Estimate,
    /// The host supplied the count.
    Host,
}

/// A token count and how it was obtained.
#[uniffi::remote(Record)]
pub struct TokenCount {
    /// Number of tokens.
    pub tokens: u64,
    /// How `tokens` was obtained.
    pub method: CountMethod,
}

/// Planner options.
#[derive(Debug, Clone, uniffi::Record)]
pub struct CompactionOptions {
    /// User turns kept verbatim at the end of the context (default 2).
    #[uniffi(default = 2)]
    pub recent_user_turns: u32,
    /// Model whose tokenizer counts the summaries (`null`/`nil`: `⌈UTF-8 bytes / 3⌉`).
    #[uniffi(default)]
    pub model: Option<String>,
}

impl From<CompactionOptions> for core_ctx::CompactionOptions {
    fn from(o: CompactionOptions) -> Self {
        core_ctx::CompactionOptions {
            recent_user_turns: o.recent_user_turns as usize,
            model: o.model,
        }
    }
}

impl From<ContextGovernance> for core_ctx::ContextGovernance {
    fn from(g: ContextGovernance) -> Self {
        core_ctx::ContextGovernance {
            pinned: g.pinned.into_iter().collect(),
            excluded: g.excluded.into_iter().collect(),
            compacted: g.compacted.into_iter().map(Into::into).collect(),
            history: g.history,
        }
    }
}

impl From<CompactedRun> for core_ctx::CompactedRun {
    fn from(r: CompactedRun) -> Self {
        core_ctx::CompactedRun { first_seq: r.first_seq, last_seq: r.last_seq, transformation: std::sync::Arc::new(r.transformation) }
    }
}

/// Plan the compaction of the active context (seed 000, "Context
/// Compaction"): compact the oldest unpinned, unprotected items until the
/// context is ≤ `targetPercent` (default 70) of `capacity` (tokens); a tool
/// call is never split from its result; summaries ≤ 240 characters.
///
/// Errors: `InvalidInput` (capacity 0, target > 100, seqs not increasing);
/// `ContextOverflow` with the token breakdown when protected content alone
/// exceeds capacity.
#[uniffi::export(default(target_percent = None, options = None))]
pub fn compact_context(
    items: Vec<ContextItem>,
    capacity: u64,
    target_percent: Option<u8>,
    options: Option<CompactionOptions>,
) -> Result<CompactionPlan> {
    let options = options.map(Into::into).unwrap_or_default();
    Ok(core_ctx::compact_context(
        &items,
        capacity,
        target_percent,
        &options,
    )?)
}

/// The active context after `plan`: each transformed item gets its summary
/// (`compacted = true`, `tokens = tokensAfter`); the others are unchanged.
#[uniffi::export]
pub fn apply_compaction(plan: CompactionPlan, items: Vec<ContextItem>) -> Vec<ContextItem> {
    plan.apply(&items)
}

/// The deterministic summary of one item (at most 240 characters).
#[uniffi::export]
pub fn summarize_item(item: ContextItem) -> String {
    core_ctx::summarize_item(&item)
}

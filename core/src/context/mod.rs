//! Context governance: what the model sees next.
//!
//! Source: seed 000, "Context Utilization Meter" and "Context Compaction";
//! DESIGN.md, "Context governance". Everything here is pure and
//! deterministic, so every binding gets the same answers:
//!
//! * [`capacity`]: Effective Context Capacity ([`effective_context_capacity`]);
//! * [`meter`](mod@meter): `Ctx N%` and its band ([`meter()`], [`should_compact`]);
//! * [`tokens`]: token counts ([`count_tokens`]);
//! * [`planner`]: the compaction planner ([`compact_context`]);
//! * [`governance`]: pins, exclusions and compaction records as context
//!   extensions, replayed by [`recover_context_governance`].
//!
//! Opening a saved session (knowledge restored, authority reset) is
//! [`crate::restore`].

pub mod capacity;
mod extensions;
pub mod governance;
pub mod meter;
mod o200k_fast;
pub mod planner;
pub mod session;
pub mod tokens;

pub use capacity::{
    capacity_breakdown, effective_context_capacity, effective_context_capacity_for_model, known_model_limits,
    CapacityBreakdown, ModelLimits,
};
pub use meter::{meter, should_compact, Band, ContextMeter};
pub use planner::{
    compact_context, summarize_item, truncate_chars, CompactionAction, CompactionOptions, CompactionPlan,
    ContextItem, ItemKind, Transformation, DEFAULT_RECENT_USER_TURNS, MAX_CONTEXT_SEQ_SPAN, DEFAULT_TARGET_PERCENT, SUMMARY_MAX_CHARS,
};
pub use session::{active_context, compact_session, context_status, ActiveContextView, ActiveItem, ContextStatus};
pub use tokens::{count_tokens, encoding_for_model, estimate_tokens, CountMethod, Encoding, TokenCount};
pub use governance::{
    active_context_items, governance_turns, record_compaction, record_turn_decision, recover_context_governance, CompactedRun, CompactionHistoryEntry,
    ContextGovernance, TurnGovernance, TurnState, GOVERNANCE_KINDS, KIND_COMPACTION, KIND_EXCLUDE, KIND_INCLUDE,
    KIND_PIN, KIND_UNPIN, MAX_GOVERNANCE_TURNS,
};

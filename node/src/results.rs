//! Typed results of context governance (`sessiondb::context`), the restore
//! boundary (`sessiondb::restore`) and portable sessions
//! (`sessiondb::portable`) as plain JS objects (`#[napi(object)]`,
//! camelCase fields), converted field by field from the core structs; the
//! generated `native.d.ts` declares an interface for each. Enum values are
//! the core's serde names (`'amber'`, `'tool_call'`, `'up_to_date'`...).
//! Counts are JS numbers (exact below 2^53). Conversions only.

use std::collections::BTreeMap;

use napi_derive::napi;
use sessiondb::context as core_ctx;
use sessiondb::portable as core_pt;

use crate::records::{conv_from, from_core, n, u, Conv};
pub use crate::records::{SessionImport, Transformation, ReadReport};

// Field conversions of the core's enums (their serde names), once per type.
impl Conv<DigestSkippedLine> for core_pt::DigestSkippedLine {
    fn conv(self) -> DigestSkippedLine {
        DigestSkippedLine { line: n(self.line), reason: self.reason }
    }
}
conv_from!(
    core_ctx::CompactionPlan => CompactionPlan,
    sessiondb::restore::Authority => Authority,
    core_pt::SkippedLine => SkippedLine,
    core_ctx::TokenCount => TokenCount,
    core_pt::FileImport => FileImport,
    core_ctx::ContextItem => ContextItem,
);

/// The serde name of a unit enum variant of the core.
fn enum_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

/// A core unit enum from its serde name. Errors: `InvalidInput` naming `what`.
pub(crate) fn enum_parse<T: serde::de::DeserializeOwned>(name: &str, what: &str) -> sessiondb::Result<T> {
    serde_json::from_value(serde_json::Value::String(name.to_owned()))
        .map_err(|_| sessiondb::Error::invalid(format!("{what} is not one of its known values")))
}

fn seqs(v: impl IntoIterator<Item = u64>) -> Vec<i64> {
    v.into_iter().map(n).collect()
}

// --- context: capacity, meter, tokens

/// A token count; `encoding` only for exact counts.
#[napi(object, object_from_js = false)]
pub struct TokenCount {
    pub tokens: i64,
    #[napi(ts_type = "'exact' | 'estimate' | 'host'")]
    pub method: String,
    #[napi(ts_type = "'o200k_base' | 'cl100k_base'")]
    pub encoding: Option<String>,
}

impl From<core_ctx::TokenCount> for TokenCount {
    fn from(c: core_ctx::TokenCount) -> Self {
        let (method, encoding) = match c.method {
            core_ctx::CountMethod::Exact { encoding } => ("exact", Some(encoding.name().to_owned())),
            core_ctx::CountMethod::Estimate => ("estimate", None),
            core_ctx::CountMethod::Host => ("host", None),
        };
        TokenCount { tokens: n(c.tokens), method: method.to_owned(), encoding }
    }
}

// --- context: compaction

/// A compaction plan (tokens); `compactedSeqs` are the seqs of `transformations`.
/// The saved transcript is never modified.
#[napi(object)]
pub struct CompactionPlan {
    pub capacity: i64,
    pub target_percent: u32,
    pub target_tokens: i64,
    pub tokens_before: i64,
    pub tokens_after: i64,
    pub reached_target: bool,
    pub transformations: Vec<Transformation>,
    pub compacted_seqs: Vec<i64>,
}

impl From<core_ctx::CompactionPlan> for CompactionPlan {
    fn from(p: core_ctx::CompactionPlan) -> Self {
        let compacted_seqs = seqs(p.compacted_seqs());
        CompactionPlan {
            capacity: n(p.capacity),
            target_percent: u32::from(p.target_percent),
            target_tokens: n(p.target_tokens),
            tokens_before: n(p.tokens_before),
            tokens_after: n(p.tokens_after),
            reached_target: p.reached_target,
            transformations: p.transformations.into_iter().map(Into::into).collect(),
            compacted_seqs,
        }
    }
}

/// A plan passed back in (`recordCompaction`, `applyCompaction`);
/// `compactedSeqs` is derived, so it is not read.
impl crate::records::Back<core_ctx::CompactionPlan> for CompactionPlan {
    fn back(self, _: &str) -> sessiondb::Result<core_ctx::CompactionPlan> {
        Ok(core_ctx::CompactionPlan {
            capacity: u(self.capacity, "capacity")?,
            target_percent: u8::try_from(self.target_percent).map_err(|_| sessiondb::Error::invalid("targetPercent must be 0..=100"))?,
            target_tokens: u(self.target_tokens, "targetTokens")?,
            tokens_before: u(self.tokens_before, "tokensBefore")?,
            tokens_after: u(self.tokens_after, "tokensAfter")?,
            reached_target: self.reached_target,
            transformations: crate::records::Back::back(self.transformations, "transformations")?,
        })
    }
}

/// One item of the active model context, in the order it would be sent
/// (`compactContext` input, `applyCompaction` output). Missing optional
/// fields are `false` / `''` / `[]`.
#[napi(object)]
pub struct ContextItem {
    pub seq: i64,
    /// `user`, `assistant`, `tool`, `system`...
    pub role: String,
    #[napi(ts_type = "'message' | 'tool_call' | 'tool_result' | 'system'")]
    pub kind: String,
    pub tokens: i64,
    pub pinned: Option<bool>,
    pub text: Option<String>,
    /// Tool-call ids linking calls and results.
    pub call_ids: Option<Vec<String>>,
    /// Already a summary from an earlier compaction.
    pub compacted: Option<bool>,
}

impl From<core_ctx::ContextItem> for ContextItem {
    fn from(i: core_ctx::ContextItem) -> Self {
        ContextItem {
            seq: n(i.seq),
            role: i.role,
            kind: enum_name(&i.kind),
            tokens: n(i.tokens),
            pinned: Some(i.pinned),
            text: Some(i.text),
            call_ids: Some(i.call_ids),
            compacted: Some(i.compacted),
        }
    }
}

impl ContextItem {
    pub fn into_core(self) -> sessiondb::Result<core_ctx::ContextItem> {
        Ok(core_ctx::ContextItem {
            seq: u(self.seq, "seq")?,
            role: self.role,
            kind: enum_parse(&self.kind, "context item kind")?,
            tokens: u(self.tokens, "tokens")?,
            pinned: self.pinned.unwrap_or(false),
            text: self.text.unwrap_or_default(),
            call_ids: self.call_ids.unwrap_or_default(),
            compacted: self.compacted.unwrap_or(false),
        })
    }
}

/// Planner options: user turns kept verbatim (default 2), model whose
/// tokenizer counts the summaries (default: the estimate ⌈UTF-8 bytes / 3⌉).
#[napi(object, object_to_js = false)]
pub struct CompactionOptions {
    pub recent_user_turns: Option<u32>,
    pub model: Option<String>,
}

impl From<CompactionOptions> for core_ctx::CompactionOptions {
    fn from(o: CompactionOptions) -> Self {
        let d = core_ctx::CompactionOptions::default();
        core_ctx::CompactionOptions {
            recent_user_turns: o.recent_user_turns.map_or(d.recent_user_turns, |t| t as usize),
            model: o.model,
        }
    }
}

// --- context: governance and status

// --- restore boundary

/// The authority of an opened session: always fresh (Manual, no full
/// access, no sensitive-transfer grant, no temporary approvals).
#[napi(object, object_from_js = false)]
pub struct Authority {
    #[napi(ts_type = "'manual'")]
    pub permission_profile: String,
    pub full_access: bool,
    pub sensitive_transfer: bool,
    pub temporary_approvals: Vec<String>,
}

impl From<sessiondb::restore::Authority> for Authority {
    fn from(a: sessiondb::restore::Authority) -> Self {
        Authority {
            permission_profile: enum_name(&a.permission_profile()),
            full_access: a.full_access(),
            sensitive_transfer: a.sensitive_transfer(),
            temporary_approvals: a.temporary_approvals().to_vec(),
        }
    }
}

// --- portable sessions

/// A line a reader skipped; `column` (1-based) only for `invalid_json`.
#[napi(object, object_from_js = false)]
pub struct SkippedLine {
    pub line: i64,
    pub offset: i64,
    #[napi(ts_type = "'torn_tail' | 'invalid_utf8' | 'invalid_json' | 'not_an_object'")]
    pub reason: String,
    pub column: Option<i64>,
}

impl From<core_pt::SkippedLine> for SkippedLine {
    fn from(s: core_pt::SkippedLine) -> Self {
        let (reason, column) = match s.reason {
            core_pt::SkipReason::TornTail => ("torn_tail", None),
            core_pt::SkipReason::InvalidUtf8 => ("invalid_utf8", None),
            core_pt::SkipReason::InvalidJson { column } => ("invalid_json", Some(n(column))),
            core_pt::SkipReason::NotAnObject => ("not_an_object", None),
        };
        SkippedLine { line: n(s.line), offset: n(s.offset), reason: reason.to_owned(), column }
    }
}

/// The import report of one file; a `failed` status carries its message (no content) in `error`.
#[napi(object, object_from_js = false)]
pub struct FileImport {
    pub path: String,
    #[napi(ts_type = "'thclaws' | 'codex' | 'claude-code'")]
    pub format: Option<String>,
    #[napi(ts_type = "'imported' | 'up_to_date' | 'source_changed' | 'unrecognized' | 'failed'")]
    pub status: String,
    pub error: Option<String>,
    pub from_line: i64,
    pub sessions: Vec<SessionImport>,
    pub read: Option<ReadReport>,
}

impl From<core_pt::FileImport> for FileImport {
    fn from(f: core_pt::FileImport) -> Self {
        let (status, error) = match f.status {
            core_pt::ImportStatus::Failed(msg) => ("failed".to_owned(), Some(msg)),
            other => (enum_name(&other), None),
        };
        FileImport {
            path: f.path.to_string_lossy().into_owned(),
            format: f.format.map(|x| x.as_str().to_owned()),
            status,
            error,
            from_line: n(f.from_line),
            sessions: f.sessions.into_iter().map(Into::into).collect(),
            read: f.read.map(Into::into),
        }
    }
}

/// A line the thClaws reader skipped (`reason` as in `SkippedLine`).
#[napi(object, object_from_js = false)]
pub struct DigestSkippedLine {
    pub line: i64,
    #[napi(ts_type = "'torn_tail' | 'invalid_utf8' | 'invalid_json' | 'not_an_object'")]
    pub reason: String,
}

/// What the thClaws reader saw in one file (`readThclawsDigest`).
#[napi(object, object_from_js = false)]
pub struct ThclawsDigest {
    pub id: String,
    pub title: Option<String>,
    pub model: Option<String>,
    pub provider: Option<String>,
    pub cwd: Option<String>,
    pub created_at_ms: Option<i64>,
    pub roles: Vec<String>,
    pub texts: Vec<String>,
    pub active_texts: Vec<String>,
    pub tool_calls: i64,
    pub tool_results: i64,
    pub plan_steps: i64,
    pub compactions: i64,
    pub lines: i64,
    pub bytes: i64,
    pub skipped: Vec<DigestSkippedLine>,
    pub surrogates_replaced: Vec<i64>,
    pub missing_final_newline: bool,
    pub kept_raw: BTreeMap<String, i64>,
    pub other_lines: i64,
}

from_core! {
    ThclawsDigest <= core_pt::ThclawsDigest { id, title, model, provider, cwd, created_at_ms, roles, texts, active_texts, tool_calls, tool_results, plan_steps, compactions, lines, bytes, skipped, surrogates_replaced, missing_final_newline, kept_raw, other_lines }
}

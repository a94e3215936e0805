//! Typed results of context governance (`sessiondb::context`), the restore
//! boundary (`sessiondb::restore`) and portable sessions
//! (`sessiondb::portable`): one frozen class per core struct, converted
//! field by field. Enum values are their core serde names (`"amber"`,
//! `"tool_call"`, `"up_to_date"`...). Conversions only.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use sessiondb::context as core_ctx;
use sessiondb::portable as core_pt;

use crate::json::{enum_name, enum_parse};
use crate::records::{conv_from, dict_of, record};
pub(crate) use crate::records::{SessionImport, Transformation, ReadReport};

// Field conversions of the core's enums (their serde names), once per type.
conv_from!(
    core_ctx::CompactionPlan => CompactionPlan,
    sessiondb::restore::Authority => Authority,
    core_pt::SkippedLine => SkippedLine,
    core_ctx::TokenCount => TokenCount,
    core_pt::FileImport => FileImport,
    core_ctx::ContextItem => ContextItem,
);

// --- context: capacity, meter, tokens

record! {
    /// A token count: `method` exact|estimate|host; `encoding`
    /// (o200k_base|cl100k_base) only for exact counts.
    TokenCount = "TokenCount" { tokens: u64, method: &'static str, encoding: Option<&'static str> }
}

impl From<core_ctx::TokenCount> for TokenCount {
    fn from(c: core_ctx::TokenCount) -> Self {
        let (method, encoding) = match c.method {
            core_ctx::CountMethod::Exact { encoding } => ("exact", Some(encoding.name())),
            core_ctx::CountMethod::Estimate => ("estimate", None),
            core_ctx::CountMethod::Host => ("host", None),
        };
        TokenCount { tokens: c.tokens, method, encoding }
    }
}

// --- context: compaction

record! {
    /// A compaction plan (tokens): `compacted_seqs` are the seqs of
    /// `transformations`. The saved transcript is never modified.
    CompactionPlan = "CompactionPlan" {
        capacity: u64,
        target_percent: u8,
        target_tokens: u64,
        tokens_before: u64,
        tokens_after: u64,
        reached_target: bool,
        transformations: Vec<Transformation>,
        compacted_seqs: Vec<u64>,
    }
}

impl From<core_ctx::CompactionPlan> for CompactionPlan {
    fn from(p: core_ctx::CompactionPlan) -> Self {
        let compacted_seqs = p.compacted_seqs();
        CompactionPlan {
            capacity: p.capacity,
            target_percent: p.target_percent,
            target_tokens: p.target_tokens,
            tokens_before: p.tokens_before,
            tokens_after: p.tokens_after,
            reached_target: p.reached_target,
            transformations: p.transformations.into_iter().map(Into::into).collect(),
            compacted_seqs,
        }
    }
}

/// A plan passed back in (`record_compaction`, `apply_compaction`);
/// `compacted_seqs` is derived, so it is not read.
impl crate::records::Back<core_ctx::CompactionPlan> for CompactionPlan {
    fn back(&self, _: &str) -> sessiondb::Result<core_ctx::CompactionPlan> {
        Ok(core_ctx::CompactionPlan {
            capacity: self.capacity,
            target_percent: self.target_percent,
            target_tokens: self.target_tokens,
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            reached_target: self.reached_target,
            transformations: crate::records::Back::back(&self.transformations, "transformations")?,
        })
    }
}

const CONTEXT_ITEM_FIELDS: &[&str] = &["seq", "role", "kind", "tokens", "pinned", "text", "call_ids", "compacted"];

/// One item of the active model context (`compact_context` input, also
/// accepted as a dict; `apply_compaction` output). `kind`:
/// message|tool_call|tool_result|system.
#[pyclass(frozen, get_all, eq, module = "sessiondb", name = "ContextItem")]
#[derive(Debug, Clone, PartialEq)]
pub struct ContextItem {
    pub seq: u64,
    pub role: String,
    pub kind: String,
    pub tokens: u64,
    pub pinned: bool,
    pub text: String,
    pub call_ids: Vec<String>,
    pub compacted: bool,
}

#[pymethods]
impl ContextItem {
    #[new]
    #[pyo3(signature = (seq, role, kind, tokens, pinned = false, text = "", call_ids = None, compacted = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        seq: u64,
        role: String,
        kind: String,
        tokens: u64,
        pinned: bool,
        text: &str,
        call_ids: Option<Vec<String>>,
        compacted: bool,
    ) -> Self {
        ContextItem { seq, role, kind, tokens, pinned, text: text.to_owned(), call_ids: call_ids.unwrap_or_default(), compacted }
    }

    /// The text is not shown (it may be user content), only its length.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let r = |name: &str| -> PyResult<String> { Ok(slf.getattr(name)?.repr()?.to_string()) };
        Ok(format!(
            "ContextItem(seq={}, role={}, kind={}, tokens={}, pinned={}, text=<{} chars>, call_ids={}, compacted={})",
            r("seq")?,
            r("role")?,
            r("kind")?,
            r("tokens")?,
            r("pinned")?,
            slf.get().text.chars().count(),
            r("call_ids")?,
            r("compacted")?
        ))
    }

    /// The item as plain data: `{attribute: value}` (the dict form `compact_context` accepts).
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        dict_of(slf.as_any(), CONTEXT_ITEM_FIELDS)
    }
}

impl From<core_ctx::ContextItem> for ContextItem {
    fn from(i: core_ctx::ContextItem) -> Self {
        ContextItem {
            seq: i.seq,
            role: i.role,
            kind: enum_name(&i.kind),
            tokens: i.tokens,
            pinned: i.pinned,
            text: i.text,
            call_ids: i.call_ids,
            compacted: i.compacted,
        }
    }
}

impl ContextItem {
    pub fn to_core(&self) -> sessiondb::Result<core_ctx::ContextItem> {
        Ok(core_ctx::ContextItem {
            seq: self.seq,
            role: self.role.clone(),
            kind: enum_parse(&self.kind, "context item kind")?,
            tokens: self.tokens,
            pinned: self.pinned,
            text: self.text.clone(),
            call_ids: self.call_ids.clone(),
            compacted: self.compacted,
        })
    }
}

// --- context: governance and status

// --- restore boundary

record! {
    /// The authority of an opened session: always fresh (`permission_profile`
    /// "manual", no full access, no sensitive-transfer grant, no approvals).
    Authority = "Authority" {
        permission_profile: String,
        full_access: bool,
        sensitive_transfer: bool,
        temporary_approvals: Vec<String>,
    }
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

record! {
    /// A line a reader skipped: `reason` torn_tail|invalid_utf8|invalid_json|not_an_object;
    /// `column` (1-based) only for invalid_json.
    SkippedLine = "SkippedLine" { line: u64, offset: u64, reason: &'static str, column: Option<u64> }
}

impl From<core_pt::SkippedLine> for SkippedLine {
    fn from(s: core_pt::SkippedLine) -> Self {
        let (reason, column) = match s.reason {
            core_pt::SkipReason::TornTail => ("torn_tail", None),
            core_pt::SkipReason::InvalidUtf8 => ("invalid_utf8", None),
            core_pt::SkipReason::InvalidJson { column } => ("invalid_json", Some(column)),
            core_pt::SkipReason::NotAnObject => ("not_an_object", None),
        };
        SkippedLine { line: s.line, offset: s.offset, reason, column }
    }
}

record! {
    /// The import report of one file. `format` thclaws|codex|claude-code;
    /// `status` imported|up_to_date|source_changed|unrecognized|failed, with
    /// the failure message (no content) in `error`.
    FileImport = "FileImport" {
        path: String,
        format: Option<&'static str>,
        status: String,
        error: Option<String>,
        from_line: u64,
        sessions: Vec<SessionImport>,
        read: Option<ReadReport>,
    }
}

impl From<core_pt::FileImport> for FileImport {
    fn from(f: core_pt::FileImport) -> Self {
        let (status, error) = match f.status {
            core_pt::ImportStatus::Failed(msg) => ("failed".to_owned(), Some(msg)),
            other => (enum_name(&other), None),
        };
        FileImport {
            path: f.path.to_string_lossy().into_owned(),
            format: f.format.map(core_pt::SourceFormat::as_str),
            status,
            error,
            from_line: f.from_line,
            sessions: f.sessions.into_iter().map(Into::into).collect(),
            read: f.read.map(Into::into),
        }
    }
}

record! {
    /// A line the thClaws reader skipped (`reason` as in `SkippedLine`).
    DigestSkippedLine = "DigestSkippedLine" from core_pt::DigestSkippedLine { line: u64, reason: String }
}

record! {
    /// What the thClaws reader saw in one file (`read_thclaws_digest`).
    ThclawsDigest = "ThclawsDigest" from core_pt::ThclawsDigest {
        id: String,
        title: Option<String>,
        model: Option<String>,
        provider: Option<String>,
        cwd: Option<String>,
        created_at_ms: Option<i64>,
        roles: Vec<String>,
        texts: Vec<String>,
        active_texts: Vec<String>,
        tool_calls: u64,
        tool_results: u64,
        plan_steps: u64,
        compactions: u64,
        lines: u64,
        bytes: u64,
        skipped: Vec<DigestSkippedLine>,
        surrogates_replaced: Vec<u64>,
        missing_final_newline: bool,
        kept_raw: BTreeMap<String, u64>,
        other_lines: u64,
    }
}


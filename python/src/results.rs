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
use crate::records::{dict_of, record, ContextExtension, Session, TokenTotals, TranscriptEntry};

// --- context: capacity, meter, tokens

record! {
    /// Every term of the Effective Context Capacity, in tokens.
    CapacityBreakdown = "CapacityBreakdown" { raw: u64, output_reserve: u64, safety_margin: u64, capacity: u64 }
}

impl From<core_ctx::CapacityBreakdown> for CapacityBreakdown {
    fn from(b: core_ctx::CapacityBreakdown) -> Self {
        CapacityBreakdown { raw: b.raw, output_reserve: b.output_reserve, safety_margin: b.safety_margin, capacity: b.capacity }
    }
}

record! {
    /// Published limits of a model, in tokens.
    ModelLimits = "ModelLimits" { context_window: u64, max_output: u64 }
}

impl From<core_ctx::ModelLimits> for ModelLimits {
    fn from(l: core_ctx::ModelLimits) -> Self {
        ModelLimits { context_window: l.context_window, max_output: l.max_output }
    }
}

record! {
    /// One reading of the context meter: `label` is `Ctx N%`, `band`
    /// green|amber|orange|red, `overflow` = active_tokens > capacity.
    ContextMeter = "ContextMeter" {
        active_tokens: u64,
        capacity: u64,
        percent: u64,
        label: String,
        band: &'static str,
        overflow: bool,
    }
}

impl From<core_ctx::ContextMeter> for ContextMeter {
    fn from(m: core_ctx::ContextMeter) -> Self {
        ContextMeter {
            active_tokens: m.active_tokens,
            capacity: m.capacity,
            percent: m.percent,
            label: m.label,
            band: m.band.name(),
            overflow: m.overflow,
        }
    }
}

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
    /// The transformation record of one compacted item, or of a run of
    /// items from `seq` to `last_seq` replaced by one summary; `action`
    /// summarized|tool_result_preview; `summary` at most 240 characters.
    Transformation = "Transformation" { seq: u64, last_seq: Option<u64>, action: String, tokens_before: u64, tokens_after: u64, summary: String }
}

impl From<core_ctx::Transformation> for Transformation {
    fn from(t: core_ctx::Transformation) -> Self {
        Transformation {
            seq: t.seq,
            last_seq: t.last_seq,
            action: enum_name(&t.action),
            tokens_before: t.tokens_before,
            tokens_after: t.tokens_after,
            summary: t.summary,
        }
    }
}

impl Transformation {
    fn to_core(&self) -> sessiondb::Result<core_ctx::Transformation> {
        Ok(core_ctx::Transformation {
            seq: self.seq,
            last_seq: self.last_seq,
            action: enum_parse(&self.action, "transformation action")?,
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            summary: self.summary.clone(),
        })
    }
}

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

impl CompactionPlan {
    pub fn to_core(&self) -> sessiondb::Result<core_ctx::CompactionPlan> {
        Ok(core_ctx::CompactionPlan {
            capacity: self.capacity,
            target_percent: self.target_percent,
            target_tokens: self.target_tokens,
            tokens_before: self.tokens_before,
            tokens_after: self.tokens_after,
            reached_target: self.reached_target,
            transformations: self.transformations.iter().map(Transformation::to_core).collect::<sessiondb::Result<_>>()?,
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

record! {
    /// One turn as `/context` shows it: `state` verbatim|compacted|excluded;
    /// `compaction` is the record in force for this turn, if any.
    TurnGovernance = "TurnGovernance" { seq: u64, state: String, pinned: bool, compaction: Option<Transformation> }
}

impl From<core_ctx::TurnGovernance> for TurnGovernance {
    fn from(t: core_ctx::TurnGovernance) -> Self {
        TurnGovernance { seq: t.seq, state: enum_name(&t.state), pinned: t.pinned, compaction: t.compaction.map(Into::into) }
    }
}

record! {
    /// Where a stored session's context stands (`/context`): `model` picks
    /// the tokenizer (None: estimate), `capacity` in tokens.
    ContextStatus = "ContextStatus" { model: Option<String>, capacity: u64, meter: ContextMeter, turns: Vec<TurnGovernance> }
}

impl From<core_ctx::ContextStatus> for ContextStatus {
    fn from(s: core_ctx::ContextStatus) -> Self {
        ContextStatus {
            model: s.model,
            capacity: s.capacity,
            meter: s.meter.into(),
            turns: s.turns.into_iter().map(Into::into).collect(),
        }
    }
}

record! {
    /// One recorded compaction: the context extension number `n`, when
    /// (ms since the Unix epoch) and the plan as recorded.
    CompactionHistoryEntry = "CompactionHistoryEntry" { n: u64, created_at_ms: i64, plan: CompactionPlan }
}

impl From<core_ctx::CompactionHistoryEntry> for CompactionHistoryEntry {
    fn from(h: core_ctx::CompactionHistoryEntry) -> Self {
        CompactionHistoryEntry { n: h.n, created_at_ms: h.created_at_ms, plan: h.plan.into() }
    }
}

record! {
    /// Pins, exclusions and compactions of a session, replayed: `pinned`
    /// and `excluded` seqs ascending, `compacted` the record in force per
    /// seq, `history` every recorded compaction, oldest first.
    ContextGovernance = "ContextGovernance" {
        pinned: Vec<u64>,
        excluded: Vec<u64>,
        compacted: BTreeMap<u64, Transformation>,
        history: Vec<CompactionHistoryEntry>,
    }
}

impl From<core_ctx::ContextGovernance> for ContextGovernance {
    fn from(g: core_ctx::ContextGovernance) -> Self {
        ContextGovernance {
            pinned: g.pinned.into_iter().collect(),
            excluded: g.excluded.into_iter().collect(),
            compacted: g.compacted.into_iter().map(|(k, t)| (k, t.into())).collect(),
            history: g.history.into_iter().map(Into::into).collect(),
        }
    }
}

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

record! {
    /// A saved session's knowledge, as stored: metadata, the whole
    /// transcript, token totals, governance and the other context extensions.
    SavedSessionState = "SavedSessionState" {
        session: Session,
        transcript: Vec<TranscriptEntry>,
        token_totals: TokenTotals,
        governance: ContextGovernance,
        other_extensions: Vec<ContextExtension>,
    }
}

impl From<sessiondb::restore::SavedSessionState> for SavedSessionState {
    fn from(k: sessiondb::restore::SavedSessionState) -> Self {
        SavedSessionState {
            session: k.session.into(),
            transcript: k.transcript.into_iter().map(Into::into).collect(),
            token_totals: k.token_totals.into(),
            governance: k.governance.into(),
            other_extensions: k.other_extensions.into_iter().map(Into::into).collect(),
        }
    }
}

record! {
    /// A saved session, opened (seed 000 "Session Restoration Boundary").
    OpenedSession = "OpenedSession" { knowledge: SavedSessionState, authority: Authority }
}

impl From<sessiondb::restore::OpenedSession> for OpenedSession {
    fn from(o: sessiondb::restore::OpenedSession) -> Self {
        OpenedSession { knowledge: o.knowledge.into(), authority: o.authority.into() }
    }
}

// --- portable sessions

record! {
    /// Per-session figures of one file import (tokens for the `*_tokens` fields).
    SessionImport = "SessionImport" {
        session_id: String,
        created: bool,
        entries: u64,
        tool_calls: u64,
        tool_results: u64,
        usage_records: u64,
        input_tokens: u64,
        output_tokens: u64,
        cached_tokens: u64,
        context_extensions: u64,
        skipped_already_stored: u64,
    }
}

impl From<core_pt::SessionImport> for SessionImport {
    fn from(s: core_pt::SessionImport) -> Self {
        SessionImport {
            session_id: s.session_id,
            created: s.created,
            entries: s.entries,
            tool_calls: s.tool_calls,
            tool_results: s.tool_results,
            usage_records: s.usage_records,
            input_tokens: s.input_tokens,
            output_tokens: s.output_tokens,
            cached_tokens: s.cached_tokens,
            context_extensions: s.context_extensions,
            skipped_already_stored: s.skipped_already_stored,
        }
    }
}

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
    /// What a reader saw in one file: every line is imported or counted
    /// here (`kinds`, `not_imported`, `kept_raw` map a line kind to a count).
    ReadReport = "ReadReport" {
        format: Option<&'static str>,
        lines: u64,
        bytes: u64,
        kinds: BTreeMap<String, u64>,
        not_imported: BTreeMap<String, u64>,
        kept_raw: BTreeMap<String, u64>,
        skipped: Vec<SkippedLine>,
        surrogates_replaced: Vec<u64>,
        blank_lines: u64,
        missing_final_newline: bool,
        already_imported_lines: u64,
        merged_lines: u64,
        duplicate_usage: u64,
    }
}

impl From<core_pt::ReadReport> for ReadReport {
    fn from(r: core_pt::ReadReport) -> Self {
        ReadReport {
            format: r.format.map(core_pt::SourceFormat::as_str),
            lines: r.lines,
            bytes: r.bytes,
            kinds: r.kinds,
            not_imported: r.not_imported,
            kept_raw: r.kept_raw,
            skipped: r.skipped.into_iter().map(Into::into).collect(),
            surrogates_replaced: r.surrogates_replaced,
            blank_lines: r.blank_lines,
            missing_final_newline: r.missing_final_newline,
            already_imported_lines: r.already_imported_lines,
            merged_lines: r.merged_lines,
            duplicate_usage: r.duplicate_usage,
        }
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
    DigestSkippedLine = "DigestSkippedLine" { line: u64, reason: String }
}

record! {
    /// What the thClaws reader saw in one file (`read_thclaws_digest`).
    ThclawsDigest = "ThclawsDigest" {
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

impl From<core_pt::ThclawsDigest> for ThclawsDigest {
    fn from(d: core_pt::ThclawsDigest) -> Self {
        ThclawsDigest {
            id: d.id,
            title: d.title,
            model: d.model,
            provider: d.provider,
            cwd: d.cwd,
            created_at_ms: d.created_at_ms,
            roles: d.roles,
            texts: d.texts,
            active_texts: d.active_texts,
            tool_calls: d.tool_calls,
            tool_results: d.tool_results,
            plan_steps: d.plan_steps,
            compactions: d.compactions,
            lines: d.lines,
            bytes: d.bytes,
            skipped: d.skipped.into_iter().map(|s| DigestSkippedLine { line: s.line, reason: s.reason }).collect(),
            surrogates_replaced: d.surrogates_replaced,
            missing_final_newline: d.missing_final_newline,
            kept_raw: d.kept_raw,
            other_lines: d.other_lines,
        }
    }
}

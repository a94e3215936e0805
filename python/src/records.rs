//! Typed result classes: one frozen Python class per core record type, with
//! read-only attributes, `__repr__` and `__eq__`. Conversions only.

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// `Name(field=repr, ...)` from the object's own attributes.
pub(crate) fn repr_of(obj: &Bound<'_, PyAny>, name: &str, fields: &[&str]) -> PyResult<String> {
    let mut parts = Vec::with_capacity(fields.len());
    for f in fields {
        parts.push(format!("{f}={}", obj.getattr(*f)?.repr()?));
    }
    Ok(format!("{name}({})", parts.join(", ")))
}

/// An attribute value as plain Python data: a record becomes its
/// `to_dict()`, lists and dicts are converted item by item, the rest is
/// returned as is.
fn plain<'py>(v: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = v.py();
    if let Ok(list) = v.cast::<PyList>() {
        let out = PyList::empty(py);
        for x in list.iter() {
            out.append(plain(x)?)?;
        }
        return Ok(out.into_any());
    }
    if let Ok(dict) = v.cast::<PyDict>() {
        let out = PyDict::new(py);
        for (k, x) in dict.iter() {
            out.set_item(k, plain(x)?)?;
        }
        return Ok(out.into_any());
    }
    if v.hasattr(intern!(py, "to_dict"))? {
        return v.call_method0(intern!(py, "to_dict"));
    }
    Ok(v)
}

/// `{field: plain value}` of the object's own attributes (`to_dict()`).
pub(crate) fn dict_of<'py>(obj: &Bound<'py, PyAny>, fields: &[&str]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(obj.py());
    for f in fields {
        d.set_item(*f, plain(obj.getattr(*f)?)?)?;
    }
    Ok(d)
}

/// A frozen record class: read-only attributes, `==`, `__repr__` and
/// `to_dict()` (the attributes as plain dicts, lists and scalars).
macro_rules! record {
    ($(#[$m:meta])* $name:ident = $pyname:literal { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[pyclass(frozen, get_all, eq, module = "sessiondb", name = $pyname)]
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name { $($(#[$fm])* pub $field: $ty),* }

        #[pymethods]
        impl $name {
            fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
                $crate::records::repr_of(slf.as_any(), $pyname, &[$(stringify!($field)),*])
            }

            /// The record as plain data: `{attribute: value}`, nested records as dicts.
            fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
                $crate::records::dict_of(slf.as_any(), &[$(stringify!($field)),*])
            }
        }
    };
}
pub(crate) use record;

record! {
    /// A session's metadata (decrypted). Times in ms since the Unix epoch.
    Session = "Session" {
        id: String,
        name: Option<String>,
        workspace_path: Option<String>,
        model: Option<String>,
        provider: Option<String>,
        work_mode: Option<String>,
        created_at_ms: i64,
        updated_at_ms: i64,
        entry_count: u64,
        forked_from: Option<String>,
        forked_at_seq: Option<u64>,
        unreadable: Vec<UnreadableField>,
    }
}

record! {
    /// A stored field that could not be read (a damaged row): `field` (e.g.
    /// `name`), `record_id` (e.g. `session:<id>:name`), `kind`
    /// (`AuthenticationFailed` or `Corrupt`) and `reason`.
    UnreadableField = "UnreadableField" {
        field: String,
        record_id: String,
        kind: String,
        reason: String,
    }
}

impl From<sessiondb::UnreadableField> for UnreadableField {
    fn from(u: sessiondb::UnreadableField) -> Self {
        UnreadableField { field: u.field, record_id: u.record_id, kind: u.kind, reason: u.reason }
    }
}

impl From<sessiondb::SessionRecord> for Session {
    fn from(r: sessiondb::SessionRecord) -> Self {
        Session {
            id: r.id,
            name: r.name,
            workspace_path: r.workspace_path,
            model: r.model,
            provider: r.provider,
            work_mode: r.work_mode,
            created_at_ms: r.created_at_ms,
            updated_at_ms: r.updated_at_ms,
            entry_count: r.entry_count,
            forked_from: r.forked_from,
            forked_at_seq: r.forked_at_seq,
            unreadable: r.unreadable.into_iter().map(Into::into).collect(),
        }
    }
}

record! {
    /// One transcript entry (decrypted). `role`: user|assistant|tool|system;
    /// `format`: text|blocks; `tokens`: host-supplied count, if any.
    TranscriptEntry = "TranscriptEntry" {
        session_id: String,
        seq: u64,
        role: &'static str,
        format: &'static str,
        content: String,
        created_at_ms: i64,
        tokens: Option<u64>,
        source_line: Option<u64>,
    }
}

impl From<sessiondb::TranscriptEntry> for TranscriptEntry {
    fn from(e: sessiondb::TranscriptEntry) -> Self {
        TranscriptEntry {
            session_id: e.session_id,
            seq: e.seq,
            role: e.role.as_str(),
            format: e.format.as_str(),
            content: e.content,
            created_at_ms: e.created_at_ms,
            tokens: e.tokens,
            source_line: e.source_line,
        }
    }
}

record! {
    /// Sums of a session's token ledger, in tokens.
    TokenTotals = "TokenTotals" { input: u64, output: u64, cached: u64 }
}

impl From<sessiondb::TokenTotals> for TokenTotals {
    fn from(t: sessiondb::TokenTotals) -> Self {
        TokenTotals { input: t.input, output: t.output, cached: t.cached }
    }
}

record! {
    /// One context extension (pin, exclusion, compaction record...); `body` is JSON text.
    ContextExtension = "ContextExtension" {
        session_id: String,
        n: u64,
        kind: String,
        body: String,
        created_at_ms: i64,
    }
}

impl From<sessiondb::ContextExtensionRecord> for ContextExtension {
    fn from(r: sessiondb::ContextExtensionRecord) -> Self {
        ContextExtension { session_id: r.session_id, n: r.n, kind: r.kind, body: r.body, created_at_ms: r.created_at_ms }
    }
}

record! {
    /// What a journal append did; `duplicate` = the event id was already there.
    AppendOutcome = "AppendOutcome" { seq: u64, aggregate_version: u64, duplicate: bool }
}

impl From<sessiondb::AppendOutcome> for AppendOutcome {
    fn from(o: sessiondb::AppendOutcome) -> Self {
        AppendOutcome { seq: o.seq, aggregate_version: o.aggregate_version, duplicate: o.duplicate }
    }
}

record! {
    /// What a recovery pass did: `marked_unknown` = `(session_id, operation_id)` pairs.
    RecoveryReport = "RecoveryReport" {
        marked_unknown: Vec<(String, String)>,
        skipped_live: u64,
        failed: Vec<(String, String, String)>,
    }
}

impl From<sessiondb::RecoveryReport> for RecoveryReport {
    fn from(r: sessiondb::RecoveryReport) -> Self {
        RecoveryReport { marked_unknown: r.marked_unknown, skipped_live: r.skipped_live, failed: r.failed }
    }
}

record! {
    /// An operation dispatched without a terminal event.
    OpenOperation = "OpenOperation" { session_id: String, operation_id: String, owner: String }
}

record! {
    /// Store figures (`sessiondb doctor`); sizes in bytes.
    StoreStats = "StoreStats" {
        path: String,
        key_backend: String,
        schema_version: u32,
        sessions: u64,
        transcript_entries: u64,
        journal_events: u64,
        open_operations: u64,
        db_bytes: u64,
        wal_bytes: u64,
    }
}

impl From<sessiondb::StoreStats> for StoreStats {
    fn from(s: sessiondb::StoreStats) -> Self {
        StoreStats {
            path: s.path,
            key_backend: s.key_backend,
            schema_version: s.schema_version,
            sessions: s.sessions,
            transcript_entries: s.transcript_entries,
            journal_events: s.journal_events,
            open_operations: s.open_operations,
            db_bytes: s.db_bytes,
            wal_bytes: s.wal_bytes,
        }
    }
}

const JOURNAL_EVENT_FIELDS: &[&str] =
    &["event_id", "session_id", "seq", "aggregate_version", "operation_id", "kind", "payload", "created_at"];

/// One journal event (decrypted). `payload` is the JSON value (dict, list...);
/// `created_at` an RFC 3339 UTC timestamp.
#[pyclass(frozen, eq, module = "sessiondb", name = "JournalEvent")]
#[derive(Debug, Clone, PartialEq)]
pub struct JournalEvent(pub sessiondb::JournalEvent);

#[pymethods]
impl JournalEvent {
    #[getter]
    fn event_id(&self) -> &str {
        &self.0.event_id
    }
    #[getter]
    fn session_id(&self) -> &str {
        &self.0.session_id
    }
    #[getter]
    fn seq(&self) -> u64 {
        self.0.seq
    }
    #[getter]
    fn aggregate_version(&self) -> u64 {
        self.0.aggregate_version
    }
    #[getter]
    fn operation_id(&self) -> Option<&str> {
        self.0.operation_id.as_deref()
    }
    #[getter]
    fn kind(&self) -> &str {
        &self.0.kind
    }
    #[getter]
    fn payload<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::json::to_py(py, &self.0.payload)
    }
    #[getter]
    fn created_at(&self) -> &str {
        &self.0.created_at
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "JournalEvent", JOURNAL_EVENT_FIELDS)
    }
    /// The event as plain data: `{attribute: value}`.
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(slf.as_any(), JOURNAL_EVENT_FIELDS)
    }
}


const ENTRY_META_FIELDS: &[&str] = &["model", "provider", "extra"];

/// Per-entry metadata (`append_entries_with_meta`, `get_transcript_with_meta`):
/// the model and provider that produced the entry and the source's other
/// fields (`extra`, a dict of JSON values: Claude `tool_use_result`, Codex
/// `phase`...). Empty metadata is `EntryMeta()`.
#[pyclass(frozen, eq, module = "sessiondb", name = "EntryMeta")]
#[derive(Debug, Clone, PartialEq)]
pub struct EntryMeta(pub sessiondb::EntryMeta);

#[pymethods]
impl EntryMeta {
    /// `extra`: a dict of JSON-serialisable values (None = empty).
    /// Raises InvalidInputError when `extra` is not a dict (JSON object),
    /// TypeError when it is not JSON-serialisable.
    #[new]
    #[pyo3(signature = (model = None, provider = None, extra = None))]
    fn new(model: Option<String>, provider: Option<String>, extra: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let extra = match extra {
            None => serde_json::Map::new(),
            Some(v) => crate::json::de(v, "extra")?,
        };
        Ok(EntryMeta(sessiondb::EntryMeta { model, provider, extra }))
    }
    #[getter]
    fn model(&self) -> Option<&str> {
        self.0.model.as_deref()
    }
    #[getter]
    fn provider(&self) -> Option<&str> {
        self.0.provider.as_deref()
    }
    /// The source fields as a new dict (JSON values) on each read.
    #[getter]
    fn extra<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        crate::json::to_py(py, &serde_json::Value::Object(self.0.extra.clone()))
    }
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        repr_of(slf.as_any(), "EntryMeta", ENTRY_META_FIELDS)
    }
    /// The metadata as plain data: `{"model", "provider", "extra"}`.
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        dict_of(slf.as_any(), ENTRY_META_FIELDS)
    }
}

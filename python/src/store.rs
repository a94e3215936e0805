//! `sessiondb.SessionStore`: the core store behind an `Arc`, every disk or
//! crypto call made with the GIL released (`Python::detach`).

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::PyType;
use sessiondb::journal::OperationOutcome;
use sessiondb::{
    ContentFormat, DataKey, Error, KeySource, NewEntry as CoreNewEntry, NewEvent, NewSession, OpenOptions, Role,
    TokenUsage, WorkspaceFilter,
};

use crate::errors::py_err;
use crate::keys::PyKeyProvider;
use crate::records::*;
use crate::results::{ActiveContextView, CompactionPlan, ContextGovernance, ContextStatus, FileImport, OpenedSession};

/// One entry to append (`SessionStore.append_entries`). `role`:
/// user|assistant|tool|system; `format`: text|blocks; times in ms since the
/// Unix epoch (None = now); `tokens`: a host-supplied count.
#[pyclass(frozen, get_all, eq, module = "sessiondb", name = "NewEntry")]
#[derive(Debug, Clone, PartialEq)]
pub struct NewEntry {
    role: String,
    content: String,
    format: String,
    created_at_ms: Option<i64>,
    tokens: Option<u64>,
    source_line: Option<u64>,
}

#[pymethods]
impl NewEntry {
    #[new]
    #[pyo3(signature = (role, content, format = "text", created_at_ms = None, tokens = None, source_line = None))]
    fn new(
        role: String,
        content: String,
        format: &str,
        created_at_ms: Option<i64>,
        tokens: Option<u64>,
        source_line: Option<u64>,
    ) -> Self {
        NewEntry { role, content, format: format.to_string(), created_at_ms, tokens, source_line }
    }

    /// The content is not shown (it may be user content), only its length.
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let me = slf.get();
        let r = |name: &str| -> PyResult<String> { Ok(slf.getattr(name)?.repr()?.to_string()) };
        Ok(format!(
            "NewEntry(role={}, content=<{} chars>, format={}, created_at_ms={}, tokens={}, source_line={})",
            r("role")?,
            me.content.chars().count(),
            r("format")?,
            r("created_at_ms")?,
            r("tokens")?,
            r("source_line")?
        ))
    }
}

impl NewEntry {
    fn to_core(&self) -> sessiondb::Result<CoreNewEntry> {
        Ok(CoreNewEntry {
            role: Role::parse(&self.role)?,
            content: self.content.clone(),
            format: ContentFormat::parse(&self.format)?,
            created_at_ms: self.created_at_ms,
            tokens: self.tokens,
            source_line: self.source_line,
        })
    }
}

/// The encrypted session store. Thread-safe; use as a context manager or
/// call `close()`. A handle used in a child process after `os.fork()`
/// raises `ClosedError`: open the store again in the child.
#[pyclass(frozen, module = "sessiondb", name = "SessionStore")]
pub struct SessionStore {
    pub(crate) inner: Arc<sessiondb::SessionStore>,
}


impl SessionStore {
    fn open_with(py: Python<'_>, opts: OpenOptions, provider: Option<Arc<PyKeyProvider>>) -> PyResult<Self> {
        match py.detach(|| sessiondb::SessionStore::open(opts)) {
            Ok(s) => Ok(SessionStore { inner: Arc::new(s) }),
            Err(e) => {
                let err = crate::errors::to_py(py, e);
                if let Some(cause) = provider.and_then(|p| p.take_raised()) {
                    err.set_cause(py, Some(cause));
                }
                Err(err)
            }
        }
    }
}

#[pymethods]
impl SessionStore {
    /// Open (creating if needed) the store at `path` (None = the default
    /// path for `app`). Key: `key` (32 bytes) or `key_provider` (an object
    /// with `get_key() -> bytes | None` and `set_key(key: bytes)`), else the
    /// OS keyring. Raises RecoveryLockedError, KeyMismatchError,
    /// KeyStoreUnavailableError, CorruptError, IoError, InvalidInputError.
    #[new]
    #[pyo3(signature = (path = None, *, key = None, key_provider = None, app = "sessiondb", busy_timeout_ms = 10_000, recover = true))]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        key: Option<std::borrow::Cow<'_, [u8]>>,
        key_provider: Option<Py<PyAny>>,
        app: &str,
        busy_timeout_ms: u64,
        recover: bool,
    ) -> PyResult<Self> {
        let mut provider = None;
        let key = match (key, key_provider) {
            (Some(_), Some(_)) => {
                return Err(crate::errors::to_py(py, Error::invalid("pass either key or key_provider, not both")))
            }
            (Some(k), None) => KeySource::Bytes(DataKey::from_bytes(&k).map_err(py_err(py))?),
            (None, Some(obj)) => {
                let p = Arc::new(PyKeyProvider::new(py, obj)?);
                provider = Some(p.clone());
                KeySource::Provider(p)
            }
            (None, None) => KeySource::OsKeyring,
        };
        let opts = OpenOptions { path, app: app.to_string(), key, busy_timeout_ms, recover, compress: true, ..Default::default() };
        Self::open_with(py, opts, provider)
    }

    /// Open the default store of the default app with the OS keyring.
    #[classmethod]
    fn open_default(_cls: &Bound<'_, PyType>, py: Python<'_>) -> PyResult<Self> {
        Self::open_with(py, OpenOptions::default(), None)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let path = slf.getattr("path")?.repr()?.to_string();
        Ok(format!("SessionStore(path={path}, closed={})", if slf.get().inner.is_closed() { "True" } else { "False" }))
    }

    /// Close the handle (checkpoints the WAL). Later calls raise ClosedError. Idempotent.
    fn close(&self, py: Python<'_>) {
        let inner = self.inner.clone();
        py.detach(move || inner.close());
    }

    /// True once `close()` ran.
    #[getter]
    fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// The database file path.
    #[getter]
    fn path(&self) -> String {
        self.inner.path().to_string_lossy().into_owned()
    }

    /// This handle's owner id (recorded on the operations it dispatches).
    #[getter]
    fn instance_id(&self) -> &str {
        self.inner.instance_id()
    }

    /// Which key backend the data key came from.
    #[getter]
    fn key_backend(&self) -> &str {
        self.inner.key_backend()
    }

    /// The report of the recovery pass run at open.
    fn open_recovery_report(&self) -> RecoveryReport {
        self.inner.open_recovery_report().into()
    }

    /// Copy this store into `dest` (another SessionStore: a file or a
    /// PostgreSQL URL), incrementally, moving ciphertext as it is: rows per
    /// kind added and the sessions refused (`CopyReport.conflicts`). Raises
    /// KeyMismatchError (dest has another data key; nothing is written),
    /// ClosedError, BusyError, IoError.
    fn copy_to(&self, py: Python<'_>, dest: &SessionStore) -> PyResult<CopyReport> {
        let (a, b) = (self.inner.clone(), dest.inner.clone());
        py.detach(move || a.copy_to(&b)).map(Into::into).map_err(py_err(py))
    }

    /// This store's data key as a recovery key: 56 base32 characters (key
    /// and a 3-byte checksum) in 14 groups of 4 joined by `-`. Whoever holds
    /// it can decrypt every session.
    fn recovery_key(&self) -> String {
        self.inner.recovery_key()
    }

    /// Schema version, counts and file sizes.
    fn stats(&self, py: Python<'_>) -> PyResult<StoreStats> {
        py.detach(|| self.inner.stats()).map(Into::into).map_err(py_err(py))
    }

    /// Create a session. `workspace_path` is made canonical; `id` = None
    /// gives a new uuid v7. Raises ConflictError (id exists), InvalidInputError.
    #[pyo3(signature = (name = None, workspace_path = None, *, id = None, model = None, provider = None, work_mode = None, created_at_ms = None, forked_from = None, forked_at_seq = None))]
    #[allow(clippy::too_many_arguments)]
    fn create_session(
        &self,
        py: Python<'_>,
        name: Option<String>,
        workspace_path: Option<String>,
        id: Option<String>,
        model: Option<String>,
        provider: Option<String>,
        work_mode: Option<String>,
        created_at_ms: Option<i64>,
        forked_from: Option<String>,
        forked_at_seq: Option<u64>,
    ) -> PyResult<Session> {
        let new =
            NewSession { id, name, workspace_path, model, provider, work_mode, created_at_ms, forked_from, forked_at_seq };
        py.detach(|| self.inner.create_session_with(new)).map(Into::into).map_err(py_err(py))
    }

    /// One session. Raises NotFoundError.
    fn get_session(&self, py: Python<'_>, id: &str) -> PyResult<Session> {
        py.detach(|| self.inner.get_session(id)).map(Into::into).map_err(py_err(py))
    }

    /// Every session, most recently active first, at most `limit`.
    #[pyo3(signature = (limit = None))]
    fn list_sessions(&self, py: Python<'_>, limit: Option<u32>) -> PyResult<Vec<Session>> {
        py.detach(|| self.inner.list_sessions(limit))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// Sessions by workspace. `scope`: "current" (bound to `path`), "other"
    /// (bound to another workspace than `path`), "unbound", "all".
    #[pyo3(signature = (scope, path = None, limit = None))]
    fn list_sessions_for_workspace(
        &self,
        py: Python<'_>,
        scope: &str,
        path: Option<String>,
        limit: Option<u32>,
    ) -> PyResult<Vec<Session>> {
        let f = WorkspaceFilter::from_scope(scope, path).map_err(py_err(py))?;
        py.detach(|| self.inner.list_sessions_for_workspace(f, limit))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// Resolve a full id, a unique id prefix or an exact title.
    /// Raises NotFoundError, ConflictError (ambiguous).
    fn find_session(&self, py: Python<'_>, id_prefix_or_title: &str) -> PyResult<Session> {
        py.detach(|| self.inner.find_session(id_prefix_or_title)).map(Into::into).map_err(py_err(py))
    }

    /// Set (or clear with None) a session's title. Raises NotFoundError.
    fn rename_session(&self, py: Python<'_>, id: &str, name: Option<String>) -> PyResult<Session> {
        py.detach(|| self.inner.rename_session(id, name)).map(Into::into).map_err(py_err(py))
    }

    /// Change the model (and provider); the session id stays. Raises NotFoundError.
    #[pyo3(signature = (id, model, provider = None))]
    fn set_session_model(
        &self,
        py: Python<'_>,
        id: &str,
        model: Option<String>,
        provider: Option<String>,
    ) -> PyResult<Session> {
        py.detach(|| self.inner.set_session_model(id, model, provider)).map(Into::into).map_err(py_err(py))
    }

    /// Set the work mode. Raises NotFoundError.
    fn set_work_mode(&self, py: Python<'_>, id: &str, work_mode: Option<String>) -> PyResult<Session> {
        py.detach(|| self.inner.set_work_mode(id, work_mode)).map(Into::into).map_err(py_err(py))
    }

    /// Delete a session with its transcript, tokens and context extensions
    /// (its journal stays). Raises NotFoundError.
    fn delete_session(&self, py: Python<'_>, id: &str) -> PyResult<()> {
        py.detach(|| self.inner.delete_session(id)).map_err(py_err(py))
    }

    /// Append one entry; returns it with its seq. Raises NotFoundError, InvalidInputError.
    fn append_transcript(&self, py: Python<'_>, session_id: &str, role: &str, content: String) -> PyResult<TranscriptEntry> {
        let role = Role::parse(role).map_err(py_err(py))?;
        py.detach(|| self.inner.append_transcript(session_id, role, content)).map(Into::into).map_err(py_err(py))
    }

    /// Append several entries in one transaction (all or none).
    fn append_entries(
        &self,
        py: Python<'_>,
        session_id: &str,
        entries: Vec<PyRef<'_, NewEntry>>,
    ) -> PyResult<Vec<TranscriptEntry>> {
        let entries = entries.iter().map(|e| e.to_core()).collect::<sessiondb::Result<Vec<_>>>().map_err(py_err(py))?;
        py.detach(|| self.inner.append_entries(session_id, entries))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// `append_entries` with per-entry metadata: `entries` is a list of
    /// `(NewEntry, EntryMeta)` pairs, one transaction (all or none).
    /// Raises NotFoundError, InvalidInputError (e.g. a model or provider
    /// name over 256 bytes or with control characters).
    fn append_entries_with_meta(
        &self,
        py: Python<'_>,
        session_id: &str,
        entries: Vec<(PyRef<'_, NewEntry>, PyRef<'_, EntryMeta>)>,
    ) -> PyResult<Vec<TranscriptEntry>> {
        let entries = entries
            .iter()
            .map(|(e, m)| Ok((e.to_core()?, m.0.clone())))
            .collect::<sessiondb::Result<Vec<_>>>()
            .map_err(py_err(py))?;
        py.detach(|| self.inner.append_entries_with_meta(session_id, entries))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// `get_transcript` with each entry's metadata: a list of
    /// `(TranscriptEntry, EntryMeta)` pairs (empty `EntryMeta()` for entries
    /// written without). Raises NotFoundError, AuthenticationError,
    /// InvalidInputError, CorruptError.
    #[pyo3(signature = (session_id, from_seq = 1, limit = 1000))]
    fn get_transcript_with_meta(
        &self,
        py: Python<'_>,
        session_id: &str,
        from_seq: u64,
        limit: u32,
    ) -> PyResult<Vec<(TranscriptEntry, EntryMeta)>> {
        py.detach(|| self.inner.get_transcript_with_meta(session_id, from_seq, limit))
            .map(|v| v.into_iter().map(|(e, m)| (e.into(), EntryMeta(m))).collect())
            .map_err(py_err(py))
    }

    /// The last `limit` (1..=10000) entries with their metadata, in seq
    /// order, in one read: a list of `(TranscriptEntry, EntryMeta)` pairs.
    /// Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
    #[pyo3(signature = (session_id, limit = 1000))]
    fn get_transcript_tail_with_meta(&self, py: Python<'_>, session_id: &str, limit: u32) -> PyResult<Vec<(TranscriptEntry, EntryMeta)>> {
        py.detach(|| self.inner.get_transcript_tail_with_meta(session_id, limit))
            .map(|v| v.into_iter().map(|(e, m)| (e.into(), EntryMeta(m))).collect())
            .map_err(py_err(py))
    }

    /// Up to `limit` (1..=10000) entries with `seq >= from_seq` as their
    /// structured items, one read: an `ItemPage` (`json.loads(page.items_json)`
    /// is the list of items, `None` where an entry has none: those entries
    /// are in `page.without_item`, their seqs in `page.seqs`). Contents of
    /// entries with an item are not decrypted. Raises NotFoundError,
    /// AuthenticationError, InvalidInputError, CorruptError.
    #[pyo3(signature = (session_id, from_seq = 1, limit = 1000))]
    fn get_entry_items(&self, py: Python<'_>, session_id: &str, from_seq: u64, limit: u32) -> PyResult<ItemPage> {
        py.detach(|| self.inner.get_entry_items(session_id, from_seq, limit)).map(Into::into).map_err(py_err(py))
    }

    /// The last `limit` (1..=10000) entries as their structured items, in
    /// seq order, in one read: an `ItemPage` (see `get_entry_items`).
    /// Raises NotFoundError, AuthenticationError, InvalidInputError, CorruptError.
    #[pyo3(signature = (session_id, limit = 1000))]
    fn get_entry_items_tail(&self, py: Python<'_>, session_id: &str, limit: u32) -> PyResult<ItemPage> {
        py.detach(|| self.inner.get_entry_items_tail(session_id, limit)).map(Into::into).map_err(py_err(py))
    }

    /// One page: up to `limit` (1..=10000) entries with `seq >= from_seq`.
    /// Raises NotFoundError, AuthenticationError, InvalidInputError.
    #[pyo3(signature = (session_id, from_seq = 1, limit = 1000))]
    fn get_transcript(&self, py: Python<'_>, session_id: &str, from_seq: u64, limit: u32) -> PyResult<Vec<TranscriptEntry>> {
        py.detach(|| self.inner.get_transcript(session_id, from_seq, limit))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// The last `limit` (1..=10000) entries, in seq order (all of a shorter session).
    /// Raises NotFoundError, AuthenticationError, InvalidInputError.
    #[pyo3(signature = (session_id, limit = 1000))]
    fn get_transcript_tail(&self, py: Python<'_>, session_id: &str, limit: u32) -> PyResult<Vec<TranscriptEntry>> {
        py.detach(|| self.inner.get_transcript_tail(session_id, limit)).map(|v| v.into_iter().map(Into::into).collect()).map_err(py_err(py))
    }

    /// Retract entry `seq`: it stays stored but is left out of reads, counts,
    /// export, fork and the context from now on (one EntryRetracted journal
    /// event). Returns the entry, or None when it was already retracted.
    /// Raises NotFoundError (session or seq), BusyError.
    fn retract_entry(&self, py: Python<'_>, session_id: &str, seq: u64) -> PyResult<Option<TranscriptEntry>> {
        py.detach(|| self.inner.retract_entry(session_id, seq)).map(|e| e.map(Into::into)).map_err(py_err(py))
    }

    /// Retract the last visible entry and return it (None when there is
    /// none): the Agents SDK's `pop_item`. Raises NotFoundError, BusyError.
    fn retract_last_entry(&self, py: Python<'_>, session_id: &str) -> PyResult<Option<TranscriptEntry>> {
        py.detach(|| self.inner.retract_last_entry(session_id)).map(|e| e.map(Into::into)).map_err(py_err(py))
    }

    /// Iterate over a whole transcript from `from_seq`, fetching `page_size` entries per call.
    #[pyo3(signature = (session_id, from_seq = 1, page_size = 1000))]
    fn iter_transcript(&self, session_id: String, from_seq: u64, page_size: u32) -> TranscriptIterator {
        TranscriptIterator { store: self.inner.clone(), session_id, next_seq: from_seq, page_size, buf: VecDeque::new(), done: false }
    }

    /// Add one token-ledger record (tokens). Raises NotFoundError, InvalidInputError.
    #[pyo3(signature = (session_id, *, input = 0, output = 0, cached = 0, model = None, provider = None))]
    #[allow(clippy::too_many_arguments)]
    fn record_tokens(
        &self,
        py: Python<'_>,
        session_id: &str,
        input: u64,
        output: u64,
        cached: u64,
        model: Option<String>,
        provider: Option<String>,
    ) -> PyResult<()> {
        let usage = TokenUsage { input, output, cached, model, provider };
        py.detach(|| self.inner.record_tokens(session_id, usage)).map_err(py_err(py))
    }

    /// Sums of a session's token ledger. Raises NotFoundError.
    fn token_totals(&self, py: Python<'_>, session_id: &str) -> PyResult<TokenTotals> {
        py.detach(|| self.inner.token_totals(session_id)).map(Into::into).map_err(py_err(py))
    }

    /// Append a context extension (`body_json`: JSON text); returns its number `n`.
    fn append_context_extension(&self, py: Python<'_>, session_id: &str, kind: &str, body_json: &str) -> PyResult<u64> {
        py.detach(|| self.inner.append_context_extension(session_id, kind, body_json)).map_err(py_err(py))
    }

    /// Every context extension of a session, in `n` order.
    fn list_context_extensions(&self, py: Python<'_>, session_id: &str) -> PyResult<Vec<ContextExtension>> {
        py.detach(|| self.inner.list_context_extensions(session_id))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// Append one journal event, idempotent by `event_id`; `payload` is any
    /// JSON-serialisable value. Raises ConflictError (same id, other
    /// payload), NotFoundError, InvalidInputError.
    #[pyo3(signature = (event_id, session_id, kind, payload, operation_id = None))]
    fn journal_append(
        &self,
        py: Python<'_>,
        event_id: String,
        session_id: String,
        kind: String,
        payload: &Bound<'_, PyAny>,
        operation_id: Option<String>,
    ) -> PyResult<AppendOutcome> {
        let ev = NewEvent { event_id, session_id, kind, operation_id, payload: crate::json::from_py(payload)? };
        py.detach(|| self.inner.journal_append(ev)).map(Into::into).map_err(py_err(py))
    }

    /// Record that an operation's effect was dispatched (owned by this handle).
    #[pyo3(signature = (session_id, operation_id, payload = None))]
    fn dispatch_operation(
        &self,
        py: Python<'_>,
        session_id: &str,
        operation_id: &str,
        payload: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<AppendOutcome> {
        let payload = payload.map(crate::json::from_py).transpose()?.unwrap_or(serde_json::Value::Null);
        py.detach(|| self.inner.dispatch_operation(session_id, operation_id, payload)).map(Into::into).map_err(py_err(py))
    }

    /// Record an operation's terminal event. `outcome`: succeeded, failed,
    /// blocked, cancelled, unknown. Raises ConflictError, NotFoundError.
    #[pyo3(signature = (session_id, operation_id, outcome, payload = None))]
    fn complete_operation(
        &self,
        py: Python<'_>,
        session_id: &str,
        operation_id: &str,
        outcome: &str,
        payload: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<AppendOutcome> {
        let o = OperationOutcome::parse(outcome).map_err(py_err(py))?;
        let payload = payload.map(crate::json::from_py).transpose()?.unwrap_or(serde_json::Value::Null);
        py.detach(|| self.inner.complete_operation(session_id, operation_id, o, payload)).map(Into::into).map_err(py_err(py))
    }

    /// Journal events of a session from `from_seq`, at most `limit`.
    #[pyo3(signature = (session_id, from_seq = 1, limit = 1000))]
    fn journal_events(&self, py: Python<'_>, session_id: &str, from_seq: u64, limit: u32) -> PyResult<Vec<JournalEvent>> {
        py.detach(|| self.inner.journal_events(session_id, from_seq, limit))
            .map(|v| v.into_iter().map(JournalEvent).collect())
            .map_err(py_err(py))
    }

    /// Operations dispatched without a terminal event.
    fn open_operations(&self, py: Python<'_>) -> PyResult<Vec<OpenOperation>> {
        py.detach(|| self.inner.open_operations())
            .map(|v| {
                v.into_iter()
                    .map(|(session_id, operation_id, owner)| OpenOperation { session_id, operation_id, owner })
                    .collect()
            })
            .map_err(py_err(py))
    }

    // --- context governance and restore (sessiondb::context, sessiondb::restore)

    /// Where a stored session's context stands: `model`, `capacity`,
    /// `meter`, `turns`. `raw_window` in tokens. Raises NotFoundError, InvalidInputError.
    #[pyo3(signature = (session_id, raw_window, output_reserve = None, model = None))]
    fn context_status(
        &self,
        py: Python<'_>,
        session_id: &str,
        raw_window: u64,
        output_reserve: Option<u64>,
        model: Option<String>,
    ) -> PyResult<ContextStatus> {
        py.detach(|| sessiondb::context::context_status(&self.inner, session_id, raw_window, output_reserve, model))
            .map(Into::into)
            .map_err(py_err(py))
    }

    /// What the model sees next for a `raw_window`-token window: every entry
    /// verbatim, compacted (a run is one item) or excluded, with its tokens,
    /// in order; only verbatim contents are decrypted. Records nothing (call
    /// `compact_session` first). Raises NotFoundError, InvalidInputError.
    #[pyo3(signature = (session_id, raw_window, output_reserve = None, model = None))]
    fn active_context(
        &self,
        py: Python<'_>,
        session_id: &str,
        raw_window: u64,
        output_reserve: Option<u64>,
        model: Option<String>,
    ) -> PyResult<ActiveContextView> {
        py.detach(|| sessiondb::context::active_context(&self.inner, session_id, raw_window, output_reserve, model))
            .map(Into::into)
            .map_err(py_err(py))
    }

    /// Plan (and unless `dry_run`, record) compaction of a stored session
    /// like `/compact`; the transcript is never modified. Returns the plan.
    /// Raises ContextOverflowError, NotFoundError, InvalidInputError.
    #[pyo3(signature = (session_id, raw_window, output_reserve = None, model = None, target_percent = None, dry_run = false))]
    #[allow(clippy::too_many_arguments)]
    fn compact_session(
        &self,
        py: Python<'_>,
        session_id: &str,
        raw_window: u64,
        output_reserve: Option<u64>,
        model: Option<String>,
        target_percent: Option<u8>,
        dry_run: bool,
    ) -> PyResult<CompactionPlan> {
        py.detach(|| {
            sessiondb::context::compact_session(&self.inner, session_id, raw_window, output_reserve, model, target_percent, dry_run)
        })
        .map(Into::into)
        .map_err(py_err(py))
    }

    /// Pins, exclusions and compaction history of a session, replayed.
    fn recover_context_governance(&self, py: Python<'_>, session_id: &str) -> PyResult<ContextGovernance> {
        py.detach(|| sessiondb::context::recover_context_governance(&self.inner, session_id)).map(Into::into).map_err(py_err(py))
    }

    /// Record a turn decision (`kind`: pin, unpin, exclude, include) for
    /// transcript `seqs`; returns the extension number.
    fn record_turn_decision(&self, py: Python<'_>, session_id: &str, kind: &str, seqs: Vec<u64>) -> PyResult<u64> {
        py.detach(|| sessiondb::context::record_turn_decision(&self.inner, session_id, kind, &seqs)).map_err(py_err(py))
    }

    /// Open a saved session (seed 000 "Session Restoration Boundary"):
    /// `knowledge` (session, transcript, token_totals, governance,
    /// other_extensions) and a fresh `authority` (Manual, no full access,
    /// no grants). Reads only.
    fn open_saved_session(&self, py: Python<'_>, session_id: &str) -> PyResult<OpenedSession> {
        py.detach(|| sessiondb::restore::open_saved_session(&self.inner, session_id)).map(Into::into).map_err(py_err(py))
    }

    // --- portable sessions (sessiondb::portable, thClaws JSONL)

    /// Import one session file (thClaws JSONL, Codex rollout or Claude Code
    /// transcript; `format` "thclaws" | "codex" | "claude-code", None =
    /// detect). Returns the file's import report.
    #[pyo3(signature = (path, format = None))]
    fn import_file(&self, py: Python<'_>, path: PathBuf, format: Option<&str>) -> PyResult<FileImport> {
        let format = format.map(sessiondb::portable::SourceFormat::parse).transpose().map_err(py_err(py))?;
        py.detach(|| sessiondb::portable::import_file(&self.inner, &path, format)).map(Into::into).map_err(py_err(py))
    }

    /// Import every session file under `paths` (files or directory trees;
    /// inside a directory only `*.jsonl` files, format detected per file).
    /// Returns one report per file, in the order of `paths` (each tree in
    /// sorted walk order). Nothing aborts the whole import: a path that
    /// cannot be read becomes a `failed` report whose `error` names it. The
    /// GIL is released for the whole import; there is no progress callback.
    fn import_paths(&self, py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<FileImport>> {
        py.detach(|| sessiondb::portable::import_paths(&self.inner, &paths, &mut |_| {}))
            .map(|r| r.files.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// The session as thClaws JSONL text (what real thClaws reads).
    fn export_thclaws(&self, py: Python<'_>, session_id: &str) -> PyResult<String> {
        let out = py
            .detach(|| {
                let mut buf = Vec::new();
                sessiondb::portable::export_thclaws(&self.inner, session_id, &mut buf)?;
                String::from_utf8(buf).map_err(|_| Error::corrupt("export is not UTF-8"))
            })
            .map_err(py_err(py))?;
        Ok(out)
    }

    /// Fork a session (seed 002 `/fork`): entries up to `at_seq` (default
    /// all), or one `system` entry with `summary`. Raises NotFoundError, InvalidInputError.
    #[pyo3(signature = (session_id, at_seq = None, summary = None))]
    fn fork_session(&self, py: Python<'_>, session_id: &str, at_seq: Option<u64>, summary: Option<String>) -> PyResult<Session> {
        let opts = sessiondb::portable::ForkOptions { at_seq, summary };
        py.detach(|| sessiondb::portable::fork_session(&self.inner, session_id, opts)).map(Into::into).map_err(py_err(py))
    }

    /// Resolve a reference as `/load` and `--resume` do: `last` = the most
    /// recent session bound to `workspace`; otherwise an id, unique id prefix
    /// or exact title. Raises NotFoundError, ConflictError (ambiguous).
    #[pyo3(signature = (reference, workspace = None))]
    fn resolve_session(&self, py: Python<'_>, reference: &str, workspace: Option<&str>) -> PyResult<Session> {
        py.detach(|| sessiondb::portable::resolve_session(&self.inner, reference, workspace)).map(Into::into).map_err(py_err(py))
    }

    /// The 20 most recently active sessions (seed 002 `/sessions`).
    fn recent_sessions(&self, py: Python<'_>) -> PyResult<Vec<Session>> {
        py.detach(|| sessiondb::portable::recent_sessions(&self.inner))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// Sidebar order (seed 002): the 10 most recent sessions, titled first.
    fn sidebar_sessions(&self, py: Python<'_>) -> PyResult<Vec<Session>> {
        py.detach(|| sessiondb::portable::sidebar_sessions(&self.inner))
            .map(|v| v.into_iter().map(Into::into).collect())
            .map_err(py_err(py))
    }

    /// Record a compaction plan; returns its context extension number, or
    /// None for a plan without transformations (not recorded). Raises NotFoundError.
    fn record_compaction(&self, py: Python<'_>, session_id: &str, plan: &Bound<'_, CompactionPlan>) -> PyResult<Option<u64>> {
        let plan = plan.get().to_core().map_err(py_err(py))?;
        py.detach(|| sessiondb::context::record_compaction(&self.inner, session_id, &plan)).map_err(py_err(py))
    }

    /// Run the recovery pass now (it also runs at open).
    fn recover(&self, py: Python<'_>) -> PyResult<RecoveryReport> {
        py.detach(|| self.inner.recover()).map(Into::into).map_err(py_err(py))
    }
}

/// Iterator over a transcript, one page per core call (`iter_transcript`).
#[pyclass(module = "sessiondb", name = "TranscriptIterator")]
pub struct TranscriptIterator {
    store: Arc<sessiondb::SessionStore>,
    session_id: String,
    next_seq: u64,
    page_size: u32,
    buf: VecDeque<sessiondb::TranscriptEntry>,
    done: bool,
}

#[pymethods]
impl TranscriptIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<TranscriptEntry>> {
        if self.buf.is_empty() && !self.done {
            let (store, sid, from, n) = (&self.store, &self.session_id, self.next_seq, self.page_size);
            let page = py.detach(|| store.get_transcript(sid, from, n)).map_err(py_err(py))?;
            match page.last() {
                Some(last) => self.next_seq = last.seq + 1,
                None => self.done = true,
            }
            self.buf.extend(page);
        }
        Ok(self.buf.pop_front().map(Into::into))
    }
}

/// Import a recovery key for the store at `path` (None = the default path
/// for `app`) and open it: the text is checked (checksum), then against the
/// database's key-check value, then stored in the credential store
/// (`key_provider`'s `set_key`, else the OS keyring under service `app`).
/// Raises InvalidInputError (mistyped: "recovery key checksum mismatch"),
/// NotFoundError (no database file), KeyMismatchError (another database's
/// key; nothing stored), ConflictError (the credential store holds another
/// key for `app`; nothing overwritten), KeyStoreUnavailableError.
#[pyfunction]
#[pyo3(signature = (recovery_key, path = None, *, key_provider = None, app = "sessiondb"))]
pub fn import_recovery_key(py: Python<'_>, recovery_key: &str, path: Option<PathBuf>, key_provider: Option<Py<PyAny>>, app: &str) -> PyResult<SessionStore> {
    let provider = match key_provider {
        Some(obj) => Some(Arc::new(PyKeyProvider::new(py, obj)?)),
        None => None,
    };
    let key = match &provider {
        Some(p) => KeySource::Provider(p.clone()),
        None => KeySource::OsKeyring,
    };
    let opts = OpenOptions { path, app: app.to_string(), key, ..Default::default() };
    let text = recovery_key.to_string();
    match py.detach(move || sessiondb::SessionStore::import_recovery_key(opts, &text)) {
        Ok(s) => Ok(SessionStore { inner: Arc::new(s) }),
        Err(e) => {
            let err = crate::errors::to_py(py, e);
            if let Some(cause) = provider.and_then(|p| p.take_raised()) {
                err.set_cause(py, Some(cause));
            }
            Err(err)
        }
    }
}

//! `SessionStore`: every method that touches disk or crypto returns a
//! Promise computed on the libuv pool (`AsyncTask`); the JS thread only
//! converts arguments. `close()` is explicit; a collected store is closed by
//! the core's `Drop`.

use std::sync::Arc;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use serde_json::Value;
use sessiondb::journal::OperationOutcome;
use sessiondb::{DataKey, Error, KeySource, NewSession, Role, WorkspaceFilter};

use crate::errors::to_napi;
use crate::job::{job, Job};
use crate::keys::JsKeyProvider;
use crate::records::*;
use crate::results::{ActiveContextView, CompactionPlan, ContextGovernance, ContextStatus, FileImport, OpenedSession};

/// The encrypted session store. Open with `SessionStore.open()`.
#[napi]
pub struct SessionStore {
    pub(crate) inner: Arc<sessiondb::SessionStore>,
}


fn map<T, U: From<T>>(v: Vec<T>) -> Vec<U> {
    v.into_iter().map(U::from).collect()
}

#[napi]
impl SessionStore {
    /// Open (creating if needed) a store. Key: `options.key` (32 bytes),
    /// else `options.keyProvider`, else the OS keyring. (`index.js` exposes
    /// it as `SessionStore.open`, with errors as SessionDBError subclasses.) Rejects with
    /// RecoveryLockedError, KeyMismatchError, KeyStoreUnavailableError,
    /// CorruptError, IoError, InvalidInputError.
    #[napi(js_name = "_open", ts_return_type = "Promise<SessionStore>")]
    pub fn open(options: Option<OpenOptions>) -> napi::Result<AsyncTask<Job<SessionStore>>> {
        let opts = core_options(options)?;
        Ok(job(move || sessiondb::SessionStore::open(opts).map(|s| SessionStore { inner: Arc::new(s) })))
    }

    /// Close the handle (checkpoints the WAL); later calls reject with ClosedError. Idempotent.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<Job<()>> {
        let s = self.inner.clone();
        job(move || {
            s.close();
            Ok(())
        })
    }

    /// True once `close()` completed.
    #[napi(getter)]
    pub fn closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// The database file path.
    #[napi(getter)]
    pub fn path(&self) -> String {
        self.inner.path().to_string_lossy().into_owned()
    }

    /// This handle's owner id.
    #[napi(getter)]
    pub fn instance_id(&self) -> String {
        self.inner.instance_id().to_string()
    }

    /// Which key backend the data key came from.
    #[napi(getter)]
    pub fn key_backend(&self) -> String {
        self.inner.key_backend().to_string()
    }

    /// The report of the recovery pass run at open.
    #[napi]
    pub fn open_recovery_report(&self) -> RecoveryReport {
        self.inner.open_recovery_report().into()
    }

    /// Copy this store into `dest` (a file or a PostgreSQL URL),
    /// incrementally, moving ciphertext as it is; resolves to the rows added
    /// per kind and the sessions refused (`conflicts`). Rejects with
    /// KeyMismatchError (dest has another data key; nothing is written),
    /// ClosedError, BusyError, IoError.
    #[napi(ts_return_type = "Promise<CopyReport>")]
    pub fn copy_to(&self, dest: &SessionStore) -> AsyncTask<Job<CopyReport>> {
        let (a, b) = (self.inner.clone(), dest.inner.clone());
        job(move || a.copy_to(&b).map(Into::into))
    }

    /// This store's data key as a recovery key: 56 base32 characters (key
    /// and a 3-byte checksum) in 14 groups of 4 joined by `-`. Whoever holds
    /// it can decrypt every session.
    #[napi(ts_return_type = "Promise<string>")]
    pub fn recovery_key(&self) -> AsyncTask<Job<String>> {
        let s = self.inner.clone();
        job(move || Ok(s.recovery_key()))
    }

    /// Schema version, counts and file sizes.
    #[napi(ts_return_type = "Promise<StoreStats>")]
    pub fn stats(&self) -> AsyncTask<Job<StoreStats>> {
        let s = self.inner.clone();
        job(move || s.stats().map(Into::into))
    }

    /// Create a session; `workspacePath` is made canonical. Rejects with ConflictError, InvalidInputError.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn create_session(
        &self,
        name: Option<String>,
        workspace_path: Option<String>,
        options: Option<CreateSessionOptions>,
    ) -> napi::Result<AsyncTask<Job<Session>>> {
        let o = options.unwrap_or_default();
        let new = NewSession {
            id: o.id,
            name,
            workspace_path,
            model: o.model,
            provider: o.provider,
            work_mode: o.work_mode,
            created_at_ms: o.created_at_ms,
            forked_from: o.forked_from,
            forked_at_seq: o.forked_at_seq.map(|v| u(v, "forkedAtSeq")).transpose().map_err(to_napi)?,
        };
        let s = self.inner.clone();
        Ok(job(move || s.create_session_with(new).map(Into::into)))
    }

    /// One session. Rejects with NotFoundError.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn get_session(&self, id: String) -> AsyncTask<Job<Session>> {
        let s = self.inner.clone();
        job(move || s.get_session(&id).map(Into::into))
    }

    /// Every session, most recently active first, at most `limit`.
    #[napi(ts_return_type = "Promise<Session[]>")]
    pub fn list_sessions(&self, limit: Option<u32>) -> AsyncTask<Job<Vec<Session>>> {
        let s = self.inner.clone();
        job(move || s.list_sessions(limit).map(map))
    }

    /// Sessions by workspace: `scope` current|other (need `path`), unbound, all.
    #[napi(ts_return_type = "Promise<Session[]>")]
    pub fn list_sessions_for_workspace(
        &self,
        scope: String,
        path: Option<String>,
        limit: Option<u32>,
    ) -> napi::Result<AsyncTask<Job<Vec<Session>>>> {
        let f = WorkspaceFilter::from_scope(&scope, path).map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.list_sessions_for_workspace(f, limit).map(map)))
    }

    /// Resolve a full id, unique id prefix or exact title. Rejects with NotFoundError, ConflictError.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn find_session(&self, id_prefix_or_title: String) -> AsyncTask<Job<Session>> {
        let s = self.inner.clone();
        job(move || s.find_session(&id_prefix_or_title).map(Into::into))
    }

    /// Set (or clear with null) a session's title.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn rename_session(&self, id: String, name: Option<String>) -> AsyncTask<Job<Session>> {
        let s = self.inner.clone();
        job(move || s.rename_session(&id, name).map(Into::into))
    }

    /// Change model and provider; the session id stays.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn set_session_model(&self, id: String, model: Option<String>, provider: Option<String>) -> AsyncTask<Job<Session>> {
        let s = self.inner.clone();
        job(move || s.set_session_model(&id, model, provider).map(Into::into))
    }

    /// Set the work mode.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn set_work_mode(&self, id: String, work_mode: Option<String>) -> AsyncTask<Job<Session>> {
        let s = self.inner.clone();
        job(move || s.set_work_mode(&id, work_mode).map(Into::into))
    }

    /// Delete a session with its transcript, tokens and context extensions (its journal stays).
    #[napi(ts_return_type = "Promise<void>")]
    pub fn delete_session(&self, id: String) -> AsyncTask<Job<()>> {
        let s = self.inner.clone();
        job(move || s.delete_session(&id))
    }

    /// Append one entry; resolves to it with its seq.
    #[napi(ts_return_type = "Promise<TranscriptEntry>")]
    pub fn append_transcript(
        &self,
        session_id: String,
        #[napi(ts_arg_type = "'user' | 'assistant' | 'tool' | 'system'")] role: String,
        content: String,
    ) -> napi::Result<AsyncTask<Job<TranscriptEntry>>> {
        let role = Role::parse(&role).map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.append_transcript(&session_id, role, content).map(Into::into)))
    }

    /// Append several entries in one transaction (all or none).
    #[napi(ts_return_type = "Promise<TranscriptEntry[]>")]
    pub fn append_entries(&self, session_id: String, entries: Vec<NewEntry>) -> napi::Result<AsyncTask<Job<Vec<TranscriptEntry>>>> {
        let entries = entries.into_iter().map(NewEntry::into_core).collect::<sessiondb::Result<Vec<_>>>().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.append_entries(&session_id, entries).map(map)))
    }

    /// One page: up to `limit` (1..=10000, default 1000) entries with `seq >= fromSeq` (default 1).
    #[napi(ts_return_type = "Promise<TranscriptEntry[]>")]
    pub fn get_transcript(&self, session_id: String, from_seq: Option<i64>, limit: Option<u32>) -> napi::Result<AsyncTask<Job<Vec<TranscriptEntry>>>> {
        let from = u(from_seq.unwrap_or(1), "fromSeq").map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.get_transcript(&session_id, from, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(map)))
    }

    /// The last `limit` (1..=10000, default 1000) entries, in seq order (all
    /// of a shorter session). Rejects with NotFoundError, InvalidInputError.
    #[napi(ts_return_type = "Promise<TranscriptEntry[]>")]
    pub fn get_transcript_tail(&self, session_id: String, limit: Option<u32>) -> AsyncTask<Job<Vec<TranscriptEntry>>> {
        let s = self.inner.clone();
        job(move || s.get_transcript_tail(&session_id, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(map))
    }

    /// Retract entry `seq`: it stays stored but is left out of reads, counts,
    /// export, fork and the context (one EntryRetracted journal event).
    /// Resolves to the entry, or null when it was already retracted.
    /// Rejects with NotFoundError (session or seq), BusyError.
    #[napi(ts_return_type = "Promise<TranscriptEntry | null>")]
    pub fn retract_entry(&self, session_id: String, seq: i64) -> napi::Result<AsyncTask<Job<Option<TranscriptEntry>>>> {
        let seq = u(seq, "seq").map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.retract_entry(&session_id, seq).map(|e| e.map(Into::into))))
    }

    /// Retract the last visible entry and resolve to it (null when there is
    /// none): the Agents SDK's `popItem`. Rejects with NotFoundError, BusyError.
    #[napi(ts_return_type = "Promise<TranscriptEntry | null>")]
    pub fn retract_last_entry(&self, session_id: String) -> AsyncTask<Job<Option<TranscriptEntry>>> {
        let s = self.inner.clone();
        job(move || s.retract_last_entry(&session_id).map(|e| e.map(Into::into)))
    }

    /// `appendEntries` with per-entry metadata: `[{ entry, meta }]`, one
    /// transaction (all or none). Rejects with NotFoundError,
    /// InvalidInputError (e.g. a model or provider name over 256 bytes).
    #[napi(ts_return_type = "Promise<TranscriptEntry[]>")]
    pub fn append_entries_with_meta(
        &self,
        session_id: String,
        entries: Vec<NewEntryWithMeta>,
    ) -> napi::Result<AsyncTask<Job<Vec<TranscriptEntry>>>> {
        let entries = entries
            .into_iter()
            .map(|x| Ok((x.entry.into_core()?, x.meta.into_core()?)))
            .collect::<sessiondb::Result<Vec<_>>>()
            .map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.append_entries_with_meta(&session_id, entries).map(map)))
    }

    /// `getTranscript` with each entry's metadata: `[{ entry, meta }]`
    /// (`meta` = `{ extra: {} }` for entries written without).
    #[napi(ts_return_type = "Promise<TranscriptEntryWithMeta[]>")]
    pub fn get_transcript_with_meta(
        &self,
        session_id: String,
        from_seq: Option<i64>,
        limit: Option<u32>,
    ) -> napi::Result<AsyncTask<Job<Vec<TranscriptEntryWithMeta>>>> {
        let from = u(from_seq.unwrap_or(1), "fromSeq").map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || {
            s.get_transcript_with_meta(&session_id, from, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(|v| {
                v.into_iter().map(|(e, m)| TranscriptEntryWithMeta { entry: e.into(), meta: m.into() }).collect()
            })
        }))
    }

    /// The last `limit` (default 1000, at most 10000) entries with their
    /// metadata, in seq order, in one read: `[{ entry, meta }]`.
    /// Rejects with NotFoundError, InvalidInputError, AuthenticationError, CorruptError.
    #[napi(ts_return_type = "Promise<TranscriptEntryWithMeta[]>")]
    pub fn get_transcript_tail_with_meta(&self, session_id: String, limit: Option<u32>) -> AsyncTask<Job<Vec<TranscriptEntryWithMeta>>> {
        let s = self.inner.clone();
        job(move || {
            s.get_transcript_tail_with_meta(&session_id, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE))
                .map(|v| v.into_iter().map(|(e, m)| TranscriptEntryWithMeta { entry: e.into(), meta: m.into() }).collect())
        })
    }

    /// Up to `limit` (default 1000, at most 10000) entries with
    /// `seq >= fromSeq` (default 1) as their structured items, one read: an
    /// `ItemPage` (`JSON.parse(page.itemsJson)` is the items, `null` where
    /// an entry has none: those entries are in `page.withoutItem`, their
    /// seqs in `page.seqs`). Contents of entries with an item are not decrypted.
    /// Rejects with NotFoundError, InvalidInputError, AuthenticationError, CorruptError.
    #[napi(ts_return_type = "Promise<ItemPage>")]
    pub fn get_entry_items(&self, session_id: String, from_seq: Option<i64>, limit: Option<u32>) -> napi::Result<AsyncTask<Job<ItemPage>>> {
        let from = u(from_seq.unwrap_or(1), "fromSeq").map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.get_entry_items(&session_id, from, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(Into::into)))
    }

    /// The last `limit` (default 1000, at most 10000) entries as their
    /// structured items, in seq order, in one read: an `ItemPage` (see
    /// `getEntryItems`). Rejects with NotFoundError, InvalidInputError,
    /// AuthenticationError, CorruptError.
    #[napi(ts_return_type = "Promise<ItemPage>")]
    pub fn get_entry_items_tail(&self, session_id: String, limit: Option<u32>) -> AsyncTask<Job<ItemPage>> {
        let s = self.inner.clone();
        job(move || s.get_entry_items_tail(&session_id, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(Into::into))
    }

    /// Add one token-ledger record.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn record_tokens(&self, session_id: String, usage: TokenUsage) -> napi::Result<AsyncTask<Job<()>>> {
        let usage = usage.into_core().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.record_tokens(&session_id, usage)))
    }

    /// Sums of a session's token ledger.
    #[napi(ts_return_type = "Promise<TokenTotals>")]
    pub fn token_totals(&self, session_id: String) -> AsyncTask<Job<TokenTotals>> {
        let s = self.inner.clone();
        job(move || s.token_totals(&session_id).map(Into::into))
    }

    /// Append a context extension (`bodyJson`: JSON text); resolves to its number `n`.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn append_context_extension(&self, session_id: String, kind: String, body_json: String) -> AsyncTask<Job<i64>> {
        let s = self.inner.clone();
        job(move || s.append_context_extension(&session_id, &kind, &body_json).map(|n| n as i64))
    }

    /// Every context extension of a session, in `n` order.
    #[napi(ts_return_type = "Promise<ContextExtension[]>")]
    pub fn list_context_extensions(&self, session_id: String) -> AsyncTask<Job<Vec<ContextExtension>>> {
        let s = self.inner.clone();
        job(move || s.list_context_extensions(&session_id).map(map))
    }

    /// Append a journal event, idempotent by `eventId`. Rejects with
    /// ConflictError (same id, other payload), NotFoundError, InvalidInputError.
    #[napi(ts_return_type = "Promise<AppendOutcome>")]
    pub fn journal_append(&self, event: NewEvent) -> AsyncTask<Job<AppendOutcome>> {
        let ev = sessiondb::NewEvent {
            event_id: event.event_id,
            session_id: event.session_id,
            kind: event.kind,
            operation_id: event.operation_id,
            payload: event.payload,
        };
        let s = self.inner.clone();
        job(move || s.journal_append(ev).map(Into::into))
    }

    /// Record that an operation's effect was dispatched (owned by this handle).
    #[napi(ts_return_type = "Promise<AppendOutcome>")]
    pub fn dispatch_operation(&self, session_id: String, operation_id: String, payload: Option<Value>) -> AsyncTask<Job<AppendOutcome>> {
        let s = self.inner.clone();
        job(move || s.dispatch_operation(&session_id, &operation_id, payload.unwrap_or(Value::Null)).map(Into::into))
    }

    /// Record an operation's terminal event; `outcome`: succeeded|failed|blocked|cancelled|unknown.
    #[napi(ts_return_type = "Promise<AppendOutcome>")]
    pub fn complete_operation(
        &self,
        session_id: String,
        operation_id: String,
        #[napi(ts_arg_type = "'succeeded' | 'failed' | 'blocked' | 'cancelled' | 'unknown'")] outcome: String,
        payload: Option<Value>,
    ) -> napi::Result<AsyncTask<Job<AppendOutcome>>> {
        let o = OperationOutcome::parse(&outcome).map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.complete_operation(&session_id, &operation_id, o, payload.unwrap_or(Value::Null)).map(Into::into)))
    }

    /// Journal events of a session from `fromSeq` (default 1), at most `limit` (default 1000).
    #[napi(ts_return_type = "Promise<JournalEvent[]>")]
    pub fn journal_events(&self, session_id: String, from_seq: Option<i64>, limit: Option<u32>) -> napi::Result<AsyncTask<Job<Vec<JournalEvent>>>> {
        let from = u(from_seq.unwrap_or(1), "fromSeq").map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.journal_events(&session_id, from, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(map)))
    }

    /// Operations dispatched without a terminal event.
    #[napi(ts_return_type = "Promise<OpenOperation[]>")]
    pub fn open_operations(&self) -> AsyncTask<Job<Vec<OpenOperation>>> {
        let s = self.inner.clone();
        job(move || {
            s.open_operations().map(|v| {
                v.into_iter().map(|(session_id, operation_id, owner)| OpenOperation { session_id, operation_id, owner }).collect()
            })
        })
    }

    // --- portable sessions (sessiondb::portable, thClaws JSONL)

    /// Import one session file (`format` 'thclaws' | 'codex' | 'claude-code', default: detect); resolves to the import report.
    #[napi(ts_return_type = "Promise<FileImport>")]
    pub fn import_file(
        &self,
        path: String,
        #[napi(ts_arg_type = "'thclaws' | 'codex' | 'claude-code' | undefined | null")] format: Option<String>,
    ) -> napi::Result<AsyncTask<Job<FileImport>>> {
        let format = format.map(|f| sessiondb::portable::SourceFormat::parse(&f)).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || sessiondb::portable::import_file(&s, std::path::Path::new(&path), format).map(Into::into)))
    }

    /// Import every session file under `paths` (files or directory trees; inside a directory only `*.jsonl` files,
    /// format detected per file); resolves to one report per file, in the order of `paths` (each tree in sorted walk
    /// order). A path that cannot be read becomes a 'failed' report whose `error` names it. No progress callback.
    #[napi(ts_return_type = "Promise<FileImport[]>")]
    pub fn import_paths(&self, paths: Vec<String>) -> AsyncTask<Job<Vec<FileImport>>> {
        let s = self.inner.clone();
        let paths: Vec<std::path::PathBuf> = paths.into_iter().map(Into::into).collect();
        job(move || sessiondb::portable::import_paths(&s, &paths, &mut |_| {}).map(|r| r.files.into_iter().map(Into::into).collect()))
    }

    /// The session as thClaws JSONL text (what real thClaws reads).
    #[napi(ts_return_type = "Promise<string>")]
    pub fn export_thclaws(&self, session_id: String) -> AsyncTask<Job<String>> {
        let s = self.inner.clone();
        job(move || {
            let mut buf = Vec::new();
            sessiondb::portable::export_thclaws(&s, &session_id, &mut buf)?;
            String::from_utf8(buf).map_err(|_| Error::corrupt("export is not UTF-8"))
        })
    }

    /// Fork a session: entries up to `atSeq` (default all), or one system entry with `summary`.
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn fork_session(&self, session_id: String, at_seq: Option<i64>, summary: Option<String>) -> napi::Result<AsyncTask<Job<Session>>> {
        let at_seq = at_seq.map(|v| u(v, "atSeq")).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || sessiondb::portable::fork_session(&s, &session_id, sessiondb::portable::ForkOptions { at_seq, summary }).map(Into::into)))
    }

    /// Resolve a reference as `/load` and `--resume` do: `last` = the most recent session bound to `workspace`;
    /// otherwise an id, unique id prefix or exact title. Rejects with NotFoundError, ConflictError (ambiguous).
    #[napi(ts_return_type = "Promise<Session>")]
    pub fn resolve_session(&self, reference: String, workspace: Option<String>) -> AsyncTask<Job<Session>> {
        let s = self.inner.clone();
        job(move || sessiondb::portable::resolve_session(&s, &reference, workspace.as_deref()).map(Into::into))
    }

    /// The 20 most recently active sessions (seed 002 `/sessions`).
    #[napi(ts_return_type = "Promise<Session[]>")]
    pub fn recent_sessions(&self) -> AsyncTask<Job<Vec<Session>>> {
        let s = self.inner.clone();
        job(move || sessiondb::portable::recent_sessions(&s).map(map))
    }

    /// Sidebar order (seed 002): the 10 most recent sessions, titled first.
    #[napi(ts_return_type = "Promise<Session[]>")]
    pub fn sidebar_sessions(&self) -> AsyncTask<Job<Vec<Session>>> {
        let s = self.inner.clone();
        job(move || sessiondb::portable::sidebar_sessions(&s).map(map))
    }

    /// Record a compaction plan; resolves to its context extension number, or null for a plan without
    /// transformations (not recorded). Rejects with NotFoundError.
    #[napi(ts_return_type = "Promise<number | null>")]
    pub fn record_compaction(&self, session_id: String, plan: CompactionPlan) -> napi::Result<AsyncTask<Job<Option<i64>>>> {
        let plan = plan.into_core().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || sessiondb::context::record_compaction(&s, &session_id, &plan).map(|n| n.map(crate::records::n))))
    }

    /// Run the recovery pass now (it also runs at open).
    #[napi(ts_return_type = "Promise<RecoveryReport>")]
    pub fn recover(&self) -> AsyncTask<Job<RecoveryReport>> {
        let s = self.inner.clone();
        job(move || s.recover().map(Into::into))
    }

    // --- context governance and restore

    /// Where a stored session's context stands: `model`, `capacity`, `meter`, `turns`.
    #[napi(ts_return_type = "Promise<ContextStatus>")]
    pub fn context_status(&self, session_id: String, raw_window: i64, output_reserve: Option<i64>, model: Option<String>) -> napi::Result<AsyncTask<Job<ContextStatus>>> {
        let raw = u(raw_window, "rawWindow").map_err(to_napi)?;
        let reserve = output_reserve.map(|v| u(v, "outputReserve")).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || sessiondb::context::context_status(&s, &session_id, raw, reserve, model).map(Into::into)))
    }

    /// What the model sees next for a `rawWindow`-token window (DESIGN.md
    /// "Context governance"): every visible entry in order, verbatim,
    /// compacted (a run is one item with its summary) or excluded, with its
    /// tokens; computed from stored counts. Records nothing.
    /// Rejects with NotFoundError, InvalidInputError (window), AuthenticationError, CorruptError.
    #[napi(ts_return_type = "Promise<ActiveContextView>")]
    pub fn active_context(&self, session_id: String, raw_window: i64, output_reserve: Option<i64>, model: Option<String>) -> napi::Result<AsyncTask<Job<ActiveContextView>>> {
        let raw = u(raw_window, "rawWindow").map_err(to_napi)?;
        let reserve = output_reserve.map(|v| u(v, "outputReserve")).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || sessiondb::context::active_context(&s, &session_id, raw, reserve, model).map(Into::into)))
    }

    /// Plan (and unless `dryRun`, record) compaction of a stored session; the transcript is never modified.
    #[napi(ts_return_type = "Promise<CompactionPlan>")]
    #[allow(clippy::too_many_arguments)]
    pub fn compact_session(
        &self,
        session_id: String,
        raw_window: i64,
        output_reserve: Option<i64>,
        model: Option<String>,
        target_percent: Option<u32>,
        dry_run: Option<bool>,
    ) -> napi::Result<AsyncTask<Job<CompactionPlan>>> {
        let raw = u(raw_window, "rawWindow").map_err(to_napi)?;
        let reserve = output_reserve.map(|v| u(v, "outputReserve")).transpose().map_err(to_napi)?;
        let target = target_percent.map(|t| u8::try_from(t).map_err(|_| to_napi(Error::invalid("targetPercent must be 0..=100")))).transpose()?;
        let s = self.inner.clone();
        Ok(job(move || {
            sessiondb::context::compact_session(&s, &session_id, raw, reserve, model, target, dry_run.unwrap_or(false)).map(Into::into)
        }))
    }

    /// Pins, exclusions and compaction history of a session, replayed.
    #[napi(ts_return_type = "Promise<ContextGovernance>")]
    pub fn recover_context_governance(&self, session_id: String) -> AsyncTask<Job<ContextGovernance>> {
        let s = self.inner.clone();
        job(move || sessiondb::context::recover_context_governance(&s, &session_id).map(Into::into))
    }

    /// Record a turn decision (`kind`: pin|unpin|exclude|include) for `seqs`; resolves to the extension number.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn record_turn_decision(&self, session_id: String, kind: String, seqs: Vec<i64>) -> napi::Result<AsyncTask<Job<i64>>> {
        let seqs = seqs.into_iter().map(|v| u(v, "seq")).collect::<sessiondb::Result<Vec<_>>>().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || sessiondb::context::record_turn_decision(&s, &session_id, &kind, &seqs).map(|n| n as i64)))
    }

    /// Open a saved session: its `knowledge` and a fresh `authority` (Manual, no grants). Reads only.
    #[napi(ts_return_type = "Promise<OpenedSession>")]
    pub fn open_saved_session(&self, session_id: String) -> AsyncTask<Job<OpenedSession>> {
        let s = self.inner.clone();
        job(move || sessiondb::restore::open_saved_session(&s, &session_id).map(Into::into))
    }
}

/// The core options of `SessionStore.open` / `importRecoveryKey` options.
fn core_options(options: Option<OpenOptions>) -> napi::Result<sessiondb::OpenOptions> {
    let o = options.unwrap_or(OpenOptions { path: None, key: None, key_provider: None, app: None, busy_timeout_ms: None, recover: None });
    let key = match (o.key, o.key_provider) {
        (Some(_), Some(_)) => return Err(to_napi(Error::invalid("pass either key or keyProvider, not both"))),
        (Some(k), None) => KeySource::Bytes(DataKey::from_bytes(&k).map_err(to_napi)?),
        (None, Some(p)) => KeySource::Provider(Arc::new(JsKeyProvider {
            get: p.get_key,
            set: p.set_key,
            backend: p.backend_name.unwrap_or_else(|| "JS key provider".into()),
        })),
        (None, None) => KeySource::OsKeyring,
    };
    let mut opts = sessiondb::OpenOptions { key, ..Default::default() };
    opts.path = o.path.map(Into::into);
    if let Some(app) = o.app {
        opts.app = app;
    }
    if let Some(ms) = o.busy_timeout_ms {
        opts.busy_timeout_ms = u64::from(ms);
    }
    if let Some(r) = o.recover {
        opts.recover = r;
    }
    Ok(opts)
}

/// Import a recovery key for the store `options` names (`path`, `app`,
/// `keyProvider`; default the OS keyring) and open it: the text is checked
/// (checksum), then against the database's key-check value, then stored in
/// the credential store. Rejects with InvalidInputError (mistyped:
/// "recovery key checksum mismatch"; `options.key` given), NotFoundError (no
/// database file), KeyMismatchError (another database's key; nothing
/// stored), ConflictError (the credential store holds another key for the
/// app), KeyStoreUnavailableError.
#[napi(js_name = "_importRecoveryKey", ts_return_type = "Promise<SessionStore>")]
pub fn import_recovery_key(recovery_key: String, options: Option<OpenOptions>) -> napi::Result<AsyncTask<Job<SessionStore>>> {
    let opts = core_options(options)?;
    Ok(job(move || sessiondb::SessionStore::import_recovery_key(opts, &recovery_key).map(|s| SessionStore { inner: Arc::new(s) })))
}

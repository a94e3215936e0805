//! `SessionStore`: every method that touches disk or crypto returns a
//! Promise computed on the libuv pool (`AsyncTask`); the JS thread only
//! converts arguments. `close()` is explicit; a collected store is closed by
//! the core's `Drop`.

use std::sync::Arc;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use sessiondb::{DataKey, Error, KeySource, NewSession};

use crate::errors::to_napi;
use crate::job::{job, Job};
use crate::keys::JsKeyProvider;
use crate::records::*;

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
            .map(|x| Ok((crate::records::Back::back(x.entry, "entries")?, x.meta.into_core()?)))
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
        from_seq: Option<f64>,
        limit: Option<f64>,
    ) -> napi::Result<AsyncTask<Job<Vec<TranscriptEntryWithMeta>>>> {
        let from = int(from_seq.unwrap_or(1.0), "fromSeq").map_err(to_napi)?;
        let limit: Option<u32> = limit.map(|v| int(v, "limit")).transpose().map_err(to_napi)?;
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
    pub fn get_transcript_tail_with_meta(&self, session_id: String, limit: Option<f64>) -> napi::Result<AsyncTask<Job<Vec<TranscriptEntryWithMeta>>>> {
        let limit: Option<u32> = limit.map(|v| int(v, "limit")).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || {
            s.get_transcript_tail_with_meta(&session_id, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE))
                .map(|v| v.into_iter().map(|(e, m)| TranscriptEntryWithMeta { entry: e.into(), meta: m.into() }).collect())
        }))
    }

    /// Up to `limit` (default 1000, at most 10000) entries with
    /// `seq >= fromSeq` (default 1) as their structured items, one read: an
    /// `ItemPage` (`JSON.parse(page.itemsJson)` is the items, `null` where
    /// an entry has none: those entries are in `page.withoutItem`, their
    /// seqs in `page.seqs`). Contents of entries with an item are not decrypted.
    /// Rejects with NotFoundError, InvalidInputError, AuthenticationError, CorruptError.
    #[napi(ts_return_type = "Promise<ItemPage>")]
    pub fn get_entry_items(&self, session_id: String, from_seq: Option<f64>, limit: Option<f64>) -> napi::Result<AsyncTask<Job<ItemPage>>> {
        let from = int(from_seq.unwrap_or(1.0), "fromSeq").map_err(to_napi)?;
        let limit: Option<u32> = limit.map(|v| int(v, "limit")).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.get_entry_items(&session_id, from, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(Into::into)))
    }

    /// The last `limit` (default 1000, at most 10000) entries as their
    /// structured items, in seq order, in one read: an `ItemPage` (see
    /// `getEntryItems`). Rejects with NotFoundError, InvalidInputError,
    /// AuthenticationError, CorruptError.
    #[napi(ts_return_type = "Promise<ItemPage>")]
    pub fn get_entry_items_tail(&self, session_id: String, limit: Option<f64>) -> napi::Result<AsyncTask<Job<ItemPage>>> {
        let limit: Option<u32> = limit.map(|v| int(v, "limit")).transpose().map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.get_entry_items_tail(&session_id, limit.unwrap_or(sessiondb::store::DEFAULT_PAGE)).map(Into::into)))
    }

    /// Add one token-ledger record.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn record_tokens(&self, session_id: String, usage: TokenUsage) -> napi::Result<AsyncTask<Job<()>>> {
        let usage = crate::records::Back::back(usage, "usage").map_err(to_napi)?;
        let s = self.inner.clone();
        Ok(job(move || s.record_tokens(&session_id, usage)))
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

// The methods declared in bridge/api.rs (`trait SessionStore`), generated by build.rs.
include!(concat!(env!("OUT_DIR"), "/bridge_methods.rs"));

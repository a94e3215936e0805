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
        Ok(job(move || s.append_entries_with_meta(&session_id, entries).map(crate::records::Conv::conv)))
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

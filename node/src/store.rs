//! `SessionStore`: every method that touches disk or crypto returns a
//! Promise computed on the libuv pool (`AsyncTask`); the JS thread only
//! converts arguments. `close()` is explicit; a collected store is closed by
//! the core's `Drop`.

use std::sync::Arc;

use napi::bindgen_prelude::AsyncTask;
use napi_derive::napi;
use sessiondb::KeySource;

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
    /// Open (creating if needed) a store. Key: `options.key` (32 bytes, or
    /// the base64 text of a key file as a string or Buffer),
    /// else `options.keyProvider`, else the OS keyring. (`index.js` exposes
    /// it as `SessionStore.open`, with errors as SessionDBError subclasses.) Rejects with
    /// RecoveryLockedError, KeyMismatchError, KeyStoreUnavailableError,
    /// CorruptError, IoError, InvalidInputError.
    #[napi(js_name = "_open", ts_return_type = "Promise<SessionStore>")]
    pub fn open(options: Option<OpenOptions>) -> napi::Result<AsyncTask<Job<SessionStore>>> {
        let opts = core_options(options)?;
        Ok(job(move || sessiondb::SessionStore::open(opts).map(|s| SessionStore { inner: Arc::new(s) })))
    }
}

/// The core options of `SessionStore.open` / `importRecoveryKey` options.
fn core_options(options: Option<OpenOptions>) -> napi::Result<sessiondb::OpenOptions> {
    let o = options.unwrap_or_default();
    let provider = o.key_provider.map(|p| -> Arc<dyn sessiondb::KeyProvider> {
        Arc::new(JsKeyProvider { get: p.get_key, set: p.set_key, backend: p.backend_name.unwrap_or_else(|| "JS key provider".into()) })
    });
    let key = o.key.as_ref().map(|k| match k {
        napi::Either::A(bytes) => sessiondb::keys::KeyInput::Bytes(bytes),
        napi::Either::B(text) => sessiondb::keys::KeyInput::Text(text),
    });
    let key = KeySource::for_host(key, provider, ("key", "keyProvider")).map_err(to_napi)?;
    let busy = o.busy_timeout_ms.map(|v| crate::records::int(v, "busyTimeoutMs")).transpose().map_err(to_napi)?;
    sessiondb::OpenOptions::for_host(o.path.map(Into::into), o.app, key, busy, o.recover)
        .with_compress(o.compress)
        .with_redact(o.redact.as_deref(), o.redact_rules.map(Into::into))
        .map_err(to_napi)
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

// The methods declared in bridge/api.rs (`trait SessionStore`), generated into bridge/generated/node/methods.rs.
include!("../../bridge/generated/node/methods.rs");

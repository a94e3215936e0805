//! `SessionStore`: the encrypted session store as a uniffi object. Each
//! method converts its arguments, calls the core and maps the error.

use std::path::PathBuf;
use std::sync::Arc;

use sessiondb::keys::KeyInput;
use sessiondb::{KeySource, OpenOptions};

use crate::async_store::{with_async_twins, AsyncSessionStore, SessionDbAsync};
use crate::error::Result;
use crate::keys::{HostKeyProvider, KeyProvider};

/// The encrypted, journaled session store (one SQLite file).
///
/// Thread-safe: share one instance between threads. After `close()` every
/// call fails with `SessionDbError.closed` (Swift) / `SessionDbException.Closed` (Kotlin).
/// In Kotlin the store is also `AutoCloseable`: `use { }` / `close()` free
/// the native handle (which closes the store when no call is running);
/// `closeStore()` closes it at once.
#[derive(uniffi::Object)]
pub struct SessionStore {
    inner: sessiondb::SessionStore,
}

fn open(opts: OpenOptions) -> Result<Arc<SessionStore>> {
    Ok(Arc::new(SessionStore {
        inner: sessiondb::SessionStore::open(opts)?,
    }))
}

// The constructors, and their `async` twins on `AsyncSessionStore`.
with_async_twins! {
    /// Open (creating if needed) a store whose data key comes from a host
    /// [`KeyProvider`] (Android Keystore, Apple Keychain...).
    ///
    /// * `path`: database file; `null`/`nil` = the default path for `app`
    ///   (`$XDG_STATE_HOME/<app>/sessions.db`, `~/Library/Application
    ///   Support/<app>/sessions.db`, `%LOCALAPPDATA%\<app>\sessions.db`).
    /// * `app`: app name (state directory, key service); default `sessiondb`.
    /// * `keyProvider`: asked for the key; on a new database it receives 32
    ///   fresh bytes through `setKey`.
    /// * `busyTimeoutMs`: how long a write waits for another writer before
    ///   failing with `Busy` (milliseconds; default 10,000).
    /// * `compress`: compress contents of 512 bytes or more before
    ///   encryption; `null`/`nil` = the backend's default (off, for a database
    ///   file and PostgreSQL alike); `false`: stored lengths reveal only
    ///   plaintext lengths (SECURITY.md "Size oracle").
    /// * `redact`: the secret redaction policy, `off` (default), `on-export`
    ///   or `on-write`; `redactRules`: a gitleaks-format TOML file of extra
    ///   rules (SECURITY.md "Secret redaction"). Another policy is `InvalidInput`.
    ///
    /// Errors: `RecoveryLocked` (database exists, provider has no key: no
    /// key is written), `KeyMismatch`, `KeyStoreUnavailable` (the provider
    /// threw), `Io`, `Corrupt`, `InvalidInput`.
    #[uniffi::constructor(default(path = None, app = None, busy_timeout_ms = None, compress = None, redact = None, redact_rules = None))]
    pub fn open(
        path: Option<String>,
        app: Option<String>,
        key_provider: Arc<dyn KeyProvider>,
        busy_timeout_ms: Option<u64>,
        compress: Option<bool>,
        redact: Option<String>,
        redact_rules: Option<String>,
    ) -> Result<Arc<Self>> {
        let key = KeySource::Provider(Arc::new(HostKeyProvider(key_provider)));
        open(OpenOptions::for_host(path.map(PathBuf::from), app, key, busy_timeout_ms, None).with_compress(compress).with_redact(redact.as_deref(), redact_rules.map(PathBuf::from))?)
    }

    /// Open a store with a 32-byte data key the host already holds (or the
    /// bytes of a key file: its base64 text) (`path`, `app`,
    /// `busyTimeoutMs`, `compress`, `redact`, `redactRules` as for `open`).
    /// Errors: `InvalidInput` (neither 32 bytes nor base64 of 32 bytes),
    /// `KeyMismatch`, `Io`, `Corrupt`.
    #[uniffi::constructor(default(app = None, busy_timeout_ms = None, compress = None, redact = None, redact_rules = None))]
    pub fn open_with_key(
        path: Option<String>,
        key: Vec<u8>,
        app: Option<String>,
        busy_timeout_ms: Option<u64>,
        compress: Option<bool>,
        redact: Option<String>,
        redact_rules: Option<String>,
    ) -> Result<Arc<Self>> {
        let key = KeyInput::Bytes(&key).decode("key")?;
        open(OpenOptions::for_host(path.map(PathBuf::from), app, KeySource::Bytes(key), busy_timeout_ms, None).with_compress(compress).with_redact(redact.as_deref(), redact_rules.map(PathBuf::from))?)
    }

    /// Open a store with the base64 text of its data key (a key file's
    /// content, e.g. from `sessiondb key init --file`; whitespace around it,
    /// such as the file's trailing newline, is ignored) (`path`, `app`,
    /// `busyTimeoutMs`, `compress`, `redact`, `redactRules` as for `open`).
    /// Errors: `InvalidInput` (not base64 of 32 bytes), `KeyMismatch`, `Io`, `Corrupt`.
    #[uniffi::constructor(default(app = None, busy_timeout_ms = None, compress = None, redact = None, redact_rules = None))]
    pub fn open_with_key_text(
        path: Option<String>,
        key: String,
        app: Option<String>,
        busy_timeout_ms: Option<u64>,
        compress: Option<bool>,
        redact: Option<String>,
        redact_rules: Option<String>,
    ) -> Result<Arc<Self>> {
        let key = KeyInput::Text(&key).decode("key")?;
        open(OpenOptions::for_host(path.map(PathBuf::from), app, KeySource::Bytes(key), busy_timeout_ms, None).with_compress(compress).with_redact(redact.as_deref(), redact_rules.map(PathBuf::from))?)
    }

    /// Open a store whose data key lives in the OS credential store
    /// (Keychain, Credential Manager, Secret Service) under service `app`,
    /// account `session-data-key` (`path`, `busyTimeoutMs`, `compress`, `redact`, `redactRules` as for `open`).
    /// Errors: `KeyStoreUnavailable` (no store, locked, denied),
    /// `RecoveryLocked`, `KeyMismatch`, `Io`, `Corrupt`.
    #[uniffi::constructor(default(path = None, app = None, busy_timeout_ms = None, compress = None, redact = None, redact_rules = None))]
    pub fn open_with_os_keyring(
        path: Option<String>,
        app: Option<String>,
        busy_timeout_ms: Option<u64>,
        compress: Option<bool>,
        redact: Option<String>,
        redact_rules: Option<String>,
    ) -> Result<Arc<Self>> {
        open(OpenOptions::for_host(path.map(PathBuf::from), app, KeySource::OsKeyring, busy_timeout_ms, None).with_compress(compress).with_redact(redact.as_deref(), redact_rules.map(PathBuf::from))?)
    }
}

impl SessionStore {
    /// The core store (for the context and portable wrappers).
    pub(crate) fn core(&self) -> &sessiondb::SessionStore {
        &self.inner
    }
}

/// Import a recovery key for the database at `path` and open it: the text
/// is checked (checksum), then against the database's key-check value, then
/// stored in `keyProvider` (`setKey`), or with none in the OS credential
/// store under service `app` (default `sessiondb`).
/// Errors: `InvalidInput` (mistyped), `NotFound` (no database file),
/// `KeyMismatch` (another database's key; nothing stored), `Conflict` (the
/// credential store holds another key for the app), `KeyStoreUnavailable`.
#[uniffi::export(default(key_provider = None, app = None))]
pub fn import_recovery_key(
    recovery_key: String,
    path: String,
    key_provider: Option<Arc<dyn KeyProvider>>,
    app: Option<String>,
) -> Result<Arc<SessionStore>> {
    let key = match key_provider {
        Some(p) => KeySource::Provider(Arc::new(HostKeyProvider(p))),
        None => KeySource::OsKeyring,
    };
    let opts = OpenOptions::for_host(Some(path.into()), app, key, None, None);
    Ok(Arc::new(SessionStore {
        inner: sessiondb::SessionStore::import_recovery_key(opts, &recovery_key)?,
    }))
}

#[cfg(test)]
mod default_tests {
    /// Page-size defaults are literals in the declaration (bridge/api.rs and
    /// bridge/api/*.rs; uniffi and pyo3 take literals; the stubs show them):
    /// each must be the core's `DEFAULT_PAGE`.
    #[test]
    fn every_page_size_default_is_the_cores_default_page() {
        let api = concat!(include_str!("../../bridge/api.rs"), include_str!("../../bridge/api/store.rs"), include_str!("../../bridge/api/functions.rs"));
        let defaults: Vec<u32> = api
            .match_indices("limit = ")
            .filter_map(|(i, m)| api[i + m.len()..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
            .collect();
        assert_eq!(defaults.len(), 7, "get_transcript(_tail), get_transcript(_tail)_with_meta, get_entry_items(_tail), journal_events");
        assert!(defaults.iter().all(|d| *d == sessiondb::store::DEFAULT_PAGE), "{defaults:?}");
    }
}

// The methods and functions declared in bridge/api.rs (`trait SessionStore`,
// `trait Functions`) and their `suspend`/`async` twins on `AsyncSessionStore`
// and `SessionDbAsync`, generated into bridge/generated/uniffi/methods.rs.
include!("../../bridge/generated/uniffi/methods.rs");

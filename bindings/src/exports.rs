//! What the two store objects and the module export: the
//! `SessionStore` constructors and the methods and functions of
//! bridge/api.rs, each with its Kotlin `suspend` / Swift `async` twin on
//! `AsyncSessionStore` or `SessionDbAsync`. Each method converts its
//! arguments, calls the core and maps the error. Apart from `store.rs` and
//! `async_store.rs`, so that the async objects build on the blocking one
//! and neither imports the other back.

use std::path::PathBuf;
use std::sync::Arc;

use sessiondb::keys::KeyInput;
use sessiondb::{KeySource, OpenOptions};

use crate::async_store::{with_async_twins, AsyncSessionStore, SessionDbAsync};
use crate::error::Result;
use crate::keys::{HostKeyProvider, KeyProvider};
use crate::store::SessionStore;

/// Open the store at `path` under `key` with the options every
/// constructor takes (their docs: `open`).
fn open(
    path: Option<String>,
    app: Option<String>,
    key: KeySource,
    busy_timeout_ms: Option<u64>,
    compress: Option<bool>,
    redact: Option<String>,
    redact_rules: Option<String>,
) -> Result<Arc<SessionStore>> {
    let opts = OpenOptions::for_host(path.map(PathBuf::from), app, key, busy_timeout_ms, None)
        .with_compress(compress)
        .with_redact(redact.as_deref(), redact_rules.map(PathBuf::from))?;
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
        open(path, app, key, busy_timeout_ms, compress, redact, redact_rules)
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
        open(path, app, KeySource::Bytes(key), busy_timeout_ms, compress, redact, redact_rules)
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
        open(path, app, KeySource::Bytes(key), busy_timeout_ms, compress, redact, redact_rules)
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
        open(path, app, KeySource::OsKeyring, busy_timeout_ms, compress, redact, redact_rules)
    }
}

// The methods and functions declared in bridge/api.rs (`trait SessionStore`,
// `trait Functions`) and their `suspend`/`async` twins on `AsyncSessionStore`
// and `SessionDbAsync`, generated into bridge/generated/uniffi/methods.rs.
include!("../../bridge/generated/uniffi/methods.rs");

//! `SessionStore`: the encrypted session store as a uniffi object. Each
//! method converts its arguments, calls the core and maps the error.

use std::path::PathBuf;
use std::sync::Arc;

use sessiondb::journal::{AppendOutcome, OperationOutcome};
use sessiondb::{
    DataKey, KeySource, NewSession, OpenOptions,
    SessionRecord, TokenUsage, TranscriptEntry, WorkspaceFilter,
};


use crate::error::Result;
use crate::keys::{HostKeyProvider, KeyProvider};
use crate::types::{
    parse_json, JournalEvent, NewEntryWithMeta, NewEvent,
    TranscriptEntryWithMeta,
};

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

fn options(
    path: Option<String>,
    app: Option<String>,
    busy_timeout_ms: Option<u64>,
    key: KeySource,
) -> OpenOptions {
    let mut o = OpenOptions {
        path: path.map(PathBuf::from),
        key,
        ..OpenOptions::default()
    };
    if let Some(app) = app {
        o.app = app;
    }
    if let Some(ms) = busy_timeout_ms {
        o.busy_timeout_ms = ms;
    }
    o
}

fn open(opts: OpenOptions) -> Result<Arc<SessionStore>> {
    Ok(Arc::new(SessionStore {
        inner: sessiondb::SessionStore::open(opts)?,
    }))
}

#[uniffi::export]
impl SessionStore {
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
    ///
    /// Errors: `RecoveryLocked` (database exists, provider has no key: no
    /// key is written), `KeyMismatch`, `KeyStoreUnavailable` (the provider
    /// threw), `Io`, `Corrupt`, `InvalidInput`.
    #[uniffi::constructor(default(path = None, app = None, busy_timeout_ms = None))]
    pub fn open(
        path: Option<String>,
        app: Option<String>,
        key_provider: Arc<dyn KeyProvider>,
        busy_timeout_ms: Option<u64>,
    ) -> Result<Arc<Self>> {
        open(options(
            path,
            app,
            busy_timeout_ms,
            KeySource::Provider(Arc::new(HostKeyProvider(key_provider))),
        ))
    }

    /// Open a store with a 32-byte data key the host already holds
    /// (`path`, `app`, `busyTimeoutMs` as for `open`).
    /// Errors: `InvalidInput` (not 32 bytes), `KeyMismatch`, `Io`, `Corrupt`.
    #[uniffi::constructor(default(app = None, busy_timeout_ms = None))]
    pub fn open_with_key(
        path: Option<String>,
        key: Vec<u8>,
        app: Option<String>,
        busy_timeout_ms: Option<u64>,
    ) -> Result<Arc<Self>> {
        let key = DataKey::from_bytes(&key)?;
        open(options(path, app, busy_timeout_ms, KeySource::Bytes(key)))
    }

    /// Open a store whose data key lives in the OS credential store
    /// (Keychain, Credential Manager, Secret Service) under service `app`,
    /// account `session-data-key` (`path`, `busyTimeoutMs` as for `open`).
    /// Errors: `KeyStoreUnavailable` (no store, locked, denied),
    /// `RecoveryLocked`, `KeyMismatch`, `Io`, `Corrupt`.
    #[uniffi::constructor(default(path = None, app = None, busy_timeout_ms = None))]
    pub fn open_with_os_keyring(
        path: Option<String>,
        app: Option<String>,
        busy_timeout_ms: Option<u64>,
    ) -> Result<Arc<Self>> {
        open(options(path, app, busy_timeout_ms, KeySource::OsKeyring))
    }

    /// The database file path.
    pub fn path(&self) -> String {
        self.inner.path().to_string_lossy().into_owned()
    }

    /// This handle's owner id (recorded on the operations it dispatches).
    pub fn instance_id(&self) -> String {
        self.inner.instance_id().to_string()
    }

    /// Which key backend the data key came from.
    pub fn key_backend(&self) -> String {
        self.inner.key_backend().to_string()
    }

    /// Close the store: the connection is closed (checkpointing the WAL) and
    /// the owner lock released. Later calls fail with `Closed`; closing twice
    /// is a no-op. (Kotlin: `closeStore()`.)
    pub fn close(&self) {
        self.inner.close()
    }

    /// True once the store was closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Create a session titled `name` (`null`/`nil` = untitled), bound to
    /// `workspacePath` (made canonical) if given. Errors: `InvalidInput`, `Closed`.
    #[uniffi::method(default(name = None, workspace_path = None))]
    pub fn create_session(
        &self,
        name: Option<String>,
        workspace_path: Option<String>,
    ) -> Result<SessionRecord> {
        Ok(self.inner.create_session(name, workspace_path)?)
    }

    /// Create a session with every field (imports, forks).
    /// Errors: `Conflict` (the id exists), `InvalidInput`, `Closed`.
    pub fn create_session_with(&self, new: NewSession) -> Result<SessionRecord> {
        Ok(self.inner.create_session_with(new)?)
    }

    /// Sessions selected by `filter` (current workspace, other workspaces,
    /// unbound, all), most recently active first, at most `limit`.
    /// Errors: `InvalidInput` (bad path).
    #[uniffi::method(default(limit = None))]
    pub fn list_sessions_for_workspace(
        &self,
        filter: WorkspaceFilter,
        limit: Option<u32>,
    ) -> Result<Vec<SessionRecord>> {
        Ok(self.inner.list_sessions_for_workspace(filter, limit)?)
    }

    /// The last `limit` (≤ 10,000) entries with their metadata, in seq
    /// order, in one read (an Agents SDK session's `getItems(limit)`).
    /// Errors: `NotFound`, `InvalidInput`, `AuthenticationFailed`, `Corrupt`.
    #[uniffi::method(default(limit = 1000))]
    pub fn get_transcript_tail_with_meta(&self, session_id: String, limit: u32) -> Result<Vec<TranscriptEntryWithMeta>> {
        Ok(self
            .inner
            .get_transcript_tail_with_meta(&session_id, limit)?
            .into_iter()
            .map(|(entry, meta)| TranscriptEntryWithMeta { entry, meta: meta.into() })
            .collect())
    }

    /// [`Self::append_entries`] with per-entry metadata, one transaction
    /// (all or none). Errors: `NotFound` (session), `InvalidInput` (a model
    /// or provider name over 256 bytes or with control characters,
    /// `extraJson` not a JSON object), `Closed`.
    pub fn append_entries_with_meta(
        &self,
        session_id: String,
        entries: Vec<NewEntryWithMeta>,
    ) -> Result<Vec<TranscriptEntry>> {
        let entries = entries
            .into_iter()
            .map(|x| Ok((x.entry, x.meta.try_into()?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(self.inner.append_entries_with_meta(&session_id, entries)?)
    }

    /// [`Self::get_transcript`] with each entry's metadata. Errors:
    /// `NotFound`, `InvalidInput`, `AuthenticationFailed`, `Corrupt`.
    #[uniffi::method(default(from_seq = 1, limit = 1000))]
    pub fn get_transcript_with_meta(
        &self,
        session_id: String,
        from_seq: u64,
        limit: u32,
    ) -> Result<Vec<TranscriptEntryWithMeta>> {
        Ok(self
            .inner
            .get_transcript_with_meta(&session_id, from_seq, limit)?
            .into_iter()
            .map(|(entry, meta)| TranscriptEntryWithMeta {
                entry,
                meta: meta.into(),
            })
            .collect())
    }

    /// Add one record to a session's token ledger. Errors: `NotFound`.
    pub fn record_tokens(&self, session_id: String, usage: TokenUsage) -> Result<()> {
        Ok(self.inner.record_tokens(&session_id, usage)?)
    }

    /// Append one journal event (idempotent by `eventId`: the same event
    /// again returns the original seq with `duplicate = true`).
    /// Errors: `Conflict` (same id, other content), `NotFound`, `InvalidInput`.
    pub fn journal_append(&self, event: NewEvent) -> Result<AppendOutcome> {
        Ok(self.inner.journal_append(event.try_into()?)?)
    }

    /// Record that an operation's effect was dispatched (owned by this
    /// handle). `payloadJson` is JSON text. Errors: `Conflict` (dispatched twice), `InvalidInput`.
    pub fn dispatch_operation(
        &self,
        session_id: String,
        operation_id: String,
        payload_json: String,
    ) -> Result<AppendOutcome> {
        Ok(self.inner.dispatch_operation(
            &session_id,
            &operation_id,
            parse_json(&payload_json, "payloadJson")?,
        )?)
    }

    /// Record an operation's terminal event (idempotent for the same outcome
    /// and payload). Errors: `NotFound` (never dispatched), `Conflict`, `InvalidInput`.
    pub fn complete_operation(
        &self,
        session_id: String,
        operation_id: String,
        outcome: OperationOutcome,
        payload_json: String,
    ) -> Result<AppendOutcome> {
        let payload = parse_json(&payload_json, "payloadJson")?;
        Ok(self
            .inner
            .complete_operation(&session_id, &operation_id, outcome, payload)?)
    }

}

impl SessionStore {
    /// The core store (for the context and portable wrappers).
    pub(crate) fn core(&self) -> &sessiondb::SessionStore {
        &self.inner
    }
}

/// The default database path for `app` (`sessiondb` when `null`/`nil`):
/// `$XDG_STATE_HOME/<app>/sessions.db` on Linux (falling back to
/// `~/.local/state`), `~/Library/Application Support/<app>/sessions.db` on
/// macOS, `%LOCALAPPDATA%\<app>\sessions.db` on Windows (seed 000
/// `sessionsDbPath()`). Errors: `Io` when no home directory is known.
#[uniffi::export(default(app = None))]
pub fn default_db_path(app: Option<String>) -> Result<String> {
    let app = app.unwrap_or_else(|| sessiondb::paths::DEFAULT_APP.to_string());
    Ok(sessiondb::paths::default_db_path(&app)?
        .to_string_lossy()
        .into_owned())
}

/// The canonical form of a workspace path (absolute, symlinks resolved where
/// the path exists, separators normalised, NFC): what sessions are bound to
/// and indexed by. Relative paths are taken from the current directory.
/// Errors: `InvalidInput` (empty path), `Io` (no current directory).
#[uniffi::export]
pub fn canonical_workspace(path: String) -> Result<String> {
    let cwd = std::env::current_dir()
        .map_err(|e| sessiondb::Error::io("reading the current directory", e))?;
    Ok(sessiondb::paths::canonical_workspace(&path, &cwd)?)
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
    let opts = options(Some(path), app, None, key);
    Ok(Arc::new(SessionStore {
        inner: sessiondb::SessionStore::import_recovery_key(opts, &recovery_key)?,
    }))
}

/// A core error kind: its conformance name and Node-style code.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ErrorKindInfo {
    /// The kind's name, e.g. `RecoveryLocked` (the Kotlin exception class, the Swift case in lowerCamelCase).
    pub name: String,
    /// The code, e.g. `ERR_RECOVERY_LOCKED`.
    pub code: String,
}

/// Every core error kind, in declaration order (13).
#[uniffi::export]
pub fn error_kinds() -> Vec<ErrorKindInfo> {
    sessiondb::ErrorKind::ALL
        .iter()
        .map(|k| ErrorKindInfo {
            name: k.name().to_string(),
            code: k.code().to_string(),
        })
        .collect()
}

#[cfg(test)]
mod default_tests {
    /// uniffi and pyo3 defaults must be literals (pyo3's, for the stubs'
    /// sake): every page-size default written in the Kotlin/Swift and the
    /// Python bindings, by hand or in bridge/api.rs (generated for both),
    /// must be the core's `DEFAULT_PAGE`, which Node uses.
    #[test]
    fn every_page_size_default_is_the_cores_default_page() {
        let api = include_str!("../../bridge/api.rs");
        for (host, hand, n) in [("kotlin/swift", include_str!("store.rs"), 5), ("python", include_str!("../../python/src/store.rs"), 7)] {
            let src = format!("{hand}\n{api}");
            let defaults: Vec<u32> = src
                .match_indices("limit = ")
                .filter_map(|(i, m)| src[i + m.len()..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok())
                .collect();
            assert_eq!(defaults.len(), n, "{host}: get_transcript, get_transcript_tail, get_transcript_tail_with_meta, get_transcript_with_meta, journal_events (Python also get_entry_items, get_entry_items_tail)");
            assert!(defaults.iter().all(|d| *d == sessiondb::store::DEFAULT_PAGE), "{host}: {defaults:?}");
        }
    }
}

// The methods declared in bridge/api.rs (`trait SessionStore`), generated by build.rs.
include!(concat!(env!("OUT_DIR"), "/bridge_methods.rs"));

//! `SessionStore`: the encrypted session store as a uniffi object. Its
//! constructors and methods, and their `async` twins, are in `exports.rs`.

use std::sync::Arc;

use sessiondb::{KeySource, OpenOptions};

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
    pub(crate) inner: sessiondb::SessionStore,
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

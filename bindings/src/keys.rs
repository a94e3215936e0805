//! The host-implemented key provider (a foreign trait): the app keeps the
//! data key in the Android Keystore, the Apple Keychain or elsewhere and
//! hands it over on open (DESIGN.md "Keys"; seed 000 "Key Lifecycle").

use std::sync::Arc;

use sessiondb::Error;

use crate::error::{Result, SessionDbError};

/// A key source implemented by the host, in Kotlin or Swift.
///
/// * `getKey()` returns the stored 32-byte key, or `null`/`nil` when the
///   host has none yet. For an existing database, "none" opens nothing: the
///   store fails with `RecoveryLocked` and never writes a new key.
/// * Throw `SessionDbError.KeyStoreUnavailable` (or any error) when the
///   host's store is locked or unreachable: never return `null` for that.
/// * `setKey(key)` is called once, with 32 fresh random bytes, when a new
///   database is created; persist them before returning.
#[uniffi::export(with_foreign)]
pub trait KeyProvider: Send + Sync {
    /// The stored key bytes (32), or `null`/`nil` when there is no key yet.
    fn get_key(&self) -> Result<Option<Vec<u8>>>;
    /// Persist a freshly generated 32-byte key.
    fn set_key(&self, key: Vec<u8>) -> Result<()>;
    /// Human-readable backend name used in error messages (e.g. `Android Keystore`).
    fn backend_name(&self) -> String;
}

/// Adapts a host [`KeyProvider`] to the core's trait.
pub(crate) struct HostKeyProvider(pub Arc<dyn KeyProvider>);

impl sessiondb::KeyProvider for HostKeyProvider {
    fn get_key(&self) -> sessiondb::Result<Option<Vec<u8>>> {
        self.0
            .get_key()
            .map_err(|e| to_core(e, &self.0.backend_name()))
    }

    fn set_key(&self, key: &[u8]) -> sessiondb::Result<()> {
        self.0
            .set_key(key.to_vec())
            .map_err(|e| to_core(e, &self.0.backend_name()))
    }

    fn backend_name(&self) -> String {
        self.0.backend_name()
    }
}

/// An error thrown by the host provider, back into the core's type. The key
/// kinds keep their meaning; anything else means the host's store failed.
fn to_core(e: SessionDbError, backend: &str) -> Error {
    match e {
        SessionDbError::RecoveryLocked {
            backend, service, ..
        } => Error::RecoveryLocked { backend, service },
        SessionDbError::KeyMismatch { backend, .. } => Error::KeyMismatch { backend },
        SessionDbError::KeyStoreUnavailable {
            backend,
            reason,
            remedy,
            ..
        } => Error::KeyStoreUnavailable {
            backend,
            reason,
            remedy,
        },
        SessionDbError::Closed { .. } => Error::Closed,
        other => Error::KeyStoreUnavailable {
            backend: backend.to_string(),
            reason: format!("the key provider failed: {other}"),
            remedy: "fix the host key provider (return the key, or null/nil when there is none)"
                .into(),
        },
    }
}

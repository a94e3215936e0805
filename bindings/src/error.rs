//! The one error type of the Kotlin and Swift bindings: one variant per core
//! [`sessiondb::ErrorKind`], in the same order (Kotlin
//! `SessionDbException.RecoveryLocked`, Swift `SessionDbError.recoveryLocked`).
//!
//! The enum, its `From<sessiondb::Error>`, [`DECLARED_KINDS`] and
//! [`error_kinds`] are generated from the error declaration in bridge/api.rs (sessiondb-bridge,
//! committed as bridge/generated/uniffi/errors.rs); tests in `tests/error_mapping.rs`. Every variant
//! carries the core's structured fields plus `detail`, the core's full
//! message (which names the remedy). Messages never contain user content or
//! key bytes (see `core/src/error.rs`).

include!("../../bridge/generated/uniffi/errors.rs");

/// A host key provider threw something that is not a `SessionDbError`
/// (a Kotlin `RuntimeException`, a Swift error of its own): reported as
/// `KeyStoreUnavailable`, never as "no key".
impl From<uniffi::UnexpectedUniFFICallbackError> for SessionDbError {
    fn from(e: uniffi::UnexpectedUniFFICallbackError) -> Self {
        let reason = format!("the host key provider failed: {}", e.reason);
        let remedy = "fix the host key provider (return the key, or null/nil when there is none)"
            .to_string();
        SessionDbError::KeyStoreUnavailable {
            backend: "host key provider".into(),
            detail: format!("key store unavailable: host key provider: {reason}. {remedy}"),
            reason,
            remedy,
        }
    }
}

/// Shorthand for the bindings' result type.
pub type Result<T, E = SessionDbError> = std::result::Result<T, E>;


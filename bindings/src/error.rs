//! The one error type of the Kotlin and Swift bindings: one variant per core
//! [`sessiondb::ErrorKind`], in the same order (Kotlin
//! `SessionDbException.RecoveryLocked`, Swift `SessionDbError.recoveryLocked`).
//!
//! Every variant carries the core's structured fields plus `detail`, the
//! core's full message (which names the remedy). Messages never contain user
//! content or key bytes (see `core/src/error.rs`).

use sessiondb::Error;

/// Every failure sessiondb reports, one variant per core error kind.
///
/// `detail` is always the complete human-readable message, including what the
/// user can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, uniffi::Error)]
#[non_exhaustive]
pub enum SessionDbError {
    /// The database exists but its data key is missing from the key source.
    /// No new key was written (seed 000, "Key Lifecycle": recovery-locked).
    #[error("{detail}")]
    RecoveryLocked {
        /// The key backend that was asked (e.g. `host key provider`).
        backend: String,
        /// The credential-store service name (the app name).
        service: String,
        /// The full message.
        detail: String,
    },
    /// The key found does not open this database (its key-check value failed).
    #[error("{detail}")]
    KeyMismatch {
        /// The key backend the wrong key came from.
        backend: String,
        /// The full message.
        detail: String,
    },
    /// No credential store could be reached, or it refused access (locked,
    /// denied...). Never read as "no key". Also raised when a host key
    /// provider throws something other than a `SessionDbError`.
    #[error("{detail}")]
    KeyStoreUnavailable {
        /// The backend, e.g. `Secret Service (D-Bus)`.
        backend: String,
        /// What failed, without secrets.
        reason: String,
        /// What the user can do about it.
        remedy: String,
        /// The full message.
        detail: String,
    },
    /// A session, entry, operation or journal event does not exist.
    #[error("{detail}")]
    NotFound {
        /// Kind of thing, e.g. `session`.
        what: String,
        /// Its id.
        id: String,
        /// The full message.
        detail: String,
    },
    /// The request conflicts with what is stored (same event id with another
    /// payload, ambiguous id prefix or title, existing session id...).
    #[error("{detail}")]
    Conflict {
        /// Why, without user content.
        reason: String,
        /// The full message.
        detail: String,
    },
    /// An AEAD tag did not verify: a stored value was altered, moved or swapped.
    #[error("{detail}")]
    AuthenticationFailed {
        /// The record id used as AAD (e.g. `session:<id>:name`).
        record: String,
        /// The full message.
        detail: String,
    },
    /// Stored data is not in the expected shape (not a database, bad
    /// envelope, schema newer than this build...).
    #[error("{detail}")]
    Corrupt {
        /// What is wrong, without user content.
        reason: String,
        /// The full message.
        detail: String,
    },
    /// Another writer held the database lock past the busy timeout.
    #[error("{detail}")]
    Busy {
        /// The configured busy timeout, in milliseconds.
        timeout_ms: u64,
        /// How long the call really waited, in milliseconds.
        waited_ms: u64,
        /// The full message.
        detail: String,
    },
    /// An argument is out of range or malformed.
    #[error("{detail}")]
    InvalidInput {
        /// What is wrong with it.
        reason: String,
        /// The full message.
        detail: String,
    },
    /// The operating system refused a file operation.
    #[error("{detail}")]
    Io {
        /// The step that failed (e.g. `creating the state directory`).
        step: String,
        /// The OS error kind as Rust names it (`NotFound`, `PermissionDenied`...).
        os_kind: String,
        /// The full message.
        detail: String,
    },
    /// SQLite reported an error that is none of the above.
    #[error("{detail}")]
    Database {
        /// SQLite's message (never contains bound values).
        reason: String,
        /// The full message.
        detail: String,
    },
    /// Irreducible Context Overflow: protected content alone exceeds the
    /// Effective Context Capacity (seed 000, "Context Compaction"). The
    /// fields are the token breakdown.
    #[error("{detail}")]
    ContextOverflow {
        /// Effective Context Capacity measured against (tokens).
        capacity: u64,
        /// System prompt and other system items (tokens).
        system: u64,
        /// Pinned items (tokens).
        pinned: u64,
        /// Recent turns kept verbatim (tokens).
        recent: u64,
        /// Protected tool results (tokens).
        tool_results: u64,
        /// Anything else that could not be compacted (tokens).
        other: u64,
        /// Sum of the categories above (tokens).
        protected_total: u64,
        /// What the user can do, most useful first (plain sentences).
        remedies: Vec<String>,
        /// The full message.
        detail: String,
    },
    /// The store was closed (or used in a forked child); open it again.
    #[error("{detail}")]
    Closed {
        /// The full message.
        detail: String,
    },
}

impl From<Error> for SessionDbError {
    fn from(e: Error) -> Self {
        let detail = e.to_string();
        match e {
            Error::RecoveryLocked { backend, service } => SessionDbError::RecoveryLocked {
                backend,
                service,
                detail,
            },
            Error::KeyMismatch { backend } => SessionDbError::KeyMismatch { backend, detail },
            Error::KeyStoreUnavailable {
                backend,
                reason,
                remedy,
            } => SessionDbError::KeyStoreUnavailable {
                backend,
                reason,
                remedy,
                detail,
            },
            Error::NotFound { what, id } => SessionDbError::NotFound {
                what: what.to_string(),
                id,
                detail,
            },
            Error::Conflict { reason } => SessionDbError::Conflict { reason, detail },
            Error::AuthenticationFailed { record } => {
                SessionDbError::AuthenticationFailed { record, detail }
            }
            Error::Corrupt { reason } => SessionDbError::Corrupt { reason, detail },
            Error::Busy { timeout_ms, waited_ms } => SessionDbError::Busy { timeout_ms, waited_ms, detail },
            Error::InvalidInput { reason } => SessionDbError::InvalidInput { reason, detail },
            Error::Io { step, source } => SessionDbError::Io {
                step: step.to_string(),
                os_kind: format!("{:?}", source.kind()),
                detail,
            },
            Error::Database(reason) => SessionDbError::Database { reason, detail },
            Error::ContextOverflow(b) => SessionDbError::ContextOverflow {
                capacity: b.capacity,
                system: b.system,
                pinned: b.pinned,
                recent: b.recent,
                tool_results: b.tool_results,
                other: b.other,
                protected_total: b.protected_total,
                remedies: b.remedies,
                detail,
            },
            Error::Closed => SessionDbError::Closed { detail },
            // `Error` is non_exhaustive; a kind added to the core without a
            // variant here still reaches the host, as a database error.
            other => SessionDbError::Database {
                reason: other.to_string(),
                detail,
            },
        }
    }
}

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

/// Map a JSON parse failure of a host-supplied JSON string to `InvalidInput`.
pub(crate) fn bad_json(what: &str) -> SessionDbError {
    SessionDbError::from(Error::invalid(format!("{what} is not valid JSON")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessiondb::{ContextOverflowBreakdown, ErrorKind};

    fn sample(kind: ErrorKind) -> Error {
        match kind {
            ErrorKind::RecoveryLocked => Error::RecoveryLocked {
                backend: "b".into(),
                service: "s".into(),
            },
            ErrorKind::KeyMismatch => Error::KeyMismatch {
                backend: "b".into(),
            },
            ErrorKind::KeyStoreUnavailable => Error::KeyStoreUnavailable {
                backend: "b".into(),
                reason: "r".into(),
                remedy: "m".into(),
            },
            ErrorKind::NotFound => Error::not_found("session", "x"),
            ErrorKind::Conflict => Error::conflict("c"),
            ErrorKind::AuthenticationFailed => Error::AuthenticationFailed {
                record: "session:x:name".into(),
            },
            ErrorKind::Corrupt => Error::corrupt("c"),
            ErrorKind::Busy => Error::Busy { timeout_ms: 10, waited_ms: 10 },
            ErrorKind::InvalidInput => Error::invalid("i"),
            ErrorKind::Io => Error::io(
                "step",
                std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            ),
            ErrorKind::Database => Error::Database("d".into()),
            ErrorKind::ContextOverflow => {
                Error::ContextOverflow(Box::new(ContextOverflowBreakdown {
                    capacity: 100,
                    system: 90,
                    pinned: 20,
                    recent: 0,
                    tool_results: 0,
                    other: 0,
                    protected_total: 110,
                    remedies: vec!["unpin".into()],
                }))
            }
            ErrorKind::Closed => Error::Closed,
            other => panic!("a core error kind without a sample here: {other}"),
        }
    }

    /// The variant's name as the host sees it (Kotlin class, Swift case with a lower first letter).
    fn variant(e: &SessionDbError) -> &'static str {
        match e {
            SessionDbError::RecoveryLocked { .. } => "RecoveryLocked",
            SessionDbError::KeyMismatch { .. } => "KeyMismatch",
            SessionDbError::KeyStoreUnavailable { .. } => "KeyStoreUnavailable",
            SessionDbError::NotFound { .. } => "NotFound",
            SessionDbError::Conflict { .. } => "Conflict",
            SessionDbError::AuthenticationFailed { .. } => "AuthenticationFailed",
            SessionDbError::Corrupt { .. } => "Corrupt",
            SessionDbError::Busy { .. } => "Busy",
            SessionDbError::InvalidInput { .. } => "InvalidInput",
            SessionDbError::Io { .. } => "Io",
            SessionDbError::Database { .. } => "Database",
            SessionDbError::ContextOverflow { .. } => "ContextOverflow",
            SessionDbError::Closed { .. } => "Closed",
        }
    }

    #[test]
    fn every_core_error_kind_maps_to_the_variant_of_the_same_name() {
        for kind in ErrorKind::ALL {
            let core = sample(kind);
            let message = core.to_string();
            let mapped = SessionDbError::from(core);
            assert_eq!(variant(&mapped), kind.name());
            assert_eq!(mapped.to_string(), message, "detail is the core's message");
        }
    }

    #[test]
    fn overflow_breakdown_and_io_kind_are_fields() {
        match SessionDbError::from(sample(ErrorKind::ContextOverflow)) {
            SessionDbError::ContextOverflow {
                system,
                pinned,
                protected_total,
                remedies,
                ..
            } => {
                assert_eq!((system, pinned, protected_total), (90, 20, 110));
                assert_eq!(remedies, vec!["unpin".to_string()]);
            }
            other => panic!("{other:?}"),
        }
        match SessionDbError::from(sample(ErrorKind::Io)) {
            SessionDbError::Io { step, os_kind, .. } => assert_eq!(
                (step.as_str(), os_kind.as_str()),
                ("step", "PermissionDenied")
            ),
            other => panic!("{other:?}"),
        }
    }
}

//! The one public error type of sessiondb, and its stable kinds.
//!
//! Every binding maps [`ErrorKind`] one to one onto a host error class
//! (`sessiondb.RecoveryLockedError` in Python, `code: 'ERR_RECOVERY_LOCKED'`
//! in Node, `SessionDbException.RecoveryLocked` in Kotlin, ...).
//!
//! Error text never contains user content (titles, messages, tool output),
//! workspace paths of sessions, or key bytes: only ids, seq numbers, counts,
//! the name of the step that failed, and the key backend.

use std::fmt;

/// What to restore for [`Error::RecoveryLocked`]: the key file (a
/// `backend` of `the key file PATH`) or the credential-store entry.
fn recovery_locked_remedy(backend: &str, service: &str) -> String {
    if backend.starts_with("the key file ") {
        "copy that key file back from where the database came from (or import its recovery key: `sessiondb key import`)".to_string()
    } else {
        format!("restore the key (service `{service}`, account `session-data-key`)")
    }
}

/// `Result` with the sessiondb [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Token breakdown carried by [`Error::ContextOverflow`]: the protected part
/// of the active context that compaction may not touch, by category, in tokens.
///
/// Source: seed 000, "Context Compaction" (Irreducible Context Overflow).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ContextOverflowBreakdown {
    /// Effective Context Capacity measured against (tokens).
    pub capacity: u64,
    /// System prompt and other system items (tokens).
    pub system: u64,
    /// Pinned items (tokens).
    pub pinned: u64,
    /// Recent turns kept verbatim (tokens).
    pub recent: u64,
    /// Protected tool results (tokens).
    pub tool_results: u64,
    /// Anything else that could not be compacted (tokens).
    pub other: u64,
    /// Sum of the categories above (tokens).
    pub protected_total: u64,
    /// What the user can do, most useful first (plain sentences).
    pub remedies: Vec<String>,
}

/// Every failure sessiondb reports.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The database exists but its data key is missing from the key source.
    /// No new key was written (seed 000, "Key Lifecycle": recovery-locked).
    ///
    /// No new key is ever written in this state.
    #[error("recovery locked: the session database exists but its data key is missing from {backend}; {restore} or open another database. No new key was created, because it could never decrypt the existing sessions", restore = recovery_locked_remedy(.backend, .service))]
    RecoveryLocked {
        /// The key backend that was asked (e.g. `host key provider`).
        backend: String,
        /// The credential-store service name (the app name).
        service: String,
    },

    /// The key found does not open this database (its key-check value failed).
    ///
    /// It is not the key this database was created with: the key-check
    /// value in `meta` failed to authenticate.
    #[error("key mismatch: the data key from {backend} does not open this database (key-check value failed); find the original key, nothing was changed")]
    KeyMismatch {
        /// The key backend the wrong key came from.
        backend: String,
    },

    /// No credential store could be reached, or it refused access (locked,
    /// denied...). Never read as "no key". Also raised when a host key
    /// provider throws something other than a `SessionDbError`.
    ///
    /// E.g. no D-Bus session for the Secret Service.
    #[error("key store unavailable: {backend}: {reason}. {remedy}")]
    KeyStoreUnavailable {
        /// The backend, e.g. `Secret Service (D-Bus)`.
        backend: String,
        /// What failed, without secrets.
        reason: String,
        /// What the user can do about it.
        remedy: String,
    },

    /// A session, entry, operation or journal event does not exist.
    #[error("not found: {what} `{id}`")]
    NotFound {
        /// Kind of thing, e.g. `session`.
        what: &'static str,
        /// Its id.
        ///
        /// Ids are not user content.
        id: String,
    },

    /// The request conflicts with what is stored (same event id with another
    /// payload, ambiguous id prefix or title, existing session id...).
    ///
    /// Also a terminal event on a finished operation.
    #[error("conflict: {reason}")]
    Conflict {
        /// Why, without user content.
        reason: String,
    },

    /// An AEAD tag did not verify: a stored value was altered, moved or swapped.
    ///
    /// The ciphertext, nonce, tag or its record id (AAD) was changed.
    #[error("authentication failed for record `{record}`: the ciphertext was altered or moved")]
    AuthenticationFailed {
        /// The record id used as AAD (e.g. `session:<id>:name`).
        record: String,
    },

    /// Stored data is not in the expected shape (not a database, bad
    /// envelope, schema newer than this build...).
    ///
    /// E.g. bad envelope JSON or an unknown algorithm.
    #[error("corrupt data: {reason}")]
    Corrupt {
        /// What is wrong, without user content.
        reason: String,
    },

    /// Another writer held the database lock past the busy timeout.
    ///
    /// The database stayed locked past `busy_timeout`. Returned only once
    /// the call has really waited that long (SQLite answers some statements
    /// `SQLITE_BUSY` without its busy handler; the store retries those until
    /// the timeout).
    #[error("database busy: another connection held the lock; gave up after waiting {waited_ms} ms (busy timeout {timeout_ms} ms)")]
    Busy {
        /// The configured busy timeout, in milliseconds.
        timeout_ms: u64,
        /// How long the call really waited, in milliseconds.
        waited_ms: u64,
    },

    /// An argument is out of range or malformed.
    #[error("invalid input: {reason}")]
    InvalidInput {
        /// What is wrong with it.
        reason: String,
    },

    /// The operating system refused a file operation. Python: an `OSError`,
    /// `FileNotFoundIoError` / `PermissionIoError` where the OS said so.
    #[error("I/O error while {step}: {source}")]
    Io {
        /// The step that failed (e.g. `creating the state directory`).
        step: &'static str,
        /// The OS error (kind is preserved for bindings: NotFound, PermissionDenied...).
        #[source]
        source: std::io::Error,
    },

    /// SQLite reported an error that is none of the above.
    #[error("database error: {0}")]
    Database(String),

    /// Irreducible Context Overflow: protected content alone exceeds the
    /// Effective Context Capacity (seed 000, "Context Compaction"). The
    /// fields are the token breakdown.
    #[error("irreducible context overflow: protected content is {} tokens, capacity is {} tokens", .0.protected_total, .0.capacity)]
    ContextOverflow(Box<ContextOverflowBreakdown>),

    /// The store was closed (or used in a forked child); open it again.
    #[error("store closed: this handle was closed, or it is used in a child process after fork() (a handle belongs to the process that opened it); open the store again")]
    Closed,
}

/// The stable kind of an [`Error`]; bindings map each to one host class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::RecoveryLocked`]
    RecoveryLocked,
    /// [`Error::KeyMismatch`]
    KeyMismatch,
    /// [`Error::KeyStoreUnavailable`]
    KeyStoreUnavailable,
    /// [`Error::NotFound`]
    NotFound,
    /// [`Error::Conflict`]
    Conflict,
    /// [`Error::AuthenticationFailed`]
    AuthenticationFailed,
    /// [`Error::Corrupt`]
    Corrupt,
    /// [`Error::Busy`]
    Busy,
    /// [`Error::InvalidInput`]
    InvalidInput,
    /// [`Error::Io`]
    Io,
    /// [`Error::Database`]
    Database,
    /// [`Error::ContextOverflow`]
    ContextOverflow,
    /// [`Error::Closed`]
    Closed,
}

impl ErrorKind {
    /// Every kind, in declaration order (used by binding tests).
    pub const ALL: [ErrorKind; 13] = [
        ErrorKind::RecoveryLocked,
        ErrorKind::KeyMismatch,
        ErrorKind::KeyStoreUnavailable,
        ErrorKind::NotFound,
        ErrorKind::Conflict,
        ErrorKind::AuthenticationFailed,
        ErrorKind::Corrupt,
        ErrorKind::Busy,
        ErrorKind::InvalidInput,
        ErrorKind::Io,
        ErrorKind::Database,
        ErrorKind::ContextOverflow,
        ErrorKind::Closed,
    ];

    /// The Node-style error code, e.g. `ERR_RECOVERY_LOCKED`.
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::RecoveryLocked => "ERR_RECOVERY_LOCKED",
            ErrorKind::KeyMismatch => "ERR_KEY_MISMATCH",
            ErrorKind::KeyStoreUnavailable => "ERR_KEY_STORE_UNAVAILABLE",
            ErrorKind::NotFound => "ERR_NOT_FOUND",
            ErrorKind::Conflict => "ERR_CONFLICT",
            ErrorKind::AuthenticationFailed => "ERR_AUTHENTICATION_FAILED",
            ErrorKind::Corrupt => "ERR_CORRUPT",
            ErrorKind::Busy => "ERR_BUSY",
            ErrorKind::InvalidInput => "ERR_INVALID_INPUT",
            ErrorKind::Io => "ERR_IO",
            ErrorKind::Database => "ERR_DATABASE",
            ErrorKind::ContextOverflow => "ERR_CONTEXT_OVERFLOW",
            ErrorKind::Closed => "ERR_CLOSED",
        }
    }

    /// The kind's name as used in conformance cases, e.g. `RecoveryLocked`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::RecoveryLocked => "RecoveryLocked",
            ErrorKind::KeyMismatch => "KeyMismatch",
            ErrorKind::KeyStoreUnavailable => "KeyStoreUnavailable",
            ErrorKind::NotFound => "NotFound",
            ErrorKind::Conflict => "Conflict",
            ErrorKind::AuthenticationFailed => "AuthenticationFailed",
            ErrorKind::Corrupt => "Corrupt",
            ErrorKind::Busy => "Busy",
            ErrorKind::InvalidInput => "InvalidInput",
            ErrorKind::Io => "Io",
            ErrorKind::Database => "Database",
            ErrorKind::ContextOverflow => "ContextOverflow",
            ErrorKind::Closed => "Closed",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Error {
    /// The stable kind of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::RecoveryLocked { .. } => ErrorKind::RecoveryLocked,
            Error::KeyMismatch { .. } => ErrorKind::KeyMismatch,
            Error::KeyStoreUnavailable { .. } => ErrorKind::KeyStoreUnavailable,
            Error::NotFound { .. } => ErrorKind::NotFound,
            Error::Conflict { .. } => ErrorKind::Conflict,
            Error::AuthenticationFailed { .. } => ErrorKind::AuthenticationFailed,
            Error::Corrupt { .. } => ErrorKind::Corrupt,
            Error::Busy { .. } => ErrorKind::Busy,
            Error::InvalidInput { .. } => ErrorKind::InvalidInput,
            Error::Io { .. } => ErrorKind::Io,
            Error::Database(_) => ErrorKind::Database,
            Error::ContextOverflow(_) => ErrorKind::ContextOverflow,
            Error::Closed => ErrorKind::Closed,
        }
    }

    /// Shorthand for [`Error::InvalidInput`].
    pub fn invalid(reason: impl Into<String>) -> Self {
        Error::InvalidInput { reason: reason.into() }
    }

    /// Shorthand for [`Error::Corrupt`].
    pub fn corrupt(reason: impl Into<String>) -> Self {
        Error::Corrupt { reason: reason.into() }
    }

    /// Shorthand for [`Error::Conflict`].
    pub fn conflict(reason: impl Into<String>) -> Self {
        Error::Conflict { reason: reason.into() }
    }

    /// Shorthand for [`Error::NotFound`].
    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        Error::NotFound { what, id: id.into() }
    }

    /// Wrap an OS error with the step that failed.
    pub fn io(step: &'static str, source: std::io::Error) -> Self {
        Error::Io { step, source }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_a_distinct_code_and_name() {
        let codes: std::collections::HashSet<_> = ErrorKind::ALL.iter().map(|k| k.code()).collect();
        let names: std::collections::HashSet<_> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(codes.len(), 13);
        assert_eq!(names.len(), 13);
        assert_eq!(ErrorKind::RecoveryLocked.code(), "ERR_RECOVERY_LOCKED");
        assert_eq!(ErrorKind::ContextOverflow.name(), "ContextOverflow");
    }
}

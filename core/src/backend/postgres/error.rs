//! PostgreSQL's errors as sessiondb errors.
//!
//! * serialization failure (40001), deadlock (40P01), lock not available
//!   (55P03), statement or lock timeout (57014): `Busy` (the caller retries;
//!   every write is one transaction, rolled back on error);
//! * connection lost, refused or shut down (class 08, 57P01-57P03, an I/O
//!   error, a closed client): `Io` with kind `ConnectionAborted` (the pool
//!   drops the broken connection; the next call reconnects);
//! * unique violation (23505): `Conflict` (two writers raced for one id);
//!   another integrity violation (class 23): `Corrupt`;
//! * a refused TLS handshake (a certificate no trusted CA signed, a server
//!   without TLS under `sslmode=require`): `Io` with kind `InvalidData`
//!   and a step that names the remedy ([`TLS_STEP`]);
//! * disk full (53100): `Io` with `ENOSPC`; insufficient privilege (42501):
//!   `Io` with `PermissionDenied`;
//! * anything else: `Database` with the server's message (parameters are
//!   bound, so no user content is in it; the DETAIL field, which may quote
//!   key values, is never included).

use postgres::error::SqlState;

use crate::error::Error;

/// The step named by connection errors.
pub(crate) const CONNECTION_STEP: &str = "talking to the PostgreSQL server (the connection was lost or refused; the next call reconnects)";

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Self {
        if let Some(code) = e.code() {
            let message = e.as_db_error().map(|d| d.message().to_string()).unwrap_or_default();
            return match code {
                c if *c == SqlState::T_R_SERIALIZATION_FAILURE
                    || *c == SqlState::T_R_DEADLOCK_DETECTED
                    || *c == SqlState::LOCK_NOT_AVAILABLE
                    || *c == SqlState::QUERY_CANCELED =>
                {
                    Error::Busy { timeout_ms: 0, waited_ms: 0 }
                }
                c if *c == SqlState::UNIQUE_VIOLATION => {
                    Error::conflict(format!("another writer stored a row with the same key first ({message})"))
                }
                c if c.code().starts_with("23") => Error::corrupt(format!(
                    "a stored row conflicts with the one being written ({message}); run `sessiondb doctor --check`"
                )),
                c if *c == SqlState::DISK_FULL => Error::Io {
                    step: "writing to the PostgreSQL server: its disk is full (every write acknowledged before this one is intact)",
                    source: std::io::Error::from_raw_os_error(28),
                },
                c if *c == SqlState::INSUFFICIENT_PRIVILEGE => Error::Io {
                    step: "writing to the PostgreSQL server",
                    source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, message),
                },
                c if c.code().starts_with("08")
                    || *c == SqlState::ADMIN_SHUTDOWN
                    || *c == SqlState::CRASH_SHUTDOWN
                    || *c == SqlState::CANNOT_CONNECT_NOW
                    || *c == SqlState::IDLE_IN_TRANSACTION_SESSION_TIMEOUT =>
                {
                    connection_lost(message)
                }
                c if *c == SqlState::INVALID_PASSWORD || *c == SqlState::INVALID_AUTHORIZATION_SPECIFICATION => Error::Io {
                    step: "connecting to the PostgreSQL server",
                    source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, message),
                },
                _ => Error::Database(format!("postgres {}: {message}", code.code())),
            };
        }
        // No SQLSTATE: an I/O error, a closed connection, a TLS or a conversion error.
        let text = e.to_string();
        if text.starts_with("error performing TLS handshake") {
            return Error::Io { step: TLS_STEP, source: std::io::Error::new(std::io::ErrorKind::InvalidData, text) };
        }
        if e.is_closed() || std::error::Error::source(&e).is_some_and(|s| s.is::<std::io::Error>()) {
            return connection_lost(e.to_string());
        }
        Error::Database(format!("postgres: {e}"))
    }
}

/// The step named by a refused TLS handshake (`Io`, kind `InvalidData`).
pub(crate) const TLS_STEP: &str = "connecting to the PostgreSQL server over TLS (the handshake failed: a certificate not signed by a trusted CA needs `sslrootcert=PATH` naming that CA's PEM file; a server without TLS needs `sslmode=prefer` or `disable`)";

/// `Io` (kind `ConnectionAborted`) for a lost connection.
pub(crate) fn connection_lost(reason: String) -> Error {
    Error::Io { step: CONNECTION_STEP, source: std::io::Error::new(std::io::ErrorKind::ConnectionAborted, reason) }
}

impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Self {
        Error::Io {
            step: "connecting to the PostgreSQL server (no connection within the timeout)",
            source: std::io::Error::new(std::io::ErrorKind::ConnectionRefused, e.to_string()),
        }
    }
}

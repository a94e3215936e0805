//! SQLite's errors as sessiondb errors: busy and locked are `Busy` (the
//! store fills in the timeout and the real wait), corrupt or not-a-database
//! is `Corrupt`, `SQLITE_FULL` is `Io` with `ENOSPC` saying the disk is
//! full, read-only or permission errors are `Io` with `PermissionDenied`, a
//! column of the wrong type is `Corrupt`; anything else is `Database`.

use crate::error::Error;

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ffi::ErrorCode;
        match &e {
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(f.code, ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) =>
            {
                // The store replaces both figures with its timeout and the time it waited.
                Error::Busy { timeout_ms: 0, waited_ms: 0 }
            }
            rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::DiskFull => Error::Io {
                step: "writing the database: the disk is full (free some space and retry; every write acknowledged before this one is intact)",
                source: disk_full(),
            },
            // Every write checks for an existing row first and allocates
            // seqs as max + 1, so a constraint that fails means stored rows
            // were damaged (a seq or id changed under us).
            rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::ConstraintViolation => Error::Corrupt {
                reason: format!("a stored row conflicts with the one being written ({e}); a row was damaged: run `sessiondb doctor --check`"),
            },
            rusqlite::Error::InvalidColumnType(i, name, ty) => Error::Corrupt {
                reason: format!("column {i} (`{name}`) holds a value of type {ty}, which this schema never writes"),
            },
            rusqlite::Error::FromSqlConversionFailure(i, ty, _) => Error::Corrupt {
                reason: format!("column {i} holds a {ty} value that cannot be read as its declared type"),
            },
            rusqlite::Error::SqliteFailure(f, _)
                if matches!(f.code, ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) =>
            {
                Error::Corrupt { reason: format!("sqlite: {e}") }
            }
            rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::CannotOpen => {
                Error::Io { step: "opening the database file", source: std::io::Error::other(e.to_string()) }
            }
            rusqlite::Error::SqliteFailure(f, _) if f.code == ErrorCode::ReadOnly || f.code == ErrorCode::PermissionDenied => {
                Error::Io {
                    step: "writing the database file",
                    source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.to_string()),
                }
            }
            // Bound parameters never appear in rusqlite's messages, so no user content leaks here.
            _ => Error::Database(e.to_string()),
        }
    }
}

/// The OS error for a full disk (`ENOSPC`, kind `StorageFull`), so hosts
/// see their usual errno. SQLite reports `SQLITE_FULL` for `ENOSPC`.
fn disk_full() -> std::io::Error {
    #[cfg(unix)]
    {
        // ENOSPC is 28 on Linux, macOS and the BSDs.
        std::io::Error::from_raw_os_error(28)
    }
    #[cfg(not(unix))]
    {
        std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on the device")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    #[test]
    fn sqlite_busy_maps_to_busy_kind() {
        let e = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(5), None);
        assert_eq!(Error::from(e).kind(), ErrorKind::Busy);
    }
}

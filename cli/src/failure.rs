//! How a command fails: the exit codes `--help` lists, the CLI's failure
//! type over the core error, and its `--json` form.

use sessiondb::ErrorKind;

/// The exit codes, as `--help` prints them. `exit_code` maps each error
/// kind to its code; `cli/tests/cli.rs` checks this text against it.
pub(crate) const EXIT_CODES: &str = "\
Exit codes:
  0   ok
  1   other error (database error, store closed)
  2   invalid input or usage
  3   not found (session, database file)
  4   conflict (ambiguous session, import of another session's id, export -o FILE exists without --force)
  5   busy (another writer held the database past the busy timeout)
  6   corrupt or authentication failure (damaged record, newer schema, doctor --check found damage)
  7   I/O error (a file failed to import, disk full)
  10  recovery locked (the database exists but the data key is absent)
  11  key mismatch (the data key is not this database's)
  12  key store unavailable (keyring locked, denied or unreachable)
  13  irreducible context overflow

With --json, errors are one JSON object on stderr:
  {\"error\": {\"kind\": \"NotFound\", \"code\": \"ERR_NOT_FOUND\", \"exit_code\": 3, \"message\": \"...\"}}
and warnings one object per line: {\"warning\": {\"kind\": \"...\", \"message\": \"...\"}}.";

/// Why a command failed: a core error, or a failure the CLI words itself
/// (its kind, which gives the exit code through `exit_code`, and message).
pub(crate) enum Failure {
    Core(sessiondb::Error),
    Cli { kind: ErrorKind, message: String },
}

impl From<sessiondb::Error> for Failure {
    fn from(e: sessiondb::Error) -> Self {
        Failure::Core(e)
    }
}

impl Failure {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Failure::Cli { kind, message: message.into() }
    }

    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            Failure::Core(e) => e.kind(),
            Failure::Cli { kind, .. } => *kind,
        }
    }

    /// The message after `sessiondb: ` (one line or several).
    pub(crate) fn message(&self) -> String {
        match self {
            Failure::Core(e) => e.to_string(),
            Failure::Cli { message, .. } => message.clone(),
        }
    }

    /// The `--json` form: `{"error": {"kind", "code", "exit_code", "message"}}`,
    /// plus the token breakdown of a context overflow and the OS error kind
    /// and errno of an I/O error.
    pub(crate) fn to_json(&self) -> serde_json::Value {
        let kind = self.kind();
        let mut err = serde_json::json!({
            "kind": kind.name(),
            "code": kind.code(),
            "exit_code": exit_code(kind),
            "message": self.message(),
        });
        match self {
            Failure::Core(sessiondb::Error::ContextOverflow(b)) => {
                err["breakdown"] = serde_json::to_value(b).expect("breakdown serializes");
            }
            Failure::Core(sessiondb::Error::Io { source, .. }) => {
                err["io_kind"] = format!("{:?}", source.kind()).into();
                err["errno"] = source.raw_os_error().into();
            }
            _ => {}
        }
        serde_json::json!({ "error": err })
    }
}

/// The exit code of a core error kind (listed in [`EXIT_CODES`]).
pub(crate) fn exit_code(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::InvalidInput => 2,
        ErrorKind::NotFound => 3,
        ErrorKind::Conflict => 4,
        ErrorKind::Busy => 5,
        ErrorKind::Corrupt | ErrorKind::AuthenticationFailed => 6,
        ErrorKind::Io => 7,
        ErrorKind::RecoveryLocked => 10,
        ErrorKind::KeyMismatch => 11,
        ErrorKind::KeyStoreUnavailable => 12,
        ErrorKind::ContextOverflow => 13,
        _ => 1,
    }
}

//! DDL and numbered migrations.
//!
//! The schema version lives in `PRAGMA user_version`. Each migration runs in
//! its own `BEGIN IMMEDIATE` transaction that ends by recording its version,
//! so a crash mid-migration leaves the previous version intact. A database
//! whose version is newer than [`LATEST_VERSION`] is refused (`Corrupt`),
//! never downgraded.
//!
//! Plaintext columns hold only what DESIGN.md allows: ids, seq numbers,
//! roles, timestamps, counts, model/provider names, token numbers and HMAC
//! indexes. Every `*_enc` column is an `EncryptedField` JSON envelope.

use rusqlite::Connection;

use crate::error::{Error, Result};

/// The seed's journal DDL, verbatim (seed 000, "SessionJournal").
pub const JOURNAL_DDL: &str = "CREATE TABLE IF NOT EXISTS journal (
  event_id        TEXT PRIMARY KEY,
  session_id      TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  aggregate_version INTEGER NOT NULL,
  operation_id    TEXT NOT NULL DEFAULT '',
  payload_kind    TEXT NOT NULL,
  payload_json    TEXT NOT NULL,
  envelope_json   TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  UNIQUE(session_id, seq)
);";

/// Version 1: sessions, transcript, token ledger, context extensions, meta, journal.
const V1: &str = "
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE sessions (
  id              TEXT PRIMARY KEY,
  name_enc        TEXT,
  workspace_enc   TEXT,
  workspace_index TEXT,
  model           TEXT,
  provider        TEXT,
  work_mode       TEXT,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX sessions_by_updated ON sessions(updated_at DESC, id);
CREATE INDEX sessions_by_workspace ON sessions(workspace_index, updated_at DESC, id);
-- content_enc is the last column on purpose: a 1 KiB envelope spills into an
-- overflow page, and columns stored after it would be read through that chain.
CREATE TABLE transcript_entries (
  session_id  TEXT NOT NULL,
  seq         INTEGER NOT NULL,
  role        TEXT NOT NULL,
  format      TEXT NOT NULL DEFAULT 'text',
  created_at  INTEGER NOT NULL,
  tokens      INTEGER,
  source_line INTEGER,
  content_enc TEXT NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE TABLE token_ledger (
  id         INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL,
  model      TEXT,
  provider   TEXT,
  input      INTEGER NOT NULL,
  output     INTEGER NOT NULL,
  cached     INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX token_ledger_by_session ON token_ledger(session_id);
CREATE TABLE context_extensions (
  session_id TEXT NOT NULL,
  n          INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  body_enc   TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, n)
) WITHOUT ROWID;
";

/// Version 2: open-operation index for O(open operations) recovery and fork origin.
/// Backfills `open_operations` from an existing journal.
const V2: &str = "
CREATE INDEX journal_by_operation ON journal(operation_id) WHERE operation_id <> '';
CREATE TABLE open_operations (
  operation_id        TEXT PRIMARY KEY,
  session_id          TEXT NOT NULL,
  owner               TEXT NOT NULL,
  dispatched_event_id TEXT NOT NULL
);
CREATE INDEX open_operations_by_owner ON open_operations(owner);
INSERT INTO open_operations (operation_id, session_id, owner, dispatched_event_id)
  SELECT d.operation_id, d.session_id,
         COALESCE(json_extract(d.envelope_json, '$.owner'), ''), d.event_id
  FROM journal d
  WHERE d.payload_kind = 'EffectDispatchCommitted' AND d.operation_id <> ''
    AND NOT EXISTS (
      SELECT 1 FROM journal t WHERE t.operation_id = d.operation_id
        AND t.payload_kind IN ('OperationSucceeded','OperationFailed','OperationBlocked','OperationCancelled','OperationUnknownOutcome'));
ALTER TABLE sessions ADD COLUMN forked_from TEXT;
ALTER TABLE sessions ADD COLUMN forked_at_seq INTEGER;
";

/// Version 3: per-entry metadata of transcript entries (issue 4: "nothing the
/// source held is dropped silently"): the model and provider that produced
/// an entry (plaintext, as DESIGN.md allows) and the source's other per-turn
/// fields (`meta_enc`, an `EncryptedField` with record id
/// `transcript:<sid>:<seq>:meta`: Claude `toolUseResult`, `uuid`, Codex
/// `phase`...). Existing entries keep NULL in all three.
///
/// `ALTER TABLE ... ADD COLUMN` appends these columns after `content_enc`,
/// which V1 keeps last on purpose: for an entry whose content overflows,
/// reading a non-NULL value of these columns walks the overflow chain. So
/// only the reads that need them select them (`get_transcript_with_meta`,
/// used by export and fork); `get_transcript` does not. NULLs cost nothing:
/// their type sits in the record header, before any value.
const V3: &str = "
ALTER TABLE transcript_entries ADD COLUMN model TEXT;
ALTER TABLE transcript_entries ADD COLUMN provider TEXT;
ALTER TABLE transcript_entries ADD COLUMN meta_enc TEXT;
";

/// One numbered migration.
pub struct Migration {
    /// The version this migration produces.
    pub version: u32,
    /// What it does, for `doctor` and logs.
    pub description: &'static str,
    /// The SQL (several statements).
    pub sql: &'static str,
}

/// Every migration, in order. Append only; never edit a released one.
pub const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, description: "sessions, transcript, tokens, context extensions, journal", sql: V1 },
    Migration { version: 2, description: "open operations, journal indexes, fork origin, entry tokens", sql: V2 },
    Migration { version: 3, description: "per-entry model, provider and encrypted source metadata of transcript entries", sql: V3 },
];

/// The schema version this build writes.
pub const LATEST_VERSION: u32 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// Read `PRAGMA user_version`.
pub fn current_version(conn: &Connection) -> Result<u32> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get::<_, u32>(0))?)
}

/// Apply every migration above the current version, up to `target`, each in
/// its own immediate transaction. Returns the version reached.
///
/// Errors: `Corrupt` if the database is newer than this build.
pub fn migrate_to(conn: &mut Connection, target: u32) -> Result<u32> {
    migrate_to_within(conn, target, super::DEFAULT_BUSY_TIMEOUT_MS)
}

/// [`migrate_to`], waiting at most `timeout_ms` for another writer.
pub(crate) fn migrate_to_within(conn: &mut Connection, target: u32, timeout_ms: u64) -> Result<u32> {
    let mut version = current_version(conn)?;
    if version > LATEST_VERSION {
        return Err(Error::corrupt(format!(
            "schema version {version} is newer than this build supports ({LATEST_VERSION}); upgrade sessiondb"
        )));
    }
    let start = version;
    for m in MIGRATIONS.iter().filter(|m| m.version > start && m.version <= target) {
        let tx = super::begin_immediate(conn, timeout_ms)?;
        // Another process may have migrated while we waited for the lock.
        let now = current_version(&tx)?;
        if now >= m.version {
            version = now;
            continue;
        }
        if m.version == 1 {
            tx.execute_batch(JOURNAL_DDL)?;
        }
        tx.execute_batch(m.sql)?;
        tx.pragma_update(None, "user_version", m.version)?;
        tx.commit()?;
        version = m.version;
    }
    Ok(version)
}

/// Apply every migration (to [`LATEST_VERSION`]).
pub fn migrate(conn: &mut Connection) -> Result<u32> {
    migrate_to(conn, LATEST_VERSION)
}

/// [`migrate`], waiting at most `timeout_ms` for another writer.
pub(crate) fn migrate_within(conn: &mut Connection, timeout_ms: u64) -> Result<u32> {
    migrate_to_within(conn, LATEST_VERSION, timeout_ms)
}

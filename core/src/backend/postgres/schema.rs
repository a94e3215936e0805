//! PostgreSQL DDL and numbered migrations (DESIGN.md "Backends").
//!
//! * Citus-ready: every PRIMARY KEY and UNIQUE constraint leads with
//!   `session_id`, so every table can be distributed by it. Store-wide rows
//!   (`meta`, `owners`, the migration record, the store-wide journal head)
//!   use `session_id = ''`: they live together in one shard (or the tables
//!   become Citus reference tables).
//! * The journal keeps the seed's columns with `PRIMARY KEY (session_id, seq)`
//!   and `UNIQUE (session_id, event_id)`; the store-wide uniqueness of
//!   event ids that the seed's `event_id TEXT PRIMARY KEY` gives SQLite is
//!   kept by the store's check (see `ReadTx::event`), run under a
//!   transaction advisory lock on the event id ([`EVENT_ID_LOCK_SPACE`]).
//! * Seqs are never a SQL sequence: `journal_heads` holds each session's
//!   last journal seq (its row is the session's journal lock). Until
//!   version 2 its row `session_id = ''` held the store-wide last
//!   `aggregate_version` and was the writer lock every write transaction
//!   took first; since version 2 `aggregate_version` comes from the
//!   sequence `journal_version` and no store-wide row is locked.
//! * Each migration runs in one transaction that first takes
//!   `pg_advisory_xact_lock(MIGRATION_LOCK)`, then re-reads the version: two
//!   clients migrating at once apply each step once.
//! * Envelopes: `BYTEA` in the binary form in our tables, the JSON text in
//!   `journal.payload_json` and `meta.value` (as in SQLite).

use postgres::Client;

use crate::error::{Error, Result};

/// Advisory lock key of schema migrations (`pg_advisory_xact_lock`).
pub const MIGRATION_LOCK: i64 = 0x5e55_1d0b_0001;
/// Advisory lock key of the first open (creating the key-check value).
pub const FIRST_OPEN_LOCK: i64 = 0x5e55_1d0b_0002;

/// First key of the transaction advisory locks on event ids (two-key
/// form: `pg_advisory_xact_lock(EVENT_ID_LOCK_SPACE, hashtext(event_id))`;
/// the one-key locks above live in another key space).
pub const EVENT_ID_LOCK_SPACE: i32 = 0x5e55_1d0b;

/// The table recording applied migrations (created by the first migration's
/// transaction, under the migration lock).
const MIGRATIONS_TABLE: &str = "CREATE TABLE IF NOT EXISTS sessiondb_migrations (
  session_id  TEXT COLLATE \"C\" NOT NULL DEFAULT '',
  version     INTEGER NOT NULL,
  description TEXT NOT NULL,
  applied_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, version)
)";

/// Version 1: the whole schema of SQLite's version 4, in PostgreSQL terms.
const V1: &str = r#"
CREATE TABLE meta (
  session_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  key        TEXT COLLATE "C" NOT NULL,
  value      TEXT NOT NULL,
  PRIMARY KEY (session_id, key)
);
CREATE TABLE sessions (
  session_id      TEXT COLLATE "C" NOT NULL,
  name_enc        BYTEA,
  workspace_enc   BYTEA,
  workspace_index TEXT COLLATE "C",
  model           TEXT,
  provider        TEXT,
  work_mode       TEXT,
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  forked_from     TEXT COLLATE "C",
  forked_at_seq   BIGINT,
  PRIMARY KEY (session_id)
);
CREATE INDEX sessions_by_updated ON sessions (updated_at DESC, session_id DESC);
CREATE INDEX sessions_by_workspace ON sessions (workspace_index, updated_at DESC, session_id DESC);
CREATE TABLE transcript_entries (
  session_id    TEXT COLLATE "C" NOT NULL,
  seq           BIGINT NOT NULL,
  role          TEXT NOT NULL,
  format        TEXT NOT NULL DEFAULT 'text',
  created_at    BIGINT NOT NULL,
  tokens        BIGINT,
  source_line   BIGINT,
  model         TEXT,
  provider      TEXT,
  content_bytes BIGINT,
  kind          TEXT,
  call_keys     TEXT,
  content_enc   BYTEA NOT NULL,
  meta_enc      BYTEA,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE retractions (
  session_id TEXT COLLATE "C" NOT NULL,
  seq        BIGINT NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE TABLE token_ledger (
  session_id TEXT COLLATE "C" NOT NULL,
  id         BIGINT GENERATED ALWAYS AS IDENTITY,
  model      TEXT,
  provider   TEXT,
  input      BIGINT NOT NULL,
  output     BIGINT NOT NULL,
  cached     BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (session_id, id)
);
CREATE TABLE context_extensions (
  session_id TEXT COLLATE "C" NOT NULL,
  n          BIGINT NOT NULL,
  kind       TEXT NOT NULL,
  body_enc   BYTEA NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (session_id, n)
);
CREATE TABLE journal (
  session_id        TEXT COLLATE "C" NOT NULL,
  seq               BIGINT NOT NULL,
  event_id          TEXT COLLATE "C" NOT NULL,
  aggregate_version BIGINT NOT NULL,
  operation_id      TEXT COLLATE "C" NOT NULL DEFAULT '',
  payload_kind      TEXT NOT NULL,
  payload_json      TEXT NOT NULL,
  envelope_json     TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  PRIMARY KEY (session_id, seq),
  UNIQUE (session_id, event_id)
);
CREATE INDEX journal_by_event ON journal (event_id);
CREATE INDEX journal_by_operation ON journal (operation_id) WHERE operation_id <> '';
CREATE INDEX journal_by_version ON journal (aggregate_version);
CREATE TABLE journal_heads (
  session_id TEXT COLLATE "C" NOT NULL,
  last_seq   BIGINT NOT NULL,
  PRIMARY KEY (session_id)
);
INSERT INTO journal_heads (session_id, last_seq) VALUES ('', 0);
CREATE TABLE open_operations (
  session_id          TEXT COLLATE "C" NOT NULL,
  operation_id        TEXT COLLATE "C" NOT NULL,
  owner               TEXT NOT NULL,
  dispatched_event_id TEXT NOT NULL,
  PRIMARY KEY (session_id, operation_id)
);
CREATE INDEX open_operations_by_operation ON open_operations (operation_id);
CREATE TABLE owners (
  session_id       TEXT COLLATE "C" NOT NULL DEFAULT '',
  instance_id      TEXT COLLATE "C" NOT NULL,
  epoch            BIGINT NOT NULL,
  lease_expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (session_id, instance_id)
);
"#;

/// Version 2: the store-wide writer lock goes. `aggregate_version` comes
/// from the sequence `journal_version` (started after every version
/// already given), and the store-wide head row that every writer used to
/// lock is removed.
const V2: &str = r#"
CREATE SEQUENCE journal_version AS BIGINT;
SELECT setval('journal_version',
              GREATEST(1, (SELECT COALESCE(MAX(aggregate_version), 0) FROM journal),
                          (SELECT COALESCE(MAX(last_seq), 0) FROM journal_heads WHERE session_id = '')),
              EXISTS (SELECT 1 FROM journal) OR EXISTS (SELECT 1 FROM journal_heads WHERE session_id = '' AND last_seq > 0));
DELETE FROM journal_heads WHERE session_id = '';
"#;

/// Version 3: the import's source-record identities in a table of their
/// own (as SQLite's version 5): 16 bytes of HMAC per record, keyed by
/// session; version 1's `meta` rows `import-rec:<sid>:<64 hex digits>` move
/// there (their first 32 hex digits are the id) and leave `meta`.
const V3: &str = r#"
CREATE TABLE import_records (
  session_id TEXT COLLATE "C" NOT NULL,
  record_id  BYTEA NOT NULL,
  PRIMARY KEY (session_id, record_id)
);
INSERT INTO import_records (session_id, record_id)
  SELECT substr(key, 12, length(key) - 76), decode(left(right(key, 64), 32), 'hex')
  FROM meta
  WHERE session_id = '' AND starts_with(key, 'import-rec:') AND key ~ '^import-rec:.+:[0-9a-f]{64}$'
  ON CONFLICT DO NOTHING;
DELETE FROM meta WHERE session_id = '' AND starts_with(key, 'import-rec:') AND key ~ '^import-rec:.+:[0-9a-f]{64}$';
"#;

/// Version 4 (no table changes): structured items sealed as written in
/// the metadata envelope (as SQLite's version 8, see its `V8`); this build
/// reads both forms, an older one is told by the version.
const V4: &str = "";

/// Version 5: `sessiondb_append`, an append in one statement (issue 33
/// item 5). A write of the store sends it in autocommit, so an append to a
/// session this handle wrote last is one round trip instead of six (`BEGIN`,
/// row lock, last seq, entry, journal row, `COMMIT`). The caller sealed its
/// rows for the seqs it expected (`seen_last_seq` + 1, ...), having seen the
/// session's `updated_at` as `seen_updated_at`; under the session's row lock
/// the function checks both against the stored state and writes only when
/// they hold:
/// * `missing`: no such session (nothing written);
/// * `stale`: another writer changed the session (nothing written; the
///   caller writes again the usual way). `cur_updated_at`/`cur_last_seq`
///   are the stored values;
/// * `committed`: this very call was committed before (a retry after a lost
///   reply: its event id is in the journal; nothing written again);
/// * `fenced`: `fence` is set and `owner_id` no longer holds `owner_epoch`
///   (nothing written);
/// * `ok`: the entries (one element per entry in each `e_` array), the new
///   `updated_at` (when not NULL), the journal row (seq from the session's
///   `journal_heads` row, `aggregate_version` from `journal_version`:
///   `ev_seq`, `ev_version`) are written, in the caller's transaction.
///
/// Each statement of a VOLATILE PL/pgSQL function takes a new snapshot
/// (READ COMMITTED), so the last seq is read after the row lock was
/// granted: it sees every append committed before.
const V5: &str = r#"
CREATE OR REPLACE FUNCTION sessiondb_append(
  sid TEXT, seen_updated_at BIGINT, seen_last_seq BIGINT, new_updated_at BIGINT,
  e_seq BIGINT[], e_role TEXT[], e_format TEXT[], e_created_at BIGINT[], e_tokens BIGINT[], e_source_line BIGINT[],
  e_model TEXT[], e_provider TEXT[], e_content_bytes BIGINT[], e_kind TEXT[], e_call_keys TEXT[], e_content BYTEA[], e_meta BYTEA[],
  ev_id TEXT, ev_operation TEXT, ev_kind TEXT, ev_payload TEXT, ev_envelope TEXT, ev_created_at TEXT,
  fence BOOLEAN, owner_id TEXT, owner_epoch BIGINT,
  OUT status TEXT, OUT ev_seq BIGINT, OUT ev_version BIGINT, OUT cur_updated_at BIGINT, OUT cur_last_seq BIGINT)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  SELECT s.updated_at INTO cur_updated_at FROM sessions s WHERE s.session_id = sid FOR UPDATE;
  IF NOT FOUND THEN
    status := 'missing';
    RETURN;
  END IF;
  SELECT COALESCE(MAX(t.seq), 0) INTO cur_last_seq FROM transcript_entries t WHERE t.session_id = sid;
  IF cur_last_seq <> seen_last_seq OR cur_updated_at <> seen_updated_at THEN
    IF EXISTS (SELECT 1 FROM journal j WHERE j.session_id = sid AND j.event_id = ev_id) THEN
      status := 'committed';
    ELSE
      status := 'stale';
    END IF;
    RETURN;
  END IF;
  IF fence AND NOT EXISTS (SELECT 1 FROM owners o WHERE o.session_id = '' AND o.instance_id = owner_id AND o.epoch = owner_epoch) THEN
    status := 'fenced';
    RETURN;
  END IF;
  INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                  content_bytes, kind, call_keys, content_enc, meta_enc)
    SELECT sid, u.* FROM unnest(e_seq, e_role, e_format, e_created_at, e_tokens, e_source_line, e_model, e_provider,
                                e_content_bytes, e_kind, e_call_keys, e_content, e_meta) AS u;
  IF new_updated_at IS NOT NULL THEN
    UPDATE sessions SET updated_at = new_updated_at WHERE session_id = sid;
  END IF;
  INSERT INTO journal_heads AS h (session_id, last_seq) VALUES (sid, 1)
    ON CONFLICT (session_id) DO UPDATE SET last_seq = h.last_seq + 1 RETURNING h.last_seq INTO ev_seq;
  INSERT INTO journal (session_id, seq, event_id, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
    VALUES (sid, ev_seq, ev_id, nextval('journal_version'), ev_operation, ev_kind, ev_payload, ev_envelope, ev_created_at)
    RETURNING aggregate_version INTO ev_version;
  status := 'ok';
END
$fn$;
"#;

/// Version 6: token counts on the write path (issue 33 item 7), as SQLite's
/// schema version 9: `transcript_entries.counted_tokens` (the content's
/// token count and the encoding it was counted with, packed as
/// `tokens × 4 + code`; NULL: not counted), and `sessiondb_append` (see
/// [`V5`]) takes it as a last array argument, `e_counted_tokens`. The
/// function of version 5 is dropped (another argument list would be an
/// overload beside it). `IF NOT EXISTS` / `IF EXISTS`: a database whose
/// version was rewound by hand keeps the column.
const V6: &str = r#"
ALTER TABLE transcript_entries ADD COLUMN IF NOT EXISTS counted_tokens BIGINT;
DROP FUNCTION IF EXISTS sessiondb_append(TEXT, BIGINT, BIGINT, BIGINT, BIGINT[], TEXT[], TEXT[], BIGINT[], BIGINT[], BIGINT[], TEXT[], TEXT[], BIGINT[], TEXT[], TEXT[], BYTEA[], BYTEA[],
  TEXT, TEXT, TEXT, TEXT, TEXT, TEXT, BOOLEAN, TEXT, BIGINT);
CREATE OR REPLACE FUNCTION sessiondb_append(
  sid TEXT, seen_updated_at BIGINT, seen_last_seq BIGINT, new_updated_at BIGINT,
  e_seq BIGINT[], e_role TEXT[], e_format TEXT[], e_created_at BIGINT[], e_tokens BIGINT[], e_source_line BIGINT[],
  e_model TEXT[], e_provider TEXT[], e_content_bytes BIGINT[], e_kind TEXT[], e_call_keys TEXT[], e_content BYTEA[], e_meta BYTEA[],
  ev_id TEXT, ev_operation TEXT, ev_kind TEXT, ev_payload TEXT, ev_envelope TEXT, ev_created_at TEXT,
  fence BOOLEAN, owner_id TEXT, owner_epoch BIGINT, e_counted_tokens BIGINT[],
  OUT status TEXT, OUT ev_seq BIGINT, OUT ev_version BIGINT, OUT cur_updated_at BIGINT, OUT cur_last_seq BIGINT)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  SELECT s.updated_at INTO cur_updated_at FROM sessions s WHERE s.session_id = sid FOR UPDATE;
  IF NOT FOUND THEN
    status := 'missing';
    RETURN;
  END IF;
  SELECT COALESCE(MAX(t.seq), 0) INTO cur_last_seq FROM transcript_entries t WHERE t.session_id = sid;
  IF cur_last_seq <> seen_last_seq OR cur_updated_at <> seen_updated_at THEN
    IF EXISTS (SELECT 1 FROM journal j WHERE j.session_id = sid AND j.event_id = ev_id) THEN
      status := 'committed';
    ELSE
      status := 'stale';
    END IF;
    RETURN;
  END IF;
  IF fence AND NOT EXISTS (SELECT 1 FROM owners o WHERE o.session_id = '' AND o.instance_id = owner_id AND o.epoch = owner_epoch) THEN
    status := 'fenced';
    RETURN;
  END IF;
  INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                  content_bytes, kind, call_keys, content_enc, meta_enc, counted_tokens)
    SELECT sid, u.* FROM unnest(e_seq, e_role, e_format, e_created_at, e_tokens, e_source_line, e_model, e_provider,
                                e_content_bytes, e_kind, e_call_keys, e_content, e_meta, e_counted_tokens) AS u;
  IF new_updated_at IS NOT NULL THEN
    UPDATE sessions SET updated_at = new_updated_at WHERE session_id = sid;
  END IF;
  INSERT INTO journal_heads AS h (session_id, last_seq) VALUES (sid, 1)
    ON CONFLICT (session_id) DO UPDATE SET last_seq = h.last_seq + 1 RETURNING h.last_seq INTO ev_seq;
  INSERT INTO journal (session_id, seq, event_id, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
    VALUES (sid, ev_seq, ev_id, nextval('journal_version'), ev_operation, ev_kind, ev_payload, ev_envelope, ev_created_at)
    RETURNING aggregate_version INTO ev_version;
  status := 'ok';
END
$fn$;
"#;

/// Version 7: `sessiondb_append` (see [`V5`], [`V6`]; same arguments, same
/// answers, same statements otherwise) inserts an append of one entry, the
/// usual case, with `INSERT .. VALUES` of the arrays' first elements instead
/// of `INSERT .. SELECT .. FROM unnest(..)` of 14 arrays (issue 33 item 5,
/// the server's CPU per append: in `scripts/bench-postgres-breakdown.sh`
/// the statement took 17 us instead of 48 us and the function 167 us
/// instead of 229 us per call; docs/postgres.md). Several entries still go
/// through `unnest`.
const V7: &str = r#"
CREATE OR REPLACE FUNCTION sessiondb_append(
  sid TEXT, seen_updated_at BIGINT, seen_last_seq BIGINT, new_updated_at BIGINT,
  e_seq BIGINT[], e_role TEXT[], e_format TEXT[], e_created_at BIGINT[], e_tokens BIGINT[], e_source_line BIGINT[],
  e_model TEXT[], e_provider TEXT[], e_content_bytes BIGINT[], e_kind TEXT[], e_call_keys TEXT[], e_content BYTEA[], e_meta BYTEA[],
  ev_id TEXT, ev_operation TEXT, ev_kind TEXT, ev_payload TEXT, ev_envelope TEXT, ev_created_at TEXT,
  fence BOOLEAN, owner_id TEXT, owner_epoch BIGINT, e_counted_tokens BIGINT[],
  OUT status TEXT, OUT ev_seq BIGINT, OUT ev_version BIGINT, OUT cur_updated_at BIGINT, OUT cur_last_seq BIGINT)
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
  SELECT s.updated_at INTO cur_updated_at FROM sessions s WHERE s.session_id = sid FOR UPDATE;
  IF NOT FOUND THEN
    status := 'missing';
    RETURN;
  END IF;
  SELECT COALESCE(MAX(t.seq), 0) INTO cur_last_seq FROM transcript_entries t WHERE t.session_id = sid;
  IF cur_last_seq <> seen_last_seq OR cur_updated_at <> seen_updated_at THEN
    IF EXISTS (SELECT 1 FROM journal j WHERE j.session_id = sid AND j.event_id = ev_id) THEN
      status := 'committed';
    ELSE
      status := 'stale';
    END IF;
    RETURN;
  END IF;
  IF fence AND NOT EXISTS (SELECT 1 FROM owners o WHERE o.session_id = '' AND o.instance_id = owner_id AND o.epoch = owner_epoch) THEN
    status := 'fenced';
    RETURN;
  END IF;
  IF cardinality(e_seq) = 1 THEN
    INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                    content_bytes, kind, call_keys, content_enc, meta_enc, counted_tokens)
      VALUES (sid, e_seq[1], e_role[1], e_format[1], e_created_at[1], e_tokens[1], e_source_line[1], e_model[1], e_provider[1],
              e_content_bytes[1], e_kind[1], e_call_keys[1], e_content[1], e_meta[1], e_counted_tokens[1]);
  ELSE
    INSERT INTO transcript_entries (session_id, seq, role, format, created_at, tokens, source_line, model, provider,
                                    content_bytes, kind, call_keys, content_enc, meta_enc, counted_tokens)
      SELECT sid, u.* FROM unnest(e_seq, e_role, e_format, e_created_at, e_tokens, e_source_line, e_model, e_provider,
                                  e_content_bytes, e_kind, e_call_keys, e_content, e_meta, e_counted_tokens) AS u;
  END IF;
  IF new_updated_at IS NOT NULL THEN
    UPDATE sessions SET updated_at = new_updated_at WHERE session_id = sid;
  END IF;
  INSERT INTO journal_heads AS h (session_id, last_seq) VALUES (sid, 1)
    ON CONFLICT (session_id) DO UPDATE SET last_seq = h.last_seq + 1 RETURNING h.last_seq INTO ev_seq;
  INSERT INTO journal (session_id, seq, event_id, aggregate_version, operation_id, payload_kind, payload_json, envelope_json, created_at)
    VALUES (sid, ev_seq, ev_id, nextval('journal_version'), ev_operation, ev_kind, ev_payload, ev_envelope, ev_created_at)
    RETURNING aggregate_version INTO ev_version;
  status := 'ok';
END
$fn$;
"#;

/// One numbered migration.
pub struct Migration {
    /// The version this migration produces.
    pub version: i32,
    /// What it does.
    pub description: &'static str,
    /// The SQL (several statements).
    pub sql: &'static str,
}

/// Every migration, in order. Append only; never edit a released one.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "sessions, transcript, tokens, context extensions, journal and its heads, open operations, owners",
        sql: V1,
    },
    Migration { version: 2, description: "aggregate_version from the sequence journal_version; no store-wide writer lock", sql: V2 },
    Migration { version: 3, description: "import record identities in a table of their own", sql: V3 },
    Migration { version: 4, description: "structured items sealed as written in the metadata envelope", sql: V4 },
    Migration { version: 5, description: "sessiondb_append: an append in one statement", sql: V5 },
    Migration { version: 6, description: "token counts of entries taken at write time, with their encoding", sql: V6 },
    Migration { version: 7, description: "sessiondb_append inserts one entry without unnest", sql: V7 },
];

/// The schema version this build writes.
pub const LATEST_VERSION: i32 = MIGRATIONS[MIGRATIONS.len() - 1].version;

/// Does `table` exist in the current schema? Read from `pg_class` with the
/// statement's snapshot: `to_regclass` may answer from a relation cache that
/// taking an advisory lock does not refresh, and so miss a table another
/// client's migration just committed.
fn table_exists(c: &mut impl postgres::GenericClient, table: &str) -> Result<bool> {
    Ok(c.query_one(
        "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                        WHERE c.relname = $1 AND n.nspname = current_schema())",
        &[&table],
    )?
    .get(0))
}

/// The applied version (0: none), read inside `tx`.
pub(super) fn current_version(c: &mut impl postgres::GenericClient) -> Result<i32> {
    if !table_exists(c, "sessiondb_migrations")? {
        return Ok(0);
    }
    let v: Option<i32> = c.query_one("SELECT MAX(version) FROM sessiondb_migrations WHERE session_id = ''", &[])?.get(0);
    Ok(v.unwrap_or(0))
}

/// Apply every migration above the current version, each in its own
/// transaction under the migration lock. Returns the version reached.
///
/// Errors: `Corrupt` if the database is newer than this build, or holds a
/// `sessions` table but no migration record (another program's database).
pub(super) fn migrate(client: &mut Client) -> Result<i32> {
    let mut version = current_version(client)?;
    if version > LATEST_VERSION {
        return Err(Error::corrupt(format!(
            "schema version {version} is newer than this build supports ({LATEST_VERSION}); upgrade sessiondb"
        )));
    }
    let start = version;
    for m in MIGRATIONS.iter().filter(|m| m.version > start) {
        let mut tx = client.transaction()?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
        // Another client may have migrated while we waited for the lock.
        let now = current_version(&mut tx)?;
        if now >= m.version {
            version = now;
            tx.commit()?;
            continue;
        }
        if now == 0 {
            if table_exists(&mut tx, "sessions")? {
                return Err(Error::corrupt(
                    "this PostgreSQL database has a `sessions` table but no sessiondb migration record: it belongs to another program and was left untouched",
                ));
            }
            tx.batch_execute(MIGRATIONS_TABLE)?;
        }
        tx.batch_execute(m.sql)?;
        tx.execute("INSERT INTO sessiondb_migrations (session_id, version, description) VALUES ('', $1, $2)", &[&m.version, &m.description])?;
        tx.commit()?;
        version = m.version;
    }
    Ok(version)
}

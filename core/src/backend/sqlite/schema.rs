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
//! indexes. Every `*_enc` column is an `EncryptedField` envelope: the JSON
//! text in the journal (the seed's DDL) and in `meta`, the binary form (a
//! BLOB) in the tables we own from version 4 on.

use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, Transaction};

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

/// Version 4: storage that fits real histories (issue 12, DESIGN.md
/// "On-disk contract").
///
/// * Envelope columns of the tables we own hold the binary form (a BLOB:
///   `v` ‖ nonce ‖ ciphertext ‖ tag), converted from the JSON text without
///   the key ([`convert_to_v4`]); `v` = 1 rows stay `v` = 1.
/// * Entry bodies (content and source metadata envelopes) move to a rowid
///   table, `entry_bodies`, whose rows sit inline in its leaf pages up to a
///   page minus 35 bytes and, when longer, spill only full overflow pages
///   (SQLite keeps the remainder local). In the `WITHOUT ROWID` table of
///   versions 1-3 a record over about a quarter of a page (2,030 bytes of
///   an 8 KiB page) spilled into an overflow page of its own, mostly empty:
///   a 200 MB import of 2.8 KB turns took 926 MB.
/// * `retractions` lists retracted entries (seq per session), which every
///   read leaves out; no row is deleted or rewritten.
/// * `transcript_entries` keeps the plaintext columns and gains what context
///   planning reads instead of decrypting content: `content_bytes` (UTF-8
///   bytes of the content), `kind` (`message`, `tool_call`, `tool_result`,
///   `system`) and `call_keys` (space-separated keyed hashes of the tool-call
///   ids that link a call to its result; `crypto::keyed_hash`, domain
///   `call-id`, 16 hex digits). Rows converted from version 3 carry
///   `content_bytes` when their envelope is `v` = 1 (ciphertext length =
///   plaintext length) and NULL `kind`/`call_keys` (read from the content
///   when needed).
const V4: &str = "
CREATE TABLE entry_bodies (
  id          INTEGER PRIMARY KEY,
  content_enc BLOB NOT NULL,
  meta_enc    BLOB
);
CREATE TABLE transcript_entries_v4 (
  session_id    TEXT NOT NULL,
  seq           INTEGER NOT NULL,
  role          TEXT NOT NULL,
  format        TEXT NOT NULL DEFAULT 'text',
  created_at    INTEGER NOT NULL,
  tokens        INTEGER,
  source_line   INTEGER,
  model         TEXT,
  provider      TEXT,
  content_bytes INTEGER,
  kind          TEXT,
  call_keys     TEXT,
  body_id       INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
-- Retracted entries (DESIGN.md \"Operations and recovery\": retraction): the
-- row stays as written; reads, counts, export, fork and the active context
-- leave these seqs out. One EntryRetracted journal event per row.
CREATE TABLE retractions (
  session_id TEXT NOT NULL,
  seq        INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
";

/// Version 5: the import's source-record identities (issue 14 item 2) move
/// out of `meta` into a table of their own, `import_records`, 16 bytes of
/// HMAC per record keyed by session ([`crate::backend::RecordId`]).
///
/// In version 4 each record was a `meta` row keyed
/// `import-rec:<session id>:<64 hex digits>` with the value `1`: a rowid
/// table with a TEXT primary key stores that key twice (table and index),
/// about 250 bytes a record, which raised a 200 MB import's database from
/// 0.58x to 0.89x of its source ([`convert_to_v5`] moves the rows; their
/// first 32 hex digits are the new id, so records stay recognised).
const V5: &str = "
CREATE TABLE import_records (
  session_id TEXT NOT NULL,
  record_id  BLOB NOT NULL,
  PRIMARY KEY (session_id, record_id)
) WITHOUT ROWID;
";

/// The `meta` key prefix of version 4's import records.
const V4_RECORD_PREFIX: &str = "import-rec:";

/// The row conversion of version 5 (see [`V5`]): every
/// `import-rec:<sid>:<hex>` row of `meta` becomes an `import_records` row
/// `(sid, first 16 bytes of hex)`, then leaves `meta`. A key that does not
/// parse (no `:` after the session id, not 64 hex digits) stays in `meta`.
fn convert_to_v5(tx: &Transaction<'_>) -> Result<()> {
    let mut moved = Vec::new();
    {
        let mut read = tx.prepare("SELECT key FROM meta WHERE substr(key, 1, length(?1)) = ?1")?;
        let mut ins = tx.prepare("INSERT OR IGNORE INTO import_records (session_id, record_id) VALUES (?1, ?2)")?;
        let mut rows = read.query([V4_RECORD_PREFIX])?;
        while let Some(r) = rows.next()? {
            let key: String = r.get(0)?;
            let Some((sid, hex)) = key[V4_RECORD_PREFIX.len()..].rsplit_once(':') else { continue };
            let Some(id) = record_id_from_hex(hex) else { continue };
            ins.execute(params![sid, &id[..]])?;
            moved.push(key);
        }
    }
    let mut del = tx.prepare("DELETE FROM meta WHERE key = ?1")?;
    for k in moved {
        del.execute([k])?;
    }
    Ok(())
}

/// The [`crate::backend::RecordId`] of a version-4 key's 64 hex digits.
fn record_id_from_hex(hex: &str) -> Option<crate::backend::RecordId> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut id = [0u8; 16];
    for (i, b) in id.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(id)
}

/// Version 6: the import's record identities in sets (issue 12,
/// "database + WAL over source").
///
/// Version 5 kept one `import_records` row per record: the 36-character
/// session id, 16 bytes of id and the cell overhead, about 58 bytes a record
/// (3.2 MB of a 50 MB Codex rollout's 36.7 MB database). From version 6,
/// `import_record_sets` holds one row per import batch with its ids
/// concatenated (16 bytes a record; a long BLOB fills whole overflow pages).
/// `import_records` stays readable as a view of the same
/// `(session_id, record_id)` rows. [`convert_to_v6`] moves the rows without
/// the key.
///
/// `token_ledger` becomes a `WITHOUT ROWID` table keyed
/// `(session_id, id)`, so its separate index on `session_id` (the session id
/// and rowid again per row: 0.5 MB of that Codex database) goes. Row ids are
/// kept; a new row's id is one more than its session's largest (they were
/// allocated across all sessions before, so they stay unique per session).
///
/// Measured and not taken (`scripts/bench-storage.py`, 50 MB files): small
/// entry bodies inline in the `WITHOUT ROWID` entry row would save one WAL
/// frame per small append (4 instead of 5), but an index b-tree's interior
/// cells carry whole rows, so the entry tree's interior pages grew to
/// 2.8 MB, and `entry_bodies` left with only large bodies packed worse:
/// Codex 0.63x, Claude 0.72x (from 0.64x), thClaws 0.66x (from 0.60x).
const V6: &str = "
CREATE TABLE import_record_sets (
  session_id TEXT NOT NULL,
  n          INTEGER NOT NULL,
  ids        BLOB NOT NULL,
  PRIMARY KEY (session_id, n)
) WITHOUT ROWID;
CREATE TABLE token_ledger_v6 (
  session_id TEXT NOT NULL,
  id         INTEGER NOT NULL,
  model      TEXT,
  provider   TEXT,
  input      INTEGER NOT NULL,
  output     INTEGER NOT NULL,
  cached     INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
INSERT INTO token_ledger_v6 (session_id, id, model, provider, input, output, cached, created_at)
  SELECT session_id, id, model, provider, input, output, cached, created_at FROM token_ledger;
DROP TABLE token_ledger;
ALTER TABLE token_ledger_v6 RENAME TO token_ledger;
";

/// Version 7: entry bodies written together share one `entry_bodies` row
/// (issue 12, "database + WAL over source"; "no mostly empty overflow
/// pages").
///
/// In versions 4-6 every entry had a body row of its own. Body rows are
/// appended at the end of the table's b-tree, and a leaf page is closed
/// when the next row does not fit: with bodies of 0.3-1.5 KB (typical turns
/// after zstd) a 4 KiB leaf kept about 500 bytes unused (Codex 200 MB:
/// 13.6 MB), a 1 KiB leaf about 270 (Claude Code: 20.9 MB), and with
/// compression off a 3 KB tool output went one to a 4 KiB page.
///
/// From version 7, the entries of one `insert_entries` call (an import
/// batch, `append_entries`, a copy chunk) are written as sets: one
/// `entry_bodies` row per run of consecutive seqs of at most
/// [`BODY_SET_BYTES`] bytes of envelopes. A set row's `set_enc` holds each
/// member's content envelope followed by its metadata envelope (if any), in
/// seq order; its `ends` is the JSON text of an array: the first member's
/// seq, then for each member the end offset of its content envelope and of
/// its metadata envelope (equal: none); its `content_enc` is empty (a zero-length
/// BLOB, never an envelope) and `meta_enc` NULL. Each member's `body_id`
/// is the set row's id. A set spills into whole overflow pages and leaves
/// one partly filled local part per set instead of one per entry.
///
/// The entry of a single append, and an entry whose envelopes are over a
/// quarter of a set, keep a body row of their own, as every entry of an
/// older database does: nothing is converted and no row is rewritten.
/// `transcript_entries` is unchanged: a read selects the same columns, and
/// a zero-length content is the sign to slice the entry from its set (read
/// once per set). (A column more in that `WITHOUT ROWID` table, 14 instead
/// of 13, made SQLite compare its keys on a slower path: 1.3% more
/// instructions per single append, 2.1% per read, measured; a negative
/// `body_id` with a `LEFT JOIN` cost 0.6% and 1.1%.) The `entry_envelopes`
/// view gives each entry's envelopes, and the body row and offset they are
/// at, either way.
///
/// [`convert_to_v7`] adds the two columns (those missing: a database
/// rewound to an older version by hand keeps them) and the view.
const V7: &str = "";

/// The view of version 7 (see [`V7`]).
const V7_ENVELOPES_VIEW: &str = "
CREATE VIEW IF NOT EXISTS entry_envelopes (session_id, seq, body_row, body_off, content_enc, meta_enc) AS
  SELECT session_id, seq, body_row, body_off,
         CASE WHEN body_off IS NULL THEN content_enc ELSE substr(set_enc, body_off + 1, c_end - body_off) END,
         CASE WHEN body_off IS NULL THEN meta_enc WHEN m_end > c_end THEN substr(set_enc, c_end + 1, m_end - c_end) END
  FROM (SELECT session_id, seq, body_row, content_enc, meta_enc, set_enc,
               CASE WHEN k IS NULL THEN NULL WHEN k = 0 THEN 0 ELSE json_extract(ends, '$[' || (2 * k) || ']') END AS body_off,
               CASE WHEN k IS NOT NULL THEN json_extract(ends, '$[' || (2 * k + 1) || ']') END AS c_end,
               CASE WHEN k IS NOT NULL THEN json_extract(ends, '$[' || (2 * k + 2) || ']') END AS m_end
        FROM (SELECT t.session_id, t.seq, b.id AS body_row, b.content_enc, b.meta_enc, b.set_enc, b.ends,
                     CASE WHEN b.ends IS NOT NULL THEN t.seq - json_extract(b.ends, '$[0]') END AS k
              FROM transcript_entries t JOIN entry_bodies b ON b.id = t.body_id));
";
/// The schema change of version 7 (see [`V7`]): `entry_bodies` gains `ends`
/// and `set_enc` unless it has them; the `entry_envelopes` view. No row changes.
fn convert_to_v7(tx: &Transaction<'_>) -> Result<()> {
    let has = |col: &str| -> Result<bool> {
        Ok(tx.query_row("SELECT COUNT(*) FROM pragma_table_info('entry_bodies') WHERE name = ?1", [col], |r| r.get::<_, i64>(0))? > 0)
    };
    if !has("ends")? {
        tx.execute_batch("ALTER TABLE entry_bodies ADD COLUMN ends TEXT;")?;
    }
    if !has("set_enc")? {
        tx.execute_batch("ALTER TABLE entry_bodies ADD COLUMN set_enc BLOB;")?;
    }
    tx.execute_batch(V7_ENVELOPES_VIEW)?;
    Ok(())
}

/// Envelope bytes (content and metadata) of one `entry_bodies` set row at
/// most (schema version 7, see [`V7`]): 64 KiB, so a read of one entry of
/// a set reads at most this much, and a set's partly filled local part is
/// a small share of it. An entry whose envelopes are over a quarter of
/// this gets a body row of its own (it fills whole overflow pages anyway).
pub(crate) const BODY_SET_BYTES: usize = 64 * 1024;


/// The view that keeps `import_records` readable as one row per record
/// from version 6 on (each 16-byte slice of a set's `ids`).
const V6_RECORDS_VIEW: &str = "
CREATE VIEW import_records (session_id, record_id) AS
  WITH RECURSIVE r (session_id, ids, k) AS (
    SELECT session_id, ids, 0 FROM import_record_sets
    UNION ALL SELECT session_id, ids, k + 16 FROM r WHERE k + 16 < length(ids))
  SELECT session_id, substr(ids, k + 1, 16) FROM r;
";

/// Record ids per `import_record_sets` row written by the migration: an
/// 8 KiB BLOB (whole overflow pages, the rest local), about what one import
/// batch of 512 entries writes. The view reads a set once per id, so its
/// cost grows with the set's size.
pub(crate) const RECORDS_PER_SET: usize = 512;

/// The row conversion of version 6 (see [`V6`]): each session's
/// `import_records` rows (in byte order) become `import_record_sets` rows
/// of up to [`RECORDS_PER_SET`] ids, numbered from 1 (a row whose id is not
/// 16 bytes is left out); then the table gives way to the view of the same
/// name.
fn convert_to_v6(tx: &Transaction<'_>) -> Result<()> {
    {
        let mut read = tx.prepare("SELECT session_id, record_id FROM import_records ORDER BY session_id, record_id")?;
        let mut ins = tx.prepare("INSERT INTO import_record_sets (session_id, n, ids) VALUES (?1, ?2, ?3)")?;
        let mut rows = read.query([])?;
        let mut cur: Option<(String, i64, Vec<u8>)> = None;
        while let Some(r) = rows.next()? {
            let sid: String = r.get(0)?;
            let id: Vec<u8> = match r.get_ref(1)? {
                ValueRef::Blob(b) if b.len() == 16 => b.to_vec(),
                // A damaged row (not 16 bytes) cannot go into a set (it would
                // shift every later id); it identified nothing, so it is left
                // out rather than making the database fail to open.
                _ => continue,
            };
            match cur.as_mut() {
                Some((s, n, ids)) if *s == sid => {
                    if ids.len() == RECORDS_PER_SET * 16 {
                        ins.execute(params![&*s, *n, &ids[..]])?;
                        *n += 1;
                        ids.clear();
                    }
                    ids.extend_from_slice(&id);
                }
                _ => {
                    if let Some((s, n, ids)) = cur.take() {
                        ins.execute(params![s, n, ids])?;
                    }
                    cur = Some((sid, 1, id));
                }
            }
        }
        if let Some((s, n, ids)) = cur {
            ins.execute(params![s, n, ids])?;
        }
    }
    tx.execute_batch("DROP TABLE import_records;")?;
    tx.execute_batch(V6_RECORDS_VIEW)?;
    Ok(())
}

/// Version 8 (no table changes): an entry's structured item
/// (`EntryMeta::item`) is sealed in its metadata envelope as written, after
/// U+0001, the JSON text of `extra` and a line feed, instead of inside the
/// JSON array `[extra, "item as a JSON string"]`, so a write does not
/// escape it and a read (`get_entry_items`) does not parse and unescape it.
/// This build reads both forms; a build before version 8 would refuse the
/// new one as `Corrupt`, so it is told by the version instead ("newer than
/// this build"). Nothing is converted.
const V8: &str = "";

/// Version 9: token counts on the write path (issue 33 item 7).
/// `transcript_entries` gains `counted_tokens`: the content's token count
/// with the session model's tokenizer, taken where the content was in hand
/// (an append, the import's preparing stage), so the first `context` of a
/// large session reads stored counts instead of decrypting and tokenizing
/// every entry. One INTEGER packs the count and the encoding it was counted
/// with (`tokens × 4 + code`, 1 = `o200k_base`, 2 = `cl100k_base`; see
/// `context::tokens::pack_counted`): a second column in this `WITHOUT ROWID`
/// table costs every append (see [`V7`]), and a count taken with another
/// encoding than the model in force (the session's model changed) must be
/// told apart and not used. NULL: nothing was counted (rows written before
/// version 9, a session without a tokenizer, an entry with a host count);
/// `context` then counts as before. Existing rows are not converted (that
/// needs the key and the tokenizer). [`convert_to_v9`] adds the column
/// unless it is there (a database rewound to an older version by hand keeps
/// it, as with [`V7`]).
const V9: &str = "";

/// The schema change of version 9 (see [`V9`]).
fn convert_to_v9(tx: &Transaction<'_>) -> Result<()> {
    let has: i64 = tx.query_row("SELECT COUNT(*) FROM pragma_table_info('transcript_entries') WHERE name = 'counted_tokens'", [], |r| r.get(0))?;
    if has == 0 {
        tx.execute_batch("ALTER TABLE transcript_entries ADD COLUMN counted_tokens INTEGER;")?;
    }
    Ok(())
}

/// One numbered migration.
pub struct Migration {
    /// The version this migration produces.
    pub version: u32,
    /// What it does, for `doctor` and logs.
    pub description: &'static str,
    /// The SQL (several statements).
    pub sql: &'static str,
    /// Row conversion run after `sql`, in the same transaction.
    pub convert: Option<fn(&Transaction<'_>) -> Result<()>>,
}

/// An envelope column value in the binary form: JSON text that is an
/// envelope is converted (no key needed); anything else (a damaged value,
/// already binary) is kept as it is, so the store still reports it.
fn to_binary_value(v: ValueRef<'_>) -> rusqlite::types::Value {
    use rusqlite::types::Value;
    match v {
        ValueRef::Text(t) => match std::str::from_utf8(t).ok().and_then(|s| crate::crypto::EncryptedField::from_json(s).ok()) {
            Some(f) => match f.to_binary() {
                Ok(b) => Value::Blob(b),
                Err(_) => Value::Text(String::from_utf8_lossy(t).into_owned()),
            },
            None => Value::Text(String::from_utf8_lossy(t).into_owned()),
        },
        other => other.into(),
    }
}

/// Plaintext bytes of a `v` = 1 envelope (its ciphertext length).
fn v1_plaintext_len(v: ValueRef<'_>) -> Option<i64> {
    let t = v.as_str().ok()?;
    let f = crate::crypto::EncryptedField::from_json(t).ok()?;
    (f.v == crate::crypto::ENVELOPE_VERSION).then(|| f.to_binary().ok().map(|b| (b.len() - crate::crypto::BINARY_OVERHEAD) as i64))?
}

/// The row conversion of version 4 (see [`V4`]).
fn convert_to_v4(tx: &Transaction<'_>) -> Result<()> {
    {
        let mut read = tx.prepare(
            "SELECT session_id, seq, role, format, created_at, tokens, source_line, model, provider, content_enc, meta_enc
             FROM transcript_entries ORDER BY session_id, seq",
        )?;
        let mut body = tx.prepare("INSERT INTO entry_bodies (content_enc, meta_enc) VALUES (?1, ?2)")?;
        let mut entry = tx.prepare(
            "INSERT INTO transcript_entries_v4 (session_id, seq, role, format, created_at, tokens, source_line, model, provider, content_bytes, body_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?;
        let mut rows = read.query([])?;
        while let Some(r) = rows.next()? {
            let content = r.get_ref(9)?;
            body.execute(params![to_binary_value(content), to_binary_value(r.get_ref(10)?)])?;
            let id = tx.last_insert_rowid();
            let v = |i: usize| -> Result<rusqlite::types::Value> { Ok(r.get_ref(i)?.into()) };
            entry.execute(params![v(0)?, v(1)?, v(2)?, v(3)?, v(4)?, v(5)?, v(6)?, v(7)?, v(8)?, v1_plaintext_len(content), id])?;
        }
    }
    tx.execute_batch("DROP TABLE transcript_entries; ALTER TABLE transcript_entries_v4 RENAME TO transcript_entries;")?;
    // The other envelope columns, converted in place.
    for col in ["name_enc", "workspace_enc"] {
        let mut read = tx.prepare(&format!("SELECT id, {col} FROM sessions WHERE typeof({col}) = 'text'"))?;
        let mut write = tx.prepare(&format!("UPDATE sessions SET {col} = ?2 WHERE id = ?1"))?;
        let mut rows = read.query([])?;
        while let Some(r) = rows.next()? {
            write.execute(params![rusqlite::types::Value::from(r.get_ref(0)?), to_binary_value(r.get_ref(1)?)])?;
        }
    }
    let mut read = tx.prepare("SELECT session_id, n, body_enc FROM context_extensions WHERE typeof(body_enc) = 'text'")?;
    let mut write = tx.prepare("UPDATE context_extensions SET body_enc = ?3 WHERE session_id = ?1 AND n = ?2")?;
    let mut rows = read.query([])?;
    while let Some(r) = rows.next()? {
        use rusqlite::types::Value;
        write.execute(params![Value::from(r.get_ref(0)?), Value::from(r.get_ref(1)?), to_binary_value(r.get_ref(2)?)])?;
    }
    Ok(())
}

/// Every migration, in order. Append only; never edit a released one.
pub const MIGRATIONS: &[Migration] = &[
    Migration { version: 1, description: "sessions, transcript, tokens, context extensions, journal", sql: V1, convert: None },
    Migration { version: 2, description: "open operations, journal indexes, fork origin, entry tokens", sql: V2, convert: None },
    Migration { version: 3, description: "per-entry model, provider and encrypted source metadata of transcript entries", sql: V3, convert: None },
    Migration {
        version: 4,
        description: "binary envelopes, entry bodies in a rowid table, stored content lengths, kinds and call keys",
        sql: V4,
        convert: Some(convert_to_v4),
    },
    Migration { version: 5, description: "import record identities in a table of their own", sql: V5, convert: Some(convert_to_v5) },
    Migration {
        version: 6,
        description: "import record identities in sets of concatenated ids, token rows keyed by session",
        sql: V6,
        convert: Some(convert_to_v6),
    },
    Migration { version: 7, description: "entry bodies written together share one body row (sets)", sql: V7, convert: Some(convert_to_v7) },
    Migration { version: 8, description: "structured items sealed as written in the metadata envelope", sql: V8, convert: None },
    Migration { version: 9, description: "token counts of entries taken at write time, with their encoding", sql: V9, convert: Some(convert_to_v9) },
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
        if let Some(convert) = m.convert {
            convert(&tx)?;
        }
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

//! Import of an OpenAI Agents SDK `SQLiteSession` database (issue 29 item 3).
//!
//! Source of the format: openai-agents (Python) 0.24.0,
//! `agents/memory/sqlite_session.py`. With its default table names the
//! database holds
//! - `agent_sessions(session_id TEXT PRIMARY KEY, created_at TIMESTAMP
//!   DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`;
//! - `agent_messages(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT,
//!   message_data TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`,
//!   `message_data` one item's `json.dumps`; `get_items()` is every row of
//!   the session `ORDER BY id ASC`, each `json.loads`ed, rows that do not
//!   parse left out.
//!
//! What goes where: every SDK session (a `session_id` of either table)
//! becomes the store session of the same id ([`super::sanitize_id`]: an id
//! with whitespace, a control character or `:` has them as `_`), created
//! at the SDK session's `created_at`; every message, in `id` order, one
//! entry whose [`EntryMeta::item`] is the `message_data` text byte-exact,
//! whose role and content are the Python adapter's `item_role` /
//! `item_text` ([`crate::portable::agents_item`]) and whose time is the
//! row's `created_at` (`YYYY-MM-DD HH:MM:SS`, UTC). So
//! `SessionDBSession(id).get_items()` equals the SDK session's.
//!
//! Idempotence: each message stored gets an `import_records` row of the
//! identity `agents-sdk\0<SDK session_id>\0<message id>` (see
//! [`super::identity`]); a message whose identity the session holds is not
//! stored again, so importing twice adds nothing and a grown database adds
//! only its new messages; an import that adds nothing (and creates no
//! session) is [`ImportStatus::UpToDate`]. A `*_call` item counts as a
//! tool call, a `*_output` item as a tool result. Batches of up to `BATCH_ENTRIES` entries, each
//! one transaction with its records.
//!
//! Bad input: a row whose `message_data` is not JSON (or not an object) is
//! left out and listed in [`ReadReport::skipped`] (`line` = the message's
//! `id`, `offset` 0). The source is opened read-only and never modified.
//! Not read: the `AdvancedSQLiteSession` tables (`message_structure`,
//! `turn_usage`): branches and usage are not imported; only the messages
//! are (they are in `agent_messages` there too). Custom table names
//! (`SQLiteSession(sessions_table=..., messages_table=...)`) are not found.

use super::identity::record_id;
use super::{FileImport, ImportStatus, SessionImport, ALREADY_STORED, BATCH_ENTRIES};
use crate::backend::RecordId;
use crate::portable::agents_item::agents_item_entry;
use crate::portable::model::{ReadReport, SkipReason, SkippedLine, SourceFormat};
use crate::store::{EntryMeta, NewEntry, NewSession, SessionStore};
use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::io::Read;
use std::path::Path;

/// The first 16 bytes of every SQLite 3 database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// True when the file at `path` begins with [`SQLITE_MAGIC`].
/// Errors: [`Error::Io`] opening or reading it.
pub fn is_sqlite_file(path: &Path) -> Result<bool> {
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut head = Vec::with_capacity(16);
    f.take(16).read_to_end(&mut head).map_err(|e| Error::io("reading a session file", e))?;
    Ok(head == SQLITE_MAGIC)
}

fn db_err(e: rusqlite::Error) -> Error {
    Error::Database(format!("reading an Agents SDK database: {e}"))
}

/// Open the SQLite file read-only. Errors: `Database`.
fn open_source(path: &Path) -> Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(db_err)
}

/// True when the database has both `agent_sessions` and `agent_messages`
/// with the columns `SQLiteSession` reads. Errors: `Database`.
fn has_sdk_tables(c: &Connection) -> Result<bool> {
    let cols = |table: &str| -> Result<Vec<String>> {
        let mut st = c.prepare("SELECT name FROM pragma_table_info(?1)").map_err(db_err)?;
        let rows = st.query_map([table], |r| r.get::<_, String>(0)).map_err(db_err)?;
        rows.collect::<std::result::Result<Vec<_>, _>>().map_err(db_err)
    };
    let s = cols("agent_sessions")?;
    let m = cols("agent_messages")?;
    let has = |v: &[String], names: &[&str]| names.iter().all(|n| v.iter().any(|c| c == n));
    Ok(has(&s, &["session_id", "created_at"]) && has(&m, &["id", "session_id", "message_data", "created_at"]))
}

/// Import the SQLite file at `path` when it is an Agents SDK database
/// (see the module docs). `Ok(None)` when it is not one (no such tables):
/// the caller reports it as [`ImportStatus::Unrecognized`].
/// Errors: `Database` reading the source; store errors (`Busy`,
/// `InvalidInput` for an id the store cannot take...).
pub(super) fn import_sdk_db(store: &SessionStore, path: &Path) -> Result<Option<FileImport>> {
    let src = open_source(path)?;
    if !has_sdk_tables(&src)? {
        return Ok(None);
    }
    let mut read = ReadReport { format: Some(SourceFormat::AgentsSdk), ..Default::default() };
    let mut out = FileImport { path: path.to_path_buf(), format: Some(SourceFormat::AgentsSdk), status: ImportStatus::Imported, from_line: 1, sessions: Vec::new(), read: None, not_session: None };
    let ids: Vec<String> = {
        let mut st = src
            .prepare("SELECT session_id FROM agent_sessions WHERE session_id IS NOT NULL UNION SELECT session_id FROM agent_messages WHERE session_id IS NOT NULL ORDER BY 1")
            .map_err(db_err)?;
        let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(db_err)?;
        rows.collect::<std::result::Result<_, _>>().map_err(db_err)?
    };
    for sdk_id in ids {
        let created: Option<String> = src
            .query_row("SELECT CAST(created_at AS TEXT) FROM agent_sessions WHERE session_id = ?1", [&sdk_id], |r| r.get(0))
            .optional()
            .map_err(db_err)?
            .flatten();
        let sid = super::sanitize_id(&sdk_id);
        let mut stats = SessionImport { session_id: sid.clone(), ..Default::default() };
        match store.get_session(&sid) {
            Ok(_) => {}
            Err(Error::NotFound { .. }) => {
                let new = NewSession { id: Some(sid.clone()), created_at_ms: created.as_deref().and_then(sql_time_ms), ..Default::default() };
                match store.create_session_with(new) {
                    Ok(_) => stats.created = true,
                    Err(Error::Conflict { .. }) => {} // created just now by another import
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
        let mut seen = std::collections::HashSet::new();
        if !stats.created {
            store.read(|c, _| {
                c.import_records(&sid, &mut |r| {
                    seen.insert(r);
                    Ok(())
                })
            })?;
        }
        let mut st = src
            .prepare("SELECT id, CAST(message_data AS TEXT), CAST(created_at AS TEXT) FROM agent_messages WHERE session_id = ?1 ORDER BY id ASC")
            .map_err(db_err)?;
        let mut rows = st.query([&sdk_id]).map_err(db_err)?;
        let mut pending: Vec<(NewEntry, EntryMeta, RecordId)> = Vec::new();
        while let Some(row) = rows.next().map_err(db_err)? {
            let id: i64 = row.get(0).map_err(db_err)?;
            let data: Option<String> = row.get(1).map_err(db_err)?;
            let at: Option<String> = row.get(2).map_err(db_err)?;
            read.lines += 1;
            let data = data.unwrap_or_default();
            let (role, content) = match agents_item_entry(&data) {
                Ok(rc) => rc,
                Err(_) => {
                    let reason = match serde_json::from_str::<serde_json::Value>(&data) {
                        Ok(_) => SkipReason::NotAnObject,
                        Err(e) => SkipReason::InvalidJson { column: e.column() as u64 },
                    };
                    read.skipped.push(SkippedLine { line: id.max(0) as u64, offset: 0, reason });
                    continue;
                }
            };
            let kind = serde_json::from_str::<serde_json::Value>(&data)
                .ok()
                .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
                .unwrap_or_else(|| "message".to_owned());
            let (call, result) = (kind.ends_with("_call"), kind.ends_with("_output"));
            *read.kinds.entry(kind).or_default() += 1;
            let rid = record_id(store.key(), &format!("agents-sdk\0{sdk_id}\0{id}"));
            if !seen.insert(rid) {
                stats.skipped_already_stored += 1;
                *read.not_imported.entry(format!("{ALREADY_STORED}turn")).or_default() += 1;
                continue;
            }
            let entry = NewEntry { created_at_ms: at.as_deref().and_then(sql_time_ms), ..NewEntry::text(role, content) };
            stats.tool_calls += u64::from(call);
            stats.tool_results += u64::from(result);
            pending.push((entry, EntryMeta::default().with_item(data), rid));
            if pending.len() >= BATCH_ENTRIES {
                stats.entries += commit(store, &sid, std::mem::take(&mut pending))?;
            }
        }
        stats.entries += commit(store, &sid, pending)?;
        out.sessions.push(stats);
    }
    if out.sessions.iter().all(|s| !s.created && s.entries == 0) {
        // Nothing new since the last import (as a JSONL file of unchanged length).
        out.status = ImportStatus::UpToDate;
    }
    out.read = Some(read);
    Ok(Some(out))
}

/// Append `rows` to session `sid` with their import records, in one
/// transaction. Returns how many entries were appended.
fn commit(store: &SessionStore, sid: &str, rows: Vec<(NewEntry, EntryMeta, RecordId)>) -> Result<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let first_seq = store.last_seq(sid)? + 1;
    let mut entries = Vec::with_capacity(rows.len());
    let mut metas = Vec::with_capacity(rows.len());
    let mut ids = Vec::with_capacity(rows.len());
    let mut sealed = Vec::with_capacity(rows.len());
    for (n, (e, m, id)) in rows.into_iter().enumerate() {
        sealed.push(store.seal_entry_content(sid, first_seq + n as u64, &e.content));
        entries.push(e);
        metas.push(m);
        ids.push(id);
    }
    let n = entries.len() as u64;
    store.write_batch(|t| {
        t.append_entries(sid, &entries, &metas, first_seq, &sealed)?;
        t.insert_import_records(sid, &ids)
    })?;
    Ok(n)
}

/// SQLite's `CURRENT_TIMESTAMP` text (`YYYY-MM-DD HH:MM:SS`, UTC) in ms
/// since the epoch; `None` for anything else.
fn sql_time_ms(s: &str) -> Option<i64> {
    crate::portable::parse_iso8601_ms(s)
}

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
//! What goes where: every SDK session without `message_structure` rows
//! (a `session_id` of either table; for the others see below)
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
//!
//! # `AdvancedSQLiteSession` databases
//!
//! Source: openai-agents 0.24.0
//! `agents/extensions/memory/advanced_sqlite_session.py`, which adds
//! - `message_structure(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id
//!   TEXT NOT NULL, message_id INTEGER NOT NULL, branch_id TEXT NOT NULL
//!   DEFAULT 'main', message_type TEXT NOT NULL, sequence_number INTEGER
//!   NOT NULL, user_turn_number INTEGER, branch_turn_number INTEGER,
//!   tool_name TEXT, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`: one
//!   row per message of a branch; a branch made by
//!   `create_branch_from_turn(n)` gets a copy of the rows of its source
//!   branch before turn `n` (same `message_id`: the messages are shared),
//!   then rows of its own; `get_items(branch_id=b)` is the messages of
//!   `b`'s rows `ORDER BY sequence_number`;
//! - `turn_usage(id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT
//!   NULL, branch_id TEXT NOT NULL DEFAULT 'main', user_turn_number INTEGER
//!   NOT NULL, requests, input_tokens, output_tokens, total_tokens INTEGER
//!   DEFAULT 0, input_tokens_details JSON, output_tokens_details JSON,
//!   created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, UNIQUE(session_id,
//!   branch_id, user_turn_number))`, written by `store_run_usage` (`INSERT
//!   OR REPLACE`: a new `id` each time);
//! - `branch_reservations`, `session_clear_generations` (not read).
//!
//! An SDK session with `message_structure` rows is imported the way the
//! Python adapter `AdvancedSessionDBSession` (`sessiondb.agents_advanced`)
//! stores one, so that adapter returns the SDK session's items, branches
//! and usage:
//! - branch `main` is the root session (id as above), its entries the
//!   messages of `main`'s rows in `sequence_number` order (identity as for a
//!   plain session; each entry's time is its row's `created_at`, the
//!   SDK's `get_conversation_turns` timestamp), created at `main`'s first
//!   row's `created_at` (the SDK's `list_branches` time;
//!   `agent_sessions.created_at` when `main` has no rows). `agent_messages` rows that no branch holds are left out, as
//!   the SDK's reads leave them out ([`NO_STRUCTURE`] in
//!   [`ReadReport::not_imported`]);
//! - every other branch, in creation order (its first row's `id`), is a
//!   fork of its parent's session, as `create_branch_from_turn` makes one
//!   (`forked_from`, `forked_at_seq` = the parent's entry of the last
//!   shared message, title `<root id> branch <name>`, created at the
//!   branch's first row's `created_at`); the parent is the earlier branch
//!   whose first messages the branch shares most (`main` when none). The
//!   fork holds all the branch's messages (the shared ones as the parent
//!   has them; times from the branch's rows, so a copied message has the
//!   time it was copied, as in the SDK), identity
//!   `agents-sdk\0<SDK session_id>\0branch\0<name>\0<message id>`; its `agents.branch` record (`branch_id`, `session_id`, `parent`,
//!   `turn`, `at_seq`) goes on the root session's context extensions in the
//!   transaction that creates the fork. A branch the store's map has as
//!   deleted (or reserved by a clear) is not brought back ([`BRANCH_GONE`]);
//!   a grown branch gets its new messages;
//! - every `turn_usage` row becomes the adapter's `agents.turn_usage` record
//!   on the root session (`branch_id`, `session_id` of the branch's session,
//!   `turn` = `user_turn_number`, `anchor_seq` = the seq of the turn's first
//!   entry there, counted as the adapter counts turns, the four counts and
//!   both token details as the SDK's `get_turn_usage` returns them: JSON
//!   text parsed; NULL, empty text and text that does not parse `null`) and one token-ledger record of the
//!   branch's session (input, output, `input_tokens_details.cached_tokens`,
//!   at the row's `created_at`), so `token_totals` of a branch's session sums
//!   its turns. Identity `agents-sdk\0<SDK session_id>\0turn_usage\0<row id>`
//!   in the root session: a row replaced by a later `store_run_usage` has a
//!   new id and is imported again (the adapter reads the latest record of a
//!   turn, and its ledger adds, as its own `store_run_usage` does). All new
//!   rows of a session are one transaction. A damaged row is left out and
//!   counted under its reason in [`ReadReport::not_imported`]:
//!   [`USAGE_BAD_COUNT`] (a count that is not an integer >= 0),
//!   [`USAGE_BAD_DETAILS`] (details neither text nor NULL),
//!   [`USAGE_NO_BRANCH`] (a branch without messages), [`USAGE_NO_TURN`] (no
//!   item of that turn on the branch).
//!
//! The writes go through the importer's `store::Writer` so that a
//! fork and its `agents.branch` record, and a session's usage records,
//! ledger rows and import records, are each one transaction (an import cut
//! short and run again neither leaves a fork outside the map nor counts
//! tokens twice). The import's report lists the root session, then each
//! branch's session.
//!
//! Left as they are: the SDK's `list_branches` order of branches whose
//! first rows share a `created_at` second (the adapter lists branches in
//! creation order); `message_structure` rows whose message does not parse
//! (the SDK's `list_branches` counts them, its `get_items` does not; here
//! they are skipped as above); the `branch_reservations` of branches
//! deleted in the SDK (not read). A session imported by an earlier version
//! (every message of an advanced database into the root session) is not
//! split again. Two imports of the same database running at once may each
//! create a branch's fork (the adapter then reads the later record). Custom table names (`SQLiteSession(sessions_table=...,
//! messages_table=...)`) are not found.

use super::identity::record_id;
use super::{FileImport, ImportStatus, SessionImport, ALREADY_STORED, BATCH_ENTRIES};
use crate::backend::RecordId;
use crate::portable::agents_item::agents_item_entry;
use crate::portable::model::{ReadReport, SkipReason, SkippedLine, SourceFormat};
use crate::store::{EntryMeta, NewEntry, NewSession, Role, SessionStore, TokenUsage};
use crate::{Error, Result};
use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Read;
use std::path::Path;

/// The first 16 bytes of every SQLite 3 database file.
pub const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Context extension kinds of the Python adapter's `AdvancedSessionDBSession`
/// (`sessiondb.agents_advanced`) on the root session.
const BRANCH_KIND: &str = "agents.branch";
const BRANCH_DELETED_KIND: &str = "agents.branch_deleted";
const BRANCH_RESERVED_KIND: &str = "agents.branch_reserved";
const USAGE_KIND: &str = "agents.turn_usage";

/// [`ReadReport::not_imported`] kinds of the advanced session's rows left out.
pub const USAGE_BAD_COUNT: &str = "turn_usage: bad count";
/// A `turn_usage` row whose token details are neither JSON text nor NULL.
pub const USAGE_BAD_DETAILS: &str = "turn_usage: bad token details";
/// A `turn_usage` row of a branch without messages.
pub const USAGE_NO_BRANCH: &str = "turn_usage: no such branch";
/// A `turn_usage` row whose turn has no item on its branch.
pub const USAGE_NO_TURN: &str = "turn_usage: no such turn";
/// A branch whose name the store's branch map has as deleted (or cleared).
pub const BRANCH_GONE: &str = "message_structure: branch deleted in the store";
/// An `agent_messages` row of an advanced session that no branch holds.
pub const NO_STRUCTURE: &str = "agent_messages: in no branch";

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

/// The column names of `table` (none when there is no such table).
fn columns(c: &Connection, table: &str) -> Result<Vec<String>> {
    let mut st = c.prepare("SELECT name FROM pragma_table_info(?1)").map_err(db_err)?;
    let rows = st.query_map([table], |r| r.get::<_, String>(0)).map_err(db_err)?;
    rows.collect::<std::result::Result<Vec<_>, _>>().map_err(db_err)
}

fn has_columns(c: &Connection, table: &str, names: &[&str]) -> Result<bool> {
    let v = columns(c, table)?;
    Ok(names.iter().all(|n| v.iter().any(|c| c == n)))
}

/// True when the database has both `agent_sessions` and `agent_messages`
/// with the columns `SQLiteSession` reads. Errors: `Database`.
fn has_sdk_tables(c: &Connection) -> Result<bool> {
    Ok(has_columns(c, "agent_sessions", &["session_id", "created_at"])? && has_columns(c, "agent_messages", &["id", "session_id", "message_data", "created_at"])?)
}

/// Which of the `AdvancedSQLiteSession` tables the database has, with the
/// columns read: `(message_structure, turn_usage)`. Errors: `Database`.
fn advanced_tables(c: &Connection) -> Result<(bool, bool)> {
    let structure = has_columns(c, "message_structure", &["id", "session_id", "message_id", "branch_id", "sequence_number", "created_at"])?;
    let usage = structure
        && has_columns(
            c,
            "turn_usage",
            &["id", "session_id", "branch_id", "user_turn_number", "requests", "input_tokens", "output_tokens", "total_tokens", "input_tokens_details", "output_tokens_details", "created_at"],
        )?;
    Ok((structure, usage))
}

/// One message of an SDK session (or of one branch of it): its
/// `agent_messages` id, `message_data` and `created_at`.
struct Message {
    id: i64,
    data: String,
    at: Option<String>,
}

/// The messages a query returns (`id`, `message_data`, `created_at`).
fn messages(src: &Connection, sql: &str, params: &[&dyn rusqlite::ToSql]) -> Result<Vec<Message>> {
    let mut st = src.prepare(sql).map_err(db_err)?;
    let rows = st
        .query_map(params, |r| Ok(Message { id: r.get(0)?, data: r.get::<_, Option<String>>(1)?.unwrap_or_default(), at: r.get(2)? }))
        .map_err(db_err)?;
    rows.collect::<std::result::Result<_, _>>().map_err(db_err)
}

/// What one SDK session's import has read, for the report: messages are
/// counted once each although branches share them.
struct Reader<'a> {
    read: &'a mut ReadReport,
    counted: HashSet<i64>,
}

impl Reader<'_> {
    /// The entry of message `m` (role and content from its item), or `None`
    /// when its `message_data` is not a JSON object (listed as skipped, once).
    fn entry(&mut self, m: &Message) -> Option<(NewEntry, EntryMeta, bool, bool)> {
        let first = self.counted.insert(m.id);
        if first {
            self.read.lines += 1;
        }
        let (role, content) = match agents_item_entry(&m.data) {
            Ok(rc) => rc,
            Err(_) => {
                if first {
                    let reason = match serde_json::from_str::<Value>(&m.data) {
                        Ok(_) => SkipReason::NotAnObject,
                        Err(e) => SkipReason::InvalidJson { column: e.column() as u64 },
                    };
                    self.read.skipped.push(SkippedLine { line: m.id.max(0) as u64, offset: 0, reason });
                }
                return None;
            }
        };
        let kind = serde_json::from_str::<Value>(&m.data)
            .ok()
            .and_then(|v| v.get("type").and_then(|t| t.as_str()).map(str::to_owned))
            .unwrap_or_else(|| "message".to_owned());
        let (call, result) = (kind.ends_with("_call"), kind.ends_with("_output"));
        if first {
            *self.read.kinds.entry(kind).or_default() += 1;
        }
        let entry = NewEntry { created_at_ms: m.at.as_deref().and_then(sql_time_ms), ..NewEntry::text(role, content) };
        Some((entry, EntryMeta::default().with_item(m.data.clone()), call, result))
    }
}

/// The import records session `sid` holds (none for a session just created).
fn held_records(store: &SessionStore, sid: &str) -> Result<HashSet<RecordId>> {
    let mut seen = HashSet::new();
    store.read(|c, _| {
        c.import_records(sid, &mut |r| {
            seen.insert(r);
            Ok(())
        })
    })?;
    Ok(seen)
}

/// Append the messages of `msgs` that session `sid` does not hold yet
/// (identity `<prefix><message id>`), in batches with their records;
/// `stats` and the report count them.
fn append_messages(store: &SessionStore, sid: &str, prefix: &str, msgs: &[Message], seen: &mut HashSet<RecordId>, stats: &mut SessionImport, reader: &mut Reader<'_>) -> Result<()> {
    let mut pending: Vec<(NewEntry, EntryMeta, RecordId)> = Vec::new();
    for m in msgs {
        let Some((entry, meta, call, result)) = reader.entry(m) else { continue };
        let rid = record_id(store.key(), &format!("{prefix}{}", m.id));
        if !seen.insert(rid) {
            stats.skipped_already_stored += 1;
            *reader.read.not_imported.entry(format!("{ALREADY_STORED}turn")).or_default() += 1;
            continue;
        }
        stats.tool_calls += u64::from(call);
        stats.tool_results += u64::from(result);
        pending.push((entry, meta, rid));
        if pending.len() >= BATCH_ENTRIES {
            stats.entries += commit(store, sid, std::mem::take(&mut pending))?;
        }
    }
    stats.entries += commit(store, sid, pending)?;
    Ok(())
}

/// Create the store session `sid` of an SDK session unless it exists;
/// true when this import created it.
fn ensure_session(store: &SessionStore, sid: &str, created_at: Option<&str>) -> Result<bool> {
    match store.get_session(sid) {
        Ok(_) => Ok(false),
        Err(Error::NotFound { .. }) => {
            let new = NewSession { id: Some(sid.to_owned()), created_at_ms: created_at.and_then(sql_time_ms), ..Default::default() };
            match store.create_session_with(new) {
                Ok(_) => Ok(true),
                Err(Error::Conflict { .. }) => Ok(false), // created just now by another import
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
    }
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
    let (structure, usage) = advanced_tables(&src)?;
    let mut read = ReadReport { format: Some(SourceFormat::AgentsSdk), ..Default::default() };
    let mut out = FileImport { path: path.to_path_buf(), format: Some(SourceFormat::AgentsSdk), status: ImportStatus::Imported, from_line: 1, sessions: Vec::new(), read: None, not_session: None };
    let ids: Vec<String> = {
        let mut sql = "SELECT session_id FROM agent_sessions WHERE session_id IS NOT NULL UNION SELECT session_id FROM agent_messages WHERE session_id IS NOT NULL".to_owned();
        if structure {
            sql.push_str(" UNION SELECT session_id FROM message_structure WHERE session_id IS NOT NULL");
        }
        sql.push_str(" ORDER BY 1");
        let mut st = src.prepare(&sql).map_err(db_err)?;
        let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(db_err)?;
        rows.collect::<std::result::Result<_, _>>().map_err(db_err)?
    };
    for sdk_id in ids {
        let advanced = structure
            && src
                .query_row("SELECT 1 FROM message_structure WHERE session_id = ?1 LIMIT 1", [&sdk_id], |_| Ok(()))
                .optional()
                .map_err(db_err)?
                .is_some();
        let mut reader = Reader { read: &mut read, counted: HashSet::new() };
        if advanced {
            import_advanced(store, &src, &sdk_id, usage, &mut reader, &mut out.sessions)?;
            continue;
        }
        let created: Option<String> = src
            .query_row("SELECT CAST(created_at AS TEXT) FROM agent_sessions WHERE session_id = ?1", [&sdk_id], |r| r.get(0))
            .optional()
            .map_err(db_err)?
            .flatten();
        let sid = super::sanitize_id(&sdk_id);
        let mut stats = SessionImport { session_id: sid.clone(), ..Default::default() };
        stats.created = ensure_session(store, &sid, created.as_deref())?;
        let mut seen = if stats.created { HashSet::new() } else { held_records(store, &sid)? };
        let msgs = messages(
            &src,
            "SELECT id, CAST(message_data AS TEXT), CAST(created_at AS TEXT) FROM agent_messages WHERE session_id = ?1 ORDER BY id ASC",
            &[&sdk_id],
        )?;
        append_messages(store, &sid, &format!("agents-sdk\0{sdk_id}\0"), &msgs, &mut seen, &mut stats, &mut reader)?;
        out.sessions.push(stats);
    }
    if out.sessions.iter().all(|s| !s.created && s.entries == 0 && s.usage_records == 0 && s.context_extensions == 0) {
        // Nothing new since the last import (as a JSONL file of unchanged length).
        out.status = ImportStatus::UpToDate;
    }
    out.read = Some(read);
    Ok(Some(out))
}

/// The branch map of root session `sid` as the adapter reads it: live
/// branches (name -> store session) and every name used.
fn branch_map(store: &SessionStore, sid: &str) -> Result<(HashMap<String, String>, HashSet<String>)> {
    let mut live = HashMap::new();
    let mut used: HashSet<String> = HashSet::from(["main".to_owned()]);
    for x in store.list_context_extensions(sid)? {
        let Ok(body) = serde_json::from_str::<Value>(&x.body) else { continue };
        let name = body.get("branch_id").and_then(Value::as_str).map(str::to_owned);
        match (x.kind.as_str(), name) {
            (BRANCH_KIND, Some(name)) => {
                if let Some(s) = body.get("session_id").and_then(Value::as_str) {
                    live.insert(name.clone(), s.to_owned());
                }
                used.insert(name);
            }
            (BRANCH_DELETED_KIND, Some(name)) => {
                live.remove(&name);
            }
            (BRANCH_RESERVED_KIND, _) => {
                for n in body.get("branch_ids").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(n) = n.as_str() {
                        used.insert(n.to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    Ok((live, used))
}

/// The item of a stored entry as the adapter reads it: `meta.item`, else
/// the legacy `extra["agents_item"]`, else `None` (the adapter then makes
/// `{"role", "content"}` of the entry).
fn stored_item(meta: &EntryMeta) -> Option<Value> {
    let raw = meta.item.as_deref().or_else(|| meta.extra.get("agents_item").and_then(Value::as_str))?;
    serde_json::from_str(raw).ok()
}

fn is_user_item(item: &Value) -> bool {
    item.get("role").and_then(Value::as_str) == Some("user")
}

/// `(seq, item)` of every visible entry of store session `sid`, in order.
fn stored_items(store: &SessionStore, sid: &str) -> Result<Vec<(u64, Option<Value>, Role)>> {
    let mut out = Vec::new();
    let mut from = 1;
    loop {
        let page = store.get_transcript_with_meta(sid, from, 1000)?;
        let n = page.len();
        for (e, m) in page {
            from = e.seq + 1;
            out.push((e.seq, stored_item(&m), e.role));
        }
        if n < 1000 {
            return Ok(out);
        }
    }
}

/// The seq of the first entry of each turn of store session `sid`,
/// counted as the adapter counts them: turn `n` starts at its `n`-th user
/// item, items before the first are turn 0.
fn turn_starts(store: &SessionStore, sid: &str) -> Result<HashMap<i64, u64>> {
    let mut starts = HashMap::new();
    let mut turn = 0i64;
    for (seq, item, role) in stored_items(store, sid)? {
        let user = match &item {
            Some(v) => is_user_item(v),
            None => role == Role::User,
        };
        turn += i64::from(user);
        starts.entry(turn).or_insert(seq);
    }
    Ok(starts)
}

/// One branch of an SDK session (`message_structure.branch_id`), its
/// messages in `sequence_number` order and its first row's `created_at`.
struct SdkBranch {
    name: String,
    created_at: Option<String>,
    msgs: Vec<Message>,
    /// The branch's store session (set once imported or found).
    sid: Option<String>,
}

/// Import one SDK session written by `AdvancedSQLiteSession`: the `main`
/// branch into the root session, every other branch into a fork of its
/// parent's session, the `turn_usage` rows as the adapter's usage records
/// and token ledger (see the module docs).
fn import_advanced(store: &SessionStore, src: &Connection, sdk_id: &str, usage: bool, reader: &mut Reader<'_>, sessions: &mut Vec<SessionImport>) -> Result<()> {
    // The branches in creation order (their first structure row).
    let mut branches: Vec<SdkBranch> = {
        let mut st = src
            .prepare("SELECT branch_id, CAST(MIN(created_at) AS TEXT) FROM message_structure WHERE session_id = ?1 AND branch_id IS NOT NULL GROUP BY branch_id ORDER BY MIN(id)")
            .map_err(db_err)?;
        let rows = st.query_map([sdk_id], |r| Ok(SdkBranch { name: r.get(0)?, created_at: r.get(1)?, msgs: Vec::new(), sid: None })).map_err(db_err)?;
        rows.collect::<std::result::Result<_, _>>().map_err(db_err)?
    };
    for b in &mut branches {
        b.msgs = messages(
            src,
            "SELECT m.id, CAST(m.message_data AS TEXT), CAST(s.created_at AS TEXT) FROM message_structure s JOIN agent_messages m ON m.id = s.message_id
             WHERE s.session_id = ?1 AND m.session_id = ?1 AND s.branch_id = ?2 ORDER BY s.sequence_number ASC, s.id ASC",
            &[&sdk_id, &b.name],
        )?;
    }
    if let Some(i) = branches.iter().position(|b| b.name == "main") {
        let main = branches.remove(i);
        branches.insert(0, main);
    }
    let orphans: u64 = src
        .query_row(
            "SELECT COUNT(*) FROM agent_messages m WHERE m.session_id = ?1 AND NOT EXISTS (SELECT 1 FROM message_structure s WHERE s.session_id = ?1 AND s.message_id = m.id)",
            [sdk_id],
            |r| r.get(0),
        )
        .map_err(db_err)?;
    if orphans > 0 {
        reader.read.lines += orphans;
        *reader.read.not_imported.entry(NO_STRUCTURE.to_owned()).or_default() += orphans;
    }

    // The root session: `main`, created when `main` began (the SDK's
    // `list_branches` `created_at`), else when the SDK session was.
    let sid = super::sanitize_id(sdk_id);
    let created = match branches.first().filter(|b| b.name == "main") {
        Some(b) => b.created_at.clone(),
        None => src
            .query_row("SELECT CAST(created_at AS TEXT) FROM agent_sessions WHERE session_id = ?1", [sdk_id], |r| r.get(0))
            .optional()
            .map_err(db_err)?
            .flatten(),
    };
    let mut root = SessionImport { session_id: sid.clone(), ..Default::default() };
    root.created = ensure_session(store, &sid, created.as_deref())?;
    let mut root_seen = if root.created { HashSet::new() } else { held_records(store, &sid)? };
    let mut forks: Vec<SessionImport> = Vec::new();
    let (mut live, used) = branch_map(store, &sid)?;
    for i in 0..branches.len() {
        if branches[i].name == "main" {
            append_messages(store, &sid, &format!("agents-sdk\0{sdk_id}\0"), &branches[i].msgs, &mut root_seen, &mut root, reader)?;
            branches[i].sid = Some(sid.clone());
            continue;
        }
        let name = branches[i].name.clone();
        let prefix = format!("agents-sdk\0{sdk_id}\0branch\0{name}\0");
        let (fork, mut stats, mut seen) = match live.get(&name) {
            Some(fork) => {
                let fork = fork.clone();
                match store.get_session(&fork) {
                    Ok(_) => {}
                    Err(Error::NotFound { .. }) => {
                        // Its session was deleted in the store (not through the adapter).
                        count_gone(reader, &branches[i].msgs);
                        continue;
                    }
                    Err(e) => return Err(e),
                }
                let seen = held_records(store, &fork)?;
                (fork.clone(), SessionImport { session_id: fork, ..Default::default() }, seen)
            }
            None if used.contains(&name) => {
                count_gone(reader, &branches[i].msgs);
                continue;
            }
            None => {
                let (fork, exts) = create_branch(store, &sid, &branches[..i], &branches[i])?;
                root.context_extensions += exts;
                live.insert(name.clone(), fork.clone());
                (fork.clone(), SessionImport { session_id: fork, created: true, ..Default::default() }, HashSet::new())
            }
        };
        append_messages(store, &fork, &prefix, &branches[i].msgs, &mut seen, &mut stats, reader)?;
        branches[i].sid = Some(fork);
        forks.push(stats);
    }
    if usage {
        import_usage(store, src, sdk_id, &sid, &branches, &mut root_seen, &mut root, &mut forks, reader)?;
    }
    sessions.push(root);
    sessions.extend(forks);
    Ok(())
}

/// Count the messages of a branch the store's branch map has as deleted.
fn count_gone(reader: &mut Reader<'_>, msgs: &[Message]) {
    for m in msgs {
        if reader.counted.insert(m.id) {
            reader.read.lines += 1;
        }
    }
    *reader.read.not_imported.entry(BRANCH_GONE.to_owned()).or_default() += msgs.len() as u64;
}

/// Create the store session of SDK branch `b` as the adapter's
/// `create_branch_from_turn` makes one: a fork of the session of its
/// parent (the earlier branch sharing the longest run of first messages
/// with it; `main` when none does), at the parent's entry of the last
/// shared message, titled `<root> branch <name>`, created when the branch
/// was, and its `agents.branch` record on the root session, in one
/// transaction. Returns the fork's id and the extensions written (1).
fn create_branch(store: &SessionStore, root: &str, earlier: &[SdkBranch], b: &SdkBranch) -> Result<(String, u64)> {
    let shared = |p: &SdkBranch| p.msgs.iter().zip(&b.msgs).take_while(|(x, y)| x.id == y.id).count();
    let mut parent: Option<(&SdkBranch, usize)> = None;
    for p in earlier.iter().filter(|p| p.sid.is_some()) {
        let k = shared(p);
        if parent.is_none_or(|(_, best)| k > best) {
            parent = Some((p, k));
        }
    }
    // No shared message: a fork of `main` (the root session) at its start.
    let (parent_name, parent_sid, k) = match parent {
        Some((p, k)) if k > 0 => (p.name.as_str(), p.sid.clone().unwrap_or_else(|| root.to_owned()), k),
        _ => ("main", root.to_owned(), 0),
    };
    // The parent's entry of the k-th shared message: the parent's stored
    // items matched in order against its messages' JSON.
    let mut at_seq = 0u64;
    if k > 0 {
        let stored = stored_items(store, &parent_sid)?;
        let mut it = stored.iter();
        for m in &b.msgs[..k] {
            let Ok(want) = serde_json::from_str::<Value>(&m.data) else { continue };
            if let Some((seq, _, _)) = it.by_ref().find(|(_, item, _)| item.as_ref() == Some(&want)) {
                at_seq = *seq;
            }
        }
    }
    let turn = 1 + b.msgs[..k].iter().filter(|m| serde_json::from_str::<Value>(&m.data).is_ok_and(|v| is_user_item(&v))).count();
    let src = store.get_session(&parent_sid)?;
    let new = NewSession {
        id: None,
        // Control characters as spaces, clipped to the title limit.
        name: Some(super::clip(&format!("{root} branch {}", b.name), crate::store::sessions::MAX_TITLE_BYTES)),
        workspace_path: src.workspace_path.clone(),
        model: src.model.clone(),
        provider: src.provider.clone(),
        work_mode: src.work_mode.clone(),
        created_at_ms: b.created_at.as_deref().and_then(sql_time_ms),
        forked_from: Some(parent_sid),
        forked_at_seq: Some(at_seq),
    };
    let prepared = store.prepare_session(&new)?;
    let fork = prepared.id().to_owned();
    let rec = json!({"branch_id": b.name, "session_id": fork, "parent": parent_name, "turn": turn, "at_seq": at_seq});
    store.write_batch(|t| {
        t.create_session(&prepared, &new)?;
        t.append_context_extension(root, BRANCH_KIND, &rec.to_string())?;
        Ok(())
    })?;
    Ok((fork, 1))
}

/// A count of a `turn_usage` row: a non-negative integer, else `None`.
fn count(v: &SqlValue) -> Option<u64> {
    match v {
        SqlValue::Integer(n) => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// Token details of a `turn_usage` row as the SDK's `get_turn_usage`
/// returns them: JSON text parsed (text that does not parse, empty text and
/// NULL are `null`); `None` for another type (the SDK fails on it).
fn details(v: &SqlValue) -> Option<Value> {
    match v {
        SqlValue::Null => Some(Value::Null),
        SqlValue::Text(s) if s.is_empty() => Some(Value::Null),
        SqlValue::Text(s) => Some(serde_json::from_str(s).unwrap_or(Value::Null)),
        _ => None,
    }
}

/// Import the `turn_usage` rows of SDK session `sdk_id` (see the module
/// docs): each row one `agents.turn_usage` record on the root session and
/// one token-ledger record of its branch's session, all new rows in one
/// transaction with their import records; a damaged row is counted under
/// its reason in [`ReadReport::not_imported`] and nothing of it is stored.
#[allow(clippy::too_many_arguments)]
fn import_usage(
    store: &SessionStore,
    src: &Connection,
    sdk_id: &str,
    root_sid: &str,
    branches: &[SdkBranch],
    root_seen: &mut HashSet<RecordId>,
    root: &mut SessionImport,
    forks: &mut [SessionImport],
    reader: &mut Reader<'_>,
) -> Result<()> {
    let mut st = src
        .prepare(
            "SELECT id, branch_id, user_turn_number, requests, input_tokens, output_tokens, total_tokens, input_tokens_details, output_tokens_details, CAST(created_at AS TEXT)
             FROM turn_usage WHERE session_id = ?1 ORDER BY id",
        )
        .map_err(db_err)?;
    let mut rows = st.query([sdk_id]).map_err(db_err)?;
    let mut starts: HashMap<String, HashMap<i64, u64>> = HashMap::new();
    let mut exts: Vec<String> = Vec::new();
    let mut ledger: BTreeMap<String, (Vec<TokenUsage>, Vec<Option<i64>>)> = BTreeMap::new();
    let mut ids: Vec<RecordId> = Vec::new();
    while let Some(row) = rows.next().map_err(db_err)? {
        let v = |i: usize| row.get::<_, SqlValue>(i).map_err(db_err);
        let id: i64 = row.get(0).map_err(db_err)?;
        *reader.read.kinds.entry("turn_usage".to_owned()).or_default() += 1;
        let rid = record_id(store.key(), &format!("agents-sdk\0{sdk_id}\0turn_usage\0{id}"));
        if root_seen.contains(&rid) {
            skip(reader, &format!("{ALREADY_STORED}turn_usage"));
            continue;
        }
        let (Some(requests), Some(input), Some(output), Some(total)) = (count(&v(3)?), count(&v(4)?), count(&v(5)?), count(&v(6)?)) else {
            skip(reader, USAGE_BAD_COUNT);
            continue;
        };
        let (Some(ind), Some(outd)) = (details(&v(7)?), details(&v(8)?)) else {
            skip(reader, USAGE_BAD_DETAILS);
            continue;
        };
        let branch = match v(1)? {
            SqlValue::Text(s) => s,
            _ => {
                skip(reader, USAGE_NO_BRANCH);
                continue;
            }
        };
        let Some(sid) = branches.iter().find(|b| b.name == branch).and_then(|b| b.sid.clone()) else {
            skip(reader, USAGE_NO_BRANCH);
            continue;
        };
        let SqlValue::Integer(turn) = v(2)? else {
            skip(reader, USAGE_NO_TURN);
            continue;
        };
        if !starts.contains_key(&sid) {
            starts.insert(sid.clone(), turn_starts(store, &sid)?);
        }
        let Some(anchor) = starts[&sid].get(&turn).copied() else {
            skip(reader, USAGE_NO_TURN);
            continue;
        };
        let cached = ind.get("cached_tokens").and_then(Value::as_u64).unwrap_or(0);
        let at: Option<String> = row.get(9).map_err(db_err)?;
        exts.push(
            json!({
                "branch_id": branch, "session_id": sid, "turn": turn, "anchor_seq": anchor,
                "requests": requests, "input_tokens": input, "output_tokens": output, "total_tokens": total,
                "input_tokens_details": ind, "output_tokens_details": outd,
            })
            .to_string(),
        );
        let l = ledger.entry(sid).or_default();
        l.0.push(TokenUsage { input, output, cached, model: None, provider: None });
        l.1.push(at.as_deref().and_then(sql_time_ms));
        ids.push(rid);
    }
    if ids.is_empty() {
        return Ok(());
    }
    store.write_batch(|t| {
        for body in &exts {
            t.append_context_extension(root_sid, USAGE_KIND, body)?;
        }
        for (sid, (usages, times)) in &ledger {
            t.record_token_usage(sid, usages, times)?;
        }
        t.insert_import_records(root_sid, &ids)
    })?;
    root_seen.extend(ids.iter().copied());
    root.context_extensions += exts.len() as u64;
    for (sid, (usages, _)) in ledger {
        let stats = if sid == root.session_id { &mut *root } else { forks.iter_mut().find(|s| s.session_id == sid).expect("a branch's stats") };
        stats.usage_records += usages.len() as u64;
        for u in usages {
            stats.input_tokens += u.input;
            stats.output_tokens += u.output;
            stats.cached_tokens += u.cached;
        }
    }
    Ok(())
}

/// Count one `turn_usage` row not imported, under `reason`.
fn skip(reader: &mut Reader<'_>, reason: &str) {
    *reader.read.not_imported.entry(reason.to_owned()).or_default() += 1;
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
    let counted = store.counts_for_storage(sid, &entries);
    store.write_batch(|t| {
        t.append_entries(sid, &entries, &metas, first_seq, &sealed, &counted)?;
        t.insert_import_records(sid, &ids)
    })?;
    Ok(n)
}

/// SQLite's `CURRENT_TIMESTAMP` text (`YYYY-MM-DD HH:MM:SS`, UTC) in ms
/// since the epoch; `None` for anything else.
fn sql_time_ms(s: &str) -> Option<i64> {
    crate::portable::parse_iso8601_ms(s)
}

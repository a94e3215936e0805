//! opencode reader (issue 28 item 6): sessions of the opencode coding agent,
//! from its JSON-file storage tree or from the SQLite database of newer
//! releases, into the neutral model.
//!
//! # Source of the format
//! Read from opencode's own source (github.com/sst/opencode, now
//! github.com/anomalyco/opencode), `packages/opencode/src/`:
//! - `session/message-v2.ts` (commit 007a9409): the message `Info` (`User`
//!   `{id, sessionID, role:"user", time{created}, agent, model{providerID,
//!   modelID}}`, `Assistant` `{id, sessionID, role:"assistant",
//!   time{created, completed?}, error?, parentID, modelID, providerID, mode,
//!   agent, path{cwd, root}, summary?, cost, tokens{total?, input, output,
//!   reasoning, cache{read, write}}, finish?}`) and the `Part` union: `text
//!   {text, synthetic?, ignored?}`, `reasoning {text, time}`, `file {mime,
//!   filename?, url, source?}`, `tool {callID, tool, state}` with `state`
//!   `pending {input, raw}` | `running {input, title?, time{start}}` |
//!   `completed {input, output, title, metadata, time{start, end,
//!   compacted?}, attachments?}` | `error {input, error, time}`,
//!   `step-start {snapshot?}`, `step-finish {reason, snapshot?, cost,
//!   tokens}`, `snapshot {snapshot}`, `patch {hash, files}`, `agent {name}`,
//!   `subtask {prompt, description, agent}`, `retry {attempt, error}`,
//!   `compaction {auto, overflow?}`. Every part has `{id, sessionID,
//!   messageID}`. Parts are read in `id` order, messages in `(time.created,
//!   id)` order, as opencode's own `hydrate`/page queries order them (ids
//!   are ascending, time-based strings: `msg_…`, `prt_…`).
//! - `session/session.sql.ts` (commit 063e8306): the database tables
//!   `session(id, project_id, parent_id, directory, title, version,
//!   time_created, time_updated, …)`, `message(id, session_id, time_created,
//!   time_updated, data)` and `part(id, message_id, session_id,
//!   time_created, time_updated, data)`, `data` the record's JSON without
//!   its ids (`storage/schema.sql.ts`: times are ms since the epoch).
//! - `storage/json-migration.ts` (commit 062aa8c0): the JSON-file tree the
//!   database replaced, under `<data>/storage/`: `session/<projectID>/
//!   <sessionID>.json` (`{id, projectID, directory, parentID?, title,
//!   version, time{created, updated}}`), `message/<sessionID>/<messageID>.json`
//!   and `part/<messageID>/<partID>.json` (each record whole). Ids come
//!   from the file names.
//! - `storage/db.ts` (`Database.getChannelPath`, and its test): the
//!   database is `<data>/opencode.db` for the `latest`, `beta` and `prod`
//!   channels (`opencode-<channel>.db` for others; `$OPENCODE_DB`
//!   overrides); `<data>` is `$XDG_DATA_HOME/opencode`, by default
//!   `~/.local/share/opencode` (`global/index.ts`, xdg-basedir). The
//!   stored copy of `db.ts` at commit 032cb74b carries a fork's flag names;
//!   the path logic is upstream's.
//!
//! # What is a record ("line")
//! opencode has no lines: a session is records. The reader numbers them as
//! a [`ReadReport`] counts lines: record 1 is the session itself, then each
//! message followed by its parts, in the order above. So
//! [`ReadReport::lines`] is `1 + messages + parts` and
//! [`ReadReport::line_account`] puts every record in one place; kinds are
//! `session`, `message/user`, `message/assistant`, `part/<type>`.
//! [`ReadReport::bytes`] is 0 (no byte offsets). A record whose JSON does
//! not parse is in [`ReadReport::skipped`] with its record number (offset 0)
//! and the reason; the parts of such a message are counted as
//! `not_imported["part of an unreadable message"]`.
//!
//! # What each record becomes
//! - session: id, title ([`Event::Title`]), `directory` (the cwd; an
//!   assistant's `path.cwd` when the session has none), `time.created`,
//!   model and provider (the last assistant message's `modelID`,
//!   `providerID`);
//!   `version`, `projectID`, `parentID` in the source extra as
//!   `opencode_version`, `opencode_project_id`, `opencode_parent_id`.
//! - a user message: one user turn of its parts' blocks.
//! - an assistant message: per step (parts between `step-start`s) one
//!   assistant turn (text, thinking, tool calls) followed, when the step
//!   ran tools, by one user turn with their results (the thClaws/Anthropic
//!   shape); model and provider from `modelID`/`providerID`; an `error`'s
//!   name as `extra.opencode_error` of its turns.
//! - `text` → text block; `reasoning` → thinking block; `tool` → a
//!   `tool_use` (`id` = `callID`, `name` = `tool`, `input` = `state.input`)
//!   and, when `completed`, a `tool_result` with `state.output`, when
//!   `error` one with `state.error` and `is_error`; `pending`/`running`: the
//!   call alone. `file` → an image block for a `data:` image, otherwise a
//!   text block `[file: <filename or url> (<mime>)]`. `subtask` → a text
//!   block `[subtask <agent>: <description>]\n<prompt>`. `step-finish` → one
//!   [`Usage`]; `compaction` → a [`Compaction`] checkpoint (opencode writes
//!   the summary as the next assistant message, `summary: true`, imported as
//!   turns with `extra.opencode_summary`).
//! - not imported, counted by kind: `step-start` (a step boundary),
//!   `snapshot` and `patch` (hashes in opencode's private snapshot
//!   repository), `agent` (an `@agent` mention, already in the text),
//!   `retry` (a failed request attempt).
//! - a part of a type this reader does not know: kept raw
//!   ([`Event::Other`], `kept_raw`).
//!
//! Usage (tokens): opencode's `tokens.input` excludes cache reads and
//! writes and `tokens.output` excludes reasoning (`getUsage` in
//! `session/index.ts`), so [`Usage::input`] = `input + cache.read +
//! cache.write`, [`Usage::output`] = `output + reasoning`, [`Usage::cached`]
//! = `cache.read`, one per `step-finish` (record id: the part id). An
//! assistant message with no `step-finish` but non-zero `tokens` (older
//! releases) gives one figure from the message (record id: message id).
//!
//! Record identity: a turn is named by its message id and its index
//! within the message (`extra.opencode_message_id`, `extra.opencode_turn`),
//! so re-importing adds nothing, a message added later is imported alone,
//! and two equal messages (or two equal parts) are both kept.
//!
//! Tail rule: opencode writes an answer while it streams. The last message
//! of a session, when it is an assistant message with neither
//! `time.completed` nor `error`, is still being written: it and its parts
//! are not imported (counted as `in progress: message` / `in progress:
//! part`) and are read again by the next import, as a torn last line is.
//! Known limit: an answer opencode never finished (killed mid-stream) stays
//! out until opencode completes or errors it.

use super::events::{Event, EventSink, Meta, Thread};
use super::model::{Block, Compaction, OtherLine, ReadReport, Role, SkipReason, SkippedLine, SourceFormat, Turn, Usage};
use crate::{Error, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Where opencode sessions are read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpencodeSource {
    /// The JSON-file tree: the `storage` directory (holding `session/`,
    /// `message/`, `part/`).
    Storage(PathBuf),
    /// The SQLite database (`opencode.db`), opened read-only.
    Database(PathBuf),
}

/// What an import path is to the opencode reader ([`classify_path`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpencodePath {
    /// A `storage` directory (it has `session/` and `message/`).
    Storage(PathBuf),
    /// opencode's data directory (`~/.local/share/opencode`): its
    /// `opencode.db` and/or `storage/`, in that order, whichever exist.
    DataDir(Vec<PathBuf>),
    /// One session file `storage/session/<projectID>/<sessionID>.json`:
    /// the storage root and the session id.
    SessionFile(PathBuf, String),
    /// A message or part file of the tree (`storage/message/...`,
    /// `storage/part/...`): not a session by itself.
    RecordFile,
    /// Not an opencode path.
    No,
}

/// Largest record file read (the readers' line limit, 64 MiB); a larger
/// file is skipped as [`SkipReason::TooLong`].
const MAX_RECORD_BYTES: u64 = super::DEFAULT_MAX_LINE_BYTES;

fn is_storage_dir(p: &Path) -> bool {
    p.join("session").is_dir() && p.join("message").is_dir()
}

/// What `path` is to the opencode reader, by its place in the tree (no
/// file is read). A SQLite file is told by its content instead
/// ([`is_opencode_db`]).
pub fn classify_path(path: &Path) -> OpencodePath {
    if path.is_dir() {
        if is_storage_dir(path) {
            return OpencodePath::Storage(path.to_path_buf());
        }
        let mut found = Vec::new();
        if path.join("opencode.db").is_file() {
            found.push(path.join("opencode.db"));
        }
        if is_storage_dir(&path.join("storage")) {
            found.push(path.join("storage"));
        }
        return if found.is_empty() { OpencodePath::No } else { OpencodePath::DataDir(found) };
    }
    if path.extension().is_none_or(|e| e != "json") {
        return OpencodePath::No;
    }
    // <root>/<kind>/<dir>/<id>.json
    let Some(dir) = path.parent() else { return OpencodePath::No };
    let Some(kind_dir) = dir.parent() else { return OpencodePath::No };
    let Some(root) = kind_dir.parent() else { return OpencodePath::No };
    if !is_storage_dir(root) {
        return OpencodePath::No;
    }
    match kind_dir.file_name().and_then(|n| n.to_str()) {
        Some("session") => match path.file_stem().and_then(|s| s.to_str()) {
            Some(id) => OpencodePath::SessionFile(root.to_path_buf(), id.to_owned()),
            None => OpencodePath::No,
        },
        Some("message") | Some("part") => OpencodePath::RecordFile,
        _ => OpencodePath::No,
    }
}

fn db_err(e: rusqlite::Error) -> Error {
    Error::Database(format!("reading an opencode database: {e}"))
}

/// Open an opencode database read-only. Errors: `Database`.
fn open_db(path: &Path) -> Result<Connection> {
    Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX).map_err(db_err)
}

/// True when the SQLite database at `path` has opencode's `session`,
/// `message` and `part` tables with the columns this reader uses.
/// Errors: `Database` opening or querying it.
pub fn is_opencode_db(path: &Path) -> Result<bool> {
    let c = open_db(path)?;
    let cols = |table: &str| -> Result<Vec<String>> {
        let mut st = c.prepare("SELECT name FROM pragma_table_info(?1)").map_err(db_err)?;
        let rows = st.query_map([table], |r| r.get::<_, String>(0)).map_err(db_err)?;
        rows.collect::<std::result::Result<Vec<_>, _>>().map_err(db_err)
    };
    let has = |v: &[String], names: &[&str]| names.iter().all(|n| v.iter().any(|c| c == n));
    Ok(has(&cols("session")?, &["id", "project_id", "parent_id", "directory", "title", "version", "time_created", "time_updated"])
        && has(&cols("message")?, &["id", "session_id", "time_created", "data"])
        && has(&cols("part")?, &["id", "message_id", "session_id", "data"]))
}

/// The ids of every session of `src`, sorted. Storage: the stems of
/// `session/*/*.json`; database: the `session` table.
/// Errors: `Io` reading the tree; `Database` reading the database.
pub fn list_sessions(src: &OpencodeSource) -> Result<Vec<String>> {
    let mut ids = match src {
        OpencodeSource::Storage(root) => session_files(root)?.into_iter().map(|(id, _)| id).collect(),
        OpencodeSource::Database(path) => {
            let c = open_db(path)?;
            let mut st = c.prepare("SELECT id FROM session").map_err(db_err)?;
            let rows = st.query_map([], |r| r.get::<_, String>(0)).map_err(db_err)?;
            rows.collect::<std::result::Result<Vec<_>, _>>().map_err(db_err)?
        }
    };
    ids.sort();
    ids.dedup();
    Ok(ids)
}

/// Every session of `src` with its file (its `session/<projectID>/<id>.json`,
/// or the database file), sorted by id; one scan of the tree.
/// Errors: as [`list_sessions`].
pub fn list_session_files(src: &OpencodeSource) -> Result<Vec<(String, PathBuf)>> {
    let mut v = match src {
        OpencodeSource::Storage(root) => session_files(root)?,
        OpencodeSource::Database(path) => list_sessions(src)?.into_iter().map(|id| (id, path.clone())).collect(),
    };
    v.sort();
    v.dedup_by(|a, b| a.0 == b.0);
    Ok(v)
}

/// The file of one session in `src`: its `session/<projectID>/<id>.json`,
/// or the database file. `None` when the tree has no such session file.
pub fn session_file(src: &OpencodeSource, id: &str) -> Result<Option<PathBuf>> {
    Ok(match src {
        OpencodeSource::Storage(root) => session_files(root)?.into_iter().find(|(i, _)| i == id).map(|(_, p)| p),
        OpencodeSource::Database(path) => Some(path.clone()),
    })
}

/// Every `(session id, file)` of `<root>/session/*/*.json`, sorted by path.
fn session_files(root: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    let sessions = root.join("session");
    let rd = std::fs::read_dir(&sessions).map_err(|e| Error::io("reading an opencode storage directory", e))?;
    for project in rd.flatten() {
        if !project.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        for f in json_files(&project.path()) {
            if let Some(id) = f.file_stem().and_then(|s| s.to_str()) {
                out.push((id.to_owned(), f.clone()));
            }
        }
    }
    out.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(out)
}

/// The `*.json` regular files directly in `dir`, sorted by name (none when
/// it cannot be read). A file whose id (its stem) is `.` or `..` is no
/// opencode record and is left out: its id names the directory of its
/// messages or parts, and `message/..` is the storage root (path traversal).
fn json_files(dir: &Path) -> Vec<PathBuf> {
    let safe = |p: &Path| p.file_stem().is_some_and(|s| s != "." && s != ".." && !s.is_empty());
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "json") && safe(p) && p.is_file()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

/// One record as read: its id and its JSON object, or why it is unreadable.
struct Record {
    id: String,
    value: std::result::Result<Map<String, Value>, SkipReason>,
}

struct RawMessage {
    rec: Record,
    /// `time.created` (ms), for ordering.
    created: i64,
    parts: Vec<Record>,
}

/// A session's records before conversion.
struct RawSession {
    info: Record,
    messages: Vec<RawMessage>,
    /// Parts whose message is not in the session (database only).
    orphan_parts: u64,
}

fn parse_object(bytes: &[u8]) -> std::result::Result<Map<String, Value>, SkipReason> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(SkipReason::NotAnObject),
        Err(e) => Err(match std::str::from_utf8(bytes) {
            Err(_) => SkipReason::InvalidUtf8,
            Ok(_) => SkipReason::InvalidJson { column: e.column() as u64 },
        }),
    }
}

fn read_record_file(path: &Path) -> Result<Record> {
    let id = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening an opencode record file", e))?;
    let mut bytes = Vec::new();
    f.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes).map_err(|e| Error::io("reading an opencode record file", e))?;
    let value = if bytes.len() as u64 > MAX_RECORD_BYTES { Err(SkipReason::TooLong) } else { parse_object(&bytes) };
    Ok(Record { id, value })
}

fn created_of(v: &std::result::Result<Map<String, Value>, SkipReason>) -> i64 {
    v.as_ref().ok().and_then(|m| m.get("time")).and_then(|t| t.get("created")).and_then(Value::as_i64).unwrap_or(0)
}

fn load_storage(root: &Path, id: &str, file: &Path) -> Result<RawSession> {
    let info = read_record_file(file)?;
    let mut messages = Vec::new();
    for m in json_files(&root.join("message").join(id)) {
        let rec = read_record_file(&m)?;
        let parts = json_files(&root.join("part").join(&rec.id)).iter().map(|p| read_record_file(p)).collect::<Result<Vec<_>>>()?;
        messages.push(RawMessage { created: created_of(&rec.value), rec, parts });
    }
    messages.sort_by(|a, b| (a.created, &a.rec.id).cmp(&(b.created, &b.rec.id)));
    for m in &mut messages {
        m.parts.sort_by(|a, b| a.id.cmp(&b.id));
    }
    Ok(RawSession { info: Record { id: id.to_owned(), value: info.value }, messages, orphan_parts: 0 })
}

fn load_db(path: &Path, id: &str) -> Result<RawSession> {
    let c = open_db(path)?;
    let info = c
        .query_row(
            "SELECT directory, title, version, parent_id, project_id, time_created, time_updated FROM session WHERE id = ?1",
            [id],
            |r| {
                Ok(json!({
                    "id": id,
                    "directory": r.get::<_, Option<String>>(0)?,
                    "title": r.get::<_, Option<String>>(1)?,
                    "version": r.get::<_, Option<String>>(2)?,
                    "parentID": r.get::<_, Option<String>>(3)?,
                    "projectID": r.get::<_, Option<String>>(4)?,
                    "time": {"created": r.get::<_, Option<i64>>(5)?, "updated": r.get::<_, Option<i64>>(6)?},
                }))
            },
        )
        .optional()
        .map_err(db_err)?
        .ok_or_else(|| Error::invalid("no such opencode session in this database"))?;
    let info = match info {
        Value::Object(mut m) => {
            m.retain(|_, v| !v.is_null());
            m
        }
        _ => unreachable!("built as an object"),
    };
    let mut messages = Vec::new();
    {
        let mut st = c.prepare("SELECT id, time_created, CAST(data AS TEXT) FROM message WHERE session_id = ?1 ORDER BY time_created, id").map_err(db_err)?;
        let mut rows = st.query([id]).map_err(db_err)?;
        while let Some(r) = rows.next().map_err(db_err)? {
            let mid: String = r.get(0).map_err(db_err)?;
            let created: Option<i64> = r.get(1).map_err(db_err)?;
            let data = data_bytes(r, 2)?;
            let value = parse_object(&data).map(|mut m| {
                m.insert("id".into(), mid.clone().into());
                m.insert("sessionID".into(), id.into());
                m
            });
            messages.push(RawMessage { rec: Record { id: mid, value }, created: created.unwrap_or(0), parts: Vec::new() });
        }
    }
    let mut orphan_parts = 0;
    let mut st = c.prepare("SELECT id, message_id, CAST(data AS TEXT) FROM part WHERE session_id = ?1 ORDER BY message_id, id").map_err(db_err)?;
    let mut rows = st.query([id]).map_err(db_err)?;
    let index: std::collections::HashMap<String, usize> = messages.iter().enumerate().map(|(i, m)| (m.rec.id.clone(), i)).collect();
    while let Some(r) = rows.next().map_err(db_err)? {
        let pid: String = r.get(0).map_err(db_err)?;
        let mid: String = r.get(1).map_err(db_err)?;
        let data = data_bytes(r, 2)?;
        let Some(&i) = index.get(&mid) else {
            orphan_parts += 1;
            continue;
        };
        let value = parse_object(&data).map(|mut m| {
            m.insert("id".into(), pid.clone().into());
            m.insert("messageID".into(), mid.clone().into());
            m.insert("sessionID".into(), id.into());
            m
        });
        messages[i].parts.push(Record { id: pid, value });
    }
    Ok(RawSession { info: Record { id: id.to_owned(), value: Ok(info) }, messages, orphan_parts })
}

/// Read session `id` of `src` into `sink`, in the record order of the
/// module docs, with [`Event::Meta`] first. Returns the report (every
/// record accounted for, see the module docs).
///
/// Errors: `InvalidInput` when `src` has no session `id`; `Io` reading the
/// tree; `Database` reading the database; errors of the sink.
pub fn read_session(src: &OpencodeSource, id: &str, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let file = session_file(src, id)?.ok_or_else(|| Error::invalid("no such opencode session in this storage directory"))?;
    read_session_from(src, id, &file, sink)
}

/// [`read_session`] of a session whose file ([`list_session_files`]) is
/// known. Errors: as [`read_session`].
pub fn read_session_from(src: &OpencodeSource, id: &str, file: &Path, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let raw = match src {
        OpencodeSource::Storage(root) => load_storage(root, id, file)?,
        OpencodeSource::Database(path) => load_db(path, id)?,
    };
    convert(raw, sink)
}

/// Every session of `src` read into [`super::PortableSession`]s, with one
/// report per session. Errors: as [`list_sessions`] and [`read_session`].
pub fn read_opencode(src: &OpencodeSource) -> Result<Vec<super::ReadOutcome>> {
    let mut out = Vec::new();
    for (id, file) in list_session_files(src)? {
        let mut c = super::Collector::new(SourceFormat::Opencode, Some(file.clone()));
        let report = read_session_from(src, &id, &file, &mut c)?;
        out.push(super::ReadOutcome { sessions: c.finish(&id), report });
    }
    Ok(out)
}

fn str_of<'a>(m: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    m.get(k).and_then(Value::as_str)
}

/// The bytes of a record's `data` column (TEXT or BLOB; NULL is empty), kept
/// as bytes so a record that is not UTF-8 is skipped by `parse_object` as
/// `InvalidUtf8` instead of failing the import.
fn data_bytes(r: &rusqlite::Row<'_>, idx: usize) -> Result<Vec<u8>> {
    Ok(match r.get_ref(idx).map_err(db_err)? {
        rusqlite::types::ValueRef::Text(b) | rusqlite::types::ValueRef::Blob(b) => b.to_vec(),
        _ => Vec::new(),
    })
}

fn u64_at(v: &Value, path: &[&str]) -> u64 {
    let mut cur = v;
    for k in path {
        match cur.get(k) {
            Some(x) => cur = x,
            None => return 0,
        }
    }
    cur.as_u64().or_else(|| cur.as_f64().map(|f| f.max(0.0) as u64)).unwrap_or(0)
}

/// [`Usage`] of an opencode `tokens` object (see the module docs).
fn usage_of(tokens: &Value, model: Option<String>, line: u64, ts: Option<i64>, record_id: String) -> Usage {
    let (read, write) = (u64_at(tokens, &["cache", "read"]), u64_at(tokens, &["cache", "write"]));
    Usage {
        input: u64_at(tokens, &["input"]).saturating_add(read).saturating_add(write),
        output: u64_at(tokens, &["output"]).saturating_add(u64_at(tokens, &["reasoning"])),
        cached: read,
        model,
        source_line: line,
        timestamp_ms: ts,
        record_id: Some(record_id),
        partials: Vec::new(),
    }
}

/// The turns of one message being built (see the module docs).
struct TurnBuilder {
    role: Role,
    ts: Option<i64>,
    line: u64,
    model: Option<String>,
    provider: Option<String>,
    message_id: String,
    summary: bool,
    /// The assistant message's `error.name` (`MessageAbortedError`...).
    error: Option<String>,
    blocks: Vec<Block>,
    results: Vec<Block>,
    next: u64,
}

impl TurnBuilder {
    fn turn(&mut self, role: Role, blocks: Vec<Block>) -> Turn {
        let mut t = Turn::new(role, blocks, self.ts, self.line);
        if role == Role::Assistant {
            t.model = self.model.clone();
            t.provider = self.provider.clone();
        }
        t.extra.insert("opencode_message_id".into(), self.message_id.clone().into());
        t.extra.insert("opencode_turn".into(), self.next.into());
        if self.summary {
            t.extra.insert("opencode_summary".into(), true.into());
        }
        if let Some(e) = &self.error {
            t.extra.insert("opencode_error".into(), e.clone().into());
        }
        self.next += 1;
        t
    }

    /// Emit the step built so far: its turn, then its results' turn.
    fn flush(&mut self, sink: &mut dyn EventSink) -> Result<()> {
        if !self.blocks.is_empty() {
            let blocks = std::mem::take(&mut self.blocks);
            let t = self.turn(self.role, blocks);
            sink.event(&Thread::Main, Event::Turn(t))?;
        }
        if !self.results.is_empty() {
            let results = std::mem::take(&mut self.results);
            let t = self.turn(Role::User, results);
            sink.event(&Thread::Main, Event::Turn(t))?;
        }
        Ok(())
    }
}

/// The block of a `file` part: an image block for a `data:` image URL
/// (base64), otherwise a text block naming the file.
fn file_block(p: &Map<String, Value>) -> Block {
    let mime = str_of(p, "mime").unwrap_or("");
    let url = str_of(p, "url").unwrap_or("");
    if mime.starts_with("image/") {
        if let Some((head, data)) = url.strip_prefix("data:").and_then(|r| r.split_once(',')) {
            if head.ends_with(";base64") {
                let media_type = head.trim_end_matches(";base64");
                let media_type = if media_type.is_empty() { mime } else { media_type };
                return Block::Image { source: json!({"type": "base64", "media_type": media_type, "data": data}) };
            }
        }
    }
    let name = str_of(p, "filename").filter(|n| !n.is_empty()).unwrap_or(if url.starts_with("data:") { "attachment" } else { url });
    Block::Text { text: format!("[file: {name} ({mime})]") }
}

fn convert(raw: RawSession, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let mut report = ReadReport { format: Some(SourceFormat::Opencode), ..Default::default() };
    let mut line = 1u64;
    report.lines = 1 + raw.orphan_parts + raw.messages.iter().map(|m| 1 + m.parts.len() as u64).sum::<u64>();
    for _ in 0..raw.orphan_parts {
        report.not_imported("part of no message of the session");
    }
    match &raw.info.value {
        Ok(info) => {
            report.kind("session");
            let mut extra = Map::new();
            for (from, to) in [("version", "opencode_version"), ("projectID", "opencode_project_id"), ("parentID", "opencode_parent_id")] {
                if let Some(v) = info.get(from).filter(|v| !v.is_null()) {
                    extra.insert(to.into(), v.clone());
                }
            }
            // The session's model and provider are its last answer's: known
            // before the session is created, which stores the provider.
            let last = raw.messages.iter().rev().filter_map(|m| m.rec.value.as_ref().ok()).find(|v| str_of(v, "role") == Some("assistant"));
            let meta = Meta {
                id: Some(raw.info.id.clone()),
                model: last.and_then(|v| str_of(v, "modelID")).map(str::to_owned),
                provider: last.and_then(|v| str_of(v, "providerID")).map(str::to_owned),
                cwd: str_of(info, "directory").filter(|d| !d.is_empty()).map(str::to_owned),
                created_at_ms: info.get("time").and_then(|t| t.get("created")).and_then(Value::as_i64),
                extra,
            };
            sink.event(&Thread::Main, Event::Meta(meta))?;
            if let Some(title) = str_of(info, "title").filter(|t| !t.trim().is_empty()) {
                sink.event(&Thread::Main, Event::Title { title: Some(title.to_owned()), line: 1 })?;
            }
        }
        Err(reason) => {
            report.skipped.push(SkippedLine { line: 1, offset: 0, reason: reason.clone() });
            sink.event(&Thread::Main, Event::Meta(Meta { id: Some(raw.info.id.clone()), ..Default::default() }))?;
        }
    }
    sink.safe_point(1, 0)?;
    // The tail: a last assistant message still being written.
    let in_progress = raw.messages.last().is_some_and(|m| {
        m.rec.value.as_ref().is_ok_and(|v| {
            str_of(v, "role") == Some("assistant") && v.get("time").and_then(|t| t.get("completed")).is_none_or(Value::is_null) && v.get("error").is_none_or(Value::is_null)
        })
    });
    let n = raw.messages.len();
    for (mi, m) in raw.messages.into_iter().enumerate() {
        line += 1;
        let msg_line = line;
        if in_progress && mi + 1 == n {
            report.not_imported("in progress: message");
            for _ in &m.parts {
                line += 1;
                report.not_imported("in progress: part");
            }
            continue;
        }
        let info = match m.rec.value {
            Ok(v) => v,
            Err(reason) => {
                report.skipped.push(SkippedLine { line: msg_line, offset: 0, reason });
                for _ in &m.parts {
                    line += 1;
                    report.not_imported("part of an unreadable message");
                }
                continue;
            }
        };
        let role = match str_of(&info, "role") {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            other => {
                // A message of a role this reader does not know: kept raw, parts with it.
                let kind = format!("message/{}", other.unwrap_or("?"));
                report.kind(&kind);
                report.kept_raw(&kind);
                sink.event(&Thread::Main, Event::Other(OtherLine { line: msg_line, kind, raw: Value::Object(info) }))?;
                for p in m.parts {
                    line += 1;
                    emit_raw_part(&mut report, sink, line, p)?;
                }
                sink.safe_point(line, 0)?;
                continue;
            }
        };
        report.kind(if role == Role::User { "message/user" } else { "message/assistant" });
        let ts = info.get("time").and_then(|t| t.get("created")).and_then(Value::as_i64);
        let (model, provider) = if role == Role::Assistant {
            (str_of(&info, "modelID").map(str::to_owned), str_of(&info, "providerID").map(str::to_owned))
        } else {
            (None, None)
        };
        if role == Role::Assistant {
            let cwd = info.get("path").and_then(|p| p.get("cwd")).and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
            sink.event(&Thread::Main, Event::Meta(Meta { model: model.clone(), provider: provider.clone(), cwd, ..Default::default() }))?;
        }
        let mut b = TurnBuilder {
            role,
            ts,
            line: msg_line,
            model: model.clone(),
            provider,
            message_id: m.rec.id.clone(),
            summary: info.get("summary").and_then(Value::as_bool).unwrap_or(false),
            error: info.get("error").and_then(|e| e.get("name")).and_then(Value::as_str).map(str::to_owned),
            blocks: Vec::new(),
            results: Vec::new(),
            next: 0,
        };
        let mut step_usage = false;
        for p in m.parts {
            line += 1;
            let part = match p.value {
                Ok(v) => v,
                Err(reason) => {
                    report.skipped.push(SkippedLine { line, offset: 0, reason });
                    continue;
                }
            };
            let ty = str_of(&part, "type").unwrap_or("").to_owned();
            let kind = format!("part/{ty}");
            match ty.as_str() {
                "text" => {
                    report.kind(&kind);
                    b.blocks.push(Block::Text { text: str_of(&part, "text").unwrap_or("").to_owned() });
                }
                "reasoning" => {
                    report.kind(&kind);
                    b.blocks.push(Block::Thinking { text: str_of(&part, "text").unwrap_or("").to_owned(), signature: None });
                }
                "tool" => {
                    report.kind(&kind);
                    let id = str_of(&part, "callID").unwrap_or(&p.id).to_owned();
                    let name = str_of(&part, "tool").unwrap_or("").to_owned();
                    let state = part.get("state").cloned().unwrap_or(Value::Null);
                    let input = state.get("input").cloned().unwrap_or_else(|| Value::Object(Map::new()));
                    b.blocks.push(Block::ToolUse { id: id.clone(), name, input, thought_signature: None });
                    match state.get("status").and_then(Value::as_str) {
                        Some("completed") => {
                            let out = state.get("output").and_then(Value::as_str).unwrap_or("").to_owned();
                            b.results.push(Block::ToolResult { tool_use_id: id, content: Value::String(out), is_error: false });
                        }
                        Some("error") => {
                            let err = state.get("error").and_then(Value::as_str).unwrap_or("").to_owned();
                            b.results.push(Block::ToolResult { tool_use_id: id, content: Value::String(err), is_error: true });
                        }
                        _ => {} // pending or running: the call alone
                    }
                }
                "file" => {
                    report.kind(&kind);
                    b.blocks.push(file_block(&part));
                }
                "subtask" => {
                    report.kind(&kind);
                    let agent = str_of(&part, "agent").unwrap_or("");
                    let description = str_of(&part, "description").unwrap_or("");
                    let prompt = str_of(&part, "prompt").unwrap_or("");
                    b.blocks.push(Block::Text { text: format!("[subtask {agent}: {description}]\n{prompt}") });
                }
                "step-start" => {
                    report.kind(&kind);
                    report.not_imported(&kind);
                    b.flush(sink)?;
                }
                "step-finish" => {
                    report.kind(&kind);
                    b.flush(sink)?;
                    step_usage = true;
                    let tokens = part.get("tokens").cloned().unwrap_or(Value::Null);
                    sink.event(&Thread::Main, Event::Usage(usage_of(&tokens, model.clone(), line, ts, format!("opencode-part\0{}", p.id))))?;
                }
                "compaction" => {
                    report.kind(&kind);
                    b.flush(sink)?;
                    let c = Compaction { at_turn: 0, source_line: line, timestamp_ms: ts, summary: None, replaces_count: None, messages: Vec::new(), raw: Some(Value::Object(part)) };
                    sink.event(&Thread::Main, Event::Compaction(c))?;
                }
                "snapshot" | "patch" | "agent" | "retry" => {
                    report.kind(&kind);
                    report.not_imported(&kind);
                }
                _ => {
                    report.kind(&kind);
                    report.kept_raw(&kind);
                    sink.event(&Thread::Main, Event::Other(OtherLine { line, kind, raw: Value::Object(part) }))?;
                }
            }
        }
        b.flush(sink)?;
        if role == Role::Assistant && !step_usage {
            if let Some(tokens) = info.get("tokens") {
                let u = usage_of(tokens, model.clone(), msg_line, ts, format!("opencode-message\0{}", m.rec.id));
                if u.input > 0 || u.output > 0 {
                    sink.event(&Thread::Main, Event::Usage(u))?;
                }
            }
        }
        sink.safe_point(line, 0)?;
    }
    Ok(report)
}

fn emit_raw_part(report: &mut ReadReport, sink: &mut dyn EventSink, line: u64, p: Record) -> Result<()> {
    match p.value {
        Ok(v) => {
            let kind = format!("part/{}", str_of(&v, "type").unwrap_or(""));
            report.kind(&kind);
            report.kept_raw(&kind);
            sink.event(&Thread::Main, Event::Other(OtherLine { line, kind, raw: Value::Object(v) }))
        }
        Err(reason) => {
            report.skipped.push(SkippedLine { line, offset: 0, reason });
            Ok(())
        }
    }
}

//! The storage seam (DESIGN.md "Layout"): traits over sealed rows and
//! transactions.
//!
//! A backend stores, finds and allocates rows. It holds no key and applies
//! no rule: validation, record ids, sealing and opening envelopes, the
//! journal's idempotence and operation lifecycle, and group commit live in
//! [`crate::store`], which calls a backend only through these traits. So a
//! new backend cannot forget to encrypt (it never sees plaintext of a
//! sealed field) and cannot change a rule. Every SQL statement of the
//! embedded store lives in [`sqlite`].
//!
//! Shapes: envelopes cross the seam as the bytes the store sealed (the
//! binary `EncryptedField` form; the JSON text for the journal and `meta`,
//! whose columns the seed fixes as TEXT) on the way in and as raw column bytes
//! ([`Sealed`]) on the way out, so a damaged column reaches the store,
//! which names the record in its error. Times are milliseconds since the
//! Unix epoch; seqs and counts are `u64`.
//!
//! Model: matrix-rust-sdk's `StateStore` over `DynStateStore`
//! (`../shared/STYLE.md`); the store holds a `Box<dyn Backend>`.

pub mod sqlite;
#[cfg(feature = "postgres")]
pub mod postgres;

use std::path::{Path, PathBuf};

use crate::error::Result;

/// Where a store lives: a database file (the SQLite backend) or a server
/// (the PostgreSQL backend, cargo feature `postgres`). A path or string
/// converts with [`From`]: a `postgres://` or `postgresql://` URL
/// ([`is_server_url`]) is a server, anything else a file path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A database file path.
    File(PathBuf),
    /// A server URL (`postgres://user[:password]@host[:port]/database[?options]`).
    Server(String),
}

/// Is `location` a server URL (`postgres://...` or `postgresql://...`)
/// rather than a database file path?
pub fn is_server_url(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

impl Location {
    /// A server location?
    pub fn is_server(&self) -> bool {
        matches!(self, Location::Server(_))
    }

    /// The location as text, as [`Path::to_str`] gives it (`None`: a path
    /// that is not valid Unicode).
    pub fn to_str(&self) -> Option<&str> {
        match self {
            Location::File(p) => p.to_str(),
            Location::Server(url) => Some(url),
        }
    }

    /// The location as a path: the file's path, or the URL (what
    /// `SessionStore::path` has always returned for a server store).
    pub fn as_path(&self) -> &Path {
        match self {
            Location::File(p) => p,
            Location::Server(url) => Path::new(url),
        }
    }
}

impl From<PathBuf> for Location {
    fn from(p: PathBuf) -> Self {
        match p.to_str() {
            Some(s) if is_server_url(s) => Location::Server(s.to_string()),
            _ => Location::File(p),
        }
    }
}

impl From<&Path> for Location {
    fn from(p: &Path) -> Self {
        p.to_path_buf().into()
    }
}

impl From<&PathBuf> for Location {
    fn from(p: &PathBuf) -> Self {
        p.clone().into()
    }
}

impl From<String> for Location {
    fn from(s: String) -> Self {
        if is_server_url(&s) {
            Location::Server(s)
        } else {
            Location::File(PathBuf::from(s))
        }
    }
}

impl From<&String> for Location {
    fn from(s: &String) -> Self {
        s.clone().into()
    }
}

impl From<&str> for Location {
    fn from(s: &str) -> Self {
        s.to_string().into()
    }
}

/// Default owner lease on a server backend, milliseconds (30 seconds):
/// renewed by the owner every third of it, judged by server time (DESIGN.md
/// "Operations and recovery"). The store's `OpenOptions::lease_ms` default.
pub const DEFAULT_LEASE_MS: u64 = 30_000;

/// An envelope column as a backend found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sealed {
    /// NULL: no value was sealed (an untitled session, an entry without metadata).
    Absent,
    /// The stored bytes (TEXT or BLOB alike).
    Bytes(Vec<u8>),
    /// A value of another type (a damaged row): its type's name.
    NotBytes(&'static str),
}

/// The role and content-format names the schema writes (`transcript_entries.role`, `.format`).
const KNOWN_NAMES: [&str; 6] = ["user", "assistant", "tool", "system", "text", "blocks"];

/// `name` as a static string when it is one the schema writes (a read of
/// a page allocates nothing for it), else owned (the store then reports it).
pub fn known_name(name: &str) -> std::borrow::Cow<'static, str> {
    match KNOWN_NAMES.iter().find(|k| **k == name) {
        Some(k) => std::borrow::Cow::Borrowed(k),
        None => std::borrow::Cow::Owned(name.to_string()),
    }
}

/// A session row, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// Session id.
    pub id: String,
    /// Title envelope (record `session:<id>:name`).
    pub name: Sealed,
    /// Workspace path envelope (record `session:<id>:workspace`).
    pub workspace: Sealed,
    /// Model name.
    pub model: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// Work mode.
    pub work_mode: Option<String>,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last activity time (ms).
    pub updated_at: i64,
    /// Entries that are not retracted (seqs are gapless from 1, so without
    /// retractions this is the last seq).
    pub entry_count: u64,
    /// Parent session of a fork.
    pub forked_from: Option<String>,
    /// Last parent seq copied into a fork.
    pub forked_at_seq: Option<u64>,
    /// Plaintext columns that could not be read (a damaged row), with why:
    /// their fields above hold defaults (`None`, 0).
    pub damaged: Vec<(&'static str, String)>,
}

/// A session row to insert (envelopes already sealed by the store).
#[derive(Debug, Clone, Copy)]
pub struct NewSessionRow<'a> {
    /// Session id.
    pub id: &'a str,
    /// Title envelope (binary form).
    pub name: Option<&'a [u8]>,
    /// Workspace path envelope (binary form).
    pub workspace: Option<&'a [u8]>,
    /// HMAC workspace index (hex).
    pub workspace_index: Option<&'a str>,
    /// Model name.
    pub model: Option<&'a str>,
    /// Provider name.
    pub provider: Option<&'a str>,
    /// Work mode.
    pub work_mode: Option<&'a str>,
    /// Creation time (ms); also the first `updated_at`.
    pub created_at: i64,
    /// Parent session of a fork.
    pub forked_from: Option<&'a str>,
    /// Last parent seq copied into a fork.
    pub forked_at_seq: Option<u64>,
}

/// Which sessions [`ReadTx::sessions`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionQuery<'a> {
    /// Every session, most recently active first.
    All,
    /// Sessions bound to no workspace, most recently active first.
    Unbound,
    /// Sessions whose workspace index is this one, most recently active first.
    Index(&'a str),
    /// Bound sessions whose workspace index is not this one, most recently active first.
    OtherThan(&'a str),
    /// Sessions whose id starts with this prefix, by id.
    IdPrefix(&'a str),
    /// Sessions with a title, most recently active first.
    Titled,
}

/// A transcript row, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRow {
    /// Per-session seq (1-based, gapless).
    pub seq: u64,
    /// Role name (`user`...), checked by the store ([`known_name`]: no
    /// allocation for a name the schema writes).
    pub role: std::borrow::Cow<'static, str>,
    /// Content format name (`text`, `blocks`), checked by the store.
    pub format: std::borrow::Cow<'static, str>,
    /// Content envelope (record `transcript:<sid>:<seq>:content`).
    pub content: Sealed,
    /// Creation time (ms).
    pub created_at: i64,
    /// Host-supplied token count.
    pub tokens: Option<u64>,
    /// Source line of an imported entry.
    pub source_line: Option<u64>,
    /// Per-entry metadata, when the read asked for it.
    pub meta: Option<EntryMetaRow>,
}

/// What context planning reads of an entry instead of its content (schema
/// version 4); `None` where a row converted from an older version does not
/// know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryStatRow {
    /// Per-session seq.
    pub seq: u64,
    /// Role name.
    pub role: String,
    /// Content format name.
    pub format: String,
    /// Host-supplied token count.
    pub tokens: Option<u64>,
    /// UTF-8 bytes of the content.
    pub content_bytes: Option<u64>,
    /// Item kind name (`message`, `tool_call`, `tool_result`, `system`).
    pub kind: Option<String>,
    /// Space-separated keyed hashes of the entry's tool-call ids (`""`: none).
    pub call_keys: Option<String>,
    /// The content's token count as written, with the encoding it was
    /// counted with (`crate::context::tokens::pack_counted`: tokens × 4 +
    /// encoding code); `None` when nothing was counted at write time.
    pub counted_tokens: Option<u64>,
}

/// The metadata columns of a transcript row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryMetaRow {
    /// Model name.
    pub model: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// Source fields envelope (record `transcript:<sid>:<seq>:meta`).
    pub extra: Sealed,
}

/// A transcript row to insert.
#[derive(Debug, Clone, Copy)]
pub struct NewEntryRow<'a> {
    /// Seq allocated by the store (last seq + 1, + 2, ...).
    pub seq: u64,
    /// Role name.
    pub role: &'a str,
    /// Format name.
    pub format: &'a str,
    /// Content envelope (binary form).
    pub content: &'a [u8],
    /// Creation time (ms).
    pub created_at: i64,
    /// Host-supplied token count.
    pub tokens: Option<u64>,
    /// Source line.
    pub source_line: Option<u64>,
    /// Model name.
    pub model: Option<&'a str>,
    /// Provider name.
    pub provider: Option<&'a str>,
    /// Source fields envelope (binary form).
    pub meta: Option<&'a [u8]>,
    /// UTF-8 bytes of the content.
    pub content_bytes: u64,
    /// Item kind name (see [`EntryStatRow::kind`]).
    pub kind: &'a str,
    /// Keyed hashes of the tool-call ids, space-separated (`""`: none).
    pub call_keys: &'a str,
    /// The content's token count and encoding, packed (see
    /// [`EntryStatRow::counted_tokens`]); `None`: not counted.
    pub counted_tokens: Option<u64>,
}

/// A journal row, as stored (the seed's DDL, seed 000 "SessionJournal").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventRow {
    /// Event id (unique).
    pub event_id: String,
    /// Session id.
    pub session_id: String,
    /// Per-session seq.
    pub seq: u64,
    /// Store-wide commit order.
    pub aggregate_version: u64,
    /// Operation id (`""` for none).
    pub operation_id: String,
    /// Event kind (`payload_kind`).
    pub kind: String,
    /// Payload envelope (record `journal:<event_id>:payload`).
    pub payload: Sealed,
    /// RFC 3339 creation time.
    pub created_at: String,
}

/// A journal row to insert; the backend allocates `seq` (the session's
/// max + 1, never reused) and `aggregate_version` (store-wide max + 1).
#[derive(Debug, Clone, Copy)]
pub struct NewEventRow<'a> {
    /// Event id.
    pub event_id: &'a str,
    /// Session id.
    pub session_id: &'a str,
    /// Event kind.
    pub kind: &'a str,
    /// Operation id (`""` for none).
    pub operation_id: &'a str,
    /// Payload envelope JSON.
    pub payload: &'a str,
    /// Plaintext `envelope_json` (`{"v":1,"owner":...}`).
    pub envelope: &'a str,
    /// RFC 3339 creation time.
    pub created_at: &'a str,
}

/// A dispatched operation without a terminal event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenOperationRow {
    /// Session id.
    pub session_id: String,
    /// Operation id.
    pub operation_id: String,
    /// Instance id of the handle that dispatched it.
    pub owner: String,
}

/// A token-ledger row, as stored (plaintext numbers; the store checks them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenRow {
    /// Row id (names the record `tokens:<sid>:<row id>`).
    pub row_id: i64,
    /// Input tokens.
    pub input: i64,
    /// Output tokens.
    pub output: i64,
    /// Cached input tokens.
    pub cached: i64,
}

/// A token-ledger row to insert.
#[derive(Debug, Clone, Copy)]
pub struct NewTokenRow<'a> {
    /// Model name.
    pub model: Option<&'a str>,
    /// Provider name.
    pub provider: Option<&'a str>,
    /// Input tokens (≤ 2^63-1, checked by the store).
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cached input tokens.
    pub cached: u64,
    /// Creation time (ms).
    pub created_at: i64,
}

/// A context-extension row, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionRow {
    /// Per-session number (1-based).
    pub n: u64,
    /// Kind (`pin`, `compaction`, ...).
    pub kind: String,
    /// Body envelope (record `ctxext:<sid>:<n>`).
    pub body: Sealed,
    /// Creation time (ms).
    pub created_at: i64,
}

/// Every stored column of a session row, for copying a store between
/// backends (`SessionStore::copy_to`): envelopes as stored, never opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionCopyRow {
    /// Session id.
    pub id: String,
    /// Title envelope (binary form), as stored.
    pub name: Sealed,
    /// Workspace path envelope (binary form), as stored.
    pub workspace: Sealed,
    /// HMAC workspace index (hex).
    pub workspace_index: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// Work mode.
    pub work_mode: Option<String>,
    /// Creation time (ms).
    pub created_at: i64,
    /// Last activity time (ms).
    pub updated_at: i64,
    /// Parent session of a fork.
    pub forked_from: Option<String>,
    /// Last parent seq copied into a fork.
    pub forked_at_seq: Option<u64>,
}

/// Every stored column of a transcript row, retracted or not, for copying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryCopyRow {
    /// Per-session seq.
    pub seq: u64,
    /// Role name.
    pub role: String,
    /// Format name.
    pub format: String,
    /// Creation time (ms).
    pub created_at: i64,
    /// Host-supplied token count.
    pub tokens: Option<u64>,
    /// Source line.
    pub source_line: Option<u64>,
    /// Model name.
    pub model: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// UTF-8 bytes of the content (`None` on rows converted from schema 3).
    pub content_bytes: Option<u64>,
    /// Item kind name (`None` on rows converted from schema 3).
    pub kind: Option<String>,
    /// Keyed hashes of the tool-call ids (`None` on rows converted from schema 3).
    pub call_keys: Option<String>,
    /// Token count and encoding, packed (see [`EntryStatRow::counted_tokens`]).
    pub counted_tokens: Option<u64>,
    /// Content envelope (record `transcript:<sid>:<seq>:content`), as stored.
    pub content: Sealed,
    /// Source fields envelope (record `transcript:<sid>:<seq>:meta`), as stored.
    pub meta: Sealed,
}

/// A journal row with its plaintext `envelope_json`, for copying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventCopyRow {
    /// The row as [`ReadTx::events`] returns it.
    pub event: EventRow,
    /// Plaintext `envelope_json` (`{"v":1,"owner":...}`).
    pub envelope: String,
}

/// Every stored column of a token-ledger row but its store-local row id, for copying.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCopyRow {
    /// Model name.
    pub model: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// Input tokens.
    pub input: i64,
    /// Output tokens.
    pub output: i64,
    /// Cached input tokens.
    pub cached: i64,
    /// Creation time (ms).
    pub created_at: i64,
}

/// Row counts for `doctor`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowCounts {
    /// Sessions.
    pub sessions: u64,
    /// Transcript entries.
    pub transcript_entries: u64,
    /// Journal events.
    pub journal_events: u64,
    /// Open operations.
    pub open_operations: u64,
}

/// Reads inside one transaction (a consistent snapshot).
pub trait ReadTx {
    /// One session row. Errors: `Corrupt` (a plaintext column of a type the schema never writes).
    fn session(&self, id: &str) -> Result<Option<SessionRow>>;
    /// Session rows selected by `query`, at most `limit` (`None` = all), in the query's order.
    fn sessions(&self, query: SessionQuery<'_>, limit: Option<u32>) -> Result<Vec<SessionRow>>;
    /// Does the session exist?
    fn session_exists(&self, id: &str) -> Result<bool>;
    /// A session's `updated_at` (ms), `None` if it does not exist.
    fn session_updated_at(&self, id: &str) -> Result<Option<i64>>;
    /// Entries of a session with `seq >= from_seq` that are not retracted,
    /// at most `limit`, by seq; `with_meta` also reads the metadata columns.
    fn entries(&self, session_id: &str, from_seq: u64, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>>;
    /// The last `limit` entries of a session that are not retracted, by seq;
    /// `with_meta` also reads the metadata columns.
    fn entries_tail(&self, session_id: &str, limit: u32, with_meta: bool) -> Result<Vec<EntryRow>>;
    /// What a read of structured items needs (`get_entry_items`): the
    /// entries of [`Self::entries`] from `from_seq` (`None`: of
    /// [`Self::entries_tail`]) with their metadata columns, where a backend
    /// may leave the content envelope of an entry that has a metadata
    /// envelope as [`Sealed::Absent`] (the reader fetches it with
    /// `entries(.., 1, false)` if the metadata holds no item). By default
    /// the whole rows.
    fn entry_items(&self, session_id: &str, from_seq: Option<u64>, limit: u32) -> Result<Vec<EntryRow>> {
        match from_seq {
            Some(seq) => self.entries(session_id, seq, limit, true),
            None => self.entries_tail(session_id, limit, true),
        }
    }
    /// Is entry `seq` of the session retracted?
    fn is_retracted(&self, session_id: &str, seq: u64) -> Result<bool>;
    /// The planning columns of entries with `seq >= from_seq`, at most
    /// `limit`, by seq: never the content.
    fn entry_stats(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EntryStatRow>>;
    /// The session's last transcript seq (0 when it has none).
    fn last_entry_seq(&self, session_id: &str) -> Result<u64>;
    /// The journal row of `event_id`: the one in session `session_id` if
    /// there is one, else (event ids name one event store-wide) one in
    /// another session, so the store can tell a replay from a conflict.
    /// A backend keyed by `(session_id, event_id)` (PostgreSQL, Citus-ready)
    /// finds the first by its unique key.
    fn event(&self, session_id: &str, event_id: &str) -> Result<Option<EventRow>>;
    /// Journal rows of a session with `seq >= from_seq`, at most `limit`, by seq.
    fn events(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EventRow>>;
    /// Has an event of `kind` been recorded for operation `operation_id`?
    fn operation_has_event(&self, operation_id: &str, kinds: &[&str]) -> Result<bool>;
    /// The session of an open operation, `None` if it is not open.
    fn open_operation_session(&self, operation_id: &str) -> Result<Option<String>>;
    /// Every open operation, by operation id.
    fn open_operations(&self) -> Result<Vec<OpenOperationRow>>;
    /// Token-ledger rows of a session.
    fn token_rows(&self, session_id: &str) -> Result<Vec<TokenRow>>;
    /// Context-extension rows of a session, by `n`.
    fn extensions(&self, session_id: &str) -> Result<Vec<ExtensionRow>>;
    /// A `meta` value.
    fn meta(&self, key: &str) -> Result<Sealed>;
    /// Row counts.
    fn counts(&self) -> Result<RowCounts>;
    /// The schema version.
    fn schema_version(&self) -> Result<u32>;
    /// Every session row (by id); a row whose plaintext columns cannot be
    /// read is passed as `Err` with its id.
    fn scan_sessions(&self, f: &mut dyn FnMut(&str, Result<SessionRow>) -> Result<()>) -> Result<()>;
    /// Every transcript row with its metadata (by session, seq), with its session id.
    fn scan_entries(&self, f: &mut dyn FnMut(&str, u64, Result<EntryRow>) -> Result<()>) -> Result<()>;
    /// Every context-extension row (by session, n), with its session id.
    fn scan_extensions(&self, f: &mut dyn FnMut(&str, u64, Result<ExtensionRow>) -> Result<()>) -> Result<()>;
    /// Every token row (by row id; SQLite from schema 6: by session, then row id), with its session id.
    fn scan_tokens(&self, f: &mut dyn FnMut(&str, i64, Result<TokenRow>) -> Result<()>) -> Result<()>;
    /// Every journal row's event id and payload (in commit order).
    fn scan_event_payloads(&self, f: &mut dyn FnMut(&str, Sealed) -> Result<()>) -> Result<()>;
    /// Every `meta` entry whose key starts with `prefix`.
    fn scan_meta(&self, prefix: &str, f: &mut dyn FnMut(&str, Sealed) -> Result<()>) -> Result<()>;
    /// Every import record identity of a session ([`RecordId`]s, in byte order).
    fn import_records(&self, session_id: &str, f: &mut dyn FnMut(RecordId) -> Result<()>) -> Result<()>;
    /// Copy (DESIGN.md "Backends"): every session id that has a session
    /// row or a journal event, sorted.
    fn copy_session_ids(&self) -> Result<Vec<String>>;
    /// Copy: every column of one session row.
    fn session_copy(&self, id: &str) -> Result<Option<SessionCopyRow>>;
    /// Copy: transcript rows with `seq >= from_seq`, retracted ones too,
    /// at most `limit`, by seq.
    fn entry_copies(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EntryCopyRow>>;
    /// Copy: the retracted seqs of a session, ascending.
    fn retracted_seqs(&self, session_id: &str) -> Result<Vec<u64>>;
    /// Copy: the token-ledger rows of a session in the order they were written.
    fn token_copies(&self, session_id: &str) -> Result<Vec<TokenCopyRow>>;
    /// Copy: journal rows of a session with `seq >= from_seq`, at most `limit`, by seq.
    fn event_copies(&self, session_id: &str, from_seq: u64, limit: u32) -> Result<Vec<EventCopyRow>>;
    /// Copy: the session's last journal seq (0 when it has none).
    fn last_event_seq(&self, session_id: &str) -> Result<u64>;
    /// Search catch-up (issue 26): journal rows whose commit position is
    /// above `after`, at most `limit`, by position. The position is the
    /// backend's store-wide commit counter: SQLite's journal rowid (which is
    /// `aggregate_version`, allocated under the write lock, so positions
    /// commit in order), PostgreSQL's `aggregate_version` (from a sequence:
    /// a transaction may commit after one holding a higher value, within
    /// [`ReadTx::journal_reorder_window`]).
    fn journal_changes(&self, after: u64, limit: u32) -> Result<Vec<JournalChange>>;
    /// The highest journal position (0 for an empty journal).
    fn journal_position(&self) -> Result<u64>;
    /// How far below the highest position a row may still commit late
    /// (0: positions commit in order).
    fn journal_reorder_window(&self) -> u64 {
        0
    }
}

/// One journal row as the search catch-up reads it (no payload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalChange {
    /// Store-wide commit position (see [`ReadTx::journal_changes`]).
    pub position: u64,
    /// Session id.
    pub session_id: String,
    /// Event kind (`payload_kind`).
    pub kind: String,
}

/// The identity of a source record an import stored (issue 14 item 2): the
/// first 16 bytes of `crypto::keyed_digest(key, "import-record", identity)`.
/// No content in the clear; 16 bytes make a collision among 10^9 records of
/// one session about 1.5e-21 likely.
pub type RecordId = [u8; 16];

/// Writes inside one write transaction (which also reads).
pub trait WriteTx: ReadTx {
    /// Insert a session row (the store checked that the id is new).
    fn insert_session(&self, row: &NewSessionRow<'_>) -> Result<()>;
    /// Set the title envelope; false if no such session. `updated_at` stays:
    /// a rename is not transcript activity (issue 27).
    fn set_session_name(&self, id: &str, name: Option<&[u8]>) -> Result<bool>;
    /// Set model and provider; false if no such session.
    fn set_session_model(&self, id: &str, model: Option<&str>, provider: Option<&str>) -> Result<bool>;
    /// Set the work mode; false if no such session.
    fn set_session_work_mode(&self, id: &str, work_mode: Option<&str>) -> Result<bool>;
    /// Set `updated_at`.
    fn set_session_updated_at(&self, id: &str, updated_at: i64) -> Result<()>;
    /// Delete a session and its transcript, token, extension, retraction and
    /// import-record rows (the journal stays); the number of entries deleted, `None` if no such session.
    fn delete_session(&self, id: &str) -> Result<Option<u64>>;
    /// Insert transcript rows (seqs allocated by the store).
    fn insert_entries(&self, session_id: &str, rows: &[NewEntryRow<'_>]) -> Result<()>;
    /// Mark entry `seq` retracted (the row itself is untouched); false if it already was.
    fn retract_entry(&self, session_id: &str, seq: u64) -> Result<bool>;
    /// Insert a journal row; returns its `(seq, aggregate_version)`.
    fn insert_event(&self, row: &NewEventRow<'_>) -> Result<(u64, u64)>;
    /// Record an operation as open (owned by `owner`).
    fn open_operation(&self, operation_id: &str, session_id: &str, owner: &str, dispatched_event_id: &str) -> Result<()>;
    /// Forget an open operation.
    fn close_operation(&self, operation_id: &str) -> Result<()>;
    /// Insert token-ledger rows.
    fn insert_tokens(&self, session_id: &str, rows: &[NewTokenRow<'_>]) -> Result<()>;
    /// The next context-extension number of a session (max + 1, from 1).
    fn next_extension_n(&self, session_id: &str) -> Result<u64>;
    /// Insert a context-extension row numbered `n` (from [`Self::next_extension_n`]).
    fn insert_extension(&self, session_id: &str, n: u64, kind: &str, body: &[u8], created_at: i64) -> Result<()>;
    /// Set a `meta` value (`replace` false: keep an existing one).
    fn put_meta(&self, key: &str, value: &str, replace: bool) -> Result<()>;
    /// Remove a `meta` value.
    fn delete_meta(&self, key: &str) -> Result<()>;
    /// Record that a session holds these source records (ids already held are kept).
    fn insert_import_records(&self, session_id: &str, ids: &[RecordId]) -> Result<()>;
    /// Copy: insert the session row, or overwrite every column of an
    /// existing one, with `row` (envelopes as given; `Sealed::NotBytes` is
    /// refused by the store before this is called).
    fn put_session_copy(&self, row: &SessionCopyRow) -> Result<()>;
    /// Copy: insert transcript rows as they are (seqs, envelopes and
    /// planning columns as given).
    fn insert_entry_copies(&self, session_id: &str, rows: &[EntryCopyRow]) -> Result<()>;
}

/// Storage figures for `doctor`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StorageSizes {
    /// Bytes of the main database (file size for SQLite).
    pub db_bytes: u64,
    /// Bytes of the write-ahead log (`-wal` file for SQLite; 0 if none).
    pub wal_bytes: u64,
}

/// One open database: its transactions, owner liveness and sizes. The
/// object-safe core of the seam; the store calls the generic helpers of
/// `dyn Backend` (`read`, `write`).
pub trait Backend: Send + Sync + std::fmt::Debug {
    /// Run `f` in one read transaction.
    fn read_dyn(&self, f: &mut dyn FnMut(&dyn ReadTx) -> Result<()>) -> Result<()>;
    /// Run `f` in one write transaction, committed only when `f` returns
    /// `Ok`. Errors: `Busy` after the backend's timeout, `Closed`.
    fn write_dyn(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>) -> Result<()>;
    /// [`Self::write_dyn`] for an `f` that may run more than once, each run
    /// starting afresh (nothing of an earlier run is kept, on the server or
    /// in `f`'s captures): a backend may first run it against answers it
    /// guesses and keep its writes, then commit them only if the guesses
    /// held, running it again in a transaction otherwise (PostgreSQL's
    /// one-statement append). Default: `write_dyn`.
    fn write_retryable_dyn(&self, f: &mut dyn FnMut(&dyn WriteTx) -> Result<()>) -> Result<()> {
        self.write_dyn(f)
    }
    /// Close: later calls fail with `Closed`. Closing twice is a no-op.
    fn close(&self);
    /// True once closed.
    fn is_closed(&self) -> bool;
    /// Register this handle as a live owner, once, right after open: SQLite
    /// takes its owner lock (held for the handle's life), PostgreSQL starts
    /// its lease (renewed in the background for the lease its options
    /// gave). Errors: `Closed`, `Io`, `Busy`, the server's errors.
    fn register_owner(&self) -> Result<()>;
    /// Is the owner `instance_id` (another handle) still alive?
    fn owner_is_alive(&self, instance_id: &str) -> bool;
    /// Forget the liveness records of owners that are gone.
    fn sweep_owners(&self);
    /// Storage sizes.
    fn sizes(&self) -> StorageSizes;
    /// After a committed deletion: make the deleted rows' bytes unreadable
    /// in every file the backend keeps (SQLite: zeroed pages, issue 30
    /// "Deletion leaves nothing"). Default: nothing (a server's storage is
    /// its own; SECURITY.md says what PostgreSQL keeps).
    fn scrub_deleted(&self) -> Result<()> {
        Ok(())
    }
    /// Test hook: every write transaction waits until the returned guard
    /// drops (and every read too where reads share the writer's
    /// connections; SQLite's reads use their own and go on).
    #[cfg(test)]
    fn hold(&self) -> Box<dyn Guard + '_>;
}

/// Anything held for its drop (see [`Backend::hold`]).
#[cfg(test)]
pub trait Guard {}
#[cfg(test)]
impl<T> Guard for T {}

/// Lock `m`, also after a panic in another holder: a panic cannot leave a
/// backend half-written (its transaction rolls back on drop) nor the
/// store's group-commit state inconsistent (see `store::transcript`).
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl dyn Backend {
    /// [`Backend::read_dyn`] returning `f`'s value.
    pub fn read<T>(&self, f: impl FnOnce(&dyn ReadTx) -> Result<T>) -> Result<T> {
        let mut f = Some(f);
        let mut out = None;
        self.read_dyn(&mut |tx| {
            let f = f.take().expect("a backend runs the read closure once");
            out = Some(f(tx)?);
            Ok(())
        })?;
        Ok(out.expect("the read closure ran"))
    }

    /// [`Backend::write_retryable_dyn`] returning `f`'s value (from its last run).
    pub fn write_retryable<T>(&self, mut f: impl FnMut(&dyn WriteTx) -> Result<T>) -> Result<T> {
        let mut out = None;
        self.write_retryable_dyn(&mut |tx| {
            out = Some(f(tx)?);
            Ok(())
        })?;
        Ok(out.expect("the write closure ran"))
    }

    /// [`Backend::write_dyn`] returning `f`'s value.
    pub fn write<T>(&self, f: impl FnOnce(&dyn WriteTx) -> Result<T>) -> Result<T> {
        let mut f = Some(f);
        let mut out = None;
        self.write_dyn(&mut |tx| {
            let f = f.take().expect("a backend runs the write closure once");
            out = Some(f(tx)?);
            Ok(())
        })?;
        Ok(out.expect("the write closure ran"))
    }
}

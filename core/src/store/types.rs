//! Owned record types of the public API (no lifetimes, no generics), shared
//! by every binding.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Who wrote a transcript entry (seed 000 `TranscriptRole`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
    /// A tool's output.
    Tool,
    /// System prompt or notice.
    System,
}

impl Role {
    /// The stored name: `user`, `assistant`, `tool`, `system`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::System => "system",
        }
    }

    /// Parse a stored name. Errors: `InvalidInput` for anything else.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "user" => Ok(Role::User),
            "assistant" => Ok(Role::Assistant),
            "tool" => Ok(Role::Tool),
            "system" => Ok(Role::System),
            _ => Err(Error::invalid("role must be one of user, assistant, tool, system")),
        }
    }
}

impl std::str::FromStr for Role {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Role::parse(s)
    }
}

/// How a transcript entry's `content` is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ContentFormat {
    /// Plain text.
    #[default]
    Text,
    /// A JSON array of content blocks (thClaws/Anthropic shape: `text`,
    /// `thinking`, `tool_use`, `tool_result`, `image`), as imported.
    Blocks,
}

impl ContentFormat {
    /// The stored name: `text` or `blocks`.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentFormat::Text => "text",
            ContentFormat::Blocks => "blocks",
        }
    }

    /// Parse a stored name. Errors: `InvalidInput`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "text" => Ok(ContentFormat::Text),
            "blocks" => Ok(ContentFormat::Blocks),
            _ => Err(Error::invalid("content format must be `text` or `blocks`")),
        }
    }
}

/// A session's metadata, decrypted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// Session id (uuid v7 for new sessions; the source id for imports).
    pub id: String,
    /// Title; none = untitled (listed by id).
    pub name: Option<String>,
    /// Canonical workspace path the session is bound to, if any.
    pub workspace_path: Option<String>,
    /// Model name (e.g. `claude-sonnet-4-6`).
    pub model: Option<String>,
    /// Provider name (e.g. `anthropic`).
    pub provider: Option<String>,
    /// Work mode (host-defined, e.g. `plan`, `build`).
    pub work_mode: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    /// Last activity time, milliseconds since the Unix epoch.
    ///
    /// Last transcript activity, milliseconds since the Unix epoch: the
    /// creation time, then the time of the latest entry appended (its own
    /// time for imported entries; in steps of at least 1 s). Renames and
    /// model or work-mode changes do not move it (issue 27). Listings are
    /// ordered by it, most recent first.
    pub updated_at_ms: i64,
    /// Number of transcript entries (retracted ones not counted).
    pub entry_count: u64,
    /// The session this one was forked from.
    pub forked_from: Option<String>,
    /// The last seq of the parent copied into this fork.
    pub forked_at_seq: Option<u64>,
    /// Fields that could not be read (a damaged row); empty when healthy.
    ///
    /// Fields of this session that could not be read (a damaged row): each
    /// such field is `None` above, and the session is still listed and
    /// usable. Empty for a healthy session.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<UnreadableField>,
}

/// A stored field that could not be read (a damaged row).
///
/// A stored field that could not be decrypted or read (issue "Nothing lost
/// under real use": one damaged row never hides the others).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadableField {
    /// Which field: `name`, `workspace_path`, `content`, `meta`, `body`, `payload`, `tokens`, `value`.
    ///
    /// Which field: `name`, `workspace_path` (sessions), `content`, `meta`
    /// (transcript entries), `body` (context extensions), `payload`
    /// (journal events), `tokens` (token records), `value` (meta rows).
    pub field: String,
    /// The record id, e.g. `session:<id>:name`.
    ///
    /// The record id, e.g. `session:<id>:name` (the AAD of its envelope).
    pub record_id: String,
    /// `AuthenticationFailed` or `Corrupt`.
    ///
    /// The error kind's name: `AuthenticationFailed` (altered, moved or
    /// swapped ciphertext) or `Corrupt` (not an envelope, wrong type).
    pub kind: String,
    /// Why, without user content.
    pub reason: String,
}

impl UnreadableField {
    /// The field `field` of record `record_id` failed with `e`.
    pub fn new(field: &str, record_id: &str, e: &Error) -> Self {
        UnreadableField { field: field.to_string(), record_id: record_id.to_string(), kind: e.kind().name().to_string(), reason: e.to_string() }
    }
}

/// Arguments of `create_session_with` (Kotlin/Swift; Python passes them to
/// `create_session` as keyword arguments, Node as its options object).
///
/// Arguments of [`crate::store::SessionStore::create_session_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewSession {
    /// Explicit id (imports keep the source id); none = a new uuid v7. Ids
    /// are 1..=128 characters with no whitespace, control character or `:`.
    pub id: Option<String>,
    /// Title.
    pub name: Option<String>,
    /// Workspace path (made canonical before it is stored and indexed).
    pub workspace_path: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// Provider name.
    pub provider: Option<String>,
    /// Work mode.
    pub work_mode: Option<String>,
    /// Creation time (ms since the Unix epoch); none = now.
    pub created_at_ms: Option<i64>,
    /// Fork origin: parent session id.
    pub forked_from: Option<String>,
    /// Fork origin: last parent seq included.
    pub forked_at_seq: Option<u64>,
}

/// One transcript entry, decrypted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TranscriptEntry {
    /// Owning session.
    pub session_id: String,
    /// Gapless per-session sequence number, from 1.
    pub seq: u64,
    /// Author role.
    pub role: Role,
    /// How to read `content`.
    pub format: ContentFormat,
    /// The content, verbatim.
    pub content: String,
    /// Time written, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// Token count of this entry if the host or importer supplied one.
    pub tokens: Option<u64>,
    /// Line number in the imported source file, if imported.
    pub source_line: Option<u64>,
}

/// One entry to append (`append_entries`).
///
/// Arguments of an append (see [`crate::store::SessionStore::append_entries`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewEntry {
    /// Author role.
    pub role: Role,
    /// The content, stored verbatim (encrypted).
    pub content: String,
    /// How to read `content` (default `text`; Kotlin/Swift: required).
    #[serde(default)]
    pub format: ContentFormat,
    /// Time written, ms since the Unix epoch (none = now).
    #[serde(default)]
    pub created_at_ms: Option<i64>,
    /// Host-supplied token count.
    #[serde(default)]
    pub tokens: Option<u64>,
    /// Line number in an imported source file.
    ///
    /// Source line for imports.
    #[serde(default)]
    pub source_line: Option<u64>,
}

impl NewEntry {
    /// A plain-text entry written now.
    pub fn text(role: Role, content: impl Into<String>) -> Self {
        NewEntry { role, content: content.into(), format: ContentFormat::Text, created_at_ms: None, tokens: None, source_line: None }
    }
}

/// Per-entry metadata (`append_entries_with_meta`, `get_transcript_with_meta`):
/// the model and provider that produced the entry, the source's other
/// fields (`extra`, a JSON object: Claude `tool_use_result`, `uuid`; Codex
/// `phase`...) and a structured item (`item`: a framework item's JSON text,
/// e.g. an Agents SDK item, kept byte-exact and encrypted; the entry's
/// content is the text that counts for tokens). Empty metadata is
/// `EntryMeta()`.
///
/// Per-entry metadata kept beside a transcript entry (schema v3): who
/// produced it and what else its source line held. Written with
/// [`crate::store::SessionStore::append_entries_with_meta`], read back with
/// [`crate::store::SessionStore::get_transcript_with_meta`] (exposed by every
/// binding); the plain [`NewEntry`] / [`TranscriptEntry`] API is unchanged.
///
/// On disk: `model` and `provider` are plaintext columns (names, as DESIGN.md
/// allows); `extra` and `item` are user and tool data, sealed as one
/// `EncryptedField` with record id `transcript:<sid>:<seq>:meta`: the JSON
/// object `extra` alone when there is no `item` (the schema v3 form), else
/// (schema v8) U+0001, `extra`, a line feed and the item's JSON text as
/// written; the JSON array `[extra, "item"]` of schema v3-v7 is still read
/// (a reader tells the forms by their first character). An empty `extra`
/// without `item` is not stored.
///
/// A structured item (issue 16 item 3) is a framework's own record of the
/// entry, e.g. an OpenAI Agents SDK item: its JSON text is kept whole and
/// byte-exact (key order, whitespace, escapes), while the entry's `content`
/// holds the text that counts for tokens, the meter and compaction summaries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntryMeta {
    /// Model that produced the entry (at most 256 bytes).
    ///
    /// Model that produced the entry, as the source names it (at most 256 bytes).
    #[serde(default)]
    pub model: Option<String>,
    /// Provider that served it (at most 256 bytes).
    #[serde(default)]
    pub provider: Option<String>,
    /// The source fields as a JSON object, stored encrypted. Python: a dict
    /// (a new one on each read; `InvalidInputError` for a value that is not
    /// a dict, `TypeError` for one not JSON-serialisable); Node: an object
    /// (always set on output); Kotlin/Swift: `extraJson`, its compact text
    /// (`{}` when there are none).
    ///
    /// Source-specific fields kept verbatim (Claude `tool_use_result`, `uuid`,
    /// `message_id`, `is_meta`; Codex `phase`, `codex_role`...).
    #[serde(default)]
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// The structured item's JSON text, byte-exact as appended (none when
    /// the entry has no item).
    /// `InvalidInput` on append when it is not the JSON text of one value.
    ///
    /// A framework item's JSON text (e.g. an Agents SDK item), kept
    /// byte-exact and encrypted; never counted for tokens or summarized
    /// (the entry's `content` is). Must be one JSON value (`InvalidInput`
    /// otherwise). `None` for entries written without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
}

impl EntryMeta {
    /// Metadata whose `extra` arrives as one JSON value from a host (`what`
    /// names it in the error). Errors: `InvalidInput` unless it is a JSON object.
    pub fn from_json_extra(model: Option<String>, provider: Option<String>, extra: serde_json::Value, what: &str) -> crate::error::Result<EntryMeta> {
        match extra {
            serde_json::Value::Object(extra) => Ok(EntryMeta { model, provider, extra, item: None }),
            _ => Err(crate::error::Error::invalid(format!("{what} must be a JSON object"))),
        }
    }

    /// True when there is nothing to store.
    pub fn is_empty(&self) -> bool {
        self.model.is_none() && self.provider.is_none() && self.extra.is_empty() && self.item.is_none()
    }

    /// This metadata with the structured item `item` (JSON text, see [`EntryMeta::item`]).
    pub fn with_item(mut self, item: impl Into<String>) -> Self {
        self.item = Some(item.into());
        self
    }
}

/// A page of structured items (`get_entry_items`, `get_entry_items_tail`):
/// `items_json`, one JSON array text with one element per visible entry in
/// seq order (its `EntryMeta.item` verbatim, `null` for an entry without
/// one: one JSON parse gives the items); `seqs`, the entries' seqs in the
/// same order; `without_item`, the entries without an item with their
/// metadata, in seq order.
///
/// A page of structured items (issue 16: what an Agents SDK session's
/// `get_items` reads), from [`crate::store::SessionStore::get_entry_items`]
/// or [`crate::store::SessionStore::get_entry_items_tail`]: for each visible
/// (not retracted) entry of the page, in seq order, its [`EntryMeta::item`]
/// as stored, without decrypting the content of entries that carry one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemPage {
    /// The items as one JSON array text.
    ///
    /// One JSON array text, one element per entry of the page in seq order:
    /// the entry's structured item, its JSON text verbatim (byte-exact as
    /// appended), or `null` for an entry without one. Each item was checked
    /// to be one JSON value at append and is authenticated by its envelope,
    /// so the array parses; a host turns the page into its items with one
    /// JSON parse. `[]` for an empty page.
    pub items_json: String,
    /// The entries' seqs, in the order of the items.
    ///
    /// The entries' seqs, in the same order (one per array element); the
    /// next page starts at the last one + 1.
    pub seqs: Vec<u64>,
    /// The entries without an item, with their metadata.
    ///
    /// The entries of the page without a structured item (an imported entry,
    /// one written without metadata), with content and metadata, in seq
    /// order: their array elements are `null`, found by `seqs`.
    pub without_item: Vec<(TranscriptEntry, EntryMeta)>,
}

/// One token-ledger record (seed 000 `recordTokens(entry)`), in tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Input (prompt) tokens (Node: default 0).
    pub input: u64,
    /// Output (completion) tokens (Node: default 0).
    pub output: u64,
    /// Cached input tokens, as the provider reports them.
    ///
    /// Cached input tokens (a subset of, or in addition to, `input` as the provider reports).
    pub cached: u64,
    /// Model that served the call.
    pub model: Option<String>,
    /// Provider that served the call.
    pub provider: Option<String>,
}

/// Sums of a session's token ledger (seed 000 `tokenTotals`), in tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenTotals {
    /// Sum of input tokens.
    pub input: u64,
    /// Sum of output tokens.
    pub output: u64,
    /// Sum of cached tokens.
    pub cached: u64,
}

/// One context extension (pins, exclusions, compaction records, plans...), decrypted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextExtensionRecord {
    /// Owning session.
    pub session_id: String,
    /// Per-session number, from 1, gapless.
    pub n: u64,
    /// Kind (plaintext, not user content): e.g. `pin`, `unpin`, `exclude`, `compaction`.
    pub kind: String,
    /// The body (JSON text), decrypted.
    ///
    /// The envelope body (JSON text), decrypted.
    pub body: String,
    /// Time written, ms since the Unix epoch.
    pub created_at_ms: i64,
}

/// Which sessions `listSessionsForWorkspace` returns (seed 000 "Global vs. Local").
///
/// Which sessions `list_sessions_for_workspace` returns (seed 000 "Global vs. Local").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum WorkspaceFilter {
    /// Bound to this workspace path.
    Current(String),
    /// Bound to any workspace other than this one.
    Other(String),
    /// Bound to no workspace.
    Unbound,
    /// Every session.
    All,
}

impl WorkspaceFilter {
    /// Build a filter from the scope names hosts use: `current` and `other`
    /// (both need `path`), `unbound`, `all`. Errors: `InvalidInput`.
    pub fn from_scope(scope: &str, path: Option<String>) -> Result<Self> {
        let need = |p: Option<String>| p.ok_or_else(|| Error::invalid(format!("scope `{scope}` needs a workspace path")));
        Ok(match scope {
            "current" => WorkspaceFilter::Current(need(path)?),
            "other" => WorkspaceFilter::Other(need(path)?),
            "unbound" => WorkspaceFilter::Unbound,
            "all" => WorkspaceFilter::All,
            _ => return Err(Error::invalid("scope must be one of current, other, unbound, all")),
        })
    }
}

/// Store figures (`sessiondb doctor`): schema version, counts, file sizes, key backend.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreStats {
    /// Database file path (a PostgreSQL store: its URL without the password).
    pub path: String,
    /// The key backend the data key came from (`file`: a key file, see `key_file`).
    pub key_backend: String,
    /// The key file holding the data key when `key_backend` is `file` (a
    /// machine without an OS credential store); else none.
    pub key_file: Option<String>,
    /// The schema version (SQLite `PRAGMA user_version`).
    pub schema_version: u32,
    /// Number of sessions.
    pub sessions: u64,
    /// Number of transcript entries.
    pub transcript_entries: u64,
    /// Number of journal events.
    pub journal_events: u64,
    /// Operations dispatched without a terminal event.
    pub open_operations: u64,
    /// Size of the database file in bytes.
    pub db_bytes: u64,
    /// Size of the `-wal` file in bytes (0 if absent).
    pub wal_bytes: u64,
}

/// Validate an id used in record ids and AAD.
///
/// 1..=128 characters, no whitespace, control character or `:`, in Unicode
/// NFC, and none of the characters that make two different ids look the
/// same: bidi controls (U+061C, U+200E/F, U+202A–U+202E, U+2066–U+2069) and
/// invisible characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, U+180E,
/// U+00AD). So `café` and `cafe\u{301}` cannot become two sessions.
/// Errors: `InvalidInput`.
pub(crate) fn validate_id(what: &str, id: &str) -> Result<()> {
    if id.is_empty() || id.len() > 128 || id.chars().any(|c| c == ':' || c.is_whitespace() || c.is_control()) {
        return Err(Error::invalid(format!(
            "{what} id must be 1..=128 characters without whitespace, control characters or `:`"
        )));
    }
    if let Some(c) = id.chars().find(|&c| is_invisible_or_bidi(c)) {
        return Err(Error::invalid(format!(
            "{what} id contains the invisible or bidi control character U+{:04X}, which would make it look like another id",
            c as u32
        )));
    }
    if !unicode_normalization::is_nfc(id) {
        return Err(Error::invalid(format!(
            "{what} id is not in Unicode NFC (it has a decomposed character that would look like another id); normalise it to NFC"
        )));
    }
    Ok(())
}

fn is_invisible_or_bidi(c: char) -> bool {
    matches!(c as u32, 0x00AD | 0x061C | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x2069 | 0xFEFF)
}

// The one declaration of the records and enums the hosts expose (issue 11
// item 4). Not compiled: `sessiondb-bridge` (bridge/src/lib.rs, whose docs
// give the rules and the `#[bridge(...)]` attributes) parses it and writes
// each host's declarations into bridge/generated/ (committed): Python
// (`record!` classes), Node (`#[napi(object)]` interfaces) and Kotlin/Swift
// (`#[uniffi::remote]`, the core types as they are). Field types are the
// core's; docs are what every host shows. Checked against
// tests/api/surface.json by tests/api/surface.py like every host.

// ---- enums (Python and Node see the `str` names, the core's serde names)

/// Who wrote a transcript entry (seed 000 `TranscriptRole`).
#[bridge(core = sessiondb::Role, parse = sessiondb::Role::parse)]
pub enum Role {
    /// The person.
    #[bridge(str = "user")]
    User,
    /// The model.
    #[bridge(str = "assistant")]
    Assistant,
    /// A tool's output.
    #[bridge(str = "tool")]
    Tool,
    /// System prompt or notice.
    #[bridge(str = "system")]
    System,
}

/// How a transcript entry's `content` is to be read.
#[bridge(core = sessiondb::ContentFormat, parse = sessiondb::ContentFormat::parse)]
pub enum ContentFormat {
    /// Plain text.
    #[bridge(str = "text")]
    Text,
    /// A JSON array of content blocks (thClaws/Anthropic shape: `text`,
    /// `thinking`, `tool_use`, `tool_result`, `image`), as imported.
    #[bridge(str = "blocks")]
    Blocks,
}

/// Severity band of the meter: green 0–69 %, amber 70–84 %, orange 85–94 %,
/// red ≥ 95 % (seed 000, "Context Utilization Meter").
#[bridge(core = sessiondb::context::Band)]
pub enum Band {
    /// 0–69 %.
    #[bridge(str = "green")]
    Green,
    /// 70–84 %.
    #[bridge(str = "amber")]
    Amber,
    /// 85–94 %.
    #[bridge(str = "orange")]
    Orange,
    /// 95 % and above.
    #[bridge(str = "red")]
    Red,
}

/// What compaction did to one item.
#[bridge(core = sessiondb::context::CompactionAction)]
pub enum CompactionAction {
    /// A message or tool call replaced by a summary.
    #[bridge(str = "summarized")]
    Summarized,
    /// A tool result replaced by `[tool result: N bytes, truncated to preview] …`.
    #[bridge(str = "tool_result_preview")]
    ToolResultPreview,
}

/// What the next request does with a turn.
#[bridge(core = sessiondb::context::TurnState)]
pub enum TurnState {
    /// Sent as stored.
    #[bridge(str = "verbatim")]
    Verbatim,
    /// Sent as its compaction summary.
    #[bridge(str = "compacted")]
    Compacted,
    /// Not sent.
    #[bridge(str = "excluded")]
    Excluded,
}

/// What an item of the active context is.
#[bridge(core = sessiondb::context::ItemKind)]
pub enum ItemKind {
    /// A user or assistant message without tool calls.
    #[bridge(str = "message")]
    Message,
    /// An assistant message that makes one or more tool calls.
    #[bridge(str = "tool_call")]
    ToolCall,
    /// The result of one tool call.
    #[bridge(str = "tool_result")]
    ToolResult,
    /// A system prompt or system notice (always protected).
    #[bridge(str = "system")]
    System,
}

/// A tiktoken encoding.
#[bridge(core = sessiondb::context::Encoding)]
pub enum Encoding {
    /// `o200k_base` (GPT-4o, GPT-4.1, GPT-5, o-series).
    #[bridge(str = "o200k_base")]
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5, text-embedding-3).
    #[bridge(str = "cl100k_base")]
    Cl100kBase,
}

/// The file format a session came from.
#[bridge(core = sessiondb::portable::SourceFormat, parse = sessiondb::portable::SourceFormat::parse)]
pub enum SourceFormat {
    /// thClaws JSONL (seed 002).
    #[bridge(str = "thclaws")]
    Thclaws,
    /// OpenAI Codex rollout.
    #[bridge(str = "codex")]
    Codex,
    /// Claude Code transcript.
    #[bridge(str = "claude-code")]
    ClaudeCode,
}

/// A permission profile of the host's agent runtime (seed 000, "Session
/// Restoration Boundary").
#[bridge(core = sessiondb::restore::PermissionProfile)]
pub enum PermissionProfile {
    /// Every action asks first: the only profile a restored session starts with.
    #[bridge(str = "manual")]
    Manual,
}

/// An operation's terminal outcome (seed 000, "Idempotent Event Journal");
/// the names are `OperationOutcome::parse`'s.
#[bridge(core = sessiondb::journal::OperationOutcome, parse = sessiondb::journal::OperationOutcome::parse)]
pub enum OperationOutcome {
    /// `OperationSucceeded`: the effect happened.
    #[bridge(str = "succeeded")]
    Succeeded,
    /// `OperationFailed`.
    #[bridge(str = "failed")]
    Failed,
    /// `OperationBlocked`: refused (policy, permission).
    #[bridge(str = "blocked")]
    Blocked,
    /// `OperationCancelled`.
    #[bridge(str = "cancelled")]
    Cancelled,
    /// `OperationUnknownOutcome`: whether it happened is not known (what
    /// recovery records for an operation whose handle died).
    #[bridge(str = "unknown")]
    UnknownOutcome,
}

// ---- enums with fields: Kotlin/Swift get them as they are (fields
// included); Python and Node see the `str` names (the core's `name()`), a
// field's other parts through `get` fields beside it.

/// How a token count was obtained.
#[bridge(core = sessiondb::context::CountMethod)]
pub enum CountMethod {
    /// Counted with the model's own tokenizer.
    #[bridge(str = "exact")]
    Exact {
        /// The encoding used.
        encoding: Encoding,
    },
    /// The documented estimate `⌈UTF-8 bytes / 3⌉`.
    #[bridge(str = "estimate")]
    Estimate,
    /// The host supplied the count.
    #[bridge(str = "host")]
    Host,
}

/// What happened to one source file.
#[bridge(core = sessiondb::portable::ImportStatus)]
pub enum ImportStatus {
    /// New lines were read (possibly zero turns).
    #[bridge(str = "imported")]
    Imported,
    /// Already imported up to its current length: nothing to do.
    #[bridge(str = "up_to_date")]
    UpToDate,
    /// Shorter than what was imported, or its first bytes changed: left alone.
    #[bridge(str = "source_changed")]
    SourceChanged,
    /// Not a recognised session format.
    #[bridge(str = "unrecognized")]
    Unrecognized,
    /// Reading or storing failed; the message names the step (no content).
    #[bridge(str = "failed")]
    Failed(String),
}

/// Why a line was not read.
#[bridge(core = sessiondb::portable::SkipReason)]
pub enum SkipReason {
    /// The last line had no newline and did not parse (a write cut short).
    #[bridge(str = "torn_tail")]
    TornTail,
    /// Not valid UTF-8.
    #[bridge(str = "invalid_utf8")]
    InvalidUtf8,
    /// Not valid JSON.
    #[bridge(str = "invalid_json")]
    InvalidJson {
        /// 1-based column where parsing failed.
        column: u64,
    },
    /// Valid JSON but not an object.
    #[bridge(str = "not_an_object")]
    NotAnObject,
    /// Longer than the line limit (64 MiB by default): read past, not kept.
    #[bridge(str = "too_long")]
    TooLong,
}

// The names are the `scope` texts Python and Node pass with the path
// (`WorkspaceFilter::from_scope`).
/// Which sessions `listSessionsForWorkspace` returns (seed 000 "Global vs. Local").
#[bridge(core = sessiondb::WorkspaceFilter)]
pub enum WorkspaceFilter {
    /// Bound to this workspace path.
    #[bridge(str = "current")]
    Current(String),
    /// Bound to any workspace other than this one.
    #[bridge(str = "other")]
    Other(String),
    /// Bound to no workspace.
    #[bridge(str = "unbound")]
    Unbound,
    /// Every session.
    #[bridge(str = "all")]
    All,
}

// ---- the store

/// A session's metadata, decrypted.
#[bridge(core = sessiondb::SessionRecord)]
pub struct Session {
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
    pub updated_at_ms: i64,
    /// Number of transcript entries (retracted ones not counted).
    pub entry_count: u64,
    /// The session this one was forked from.
    pub forked_from: Option<String>,
    /// The last seq of the parent copied into this fork.
    pub forked_at_seq: Option<u64>,
    /// Fields that could not be read (a damaged row); empty when healthy.
    pub unreadable: Vec<UnreadableField>,
}

/// A stored field that could not be read (a damaged row).
#[bridge(core = sessiondb::UnreadableField)]
pub struct UnreadableField {
    /// Which field: `name`, `workspace_path`, `content`, `meta`, `body`, `payload`, `tokens`, `value`.
    pub field: String,
    /// The record id, e.g. `session:<id>:name`.
    pub record_id: String,
    /// `AuthenticationFailed` or `Corrupt`.
    pub kind: String,
    /// Why, without user content.
    pub reason: String,
}

/// One transcript entry, decrypted.
#[bridge(core = sessiondb::TranscriptEntry)]
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
#[bridge(core = sessiondb::NewEntry, new)]
pub struct NewEntry {
    /// Author role.
    pub role: Role,
    /// The content, stored verbatim (encrypted).
    #[bridge(redact)]
    pub content: String,
    /// How to read `content` (default `text`; Kotlin/Swift: required).
    #[bridge(host_default = "\"text\"")]
    pub format: ContentFormat,
    /// Time written, ms since the Unix epoch (none = now).
    #[bridge(default)]
    pub created_at_ms: Option<i64>,
    /// Host-supplied token count.
    #[bridge(default)]
    pub tokens: Option<u64>,
    /// Line number in an imported source file.
    #[bridge(default)]
    pub source_line: Option<u64>,
}

// Python: `record_tokens(session_id, input=0, output=0, ...)` keywords.
/// One token-ledger record (seed 000 `recordTokens(entry)`), in tokens.
#[bridge(core = sessiondb::TokenUsage, new, skip(python))]
pub struct TokenUsage {
    /// Input (prompt) tokens (Node: default 0).
    #[bridge(host_default = "0")]
    pub input: u64,
    /// Output (completion) tokens (Node: default 0).
    #[bridge(host_default = "0")]
    pub output: u64,
    /// Cached input tokens, as the provider reports them.
    #[bridge(default)]
    pub cached: u64,
    /// Model that served the call.
    #[bridge(default)]
    pub model: Option<String>,
    /// Provider that served the call.
    #[bridge(default)]
    pub provider: Option<String>,
}

// Python keeps the pairs and triples as tuples.
/// What a recovery pass did (seed 000, "Recovery Pass"). Python keeps the
/// operations as `(session_id, operation_id)` pairs and
/// `(session_id, operation_id, kind)` triples.
#[bridge(core = sessiondb::RecoveryReport, twin, output)]
pub struct RecoveryReport {
    /// Operations marked `OperationUnknownOutcome`.
    #[bridge(node = "Vec<MarkedOperation>", uniffi = "Vec<MarkedOperation>")]
    pub marked_unknown: Vec<(String, String)>,
    /// Open operations left alone because their owner is alive.
    pub skipped_live: u64,
    /// Operations that could not be marked (retried by the next pass).
    #[bridge(node = "Vec<FailedOperation>", uniffi = "Vec<FailedOperation>")]
    pub failed: Vec<(String, String, String)>,
}

/// An operation a recovery pass marked `OperationUnknownOutcome`.
#[bridge(output, tuple, skip(python))]
pub struct MarkedOperation {
    /// Session id.
    pub session_id: String,
    /// Operation id.
    pub operation_id: String,
}

/// An open operation a recovery pass could not mark, and why.
#[bridge(output, tuple, skip(python))]
pub struct FailedOperation {
    /// Session id.
    pub session_id: String,
    /// Operation id.
    pub operation_id: String,
    /// The error kind's name (e.g. `Database`).
    pub kind: String,
}

/// Sums of a session's token ledger (seed 000 `tokenTotals`), in tokens.
#[bridge(core = sessiondb::TokenTotals)]
pub struct TokenTotals {
    /// Sum of input tokens.
    pub input: u64,
    /// Sum of output tokens.
    pub output: u64,
    /// Sum of cached tokens.
    pub cached: u64,
}

/// One context extension (pins, exclusions, compaction records, plans...), decrypted.
#[bridge(core = sessiondb::ContextExtensionRecord)]
pub struct ContextExtension {
    /// Owning session.
    pub session_id: String,
    /// Per-session number, from 1, gapless.
    pub n: u64,
    /// Kind (plaintext, not user content): e.g. `pin`, `unpin`, `exclude`, `compaction`.
    pub kind: String,
    /// The body (JSON text), decrypted.
    pub body: String,
    /// Time written, ms since the Unix epoch.
    pub created_at_ms: i64,
}

/// What a journal append did.
#[bridge(core = sessiondb::journal::AppendOutcome)]
pub struct AppendOutcome {
    /// The event's per-session seq (the original one for a duplicate).
    pub seq: u64,
    /// The event's store-wide aggregate_version.
    pub aggregate_version: u64,
    /// True if the event was already there (nothing was written).
    pub duplicate: bool,
}

/// Store figures (`sessiondb doctor`): schema version, counts, file sizes, key backend.
#[bridge(core = sessiondb::StoreStats)]
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

/// What `copy_to` added to the destination per kind of row (counts), and
/// the sessions it refused.
#[bridge(core = sessiondb::CopyReport)]
pub struct CopyReport {
    /// Sessions examined in the source.
    pub sessions_seen: u64,
    /// Session rows created in the destination.
    pub sessions_created: u64,
    /// Session rows of the destination overwritten with the source's.
    pub sessions_updated: u64,
    /// Sessions deleted in the destination (deleted in the source).
    pub sessions_deleted: u64,
    /// Transcript entries added (retracted ones included).
    pub entries: u64,
    /// Retractions added.
    pub retractions: u64,
    /// Token-ledger rows added.
    pub tokens: u64,
    /// Context extensions added.
    pub extensions: u64,
    /// Journal events added.
    pub events: u64,
    /// Operations recorded open in the destination.
    pub open_operations: u64,
    /// Import bookkeeping rows added.
    pub import_records: u64,
    /// Sessions refused, left unchanged in the destination.
    pub conflicts: Vec<CopyConflict>,
}

/// A session `copy_to` refused: `kind` is `Conflict` (the destination holds
/// rows the source does not) or `Corrupt` (a damaged row in the source).
#[bridge(core = sessiondb::CopyConflict)]
pub struct CopyConflict {
    /// The session id.
    pub session_id: String,
    /// `Conflict` or `Corrupt`.
    pub kind: String,
    /// Why, without user content.
    pub reason: String,
}

/// One journal event, decrypted.
#[bridge(core = sessiondb::JournalEvent, output, twin)]
pub struct JournalEvent {
    /// Event id (the caller's idempotency key).
    pub event_id: String,
    /// Session (aggregate) id.
    pub session_id: String,
    /// Per-session seq, from 1, gapless.
    pub seq: u64,
    /// Store-wide commit order, from 1.
    pub aggregate_version: u64,
    /// Operation id, if the event belongs to one.
    pub operation_id: Option<String>,
    /// The event's kind.
    pub kind: String,
    /// The payload: the JSON value (Python: what `json.loads` gives;
    /// Kotlin/Swift: `payloadJson`, its JSON text).
    #[bridge(python = "crate::json::Json", ts = "any")]
    pub payload: serde_json::Value,
    /// RFC 3339 UTC timestamp with milliseconds.
    pub created_at: String,
}

/// Per-entry metadata (`append_entries_with_meta`, `get_transcript_with_meta`):
/// the model and provider that produced the entry, the source's other
/// fields (`extra`, a JSON object: Claude `tool_use_result`, `uuid`; Codex
/// `phase`...) and a structured item (`item`: a framework item's JSON text,
/// e.g. an Agents SDK item, kept byte-exact and encrypted; the entry's
/// content is the text that counts for tokens). Empty metadata is
/// `EntryMeta()`.
#[bridge(core = sessiondb::EntryMeta, new, twin)]
pub struct EntryMeta {
    /// Model that produced the entry (at most 256 bytes).
    #[bridge(default)]
    pub model: Option<String>,
    /// Provider that served it (at most 256 bytes).
    #[bridge(default)]
    pub provider: Option<String>,
    /// The source fields as a JSON object, stored encrypted. Python: a dict
    /// (a new one on each read; `InvalidInputError` for a value that is not
    /// a dict, `TypeError` for one not JSON-serialisable); Node: an object
    /// (always set on output); Kotlin/Swift: `extraJson`, its compact text
    /// (`{}` when there are none).
    #[bridge(default = "\"{}\"", python = "crate::json::Json", node = "serde_json::Value", ts = "Record<string, unknown>")]
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// The structured item's JSON text, byte-exact as appended (none when
    /// the entry has no item).
    /// `InvalidInput` on append when it is not the JSON text of one value.
    #[bridge(default)]
    pub item: Option<String>,
}

/// One entry to append with its metadata (`append_entries_with_meta`);
/// Python passes the `(entry, meta)` tuple.
#[bridge(tuple, skip(python))]
pub struct NewEntryWithMeta {
    /// The entry.
    pub entry: NewEntry,
    /// Its metadata.
    pub meta: EntryMeta,
}

/// Arguments of `create_session_with` (Kotlin/Swift; Python passes them to
/// `create_session` as keyword arguments, Node as its options object).
#[bridge(core = sessiondb::NewSession, new, skip(python, node))]
pub struct NewSession {
    /// Explicit id (imports keep the source id); none = a new uuid v7. Ids
    /// are 1..=128 characters with no whitespace, control character or `:`.
    #[bridge(default)]
    pub id: Option<String>,
    /// Title.
    #[bridge(default)]
    pub name: Option<String>,
    /// Workspace path (made canonical before it is stored and indexed).
    #[bridge(default)]
    pub workspace_path: Option<String>,
    /// Model name.
    #[bridge(default)]
    pub model: Option<String>,
    /// Provider name.
    #[bridge(default)]
    pub provider: Option<String>,
    /// Work mode.
    #[bridge(default)]
    pub work_mode: Option<String>,
    /// Creation time (ms since the Unix epoch); none = now.
    #[bridge(default)]
    pub created_at_ms: Option<i64>,
    /// Fork origin: parent session id.
    #[bridge(default)]
    pub forked_from: Option<String>,
    /// Fork origin: last parent seq included.
    #[bridge(default)]
    pub forked_at_seq: Option<u64>,
}

/// One transcript entry with its metadata (`get_transcript_with_meta`,
/// `ItemPage.without_item`); Python keeps the `(entry, meta)` tuple.
#[bridge(output, tuple, skip(python))]
pub struct TranscriptEntryWithMeta {
    /// The entry.
    pub entry: TranscriptEntry,
    /// Its metadata (empty for an entry written without).
    pub meta: EntryMeta,
}

/// A page of structured items (`get_entry_items`, `get_entry_items_tail`):
/// `items_json`, one JSON array text with one element per visible entry in
/// seq order (its `EntryMeta.item` verbatim, `null` for an entry without
/// one: one JSON parse gives the items); `seqs`, the entries' seqs in the
/// same order; `without_item`, the entries without an item with their
/// metadata, in seq order.
#[bridge(core = sessiondb::ItemPage, output, skip(uniffi))]
pub struct ItemPage {
    /// The items as one JSON array text.
    pub items_json: String,
    /// The entries' seqs, in the order of the items.
    pub seqs: Vec<u64>,
    /// The entries without an item, with their metadata.
    pub without_item: Vec<TranscriptEntryWithMeta>,
}

/// A journal event to append (seed 000, "Idempotent Event Journal").
/// Python passes the fields to `journal_append` itself; Kotlin/Swift give
/// the payload as JSON text (`payloadJson`).
#[bridge(core = sessiondb::NewEvent, new, twin, skip(python))]
pub struct NewEvent {
    /// Idempotency key: appending the same id twice is a no-op.
    pub event_id: String,
    /// The aggregate (session) this event belongs to.
    pub session_id: String,
    /// `payload_kind`, e.g. `EffectDispatchCommitted` or a host-defined kind
    /// (1..=64 ASCII letters, digits, `_` or `.`).
    pub kind: String,
    /// Operation id for lifecycle events (required for them).
    #[bridge(default)]
    pub operation_id: Option<String>,
    /// Any JSON value, stored encrypted (Kotlin/Swift: `payloadJson`, its
    /// JSON text, e.g. `{"tool":"bash"}`).
    #[bridge(ts = "any")]
    pub payload: serde_json::Value,
}

/// An operation dispatched without a terminal event.
#[bridge(tuple)]
pub struct OpenOperation {
    /// Session id.
    pub session_id: String,
    /// Operation id.
    pub operation_id: String,
    /// Instance id of the store handle that dispatched it.
    pub owner: String,
}

/// What a reader saw in one file: every line is imported or counted here.
#[bridge(core = sessiondb::portable::ReadReport, twin, output)]
pub struct ReadReport {
    /// Format read.
    pub format: Option<SourceFormat>,
    /// Lines seen, skipped ones included.
    pub lines: u64,
    /// Bytes up to the end of the last whole line (where an incremental import resumes).
    pub bytes: u64,
    /// Every parsed line by kind.
    #[bridge(uniffi = "HashMap<String, u64>")]
    pub kinds: BTreeMap<String, u64>,
    /// Lines counted but not imported (duplicates, bookkeeping), by kind.
    #[bridge(uniffi = "HashMap<String, u64>")]
    pub not_imported: BTreeMap<String, u64>,
    /// Lines of unknown kind kept verbatim, by kind.
    #[bridge(uniffi = "HashMap<String, u64>")]
    pub kept_raw: BTreeMap<String, u64>,
    /// Lines that could not be read, with line numbers and reasons.
    pub skipped: Vec<SkippedLine>,
    /// Lines where a lone UTF-16 surrogate escape was replaced by U+FFFD.
    pub surrogates_replaced: Vec<u64>,
    /// Blank lines (ignored).
    pub blank_lines: u64,
    /// The last line was complete JSON without its final newline.
    pub missing_final_newline: bool,
    /// Lines already imported by an earlier import.
    pub already_imported_lines: u64,
    /// Claude Code: assistant lines merged into an earlier line of the same message id.
    pub merged_lines: u64,
    /// Claude Code: usage figures not counted again for an already counted message id.
    pub duplicate_usage: u64,
}

/// What an export wrote.
#[bridge(core = sessiondb::portable::WriteReport, output)]
pub struct WriteReport {
    /// Lines written (header included).
    pub lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Turns written (compaction messages and empty turns not included).
    pub turns: u64,
}

// ---- context governance (seed 000, "Context Utilization Meter", "Context Compaction")

/// Every term of the Effective Context Capacity formula, in tokens.
#[bridge(core = sessiondb::context::CapacityBreakdown, output)]
pub struct CapacityBreakdown {
    /// Raw context window of the model (tokens).
    pub raw: u64,
    /// Tokens kept free for the answer: `max(min(reserve, model max output), ⌈8% raw⌉)`.
    pub output_reserve: u64,
    /// Safety margin: `max(2,048, ⌈2% raw⌉)`.
    pub safety_margin: u64,
    /// `raw − output reserve − safety margin`, always ≥ 1.
    pub capacity: u64,
}

/// Published limits of a model (tokens).
#[bridge(core = sessiondb::context::ModelLimits, output)]
pub struct ModelLimits {
    /// Raw context window (input + output), tokens.
    pub context_window: u64,
    /// Maximum output tokens per response.
    pub max_output: u64,
}

/// A token count and how it was obtained.
#[bridge(core = sessiondb::context::TokenCount, output)]
pub struct TokenCount {
    /// Number of tokens.
    pub tokens: u64,
    /// `exact` (the model's tokenizer), `estimate` (`⌈UTF-8 bytes / 3⌉`) or
    /// `host` (Kotlin/Swift: the `CountMethod`, the encoding in `Exact`).
    pub method: CountMethod,
    /// The encoding of an exact count; none otherwise.
    #[bridge(get = "c.method.encoding()", skip(uniffi))]
    pub encoding: Option<Encoding>,
}

/// One reading of the context meter.
#[bridge(core = sessiondb::context::ContextMeter, output)]
pub struct ContextMeter {
    /// Active tokens measured (tokens).
    pub active_tokens: u64,
    /// Effective Context Capacity measured against (tokens).
    pub capacity: u64,
    /// `N = ⌊100 × active tokens / capacity⌋`; not capped (250 = 2.5× capacity).
    pub percent: u64,
    /// The status text, exactly `Ctx N%` (e.g. `Ctx 87%`).
    pub label: String,
    /// Severity band of `percent`.
    pub band: Band,
    /// Active tokens > capacity (exactly 100 % fits and is not overflow).
    pub overflow: bool,
}

/// The transformation record of one compacted item, or of a run of items
/// from `seq` to `last_seq` replaced by one summary.
#[bridge(core = sessiondb::context::Transformation)]
pub struct Transformation {
    /// The item's seq (a run: its first item's seq).
    pub seq: u64,
    /// A run: the seq of its last item; none: one item.
    pub last_seq: Option<u64>,
    /// What was done.
    pub action: CompactionAction,
    /// Tokens before (the item's tokens).
    pub tokens_before: u64,
    /// Tokens of `summary`.
    pub tokens_after: u64,
    /// The replacement text, at most 240 characters.
    pub summary: String,
}

/// One turn as `/context` shows it.
#[bridge(core = sessiondb::context::TurnGovernance, output)]
pub struct TurnGovernance {
    /// Transcript seq.
    pub seq: u64,
    /// Verbatim, compacted or excluded (exclusion wins over compaction).
    pub state: TurnState,
    /// Pinned by the user.
    pub pinned: bool,
    /// The run in force for this turn, if any: its `first_seq` in
    /// `compacted` (of the `ContextStatus` or `ContextGovernance` it came
    /// with). Kept while excluded, so `include` brings the summary back.
    pub compacted_by: Option<u64>,
}

/// A compaction run in force: seqs `first_seq..=last_seq` are sent as
/// `transformation`'s summary, held once for the whole range (a pin inside
/// a recorded run leaves two runs with the same transformation).
#[bridge(core = sessiondb::context::CompactedRun, twin)]
pub struct CompactedRun {
    /// First seq this run is in force for.
    pub first_seq: u64,
    /// Last seq this run is in force for (>= `first_seq`).
    pub last_seq: u64,
    /// The transformation as recorded (its `seq`/`last_seq`: the run as
    /// recorded, before a pin or a later run took seqs from it).
    pub transformation: Transformation,
}

/// Where a stored session's context stands (what `/context` shows).
#[bridge(core = sessiondb::context::ContextStatus, output, twin)]
pub struct ContextStatus {
    /// Model whose tokenizer and output limit were used (none: estimate, no cap).
    pub model: Option<String>,
    /// Effective Context Capacity in tokens.
    pub capacity: u64,
    /// Active-context utilization (never cumulative usage).
    pub meter: ContextMeter,
    /// Per-turn state: verbatim, compacted or excluded, and pinned; a
    /// compacted turn names its run (`compacted_by`).
    pub turns: Vec<TurnGovernance>,
    /// The compaction runs in force, ascending by `first_seq`, non-overlapping.
    pub compacted: Vec<CompactedRun>,
}

/// One item of what the model sees next (`active_context`).
#[bridge(core = sessiondb::context::ActiveItem, output)]
pub struct ActiveItem {
    /// The entry's seq (a compacted run: its first seq).
    pub seq: u64,
    /// A compacted run: its last seq.
    pub last_seq: Option<u64>,
    /// The entry's role (a run: its first entry's).
    pub role: String,
    /// Verbatim, compacted (the summary replaces it) or excluded (not sent).
    pub state: TurnState,
    /// Tokens the item costs in the request (0 when excluded).
    pub tokens: u64,
    /// What is sent: the entry's content, the summary, or none when excluded.
    pub text: Option<String>,
}

/// What the model sees next (DESIGN.md "Context governance").
#[bridge(core = sessiondb::context::ActiveContextView, output)]
pub struct ActiveContextView {
    /// The model asked for, else the session's.
    pub model: Option<String>,
    /// Effective Context Capacity (tokens).
    pub capacity: u64,
    /// Sum of the items' tokens (the meter's active tokens).
    pub tokens: u64,
    /// Every entry that is not retracted, in order: verbatim, compacted (a run is one item) or excluded.
    pub items: Vec<ActiveItem>,
}

/// A compaction plan (the saved transcript is never modified).
#[bridge(core = sessiondb::context::CompactionPlan, dict = "Dict[str, Any]")]
pub struct CompactionPlan {
    /// Effective Context Capacity planned against (tokens).
    pub capacity: u64,
    /// Target utilization (percent).
    pub target_percent: u8,
    /// `⌊capacity × target_percent / 100⌋` (tokens).
    pub target_tokens: u64,
    /// Sum of the items' tokens before the plan.
    pub tokens_before: u64,
    /// Sum after the plan is applied.
    pub tokens_after: u64,
    /// `tokens_after ≤ target_tokens`; false: everything compactable was
    /// compacted and the context fits capacity but not the target.
    pub reached_target: bool,
    /// One record per compacted item or run, in seq order. Empty: nothing to do.
    pub transformations: Vec<Transformation>,
    /// The seqs of `transformations`, every seq of each run, ascending
    /// (derived: not read when a plan is passed back in).
    // Kotlin/Swift read the runs: the core type has no such field.
    #[bridge(get = "c.compacted_seqs()", skip(uniffi))]
    pub compacted_seqs: Vec<u64>,
}

/// One item of the active model context, in the order it would be sent
/// (`compact_context` input, `apply_compaction` output). Python also
/// accepts a plain dict of these fields.
#[bridge(core = sessiondb::context::ContextItem, new, dict = "ContextItemDict")]
pub struct ContextItem {
    /// Transcript sequence number; strictly increasing along the list.
    pub seq: u64,
    /// `user`, `assistant`, `tool`, `system`... (`user` + `message` counts as a user turn).
    pub role: String,
    /// What the item is.
    pub kind: ItemKind,
    /// Tokens the item costs in the request.
    pub tokens: u64,
    /// Pinned by the user: always verbatim.
    #[bridge(default)]
    pub pinned: bool,
    /// The item's text (for a tool call: the serialized calls). Read only to summarize.
    #[bridge(default, redact)]
    pub text: String,
    /// Tool-call ids linking calls and results.
    #[bridge(default)]
    pub call_ids: Vec<String>,
    /// Already a summary from an earlier compaction; never summarized again.
    #[bridge(default)]
    pub compacted: bool,
}

// Python takes it as a dict (`CompactionOptionsDict`, the core's serde shape).
/// Planner options.
#[bridge(core = sessiondb::context::CompactionOptions, new, twin, skip(python), dict = "CompactionOptionsDict")]
pub struct CompactionOptions {
    /// User turns kept verbatim at the end of the context (default 2).
    #[bridge(default = "2", host_default = "2", uniffi = "u32")]
    pub recent_user_turns: usize,
    /// Model whose tokenizer counts the summaries (`null`/`nil`: `⌈UTF-8 bytes / 3⌉`).
    #[bridge(default)]
    pub model: Option<String>,
}

/// One recorded compaction (history entry).
#[bridge(core = sessiondb::context::CompactionHistoryEntry)]
pub struct CompactionHistoryEntry {
    /// The context extension's number.
    pub n: u64,
    /// When it was recorded, ms since the Unix epoch.
    pub created_at_ms: i64,
    /// The plan as recorded.
    pub plan: CompactionPlan,
}

/// The replayed governance state of a session (pins, exclusions, compactions).
#[bridge(core = sessiondb::context::ContextGovernance, twin)]
pub struct ContextGovernance {
    /// Pinned seqs, ascending.
    pub pinned: BTreeSet<u64>,
    /// Excluded seqs, ascending.
    pub excluded: BTreeSet<u64>,
    /// The compaction runs in force, ascending by `first_seq` and
    /// non-overlapping (each seq in at most one): every summary once,
    /// however many seqs its run covers.
    pub compacted: Vec<CompactedRun>,
    /// Every recorded compaction, oldest first.
    pub history: Vec<CompactionHistoryEntry>,
}

// ---- the restore boundary (seed 000, "Session Restoration Boundary")

/// A saved session's knowledge, as stored: metadata, the whole transcript,
/// token totals, governance and the other context extensions.
#[bridge(core = sessiondb::restore::SavedSessionState, twin, output)]
pub struct SavedSessionState {
    /// Metadata (the workspace binding kept as stored, never rebound).
    pub session: Session,
    /// The complete transcript, every entry verbatim, in seq order.
    pub transcript: Vec<TranscriptEntry>,
    /// Cumulative token usage (ledger sums, tokens).
    pub token_totals: TokenTotals,
    /// Pins, exclusions and compaction history, replayed.
    pub governance: ContextGovernance,
    /// Every context extension that is not governance (artifacts, plans,
    /// tool and verification history...), in `n` order.
    pub other_extensions: Vec<ContextExtension>,
}

/// The authority of an opened session: always fresh (never stored).
#[bridge(core = sessiondb::restore::Authority, twin, output)]
pub struct Authority {
    /// Always `manual`.
    #[bridge(get = "c.permission_profile()")]
    pub permission_profile: PermissionProfile,
    /// Always false (Full Access is never restored).
    #[bridge(get = "c.full_access()")]
    pub full_access: bool,
    /// Always false (sensitive-transfer authorization is never restored).
    #[bridge(get = "c.sensitive_transfer()")]
    pub sensitive_transfer: bool,
    /// Always empty (temporary approvals are never restored).
    #[bridge(get = "c.temporary_approvals().to_vec()")]
    pub temporary_approvals: Vec<String>,
}

/// A saved session, opened: its knowledge and a fresh authority.
#[bridge(core = sessiondb::restore::OpenedSession, twin, output)]
pub struct OpenedSession {
    /// Everything restored from storage.
    pub knowledge: SavedSessionState,
    /// Always fresh: manual permissions, no full access, no sensitive-transfer
    /// grant, no temporary approvals.
    pub authority: Authority,
}

// ---- portable sessions (seed 002)

/// A session a retention policy deletes (or, in a dry run, would delete).
#[bridge(core = sessiondb::privacy::PrunedSession, output)]
pub struct PrunedSession {
    /// Session id.
    pub session_id: String,
    /// Its name, if any.
    pub title: Option<String>,
    /// `max_age_days` or `max_sessions`.
    pub reason: String,
    /// Its last activity, milliseconds since the Unix epoch.
    pub updated_at_ms: i64,
    /// Its transcript entries.
    pub entry_count: u64,
    /// Its last entry's seq when planned (0: none).
    pub last_seq: u64,
}

/// A line a reader skipped.
#[bridge(core = sessiondb::portable::SkippedLine, output)]
pub struct SkippedLine {
    /// 1-based line number.
    pub line: u64,
    /// Byte offset of the line's first byte.
    pub offset: u64,
    /// Why: `torn_tail`, `invalid_utf8`, `invalid_json`, `not_an_object` or
    /// `too_long` (Kotlin/Swift: the `SkipReason`, the column in `InvalidJson`).
    pub reason: SkipReason,
    /// 1-based column where parsing failed, for `invalid_json` only.
    #[bridge(get = "c.reason.column()", skip(uniffi))]
    pub column: Option<u64>,
}

/// The import report of one file.
#[bridge(core = sessiondb::portable::FileImport, output, twin)]
pub struct FileImport {
    /// The file as given (after directory walking).
    pub path: PathBuf,
    /// Detected (or stored) format.
    pub format: Option<SourceFormat>,
    /// `imported`, `up_to_date`, `source_changed`, `unrecognized` or `failed`
    /// (Kotlin/Swift: the `ImportStatus`, the message in `Failed`).
    pub status: ImportStatus,
    /// The failure message (names the step, no content) of a `failed` status.
    #[bridge(get = "c.status.error()", skip(uniffi))]
    pub error: Option<String>,
    /// First line read this time (1 for a first import).
    pub from_line: u64,
    /// Sessions written, main first (Claude Code sidechains after it).
    pub sessions: Vec<SessionImport>,
    /// The reader's report, when the file was read.
    pub read: Option<ReadReport>,
}

/// A line the thClaws reader skipped, as the digest reports it.
#[bridge(core = sessiondb::portable::DigestSkippedLine, output, skip(uniffi))]
pub struct DigestSkippedLine {
    /// 1-based line number.
    pub line: u64,
    /// As in `SkippedLine`.
    #[bridge(names = SkipReason)]
    pub reason: String,
}

// Kotlin/Swift have `read_thclaws` (`ThclawsRead`) instead.
/// What the thClaws reader saw in one file (`read_thclaws_digest`; the
/// fields of tests/conformance/portable/read_thclaws.json).
#[bridge(core = sessiondb::portable::ThclawsDigest, output, skip(uniffi))]
pub struct ThclawsDigest {
    /// Session id (header `id`, else the fallback id).
    pub id: String,
    /// Title (latest `rename`).
    pub title: Option<String>,
    /// Model as the file names it.
    pub model: Option<String>,
    /// Provider.
    pub provider: Option<String>,
    /// Working directory.
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: Option<i64>,
    /// Every turn's role, in order.
    pub roles: Vec<String>,
    /// Every text block, in order.
    pub texts: Vec<String>,
    /// Text blocks of the active history (after the last compaction).
    pub active_texts: Vec<String>,
    /// Tool-use blocks.
    pub tool_calls: u64,
    /// Tool-result blocks.
    pub tool_results: u64,
    /// Steps of the latest plan.
    pub plan_steps: u64,
    /// Compaction checkpoints.
    pub compactions: u64,
    /// Lines seen, skipped ones included.
    pub lines: u64,
    /// Offset after the last complete line.
    pub bytes: u64,
    /// Lines that could not be read.
    pub skipped: Vec<DigestSkippedLine>,
    /// Lines where a lone surrogate escape became U+FFFD.
    pub surrogates_replaced: Vec<u64>,
    /// The last line was complete JSON without its final newline.
    pub missing_final_newline: bool,
    /// Lines of unknown kind kept verbatim, by kind.
    pub kept_raw: BTreeMap<String, u64>,
    /// Lines of unknown kind kept in the session.
    pub other_lines: u64,
}

// Kotlin/Swift's thClaws reader and writer (`read_thclaws`, `write_thclaws`;
// Python and Node: `read_thclaws_digest`, `write_thclaws_json`).
/// One turn of a portable session.
#[bridge(core = sessiondb::portable::PortableTurn, new, skip(python, node))]
pub struct PortableTurn {
    /// `user`, `assistant`, `system` or `tool`.
    pub role: String,
    /// The content blocks as a JSON array of thClaws block objects
    /// (`{"type":"text","text":...}`, `thinking`, `tool_use`, `tool_result`, `image`, others verbatim).
    pub blocks_json: String,
    /// Time of the turn, ms since the Unix epoch.
    #[bridge(default)]
    pub timestamp_ms: Option<i64>,
    /// Model that wrote the turn (assistant turns).
    #[bridge(default)]
    pub model: Option<String>,
    /// Provider of that model.
    #[bridge(default)]
    pub provider: Option<String>,
}

/// A session read from a thClaws file (seed 002), with the figures the core derives.
#[bridge(core = sessiondb::portable::ThclawsSession, twin, output, skip(python, node))]
pub struct PortableSession {
    /// Source session id.
    pub id: String,
    /// Title (latest `rename` wins).
    pub title: Option<String>,
    /// Model as the source names it (thClaws `provider/model`).
    pub model: Option<String>,
    /// Provider.
    pub provider: Option<String>,
    /// Working directory as written.
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    pub created_at_ms: Option<i64>,
    /// Every turn, in order, including turns a later compaction superseded.
    pub turns: Vec<PortableTurn>,
    /// The history a thClaws reader resumes with: the last compaction's
    /// messages, then the turns after it (seed 002, "Compaction").
    pub active_turns: Vec<PortableTurn>,
    /// Tool-use blocks over all turns.
    pub tool_calls: u64,
    /// Tool-result blocks over all turns.
    pub tool_results: u64,
    /// Steps of the latest plan snapshot.
    pub plan_steps: u64,
    /// Compaction checkpoints.
    pub compactions: u64,
    /// Lines of unknown kind kept verbatim.
    pub other_lines: u64,
}

/// A thClaws file, read.
#[bridge(core = sessiondb::portable::ThclawsRead, twin, output, skip(python, node))]
pub struct ThclawsRead {
    /// The session in the file.
    pub session: PortableSession,
    /// What the reader saw (lines, torn tail, skipped lines...).
    pub report: ReadReport,
}

/// A session to write as thClaws JSONL.
#[bridge(core = sessiondb::portable::NewPortableSession, new, skip(python, node))]
pub struct NewPortableSession {
    /// Session id.
    pub id: String,
    /// Title (written as a final `rename` line).
    #[bridge(default)]
    pub title: Option<String>,
    /// Model.
    #[bridge(default)]
    pub model: Option<String>,
    /// Provider.
    #[bridge(default)]
    pub provider: Option<String>,
    /// Working directory.
    #[bridge(default)]
    pub cwd: Option<String>,
    /// Creation time, ms since the Unix epoch.
    #[bridge(default)]
    pub created_at_ms: Option<i64>,
    /// The turns, in order.
    pub turns: Vec<PortableTurn>,
}

/// Per-session figures of one file import.
#[bridge(core = sessiondb::portable::SessionImport, output)]
pub struct SessionImport {
    /// Store session id.
    pub session_id: String,
    /// True when this import created the session.
    pub created: bool,
    /// Transcript entries appended.
    pub entries: u64,
    /// Tool-use blocks in those entries.
    pub tool_calls: u64,
    /// Tool-result blocks in those entries.
    pub tool_results: u64,
    /// Token-ledger records added.
    pub usage_records: u64,
    /// Input tokens added (cached included).
    pub input_tokens: u64,
    /// Output tokens added.
    pub output_tokens: u64,
    /// Cached input tokens added.
    pub cached_tokens: u64,
    /// Context extensions added (plan, goal, compaction, raw lines...).
    pub context_extensions: u64,
    /// Turns skipped because the session already holds their source line.
    pub skipped_already_stored: u64,
}

// ---- search (issue 26; docs/search.md)

/// Options of `search`: every field may be left out.
#[bridge(core = sessiondb::SearchOptions, new)]
pub struct SearchOptions {
    /// Hits per page, 1..=1000 (none: 20).
    #[bridge(default)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page (same query and mode).
    #[bridge(default)]
    pub cursor: Option<String>,
    /// Best hit per session (a resume picker) instead of every entry.
    #[bridge(default)]
    pub sessions: bool,
    /// The path `workspace:current` / `workspace:other` compare with (none:
    /// the process's current directory).
    #[bridge(default)]
    pub workspace_path: Option<String>,
    /// Snippet length in characters, 20..=2000 (none: 160).
    #[bridge(default)]
    pub snippet_chars: Option<u32>,
}

/// One highlighted range of a snippet, `[start, end)` in the host's own
/// string indexing: Python `str` indices (code points); JavaScript, Kotlin
/// and Swift UTF-16 code units (Swift: `snippet.utf16`).
#[bridge(core = sessiondb::Highlight, output)]
pub struct Highlight {
    /// First index.
    pub start: u32,
    /// One past the last index.
    pub end: u32,
}

/// One search hit.
#[bridge(core = sessiondb::SearchHit, output)]
pub struct SearchHit {
    /// Session id.
    pub session_id: String,
    /// Entry seq; 0 for a hit in the session's title.
    pub seq: u64,
    /// `user`, `assistant`, `tool` or `system`; none for a title hit.
    pub role: Option<String>,
    /// Entry time (title: the session's last activity), ms since the Unix epoch.
    pub time_ms: i64,
    /// Relevance (BM25; higher is better).
    pub score: f64,
    /// Where the snippet is from: `text`, `tool`, `output`, `thinking` or `title`.
    pub field: String,
    /// A window of that text (`…` where cut, control characters as spaces).
    #[bridge(redact)]
    pub snippet: String,
    /// The matches in `snippet`.
    pub highlights: Vec<Highlight>,
}

/// A page of search hits.
#[bridge(core = sessiondb::SearchResults, output)]
pub struct SearchResults {
    /// Hits, best first.
    pub hits: Vec<SearchHit>,
    /// Matching entries (sessions mode: sessions) over all pages.
    pub total: u64,
    /// Pass as `cursor` for the next page; none on the last page.
    pub next_cursor: Option<String>,
}

/// What `rebuild_search_index` did.
#[bridge(core = sessiondb::RebuildReport, output)]
pub struct RebuildReport {
    /// Documents indexed (entries and titles).
    pub documents: u64,
    /// Plaintext bytes of text indexed.
    pub content_bytes: u64,
    /// Bytes of the encrypted index files.
    pub index_bytes: u64,
}

// ---- the store's methods: the core method's parameters and `Ok` type;
// `core = path`: a free function of the core taking the store first.
// `defaults(...)`: Python's defaults (Node: optional, Kotlin/Swift: defaults).

trait SessionStore {
    /// The database file path.
    #[bridge(sync, infallible, getter, returns = "String")]
    fn path(&self) -> &Path;

    /// This handle's owner id (recorded on the operations it dispatches).
    #[bridge(sync, infallible, getter, returns = "String")]
    fn instance_id(&self) -> &str;

    /// Which key backend the data key came from.
    #[bridge(sync, infallible, getter, returns = "String")]
    fn key_backend(&self) -> &str;

    /// True once `close()` ran.
    #[bridge(sync, infallible, getter = "closed")]
    fn is_closed(&self) -> bool;

    /// Close the handle (checkpoints the WAL, releases the owner lock).
    /// Later calls fail with `Closed`; closing twice is a no-op (Kotlin:
    /// `closeStore()`).
    #[bridge(infallible)]
    fn close(&self);

    /// Schema version, counts and file sizes.
    #[bridge(errors(Closed))]
    fn stats(&self) -> StoreStats;

    /// This store's data key as a recovery key: 56 base32 characters (key
    /// and a 3-byte checksum) in 14 groups of 4 joined by `-`. Whoever holds
    /// it can decrypt every session.
    #[bridge(infallible)]
    fn recovery_key(&self) -> String;

    /// Copy this store into `dest` (another store: a file or a PostgreSQL
    /// URL), incrementally, moving ciphertext as it is: the rows added per
    /// kind and the sessions refused (`conflicts`). `KeyMismatch`: dest has
    /// another data key; nothing is written.
    #[bridge(errors(KeyMismatch, Closed, Busy, Io))]
    fn copy_to(&self, dest: &SessionStore) -> CopyReport;

    /// Sessions by workspace, most recently active first, at most `limit`.
    /// `scope`: "current" (bound to `path`), "other" (bound to another
    /// workspace than `path`), "unbound", "all". Only the page is decrypted
    /// (the HMAC workspace index selects it).
    #[bridge(core = sessiondb::SessionStore::list_sessions_in_scope, defaults(path = None, limit = None), errors(InvalidInput), skip(uniffi))]
    fn list_sessions_for_workspace(&self, scope: &str, path: Option<String>, limit: Option<u32>) -> Vec<Session>;

    /// Kotlin/Swift's form: the sessions `filter` selects, most recently
    /// active first, at most `limit`.
    #[bridge(defaults(limit = None), skip(python, node), errors(InvalidInput))]
    fn list_sessions_for_workspace(&self, filter: WorkspaceFilter, limit: Option<u32>) -> Vec<Session>;

    /// Create a session titled `name` (none = untitled), bound to
    /// `workspace_path` (made canonical) if given, with a new uuid v7 id.
    /// Python and Node take every field of `NewSession` here.
    #[bridge(defaults(name = None, workspace_path = None), skip(python, node), errors(InvalidInput, Closed))]
    fn create_session(&self, name: Option<String>, workspace_path: Option<String>) -> Session;

    /// Create a session titled `name` (none = untitled), bound to
    /// `workspace_path` (made canonical) if given; the other fields of
    /// `NewSession` are keyword arguments (Python) or an options object
    /// (Node). `id` none = a new uuid v7; an `id` that exists is `Conflict`.
    #[bridge(core = sessiondb::SessionStore::create_session_with, skip(uniffi), keywords(new = "name, workspace_path"), errors(Conflict, InvalidInput, Closed))]
    fn create_session(&self, new: NewSession) -> Session;

    /// Create a session with every field of `NewSession` (imports, forks;
    /// `Conflict`: the id exists).
    #[bridge(skip(python, node), errors(Conflict, InvalidInput, Closed))]
    fn create_session_with(&self, new: NewSession) -> Session;

    /// One session.
    #[bridge(errors(NotFound))]
    fn get_session(&self, id: &str) -> Session;

    /// Every session, most recently active first, at most `limit` (none = all).
    #[bridge(defaults(limit = None))]
    fn list_sessions(&self, limit: Option<u32>) -> Vec<Session>;

    /// Resolve a full id, a unique id prefix or an exact title.
    #[bridge(errors(NotFound, Conflict))]
    fn find_session(&self, id_prefix_or_title: &str) -> Session;

    /// Delete a session with its transcript, tokens and context extensions
    /// (its journal stays).
    #[bridge(errors(NotFound))]
    fn delete_session(&self, id: &str);

    /// Delete sessions by a retention policy (issue 30; SECURITY.md
    /// "Deletion"): those whose last activity is more than `max_age_days`
    /// days old, or that rank past the newest `max_sessions`; the newest
    /// `keep_latest` and (with `keep_named`) named sessions are kept, and so
    /// is a session written to meanwhile. Each deletion is a `SessionDeleted`
    /// journal event `{entries, reason, title, updated_at_ms}`. `dry_run`:
    /// list what would go, delete nothing. No limit: nothing. Oldest first.
    #[bridge(core = sessiondb::privacy::retention::prune_sessions, defaults(max_age_days = None, max_sessions = None, keep_named = true, keep_latest = 1, dry_run = false), errors(Busy, Closed))]
    fn prune(&self, max_age_days: Option<u32>, max_sessions: Option<u32>, keep_named: bool, keep_latest: u32, dry_run: bool) -> Vec<PrunedSession>;

    /// Append one entry; returns it with its seq.
    #[bridge(errors(NotFound, InvalidInput))]
    fn append_transcript(&self, session_id: &str, role: Role, content: String) -> TranscriptEntry;

    /// Append entries in one transaction (all or none); returns them with
    /// their seqs, which are gapless.
    #[bridge(errors(NotFound, InvalidInput))]
    fn append_entries(&self, session_id: &str, entries: Vec<NewEntry>) -> Vec<TranscriptEntry>;

    /// `append_entries` with per-entry metadata, one transaction (all or
    /// none): a model or provider name over 256 bytes or with control
    /// characters, an `extra` (Kotlin/Swift `extraJson`) that is not a JSON
    /// object or an `item` that is not JSON text is `InvalidInput`.
    #[bridge(errors(NotFound, InvalidInput, Closed))]
    fn append_entries_with_meta(&self, session_id: &str, entries: Vec<NewEntryWithMeta>) -> Vec<TranscriptEntry>;

    /// One page: up to `limit` (1..=10000) entries with `seq >= from_seq`.
    #[bridge(defaults(from_seq = 1, limit = 1000), errors(NotFound, AuthenticationFailed, InvalidInput))]
    fn get_transcript(&self, session_id: &str, from_seq: u64, limit: u32) -> Vec<TranscriptEntry>;

    /// The last `limit` (1..=10000) entries, in seq order (all of a shorter session).
    #[bridge(defaults(limit = 1000), errors(NotFound, AuthenticationFailed, InvalidInput))]
    fn get_transcript_tail(&self, session_id: &str, limit: u32) -> Vec<TranscriptEntry>;

    /// `get_transcript` with each entry's metadata (an empty `EntryMeta`
    /// for entries written without).
    #[bridge(defaults(from_seq = 1, limit = 1000), returns = "Vec<TranscriptEntryWithMeta>", errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_transcript_with_meta(&self, session_id: &str, from_seq: u64, limit: u32) -> Vec<(TranscriptEntry, EntryMeta)>;

    /// The last `limit` (1..=10000) entries with their metadata, in seq
    /// order, in one read.
    #[bridge(defaults(limit = 1000), returns = "Vec<TranscriptEntryWithMeta>", errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_transcript_tail_with_meta(&self, session_id: &str, limit: u32) -> Vec<(TranscriptEntry, EntryMeta)>;

    /// Up to `limit` (1..=10000) entries with `seq >= from_seq` as their
    /// structured items, in one read (see `ItemPage`). Contents of entries
    /// with an item are not decrypted.
    #[bridge(defaults(from_seq = 1, limit = 1000), skip(uniffi), errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_entry_items(&self, session_id: &str, from_seq: u64, limit: u32) -> ItemPage;

    /// The last `limit` (1..=10000) entries as their structured items, in
    /// seq order, in one read (see `ItemPage`).
    #[bridge(defaults(limit = 1000), skip(uniffi), errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_entry_items_tail(&self, session_id: &str, limit: u32) -> ItemPage;

    /// Retract entry `seq`: it stays stored but is left out of reads, counts,
    /// export, fork and the context from now on (one EntryRetracted journal
    /// event). Returns the entry, or none when it was already retracted.
    #[bridge(errors(NotFound, Busy))]
    fn retract_entry(&self, session_id: &str, seq: u64) -> Option<TranscriptEntry>;

    /// Retract the last visible entry and return it (none when there is
    /// none): the Agents SDK's `pop_item`.
    #[bridge(errors(NotFound, Busy))]
    fn retract_last_entry(&self, session_id: &str) -> Option<TranscriptEntry>;

    /// Sums of a session's token ledger.
    #[bridge(errors(NotFound))]
    fn token_totals(&self, session_id: &str) -> TokenTotals;

    /// Append a context extension (pin, plan, artifact...): `kind` in
    /// plaintext, `body_json` JSON text (stored encrypted). Returns its number `n`.
    #[bridge(errors(NotFound, InvalidInput))]
    fn append_context_extension(&self, session_id: &str, kind: &str, body_json: &str) -> u64;

    /// A session's context extensions, in `n` order.
    #[bridge(errors(NotFound, AuthenticationFailed))]
    fn list_context_extensions(&self, session_id: &str) -> Vec<ContextExtension>;

    /// Meter and per-turn state of a stored session (`/context`) for a model
    /// with a `raw_window`-token context window and an optional output
    /// reserve (tokens). `model` defaults to the session's model; it picks
    /// the tokenizer and caps the reserve by the model's known maximum output.
    #[bridge(core = sessiondb::context::context_status, defaults(output_reserve = None, model = None), errors(NotFound, InvalidInput))]
    fn context_status(&self, session_id: &str, raw_window: u64, output_reserve: Option<u64>, model: Option<String>) -> ContextStatus;

    /// What the model sees next for a `raw_window`-token window (DESIGN.md
    /// "Context governance"): every visible entry in order, verbatim,
    /// compacted (a run is one item with its summary) or excluded, with its
    /// tokens, from stored counts. Records nothing.
    #[bridge(core = sessiondb::context::active_context, defaults(output_reserve = None, model = None), errors(NotFound, InvalidInput, AuthenticationFailed, Corrupt))]
    fn active_context(&self, session_id: &str, raw_window: u64, output_reserve: Option<u64>, model: Option<String>) -> ActiveContextView;

    /// Resolve a reference (id, unique id prefix or exact title) as
    /// `/load` does (seed 002), preferring sessions of `workspace`.
    #[bridge(core = sessiondb::portable::resolve_session, defaults(workspace = None), errors(NotFound, Conflict))]
    fn resolve_session(&self, reference: &str, workspace: Option<&str>) -> Session;

    /// The 20 most recently active sessions (seed 002 `/sessions`).
    #[bridge(core = sessiondb::portable::recent_sessions)]
    fn recent_sessions(&self) -> Vec<Session>;

    /// Set (a string) or clear (none) a session's title.
    #[bridge(errors(NotFound))]
    fn rename_session(&self, id: &str, name: Option<String>) -> Session;

    /// Change a session's model and provider; the id stays (seed 002 `/model`).
    #[bridge(defaults(provider = None), errors(NotFound))]
    fn set_session_model(&self, id: &str, model: Option<String>, provider: Option<String>) -> Session;

    /// Set a session's work mode (host-defined, e.g. `plan`, `build`).
    #[bridge(errors(NotFound))]
    fn set_work_mode(&self, id: &str, work_mode: Option<String>) -> Session;

    /// Journal events of a session from `from_seq` (inclusive), at most `limit` (1..=10000).
    #[bridge(defaults(from_seq = 1, limit = 1000), errors(NotFound, AuthenticationFailed, InvalidInput))]
    fn journal_events(&self, session_id: &str, from_seq: u64, limit: u32) -> Vec<JournalEvent>;

    /// Add one token-ledger record (seed 000 `recordTokens(entry)`; Python:
    /// the record's fields as keyword arguments).
    #[bridge(keywords(usage), errors(NotFound, InvalidInput))]
    fn record_tokens(&self, session_id: &str, usage: TokenUsage);

    /// Append one journal event, idempotent by `event_id`: the same event
    /// again returns the original seq with `duplicate = true` (Python: the
    /// event's fields as arguments). The session is the event's aggregate:
    /// it need not be a stored session. `Conflict`: the same id with other
    /// content, or a second dispatch or terminal of one operation;
    /// `NotFound`: a terminal event of an operation never dispatched.
    #[bridge(flatten(event), errors(Conflict, NotFound, InvalidInput))]
    fn journal_append(&self, event: NewEvent) -> AppendOutcome;

    /// Record that an operation's effect was dispatched, owned by this
    /// handle (`payload`: any JSON value, `null` when left out; Kotlin/Swift
    /// `payloadJson`, JSON text). Idempotent for the same payload;
    /// `Conflict`: dispatched before with another payload.
    #[bridge(defaults(payload = None), errors(Conflict, InvalidInput))]
    fn dispatch_operation(&self, session_id: &str, operation_id: &str, payload: Option<serde_json::Value>) -> AppendOutcome;

    /// Record an operation's terminal event (idempotent for the same outcome
    /// and payload). `NotFound`: never dispatched.
    #[bridge(defaults(payload = None), errors(Conflict, NotFound, InvalidInput))]
    fn complete_operation(&self, session_id: &str, operation_id: &str, outcome: OperationOutcome, payload: Option<serde_json::Value>) -> AppendOutcome;

    /// Operations dispatched without a terminal event.
    #[bridge(returns = "Vec<OpenOperation>")]
    fn open_operations(&self) -> Vec<(String, String, String)>;

    /// Run the recovery pass (seed 000, "Recovery Pass"): mark every open
    /// operation whose owner is gone `OperationUnknownOutcome`.
    #[bridge(errors(Busy, Closed))]
    fn recover(&self) -> RecoveryReport;

    /// The report of the recovery pass run at open.
    #[bridge(sync, infallible)]
    fn open_recovery_report(&self) -> RecoveryReport;

    /// Replay a session's pins, exclusions and compactions (after a restart).
    #[bridge(core = sessiondb::context::recover_context_governance, errors(NotFound, AuthenticationFailed, Corrupt))]
    fn recover_context_governance(&self, session_id: &str) -> ContextGovernance;

    /// Record a governance decision (`kind` = `pin`, `unpin`, `exclude` or
    /// `include`) on transcript seqs; returns the extension number `n`.
    #[bridge(core = sessiondb::context::record_turn_decision, errors(InvalidInput, NotFound))]
    fn record_turn_decision(&self, session_id: &str, kind: &str, seqs: &[u64]) -> u64;

    /// Open a saved session (seed 000, "Session Restoration Boundary"): its
    /// knowledge (transcript, model, work mode, workspace, token totals,
    /// governance, other extensions) and a fresh authority. Reads only.
    #[bridge(core = sessiondb::restore::open_saved_session, errors(NotFound, AuthenticationFailed, Corrupt))]
    fn open_saved_session(&self, session_id: &str) -> OpenedSession;

    /// A stored session as thClaws JSONL text (what real thClaws reads).
    #[bridge(core = sessiondb::portable::export_thclaws_text, errors(NotFound, AuthenticationFailed))]
    fn export_thclaws(&self, session_id: &str) -> String;

    /// Export a stored session as thClaws JSONL into the file at `path`
    /// (written to a private 0600 temporary file beside it, renamed over it once
    /// complete: a failed export leaves the old file), streamed; returns what was written.
    #[bridge(core = sessiondb::portable::export_thclaws_to_file, errors(NotFound, Io, AuthenticationFailed))]
    fn export_thclaws_to_file(&self, session_id: &str, path: &Path) -> WriteReport;

    /// Import every session file under `paths` (files or directory trees;
    /// inside a directory only `*.jsonl` files, format detected per file).
    /// Returns one report per file, in the order of `paths` (each tree in
    /// sorted walk order). Nothing aborts the whole import: a path that
    /// cannot be read becomes a `failed` report whose `error` names it.
    /// There is no progress callback (Kotlin/Swift: a listener).
    #[bridge(core = sessiondb::portable::import_paths_report, skip(uniffi))]
    fn import_paths(&self, paths: &[PathBuf]) -> Vec<FileImport>;

    /// Import one session file (thClaws JSONL, Codex rollout or Claude Code
    /// transcript; format detected unless given). Incremental: a file
    /// imported before resumes after its last imported line. Problems with
    /// the file are in the report's status.
    #[bridge(core = sessiondb::portable::import_file, defaults(format = None), errors(Io, Closed))]
    fn import_file(&self, path: &Path, format: Option<SourceFormat>) -> FileImport;

    /// Plan compaction of a stored session's active context down to
    /// `target_percent` (default 70) of capacity (`/compact`); unless
    /// `dry_run`, record the plan. The saved transcript is never modified.
    #[bridge(core = sessiondb::context::compact_session, defaults(output_reserve = None, model = None, target_percent = None, dry_run = false), errors(ContextOverflow, NotFound, InvalidInput))]
    fn compact_session(&self, session_id: &str, raw_window: u64, output_reserve: Option<u64>, model: Option<String>, target_percent: Option<u8>, dry_run: bool) -> CompactionPlan;

    /// Fork a session (seed 002 `/fork`): a new session with the same model,
    /// provider and workspace, `forked_from`/`forked_at_seq` recorded, seeded
    /// with `summary` (one `system` entry) or with a copy of the entries up to
    /// and including `at_seq` (none = the last); with neither, with a summary
    /// of the whole old history.
    #[bridge(core = sessiondb::portable::fork_session, defaults(at_seq = None, summary = None), errors(NotFound, InvalidInput))]
    fn fork_session(&self, session_id: &str, at_seq: Option<u64>, summary: Option<String>) -> Session;

    /// Record a compaction plan (a context extension); returns its number
    /// `n`, or none for a plan without transformations (not recorded).
    #[bridge(core = sessiondb::context::record_compaction, errors(NotFound, InvalidInput))]
    fn record_compaction(&self, session_id: &str, plan: &CompactionPlan) -> Option<u64>;

    /// Sidebar order (seed 002): the 10 most recent sessions, titled first.
    #[bridge(core = sessiondb::portable::sidebar_sessions)]
    fn sidebar_sessions(&self) -> Vec<Session>;

    /// Search every session's messages, tool calls and outputs, thinking and
    /// titles (docs/search.md gives the query language: words, "phrases",
    /// prefix*, -excluded, OR, role:, session:, model:, after:, before:,
    /// in:, workspace:). The encrypted index catches up with the store first:
    /// every committed entry of any handle is found, deleted and retracted
    /// content never is. Highlights count code points (Python `str` indices).
    #[bridge(core = sessiondb::search::search_code_points, defaults(options = None), skip(node, uniffi), errors(InvalidInput, Io, Closed, Busy))]
    fn search(&self, query: &str, options: &SearchOptions) -> SearchResults;

    /// Search every session's messages, tool calls and outputs, thinking and
    /// titles (docs/search.md gives the query language). The encrypted index
    /// catches up with the store first: every committed entry of any handle
    /// is found, deleted and retracted content never is. Highlights count
    /// UTF-16 code units (JavaScript and Kotlin string indices, Swift `utf16`).
    #[bridge(core = sessiondb::search::search_utf16, defaults(options = None), skip(python), errors(InvalidInput, Io, Closed, Busy))]
    fn search(&self, query: &str, options: &SearchOptions) -> SearchResults;

    /// Rebuild the encrypted search index from the store (it is a cache:
    /// searching never needs this; after it, searches start from a fresh index).
    #[bridge(core = sessiondb::search::rebuild_search_index, errors(Io, Closed))]
    fn rebuild_search_index(&self) -> RebuildReport;
}

/// The seconds of a benchmark run's two phases (`_bench_core`): appending
/// the items and reading them back. Python keeps the `(append_s, read_s)`
/// tuple.
#[bridge(output, tuple, skip(python, uniffi))]
pub struct BenchTimes {
    /// Wall-clock seconds of the append phase.
    pub append_s: f64,
    /// Wall-clock seconds of the read phase.
    pub read_s: f64,
}

// ---- module functions: `core = path` names the core function; synchronous
// unless `blocking` (Node: a Promise; Python: GIL released) or `detach`
// (Python only: GIL released).

trait Functions {
    /// Effective Context Capacity in tokens (seed 000 "Context Utilization
    /// Meter"): `raw − max(min(output_reserve, model_max_output), ⌈8% raw⌉) −
    /// max(2048, ⌈2% raw⌉)`; 128,000 → 115,200. `output_reserve` and
    /// `model_max_output`: none when not configured or unknown. Never
    /// guesses a window.
    #[bridge(core = sessiondb::context::effective_context_capacity, defaults(output_reserve = None, model_max_output = None), errors(InvalidInput))]
    fn effective_context_capacity(raw: u64, output_reserve: Option<u64>, model_max_output: Option<u64>) -> u64;

    /// Every term of the Effective Context Capacity (tokens).
    #[bridge(core = sessiondb::context::capacity_breakdown, defaults(output_reserve = None, model_max_output = None), errors(InvalidInput))]
    fn capacity_breakdown(raw: u64, output_reserve: Option<u64>, model_max_output: Option<u64>) -> CapacityBreakdown;

    /// Effective Context Capacity for a known model name (its window and
    /// maximum output), in tokens.
    #[bridge(core = sessiondb::context::effective_context_capacity_for_model, defaults(output_reserve = None), errors(InvalidInput))]
    fn effective_context_capacity_for_model(model: &str, output_reserve: Option<u64>) -> u64;

    /// Published limits of a known model (case-insensitive prefix match), or
    /// none: the caller must then pass the window itself.
    #[bridge(core = sessiondb::context::known_model_limits, infallible)]
    fn known_model_limits(model: &str) -> Option<ModelLimits>;

    /// The meter for `active_tokens` against `capacity` (tokens): percent,
    /// the `Ctx N%` label, band and overflow.
    #[bridge(core = sessiondb::context::meter, errors(InvalidInput))]
    fn meter(active_tokens: u64, capacity: u64) -> ContextMeter;

    /// True when the projected context exceeds the capacity (compact before
    /// the provider call).
    #[bridge(core = sessiondb::context::should_compact, infallible)]
    fn should_compact(projected_tokens: u64, capacity: u64) -> bool;

    /// Token count of `text` for `model`: exact with the model's tokenizer,
    /// else the documented estimate; a host count always wins.
    #[bridge(core = sessiondb::context::count_tokens, defaults(host_count = None), infallible, detach)]
    fn count_tokens(model: &str, text: &str, host_count: Option<u64>) -> TokenCount;

    /// The documented estimate `⌈UTF-8 bytes / 3⌉` (no tokenizer), in tokens.
    #[bridge(core = sessiondb::context::estimate_tokens, infallible)]
    fn estimate_tokens(text: &str) -> u64;

    /// The tiktoken encoding of a model name, or none when its family has none.
    #[bridge(core = sessiondb::context::encoding_for_model, infallible)]
    fn encoding_for_model(model: &str) -> Option<Encoding>;

    /// Cut `text` to at most `max_chars` characters, ending with `…` when
    /// cut, never inside a character or a common grapheme cluster.
    #[bridge(core = sessiondb::context::truncate_chars, infallible)]
    fn truncate_chars(text: &str, max_chars: usize) -> String;

    /// The active context for the planner, from `entries` and `governance`
    /// (as `recover_context_governance` returns it): excluded turns left out,
    /// compacted turns as their summaries, tokens = the entry's count or
    /// `count_tokens(model, content)`.
    #[bridge(core = sessiondb::context::active_context_items, detach, errors(InvalidInput))]
    fn active_context_items(entries: &[TranscriptEntry], governance: &ContextGovernance, model: &str) -> Vec<ContextItem>;

    /// Plan the compaction of the active context (seed 000, "Context
    /// Compaction"): compact the oldest unpinned, unprotected items until the
    /// context is ≤ `target_percent` (default 70) of `capacity` (tokens); a
    /// tool call is never split from its result; summaries ≤ 240 characters.
    /// `items`: `ContextItem`s in order (Python: or dicts of their fields);
    /// `options`: the planner's (Python: a dict). `InvalidInput`: capacity 0,
    /// target > 100, seqs not increasing; `ContextOverflow`, with the token
    /// breakdown, when protected content alone exceeds capacity.
    #[bridge(core = sessiondb::context::compact_context, defaults(target_percent = None, options = None), dict(items = "context items", options = "compaction options"), detach, errors(ContextOverflow, InvalidInput))]
    fn compact_context(items: &[ContextItem], capacity: u64, target_percent: Option<u8>, options: &CompactionOptions) -> CompactionPlan;

    /// The active context after `plan`: each transformed item gets its
    /// summary (`compacted = true`, `tokens = tokens_after`); the others are
    /// unchanged. Python: `plan` and `items` may be dicts (InvalidInputError
    /// when one does not fit).
    #[bridge(core = sessiondb::context::CompactionPlan::apply, infallible, dict(plan = "compaction plan", items = "context items"))]
    fn apply_compaction(plan: &CompactionPlan, items: &[ContextItem]) -> Vec<ContextItem>;

    /// The deterministic summary of one item, at most 240 characters (seed
    /// 000, "Context Compaction"). Python: `item` may be a dict
    /// (InvalidInputError when it does not fit).
    #[bridge(core = sessiondb::context::summarize_item, infallible, dict(item = "context items"))]
    fn summarize_item(item: &ContextItem) -> String;

    /// Per-turn view of seqs `1..=entry_count` under `governance` (exclusion
    /// wins, then compaction); at most 1,000,000 turns.
    #[bridge(core = sessiondb::context::governance_turns, errors(InvalidInput))]
    fn governance_turns(governance: &ContextGovernance, entry_count: u64) -> Vec<TurnGovernance>;

    // ---- the envelope and key primitives (the crypto conformance cases)

    /// The AAD of an envelope v1 for `record_id`: `record_id:v1:aes-256-gcm`.
    #[bridge(core = sessiondb::primitives::envelope_aad, infallible)]
    fn envelope_aad(record_id: &str) -> String;

    /// Encrypt `plaintext` for `record_id` under the 32-byte `key` with a
    /// fresh random nonce; returns the envelope's JSON text.
    #[bridge(core = sessiondb::primitives::encrypt_field, blocking, errors(InvalidInput))]
    fn encrypt_field(key: &[u8], record_id: &str, plaintext: &[u8]) -> String;

    /// Decrypt an envelope (JSON text) written for `record_id`; returns the
    /// plaintext bytes.
    #[bridge(core = sessiondb::primitives::decrypt_field, blocking, errors(InvalidInput, Corrupt, AuthenticationFailed))]
    fn decrypt_field(key: &[u8], record_id: &str, envelope_json: &str) -> Vec<u8>;

    /// The workspace index of an already canonical path: lowercase hex of
    /// HMAC-SHA-256 under the index subkey of the 32-byte `key`.
    #[bridge(core = sessiondb::primitives::workspace_index, blocking, errors(InvalidInput))]
    fn workspace_index(key: &[u8], canonical_path: &str) -> String;

    /// The recovery key text of a 32-byte data key: base32 (RFC 4648) of the
    /// key and a 3-byte checksum, 56 characters in 14 groups of 4 joined by `-`.
    #[bridge(core = sessiondb::primitives::recovery_key_text, errors(InvalidInput))]
    fn recovery_key_text(key: &[u8]) -> String;

    /// The 32-byte data key of a recovery key (any case; whitespace and `-`
    /// ignored); "recovery key checksum mismatch" for a mistyped key.
    #[bridge(core = sessiondb::primitives::parse_recovery_key, errors(InvalidInput))]
    fn parse_recovery_key(text: &str) -> Vec<u8>;

    /// Read thClaws JSONL bytes (seed 002; the real format and the seed's
    /// `message` form). A torn last line and bad lines are reported, never fatal.
    /// `fallback_id` names a file without a header id. Python and Node:
    /// `read_thclaws_digest`.
    #[bridge(core = sessiondb::portable::read_thclaws_session, defaults(fallback_id = "session"), skip(python, node), errors(InvalidInput))]
    fn read_thclaws(data: &[u8], fallback_id: &str) -> ThclawsRead;

    /// Write a session as thClaws JSONL text (what real thClaws reads).
    /// `InvalidInput`: an unknown role, blocks not a JSON array. Python and
    /// Node: `write_thclaws_json`.
    #[bridge(core = sessiondb::portable::write_thclaws_session, skip(python, node), errors(InvalidInput))]
    fn write_thclaws(session: NewPortableSession) -> String;

    /// The format of a session file from its first lines, or none when it is
    /// none of thClaws, Codex rollout or Claude Code.
    #[bridge(core = sessiondb::portable::detect_format, blocking, errors(Io))]
    fn detect_format(path: &Path) -> Option<SourceFormat>;

    /// Read thClaws JSONL bytes and return what the reader saw (the fields
    /// of tests/conformance/portable/read_thclaws.json). Pure parsing.
    /// `InvalidInput`: the bytes hold no session.
    #[bridge(core = sessiondb::portable::read_thclaws_digest, defaults(fallback_id = "session"), detach, skip(uniffi), errors(InvalidInput))]
    fn read_thclaws_digest(data: &[u8], fallback_id: &str) -> ThclawsDigest;

    /// Write a session `{id, title?, model?, provider?, cwd?, created_at_ms?,
    /// turns: [{role, blocks, timestamp_ms?, model?, provider?}]}` (Python: a
    /// dict, `PortableSessionDict`; Node: an object) as thClaws JSONL text.
    /// Pure. `InvalidInput`: no `id`, `turns` not an array, an unknown role,
    /// a turn's `blocks` not an array.
    // Kotlin/Swift: `write_thclaws` of a `NewPortableSession` (bindings/src/portable.rs).
    #[bridge(core = sessiondb::portable::write_thclaws_json, detach, skip(uniffi), errors(InvalidInput), pyi(session = "PortableSessionDict"), ts(session = "{ id: string; title?: string | null; model?: string | null; provider?: string | null; cwd?: string | null; created_at_ms?: number | null; turns: Array<{ role: 'user' | 'assistant' | 'system' | 'tool'; blocks: Array<Record<string, unknown>>; timestamp_ms?: number | null; model?: string | null; provider?: string | null }> }"))]
    fn write_thclaws_json(session: &serde_json::Value) -> String;

    /// The default database path for `app` (seed 000 `sessionsDbPath()`):
    /// `$XDG_STATE_HOME/<app>/sessions.db` on Linux (falling back to
    /// `~/.local/state`), `~/Library/Application Support/<app>/sessions.db`
    /// on macOS, `%LOCALAPPDATA%\<app>\sessions.db` on Windows.
    /// `InvalidInput`: an app name that is not one path component; `Io`: no
    /// home directory is known.
    #[bridge(core = sessiondb::paths::default_db_path, defaults(app = "sessiondb"), returns = "String", errors(InvalidInput, Io))]
    fn default_db_path(app: &str) -> PathBuf;

    /// Canonical form of a workspace path (absolute, `.`/`..` resolved,
    /// symlinks resolved for the longest existing prefix, NFC; DESIGN.md
    /// "Workspace index"), a relative path taken against the current
    /// directory. Reads the disk.
    #[bridge(core = sessiondb::paths::canonical_workspace_in_cwd, blocking, errors(InvalidInput, Io))]
    fn canonical_workspace(path: &str) -> String;

    /// Benchmark helper, not API: the sessiondb run of the hosts' benchmarks
    /// (python/bench/bench_vs_agents_sdk.py, node/bench/bench.mjs) in Rust
    /// only. Opens the store at `path` under the 32-byte `key`, creates a
    /// session, appends `items` as user text (one `append_transcript` per
    /// item, or `append_entries` of `batch` items per call when `batch > 1`),
    /// then reads everything back in pages of `page` entries. Returns the
    /// wall-clock seconds of the append and the read phase (Python: the tuple
    /// `(append_s, read_s)`). Errors: those of opening the store, appending
    /// and reading (`InvalidInput` for a key that is not 32 bytes).
    #[bridge(core = sessiondb::bench::append_and_read, defaults(batch = 1), blocking, skip(uniffi))]
    fn _bench_core(path: &Path, key: &[u8], items: Vec<String>, page: u32, batch: usize) -> BenchTimes;
}

// ---- errors (every host's error mapping: bridge/src/errors.rs)

/// Every failure sessiondb reports, one variant per core error kind.
///
/// `detail` is always the complete human-readable message, including what the
/// user can do about it.
#[bridge(error, core = sessiondb::Error, kind = sessiondb::ErrorKind, uniffi = "SessionDbError")]
pub enum Error {
    /// The database exists but its data key is missing from the key source.
    /// No new key was written (seed 000, "Key Lifecycle": recovery-locked).
    RecoveryLocked {
        /// The key backend that was asked (e.g. `host key provider`).
        backend: String,
        /// The credential-store service name (the app name).
        #[bridge(skip(python, node))]
        service: String,
    },
    /// The key found does not open this database (its key-check value failed).
    KeyMismatch {
        /// The key backend the wrong key came from.
        backend: String,
    },
    /// No credential store could be reached, or it refused access (locked,
    /// denied...). Never read as "no key". Also raised when a host key
    /// provider throws something other than a `SessionDbError`.
    KeyStoreUnavailable {
        /// The backend, e.g. `Secret Service (D-Bus)`.
        backend: String,
        /// What failed, without secrets.
        #[bridge(skip(python, node))]
        reason: String,
        /// What the user can do about it.
        remedy: String,
    },
    /// A session, entry, operation or journal event does not exist.
    NotFound {
        /// Kind of thing, e.g. `session`.
        #[bridge(skip(python, node), get = "what.to_string()")]
        what: String,
        /// Its id.
        #[bridge(skip(python, node))]
        id: String,
    },
    /// The request conflicts with what is stored (same event id with another
    /// payload, ambiguous id prefix or title, existing session id...).
    Conflict {
        /// Why, without user content.
        #[bridge(skip(python, node))]
        reason: String,
    },
    /// An AEAD tag did not verify: a stored value was altered, moved or swapped.
    #[bridge(class = "AuthenticationError")]
    AuthenticationFailed {
        /// The record id used as AAD (e.g. `session:<id>:name`).
        #[bridge(skip(python, node))]
        record: String,
    },
    /// Stored data is not in the expected shape (not a database, bad
    /// envelope, schema newer than this build...).
    Corrupt {
        /// What is wrong, without user content.
        #[bridge(skip(python, node))]
        reason: String,
    },
    /// Another writer held the database lock past the busy timeout.
    Busy {
        /// The configured busy timeout, in milliseconds.
        timeout_ms: u64,
        /// How long the call really waited, in milliseconds.
        waited_ms: u64,
    },
    /// An argument is out of range or malformed.
    InvalidInput {
        /// What is wrong with it.
        #[bridge(skip(python, node))]
        reason: String,
    },
    /// The operating system refused a file operation. Python: an `OSError`,
    /// `FileNotFoundIoError` / `PermissionIoError` where the OS said so.
    #[bridge(pattern = "Io { step, source }", python_class = r#"match source.kind() {
        std::io::ErrorKind::NotFound => "FileNotFoundIoError",
        std::io::ErrorKind::PermissionDenied => "PermissionIoError",
        _ => "IoError",
    }"#)]
    Io {
        /// The step that failed (e.g. `creating the state directory`).
        #[bridge(skip(python, node), get = "step.to_string()")]
        step: String,
        /// The OS error kind as Rust names it (`NotFound`, `PermissionDenied`...).
        #[bridge(skip(python, node), get = r#"format!("{:?}", source.kind())"#)]
        os_kind: String,
        /// The OS error number, if the OS gave one.
        #[bridge(skip(uniffi), get = "source.raw_os_error()")]
        errno: Option<i32>,
        /// The OS error as a POSIX name: `ENOENT`, `EACCES`, `ENOSPC`, else `EIO`.
        #[bridge(skip(python, uniffi), get = r#"match source.kind() {
            std::io::ErrorKind::NotFound => "ENOENT",
            std::io::ErrorKind::PermissionDenied => "EACCES",
            std::io::ErrorKind::StorageFull => "ENOSPC",
            _ => "EIO",
        }"#)]
        io_kind: String,
    },
    /// SQLite reported an error that is none of the above.
    #[bridge(pattern = "Database(reason)", fallback)]
    Database {
        /// SQLite's message (never contains bound values).
        #[bridge(skip(python, node))]
        reason: String,
    },
    /// Irreducible Context Overflow: protected content alone exceeds the
    /// Effective Context Capacity (seed 000, "Context Compaction"). The
    /// fields are the token breakdown.
    #[bridge(pattern = "ContextOverflow(b)", node_object = "breakdown")]
    ContextOverflow {
        /// Effective Context Capacity measured against (tokens).
        #[bridge(get = "b.capacity")]
        capacity: u64,
        /// System prompt and other system items (tokens).
        #[bridge(get = "b.system")]
        system: u64,
        /// Pinned items (tokens).
        #[bridge(get = "b.pinned")]
        pinned: u64,
        /// Recent turns kept verbatim (tokens).
        #[bridge(get = "b.recent")]
        recent: u64,
        /// Protected tool results (tokens).
        #[bridge(get = "b.tool_results")]
        tool_results: u64,
        /// Anything else that could not be compacted (tokens).
        #[bridge(get = "b.other")]
        other: u64,
        /// Sum of the categories above (tokens).
        #[bridge(get = "b.protected_total")]
        protected_total: u64,
        /// What the user can do, most useful first (plain sentences).
        #[bridge(get = "b.remedies")]
        remedies: Vec<String>,
    },
    /// The store was closed (or used in a forked child); open it again.
    Closed,
}

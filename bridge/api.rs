// The one declaration of the records and enums the hosts expose (issue 11
// item 4). Not compiled: `sessiondb-bridge` (bridge/src/lib.rs, whose docs
// give the rules and the `#[bridge(...)]` attributes) parses it and writes
// each host's declarations into bridge/generated/ (committed): Python
// (`record!` classes), Node (`#[napi(object)]` interfaces) and Kotlin/Swift
// (`#[uniffi::remote]`, the core types as they are). A record or enum with
// `core = path` takes its fields, variants, types and docs from that core
// type (bridge/src/core_types.rs): it lists here only the fields where a
// host departs (`name: _` keeps the core's type) and its variants' `str`
// names; the doc every host shows is the first paragraph of the core
// item's. bridge/generated/api.rs is this file completed from the core.
// Checked against tests/api/surface.json by tests/api/surface.py like every host.

// ---- enums (Python and Node see the `str` names, the core's serde names)

#[bridge(core = sessiondb::Role, parse = sessiondb::Role::parse, pyi = "Role")]
pub enum Role {
    #[bridge(str = "user")] User,
    #[bridge(str = "assistant")] Assistant,
    #[bridge(str = "tool")] Tool,
    #[bridge(str = "system")] System,
}

#[bridge(core = sessiondb::ContentFormat, parse = sessiondb::ContentFormat::parse, pyi = "ContentFormat")]
pub enum ContentFormat {
    #[bridge(str = "text")] Text,
    #[bridge(str = "blocks")] Blocks,
}

#[bridge(core = sessiondb::context::Band, pyi = "Band")]
pub enum Band {
    #[bridge(str = "green")] Green,
    #[bridge(str = "amber")] Amber,
    #[bridge(str = "orange")] Orange,
    #[bridge(str = "red")] Red,
}

#[bridge(core = sessiondb::context::CompactionAction)]
pub enum CompactionAction {
    #[bridge(str = "summarized")] Summarized,
    #[bridge(str = "tool_result_preview")] ToolResultPreview,
}

#[bridge(core = sessiondb::context::TurnState)]
pub enum TurnState {
    #[bridge(str = "verbatim")] Verbatim,
    #[bridge(str = "compacted")] Compacted,
    #[bridge(str = "excluded")] Excluded,
}

#[bridge(core = sessiondb::context::ItemKind)]
pub enum ItemKind {
    #[bridge(str = "message")] Message,
    #[bridge(str = "tool_call")] ToolCall,
    #[bridge(str = "tool_result")] ToolResult,
    #[bridge(str = "system")] System,
}

#[bridge(core = sessiondb::context::Encoding, pyi = "Literal")]
pub enum Encoding {
    #[bridge(str = "o200k_base")] O200kBase,
    #[bridge(str = "cl100k_base")] Cl100kBase,
}

#[bridge(core = sessiondb::portable::SourceFormat, parse = sessiondb::portable::SourceFormat::parse, pyi = "SourceFormat")]
pub enum SourceFormat {
    #[bridge(str = "thclaws")] Thclaws,
    #[bridge(str = "codex")] Codex,
    #[bridge(str = "claude-code")] ClaudeCode,
    #[bridge(str = "gemini-cli")] GeminiCli,
    #[bridge(str = "opencode")] Opencode,
    #[bridge(str = "agents-sdk")] AgentsSdk,
}

#[bridge(core = sessiondb::portable::ExportFormat, parse = sessiondb::portable::ExportFormat::parse, pyi = "ExportFormat")]
pub enum ExportFormat {
    #[bridge(str = "thclaws")] Thclaws,
    #[bridge(str = "markdown")] Markdown,
    #[bridge(str = "json")] Json,
}

#[bridge(core = sessiondb::restore::PermissionProfile)]
pub enum PermissionProfile {
    #[bridge(str = "manual")] Manual,
}

#[bridge(core = sessiondb::journal::OperationOutcome, parse = sessiondb::journal::OperationOutcome::parse, pyi = "Outcome")]
pub enum OperationOutcome {
    #[bridge(str = "succeeded")] Succeeded,
    #[bridge(str = "failed")] Failed,
    #[bridge(str = "blocked")] Blocked,
    #[bridge(str = "cancelled")] Cancelled,
    #[bridge(str = "unknown")] UnknownOutcome,
}

// ---- enums with fields: Kotlin/Swift get them as they are (fields
// included); Python and Node see the `str` names (the core's `name()`), a
// field's other parts through `get` fields beside it.

#[bridge(core = sessiondb::context::CountMethod)]
pub enum CountMethod {
    #[bridge(str = "exact")] Exact,
    #[bridge(str = "estimate")] Estimate,
    #[bridge(str = "host")] Host,
}

#[bridge(core = sessiondb::portable::ImportStatus, pyi = "ImportStatus")]
pub enum ImportStatus {
    #[bridge(str = "imported")] Imported,
    #[bridge(str = "up_to_date")] UpToDate,
    #[bridge(str = "source_changed")] SourceChanged,
    #[bridge(str = "unrecognized")] Unrecognized,
    #[bridge(str = "failed")] Failed,
}

#[bridge(core = sessiondb::portable::SkipReason)]
pub enum SkipReason {
    #[bridge(str = "torn_tail")] TornTail,
    #[bridge(str = "invalid_utf8")] InvalidUtf8,
    #[bridge(str = "invalid_json")] InvalidJson,
    #[bridge(str = "not_an_object")] NotAnObject,
    #[bridge(str = "too_long")] TooLong,
}

// The names are the `scope` texts Python and Node pass with the path
// (`WorkspaceFilter::from_scope`).
#[bridge(core = sessiondb::WorkspaceFilter)]
pub enum WorkspaceFilter {
    #[bridge(str = "current")] Current,
    #[bridge(str = "other")] Other,
    #[bridge(str = "unbound")] Unbound,
    #[bridge(str = "all")] All,
}

// ---- the store

#[bridge(core = sessiondb::SessionRecord)]
pub struct Session;

#[bridge(core = sessiondb::UnreadableField)]
pub struct UnreadableField;

#[bridge(core = sessiondb::TranscriptEntry)]
pub struct TranscriptEntry;

#[bridge(core = sessiondb::NewEntry, new)]
pub struct NewEntry {
    #[bridge(redact)]
    pub content: _,
    #[bridge(host_default = "\"text\"")]
    pub format: _,
    #[bridge(default)]
    pub created_at_ms: _,
    #[bridge(default)]
    pub tokens: _,
    #[bridge(default)]
    pub source_line: _,
}

// Python: `record_tokens(session_id, input=0, output=0, ...)` keywords.
#[bridge(core = sessiondb::TokenUsage, new, skip(python))]
pub struct TokenUsage {
    #[bridge(host_default = "0")]
    pub input: _,
    #[bridge(host_default = "0")]
    pub output: _,
    #[bridge(default)]
    pub cached: _,
    #[bridge(default)]
    pub model: _,
    #[bridge(default)]
    pub provider: _,
}

// Python keeps the pairs and triples as tuples.
#[bridge(core = sessiondb::RecoveryReport, twin, output)]
pub struct RecoveryReport {
    #[bridge(node = "Vec<MarkedOperation>", uniffi = "Vec<MarkedOperation>")]
    pub marked_unknown: _,
    #[bridge(node = "Vec<FailedOperation>", uniffi = "Vec<FailedOperation>")]
    pub failed: _,
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

#[bridge(core = sessiondb::TokenTotals)]
pub struct TokenTotals;

#[bridge(core = sessiondb::ContextExtensionRecord)]
pub struct ContextExtension;

#[bridge(core = sessiondb::journal::AppendOutcome)]
pub struct AppendOutcome;

#[bridge(core = sessiondb::StoreStats)]
pub struct StoreStats;

#[bridge(core = sessiondb::CopyReport)]
pub struct CopyReport;

#[bridge(core = sessiondb::CopyConflict)]
pub struct CopyConflict;

#[bridge(core = sessiondb::JournalEvent, output, twin)]
pub struct JournalEvent {
    #[bridge(python = "crate::json::Json", ts = "any")]
    pub payload: _,
}

#[bridge(core = sessiondb::EntryMeta, new, twin)]
pub struct EntryMeta {
    #[bridge(default)]
    pub model: _,
    #[bridge(default)]
    pub provider: _,
    #[bridge(default = "\"{}\"", python = "crate::json::Json", node = "serde_json::Value", ts = "Record<string, unknown>")]
    pub extra: _,
    #[bridge(default)]
    pub item: _,
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

#[bridge(core = sessiondb::NewSession, new, skip(python, node))]
pub struct NewSession {
    #[bridge(default)]
    pub id: _,
    #[bridge(default)]
    pub name: _,
    #[bridge(default)]
    pub workspace_path: _,
    #[bridge(default)]
    pub model: _,
    #[bridge(default)]
    pub provider: _,
    #[bridge(default)]
    pub work_mode: _,
    #[bridge(default)]
    pub created_at_ms: _,
    #[bridge(default)]
    pub forked_from: _,
    #[bridge(default)]
    pub forked_at_seq: _,
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

#[bridge(core = sessiondb::ItemPage, output, skip(uniffi))]
pub struct ItemPage {
    pub without_item: Vec<TranscriptEntryWithMeta>,
}

#[bridge(core = sessiondb::NewEvent, new, twin, skip(python))]
pub struct NewEvent {
    #[bridge(default)]
    pub operation_id: _,
    #[bridge(ts = "any")]
    pub payload: _,
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

#[bridge(core = sessiondb::portable::ReadReport, twin, output)]
pub struct ReadReport {
    #[bridge(uniffi = "HashMap<String, u64>")]
    pub kinds: _,
    #[bridge(uniffi = "HashMap<String, u64>")]
    pub not_imported: _,
    #[bridge(uniffi = "HashMap<String, u64>")]
    pub kept_raw: _,
}

#[bridge(core = sessiondb::portable::WriteReport, output)]
pub struct WriteReport;

// ---- context governance (seed 000, "Context Utilization Meter", "Context Compaction")

#[bridge(core = sessiondb::context::CapacityBreakdown, output)]
pub struct CapacityBreakdown;

#[bridge(core = sessiondb::context::ModelLimits, output)]
pub struct ModelLimits;

#[bridge(core = sessiondb::context::TokenCount, output)]
pub struct TokenCount {
    pub method: _,
    /// The encoding of an exact count; none otherwise.
    #[bridge(get = "c.method.encoding()", skip(uniffi))]
    pub encoding: Option<Encoding>,
}

#[bridge(core = sessiondb::context::ContextMeter, output)]
pub struct ContextMeter;

#[bridge(core = sessiondb::context::Transformation)]
pub struct Transformation;

#[bridge(core = sessiondb::context::TurnGovernance, output)]
pub struct TurnGovernance;

#[bridge(core = sessiondb::context::CompactedRun, twin)]
pub struct CompactedRun {
    pub transformation: Transformation,
}

#[bridge(core = sessiondb::context::ContextStatus, output, twin)]
pub struct ContextStatus;

#[bridge(core = sessiondb::context::ActiveItem, output)]
pub struct ActiveItem;

#[bridge(core = sessiondb::context::ActiveContextView, output)]
pub struct ActiveContextView;

#[bridge(core = sessiondb::context::CompactionPlan, dict = "Dict[str, Any]")]
pub struct CompactionPlan {
    pub transformations: _,
    /// The seqs of `transformations`, every seq of each run, ascending
    /// (derived: not read when a plan is passed back in).
    // Kotlin/Swift read the runs: the core type has no such field.
    #[bridge(get = "c.compacted_seqs()", skip(uniffi))]
    pub compacted_seqs: Vec<u64>,
}

#[bridge(core = sessiondb::context::ContextItem, new, dict = "ContextItemDict")]
pub struct ContextItem {
    #[bridge(pyi = "Role")]
    pub role: _,
    #[bridge(default)]
    pub pinned: _,
    #[bridge(default, redact)]
    pub text: _,
    #[bridge(default)]
    pub call_ids: _,
    #[bridge(default)]
    pub compacted: _,
}

// Python takes it as a dict (`CompactionOptionsDict`, the core's serde shape).
#[bridge(core = sessiondb::context::CompactionOptions, new, twin, skip(python), dict = "CompactionOptionsDict")]
pub struct CompactionOptions {
    #[bridge(default = "2", host_default = "2", uniffi = "u32")]
    pub recent_user_turns: _,
    #[bridge(default)]
    pub model: _,
}

#[bridge(core = sessiondb::context::CompactionHistoryEntry)]
pub struct CompactionHistoryEntry;

#[bridge(core = sessiondb::context::ContextGovernance, twin)]
pub struct ContextGovernance;

// ---- the restore boundary (seed 000, "Session Restoration Boundary")

#[bridge(core = sessiondb::restore::SavedSessionState, twin, output)]
pub struct SavedSessionState;

#[bridge(core = sessiondb::restore::Authority, twin, output)]
pub struct Authority {
    #[bridge(get = "c.permission_profile()")]
    pub permission_profile: _,
    #[bridge(get = "c.full_access()")]
    pub full_access: _,
    #[bridge(get = "c.sensitive_transfer()")]
    pub sensitive_transfer: _,
    #[bridge(get = "c.temporary_approvals().to_vec()")]
    pub temporary_approvals: _,
}

#[bridge(core = sessiondb::restore::OpenedSession, twin, output)]
pub struct OpenedSession;

// ---- portable sessions (seed 002)

#[bridge(core = sessiondb::privacy::PrunedSession, output)]
pub struct PrunedSession;

#[bridge(core = sessiondb::portable::SkippedLine, output)]
pub struct SkippedLine {
    pub reason: _,
    /// 1-based column where parsing failed, for `invalid_json` only.
    #[bridge(get = "c.reason.column()", skip(uniffi))]
    pub column: Option<u64>,
}

#[bridge(core = sessiondb::portable::FileImport, output, twin)]
pub struct FileImport {
    pub status: _,
    /// The failure message (names the step, no content) of a `failed` status.
    #[bridge(get = "c.status.error()", skip(uniffi))]
    pub error: Option<String>,
    #[bridge(omit)]
    pub not_session: _,
}

#[bridge(core = sessiondb::portable::DigestSkippedLine, output, skip(uniffi))]
pub struct DigestSkippedLine {
    #[bridge(names = SkipReason)]
    pub reason: _,
}

// Kotlin/Swift have `read_thclaws` (`ThclawsRead`) instead.
#[bridge(core = sessiondb::portable::ThclawsDigest, output, skip(uniffi))]
pub struct ThclawsDigest;

// Kotlin/Swift's thClaws reader and writer (`read_thclaws`, `write_thclaws`;
// Python and Node: `read_thclaws_digest`, `write_thclaws_json`).
#[bridge(core = sessiondb::portable::PortableTurn, new, skip(python, node))]
pub struct PortableTurn {
    #[bridge(default)]
    pub timestamp_ms: _,
    #[bridge(default)]
    pub model: _,
    #[bridge(default)]
    pub provider: _,
}

#[bridge(core = sessiondb::portable::ThclawsSession, twin, output, skip(python, node))]
pub struct PortableSession;

#[bridge(core = sessiondb::portable::ThclawsRead, twin, output, skip(python, node))]
pub struct ThclawsRead;

#[bridge(core = sessiondb::portable::NewPortableSession, new, skip(python, node))]
pub struct NewPortableSession {
    #[bridge(default)]
    pub title: _,
    #[bridge(default)]
    pub model: _,
    #[bridge(default)]
    pub provider: _,
    #[bridge(default)]
    pub cwd: _,
    #[bridge(default)]
    pub created_at_ms: _,
}

#[bridge(core = sessiondb::portable::SessionImport, output)]
pub struct SessionImport;

// ---- search (issue 26; docs/search.md)

#[bridge(core = sessiondb::SearchOptions, new)]
pub struct SearchOptions {
    #[bridge(default)]
    pub limit: _,
    #[bridge(default)]
    pub cursor: _,
    #[bridge(default)]
    pub sessions: _,
    #[bridge(default)]
    pub workspace_path: _,
    #[bridge(default)]
    pub snippet_chars: _,
}

#[bridge(core = sessiondb::Highlight, output)]
pub struct Highlight;

#[bridge(core = sessiondb::SearchHit, output)]
pub struct SearchHit {
    #[bridge(redact)]
    pub snippet: _,
}

#[bridge(core = sessiondb::SearchResults, output)]
pub struct SearchResults;

#[bridge(core = sessiondb::RebuildReport, output)]
pub struct RebuildReport;

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
    /// their seqs, which are gapless. With an `idempotency_key` (1..=128
    /// characters without whitespace, control characters or `:`; it becomes
    /// the append's journal event id), a retry of a call that timed out or
    /// was cancelled stores the entries once and returns what the first call
    /// stored; the key used for other entries or another event is `Conflict`.
    #[bridge(core = sessiondb::SessionStore::append_entries_keyed, defaults(idempotency_key = None), errors(NotFound, InvalidInput, Conflict))]
    fn append_entries(&self, session_id: &str, entries: Vec<NewEntry>, idempotency_key: Option<&str>) -> Vec<TranscriptEntry>;

    /// `append_entries` with per-entry metadata, one transaction (all or
    /// none): a model or provider name over 256 bytes or with control
    /// characters, an `extra` (Kotlin/Swift `extraJson`) that is not a JSON
    /// object or an `item` that is not JSON text is `InvalidInput`. The
    /// `idempotency_key` is `append_entries`' (the metadata is part of what
    /// a retry must repeat).
    #[bridge(core = sessiondb::SessionStore::append_entries_with_meta_keyed, defaults(idempotency_key = None), errors(NotFound, InvalidInput, Closed, Conflict))]
    fn append_entries_with_meta(&self, session_id: &str, entries: Vec<NewEntryWithMeta>, idempotency_key: Option<&str>) -> Vec<TranscriptEntry>;

    /// Append Agents SDK items (each item's JSON text) in one transaction,
    /// as the Python adapter's `add_items` stores them: each item kept whole
    /// as the entry's `item`, the entry's role and content derived from it
    /// (`item_role`, `item_text`), written at `created_at_ms` (none = now),
    /// under `idempotency_key` as `append_entries`. Returns the first item's
    /// seq (0 for no items). An item that is not a JSON object is
    /// `InvalidInput`. Python only (the adapter's one native call per turn).
    #[bridge(core = sessiondb::portable::append_agents_items, defaults(idempotency_key = None, created_at_ms = None), skip(node, uniffi), errors(NotFound, InvalidInput, Closed, Conflict))]
    fn append_agents_items(&self, session_id: &str, items: Vec<String>, idempotency_key: Option<&str>, created_at_ms: Option<i64>) -> u64;

    /// Replace the session's last visible entries, which must hold
    /// `expected_items` (JSON texts, oldest first, compared as JSON values
    /// with each entry's `item`; an entry without one as `{"role",
    /// "content"}`), with `entries`, in one transaction with one
    /// `TranscriptTailReplaced` journal event: the replaced entries are
    /// retracted, the new ones appended. No expected items: an append that
    /// records its key even with no entries. Returns the appended entries.
    /// The Agents SDK JS session's history transactions. With an
    /// `idempotency_key`, the same change again is a no-op returning what
    /// the first stored; a tail that does not match, or the key used for
    /// another change, is `Conflict` and writes nothing.
    #[bridge(core = sessiondb::SessionStore::replace_tail_items, defaults(idempotency_key = None), errors(NotFound, InvalidInput, Closed, Conflict))]
    fn replace_tail_items(&self, session_id: &str, expected_items: Vec<String>, entries: Vec<NewEntryWithMeta>, idempotency_key: Option<&str>) -> Vec<TranscriptEntry>;

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

    /// A stored session as text in `format`: `thclaws` (the default: JSONL
    /// that real thClaws reads), `markdown` (a transcript to share, secrets
    /// always redacted) or `json` (the neutral model as one pretty-printed
    /// document). thClaws and JSON are redacted only under the store's
    /// redaction policy (`on-export`, `on-write`).
    #[bridge(core = sessiondb::portable::export_text, defaults(format = None), errors(NotFound, AuthenticationFailed))]
    fn export_thclaws(&self, session_id: &str, format: Option<ExportFormat>) -> String;

    /// Export a stored session in `format` (as `export_thclaws`; default
    /// thClaws JSONL, streamed) into the file at `path` (written to a private
    /// 0600 temporary file beside it, renamed over it once complete: a failed
    /// export leaves the old file); returns what was written.
    #[bridge(core = sessiondb::portable::export_file, defaults(format = None), errors(NotFound, Io, AuthenticationFailed))]
    fn export_thclaws_to_file(&self, session_id: &str, path: &Path, format: Option<ExportFormat>) -> WriteReport;

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

// The one declaration of the records and enums the hosts expose (issue 11
// item 4). Not compiled: `sessiondb-bridge` (bridge/src/lib.rs, whose docs
// give the rules and the `#[bridge(...)]` attributes) parses it and writes
// each host's declarations into bridge/generated/ (committed): Python
// (`record!` classes), Node (`#[napi(object)]` interfaces) and Kotlin/Swift
// (`#[uniffi::remote]`, the core types as they are). A record or enum with
// `core = path` takes its fields, variants, types and docs from that core
// type (bridge/src/core_types.rs): it lists here only the fields where a
// host departs (`name: _` keeps the core's type), and an enum only the
// variants whose host name is not the core's serde name; the doc every
// host shows is the first paragraph of the core item's.
// bridge/generated/api.rs is this file completed from the core.
// Checked against tests/api/surface.json by tests/api/surface.py like every host.
// Three files, read as one in this order (`sessiondb_bridge::API_FILES`):
// this one (enums and records), api/store.rs (the store's methods) and
// api/functions.rs (module functions and error kinds).

// ---- enums (Python and Node see the `str` names: the core's serde names,
// or those listed here)

#[bridge(core = sessiondb::Role, parse = sessiondb::Role::parse, pyi = "Role")]
pub enum Role {}

#[bridge(core = sessiondb::ContentFormat, parse = sessiondb::ContentFormat::parse, pyi = "ContentFormat")]
pub enum ContentFormat {}

#[bridge(core = sessiondb::context::Band, pyi = "Band")]
pub enum Band {}

#[bridge(core = sessiondb::context::CompactionAction)]
pub enum CompactionAction {}

#[bridge(core = sessiondb::context::TurnState)]
pub enum TurnState {}

#[bridge(core = sessiondb::context::ItemKind)]
pub enum ItemKind {}

#[bridge(core = sessiondb::context::Encoding, pyi = "Literal")]
pub enum Encoding {}

#[bridge(core = sessiondb::portable::SourceFormat, parse = sessiondb::portable::SourceFormat::parse, pyi = "SourceFormat")]
pub enum SourceFormat {}

#[bridge(core = sessiondb::portable::ExportFormat, parse = sessiondb::portable::ExportFormat::parse, pyi = "ExportFormat")]
pub enum ExportFormat {}

#[bridge(core = sessiondb::restore::PermissionProfile)]
pub enum PermissionProfile {}

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
pub enum CountMethod {}

#[bridge(core = sessiondb::portable::ImportStatus, pyi = "ImportStatus")]
pub enum ImportStatus {}

#[bridge(core = sessiondb::portable::SkipReason)]
pub enum SkipReason {}

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
    #[bridge(default = "\"{}\"", python = "crate::json::Json", node = "serde_json::Value", ts = "Record<string, unknown>")]
    pub extra: _,
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
pub struct NewSession;

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
    #[bridge(default, redact)]
    pub text: _,
}

// Python takes it as a dict (`CompactionOptionsDict`, the core's serde shape).
#[bridge(core = sessiondb::context::CompactionOptions, new, twin, skip(python), dict = "CompactionOptionsDict")]
pub struct CompactionOptions {
    #[bridge(default = "2", host_default = "2", uniffi = "u32")]
    pub recent_user_turns: _,
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
pub struct PortableTurn;

#[bridge(core = sessiondb::portable::ThclawsSession, twin, output, skip(python, node))]
pub struct PortableSession;

#[bridge(core = sessiondb::portable::ThclawsRead, twin, output, skip(python, node))]
pub struct ThclawsRead;

#[bridge(core = sessiondb::portable::NewPortableSession, new, skip(python, node))]
pub struct NewPortableSession;

#[bridge(core = sessiondb::portable::SessionImport, output)]
pub struct SessionImport;

// ---- search (issue 26; docs/search.md)

#[bridge(core = sessiondb::SearchOptions, new)]
pub struct SearchOptions {
    #[bridge(default)]
    pub sessions: _,
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

// The store's methods (`trait SessionStore`): part of the one declaration,
// read after bridge/api.rs (see its head and `sessiondb_bridge::API_FILES`).

// ---- the store's methods: the core method's parameters and `Ok` type
// (`-> _`: read from the core function, bridge/src/core_types.rs; written
// out only where a host departs, e.g. a parameter's host name);
// `core = path`: a free function of the core taking the store first.
// `defaults(...)`: Python's defaults (Node: optional, Kotlin/Swift: defaults).
// The doc every host shows is the core function's first paragraph; a doc
// here is a host's departure from it (bridge/src/core_types.rs).

trait SessionStore {
    #[bridge(sync, infallible, getter, returns = "String")]
    fn path(&self) -> _;

    #[bridge(sync, infallible, getter, returns = "String")]
    fn instance_id(&self) -> _;

    #[bridge(sync, infallible, getter, returns = "String")]
    fn key_backend(&self) -> _;

    #[bridge(sync, infallible, getter = "closed")]
    fn is_closed(&self) -> _;

    /// Close the handle (checkpoints the WAL, releases the owner lock).
    /// Later calls fail with `Closed`; closing twice is a no-op (Kotlin:
    /// `closeStore()`). Node: the appends called before it, even not
    /// awaited, are stored first; those called after it fail with `Closed`.
    #[bridge(ordered, infallible)]
    fn close(&self) -> _;

    #[bridge(errors(Closed))]
    fn stats(&self) -> _;

    #[bridge(infallible)]
    fn recovery_key(&self) -> _;

    #[bridge(errors(KeyMismatch, Closed, Busy, Io))]
    fn copy_to(&self) -> _;

    #[bridge(core = sessiondb::SessionStore::list_sessions_in_scope, defaults(path = None, limit = None), errors(InvalidInput), skip(uniffi))]
    fn list_sessions_for_workspace(&self) -> _;

    /// Kotlin/Swift's form: the sessions `filter` selects, most recently
    /// active first, at most `limit`.
    #[bridge(defaults(limit = None), skip(python, node), errors(InvalidInput))]
    fn list_sessions_for_workspace(&self) -> _;

    /// Create a session titled `name` (none = untitled), bound to
    /// `workspace_path` (made canonical) if given, with a new uuid v7 id.
    /// Python and Node take every field of `NewSession` here.
    #[bridge(hold_turn, defaults(name = None, workspace_path = None), skip(python, node), errors(InvalidInput, Closed))]
    fn create_session(&self) -> _;

    /// Create a session titled `name` (none = untitled), bound to
    /// `workspace_path` (made canonical) if given; the other fields of
    /// `NewSession` are keyword arguments (Python) or an options object
    /// (Node). `id` none = a new uuid v7; an `id` that exists is `Conflict`.
    #[bridge(hold_turn, core = sessiondb::SessionStore::create_session_with, skip(uniffi), keywords(new = "name, workspace_path"), errors(Conflict, InvalidInput, Closed))]
    fn create_session(&self) -> _;

    /// Create a session with every field of `NewSession` (imports, forks;
    /// `Conflict`: the id exists).
    #[bridge(skip(python, node), errors(Conflict, InvalidInput, Closed))]
    fn create_session_with(&self) -> _;

    #[bridge(errors(NotFound))]
    fn get_session(&self) -> _;

    #[bridge(defaults(limit = None))]
    fn list_sessions(&self) -> _;

    #[bridge(errors(NotFound, Conflict))]
    fn find_session(&self) -> _;

    #[bridge(hold_turn, errors(NotFound))]
    fn delete_session(&self) -> _;

    #[bridge(hold_turn, core = sessiondb::privacy::retention::prune_sessions, defaults(max_age_days = None, max_sessions = None, keep_named = true, keep_latest = 1, dry_run = false), errors(Busy, Closed))]
    fn prune(&self) -> _;

    #[bridge(ordered, errors(NotFound, InvalidInput))]
    fn append_transcript(&self) -> _;

    #[bridge(ordered, core = sessiondb::SessionStore::append_entries_keyed, defaults(idempotency_key = None), errors(NotFound, InvalidInput, Conflict))]
    fn append_entries(&self) -> _;

    /// `append_entries` with per-entry metadata, one transaction (all or
    /// none): a model or provider name over 256 bytes or with control
    /// characters, an `extra` (Kotlin/Swift `extraJson`) that is not a JSON
    /// object or an `item` that is not JSON text is `InvalidInput`. The
    /// `idempotency_key` is `append_entries`' (the metadata is part of what
    /// a retry must repeat).
    #[bridge(ordered, core = sessiondb::SessionStore::append_entries_with_meta_keyed, defaults(idempotency_key = None), errors(NotFound, InvalidInput, Closed, Conflict))]
    fn append_entries_with_meta(&self, session_id: &str, entries: Vec<NewEntryWithMeta>, idempotency_key: Option<&str>) -> Vec<TranscriptEntry>;

    /// Append Agents SDK items (each item's JSON text) in one transaction,
    /// as the Python adapter's `add_items` stores them: each item kept whole
    /// as the entry's `item`, the entry's role and content derived from it
    /// (`item_role`, `item_text`), written at `created_at_ms` (none = now),
    /// under `idempotency_key` as `append_entries`. Returns the first item's
    /// seq (0 for no items). An item that is not a JSON object is
    /// `InvalidInput`. Python only (the adapter's one native call per turn).
    #[bridge(core = sessiondb::portable::append_agents_items, defaults(idempotency_key = None, created_at_ms = None), skip(node, uniffi), errors(NotFound, InvalidInput, Closed, Conflict))]
    fn append_agents_items(&self) -> _;

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
    #[bridge(hold_turn, core = sessiondb::SessionStore::replace_tail_items, defaults(idempotency_key = None), errors(NotFound, InvalidInput, Closed, Conflict))]
    fn replace_tail_items(&self, session_id: &str, expected_items: Vec<String>, entries: Vec<NewEntryWithMeta>, idempotency_key: Option<&str>) -> Vec<TranscriptEntry>;

    #[bridge(defaults(from_seq = 1, limit = 1000), errors(NotFound, AuthenticationFailed, InvalidInput))]
    fn get_transcript(&self) -> _;

    #[bridge(defaults(limit = 1000), errors(NotFound, AuthenticationFailed, InvalidInput))]
    fn get_transcript_tail(&self) -> _;

    #[bridge(defaults(from_seq = 1, limit = 1000), returns = "Vec<TranscriptEntryWithMeta>", errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_transcript_with_meta(&self) -> _;

    #[bridge(defaults(limit = 1000), returns = "Vec<TranscriptEntryWithMeta>", errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_transcript_tail_with_meta(&self) -> _;

    #[bridge(defaults(from_seq = 1, limit = 1000), skip(uniffi), errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_entry_items(&self) -> _;

    #[bridge(defaults(limit = 1000), skip(uniffi), errors(NotFound, AuthenticationFailed, InvalidInput, Corrupt))]
    fn get_entry_items_tail(&self) -> _;

    #[bridge(hold_turn, errors(NotFound, Busy))]
    fn retract_entry(&self) -> _;

    #[bridge(hold_turn, errors(NotFound, Busy))]
    fn retract_last_entry(&self) -> _;

    #[bridge(errors(NotFound))]
    fn token_totals(&self) -> _;

    #[bridge(hold_turn, errors(NotFound, InvalidInput))]
    fn append_context_extension(&self) -> _;

    #[bridge(errors(NotFound, AuthenticationFailed))]
    fn list_context_extensions(&self) -> _;

    #[bridge(core = sessiondb::context::context_status, defaults(output_reserve = None, model = None), errors(NotFound, InvalidInput))]
    fn context_status(&self) -> _;

    #[bridge(core = sessiondb::context::active_context, defaults(output_reserve = None, model = None), errors(NotFound, InvalidInput, AuthenticationFailed, Corrupt))]
    fn active_context(&self) -> _;

    #[bridge(core = sessiondb::portable::resolve_session, defaults(workspace = None), errors(NotFound, Conflict))]
    fn resolve_session(&self) -> _;

    #[bridge(core = sessiondb::portable::recent_sessions)]
    fn recent_sessions(&self) -> _;

    #[bridge(hold_turn, errors(NotFound))]
    fn rename_session(&self) -> _;

    #[bridge(hold_turn, defaults(provider = None), errors(NotFound))]
    fn set_session_model(&self) -> _;

    #[bridge(hold_turn, errors(NotFound))]
    fn set_work_mode(&self) -> _;

    #[bridge(defaults(from_seq = 1, limit = 1000), errors(NotFound, AuthenticationFailed, InvalidInput))]
    fn journal_events(&self) -> _;

    /// Add one token-ledger record (seed 000 `recordTokens(entry)`; Python:
    /// the record's fields as keyword arguments).
    #[bridge(hold_turn, keywords(usage), errors(NotFound, InvalidInput))]
    fn record_tokens(&self) -> _;

    /// Append one journal event, idempotent by `event_id`: the same event
    /// again returns the original seq with `duplicate = true` (Python: the
    /// event's fields as arguments). The session is the event's aggregate:
    /// it need not be a stored session. `Conflict`: the same id with other
    /// content, or a second dispatch or terminal of one operation;
    /// `NotFound`: a terminal event of an operation never dispatched.
    #[bridge(hold_turn, flatten(event), errors(Conflict, NotFound, InvalidInput))]
    fn journal_append(&self, event: NewEvent) -> AppendOutcome;

    /// Record that an operation's effect was dispatched, owned by this
    /// handle (`payload`: any JSON value, `null` when left out; Kotlin/Swift
    /// `payloadJson`, JSON text). Idempotent for the same payload;
    /// `Conflict`: dispatched before with another payload.
    #[bridge(hold_turn, defaults(payload = None), errors(Conflict, InvalidInput))]
    fn dispatch_operation(&self, session_id: &str, operation_id: &str, payload: Option<serde_json::Value>) -> AppendOutcome;

    #[bridge(hold_turn, defaults(payload = None), errors(Conflict, NotFound, InvalidInput))]
    fn complete_operation(&self, session_id: &str, operation_id: &str, outcome: OperationOutcome, payload: Option<serde_json::Value>) -> AppendOutcome;

    #[bridge(returns = "Vec<OpenOperation>")]
    fn open_operations(&self) -> _;

    #[bridge(errors(Busy, Closed))]
    fn recover(&self) -> _;

    #[bridge(sync, infallible)]
    fn open_recovery_report(&self) -> _;

    #[bridge(core = sessiondb::context::recover_context_governance, errors(NotFound, AuthenticationFailed, Corrupt))]
    fn recover_context_governance(&self) -> _;

    #[bridge(hold_turn, core = sessiondb::context::record_turn_decision, errors(InvalidInput, NotFound))]
    fn record_turn_decision(&self) -> _;

    #[bridge(core = sessiondb::restore::open_saved_session, errors(NotFound, AuthenticationFailed, Corrupt))]
    fn open_saved_session(&self) -> _;

    #[bridge(core = sessiondb::portable::export_text, defaults(format = None), errors(NotFound, AuthenticationFailed))]
    fn export_thclaws(&self) -> _;

    #[bridge(core = sessiondb::portable::export_file, defaults(format = None), errors(NotFound, Io, AuthenticationFailed))]
    fn export_thclaws_to_file(&self, session_id: &str, path: &Path, format: Option<ExportFormat>) -> WriteReport;

    /// Import every session file under `paths` (files or directory trees;
    /// inside a directory only `*.jsonl` files, format detected per file).
    /// Returns one report per file, in the order of `paths` (each tree in
    /// sorted walk order). Nothing aborts the whole import: a path that
    /// cannot be read becomes a `failed` report whose `error` names it.
    /// There is no progress callback (Kotlin/Swift: a listener).
    #[bridge(core = sessiondb::portable::import_paths_report, skip(uniffi))]
    fn import_paths(&self) -> _;

    #[bridge(core = sessiondb::portable::import_file, defaults(format = None), errors(Io, Closed))]
    fn import_file(&self) -> _;

    #[bridge(hold_turn, core = sessiondb::context::compact_session, defaults(output_reserve = None, model = None, target_percent = None, dry_run = false), errors(ContextOverflow, NotFound, InvalidInput))]
    fn compact_session(&self) -> _;

    #[bridge(hold_turn, core = sessiondb::portable::fork_session, defaults(at_seq = None, summary = None), errors(NotFound, InvalidInput))]
    fn fork_session(&self) -> _;

    #[bridge(hold_turn, core = sessiondb::context::record_compaction, errors(NotFound, InvalidInput))]
    fn record_compaction(&self) -> _;

    #[bridge(core = sessiondb::portable::sidebar_sessions)]
    fn sidebar_sessions(&self) -> _;

    #[bridge(core = sessiondb::search::search_code_points, defaults(options = None), skip(node, uniffi), errors(InvalidInput, Io, Closed, Busy))]
    fn search(&self) -> _;

    #[bridge(core = sessiondb::search::search_utf16, defaults(options = None), skip(python), errors(InvalidInput, Io, Closed, Busy))]
    fn search(&self) -> _;

    #[bridge(core = sessiondb::search::rebuild_search_index, errors(Io, Closed))]
    fn rebuild_search_index(&self) -> _;
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

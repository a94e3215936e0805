// The module functions and the error kinds: part of the one declaration,
// read after bridge/api/store.rs (see bridge/api.rs's head and
// `sessiondb_bridge::API_FILES`).

// ---- module functions: `core = path` names the core function; synchronous
// unless `blocking` (Node: a Promise; Python: GIL released) or `detach`
// (Python only: GIL released). Docs and signatures as in api/store.rs:
// the core function's (`-> _`), unless written here.

trait Functions {
    #[bridge(core = sessiondb::context::effective_context_capacity, defaults(output_reserve = None, model_max_output = None), errors(InvalidInput))]
    fn effective_context_capacity() -> _;

    #[bridge(core = sessiondb::context::capacity_breakdown, defaults(output_reserve = None, model_max_output = None), errors(InvalidInput))]
    fn capacity_breakdown() -> _;

    #[bridge(core = sessiondb::context::effective_context_capacity_for_model, defaults(output_reserve = None), errors(InvalidInput))]
    fn effective_context_capacity_for_model() -> _;

    #[bridge(core = sessiondb::context::known_model_limits, infallible)]
    fn known_model_limits() -> _;

    #[bridge(core = sessiondb::context::meter, errors(InvalidInput))]
    fn meter() -> _;

    #[bridge(core = sessiondb::context::should_compact, infallible)]
    fn should_compact() -> _;

    #[bridge(core = sessiondb::context::count_tokens, defaults(host_count = None), infallible, detach)]
    fn count_tokens() -> _;

    #[bridge(core = sessiondb::context::estimate_tokens, infallible)]
    fn estimate_tokens() -> _;

    #[bridge(core = sessiondb::context::encoding_for_model, infallible)]
    fn encoding_for_model() -> _;

    /// Cut `text` to at most `max_chars` characters, ending with `…` when
    /// cut, never inside a character or a common grapheme cluster.
    #[bridge(core = sessiondb::context::truncate_chars, infallible)]
    fn truncate_chars(text: &str, max_chars: usize) -> String;

    #[bridge(core = sessiondb::context::active_context_items, detach, errors(InvalidInput))]
    fn active_context_items() -> _;

    /// Plan the compaction of the active context (seed 000, "Context
    /// Compaction"): compact the oldest unpinned, unprotected items until the
    /// context is ≤ `target_percent` (default 70) of `capacity` (tokens); a
    /// tool call is never split from its result; summaries ≤ 240 characters.
    /// `items`: `ContextItem`s in order (Python: or dicts of their fields);
    /// `options`: the planner's (Python: a dict). `InvalidInput`: capacity 0,
    /// target > 100, seqs not increasing; `ContextOverflow`, with the token
    /// breakdown, when protected content alone exceeds capacity.
    #[bridge(core = sessiondb::context::compact_context, defaults(target_percent = None, options = None), dict(items = "context items", options = "compaction options"), detach, errors(ContextOverflow, InvalidInput))]
    fn compact_context() -> _;

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
    fn summarize_item() -> _;

    #[bridge(core = sessiondb::context::governance_turns, errors(InvalidInput))]
    fn governance_turns() -> _;

    // ---- the envelope and key primitives (the crypto conformance cases)

    #[bridge(core = sessiondb::primitives::envelope_aad, infallible)]
    fn envelope_aad() -> _;

    #[bridge(core = sessiondb::primitives::encrypt_field, blocking, errors(InvalidInput))]
    fn encrypt_field() -> _;

    #[bridge(core = sessiondb::primitives::decrypt_field, blocking, errors(InvalidInput, Corrupt, AuthenticationFailed))]
    fn decrypt_field() -> _;

    #[bridge(core = sessiondb::primitives::workspace_index, blocking, errors(InvalidInput))]
    fn workspace_index() -> _;

    #[bridge(core = sessiondb::primitives::recovery_key_text, errors(InvalidInput))]
    fn recovery_key_text() -> _;

    #[bridge(core = sessiondb::primitives::parse_recovery_key, errors(InvalidInput))]
    fn parse_recovery_key() -> _;

    /// Read thClaws JSONL bytes (seed 002; the real format and the seed's
    /// `message` form). A torn last line and bad lines are reported, never fatal.
    /// `fallback_id` names a file without a header id. Python and Node:
    /// `read_thclaws_digest`.
    #[bridge(core = sessiondb::portable::read_thclaws_session, defaults(fallback_id = "session"), skip(python, node), errors(InvalidInput))]
    fn read_thclaws() -> _;

    /// Write a session as thClaws JSONL text (what real thClaws reads).
    /// `InvalidInput`: an unknown role, blocks not a JSON array. Python and
    /// Node: `write_thclaws_json`.
    #[bridge(core = sessiondb::portable::write_thclaws_session, skip(python, node), errors(InvalidInput))]
    fn write_thclaws() -> _;

    /// The format of a session file from its first lines, or none when it is
    /// none of thClaws, Codex rollout or Claude Code.
    #[bridge(core = sessiondb::portable::detect_format, blocking, errors(Io))]
    fn detect_format() -> _;

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

    #[bridge(core = sessiondb::paths::default_db_path, defaults(app = "sessiondb"), returns = "String", errors(InvalidInput, Io))]
    fn default_db_path() -> _;

    #[bridge(core = sessiondb::paths::canonical_workspace_in_cwd, blocking, errors(InvalidInput, Io))]
    fn canonical_workspace() -> _;

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

// ---- errors (every host's error mapping: bridge/src/errors.rs). Each
// variant's and field's doc is the core's (`sessiondb::Error`; a field the
// core lacks, derived by `get`, keeps its doc here).

/// Every failure sessiondb reports, one variant per core error kind.
///
/// `detail` is always the complete human-readable message, including what the
/// user can do about it.
#[bridge(error, core = sessiondb::Error, kind = sessiondb::ErrorKind, uniffi = "SessionDbError")]
pub enum Error {
    RecoveryLocked {
        backend: String,
        #[bridge(skip(python, node))]
        service: String,
    },
    KeyMismatch {
        backend: String,
    },
    KeyStoreUnavailable {
        backend: String,
        #[bridge(skip(python, node))]
        reason: String,
        remedy: String,
    },
    NotFound {
        #[bridge(skip(python, node), get = "what.to_string()")]
        what: String,
        #[bridge(skip(python, node))]
        id: String,
    },
    Conflict {
        #[bridge(skip(python, node))]
        reason: String,
    },
    #[bridge(class = "AuthenticationError")]
    AuthenticationFailed {
        #[bridge(skip(python, node))]
        record: String,
    },
    Corrupt {
        #[bridge(skip(python, node))]
        reason: String,
    },
    Busy {
        timeout_ms: u64,
        waited_ms: u64,
    },
    InvalidInput {
        #[bridge(skip(python, node))]
        reason: String,
    },
    #[bridge(pattern = "Io { step, source }", python_class = r#"match source.kind() {
        std::io::ErrorKind::NotFound => "FileNotFoundIoError",
        std::io::ErrorKind::PermissionDenied => "PermissionIoError",
        _ => "IoError",
    }"#)]
    Io {
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
    #[bridge(pattern = "Database(reason)", fallback)]
    Database {
        /// SQLite's message (never contains bound values).
        #[bridge(skip(python, node))]
        reason: String,
    },
    #[bridge(pattern = "ContextOverflow(b)", node_object = "breakdown")]
    ContextOverflow {
        #[bridge(get = "b.capacity")]
        capacity: u64,
        #[bridge(get = "b.system")]
        system: u64,
        #[bridge(get = "b.pinned")]
        pinned: u64,
        #[bridge(get = "b.recent")]
        recent: u64,
        #[bridge(get = "b.tool_results")]
        tool_results: u64,
        #[bridge(get = "b.other")]
        other: u64,
        #[bridge(get = "b.protected_total")]
        protected_total: u64,
        #[bridge(get = "b.remedies")]
        remedies: Vec<String>,
    },
    Closed,
}

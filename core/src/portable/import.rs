//! Import session files into the encrypted store (issue 4 item 3; DESIGN.md
//! "Portable sessions"): the pipeline, its batches and the sink the readers
//! write to. Export is in [`super::export`]; seed 002's `/load`,
//! `/sessions`, sidebar and `/fork` in [`super::commands`].
//!
//! What goes where:
//! - each turn → one transcript entry (`source_line` = its first source
//!   line; a single plain text block is stored as `Text`, anything else as
//!   `Blocks`, the JSON array of thClaws blocks, tool results whole), with
//!   its [`EntryMeta`]: the turn's `model` and `provider` (plaintext
//!   columns) and its source-specific `extra` (Claude `tool_use_result`,
//!   `uuid`, `message_id`, `is_meta`; Codex `phase`, `codex_role`...),
//!   encrypted as `transcript:<sid>:<seq>:meta`;
//! - each [`Usage`] → one token-ledger record (`provider` = the session's);
//! - title, model, provider, cwd (the workspace binding), created → the session row;
//! - every plan and goal snapshot, in order (`{plan|goal, at_seq,
//!   timestamp_ms}`), provider state (latest of the read), each compaction,
//!   source metadata and unknown lines → context extensions of kinds
//!   `plan_snapshot`, `goal_snapshot`, `provider_state`, `compaction`,
//!   `import_source`, `import_raw_line`;
//! - per source file: a progress record in the store's `meta` table, keyed
//!   `import-source:<keyed hash of the canonical path>`
//!   ([`crate::crypto::keyed_hash`], domain `import-source`), its value an
//!   `EncryptedField` (AAD = the key) of `{format, session_id, path,
//!   head_hash, lines, bytes, updated_at_ms}`: how many lines and bytes were
//!   consumed, and a keyed hash of the file's first (up to) 4 KiB. No schema
//!   migration is needed.
//!
//! Record identity (issue 14 item 2): every turn, usage figure, snapshot,
//! compaction and raw line stored gets an `import_records` row
//! `(sid, RecordId)` (the first 16 bytes of an HMAC of its identity with the
//! data key, domain `import-record`: no content in the clear; schema
//! version 5, before it a `meta` row `import-rec:<sid>:<hex>`) in the batch
//! that stores it. A record whose identity the session holds is not stored again,
//! whatever file, path or line it arrives in: identity is the Claude line's
//! `uuid`, a Codex or thClaws turn's role, timestamp and blocks, the Claude
//! `message.id` of a usage figure, a Codex `token_count`'s cumulative total,
//! a snapshot's value and timestamp, a raw line's JSON. A content identity
//! also carries its occurrence among equal records in the file (issue 28
//! item 1; [`identity`]): the same bytes twice in one file are two records,
//! the same record in another copy is one. Claude usage is counted once per
//! message id whatever order copies arrive in (issue 28 item 4).
//! Sessions imported before (no import record) keep the line-number guard below.
//!
//! Files: this one reads files and keeps their progress; `import/sink.rs`
//! is the sink the readers write to, `import/batch.rs` the batches it
//! commits, `import/identity.rs` record identity (issue 31 item 4).
//! Known limit: a Codex copy that starts after the file's first
//! `token_count` counts its first total whole (usage is the difference of
//! successive totals), so a later import of the full file adds that event's
//! own difference on top.
//!
//! Idempotence: a file whose length equals the bytes consumed adds nothing;
//! a grown file is read again with only lines after the consumed ones
//! emitted. A file that shrank or whose head changed is reported as
//! [`ImportStatus::SourceChanged`] and not touched, except a Gemini CLI JSON
//! chat file ([`super::gemini`]), which Gemini CLI rewrites whole: once it
//! changed it is read again from line 1 and record identity stores only
//! the records it did not hold.
//!
//! Crash safety: the importer commits in batches (about `BATCH_ENTRIES`
//! entries, fewer when a batch holds the writer longer than `BATCH_HOLD`,
//! or `BATCH_BYTES` of content) at a reader's safe point `L`
//! ([`EventSink::safe_point`]: every event of lines `<= L` delivered). Each
//! batch is one transaction holding the entries, token records, context
//! extensions, renames and snapshots of lines `<= L` and the progress record
//! saying `L` lines are consumed. A crash leaves the store as after some
//! batch, so importing again resumes at line `L + 1` and nothing is stored
//! twice (entries, tokens or extensions). Within a session, turns whose
//! source line is not above the highest one stored are also skipped (a guard
//! for stores written before progress was committed with every batch).

use super::events::Meta;
use super::model::{ReadReport, SourceFormat};
use super::{fallback_id, find_jsonl_files, read_stream, FileKind, ReadOptions};
use crate::crypto;
use crate::store::SessionStore;
use crate::{Error, Result};
use serde::Serialize;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

mod batch;
mod bodies;
mod identity;
mod opencode;
pub mod sdk;
mod sink;
use batch::{apply_batch, seal_batch, Batch};
use sink::{ImportSink, ProgressTarget};


/// Entries appended per transaction.
const BATCH_ENTRIES: usize = 512;
/// Content bytes appended per transaction, at most (about).
const BATCH_BYTES: usize = 8 << 20;
/// How long one import batch should hold the store's writer, about: the
/// writer thread lowers the entries per batch ([`adapt_batch`]) so that an
/// append waiting behind a batch waits about this long (issue 33 item 6).
const BATCH_HOLD: std::time::Duration = std::time::Duration::from_millis(5);
/// Fewest entries per batch the adaptation goes down to: each batch also
/// writes its progress record, `SessionImported` event and line count
/// (about 0.2 M instructions in callgrind), so the cost of small batches
/// stays bounded where every batch is slow (under valgrind, all batches at
/// 16 entries cost 6.3% more instructions than at 512).
const BATCH_ENTRIES_MIN: usize = 64;

/// After a batch of `entries` entries held the writer for `took`: the next
/// batches get `entries × BATCH_HOLD / took` entries, within
/// [`BATCH_ENTRIES_MIN`]..=[`BATCH_ENTRIES`] (moving halfway per
/// batch, so one slow commit does not swing it).
fn adapt_batch(limit: &std::sync::atomic::AtomicUsize, entries: usize, took: std::time::Duration) {
    if entries == 0 {
        return;
    }
    let fit = (entries as f64 * BATCH_HOLD.as_secs_f64() / took.as_secs_f64().max(1e-6)) as usize;
    let cur = limit.load(std::sync::atomic::Ordering::Relaxed);
    let next = ((cur + fit.clamp(BATCH_ENTRIES_MIN, BATCH_ENTRIES)) / 2).clamp(BATCH_ENTRIES_MIN, BATCH_ENTRIES);
    limit.store(next, std::sync::atomic::Ordering::Relaxed);
}

/// Transcript page size when exporting and forking.
pub const EXPORT_PAGE: u32 = 1000;
const SOURCE_DOMAIN: &str = "import-source";
/// Context-extension kind of a compaction checkpoint read from a source file
/// (thClaws `compaction`, Codex `compacted`, Claude `compact_boundary`). It is
/// not the `compaction` kind of context governance (a sessiondb plan), so
/// `/context` replay ignores it; export writes it back as a `compaction` line.
/// Beside it the import records the governance record that makes the active
/// context start where the source agent resumes (`resume_point`, issue 14).
pub const SOURCE_COMPACTION_KIND: &str = "source_compaction";
const HEAD_BYTES: usize = 4096;

/// What happened to one source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportStatus {
    /// New lines were read (possibly zero turns, e.g. only bookkeeping lines).
    Imported,
    /// Already imported up to its current length: nothing to do.
    UpToDate,
    /// The file is shorter than what was imported, or its first bytes
    /// changed: it is not the file imported before, so it was left alone.
    SourceChanged,
    /// Not a recognised session format.
    Unrecognized,
    /// Reading or storing failed; the message names the step (no content)
    /// and, for a path given to [`import_paths`] that could not be read or
    /// walked at all, that path.
    Failed(String),
}

impl ImportStatus {
    /// The status's name as hosts show it (its serde name): `imported`,
    /// `up_to_date`, `source_changed`, `unrecognized` or `failed`.
    pub fn name(&self) -> &'static str {
        match self {
            ImportStatus::Imported => "imported",
            ImportStatus::UpToDate => "up_to_date",
            ImportStatus::SourceChanged => "source_changed",
            ImportStatus::Unrecognized => "unrecognized",
            ImportStatus::Failed(_) => "failed",
        }
    }

    /// The failure message (no content) of a `Failed` status.
    pub fn error(&self) -> Option<String> {
        match self {
            ImportStatus::Failed(msg) => Some(msg.clone()),
            _ => None,
        }
    }
}

/// Per-session figures of one file import.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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
    /// Turns skipped because the session already holds them (the same
    /// source record, by identity: Claude `uuid`, or the turn's content and
    /// timestamp; for sessions imported before issue 14, by source line).
    pub skipped_already_stored: u64,
}

/// Prefix of the [`ReadReport::not_imported`] kinds under which an import
/// counts the source records it did not store again because the session
/// holds them already (`already stored: usage`, `already stored:
/// plan_snapshot`, ...; turns are [`SessionImport::skipped_already_stored`]).
pub const ALREADY_STORED: &str = "already stored: ";

/// The import report of one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileImport {
    /// The file as given (after directory walking).
    pub path: PathBuf,
    /// Detected (or stored) format.
    pub format: Option<SourceFormat>,
    /// Outcome.
    pub status: ImportStatus,
    /// First line emitted this time (1 for a first import).
    pub from_line: u64,
    /// Sessions written, main first.
    pub sessions: Vec<SessionImport>,
    /// The reader's report (line kinds, skipped lines...), when the file was read.
    pub read: Option<ReadReport>,
    /// Why an [`ImportStatus::Unrecognized`] file is known not to be a
    /// session (e.g. `Codex prompt history (history.jsonl)`; see
    /// [`super::FileKind::NotSession`]); `None` for an unknown file and
    /// every other status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_session: Option<String>,
}

/// Import report of several paths.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImportReport {
    /// One per file, in walk order.
    pub files: Vec<FileImport>,
}

impl ImportReport {
    /// Sum of entries appended over all files.
    pub fn entries(&self) -> u64 {
        self.files.iter().flat_map(|f| &f.sessions).map(|s| s.entries).sum()
    }
}

/// Progress callback figures: files done / total, bytes done / total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportProgress {
    /// Files finished.
    pub files_done: usize,
    /// Files to import.
    pub files_total: usize,
    /// Bytes of finished files.
    pub bytes_done: u64,
    /// Bytes of all files.
    pub bytes_total: u64,
}

/// [`import_paths`] without a progress callback: the per-file reports, in
/// walk order (what the hosts return). Errors as [`import_paths`].
pub fn import_paths_report(store: &SessionStore, paths: &[PathBuf]) -> Result<Vec<FileImport>> {
    Ok(import_paths(store, paths, &mut |_| {})?.files)
}

/// Import every session file under `paths` (files or directory trees; only
/// `*.jsonl` files are considered inside directories), format detected per
/// file. `progress` is called after each file.
///
/// Nothing aborts the whole import: a given path that cannot be read or
/// walked (missing, permission denied...) becomes a [`FileImport`] of that
/// path with [`ImportStatus::Failed`], its message naming the path and the
/// OS error, and the other paths are still imported; problems with one file
/// are reported in its [`FileImport::status`] the same way. The report keeps
/// the order of `paths` (each tree in walk order).
///
/// Errors: none today; the `Result` is kept so that a failure of the store
/// as a whole can be reported without changing the signature.
pub fn import_paths(store: &SessionStore, paths: &[PathBuf], progress: &mut dyn FnMut(ImportProgress)) -> Result<ImportReport> {
    import_paths_with(store, paths, false, progress)
}

/// [`import_paths`], with `progress` also called while a file is read:
/// after each read of up to [`PROGRESS_READ_BYTES`] from it, `bytes_done`
/// counting the bytes of the finished files plus those read so far of the
/// current one (never above `bytes_total`), so a progress bar advances
/// within a large file (issue 27). Errors as [`import_paths`].
pub fn import_paths_live(store: &SessionStore, paths: &[PathBuf], progress: &mut dyn FnMut(ImportProgress)) -> Result<ImportReport> {
    import_paths_with(store, paths, true, progress)
}

/// The read size of an import (its buffer): how often [`import_paths_live`]
/// reports within a file, in bytes.
pub const PROGRESS_READ_BYTES: usize = 1 << 20;

fn import_paths_with(store: &SessionStore, paths: &[PathBuf], live: bool, progress: &mut dyn FnMut(ImportProgress)) -> Result<ImportReport> {
    fn failed(path: &Path, message: String) -> FileImport {
        FileImport { path: path.to_path_buf(), format: None, status: ImportStatus::Failed(message), from_line: 0, sessions: Vec::new(), read: None, not_session: None }
    }
    // `Err` holds the report of a given path that could not be walked.
    let mut files: Vec<std::result::Result<PathBuf, FileImport>> = Vec::new();
    for p in paths {
        // An opencode storage tree or data directory is one source (its
        // records are `*.json` files, or `opencode.db`), not walked for `*.jsonl`.
        match super::opencode::classify_path(p) {
            super::opencode::OpencodePath::Storage(_) => {
                files.push(Ok(p.clone()));
                continue;
            }
            super::opencode::OpencodePath::DataDir(found) => {
                files.extend(found.into_iter().map(Ok));
                continue;
            }
            _ => {}
        }
        match find_jsonl_files(p) {
            Ok(found) => files.extend(found.into_iter().map(Ok)),
            Err(e) => files.push(Err(failed(p, format!("`{}`: {e}", p.display())))),
        }
    }
    let sizes: Vec<u64> =
        files.iter().map(|f| f.as_ref().ok().and_then(|f| std::fs::metadata(f).ok()).map_or(0, |m| m.len())).collect();
    let mut prog = ImportProgress { files_done: 0, files_total: files.len(), bytes_done: 0, bytes_total: sizes.iter().sum() };
    let mut report = ImportReport::default();
    for (f, size) in files.into_iter().zip(sizes) {
        let r = match f {
            Err(unreadable) => unreadable,
            Ok(f) => {
                let before = prog;
                let mut on_read = |read: u64| {
                    if live {
                        progress(ImportProgress { bytes_done: before.bytes_done + read.min(size), ..before });
                    }
                };
                match import_file_reading(store, &f, None, &mut on_read) {
                    Ok(r) => r,
                    Err(e) => failed(&f, e.to_string()),
                }
            }
        };
        report.files.push(r);
        prog.files_done += 1;
        prog.bytes_done += size;
        progress(prog);
    }
    Ok(report)
}

/// A reader that tells `on_read` the bytes read so far after every read.
struct CountingRead<'a, R> {
    inner: R,
    read: u64,
    on_read: &'a mut dyn FnMut(u64),
}

impl<R: Read> Read for CountingRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        (self.on_read)(self.read);
        Ok(n)
    }
}

struct Progress {
    format: SourceFormat,
    session_id: String,
    head_hash: String,
    lines: u64,
    bytes: u64,
}

/// Per-source-file import progress, kept encrypted in the store's `meta`
/// table under the key `import-source:<keyed hash of the canonical path>`
/// (AAD = that key), so no schema change is needed.
#[derive(Serialize, serde::Deserialize)]
struct ProgressRecord {
    format: String,
    session_id: String,
    path: String,
    head_hash: String,
    lines: u64,
    bytes: u64,
    updated_at_ms: i64,
}

const PROGRESS_PREFIX: &str = "import-source:";
/// `meta` key prefix of the per-session count of source lines imported.
const LINES_PREFIX: &str = "import-lines:";

/// The `import-lines:<sid>` count in a `meta` value (0 when absent or unreadable).
fn stored_line_count(value: &crate::backend::Sealed) -> u64 {
    match value {
        crate::backend::Sealed::Bytes(b) => std::str::from_utf8(b).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0),
        _ => 0,
    }
}

fn load_progress(store: &SessionStore, index: &str) -> Result<Option<Progress>> {
    let key = format!("{PROGRESS_PREFIX}{index}");
    match store.sealed_meta(&key)? {
        Some(text) => parse_progress(&text).map(Some),
        None => Ok(None),
    }
}

fn parse_progress(text: &str) -> Result<Progress> {
    let rec: ProgressRecord = serde_json::from_str(text).map_err(|_| Error::corrupt("import progress record is not valid JSON"))?;
    let format = match rec.format.as_str() {
        "thclaws" => SourceFormat::Thclaws,
        "codex" => SourceFormat::Codex,
        "claude-code" => SourceFormat::ClaudeCode,
        "gemini-cli" => SourceFormat::GeminiCli,
        "opencode" => SourceFormat::Opencode,
        _ => return Err(Error::corrupt("import progress record has an unknown format")),
    };
    Ok(Progress { format, session_id: rec.session_id, head_hash: rec.head_hash, lines: rec.lines, bytes: rec.bytes })
}

fn source_index(store: &SessionStore, canonical: &str) -> String {
    crypto::keyed_hash(store.key(), SOURCE_DOMAIN, canonical.as_bytes())
}

fn head_hash(store: &SessionStore, path: &Path, upto: u64) -> Result<String> {
    let mut f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut buf = vec![0u8; (upto as usize).min(HEAD_BYTES)];
    f.read_exact(&mut buf).map_err(|e| Error::io("reading a session file", e))?;
    Ok(crypto::keyed_hash(store.key(), "import-head", &buf))
}

/// Import one session file (thClaws JSONL, Codex rollout or Claude Code
/// transcript; format detected unless given). Incremental: a file
/// imported before resumes after its last imported line. Problems with
/// the file are in the report's status.
///
/// Idempotent: see the module docs.
///
/// Two imports of one file at once (two processes, or two handles) never
/// store a line twice: every batch checks, in its transaction, that the
/// file's progress record is still the one its import started from; if
/// another import moved it, the batch rolls back and this import starts
/// over from the new progress (after a short pause, up to
/// `CONCURRENT_IMPORT_ATTEMPTS` times, then `Conflict`).
///
/// Errors: [`Error::Io`] reading the file; `InvalidInput` when it is not a
/// regular file (a FIFO or device); store errors (`Busy`, `Database`...);
/// `Conflict` when another import of the same file kept moving ahead.
/// An unrecognised file is `Ok` with [`ImportStatus::Unrecognized`].
pub fn import_file(store: &SessionStore, path: &Path, format: Option<SourceFormat>) -> Result<FileImport> {
    import_file_reading(store, path, format, &mut |_| {})
}

/// [`import_file`], telling `on_read` the bytes read of the file so far
/// after each read (a retried import starts counting again from 0).
fn import_file_reading(store: &SessionStore, path: &Path, format: Option<SourceFormat>, on_read: &mut dyn FnMut(u64)) -> Result<FileImport> {
    let mut attempt = 0;
    loop {
        match import_file_once(store, path, format, on_read) {
            Err(Error::Conflict { reason }) if reason == CONCURRENT_IMPORT && attempt < CONCURRENT_IMPORT_ATTEMPTS => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

/// `Conflict` reason of a batch whose file another import moved ahead.
const CONCURRENT_IMPORT: &str = "another import of this file committed first";
const CONCURRENT_IMPORT_ATTEMPTS: u32 = 500;

fn import_file_once(store: &SessionStore, path: &Path, format: Option<SourceFormat>, on_read: &mut dyn FnMut(u64)) -> Result<FileImport> {
    let canonical = std::fs::canonicalize(path).map_err(|e| Error::io("resolving a session file path", e))?;
    let canonical_s = canonical.to_string_lossy().into_owned();
    let index = source_index(store, &canonical_s);
    if matches!(format, None | Some(SourceFormat::Opencode)) {
        if let Some(r) = import_opencode_path(store, path, &canonical)? {
            return Ok(r);
        }
    }
    let meta = std::fs::metadata(&canonical).map_err(|e| Error::io("reading session file metadata", e))?;
    if !meta.is_file() {
        // A FIFO or device would block or never end (issue 30, item 5).
        return Err(super::detect::not_a_regular_file());
    }
    if matches!(format, None | Some(SourceFormat::Opencode) | Some(SourceFormat::AgentsSdk)) && sdk::is_sqlite_file(&canonical)? {
        // An Agents SDK `SQLiteSession` database (issue 29 item 3), an
        // opencode database (issue 28 item 6), or an SQLite file of
        // something else (unrecognised).
        if format != Some(SourceFormat::Opencode) {
            if let Some(r) = sdk::import_sdk_db(store, path)? {
                return Ok(r);
            }
        }
        if format == Some(SourceFormat::AgentsSdk) {
            return Err(not_agents_sdk());
        }
        if super::opencode::is_opencode_db(&canonical)? {
            return opencode::import_opencode(store, path, &super::OpencodeSource::Database(canonical), None);
        }
        return Ok(FileImport { path: path.to_path_buf(), format: None, status: ImportStatus::Unrecognized, from_line: 1, sessions: Vec::new(), read: None, not_session: None });
    }
    if format == Some(SourceFormat::AgentsSdk) {
        return Err(not_agents_sdk());
    }
    if format == Some(SourceFormat::Opencode) {
        return Err(Error::invalid("not an opencode source: give its storage directory, a session file (storage/session/<projectID>/<sessionID>.json), its data directory or opencode.db"));
    }
    let len = meta.len();
    let mut prev: Option<Progress> = load_progress(store, &index)?;
    if let Some(p) = &prev {
        // The session this file was imported into was deleted since: the
        // file is imported again from its first line.
        if let Err(Error::NotFound { .. }) = store.get_session(&p.session_id) {
            let key = format!("{PROGRESS_PREFIX}{index}");
            store.write_batch(|w| w.delete_meta(&key))?;
            prev = None;
        }
    }
    let mut out = FileImport { path: path.to_path_buf(), format: None, status: ImportStatus::Imported, from_line: 1, sessions: Vec::new(), read: None, not_session: None };
    let format = match (format, &prev) {
        (Some(f), _) => f,
        (None, Some(p)) => p.format,
        (None, None) => match super::detect::classify_file_bounded(&canonical, store.max_line_bytes())? {
            FileKind::Session(f) => f,
            FileKind::NotSession(why) => {
                out.status = ImportStatus::Unrecognized;
                out.not_session = Some(why.to_string());
                return Ok(out);
            }
            FileKind::Unknown => {
                out.status = ImportStatus::Unrecognized;
                return Ok(out);
            }
        },
    };
    out.format = Some(format);
    // A Gemini CLI JSON chat file is rewritten whole (its head changes with
    // `lastUpdated`): once it changed it is read again from its first line,
    // and record identity keeps what is stored from being stored again.
    let whole = match &prev {
        Some(p) if format == SourceFormat::GeminiCli && super::gemini::is_json_document(&canonical)? => p.bytes != len || head_hash(store, &canonical, p.bytes)? != p.head_hash,
        _ => false,
    };
    if let Some(p) = prev.as_ref().filter(|_| !whole) {
        if len < p.bytes || head_hash(store, &canonical, p.bytes)? != p.head_hash {
            out.status = ImportStatus::SourceChanged;
            return Ok(out);
        }
        if len == p.bytes {
            out.status = ImportStatus::UpToDate;
            out.from_line = p.lines + 1;
            return Ok(out);
        }
        out.from_line = p.lines + 1;
    }
    let file = std::fs::File::open(&canonical).map_err(|e| Error::io("opening a session file", e))?;
    let mut sink = ImportSink {
        store,
        format,
        known_main: prev.as_ref().map(|p| p.session_id.clone()),
        fallback: fallback_id(path),
        meta: Meta::default(),
        title: None,
        models: std::collections::HashMap::new(),
        targets: Vec::new(),
        last_ts: None,
        pending: Vec::new(),
        pending_entries: 0,
        pending_bytes: 0,
        progress: ProgressTarget { key: format!("{PROGRESS_PREFIX}{index}"), format, canonical: canonical.clone(), canonical_s, full_head: None },
        committed_lines: prev.as_ref().map(|p| p.lines).unwrap_or(0),
        committed_bytes: if whole { 0 } else { prev.as_ref().map(|p| p.bytes).unwrap_or(0) },
        progress_recorded: prev.is_some(),
        writer: None,
        batch_limit: std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(BATCH_ENTRIES)),
        duplicates: Default::default(),
        occ: Default::default(),
        resume_bytes: if whole { 0 } else { prev.as_ref().map_or(0, |p| p.bytes) },
        prefix_counted: false,
        ids: identity::RecordIds::new(store.key()),
    };
    if let Some(m) = (format == SourceFormat::GeminiCli).then(|| super::gemini::place_meta(&canonical)).flatten() {
        // The project root Gemini CLI recorded beside its chats.
        super::EventSink::event(&mut sink, &super::Thread::Main, super::Event::Meta(m))?;
    }
    let opts = ReadOptions { emit_from_line: out.from_line, max_line_bytes: Some(store.max_line_bytes()) };
    let input = BufReader::with_capacity(PROGRESS_READ_BYTES, CountingRead { inner: file, read: 0, on_read });
    let to_read = if whole { len } else { len.saturating_sub(prev.as_ref().map_or(0, |p| p.bytes)) };
    let (report, sessions) = if to_read <= BATCH_BYTES as u64 {
        // One batch or so: no second thread (its start and hand-offs cost
        // more than they save on small files).
        read_all(format, input, &opts, sink)?
    } else {
        // A pipeline of three threads (issue 33 item 3): this one reads,
        // parses, decides identities and prepares the batches; the sealing
        // stage redacts, encrypts and counts their entries; the writer
        // commits them (SQLite, journal). Each hands on one batch at a time.
        // A failing writer stops the stage, which stops the reader at its
        // next batch, and the writer's error is the one returned.
        std::thread::scope(|scope| {
            let (tx, rx_seal) = std::sync::mpsc::sync_channel::<Batch>(1);
            let (tx_write, rx) = std::sync::mpsc::sync_channel::<Batch>(1);
            std::thread::Builder::new()
                .name("sessiondb-import-seal".into())
                .spawn_scoped(scope, move || {
                    for mut batch in rx_seal {
                        seal_batch(store, &mut batch, true);
                        if tx_write.send(batch).is_err() {
                            // The writer stopped; dropping `rx_seal` stops the reader.
                            return;
                        }
                    }
                })
                .map_err(|e| Error::io("starting the import sealing thread", e))?;
            let limit = std::sync::Arc::clone(&sink.batch_limit);
            let writer = std::thread::Builder::new()
                .name("sessiondb-import-writer".into())
                .spawn_scoped(scope, move || -> Result<()> {
                    for batch in rx {
                        let entries = batch.entries();
                        let started = std::time::Instant::now();
                        apply_batch(store, batch)?;
                        adapt_batch(&limit, entries, started.elapsed());
                    }
                    Ok(())
                })
                .map_err(|e| Error::io("starting the import writer thread", e))?;
            sink.writer = Some(tx);
            // `read_all` consumes the sink, which closes the queue before the join.
            let read = read_all(format, input, &opts, sink);
            let written = writer.join().unwrap_or_else(|_| Err(Error::Database("the import writer panicked".into())));
            match (read, written) {
                (_, Err(e)) => Err(e),
                (read, Ok(())) => read,
            }
        })?
    };
    out.sessions = sessions;
    out.read = Some(report);
    Ok(out)
}

/// Import `canonical` when its place says it is opencode's (see
/// [`super::opencode::classify_path`]): a storage directory (every
/// session), one session file (that session), or a data directory (its
/// `opencode.db`, then its `storage/`, as one report). `Ok(None)`: not an
/// opencode path (a database is told by its content, later).
/// Errors: `InvalidInput` for a message or part file of the tree (not a
/// session); as [`opencode::import_opencode`].
fn import_opencode_path(store: &SessionStore, path: &Path, canonical: &Path) -> Result<Option<FileImport>> {
    use super::opencode::OpencodePath;
    use super::OpencodeSource;
    Ok(Some(match super::opencode::classify_path(canonical) {
        OpencodePath::Storage(root) => opencode::import_opencode(store, path, &OpencodeSource::Storage(root), None)?,
        OpencodePath::SessionFile(root, id) => opencode::import_opencode(store, path, &OpencodeSource::Storage(root), Some(&id))?,
        OpencodePath::DataDir(found) => {
            let mut all: Option<FileImport> = None;
            for f in found {
                let mut r = if f.is_dir() {
                    opencode::import_opencode(store, path, &OpencodeSource::Storage(f), None)?
                } else if super::opencode::is_opencode_db(&f)? {
                    opencode::import_opencode(store, path, &OpencodeSource::Database(f), None)?
                } else {
                    continue;
                };
                match &mut all {
                    None => all = Some(r),
                    Some(a) => {
                        if r.status == ImportStatus::Imported {
                            a.status = ImportStatus::Imported;
                        }
                        a.sessions.append(&mut r.sessions);
                        if let (Some(t), Some(x)) = (&mut a.read, r.read.take()) {
                            opencode::merge(t, x);
                        }
                    }
                }
            }
            match all {
                Some(a) => a,
                None => return Ok(None),
            }
        }
        OpencodePath::RecordFile => {
            return Err(Error::invalid(
                "an opencode message or part file is not a session: import the storage directory, a session file (storage/session/<projectID>/<sessionID>.json) or opencode.db",
            ))
        }
        OpencodePath::No => return Ok(None),
    }))
}

/// Read the whole stream into `sink`, then commit what is left at its end
/// (`ImportSink::finish`). The sink is consumed either way.
fn read_all<R: std::io::BufRead>(format: SourceFormat, input: R, opts: &ReadOptions, mut sink: ImportSink<'_>) -> Result<(ReadReport, Vec<SessionImport>)> {
    let mut report = read_stream(format, input, opts, &mut sink)?;
    let consumed_lines = report.lines - u64::from(report.torn_tail().is_some());
    let bytes = report.bytes;
    // The report lists what was not imported, duplicates of stored records included.
    let dups = std::mem::take(&mut sink.duplicates);
    let sessions = sink.finish(consumed_lines, bytes)?;
    for (k, n) in dups {
        *report.not_imported.entry(k).or_default() += n;
    }
    Ok((report, sessions))
}

fn clip(s: &str, max: usize) -> String {
    let cleaned: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if cleaned.len() <= max {
        return cleaned;
    }
    let mut end = max;
    while !cleaned.is_char_boundary(end) {
        end -= 1;
    }
    cleaned[..end].to_owned()
}

/// Make a source id acceptable as a store id (1..=128 chars, no whitespace,
/// control character or `:`): those characters become `_`, and an id over
/// 128 bytes is cut on a character boundary.
pub fn sanitize_id(id: &str) -> String {
    let s: String = id.chars().map(|c| if c == ':' || c.is_whitespace() || c.is_control() { '_' } else { c }).collect();
    let s = if s.is_empty() { "session".to_owned() } else { s };
    clip(&s, 128)
}

/// `--format agents-sdk` given a file that is no Agents SDK database.
fn not_agents_sdk() -> Error {
    Error::invalid("not an Agents SDK session database (an SQLite file with the SDK's agent_sessions and agent_messages tables)")
}

#[cfg(test)]
mod adapt_tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// A batch that held the writer 4x `BATCH_HOLD` asks for a quarter of
    /// its entries, reached halfway; a fast one goes back up to
    /// `BATCH_ENTRIES`; the floor is `BATCH_ENTRIES_MIN`.
    #[test]
    fn batch_size_moves_halfway_to_what_fits_in_the_hold_time() {
        let limit = AtomicUsize::new(BATCH_ENTRIES);
        adapt_batch(&limit, 512, Duration::from_millis(20));
        assert_eq!(limit.load(Ordering::Relaxed), (512 + 128) / 2);
        adapt_batch(&limit, 320, Duration::from_secs(10));
        assert_eq!(limit.load(Ordering::Relaxed), (320 + BATCH_ENTRIES_MIN) / 2);
        let cur = limit.load(Ordering::Relaxed);
        adapt_batch(&limit, cur, Duration::from_micros(100));
        assert_eq!(limit.load(Ordering::Relaxed), (cur + BATCH_ENTRIES) / 2);
        adapt_batch(&limit, 0, Duration::from_secs(1));
        assert_eq!(limit.load(Ordering::Relaxed), (cur + BATCH_ENTRIES) / 2);
        for _ in 0..20 {
            adapt_batch(&limit, 100, Duration::from_secs(1));
        }
        assert_eq!(limit.load(Ordering::Relaxed), BATCH_ENTRIES_MIN);
    }
}

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
//! a snapshot's value and timestamp, a raw line's JSON. Sessions imported
//! before (no import record) keep the line-number guard below.
//! Known limit: a Codex copy that starts after the file's first
//! `token_count` counts its first total whole (usage is the difference of
//! successive totals), so a later import of the full file adds that event's
//! own difference on top.
//!
//! Idempotence: a file whose length equals the bytes consumed adds nothing;
//! a grown file is read again with only lines after the consumed ones
//! emitted. A file that shrank or whose head changed is reported as
//! [`ImportStatus::SourceChanged`] and not touched.
//!
//! Crash safety: the importer commits in batches (about `BATCH_ENTRIES`
//! entries or `BATCH_BYTES` of content) at a reader's safe point `L`
//! ([`EventSink::safe_point`]: every event of lines `<= L` delivered). Each
//! batch is one transaction holding the entries, token records, context
//! extensions, renames and snapshots of lines `<= L` and the progress record
//! saying `L` lines are consumed. A crash leaves the store as after some
//! batch, so importing again resumes at line `L + 1` and nothing is stored
//! twice (entries, tokens or extensions). Within a session, turns whose
//! source line is not above the highest one stored are also skipped (a guard
//! for stores written before progress was committed with every batch).

use super::events::{Event, EventSink, Meta, Thread};
use super::model::{Block, Compaction, ReadReport, Role, SourceFormat, Turn, Usage};
use super::{classify_file, fallback_id, find_jsonl_files, read_stream, FileKind, ReadOptions};
use crate::backend::RecordId;
use crate::crypto;
use crate::store::{context_ext, sessions, tokens, transcript, ContentFormat, EntryMeta, NewEntry, NewSession, Role as StoreRole, SessionStore, TokenUsage};
use crate::{Error, Result};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

/// Entries appended per transaction.
const BATCH_ENTRIES: usize = 512;
/// Content bytes appended per transaction, at most (about).
const BATCH_BYTES: usize = 8 << 20;
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
    let env = store.read(|c, _| c.meta(&key))?;
    match crate::store::open_sealed(store.key(), &env, &key)? {
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

/// Import one file (format detected unless given). Idempotent: see the module docs.
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
    let meta = std::fs::metadata(&canonical).map_err(|e| Error::io("reading session file metadata", e))?;
    if !meta.is_file() {
        // A FIFO or device would block or never end (issue 30, item 5).
        return Err(super::detect::not_a_regular_file());
    }
    let len = meta.len();
    let mut prev: Option<Progress> = load_progress(store, &index)?;
    if let Some(p) = &prev {
        // The session this file was imported into was deleted since: the
        // file is imported again from its first line.
        if let Err(Error::NotFound { .. }) = store.get_session(&p.session_id) {
            let key = format!("{PROGRESS_PREFIX}{index}");
            store.write(|t| t.tx.delete_meta(&key))?;
            prev = None;
        }
    }
    let mut out = FileImport { path: path.to_path_buf(), format: None, status: ImportStatus::Imported, from_line: 1, sessions: Vec::new(), read: None, not_session: None };
    let format = match (format, &prev) {
        (Some(f), _) => f,
        (None, Some(p)) => p.format,
        (None, None) => match classify_file(&canonical)? {
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
    if let Some(p) = &prev {
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
        committed_bytes: prev.as_ref().map(|p| p.bytes).unwrap_or(0),
        progress_recorded: prev.is_some(),
        writer: None,
        duplicates: Default::default(),
    };
    let opts = ReadOptions { emit_from_line: out.from_line, ..Default::default() };
    let input = BufReader::with_capacity(PROGRESS_READ_BYTES, CountingRead { inner: file, read: 0, on_read });
    let to_read = len.saturating_sub(prev.as_ref().map_or(0, |p| p.bytes));
    let (report, sessions) = if to_read <= BATCH_BYTES as u64 {
        // One batch or so: no second thread (its start and hand-offs cost
        // more than they save on small files).
        read_all(format, input, &opts, sink)?
    } else {
        // Two threads: this one reads, parses and encrypts; the writer commits
        // the batches (SQLite, journal) one behind. A failing writer stops the
        // reader at its next batch, and its error is the one returned.
        std::thread::scope(|scope| {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(1);
            let writer = std::thread::Builder::new()
                .name("sessiondb-import-writer".into())
                .spawn_scoped(scope, move || -> Result<()> {
                    for batch in rx {
                        apply_batch(store, batch)?;
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

/// One write the reader asked for, not yet committed, with the source line
/// it came from (commits take every pending write at or below a safe point).
struct PendingWrite {
    line: u64,
    target: usize,
    op: Op,
}

enum Op {
    Entry { entry: NewEntry, meta: EntryMeta, seq: u64, tool_calls: u64, tool_results: u64, record: Option<RecordId> },
    Usage(Usage, Option<RecordId>),
    Ext { kind: &'static str, body: String, record: Option<RecordId> },
    Rename(Option<String>),
}

/// One transaction's worth of import writes, prepared on the reading thread.
struct Batch {
    writes: Vec<BatchWrite>,
}

enum BatchWrite {
    /// The progress record must still say `expected` lines (`None`: absent),
    /// else another import of the file got ahead: `Conflict`, roll back.
    CheckProgress { key: String, expected: Option<u64> },
    /// Entries with consecutive seqs from `first_seq`, their content already
    /// sealed for those seqs.
    Entries { sid: String, first_seq: u64, entries: Vec<NewEntry>, metas: Vec<EntryMeta>, sealed: Vec<Vec<u8>> },
    Usage { sid: String, usages: Vec<TokenUsage> },
    Ext { sid: String, kind: &'static str, body: String },
    Rename { sid: String, title: Option<String> },
    Model { sid: String, model: Option<String>, provider: Option<String> },
    /// Lines of the source file now in session `sid` (`import-lines:<sid>`
    /// in `meta`, a plain count): a later import of the same file from
    /// another path skips them.
    Lines { sid: String, lines: u64 },
    /// The progress record (sealed, under `key` in `meta`) and its `SessionImported` event.
    Progress { sid: String, key: String, record: String, event: Value },
    /// Source records now in session `sid`: one `import_records` row each.
    Records { sid: String, ids: Vec<RecordId> },
}

/// Write one batch in one transaction.
fn apply_batch(store: &SessionStore, batch: Batch) -> Result<()> {
    store.write(|t| {
        for w in &batch.writes {
            match w {
                BatchWrite::CheckProgress { key, expected } => {
                    let stored = match crate::store::open_sealed(t.key, &t.tx.meta(key)?, key)? {
                        Some(text) => Some(parse_progress(&text)?.lines),
                        None => None,
                    };
                    if stored != *expected {
                        return Err(Error::conflict(CONCURRENT_IMPORT));
                    }
                }
                BatchWrite::Entries { sid, first_seq, entries, metas, sealed } => {
                    transcript::append_rows_in_tx(t, sid, entries, Some(metas), Some((*first_seq, sealed)))?;
                }
                BatchWrite::Usage { sid, usages } => tokens::record_in_tx(t, sid, usages)?,
                BatchWrite::Ext { sid, kind, body } => {
                    context_ext::append_in_tx(t, sid, kind, body)?;
                }
                BatchWrite::Rename { sid, title } => sessions::rename_in_tx(t, sid, title.as_deref())?,
                BatchWrite::Model { sid, model, provider } => sessions::set_model_in_tx(t, sid, model.as_deref(), provider.as_deref())?,
                BatchWrite::Lines { sid, lines } => {
                    // The count only grows: a shorter copy of the file never lowers it.
                    let key = format!("{LINES_PREFIX}{sid}");
                    let stored = stored_line_count(&t.tx.meta(&key)?);
                    t.tx.put_meta(&key, &stored.max(*lines).to_string(), true)?;
                }
                BatchWrite::Progress { sid, key, record, event } => {
                    t.tx.put_meta(key, record, true)?;
                    crate::journal::record(t, sid, "SessionImported", event.clone())?;
                }
                BatchWrite::Records { sid, ids } => t.tx.insert_import_records(sid, ids)?,
            }
        }
        Ok(())
    })
}

/// A latest-wins snapshot (plan, goal, provider state): the newest one read
/// and whether it is stored yet.
#[derive(Default)]
struct Snapshot {
    latest: Option<(u64, Value)>,
    stored: bool,
}

struct Target {
    id: String,
    created: bool,
    /// Highest source line already stored (turns at or below it are skipped:
    /// a guard for stores written before imports committed their progress
    /// with every batch).
    max_stored_line: u64,
    /// Entries in the session before this read + turns emitted so far.
    next_seq_base: u64,
    stats: SessionImport,
    snapshots: [Snapshot; 3],
    /// Identities of the source records the session holds: a turn, usage
    /// figure or extension whose identity is here is not stored again,
    /// whatever file or line it arrives in.
    seen: std::collections::HashSet<RecordId>,
    provider: Option<String>,
    /// Model and provider on the session row.
    stored_model: Option<String>,
}

const SNAPSHOT_KINDS: [&str; 3] = ["plan_snapshot", "goal_snapshot", "provider_state"];

/// HMAC domain of the source record identities ([`RecordId`]).
const RECORD_DOMAIN: &str = "import-record";

/// What identifies a turn as a source record (issue 14 item 2): the Claude
/// line's `uuid` (an assistant message merged from several lines: its first
/// line's), otherwise the turn itself (role, timestamp and blocks: for
/// thClaws one line, for Codex the items of one turn). Never its line number.
fn turn_identity(format: SourceFormat, turn: &Turn) -> String {
    if format == SourceFormat::ClaudeCode {
        if let Some(uuid) = turn.extra.get("uuid").and_then(Value::as_str) {
            return format!("claude-uuid\0{uuid}");
        }
    }
    format!("turn\0{}\0{:?}\0{}", turn.role.as_str(), turn.timestamp_ms, turn.blocks_json())
}

/// What identifies a usage figure: the Claude `message.id` it was billed
/// for, or the Codex `token_count` event (its cumulative `total_token_usage`).
fn usage_identity(u: &Usage) -> Option<String> {
    u.record_id.clone()
}

/// Where the progress record of the file being imported goes.
struct ProgressTarget {
    key: String,
    format: SourceFormat,
    canonical: PathBuf,
    canonical_s: String,
    /// Keyed hash of the first HEAD_BYTES of the file, once that many are consumed.
    full_head: Option<String>,
}

struct ImportSink<'a> {
    store: &'a SessionStore,
    /// Source records not stored again, by `already stored: <what>` kind.
    duplicates: std::collections::BTreeMap<String, u64>,
    format: SourceFormat,
    known_main: Option<String>,
    fallback: String,
    meta: Meta,
    /// Latest model read per thread (a Claude sidechain runs its own model).
    models: std::collections::HashMap<Thread, String>,
    /// A title read before the main session was looked up: `(title, line)`.
    title: Option<(Option<String>, u64)>,
    targets: Vec<(Thread, Target)>,
    last_ts: Option<i64>,
    pending: Vec<PendingWrite>,
    pending_entries: usize,
    pending_bytes: usize,
    progress: ProgressTarget,
    /// Lines and bytes consumed by the last commit.
    committed_lines: u64,
    committed_bytes: u64,
    /// The file has a progress record (saying `committed_lines`); each batch
    /// checks it is still that before writing.
    progress_recorded: bool,
    /// The writer thread's queue; `None` = write on this thread.
    writer: Option<std::sync::mpsc::SyncSender<Batch>>,
}

impl<'a> ImportSink<'a> {
    fn main_id(&self) -> String {
        self.known_main.clone().or_else(|| self.meta.id.clone()).map(|s| sanitize_id(&s)).unwrap_or_else(|| sanitize_id(&self.fallback))
    }

    /// The thread's session id as the source has it, before [`sanitize_id`]
    /// (recorded in `import_source` as `source_id`).
    fn source_id(&self, thread: &Thread) -> String {
        let main = self.known_main.clone().or_else(|| self.meta.id.clone()).unwrap_or_else(|| self.fallback.clone());
        match thread {
            Thread::Main => main,
            Thread::Sidechain(root) => format!("{main}.sidechain.{root}"),
        }
    }

    fn target(&mut self, thread: &Thread) -> Result<usize> {
        if let Some(i) = self.targets.iter().position(|(t, _)| t == thread) {
            return Ok(i);
        }
        if *thread != Thread::Main && !self.targets.iter().any(|(t, _)| *t == Thread::Main) {
            self.target(&Thread::Main)?;
        }
        let main = self.main_id();
        let id = match thread {
            Thread::Main => main.clone(),
            Thread::Sidechain(root) => sanitize_id(&format!("{main}.sidechain.{root}")),
        };
        let (created, rec) = match self.store.get_session(&id) {
            Ok(rec) => {
                // Only a session imported from the same format continues: a
                // native session, or one imported from another format, that
                // happens to have this id is never appended to.
                let same_source = self.store.list_context_extensions(&id)?.iter().any(|x| {
                    x.kind == "import_source"
                        && serde_json::from_str::<Value>(&x.body).ok().and_then(|b| b.get("format").and_then(Value::as_str).map(str::to_owned))
                            == Some(self.format.as_str().to_owned())
                });
                if !same_source {
                    return Err(Error::conflict(format!(
                        "session `{id}` already exists and was not imported from a {} file; nothing of this file was added to it",
                        self.format.as_str()
                    )));
                }
                // Two source ids that sanitize to one store id (`a b`, `a_b`)
                // are two sessions: the first keeps the id. Sessions imported
                // before `source_id` was recorded continue as before.
                if self.known_main.is_none() {
                    let source = self.source_id(thread);
                    let recorded = self.store.list_context_extensions(&id)?.iter().find_map(|x| {
                        (x.kind == "import_source")
                            .then(|| serde_json::from_str::<Value>(&x.body).ok()?.get("source_id")?.as_str().map(str::to_owned))
                            .flatten()
                    });
                    if let Some(recorded) = recorded.filter(|r| *r != source) {
                        return Err(Error::conflict(format!(
                            "session `{id}` was imported from source session `{recorded}`, not `{source}`; nothing of this file was added to it"
                        )));
                    }
                }
                (false, rec)
            }
            Err(Error::NotFound { .. }) => {
                let title = if *thread == Thread::Main { self.title.take().and_then(|(t, _)| t) } else { None };
                let new = NewSession {
                    id: Some(id.clone()),
                    name: title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty()),
                    // A cwd that is not absolute here (a Windows path read on Unix...)
                    // is not bound: it would resolve against our own directory.
                    // It stays in the `import_source` extension.
                    workspace_path: self.meta.cwd.clone().filter(|c| !c.is_empty() && Path::new(c).is_absolute()),
                    model: self.models.get(thread).cloned().or_else(|| self.meta.model.clone()).map(|m| clip(&m, 256)),
                    provider: self.meta.provider.clone().map(|p| clip(&p, 256)),
                    work_mode: None,
                    created_at_ms: self.meta.created_at_ms.or(self.last_ts),
                    forked_from: None,
                    forked_at_seq: None,
                };
                let mut src = json!({"format": self.format.as_str(), "cwd": self.meta.cwd, "extra": Value::Object(self.meta.extra.clone()), "source_id": self.source_id(thread)});
                if *thread != Thread::Main {
                    src["sidechain_of"] = Value::String(main.clone());
                }
                let (sid, binding, created_at) = sessions::prepare_session(self.store.key(), &new)?;
                // The session and its provenance in one transaction.
                let made = self.store.write(|t| {
                    let rec = sessions::create_in_tx(t, &sid, &new, binding.as_ref(), created_at)?;
                    context_ext::append_in_tx(t, &sid, "import_source", &src.to_string())?;
                    Ok(rec)
                });
                match made {
                    Ok(rec) => (true, rec),
                    // Another import of the same source created it just now.
                    Err(Error::Conflict { .. }) => (false, self.store.get_session(&id)?),
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        let mut seen = std::collections::HashSet::new();
        if !created {
            self.store.read(|c, _| {
                c.import_records(&id, &mut |r| {
                    seen.insert(r);
                    Ok(())
                })
            })?;
        }
        let max_stored_line = if created || !seen.is_empty() {
            // Record identities decide what is stored already; line numbers
            // are only the guard of sessions imported before issue 14.
            0
        } else {
            let last_entry = self.store.get_transcript_tail(&id, 1)?.first().and_then(|e| e.source_line).unwrap_or(0);
            // Lines of a source file already imported into this session, from
            // whatever path (a rollout moved to `archived_sessions/`, a copy).
            let key = format!("{LINES_PREFIX}{id}");
            let lines = self.store.read(|c, _| c.meta(&key))?;
            last_entry.max(stored_line_count(&lines))
        };
        let stats = SessionImport { session_id: id.clone(), created, context_extensions: u64::from(created), ..Default::default() };
        // A title read before an existing main session was looked up is a
        // rename at its own line (committed with the lines around it).
        let parked = if *thread == Thread::Main { self.title.take() } else { None };
        self.targets.push((
            thread.clone(),
            Target {
                id,
                created,
                max_stored_line,
                next_seq_base: self.store.last_seq(&rec.id)?,
                stats,
                snapshots: Default::default(),
                seen,
                provider: rec.provider.clone(),
                stored_model: rec.model.clone(),
            },
        ));
        let i = self.targets.len() - 1;
        if let Some((title, line)) = parked {
            self.push(line, i, Op::Rename(title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty())));
        }
        Ok(i)
    }

    /// The [`RecordId`] of a source record of identity `identity` in target
    /// `target`, remembered as held; `None` (and counted in
    /// [`ReadReport::not_imported`] as `already stored: <what>`) when the
    /// session holds it already.
    fn record(&mut self, target: usize, what: &str, identity: &str) -> Option<RecordId> {
        let t = &mut self.targets[target].1;
        let digest = crypto::keyed_digest(self.store.key(), RECORD_DOMAIN, identity.as_bytes());
        let mut id: RecordId = [0; 16];
        id.copy_from_slice(&digest[..16]);
        if t.seen.insert(id) {
            Some(id)
        } else {
            *self.duplicates.entry(format!("{ALREADY_STORED}{what}")).or_default() += 1;
            None
        }
    }

    /// A `plan_snapshot` (k = 0) or `goal_snapshot` (k = 1): every one is a
    /// context extension of its kind, in order, with the number of entries
    /// before it (`at_seq`) and its timestamp (issue 14 item 3).
    fn state_snapshot(&mut self, target: usize, k: usize, line: u64, v: Value, timestamp_ms: Option<i64>) {
        let at_seq = self.targets[target].1.next_seq_base;
        let field = if k == 0 { "plan" } else { "goal" };
        let v = fit_depth(v, MAX_NESTED_DEPTH - 1);
        let Some(record) = self.record(target, SNAPSHOT_KINDS[k], &format!("{field}\0{timestamp_ms:?}\0{v}")) else { return };
        let body = json!({ field: v, "at_seq": at_seq, "timestamp_ms": timestamp_ms });
        self.push(line, target, Op::Ext { kind: SNAPSHOT_KINDS[k], body: body.to_string(), record: Some(record) });
    }

    fn push(&mut self, line: u64, target: usize, op: Op) {
        let t = &self.targets[target].1;
        if !t.created && line <= t.max_stored_line && !matches!(op, Op::Entry { .. }) {
            // Already in the session (imported before from this or another path).
            return;
        }
        if let Op::Entry { entry, meta, .. } = &op {
            self.pending_entries += 1;
            self.pending_bytes += entry_bytes(entry, meta);
        }
        self.pending.push(PendingWrite { line, target, op });
    }

    /// Commit every pending write from lines `<= upto` (in the order they
    /// were read), the snapshots read up to there, the session model, and
    /// the progress record `(lines, bytes)`, as one transaction: a crash
    /// before it leaves the store as the previous commit did; after it, a
    /// re-import resumes at line `lines + 1`. The batch is prepared here
    /// (content encrypted with the seqs it will get) and written by the
    /// writer thread when there is one, so reading the next lines overlaps
    /// the SQLite work of this batch.
    fn commit(&mut self, upto: u64, lines: u64, bytes: u64) -> Result<()> {
        let batch = self.prepare(upto, lines, bytes)?;
        match &self.writer {
            Some(tx) => tx.send(batch).map_err(|_| Error::Database("the import writer stopped".into())),
            None => apply_batch(self.store, batch),
        }
    }

    fn prepare(&mut self, upto: u64, lines: u64, bytes: u64) -> Result<Batch> {
        let (now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending).into_iter().partition(|w| w.line <= upto);
        self.pending = later;
        self.pending_entries = self.pending.iter().filter(|w| matches!(w.op, Op::Entry { .. })).count();
        self.pending_bytes = self.pending.iter().map(|w| if let Op::Entry { entry, meta, .. } = &w.op { entry_bytes(entry, meta) } else { 0 }).sum();

        let key = self.store.key();
        let mut writes: Vec<BatchWrite> = vec![BatchWrite::CheckProgress { key: self.progress.key.clone(), expected: self.progress_recorded.then_some(self.committed_lines) }];
        let mut entries_now = 0u64;
        // One Entries write (one TranscriptAppended event) and one Usage
        // write per session and batch: a Claude message's usage or a Codex
        // token count between turns no longer splits the batch's entries
        // into one journal event per turn (the journal was 12% of the database).
        let mut entries_at: std::collections::HashMap<String, usize> = Default::default();
        let mut usage_at: std::collections::HashMap<String, usize> = Default::default();
        let mut records: std::collections::BTreeMap<String, Vec<RecordId>> = Default::default();
        for w in now {
            let tg = &mut self.targets[w.target].1;
            let st = &mut tg.stats;
            match w.op {
                Op::Entry { mut entry, mut meta, seq, tool_calls, tool_results, record } => {
                    // Redaction on write (issue 30 item 2), before sealing.
                    self.store.redact_on_write(&mut entry, Some(&mut meta));
                    records.entry(tg.id.clone()).or_default().extend(record);
                    st.entries += 1;
                    st.tool_calls += tool_calls;
                    st.tool_results += tool_results;
                    entries_now += 1;
                    let sealed = transcript::seal_content(key, &tg.id, seq, &entry.content, self.store.compress());
                    match entries_at.get(&tg.id).map(|&i| &mut writes[i]) {
                        Some(BatchWrite::Entries { first_seq, entries, metas, sealed: s, .. }) if *first_seq + entries.len() as u64 == seq => {
                            entries.push(entry);
                            metas.push(meta);
                            s.push(sealed);
                        }
                        _ => {
                            entries_at.insert(tg.id.clone(), writes.len());
                            writes.push(BatchWrite::Entries { sid: tg.id.clone(), first_seq: seq, entries: vec![entry], metas: vec![meta], sealed: vec![sealed] });
                        }
                    }
                }
                Op::Usage(u, record) => {
                    records.entry(tg.id.clone()).or_default().extend(record);
                    st.usage_records += 1;
                    st.input_tokens = st.input_tokens.saturating_add(u.input);
                    st.output_tokens = st.output_tokens.saturating_add(u.output);
                    st.cached_tokens = st.cached_tokens.saturating_add(u.cached);
                    let usage = TokenUsage { input: u.input, output: u.output, cached: u.cached, model: u.model, provider: tg.provider.clone() };
                    match usage_at.get(&tg.id).map(|&i| &mut writes[i]) {
                        Some(BatchWrite::Usage { usages, .. }) => usages.push(usage),
                        _ => {
                            usage_at.insert(tg.id.clone(), writes.len());
                            writes.push(BatchWrite::Usage { sid: tg.id.clone(), usages: vec![usage] });
                        }
                    }
                }
                Op::Ext { kind, body, record } => {
                    records.entry(tg.id.clone()).or_default().extend(record);
                    st.context_extensions += 1;
                    let body = self.store.redact_text_on_write(&body).unwrap_or(body);
                    writes.push(BatchWrite::Ext { sid: tg.id.clone(), kind, body });
                }
                Op::Rename(title) => writes.push(BatchWrite::Rename { sid: tg.id.clone(), title }),
            }
        }
        for (sid, ids) in records {
            writes.push(BatchWrite::Records { sid, ids });
        }
        for (thread, t) in self.targets.iter_mut() {
            let model = self.models.get(thread).map(|m| clip(m, 256));
            for (k, s) in t.snapshots.iter_mut().enumerate() {
                if let (Some((line, v)), false) = (&s.latest, s.stored) {
                    if *line <= upto {
                        let body = match k {
                            0 => json!({ "plan": v }),
                            1 => json!({ "goal": v }),
                            _ => json!({ "provider_session_id": v }),
                        };
                        writes.push(BatchWrite::Ext { sid: t.id.clone(), kind: SNAPSHOT_KINDS[k], body: body.to_string() });
                        t.stats.context_extensions += 1;
                        s.stored = true;
                    }
                }
            }
            // The model may be known only after the session was created (a
            // Codex turn_context follows the first messages) or may have changed.
            if model.is_some() && t.stored_model != model {
                writes.push(BatchWrite::Model { sid: t.id.clone(), model: model.clone(), provider: t.provider.clone() });
                t.stored_model = model.clone();
            }
        }
        let head = match &self.progress.full_head {
            Some(h) => h.clone(),
            None => {
                let h = head_hash(self.store, &self.progress.canonical, bytes)?;
                if bytes >= HEAD_BYTES as u64 {
                    self.progress.full_head = Some(h.clone());
                }
                h
            }
        };
        if let Some((_, main)) = self.targets.first() {
            let p = &self.progress;
            let record = ProgressRecord {
                format: p.format.as_str().to_owned(),
                session_id: main.id.clone(),
                path: p.canonical_s.clone(),
                head_hash: head,
                lines,
                bytes,
                updated_at_ms: crate::store::now_ms(),
            };
            let from_line = self.committed_lines + 1;
            writes.push(BatchWrite::Progress {
                sid: main.id.clone(),
                key: p.key.clone(),
                record: crypto::seal_str(key, &p.key, &serde_json::to_string(&record).expect("progress record serializes")),
                event: json!({"format": p.format.as_str(), "from_line": from_line, "lines": lines, "bytes": bytes, "entries": entries_now}),
            });
        }
        for (_, t) in &self.targets {
            writes.push(BatchWrite::Lines { sid: t.id.clone(), lines });
        }
        if !self.targets.is_empty() {
            self.progress_recorded = true;
        }
        self.committed_lines = lines;
        self.committed_bytes = bytes;
        Ok(Batch { writes })
    }

    /// Keep snapshot `k` (plan, goal, provider state) read at `line`, unless
    /// the session already holds that line.
    fn snapshot(&mut self, target: usize, k: usize, line: u64, v: Value) {
        let t = &mut self.targets[target].1;
        if t.created || line > t.max_stored_line {
            t.snapshots[k] = Snapshot { latest: Some((line, v)), stored: false };
        }
    }

    /// Commit everything left after the reader's last line.
    fn finish(mut self, lines: u64, bytes: u64) -> Result<Vec<SessionImport>> {
        if self.targets.is_empty() {
            // A header-only file still becomes a (empty) session, and a file
            // that grew only by lines that make no event (bookkeeping lines, a
            // completed last newline) still gets its progress recorded.
            self.target(&Thread::Main)?;
        }
        // (A title still parked is pushed by `target` with its line.)
        // A last line that only gained its newline moves the bytes, not the lines.
        if lines > self.committed_lines || bytes > self.committed_bytes || !self.pending.is_empty() || self.targets.iter().any(|(_, t)| t.snapshots.iter().any(|s| s.latest.is_some() && !s.stored)) {
            self.commit(u64::MAX, lines, bytes)?;
        }
        Ok(self.targets.into_iter().map(|(_, t)| t.stats).collect())
    }
}

impl EventSink for ImportSink<'_> {
    fn event(&mut self, thread: &Thread, event: Event) -> Result<()> {
        match event {
            Event::Meta(m) => {
                if let Some(model) = &m.model {
                    self.models.insert(thread.clone(), model.clone());
                }
                if *thread != Thread::Main {
                    // Only a model is thread-specific; the rest is the file's.
                    return Ok(());
                }
                if self.meta.id.is_none() {
                    self.meta.id = m.id;
                }
                if m.model.is_some() {
                    self.meta.model = m.model;
                }
                if m.provider.is_some() {
                    self.meta.provider = m.provider;
                }
                if self.meta.cwd.is_none() {
                    self.meta.cwd = m.cwd;
                }
                if self.meta.created_at_ms.is_none() {
                    self.meta.created_at_ms = m.created_at_ms;
                }
                self.meta.extra.extend(m.extra);
            }
            Event::Title { title, line } => {
                let main_known = self.targets.iter().any(|(t, _)| *t == Thread::Main);
                if *thread == Thread::Main && !main_known && self.known_main.is_none() {
                    // The main session's id may not be known yet (a Claude
                    // summary line comes before the first sessionId): it
                    // takes this title when it is created or looked up.
                    self.title = Some((title, line));
                } else {
                    let i = self.target(thread)?;
                    let title = title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty());
                    sessions::check_title(&title)?;
                    self.push(line, i, Op::Rename(title));
                }
            }
            Event::Turn(turn) => {
                if turn.timestamp_ms.is_some() {
                    self.last_ts = turn.timestamp_ms;
                }
                let i = self.target(thread)?;
                let ts = turn.timestamp_ms.or(self.last_ts);
                let t = &mut self.targets[i].1;
                if turn.source_line <= t.max_stored_line {
                    t.stats.skipped_already_stored += 1;
                    return Ok(());
                }
                let (line, tool_calls, tool_results) = (turn.source_line, turn.tool_calls() as u64, turn.tool_results() as u64);
                let Some(record) = self.record(i, "turn", &turn_identity(self.format, &turn)) else {
                    self.targets[i].1.stats.skipped_already_stored += 1;
                    return Ok(());
                };
                // Entries are committed in the order they are pushed, so this
                // is the seq the entry gets (checked when it is written).
                let t = &mut self.targets[i].1;
                t.next_seq_base += 1;
                let seq = t.next_seq_base;
                let (entry, meta) = to_entry(turn, ts);
                self.push(line, i, Op::Entry { entry, meta, seq, tool_calls, tool_results, record: Some(record) });
            }
            Event::Usage(mut u) => {
                u.model = u.model.map(|m| clip(&m, 256));
                let i = self.target(thread)?;
                let record = match usage_identity(&u) {
                    Some(idn) => match self.record(i, "usage", &format!("usage\0{idn}")) {
                        Some(r) => Some(r),
                        None => return Ok(()),
                    },
                    None => None,
                };
                self.push(u.source_line, i, Op::Usage(u, record));
            }
            Event::Plan { plan, line, timestamp_ms } => {
                let i = self.target(thread)?;
                self.state_snapshot(i, 0, line, plan, timestamp_ms);
            }
            Event::Goal { goal, line, timestamp_ms } => {
                let i = self.target(thread)?;
                self.state_snapshot(i, 1, line, goal, timestamp_ms);
            }
            Event::ProviderState { provider_session_id, line } => {
                let i = self.target(thread)?;
                let v = provider_session_id.map(Value::String).unwrap_or(Value::Null);
                self.snapshot(i, 2, line, v);
            }
            Event::Compaction(c) => {
                let i = self.target(thread)?;
                let body = compaction_body(&c, self.targets[i].1.next_seq_base);
                let mut ident = body.clone();
                if let Value::Object(m) = &mut ident {
                    m.remove("at_seq");
                    m.remove("source_line");
                }
                let Some(record) = self.record(i, "compaction", &format!("compaction\0{ident}")) else { return Ok(()) };
                self.push(c.source_line, i, Op::Ext { kind: SOURCE_COMPACTION_KIND, body: body.to_string(), record: Some(record) });
                let model = self.models.get(thread).cloned().or_else(|| self.meta.model.clone()).unwrap_or_default();
                if let Some((kind, body)) = resume_point(&c, self.targets[i].1.next_seq_base, &model) {
                    self.push(c.source_line, i, Op::Ext { kind, body, record: None });
                }
            }
            Event::Other(o) => {
                let i = self.target(thread)?;
                let body = json!({"line": o.line, "kind": o.kind, "raw": fit_depth(o.raw, MAX_NESTED_DEPTH - 1)});
                let Some(record) = self.record(i, "raw line", &format!("raw\0{}\0{}", o.kind, body["raw"])) else { return Ok(()) };
                self.push(o.line, i, Op::Ext { kind: "import_raw_line", body: body.to_string(), record: Some(record) });
            }
        }
        Ok(())
    }

    fn safe_point(&mut self, lines: u64, bytes: u64) -> Result<()> {
        if lines > self.committed_lines && (self.pending_entries >= BATCH_ENTRIES || self.pending_bytes >= BATCH_BYTES) {
            self.commit(lines, lines, bytes)?;
        }
        Ok(())
    }
}

fn compaction_body(c: &Compaction, at_seq: u64) -> Value {
    json!({
        "at_seq": at_seq,
        "source_line": c.source_line,
        "timestamp_ms": c.timestamp_ms,
        "summary": c.summary,
        "replaces_count": c.replaces_count,
        "messages": fit_depth(
            Value::Array(c.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.blocks.iter().map(Block::to_json).collect::<Vec<_>>()})).collect()),
            MAX_NESTED_DEPTH - 1
        ),
        "raw": c.raw.clone().map(|r| fit_depth(r, MAX_NESTED_DEPTH - 1)),
    })
}

/// The context-governance record that makes an imported session's active
/// context start where its source agent resumes after compaction `c`
/// (DESIGN.md "Context governance"; issue 14 item 4), `at_seq` being the
/// number of entries before it; the saved transcript keeps everything.
///
/// - No replacement messages (a Claude `compact_boundary`, whose summary is
///   the next, `isCompactSummary`, user turn; a Codex `compacted` with an
///   empty history): `exclude` seqs `1..=at_seq`, so the context starts at
///   the turn after the boundary, as Claude Code resumes.
/// - Replacement messages (thClaws `compaction.messages`, Codex
///   `replacement_history`), k of them: a `compaction` plan whose runs cover
///   `1..=at_seq`, one run per message, in order (runs `1`, `2`, ...,
///   `k-1` of one entry each and a last run to `at_seq`), each run's summary
///   the message's text whole (the source's summary, not a 240-character
///   one of ours) and its `tokens_after` that text's [`count_tokens`] for
///   the session's model. The active context then holds exactly the k
///   messages thClaws loads, then the turns after. With fewer entries
///   before it than messages (n < k), the last run holds messages n to k
///   (the context has all their text and tokens, in n items).
/// - No entry before it: nothing to record (`None`).
///
/// [`count_tokens`]: crate::context::count_tokens
fn resume_point(c: &Compaction, at_seq: u64, model: &str) -> Option<(&'static str, String)> {
    if at_seq == 0 {
        return None;
    }
    if c.messages.is_empty() {
        let seqs: Vec<u64> = (1..=at_seq).collect();
        return Some((crate::context::governance::KIND_EXCLUDE, json!({ "seqs": seqs }).to_string()));
    }
    let texts: Vec<String> = c.messages.iter().map(|m| format!("{}: {}", m.role.as_str(), message_text(&m.blocks))).collect();
    let k = (texts.len() as u64).min(at_seq);
    let mut groups: Vec<String> = texts[..(k as usize - 1)].to_vec();
    groups.push(texts[k as usize - 1..].join("\n\n"));
    let mut transformations = Vec::with_capacity(groups.len());
    for (i, summary) in groups.into_iter().enumerate() {
        let seq = i as u64 + 1;
        let last = if seq == k { at_seq } else { seq };
        let tokens_after = crate::context::count_tokens(model, &summary, None).tokens;
        transformations.push(crate::context::Transformation {
            seq,
            last_seq: Some(last),
            action: crate::context::CompactionAction::Summarized,
            tokens_before: 0,
            tokens_after,
            summary,
        });
    }
    let tokens_after = transformations.iter().map(|t| t.tokens_after).sum();
    let plan = crate::context::CompactionPlan { capacity: 0, target_percent: 0, target_tokens: 0, tokens_before: 0, tokens_after, reached_target: true, transformations };
    Some((crate::context::governance::KIND_COMPACTION, serde_json::to_string(&plan).expect("a plan serializes")))
}

/// The text of a message's blocks as a model is sent them: text as is,
/// anything else as its JSON.
fn message_text(blocks: &[Block]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { text } => text.clone(),
            Block::Thinking { text, .. } => text.clone(),
            other => other.to_json().to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Deepest nesting of arrays and objects serde_json reads back (its
/// recursion limit of 128 stops at the 128th level), and so the deepest
/// context-extension body the store takes.
const MAX_NESTED_DEPTH: usize = 127;

/// Arrays and objects nested in `v` (a scalar is 0).
fn json_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(json_depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// `v` itself when it nests at most `max` levels, else its JSON text: a
/// source value already near the reader's limit, wrapped in an extension
/// body, would nest one level too deep to be stored and read back. Nothing
/// is dropped; the value is kept as text.
fn fit_depth(v: Value, max: usize) -> Value {
    if json_depth(&v) > max {
        Value::String(v.to_string())
    } else {
        v
    }
}

/// About how many bytes an entry and its metadata add to a batch.
fn entry_bytes(e: &NewEntry, m: &EntryMeta) -> usize {
    e.content.len() + m.extra.values().map(json_size).sum::<usize>()
}

/// About how many bytes `v` takes as JSON (strings and numbers counted,
/// punctuation roughly): enough to bound a batch without serializing it.
fn json_size(v: &Value) -> usize {
    match v {
        Value::Null | Value::Bool(_) | Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(a) => 2 + a.iter().map(json_size).sum::<usize>(),
        Value::Object(m) => 2 + m.iter().map(|(k, v)| k.len() + 4 + json_size(v)).sum::<usize>(),
    }
}

/// The store entry of a turn and its metadata (model and provider clipped
/// to 256 bytes without control characters, as session names are).
fn to_entry(turn: Turn, ts: Option<i64>) -> (NewEntry, EntryMeta) {
    let role = match turn.role {
        Role::User => StoreRole::User,
        Role::Assistant => StoreRole::Assistant,
        Role::System => StoreRole::System,
        Role::Tool => StoreRole::Tool,
    };
    let (format, content) = match turn.blocks.as_slice() {
        [Block::Text { text }] => (ContentFormat::Text, text.clone()),
        _ => (ContentFormat::Blocks, turn.blocks_json()),
    };
    let meta = EntryMeta { model: turn.model.map(|m| clip(&m, 256)), provider: turn.provider.map(|p| clip(&p, 256)), extra: turn.extra, item: None };
    (NewEntry { role, content, format, created_at_ms: ts, tokens: None, source_line: Some(turn.source_line) }, meta)
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


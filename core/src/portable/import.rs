//! Import session files into the encrypted store, and export stored
//! sessions back to thClaws JSONL (issue 4 items 3 and 1; DESIGN.md
//! "Portable sessions").
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
//! - plan / goal / provider state (latest of the read), each compaction,
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
//! Idempotence: a file whose length equals the bytes consumed adds nothing;
//! a grown file is read again with only lines after the consumed ones
//! emitted. A file that shrank or whose head changed is reported as
//! [`ImportStatus::SourceChanged`] and not touched. Within a session, turns
//! whose source line is not above the highest one stored are skipped, which
//! also protects against a crash between appending entries and recording
//! progress (tokens of such a crashed read may then be counted twice: the
//! store's public API gives no single transaction spanning entries, tokens
//! and progress).

use super::events::{Event, EventSink, Meta, Thread};
use super::model::{Block, Compaction, PortableSession, ReadReport, Role, SourceFormat, SourceInfo, Turn, Usage};
use super::{detect_format, fallback_id, find_jsonl_files, read_stream, write_thclaws, write_thclaws_with, ReadOptions, WriteOptions, WriteReport};
use crate::crypto;
use crate::store::{ContentFormat, EntryMeta, NewEntry, NewSession, Role as StoreRole, SessionRecord, SessionStore, TokenUsage, WorkspaceFilter};
use crate::{Error, Result};
use rusqlite::OptionalExtension;
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

/// Entries appended per transaction.
const BATCH_ENTRIES: usize = 512;
/// Content bytes appended per transaction, at most (about).
const BATCH_BYTES: usize = 8 << 20;
/// Transcript page size when exporting.
const EXPORT_PAGE: u32 = 1000;
const SOURCE_DOMAIN: &str = "import-source";
/// Context-extension kind of a compaction checkpoint read from a source file
/// (thClaws `compaction`, Codex `compacted`, Claude `compact_boundary`). It is
/// not the `compaction` kind of context governance (a sessiondb plan), so
/// `/context` replay ignores it; export writes it back as a `compaction` line.
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
    /// Reading or storing failed; the message names the step (no content).
    Failed(String),
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
    /// Turns skipped because the session already holds their source line.
    pub skipped_already_stored: u64,
}

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

/// Import every session file under `paths` (files or directory trees; only
/// `*.jsonl` files are considered inside directories), format detected per
/// file. `progress` is called after each file.
///
/// Errors: [`Error::Io`] when a given path cannot be read at all. Problems
/// with one file are reported in its [`FileImport::status`] and the rest go on.
pub fn import_paths(store: &SessionStore, paths: &[PathBuf], progress: &mut dyn FnMut(ImportProgress)) -> Result<ImportReport> {
    let mut files = Vec::new();
    for p in paths {
        files.extend(find_jsonl_files(p)?);
    }
    let sizes: Vec<u64> = files.iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).collect();
    let mut prog = ImportProgress { files_done: 0, files_total: files.len(), bytes_done: 0, bytes_total: sizes.iter().sum() };
    let mut report = ImportReport::default();
    for (f, size) in files.iter().zip(sizes) {
        let r = match import_file(store, f, None) {
            Ok(r) => r,
            Err(e) => FileImport { path: f.clone(), format: None, status: ImportStatus::Failed(e.to_string()), from_line: 0, sessions: Vec::new(), read: None },
        };
        report.files.push(r);
        prog.files_done += 1;
        prog.bytes_done += size;
        progress(prog);
    }
    Ok(report)
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

fn load_progress(store: &SessionStore, index: &str) -> Result<Option<Progress>> {
    let key = format!("{PROGRESS_PREFIX}{index}");
    let env: Option<String> = store.read(|c, _| Ok(c.query_row("SELECT value FROM meta WHERE key = ?1", [&key], |r| r.get(0)).optional()?))?;
    let Some(env) = env else { return Ok(None) };
    let text = crypto::open_str(store.key(), &key, &env)?;
    let rec: ProgressRecord = serde_json::from_str(&text).map_err(|_| Error::corrupt("import progress record is not valid JSON"))?;
    let format = match rec.format.as_str() {
        "thclaws" => SourceFormat::Thclaws,
        "codex" => SourceFormat::Codex,
        "claude-code" => SourceFormat::ClaudeCode,
        _ => return Err(Error::corrupt("import progress record has an unknown format")),
    };
    Ok(Some(Progress { format, session_id: rec.session_id, head_hash: rec.head_hash, lines: rec.lines, bytes: rec.bytes }))
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
/// Errors: [`Error::Io`] reading the file; store errors (`Busy`, `Database`...).
/// An unrecognised file is `Ok` with [`ImportStatus::Unrecognized`].
pub fn import_file(store: &SessionStore, path: &Path, format: Option<SourceFormat>) -> Result<FileImport> {
    let canonical = std::fs::canonicalize(path).map_err(|e| Error::io("resolving a session file path", e))?;
    let canonical_s = canonical.to_string_lossy().into_owned();
    let index = source_index(store, &canonical_s);
    let len = std::fs::metadata(&canonical).map_err(|e| Error::io("reading session file metadata", e))?.len();
    let prev: Option<Progress> = load_progress(store, &index)?;
    let mut out = FileImport { path: path.to_path_buf(), format: None, status: ImportStatus::Imported, from_line: 1, sessions: Vec::new(), read: None };
    let format = match (format, &prev) {
        (Some(f), _) => f,
        (None, Some(p)) => p.format,
        (None, None) => match detect_format(&canonical)? {
            Some(f) => f,
            None => {
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
    let mut sink = ImportSink::new(store, format, prev.as_ref().map(|p| p.session_id.clone()), fallback_id(path));
    let opts = ReadOptions { emit_from_line: out.from_line };
    let report = read_stream(format, BufReader::with_capacity(1 << 20, file), &opts, &mut sink)?;
    let sessions = sink.finish()?;
    let consumed_lines = report.lines - u64::from(report.torn_tail().is_some());
    let main_id = sessions.first().map(|s| s.session_id.clone()).or(prev.as_ref().map(|p| p.session_id.clone()));
    if let Some(main_id) = main_id {
        let head = head_hash(store, &canonical, report.bytes)?;
        let entries: u64 = sessions.iter().map(|s| s.entries).sum();
        let record = ProgressRecord {
            format: format.as_str().to_owned(),
            session_id: main_id.clone(),
            path: canonical_s.clone(),
            head_hash: head,
            lines: consumed_lines,
            bytes: report.bytes,
            updated_at_ms: crate::store::now_ms(),
        };
        store.write(|t| {
            let key = format!("{PROGRESS_PREFIX}{index}");
            let env = crypto::seal_str(t.key, &key, &serde_json::to_string(&record).expect("progress record serializes"));
            t.tx.execute("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2", rusqlite::params![key, env])?;
            crate::journal::record(
                t,
                &main_id,
                "SessionImported",
                json!({"format": format.as_str(), "from_line": out.from_line, "lines": consumed_lines, "bytes": report.bytes, "entries": entries}),
            )?;
            Ok(())
        })?;
    }
    out.sessions = sessions;
    out.read = Some(report);
    Ok(out)
}

struct Target {
    id: String,
    created: bool,
    /// Highest source line already stored (turns at or below it are skipped).
    max_stored_line: u64,
    /// Entries in the session before this read + turns emitted so far.
    next_seq_base: u64,
    pending: Vec<(NewEntry, EntryMeta)>,
    pending_bytes: usize,
    usage: Vec<Usage>,
    stats: SessionImport,
    plan: Option<Value>,
    goal: Option<Value>,
    provider_state: Option<Option<String>>,
    provider: Option<String>,
}

struct ImportSink<'a> {
    store: &'a SessionStore,
    format: SourceFormat,
    known_main: Option<String>,
    fallback: String,
    meta: Meta,
    title: Option<Option<String>>,
    targets: Vec<(Thread, Target)>,
    last_ts: Option<i64>,
}

impl<'a> ImportSink<'a> {
    fn new(store: &'a SessionStore, format: SourceFormat, known_main: Option<String>, fallback: String) -> Self {
        ImportSink { store, format, known_main, fallback, meta: Meta::default(), title: None, targets: Vec::new(), last_ts: None }
    }

    fn main_id(&self) -> String {
        self.known_main.clone().or_else(|| self.meta.id.clone()).map(|s| sanitize_id(&s)).unwrap_or_else(|| sanitize_id(&self.fallback))
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
            Ok(rec) => (false, rec),
            Err(Error::NotFound { .. }) => {
                let title = if *thread == Thread::Main { self.title.take().flatten() } else { None };
                let rec = self.store.create_session_with(NewSession {
                    id: Some(id.clone()),
                    name: title.map(|t| clip(&t, 1024)),
                    // A cwd that is not absolute here (a Windows path read on Unix...)
                    // is not bound: it would resolve against our own directory.
                    // It stays in the `import_source` extension.
                    workspace_path: self.meta.cwd.clone().filter(|c| !c.is_empty() && Path::new(c).is_absolute()),
                    model: self.meta.model.clone().map(|m| clip(&m, 256)),
                    provider: self.meta.provider.clone().map(|p| clip(&p, 256)),
                    work_mode: None,
                    created_at_ms: self.meta.created_at_ms.or(self.last_ts),
                    forked_from: None,
                    forked_at_seq: None,
                })?;
                let mut src = json!({"format": self.format.as_str(), "cwd": self.meta.cwd, "extra": Value::Object(self.meta.extra.clone())});
                if *thread != Thread::Main {
                    src["sidechain_of"] = Value::String(main.clone());
                }
                self.store.append_context_extension(&id, "import_source", &src.to_string())?;
                (true, rec)
            }
            Err(e) => return Err(e),
        };
        let max_stored_line = if rec.entry_count > 0 {
            self.store.get_transcript(&id, rec.entry_count, 1)?.first().and_then(|e| e.source_line).unwrap_or(0)
        } else {
            0
        };
        let stats = SessionImport { session_id: id.clone(), created, context_extensions: u64::from(created), ..Default::default() };
        self.targets.push((
            thread.clone(),
            Target {
                id,
                created,
                max_stored_line,
                next_seq_base: rec.entry_count,
                pending: Vec::new(),
                pending_bytes: 0,
                usage: Vec::new(),
                stats,
                plan: None,
                goal: None,
                provider_state: None,
                provider: rec.provider.clone(),
            },
        ));
        Ok(self.targets.len() - 1)
    }

    fn flush(store: &SessionStore, t: &mut Target) -> Result<()> {
        if !t.pending.is_empty() {
            let batch = std::mem::take(&mut t.pending);
            store.append_entries_with_meta(&t.id, batch)?;
            t.pending_bytes = 0;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<SessionImport>> {
        if self.targets.is_empty() && (self.meta.id.is_some() || self.known_main.is_none()) {
            // A header-only file still becomes a (empty) session.
            self.target(&Thread::Main)?;
        }
        if let Some(title) = self.title.take() {
            let i = self.target(&Thread::Main)?;
            let id = self.targets[i].1.id.clone();
            self.store.rename_session(&id, title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty()))?;
        }
        let store = self.store;
        let model = self.meta.model.clone();
        let mut out = Vec::new();
        for (_, mut t) in self.targets {
            Self::flush(store, &mut t)?;
            store.record_tokens_batch(
                &t.id,
                t.usage
                    .iter()
                    .map(|u| TokenUsage { input: u.input, output: u.output, cached: u.cached, model: u.model.clone(), provider: t.provider.clone() })
                    .collect(),
            )?;
            for u in &t.usage {
                t.stats.usage_records += 1;
                t.stats.input_tokens += u.input;
                t.stats.output_tokens += u.output;
                t.stats.cached_tokens += u.cached;
            }
            for (kind, body) in [
                ("plan_snapshot", t.plan.take().map(|p| json!({ "plan": p }))),
                ("goal_snapshot", t.goal.take().map(|g| json!({ "goal": g }))),
                ("provider_state", t.provider_state.take().map(|p| json!({ "provider_session_id": p }))),
            ] {
                if let Some(b) = body {
                    store.append_context_extension(&t.id, kind, &b.to_string())?;
                    t.stats.context_extensions += 1;
                }
            }
            // The model may be known only after the session was created (a
            // Codex turn_context follows the first messages) or may have changed.
            if let Some(m) = &model {
                let rec = store.get_session(&t.id)?;
                if rec.model.as_deref() != Some(clip(m, 256).as_str()) {
                    store.set_session_model(&t.id, Some(clip(m, 256)), rec.provider)?;
                }
            }
            out.push(t.stats);
        }
        Ok(out)
    }
}

impl EventSink for ImportSink<'_> {
    fn event(&mut self, thread: &Thread, event: Event) -> Result<()> {
        match event {
            Event::Meta(m) => {
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
            Event::Title { title, .. } => {
                if *thread == Thread::Main && !self.targets.iter().any(|(t, _)| *t == Thread::Main) {
                    self.title = Some(title);
                } else {
                    let i = self.target(thread)?;
                    let id = self.targets[i].1.id.clone();
                    self.store.rename_session(&id, title.map(|t| clip(&t, 1024)).filter(|t| !t.trim().is_empty()))?;
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
                t.stats.entries += 1;
                t.stats.tool_calls += turn.tool_calls() as u64;
                t.stats.tool_results += turn.tool_results() as u64;
                t.next_seq_base += 1;
                let (e, meta) = to_entry(turn, ts);
                t.pending_bytes += e.content.len() + meta.extra.values().map(json_size).sum::<usize>();
                t.pending.push((e, meta));
                if t.pending.len() >= BATCH_ENTRIES || t.pending_bytes >= BATCH_BYTES {
                    Self::flush(self.store, t)?;
                }
            }
            Event::Usage(u) => {
                let i = self.target(thread)?;
                let t = &mut self.targets[i].1;
                if !t.created && u.source_line <= t.max_stored_line {
                    return Ok(());
                }
                t.usage.push(u);
            }
            Event::Plan { plan, .. } => {
                let i = self.target(thread)?;
                self.targets[i].1.plan = Some(plan);
            }
            Event::Goal { goal, .. } => {
                let i = self.target(thread)?;
                self.targets[i].1.goal = Some(goal);
            }
            Event::ProviderState { provider_session_id, .. } => {
                let i = self.target(thread)?;
                self.targets[i].1.provider_state = Some(provider_session_id);
            }
            Event::Compaction(c) => {
                let i = self.target(thread)?;
                let t = &mut self.targets[i].1;
                let body = compaction_body(&c, t.next_seq_base);
                Self::flush(self.store, t)?;
                self.store.append_context_extension(&t.id, SOURCE_COMPACTION_KIND, &body.to_string())?;
                t.stats.context_extensions += 1;
            }
            Event::Other(o) => {
                let i = self.target(thread)?;
                let t = &mut self.targets[i].1;
                let body = json!({"line": o.line, "kind": o.kind, "raw": o.raw});
                self.store.append_context_extension(&t.id, "import_raw_line", &body.to_string())?;
                t.stats.context_extensions += 1;
            }
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
        "messages": c.messages.iter().map(|m| json!({"role": m.role.as_str(), "content": m.blocks.iter().map(Block::to_json).collect::<Vec<_>>()})).collect::<Vec<_>>(),
        "raw": c.raw,
    })
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
    let meta = EntryMeta { model: turn.model.map(|m| clip(&m, 256)), provider: turn.provider.map(|p| clip(&p, 256)), extra: turn.extra };
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

/// Rebuild a stored session in the neutral model: its entries as turns
/// (`Text` entries become one text block, `Blocks` entries their blocks; a
/// `Blocks` entry that is not a JSON array becomes one text block) with
/// their stored [`EntryMeta`] (`model`, `provider`, `extra`; an assistant
/// entry stored without a model or provider takes the session's), title,
/// model, provider, workspace (as `cwd`), creation time, and the latest
/// `plan_snapshot` / `goal_snapshot` / `provider_state` and every
/// `compaction` context extension.
///
/// Errors: `NotFound`, `AuthenticationFailed`, store errors.
pub fn load_portable(store: &SessionStore, session_id: &str) -> Result<PortableSession> {
    let rec = store.get_session(session_id)?;
    let mut s = PortableSession {
        id: rec.id.clone(),
        title: rec.name.clone(),
        model: rec.model.clone(),
        provider: rec.provider.clone(),
        cwd: rec.workspace_path.clone(),
        created_at_ms: Some(rec.created_at_ms),
        source: SourceInfo { format: None, ..Default::default() },
        ..Default::default()
    };
    let mut from = 1;
    loop {
        let page = store.get_transcript_with_meta(session_id, from, EXPORT_PAGE)?;
        let Some((last, _)) = page.last() else { break };
        from = last.seq + 1;
        let n = page.len();
        for (e, meta) in page {
            let role = match e.role {
                StoreRole::User => Role::User,
                StoreRole::Assistant => Role::Assistant,
                StoreRole::System => Role::System,
                StoreRole::Tool => Role::Tool,
            };
            let blocks = match e.format {
                ContentFormat::Text => vec![Block::Text { text: e.content }],
                ContentFormat::Blocks => match serde_json::from_str::<Value>(&e.content) {
                    Ok(Value::Array(a)) => a.into_iter().map(Block::from_json).collect(),
                    _ => vec![Block::Text { text: e.content }],
                },
            };
            let mut t = Turn::new(role, blocks, Some(e.created_at_ms), e.seq);
            t.model = meta.model;
            t.provider = meta.provider;
            t.extra = meta.extra;
            if role == Role::Assistant {
                // Entries written without metadata (before schema v3, or by a
                // host) are attributed to the session's model, as before.
                if t.model.is_none() {
                    t.model = rec.model.clone();
                }
                if t.provider.is_none() {
                    t.provider = rec.provider.clone();
                }
            }
            s.turns.push(t);
        }
        if n < EXPORT_PAGE as usize {
            break;
        }
    }
    for x in store.list_context_extensions(session_id)? {
        let Ok(body) = serde_json::from_str::<Value>(&x.body) else { continue };
        match x.kind.as_str() {
            "plan_snapshot" => s.plan = body.get("plan").cloned(),
            "goal_snapshot" => s.goal = body.get("goal").cloned(),
            "import_source" if s.cwd.is_none() => s.cwd = body.get("cwd").and_then(Value::as_str).map(str::to_owned),
            "provider_state" => s.provider_state = Some(body.get("provider_session_id").and_then(Value::as_str).map(str::to_owned)),
            SOURCE_COMPACTION_KIND => {
                let messages = body
                    .get("messages")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|m| {
                                let role = m.get("role").and_then(Value::as_str).and_then(Role::parse).unwrap_or(Role::User);
                                let blocks = m.get("content").and_then(Value::as_array).map(|b| b.iter().cloned().map(Block::from_json).collect()).unwrap_or_default();
                                Turn::new(role, blocks, None, 0)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                s.compactions.push(Compaction {
                    at_turn: body.get("at_seq").and_then(Value::as_u64).unwrap_or(0) as usize,
                    source_line: body.get("source_line").and_then(Value::as_u64).unwrap_or(0),
                    timestamp_ms: body.get("timestamp_ms").and_then(Value::as_i64),
                    summary: body.get("summary").and_then(Value::as_str).map(str::to_owned),
                    replaces_count: body.get("replaces_count").and_then(Value::as_u64),
                    messages,
                    raw: body.get("raw").cloned().filter(|r| !r.is_null()),
                })
            }
            _ => {}
        }
    }
    s.compactions.sort_by_key(|c| c.at_turn);
    Ok(s)
}

/// Export a stored session as thClaws JSONL (the format real thClaws reads)
/// to `out`. Errors: as [`load_portable`], and `Io` from `out`.
pub fn export_thclaws<W: Write>(store: &SessionStore, session_id: &str, out: W) -> Result<WriteReport> {
    write_thclaws(&load_portable(store, session_id)?, out)
}

/// [`export_thclaws`] with writer options (e.g. only thClaws block types).
/// Errors: as [`export_thclaws`].
pub fn export_thclaws_with<W: Write>(store: &SessionStore, session_id: &str, out: W, opts: &WriteOptions) -> Result<WriteReport> {
    write_thclaws_with(&load_portable(store, session_id)?, out, opts)
}

/// Resolve a session reference as seed 002's `/load` and `--resume` do:
/// `last` = the most recently active session bound to `workspace` (the
/// current directory when `None`); otherwise a full id, a unique id prefix
/// or an exact title ([`SessionStore::find_session`]).
///
/// Errors: `NotFound`; `Conflict` listing the candidate ids when a prefix
/// or title is ambiguous.
pub fn resolve_session(store: &SessionStore, reference: &str, workspace: Option<&str>) -> Result<SessionRecord> {
    if reference == "last" {
        let ws = match workspace {
            Some(w) => w.to_owned(),
            None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?.to_string_lossy().into_owned(),
        };
        return store
            .list_sessions_for_workspace(WorkspaceFilter::Current(ws), Some(1))?
            .into_iter()
            .next()
            .ok_or_else(|| Error::not_found("session", "last"));
    }
    store.find_session(reference)
}

/// The 20 most recently active sessions (seed 002 `/sessions`).
/// Errors: store errors.
pub fn recent_sessions(store: &SessionStore) -> Result<Vec<SessionRecord>> {
    store.list_sessions(Some(20))
}

/// Sidebar order (seed 002, "Sidebar"): the 10 most recent sessions, titled
/// ones first (each group most recent first). Errors: store errors.
pub fn sidebar_sessions(store: &SessionStore) -> Result<Vec<SessionRecord>> {
    let mut all = store.list_sessions(None)?;
    all.sort_by_key(|s| (s.name.is_none(), std::cmp::Reverse(s.updated_at_ms)));
    all.truncate(10);
    Ok(all)
}

/// How to fork.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForkOptions {
    /// Copy entries up to and including this seq.
    pub at_seq: Option<u64>,
    /// Seed the fork with this summary (one `system` entry) instead of copying entries.
    /// With neither option, the fork is seeded with [`history_summary`] of the
    /// whole old history (seed 002 `/fork`).
    pub summary: Option<String>,
}

/// Turns quoted in a generated fork summary (the most recent ones).
pub const FORK_SUMMARY_TURNS: usize = 20;

/// A deterministic summary of a session's history up to `at` (its title or id,
/// message count, and one line per turn for the last [`FORK_SUMMARY_TURNS`]
/// turns: `[role] text`, whitespace collapsed, cut at 240 characters on a
/// character boundary; block content contributes its text blocks).
pub fn history_summary(store: &SessionStore, src: &SessionRecord, at: u64) -> Result<String> {
    let first = at.saturating_sub(FORK_SUMMARY_TURNS as u64 - 1).max(1);
    let mut out = format!(
        "Summary of session {} ({} message(s), forked at seq {at}).",
        src.name.as_deref().unwrap_or(&src.id),
        at
    );
    if at == 0 {
        return Ok(out);
    }
    if first > 1 {
        out.push_str(&format!("\n[{} earlier message(s) not quoted]", first - 1));
    }
    for e in store.get_transcript(&src.id, first, (at - first + 1) as u32)? {
        let text = match e.format {
            ContentFormat::Text => e.content,
            ContentFormat::Blocks => serde_json::from_str::<Vec<Value>>(&e.content)
                .map(|blocks| blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(" "))
                .unwrap_or_default(),
        };
        let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&format!("\n[{}] {}", e.role.as_str(), crate::context::truncate_chars(&collapsed, 240)));
    }
    Ok(out)
}

/// Fork a session (seed 002 `/fork`): a new session with the same model,
/// provider and workspace, recording `forked_from` and `forked_at_seq`,
/// seeded with `summary` or with a copy of the entries up to `at_seq`.
///
/// Errors: `NotFound`; `InvalidInput` when `at_seq` is beyond the last entry.
pub fn fork_session(store: &SessionStore, session_id: &str, opts: ForkOptions) -> Result<SessionRecord> {
    let src = store.get_session(session_id)?;
    let at = opts.at_seq.unwrap_or(src.entry_count);
    if at > src.entry_count {
        return Err(Error::invalid(format!("seq {at} is beyond the last entry ({})", src.entry_count)));
    }
    let fork = store.create_session_with(NewSession {
        id: None,
        name: None,
        workspace_path: src.workspace_path.clone(),
        model: src.model.clone(),
        provider: src.provider.clone(),
        work_mode: src.work_mode.clone(),
        created_at_ms: None,
        forked_from: Some(src.id.clone()),
        forked_at_seq: Some(at),
    })?;
    let summary = match (opts.summary, opts.at_seq) {
        (Some(s), _) => Some(s),
        // Seed 002 `/fork`: a new session seeded with a summary of the old history.
        (None, None) => Some(history_summary(store, &src, at)?),
        (None, Some(_)) => None,
    };
    match summary {
        Some(summary) => {
            store.append_entries(&fork.id, vec![NewEntry::text(StoreRole::System, summary)])?;
        }
        None => {
            let mut from = 1;
            while from <= at {
                let page = store.get_transcript_with_meta(session_id, from, EXPORT_PAGE.min((at - from + 1) as u32))?;
                let Some((last, _)) = page.last() else { break };
                from = last.seq + 1;
                let entries = page
                    .into_iter()
                    .map(|(e, meta)| {
                        let entry = NewEntry { role: e.role, content: e.content, format: e.format, created_at_ms: Some(e.created_at_ms), tokens: e.tokens, source_line: e.source_line };
                        (entry, meta)
                    })
                    .collect();
                store.append_entries_with_meta(&fork.id, entries)?;
            }
        }
    }
    store.get_session(&fork.id)
}


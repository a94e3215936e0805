//! Portable sessions: thClaws JSONL read/write, Codex, Claude Code and
//! Gemini CLI importers, format detection (DESIGN.md "Portable sessions"; seed 002;
//! `samples/README.md` for the real formats, which win over the seed's prose).
//!
//! Layer A (pure, no store): readers stream [`Event`]s into an
//! [`EventSink`] with bounded memory; [`read_path`] collects them into
//! [`PortableSession`]s with a [`ReadReport`]; [`write_thclaws`] writes one
//! back out; [`repair_tail`] / [`append_turns`] make appends safe.
//!
//! Layer B ([`import`]): [`import_paths`] / [`import_file`] write sessions
//! into the encrypted [`crate::store::SessionStore`] idempotently (a grown
//! file adds only its new lines); [`export_thclaws`] writes any stored
//! session back as thClaws JSONL, and [`export_session`] as any
//! [`ExportFormat`] (thClaws JSONL, Markdown, JSON); [`resolve_session`] (id, prefix, title,
//! `last`), [`recent_sessions`], [`sidebar_sessions`] and [`fork_session`]
//! implement seed 002's `/load`, `/sessions`, sidebar and `/fork`.

pub mod agents_item;
pub mod claude;
pub mod codex;
pub mod detect;
pub mod digest;
pub mod events;
pub mod commands;
pub mod export;
pub mod export_formats;
pub mod gemini;
pub mod import;
mod lines;
pub mod locations;
pub mod model;
pub mod opencode;
pub mod plain;
pub mod thclaws;
pub mod thclaws_check;

pub use agents_item::{agents_item_entry, agents_item_role, agents_item_text, append_agents_items, PyJson};
pub use claude::read_claude;
pub use codex::read_codex;
pub use gemini::read_gemini;
pub use opencode::{read_opencode, OpencodeSource};
pub use digest::{read_thclaws_digest, write_thclaws_json, DigestSkippedLine, ThclawsDigest};
pub use detect::{classify_file, detect_format, find_jsonl_files, FileKind};
pub use events::{Collector, Event, EventSink, Meta, Thread};
pub use commands::{fork_session, history_summary, recent_sessions, resolve_session, sidebar_sessions, FORK_SUMMARY_TURNS};
pub use export::{export_thclaws, export_thclaws_redacting, export_thclaws_text, export_thclaws_to_file, export_thclaws_with, load_portable, policy_redacts_exports, EXPORT_PAGE_BYTES};
pub use export_formats::{export_file, export_session, export_text, redacts_by_default, session_json, write_markdown, ExportFormat};
pub use import::{import_file, import_paths, import_paths_live, import_paths_report, PROGRESS_READ_BYTES, sanitize_id, FileImport, ImportProgress, ImportReport, ImportStatus, SessionImport};
pub use lines::{parse_iso8601_ms, DEFAULT_MAX_LINE_BYTES};
pub use locations::{standard_locations, AgentLocation, LocationEnv, LocationKind};
pub use plain::{read_thclaws_session, write_thclaws_session, NewPortableSession, PortableTurn, ThclawsRead, ThclawsSession};
pub use model::{
    Block, Compaction, LineAccount, OtherLine, PortableSession, ReadReport, Role, SkipReason, SkippedLine, SnapshotKind, SourceFormat, SourceInfo, StateSnapshot, Turn, Usage,
};
pub use thclaws::{append_turns, read_thclaws, repair_tail, thclaws_blocks, write_thclaws, write_thclaws_with, TailRepair, ThclawsWriter, WriteOptions, WriteReport};

use crate::{Error, Result};
use std::io::{BufRead, BufReader};
use std::path::Path;

/// Options for the streaming readers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// 1-based line from which events are emitted; earlier lines were
    /// imported before and only update reader state (0 or 1: emit all).
    pub emit_from_line: u64,
    /// Longest line kept, in bytes; `None`: [`DEFAULT_MAX_LINE_BYTES`]
    /// (64 MiB). A longer line is read past without being kept and reported
    /// as [`SkipReason::TooLong`] with its line number.
    pub max_line_bytes: Option<u64>,
}

impl ReadOptions {
    /// [`ReadOptions::max_line_bytes`] or its default.
    pub fn max_line_bytes(&self) -> u64 {
        self.max_line_bytes.unwrap_or(lines::DEFAULT_MAX_LINE_BYTES)
    }
}

/// Sessions read from one file, with the report.
#[derive(Debug, Clone)]
pub struct ReadOutcome {
    /// The main session first, then Claude Code sidechains.
    pub sessions: Vec<PortableSession>,
    /// What was read, skipped and counted.
    pub report: ReadReport,
}

/// Stream `input` of a known `format` into `sink`.
/// Errors: I/O and sink errors; bad lines only go to the report.
pub fn read_stream<R: BufRead>(format: SourceFormat, input: R, opts: &ReadOptions, sink: &mut dyn EventSink) -> Result<ReadReport> {
    match format {
        SourceFormat::Thclaws => read_thclaws(input, opts, sink),
        SourceFormat::Codex => read_codex(input, opts, sink),
        SourceFormat::ClaudeCode => read_claude(input, opts, sink),
        SourceFormat::GeminiCli => read_gemini(input, opts, sink),
        // A tree of files or a database, not one stream: `opencode::read_session`.
        SourceFormat::Opencode => Err(Error::invalid("opencode sessions are a storage directory or an opencode.db database, not a stream of lines")),
        SourceFormat::AgentsSdk => Err(Error::invalid("an Agents SDK session store is an SQLite database, not a stream of lines")),
    }
}

/// Read one file into sessions, detecting its format unless `format` is given.
///
/// A file with no session id gets one from its name: a Codex rollout's
/// trailing uuid, otherwise the file stem.
/// Errors: [`Error::Io`]; [`Error::InvalidInput`] when the format cannot be
/// detected or the path is not a regular file (a FIFO or device).
pub fn read_path(path: &Path, format: Option<SourceFormat>) -> Result<ReadOutcome> {
    if !std::fs::metadata(path).map_err(|e| Error::io("reading session file metadata", e))?.is_file() {
        return Err(detect::not_a_regular_file());
    }
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?.ok_or_else(|| Error::invalid("the file is not a recognised session format (thClaws, Codex rollout, Claude Code or Gemini CLI)"))?,
    };
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut sink = Collector::new(format, Some(path.to_path_buf()));
    if let Some(m) = (format == SourceFormat::GeminiCli).then(|| gemini::place_meta(path)).flatten() {
        sink.event(&Thread::Main, Event::Meta(m))?;
    }
    let report = read_stream(format, BufReader::with_capacity(256 * 1024, f), &ReadOptions::default(), &mut sink)?;
    Ok(ReadOutcome { sessions: sink.finish(&fallback_id(path)), report })
}

/// The id a session file implies by its name: a Codex `rollout-<ts>-<uuid>`
/// gives the uuid (36 chars), anything else its file stem.
pub fn fallback_id(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if stem.starts_with("rollout-") && stem.len() >= 36 {
        let tail = &stem[stem.len() - 36..];
        if tail.chars().filter(|c| *c == '-').count() == 4 {
            return tail.to_owned();
        }
    }
    stem
}

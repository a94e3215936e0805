//! Format detection per file, and directory walking.
//!
//! Detection reads up to the first 16 non-blank lines: a Codex envelope
//! (`payload` with `session_meta`/`response_item`/`event_msg`/`turn_context`/
//! `compacted`, or the legacy `record_type`), a Claude Code line (`uuid`,
//! `parentUuid`, `sessionId`, or a `summary`/`file-history-snapshot`/
//! `queue-operation` record), or a thClaws line (`header`, `plan_snapshot`,
//! `goal_snapshot`, `message`, or `user`/`assistant` with a `content` array
//! and no `uuid`), or a Gemini CLI chat line (metadata with `sessionId` and
//! `projectHash`, `$set`, `$rewindTo`, or a message with `id`, `timestamp`
//! and a Gemini `type`; tested before Claude's `sessionId`). A file whose
//! first line is `{` alone is a Gemini CLI JSON chat file when it parses
//! whole as a record with `sessionId` and `messages`. Prompt logs (`history.jsonl` of Codex and Claude Code)
//! are known non-session files ([`FileKind::NotSession`]). When no line is
//! a JSON object, the path tells (`.thclaws/`, `rollout-*.jsonl`,
//! `.claude/projects/`).

use super::model::SourceFormat;
use crate::{Error, Result};
use serde_json::Value;
use std::io::BufReader;
use std::path::{Path, PathBuf};

/// What a JSONL file is, as [`classify_file`] tells from its first lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A session file of this format.
    Session(SourceFormat),
    /// A file the agents write beside their sessions that holds no session
    /// (never imported as one); the reason names it, e.g. `Codex prompt
    /// history (history.jsonl)`.
    NotSession(&'static str),
    /// Neither the content nor the path says.
    Unknown,
}

/// Guess the format of one JSONL file. `Ok(None)` when neither the content
/// nor the path says, or when the file is a known non-session file (see
/// [`classify_file`]). An opencode source (its `opencode.db`, `storage`
/// directory, data directory or a session file of the tree:
/// [`super::opencode::classify_path`]) is [`SourceFormat::Opencode`].
/// A SQLite file whose tables cannot be read is not one (`Ok(None)`).
/// Errors: [`Error::Io`] opening or reading it.
pub fn detect_format(path: &Path) -> Result<Option<SourceFormat>> {
    use super::opencode::{classify_path, is_opencode_db, OpencodePath};
    match classify_path(path) {
        OpencodePath::Storage(_) | OpencodePath::DataDir(_) | OpencodePath::SessionFile(..) => return Ok(Some(SourceFormat::Opencode)),
        OpencodePath::RecordFile => return Ok(None),
        OpencodePath::No => {}
    }
    if path.is_file() && crate::portable::import::sdk::is_sqlite_file(path)? {
        return Ok(is_opencode_db(path).unwrap_or(false).then_some(SourceFormat::Opencode));
    }
    Ok(match classify_file(path)? {
        FileKind::Session(f) => Some(f),
        FileKind::NotSession(_) | FileKind::Unknown => None,
    })
}

/// Classify one JSONL file by its first 16 non-blank lines: a session of a
/// known format, a known non-session file (Codex's and Claude Code's
/// `history.jsonl` prompt logs, whose lines are `{session_id, ts, text}` and
/// `{display, timestamp, project, ...}`), or unknown. The path decides
/// (`.thclaws/`, `rollout-*.jsonl`, `.codex/`, `.claude/`) only when no
/// line is a JSON object at all (an empty file, or one of torn lines): a
/// file of JSON lines none of which is a session line is not a session,
/// wherever it lies (issue 27: `~/.codex/history.jsonl` was imported as an
/// empty session named `history`).
///
/// Errors: [`Error::Io`] opening or reading it.
pub fn classify_file(path: &Path) -> Result<FileKind> {
    classify_file_bounded(path, super::DEFAULT_MAX_LINE_BYTES)
}

/// [`classify_file`] keeping lines of at most `max_line_bytes` (an
/// import's [`crate::OpenOptions::max_line_bytes`]); a longer line counts
/// as seen and is not parsed. Errors: as `classify_file`.
pub(crate) fn classify_file_bounded(path: &Path, max_line_bytes: u64) -> Result<FileKind> {
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut r = BufReader::new(f);
    let mut buf = Vec::new();
    let mut seen = 0;
    let mut objects = 0;
    while seen < 16 {
        // Bounded like the readers: a huge line is not kept.
        let raw = super::lines::read_line_bounded(&mut r, &mut buf, max_line_bytes)
            .map_err(|e| Error::io("reading a session file", e))?;
        if raw.n == 0 {
            break;
        }
        if raw.kept != super::lines::Kept::Whole {
            seen += 1;
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        seen += 1;
        // Lines with a lone surrogate escape parse once repaired, as the readers do.
        let parsed = serde_json::from_slice::<Value>(&buf).or_else(|e| match super::lines::fix_lone_surrogates(&buf) {
            Some(fixed) => serde_json::from_slice::<Value>(&fixed),
            None => Err(e),
        });
        if let Ok(Value::Object(o)) = parsed {
            objects += 1;
            if let Some(why) = not_session_line(&o) {
                return Ok(FileKind::NotSession(why));
            }
            if let Some(f) = detect_line(&o) {
                return Ok(FileKind::Session(f));
            }
        }
    }
    if objects > 0 {
        return Ok(FileKind::Unknown);
    }
    if let Some(kind) = classify_json_document(path, max_line_bytes)? {
        return Ok(kind);
    }
    Ok(detect_by_path(path).map_or(FileKind::Unknown, FileKind::Session))
}

/// A line of a prompt log the agents keep beside their sessions: Codex
/// `history.jsonl` (`{"session_id", "ts", "text"}`) and Claude Code
/// `history.jsonl` (`{"display", "pastedContents", "timestamp", "project"}`,
/// newer ones with a `sessionId`). Neither has a `type`.
fn not_session_line(o: &serde_json::Map<String, Value>) -> Option<&'static str> {
    if o.contains_key("type") || o.contains_key("uuid") || o.contains_key("payload") {
        return None;
    }
    if o.contains_key("session_id") && o.contains_key("ts") && o.contains_key("text") {
        return Some("Codex prompt history (history.jsonl)");
    }
    if o.contains_key("display") && (o.contains_key("project") || o.contains_key("pastedContents")) {
        return Some("Claude Code prompt history (history.jsonl)");
    }
    None
}

fn detect_line(o: &serde_json::Map<String, Value>) -> Option<SourceFormat> {
    let ty = o.get("type").and_then(Value::as_str).unwrap_or("");
    if is_gemini_line(o, ty) {
        return Some(SourceFormat::GeminiCli);
    }
    if o.contains_key("payload") && matches!(ty, "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted") {
        return Some(SourceFormat::Codex);
    }
    if o.contains_key("record_type") {
        return Some(SourceFormat::Codex);
    }
    if o.contains_key("uuid") || o.contains_key("parentUuid") || o.contains_key("sessionId") {
        return Some(SourceFormat::ClaudeCode);
    }
    if matches!(ty, "summary" | "file-history-snapshot" | "queue-operation" | "last-prompt") {
        return Some(SourceFormat::ClaudeCode);
    }
    if matches!(ty, "header" | "plan_snapshot" | "goal_snapshot" | "message" | "rename" | "compaction" | "provider_state") {
        return Some(SourceFormat::Thclaws);
    }
    if matches!(ty, "user" | "assistant" | "system") && o.get("content").is_some_and(Value::is_array) {
        return Some(SourceFormat::Thclaws);
    }
    None
}

/// A Gemini CLI chat JSONL line (`chatRecordingService.ts`): the metadata
/// record (`sessionId` and `projectHash`), a `$set` or `$rewindTo` record,
/// or a message (`id`, `timestamp` and a `type` of `user`, `gemini`,
/// `info`, `error` or `warning`, no Claude `uuid`).
fn is_gemini_line(o: &serde_json::Map<String, Value>, ty: &str) -> bool {
    let s = |k: &str| o.get(k).is_some_and(Value::is_string);
    (s("sessionId") && s("projectHash"))
        || o.get("$set").is_some_and(Value::is_object)
        || s("$rewindTo")
        || (s("id") && s("timestamp") && !o.contains_key("uuid") && matches!(ty, "user" | "gemini" | "info" | "error" | "warning"))
}

/// A Gemini CLI JSON chat file (one document, first line `{`): parsed whole
/// (at most `max_line_bytes`) and a session when it is a conversation
/// record (`sessionId` and a `messages` array). `logs.json` under
/// `.gemini/` (Gemini CLI's prompt log, a JSON array) is not a session.
fn classify_json_document(path: &Path, max_line_bytes: u64) -> Result<Option<FileKind>> {
    use std::io::Read;
    let s = path.to_string_lossy().replace('\\', "/");
    if s.contains("/.gemini/") && path.file_name().is_some_and(|n| n == "logs.json") {
        return Ok(Some(FileKind::NotSession("Gemini CLI prompt log (logs.json)")));
    }
    if !super::gemini::is_json_document(path)? {
        return Ok(None);
    }
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut bytes = Vec::new();
    f.take(max_line_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| Error::io("reading a session file", e))?;
    if bytes.len() as u64 > max_line_bytes {
        return Ok(None);
    }
    Ok(match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(o)) if super::gemini::is_conversation_record(&o) => Some(FileKind::Session(SourceFormat::GeminiCli)),
        _ => None,
    })
}

fn detect_by_path(path: &Path) -> Option<SourceFormat> {
    let s = path.to_string_lossy().replace('\\', "/");
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if s.contains("/.thclaws/") || name.starts_with("sess-") {
        Some(SourceFormat::Thclaws)
    } else if name.starts_with("rollout-") || s.contains("/.codex/") {
        Some(SourceFormat::Codex)
    } else if s.contains("/.claude/") {
        Some(SourceFormat::ClaudeCode)
    } else {
        None
    }
}

/// The error for an import path that is neither a regular file nor a
/// directory (`InvalidInput`).
pub(crate) fn not_a_regular_file() -> Error {
    Error::invalid("not a regular file: a FIFO, socket or device cannot be read as a session file (copy it to a file first)")
}

/// A Gemini CLI JSON chat file by its place: `*.json` in a `chats`
/// directory (`chats/session-*.json`) or one below it (a subagent's,
/// `chats/<parent id>/<id>.json`).
fn is_gemini_json_chat(p: &Path) -> bool {
    let parent = |q: &Path| q.parent().and_then(|d| d.file_name()).is_some_and(|n| n == "chats");
    p.extension().is_some_and(|e| e == "json") && (parent(p) || p.parent().is_some_and(parent))
}

/// Every `*.jsonl` file under `root` (or `root` itself when it is a file),
/// and every Gemini CLI JSON chat file (`*.json` in or one below a `chats`
/// directory), sorted by path. Symbolic links to directories are not followed (no loops).
/// Errors: [`Error::Io`] when `root` cannot be read; `InvalidInput` when
/// it is neither a regular file nor a directory (a FIFO, socket or device:
/// reading one could block or never end).
pub fn find_jsonl_files(root: &Path) -> Result<Vec<PathBuf>> {
    let meta = std::fs::metadata(root).map_err(|e| Error::io("reading an import path", e))?;
    if meta.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    if !meta.is_dir() {
        return Err(not_a_regular_file());
    }
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let rd = match std::fs::read_dir(&dir) {
            Ok(rd) => rd,
            Err(e) if dir == root => return Err(Error::io("reading an import directory", e)),
            Err(_) => continue,
        };
        for entry in rd.flatten() {
            let Ok(ft) = entry.file_type() else { continue };
            let p = entry.path();
            if ft.is_dir() {
                stack.push(p);
            } else if (ft.is_file() || ft.is_symlink()) && (p.extension().is_some_and(|e| e == "jsonl") || is_gemini_json_chat(&p)) && p.is_file() {
                out.push(p);
            }
        }
    }
    out.sort();
    Ok(out)
}

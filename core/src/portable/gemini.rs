//! Gemini CLI chat recording reader (`~/.gemini/tmp/<project>/chats/`;
//! `$GEMINI_CLI_HOME` replaces the home directory).
//!
//! Source: google-gemini/gemini-cli, `packages/core/src/services/
//! chatRecordingService.ts` and `chatRecordingTypes.ts` at commit
//! `5411f113` (2026-08-21, core 0.56.0-nightly), and the same service before
//! `f7449135` ("migrate chat recording to JSONL streaming", #23749, core
//! 0.39.0-nightly.20260408) for the older JSON files. Two forms:
//!
//! - **JSONL** (`session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`; a subagent's is
//!   `chats/<parent id>/<id>.jsonl`), append-only, one record a line:
//!   - the first line is the session's metadata `{sessionId, projectHash,
//!     startTime, lastUpdated, kind?, directories?}` (kind `session`; a whole
//!     legacy record on one line, with `messages`, is read too);
//!   - a message `{id, timestamp, type: user|gemini|info|error|warning,
//!     content, displayContent?, ...}`; a `gemini` one also has `thoughts`,
//!     `toolCalls`, `tokens` and `model`. Gemini CLI writes a message again,
//!     whole, when it changes (its tokens arrive, its tool calls complete):
//!     as its own loader does (`loadConversationRecord`, a map by `id`), a
//!     line with the `id` of the message being read replaces it. Each earlier
//!     version is counted as `message/<type> superseded`, not imported;
//!   - `{"$set": {...}}` updates metadata: `summary` → the title,
//!     `directories` → the working directory (the first one) and
//!     `source.extra.gemini_directories`, `messages` → the whole history
//!     rewritten (after `/compress`, or tool outputs masked): a
//!     [`Compaction`] holding those messages. A `$set` of only
//!     `lastUpdated`, `sessionId` or `memoryScratchpad` is bookkeeping, not
//!     imported. Kind: `$set <keys>` (e.g. `$set lastUpdated`);
//!   - `{"$rewindTo": id}` (the user rewound): kept raw (kind `$rewindTo`);
//!     the messages it drops stay in the session, as every record does.
//! - **JSON** (`session-<...>.json`, up to core 0.39): the whole
//!   `ConversationRecord` `{sessionId, projectHash, startTime, lastUpdated,
//!   messages: [...], summary?, directories?, kind?}`, written again whole
//!   (`JSON.stringify(conversation, null, 2)`) after every change. The file
//!   is one record: a "line" is still a `\n`-separated line of the file (the
//!   unit every reader counts), and every non-blank line of the document is
//!   counted under the kind `document`, in the session; a turn's
//!   `source_line` is the line where its message object starts (line 1 when
//!   the file is not laid out as Gemini CLI writes it). A document that does
//!   not parse whole (torn by a rewrite, or corrupt) is an `InvalidInput`
//!   error: nothing of it is imported. Because the file is rewritten (its
//!   head changes), the importer reads it whole each time it changed and
//!   record identity keeps what was stored from being stored again.
//!
//! What each record becomes:
//! - `user` → a user turn; `gemini` → an assistant turn of its `thoughts`
//!   (`{subject, description}`) as thinking blocks (`**subject** description`,
//!   the text Gemini CLI parsed them from) and its `content` parts; then,
//!   when it has `toolCalls`, an assistant turn of one tool use per call
//!   (`id`, `name`, `args`; `extra.gemini_part = "tool_calls"`) and a user
//!   turn of their `result`s (`status` `error` or `cancelled` → an error
//!   result; a call with no result and no final status has none). The calls
//!   are a turn of their own because Gemini CLI adds them to the message when
//!   they complete (`recordCompletedToolCalls`, maybe minutes later, after an
//!   approval): an import that read the message before keeps its text turn
//!   and adds only the calls and results. The calls' `status`, `displayName` and `description`
//!   are kept in that turn's `extra.gemini_tool_calls`; `resultDisplay` (the
//!   UI's rendering of the result) is not kept.
//! - content parts: `text` → text (`thought: true` → thinking, with
//!   `thoughtSignature`), `inlineData` of an `image/*` type → a base64 image,
//!   `functionCall` → tool use, `functionResponse` → tool result, anything
//!   else → an `Other` block kept verbatim.
//! - `info`, `error`, `warning` (notices Gemini CLI shows) → system turns,
//!   `extra.gemini_type` naming which.
//! - `tokens {input, output, cached, thoughts, tool, total}` → a [`Usage`]:
//!   input = `input` + `tool` (Gemini's `promptTokenCount` +
//!   `toolUsePromptTokenCount`, cached included), output = `output` +
//!   `thoughts` (`candidatesTokenCount` + `thoughtsTokenCount`, reasoning is
//!   billed as output), cached = `cached`; identified by the message `id`,
//!   so a message's figures are counted once whatever copy they arrive in.
//! - `model` → the turn's model and the session's (latest wins);
//!   `sessionId` → the id, `startTime` → created, `summary` → the title.
//!   The working directory: the project root Gemini CLI's project registry
//!   wrote beside the chats (`<project>/.project_root`, read by
//!   [`super::read_path`] and the importer, which know the file's place:
//!   [`project_root_marker`]), else the entry of `directories` whose SHA-256
//!   is the `projectHash` (the project root: the hash cannot be inverted,
//!   only checked), else `directories[0]`; a session with neither has none.
//!   `projectHash` is kept as `source.extra.gemini_project_hash`, `kind` as
//!   `source.extra.gemini_kind`.
//!
//! Every message keeps its `id` as `extra.gemini_id`. Record identity is the
//! default content identity (role, timestamp, blocks).
//! Known limit: a message written again after an import had read it with
//! its text or thoughts changed (Gemini CLI does not do this outside a
//! `$set messages` rewrite) is stored again in its new form, beside the
//! first.

use super::events::{Event, EventSink, Meta, Thread};
use super::lines::{fix_lone_surrogates, json_time_ms, parse_iso8601_ms, read_line_bounded, Kept, Line, LineReader};
use super::model::{Block, Compaction, OtherLine, ReadReport, Role, SourceFormat, Turn, Usage};
use super::ReadOptions;
use crate::{Error, Result};
use serde_json::{json, Map, Value};
use std::io::{BufRead, Read};

/// A message read and not yet emitted (a later line may replace it).
struct Pending {
    id: String,
    msg: Map<String, Value>,
    /// Line of its first version (the turns' `source_line`).
    first_line: u64,
    /// Byte offset where that line starts.
    first_offset: u64,
    /// That line is at or after `emit_from_line`.
    emit: bool,
    /// The version an earlier import read (the last one before
    /// `emit_from_line`), when this message continues across it: only the
    /// events it did not have are emitted.
    before: Option<Map<String, Value>>,
}

/// Stream a Gemini CLI chat file (JSONL or the older JSON document) into `sink`.
///
/// JSONL lines below `opts.emit_from_line` are counted as already imported
/// and emit nothing but session facts; they are still parsed, so that a
/// message an earlier import read and Gemini CLI wrote again after it (its
/// tokens, its completed tool calls) emits only the turns and usage the
/// earlier version did not have.
/// Errors: I/O and sink errors; `InvalidInput` for a JSON document that does
/// not parse whole or is longer than `opts.max_line_bytes`. Bad JSONL lines
/// only go to the report.
pub fn read_gemini<R: BufRead>(mut input: R, opts: &ReadOptions, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let mut report = ReadReport { format: Some(SourceFormat::GeminiCli), ..Default::default() };
    // Peek at the first line without consuming it: `{` alone starts a
    // pretty-printed document (`JSON.stringify(record, null, 2)`).
    let document = {
        let buf = input.fill_buf().map_err(|e| Error::io("reading a session file", e))?;
        // A lone `{` with no `\n` after it is a torn first line, read as one.
        buf.iter().position(|b| *b == b'\n').is_some_and(|end| buf[..end].trim_ascii() == b"{")
    };
    if document {
        let mut all = Vec::new();
        let limit = opts.max_line_bytes();
        input.take(limit.saturating_add(1)).read_to_end(&mut all).map_err(|e| Error::io("reading a session file", e))?;
        if all.len() as u64 > limit {
            return Err(Error::invalid("the Gemini CLI chat file (one JSON document) is longer than the longest record kept (max_line_bytes): nothing was imported"));
        }
        read_document(&all, opts, sink, &mut report)?;
        return Ok(report);
    }
    read_jsonl(input, opts, sink, &mut report)?;
    Ok(report)
}

/// Whether the file at `path` is a Gemini CLI JSON document (its first
/// line is `{` alone and ends in `\n`, as `JSON.stringify(record, null, 2)`
/// writes), which
/// Gemini CLI rewrites whole rather than appends to.
/// Errors: [`Error::Io`] reading it.
pub(crate) fn is_json_document(path: &std::path::Path) -> Result<bool> {
    let f = std::fs::File::open(path).map_err(|e| Error::io("opening a session file", e))?;
    let mut r = std::io::BufReader::new(f.take(4096));
    let mut buf = Vec::new();
    let raw = read_line_bounded(&mut r, &mut buf, 4096).map_err(|e| Error::io("reading a session file", e))?;
    Ok(raw.kept == Kept::Whole && raw.terminated && buf.trim_ascii() == b"{")
}

/// Whether a parsed JSON object is a Gemini CLI conversation record
/// (`sessionId` and a `messages` array): what detection accepts of a JSON
/// document.
pub(crate) fn is_conversation_record(o: &Map<String, Value>) -> bool {
    o.get("sessionId").is_some_and(Value::is_string) && o.get("messages").is_some_and(Value::is_array)
}

/// Read a whole JSON chat file (`bytes`, the file): one record, its
/// non-blank lines counted as kind `document`.
fn read_document(bytes: &[u8], opts: &ReadOptions, sink: &mut dyn EventSink, report: &mut ReadReport) -> Result<()> {
    let parsed = serde_json::from_slice::<Value>(bytes).or_else(|e| match fix_lone_surrogates(bytes) {
        Some(fixed) => serde_json::from_slice::<Value>(&fixed).inspect(|_| report.surrogates_replaced.push(1)),
        None => Err(e),
    });
    let mut doc = match parsed {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Err(Error::invalid("the Gemini CLI chat file is not a JSON object: nothing was imported")),
        Err(e) => {
            return Err(Error::invalid(format!(
                "the Gemini CLI chat file is not one complete JSON document (torn by a rewrite, or corrupt; line {}, column {}): nothing was imported",
                e.line(),
                e.column()
            )))
        }
    };
    // Lines: `\n`-separated; the document is one record over all of them.
    let mut starts = Vec::new();
    let mut in_messages = false;
    let mut n = 0u64;
    for l in bytes.split(|b| *b == b'\n') {
        n += 1;
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        if l.trim_ascii().is_empty() {
            continue;
        }
        if l == b"  \"messages\": [" {
            in_messages = true;
        } else if in_messages && l == b"    {" {
            starts.push(n);
        } else if in_messages && l.starts_with(b"  ]") {
            in_messages = false;
        }
    }
    let lines = if bytes.ends_with(b"\n") { n - 1 } else { n };
    report.lines = lines;
    report.bytes = bytes.len() as u64;
    report.missing_final_newline = !bytes.ends_with(b"\n");
    for (i, l) in bytes.split(|b| *b == b'\n').enumerate() {
        if (i as u64) < lines {
            if l.trim_ascii().is_empty() {
                report.blank_lines += 1;
            } else if lines < opts.emit_from_line {
                report.already_imported_lines += 1;
            } else {
                report.kind("document");
            }
        }
    }
    let messages = match doc.remove("messages") {
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    let main = Thread::Main;
    sink.event(&main, Event::Meta(metadata(&mut doc)))?;
    if lines < opts.emit_from_line {
        return Ok(());
    }
    if let Some(Value::String(t)) = doc.get("summary") {
        sink.event(&main, Event::Title { title: Some(t.clone()), line: 1 })?;
    }
    let laid_out = starts.len() == messages.len();
    let line_of = |i: usize| if laid_out { starts[i] } else { 1 };
    let mut model: Option<String> = None;
    for (i, m) in messages.into_iter().enumerate() {
        let line = line_of(i);
        match m {
            Value::Object(m) => {
                let before = model.clone();
                let events = message_events(m, line, &mut model);
                if model != before {
                    sink.event(&main, Event::Meta(Meta { model: model.clone(), ..Default::default() }))?;
                }
                for ev in events {
                    sink.event(&main, ev)?;
                }
            }
            other => sink.event(&main, Event::Other(OtherLine { line, kind: "message/<not an object>".into(), raw: other }))?,
        }
    }
    sink.safe_point(lines, bytes.len() as u64)?;
    Ok(())
}

/// Read the append-only JSONL form (see the module docs).
fn read_jsonl<R: BufRead>(input: R, opts: &ReadOptions, sink: &mut dyn EventSink, report: &mut ReadReport) -> Result<()> {
    let mut lines = LineReader::new(input, opts.max_line_bytes());
    let main = Thread::Main;
    let mut pending: Option<Pending> = None;
    let mut model: Option<String> = None;
    loop {
        match &pending {
            Some(p) if p.emit => sink.safe_point(p.first_line - 1, p.first_offset)?,
            _ if lines.line > 0 => sink.safe_point(lines.line, report.bytes)?,
            _ => {}
        }
        // Lines an earlier import read are parsed too: the message being
        // read where it stopped may be written again after it.
        let Some(line) = lines.next(report, 0)? else { break };
        let n = lines.line;
        let Line::Object(mut obj) = line else { continue };
        let emit = n >= opts.emit_from_line;
        if !emit {
            report.already_imported_lines += 1;
        }
        if let Some(id) = obj.get("id").and_then(Value::as_str).map(str::to_owned) {
            if let Some(p) = pending.as_mut().filter(|p| p.id == id) {
                // The same message written again: this version replaces it.
                if p.emit {
                    let k = format!("{} superseded", message_kind(&p.msg));
                    report.kind(&k);
                    report.not_imported(&k);
                } else if emit {
                    // An earlier import stored the version read so far.
                    p.before = Some(std::mem::take(&mut p.msg));
                    p.first_line = n;
                    p.first_offset = lines.line_start;
                }
                p.msg = obj;
                p.emit = emit;
                continue;
            }
            flush(&mut pending, &mut model, sink, report)?;
            pending = Some(Pending { id, msg: obj, first_line: n, first_offset: lines.line_start, emit, before: None });
            continue;
        }
        if let Some(Value::String(_)) = obj.get("$rewindTo") {
            flush(&mut pending, &mut model, sink, report)?;
            if emit {
                report.kind("$rewindTo");
                report.kept_raw("$rewindTo");
                sink.event(&main, Event::Other(OtherLine { line: n, kind: "$rewindTo".into(), raw: Value::Object(obj) }))?;
            }
            continue;
        }
        if let Some(Value::Object(_)) = obj.get("$set") {
            let Some(Value::Object(mut set)) = obj.remove("$set") else { unreachable!("matched above") };
            let kind = format!("$set {}", set.keys().cloned().collect::<Vec<_>>().join(","));
            let kept = ["summary", "directories", "messages", "kind"].iter().any(|k| set.contains_key(*k));
            if set.contains_key("messages") {
                flush(&mut pending, &mut model, sink, report)?;
            }
            if set.contains_key("directories") || set.contains_key("kind") {
                // Session facts are sent even for lines already imported.
                let mut m = metadata(&mut set);
                m.id = None;
                m.created_at_ms = None;
                sink.event(&main, Event::Meta(m))?;
            }
            if !emit {
                continue;
            }
            report.kind(&kind);
            if !kept {
                report.not_imported(&kind);
                continue;
            }
            if let Some(Value::String(t)) = set.get("summary") {
                sink.event(&main, Event::Title { title: Some(t.clone()), line: n })?;
            }
            if let Some(Value::Array(msgs)) = set.remove("messages") {
                let ts = json_time_ms(set.get("lastUpdated"));
                let mut turns = Vec::new();
                let mut m2 = model.clone();
                for m in msgs {
                    let Value::Object(m) = m else { continue };
                    for ev in message_events(m, n, &mut m2) {
                        if let Event::Turn(t) = ev {
                            turns.push(t);
                        }
                    }
                }
                sink.event(&main, Event::Compaction(Compaction { at_turn: 0, source_line: n, timestamp_ms: ts, summary: None, replaces_count: None, messages: turns, raw: None }))?;
            }
            continue;
        }
        if obj.get("sessionId").is_some_and(Value::is_string) && obj.get("projectHash").is_some_and(Value::is_string) {
            flush(&mut pending, &mut model, sink, report)?;
            let messages = match obj.remove("messages") {
                Some(Value::Array(a)) => a,
                _ => Vec::new(),
            };
            let summary = obj.get("summary").and_then(Value::as_str).map(str::to_owned);
            sink.event(&main, Event::Meta(metadata(&mut obj)))?;
            if !emit {
                continue;
            }
            report.kind("session");
            if let Some(t) = summary {
                sink.event(&main, Event::Title { title: Some(t), line: n })?;
            }
            // A whole legacy record on one line.
            for m in messages {
                if let Value::Object(m) = m {
                    for ev in message_events(m, n, &mut model) {
                        sink.event(&main, ev)?;
                    }
                }
            }
            continue;
        }
        flush(&mut pending, &mut model, sink, report)?;
        if emit {
            let kind = match obj.get("type").and_then(Value::as_str) {
                Some(t) => t.to_owned(),
                None => "<no type>".to_owned(),
            };
            report.kind(&kind);
            report.kept_raw(&kind);
            sink.event(&main, Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) }))?;
        }
    }
    flush(&mut pending, &mut model, sink, report)?;
    Ok(())
}

/// `message/<type>` (`message/<no type>` without one).
fn message_kind(m: &Map<String, Value>) -> String {
    format!("message/{}", m.get("type").and_then(Value::as_str).unwrap_or("<no type>"))
}

/// Emit the held message (its final version).
fn flush(pending: &mut Option<Pending>, model: &mut Option<String>, sink: &mut dyn EventSink, report: &mut ReadReport) -> Result<()> {
    let Some(p) = pending.take() else { return Ok(()) };
    if !p.emit {
        return Ok(());
    }
    let kind = message_kind(&p.msg);
    report.kind(&kind);
    let before = model.clone();
    let mut events = message_events(p.msg, p.first_line, model);
    if *model != before {
        sink.event(&Thread::Main, Event::Meta(Meta { model: model.clone(), ..Default::default() }))?;
    }
    if let Some(old) = p.before {
        // Only what the version stored before did not hold: its turns are
        // stored (same role, time and blocks), its usage too (same id).
        let old = message_events(old, p.first_line, &mut None);
        events.retain(|ev| match ev {
            Event::Turn(t) => !old.iter().any(|o| matches!(o, Event::Turn(x) if x.role == t.role && x.timestamp_ms == t.timestamp_ms && x.blocks == t.blocks)),
            Event::Usage(_) => !old.iter().any(|o| matches!(o, Event::Usage(_))),
            _ => true,
        });
    }
    if events.is_empty() {
        report.not_imported(&kind);
    }
    for ev in events {
        if let Event::Other(_) = ev {
            report.kept_raw(&kind);
        }
        sink.event(&Thread::Main, ev)?;
    }
    Ok(())
}

/// Lowercase hex SHA-256 of `s` (Gemini CLI's `getProjectHash`).
fn sha256_hex(s: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The longest `.project_root` marker read (bytes).
const MAX_PROJECT_ROOT_BYTES: u64 = 4096;

/// The project root Gemini CLI recorded for the chat file at `path`: the
/// text of `<project>/.project_root` (written by its project registry,
/// `packages/core/src/config/projectRegistry.ts`) for a file in
/// `<project>/chats/` or `<project>/chats/<parent id>/`. `None` when there
/// is none, it is not a regular file, is longer than 4 KiB, empty or not
/// UTF-8. Never fails.
pub fn project_root_marker(path: &std::path::Path) -> Option<String> {
    let chats = path.ancestors().skip(1).take(2).find(|a| a.file_name().is_some_and(|n| n == "chats"))?;
    let marker = chats.parent()?.join(".project_root");
    let meta = std::fs::metadata(&marker).ok()?;
    if !meta.is_file() || meta.len() > MAX_PROJECT_ROOT_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(&marker).ok()?;
    let root = text.trim();
    (!root.is_empty()).then(|| root.to_owned())
}

/// The session facts a chat file's place gives, sent before its content:
/// the working directory from [`project_root_marker`] (first wins, so it
/// comes before `directories`). `None` when there is no marker.
pub(crate) fn place_meta(path: &std::path::Path) -> Option<Meta> {
    let root = project_root_marker(path)?;
    let mut extra = Map::new();
    extra.insert("gemini_project_root".into(), Value::String(root.clone()));
    Some(Meta { cwd: Some(root), extra, ..Default::default() })
}

/// Session facts of a metadata record (`sessionId`, `startTime`,
/// `directories`, `projectHash`, `kind`); the fields used are removed.
fn metadata(o: &mut Map<String, Value>) -> Meta {
    let mut extra = Map::new();
    if let Some(h) = o.get("projectHash").filter(|v| v.is_string()) {
        extra.insert("gemini_project_hash".into(), h.clone());
    }
    if let Some(k) = o.get("kind").filter(|v| v.is_string()) {
        extra.insert("gemini_kind".into(), k.clone());
    }
    let dirs = o.get("directories").and_then(Value::as_array).cloned();
    let hash = o.get("projectHash").and_then(Value::as_str);
    let names: Vec<&str> = dirs.iter().flatten().filter_map(Value::as_str).filter(|s| !s.is_empty()).collect();
    // The directory whose SHA-256 is the project hash is the project root
    // (Gemini CLI's `getProjectHash`); else the first one.
    let cwd = names.iter().find(|d| hash.is_some_and(|h| sha256_hex(d) == h)).or(names.first()).map(|d| (*d).to_owned());
    if let Some(d) = dirs {
        extra.insert("gemini_directories".into(), Value::Array(d));
    }
    Meta {
        id: o.get("sessionId").and_then(Value::as_str).map(str::to_owned),
        model: None,
        provider: None,
        cwd,
        created_at_ms: o.get("startTime").and_then(Value::as_str).and_then(parse_iso8601_ms),
        extra,
    }
}

/// The events of one message record at `line`: its turn(s) and usage, or a
/// raw line for a record of unknown type. Empty for a message with no
/// content (nor, for `gemini`, thoughts, tool calls or tokens): such a line
/// is counted as not imported. `model` is updated to the
/// message's model.
fn message_events(mut m: Map<String, Value>, line: u64, model: &mut Option<String>) -> Vec<Event> {
    let ts = json_time_ms(m.get("timestamp"));
    let ty = m.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
    if !matches!(ty.as_str(), "user" | "info" | "error" | "warning" | "gemini") {
        // A message type this reader does not know: kept verbatim.
        let kind = format!("message/{}", if ty.is_empty() { "<no type>" } else { &ty });
        return vec![Event::Other(OtherLine { line, kind, raw: Value::Object(m) })];
    }
    let id = m.get("id").and_then(Value::as_str).map(str::to_owned);
    let mut extra = Map::new();
    if let Some(id) = &id {
        extra.insert("gemini_id".into(), Value::String(id.clone()));
    }
    if let Some(d) = m.remove("displayContent").filter(|d| !d.is_null()) {
        extra.insert("gemini_display_content".into(), d);
    }
    let content = m.remove("content").map(|c| parts_to_blocks(&c)).unwrap_or_default();
    let mut out = Vec::new();
    match ty.as_str() {
        "user" | "info" | "error" | "warning" => {
            let role = if ty == "user" { Role::User } else { Role::System };
            if role == Role::System {
                extra.insert("gemini_type".into(), Value::String(ty.clone()));
            }
            if !content.is_empty() {
                let mut t = Turn::new(role, content, ts, line);
                t.extra = extra;
                out.push(Event::Turn(t));
            }
        }
        "gemini" => {
            let msg_model = m.get("model").and_then(Value::as_str).map(str::to_owned);
            if msg_model.is_some() {
                model.clone_from(&msg_model);
            }
            let mut blocks = Vec::new();
            if let Some(Value::Array(th)) = m.get("thoughts") {
                for t in th {
                    let subject = t.get("subject").and_then(Value::as_str).unwrap_or("");
                    let description = t.get("description").and_then(Value::as_str).unwrap_or("");
                    let text = if subject.is_empty() { description.to_owned() } else { format!("**{subject}** {description}") };
                    blocks.push(Block::Thinking { text, signature: None });
                }
            }
            blocks.extend(content);
            let mut uses = Vec::new();
            let mut results = Vec::new();
            let mut calls_meta = Vec::new();
            if let Some(Value::Array(calls)) = m.get("toolCalls") {
                for c in calls {
                    let call_id = c.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
                    let name = c.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                    let input = c.get("args").cloned().unwrap_or(Value::Null);
                    uses.push(Block::ToolUse { id: call_id.clone(), name, input, thought_signature: None });
                    let status = c.get("status").and_then(Value::as_str).unwrap_or("");
                    let result = c.get("result").filter(|r| !r.is_null());
                    let done = matches!(status, "success" | "error" | "cancelled");
                    if result.is_some() || done {
                        let is_error = matches!(status, "error" | "cancelled");
                        results.push(Block::ToolResult { tool_use_id: call_id.clone(), content: Value::String(result.map(result_text).unwrap_or_default()), is_error });
                    }
                    let mut cm = Map::new();
                    for k in ["id", "status", "timestamp", "displayName", "description", "agentId"] {
                        if let Some(v) = c.get(k).filter(|v| !v.is_null()) {
                            cm.insert(k.into(), v.clone());
                        }
                    }
                    calls_meta.push(Value::Object(cm));
                }
            }
            if !blocks.is_empty() {
                let mut t = Turn::new(Role::Assistant, blocks, ts, line);
                t.model = msg_model.clone();
                t.extra = extra.clone();
                out.push(Event::Turn(t));
            }
            if !uses.is_empty() {
                // The calls are a turn of their own: Gemini CLI adds them to
                // the message when they complete, so the text and thoughts
                // read before that are the same record after it.
                let mut t = Turn::new(Role::Assistant, uses, ts, line);
                t.model = msg_model.clone();
                t.extra = extra.clone();
                t.extra.insert("gemini_part".into(), "tool_calls".into());
                out.push(Event::Turn(t));
            }
            if !results.is_empty() {
                let mut t = Turn::new(Role::User, results, ts, line);
                if let Some(id) = &id {
                    t.extra.insert("gemini_id".into(), Value::String(id.clone()));
                }
                t.extra.insert("gemini_tool_calls".into(), Value::Array(calls_meta));
                out.push(Event::Turn(t));
            }
            if let Some(Value::Object(tok)) = m.get("tokens") {
                // Summed without wrapping (the import sink clamps to what the ledger holds).
                let g = |k: &str| tok.get(k).and_then(Value::as_u64).unwrap_or(0);
                out.push(Event::Usage(Usage {
                    input: g("input").saturating_add(g("tool")),
                    output: g("output").saturating_add(g("thoughts")),
                    cached: g("cached"),
                    model: msg_model,
                    source_line: line,
                    timestamp_ms: ts,
                    record_id: id.map(|id| format!("gemini\0{id}")),
                    partials: Vec::new(),
                }));
            }
        }
        _ => unreachable!("other types returned above"),
    }
    out
}

/// A `PartListUnion` (a string, a part, or an array of strings and parts)
/// as blocks.
fn parts_to_blocks(v: &Value) -> Vec<Block> {
    match v {
        Value::Null => Vec::new(),
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![Block::Text { text: s.clone() }],
        Value::Array(a) => a.iter().flat_map(parts_to_blocks).collect(),
        Value::Object(p) => vec![part_block(p)],
        other => vec![Block::Other(other.clone())],
    }
}

/// One `Part` of `@google/genai` as a block.
fn part_block(p: &Map<String, Value>) -> Block {
    if let Some(Value::String(text)) = p.get("text") {
        let sig = p.get("thoughtSignature").and_then(Value::as_str).map(str::to_owned);
        if p.get("thought").and_then(Value::as_bool) == Some(true) {
            return Block::Thinking { text: text.clone(), signature: sig };
        }
        return Block::Text { text: text.clone() };
    }
    if let Some(Value::Object(d)) = p.get("inlineData") {
        let mime = d.get("mimeType").and_then(Value::as_str).unwrap_or("");
        if let (true, Some(Value::String(data))) = (mime.starts_with("image/"), d.get("data")) {
            return Block::Image { source: json!({"type": "base64", "media_type": mime, "data": data}) };
        }
    }
    if let Some(Value::Object(fc)) = p.get("functionCall") {
        return Block::ToolUse {
            id: fc.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
            name: fc.get("name").and_then(Value::as_str).unwrap_or("").to_owned(),
            input: fc.get("args").cloned().unwrap_or(Value::Null),
            thought_signature: p.get("thoughtSignature").and_then(Value::as_str).map(str::to_owned),
        };
    }
    if let Some(Value::Object(fr)) = p.get("functionResponse") {
        let resp = fr.get("response");
        let is_error = resp.and_then(|r| r.get("error")).is_some_and(|e| !e.is_null());
        return Block::ToolResult {
            tool_use_id: fr.get("id").and_then(Value::as_str).unwrap_or("").to_owned(),
            content: Value::String(result_text(&Value::Object(p.clone()))),
            is_error,
        };
    }
    Block::Other(Value::Object(p.clone()))
}

/// A tool call's `result` (a `PartListUnion`, usually one `functionResponse`
/// part) as text: each `functionResponse.response.output` (or `.error`) and
/// each text part, joined by `\n`; the result's JSON when it has none.
fn result_text(r: &Value) -> String {
    fn collect(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
            Value::Object(p) => {
                if let Some(fr) = p.get("functionResponse") {
                    let resp = fr.get("response");
                    match resp.and_then(|r| r.get("output").or_else(|| r.get("error"))) {
                        Some(Value::String(s)) => out.push(s.clone()),
                        Some(other) => out.push(other.to_string()),
                        None => {
                            if let Some(r) = resp {
                                out.push(r.to_string())
                            }
                        }
                    }
                } else if let Some(Value::String(t)) = p.get("text") {
                    out.push(t.clone());
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(r, &mut out);
    if out.is_empty() {
        r.to_string()
    } else {
        out.join("\n")
    }
}

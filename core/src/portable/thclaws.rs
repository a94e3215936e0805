//! thClaws JSONL: reader, writer, tail repair.
//!
//! Real format (`samples/README.md`, "3. thClaws"; thClaws
//! `crates/core/src/session.rs`), which wins over seed 002's prose:
//! - `header{id, model:"provider/model", cwd, created_at: unix seconds}`
//! - `user|assistant|system{content:[blocks], timestamp: secs, provider?, model?}`
//! - `plan_snapshot{plan, timestamp}`, `goal_snapshot{goal, timestamp}` (latest wins)
//! - `compaction{messages:[{role,content}], replaces_count, timestamp}` (resets history)
//! - `rename{title, timestamp}`, `provider_state{provider_session_id, timestamp}`
//!
//! The reader also takes seed 002's forms: `{"type":"message","role":..}`
//! and a header with `created` (ISO string). Unknown line types are kept
//! verbatim ([`OtherLine`]) and counted, never fatal.

use super::events::{Event, EventSink, Meta, Thread};
use super::lines::{json_time_ms, Line, LineReader};
use super::model::{Block, Compaction, OtherLine, PortableSession, ReadReport, Role, SnapshotKind, SourceFormat, Turn};
use super::ReadOptions;
use crate::{Error, Result};
use serde_json::{Map, Value};
use std::fs::OpenOptions;
use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// Stream a thClaws JSONL file into `sink` (thread [`Thread::Main`]).
///
/// Lines numbered below `opts.emit_from_line` are counted but not parsed
/// (they were imported before), except line 1 when it is the header.
/// Errors: only I/O errors and errors returned by the sink; bad lines are
/// reported in the returned [`ReadReport`].
pub fn read_thclaws<R: BufRead>(input: R, opts: &ReadOptions, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let mut report = ReadReport { format: Some(SourceFormat::Thclaws), ..Default::default() };
    let mut lines = LineReader::new(input, opts.max_line_bytes());
    let main = Thread::Main;
    loop {
        // Each line is whole on its own, so every line boundary is a safe point.
        if lines.line > 0 {
            sink.safe_point(lines.line, report.bytes)?;
        }
        let Some(line) = lines.next(&mut report, opts.emit_from_line)? else { break };
        let n = lines.line;
        let Line::Object(mut obj) = line else {
            report.already_imported_lines += 1;
            continue;
        };
        let ty = obj.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        let kind = if ty.is_empty() { "<no type>".to_owned() } else { ty.clone() };
        if n < opts.emit_from_line && ty != "header" {
            // Counted once, as already imported (not by kind too).
            report.already_imported_lines += 1;
            continue;
        }
        report.kind(&kind);
        let ts = json_time_ms(obj.get("timestamp"));
        let ev = match ty.as_str() {
            "header" => {
                let model = str_field(&mut obj, "model");
                let provider = model.as_deref().and_then(|m| m.split_once('/')).map(|(p, _)| p.to_owned());
                let created = json_time_ms(obj.get("created_at")).or_else(|| json_time_ms(obj.get("created")));
                let mut extra = Map::new();
                if let Some(shell) = obj.remove("shell") {
                    extra.insert("shell".into(), shell);
                }
                Event::Meta(Meta { id: str_field(&mut obj, "id"), model, provider, cwd: str_field(&mut obj, "cwd").filter(|c| !c.is_empty()), created_at_ms: created, extra })
            }
            "user" | "assistant" | "system" => Event::Turn(turn_from(Role::parse(&ty).expect("matched"), obj, n)),
            "message" => match obj.get("role").and_then(Value::as_str).and_then(Role::parse) {
                Some(role) => Event::Turn(turn_from(role, obj, n)),
                None => {
                    report.kept_raw(&kind);
                    Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) })
                }
            },
            "rename" => Event::Title { title: str_field(&mut obj, "title").filter(|t| !t.is_empty()), line: n },
            "plan_snapshot" => Event::Plan { plan: obj.remove("plan").unwrap_or(Value::Null), line: n, timestamp_ms: ts },
            "goal_snapshot" => Event::Goal { goal: obj.remove("goal").unwrap_or(Value::Null), line: n, timestamp_ms: ts },
            "provider_state" => Event::ProviderState { provider_session_id: str_field(&mut obj, "provider_session_id"), line: n },
            "compaction" => {
                let messages = match obj.remove("messages") {
                    Some(Value::Array(a)) => a
                        .into_iter()
                        .filter_map(|m| match m {
                            Value::Object(mut m) => {
                                let role = m.get("role").and_then(Value::as_str).and_then(Role::parse).unwrap_or(Role::User);
                                m.remove("timestamp");
                                Some(turn_from(role, m, n))
                            }
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let replaces_count = obj.get("replaces_count").and_then(Value::as_u64);
                Event::Compaction(Compaction { at_turn: 0, source_line: n, timestamp_ms: ts, summary: None, replaces_count, messages, raw: None })
            }
            _ => {
                report.kept_raw(&kind);
                Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) })
            }
        };
        sink.event(&main, ev)?;
    }
    Ok(report)
}

fn str_field(obj: &mut Map<String, Value>, k: &str) -> Option<String> {
    match obj.remove(k) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

fn turn_from(role: Role, mut obj: Map<String, Value>, line: u64) -> Turn {
    let blocks = match obj.remove("content") {
        Some(Value::Array(a)) => a.into_iter().map(Block::from_json).collect(),
        Some(Value::String(text)) => vec![Block::Text { text }],
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![Block::Other(other)],
    };
    let mut t = Turn::new(role, blocks, json_time_ms(obj.get("timestamp")), line);
    t.model = str_field(&mut obj, "model");
    t.provider = str_field(&mut obj, "provider");
    t
}

/// What an export wrote.
///
/// What [`write_thclaws`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Lines written (header included).
    pub lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Turns written (compaction messages and empty turns not included).
    ///
    /// Turns written (compaction messages not included; under
    /// [`WriteOptions::only_thclaws_blocks`] turns with no content, such as
    /// Claude `stop_hook_summary` / `turn_duration`, are left out and not counted).
    pub turns: u64,
}

#[derive(serde::Serialize)]
struct HeaderLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    id: &'a str,
    model: &'a str,
    cwd: &'a str,
    created_at: i64,
}

#[derive(serde::Serialize)]
struct TurnLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    content: &'a [Block],
    timestamp: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    provider: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
}

#[derive(serde::Serialize)]
struct CompactionMessage<'a> {
    role: &'static str,
    content: &'a [Block],
}

/// `plan_snapshot` / `goal_snapshot` / `rename` / `provider_state` / `compaction`
/// lines, `type` first as thClaws writes them.
#[derive(serde::Serialize)]
struct PlanLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    plan: &'a Value,
    timestamp: i64,
}
#[derive(serde::Serialize)]
struct GoalLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    goal: &'a Value,
    timestamp: i64,
}
#[derive(serde::Serialize)]
struct RenameLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    title: &'a str,
    timestamp: i64,
}
#[derive(serde::Serialize)]
struct ProviderStateLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    provider_session_id: &'a Option<String>,
    timestamp: i64,
}
#[derive(serde::Serialize)]
struct CompactionLine<'a> {
    #[serde(rename = "type")]
    ty: &'static str,
    messages: Vec<CompactionMessage<'a>>,
    replaces_count: u64,
    timestamp: i64,
}

/// Unix seconds, never negative (thClaws reads `timestamp` as `u64`).
fn secs(ms: Option<i64>, fallback: i64) -> i64 {
    ms.map_or(fallback, |m| m.div_euclid(1000)).max(0)
}

fn thclaws_type(role: Role) -> &'static str {
    match role {
        Role::User | Role::Tool => "user",
        Role::Assistant => "assistant",
        Role::System => "system",
    }
}

/// Write `session` in the real thClaws format: header, `plan_snapshot`,
/// `goal_snapshot`, then turns with `compaction` lines at their positions,
/// then `rename` (when titled) and `provider_state` (when set).
///
/// Timestamps are written in Unix seconds (ms ÷ 1000, floored); a turn
/// without one gets the previous turn's (or the header's). `\n` line ends
/// only; valid UTF-8 with no lone surrogate (guaranteed by serde_json over
/// Rust strings; U+2028/U+2029 are written raw, they are not line breaks).
/// The header `model` is `provider/model` when the model lacks the prefix.
/// A turn's own `provider` and `model` (assistant turns: see
/// [`super::load_portable`]) follow its `timestamp`, as real thClaws writes
/// them; a turn's `extra` has no thClaws field and is not written.
///
/// Lossless: a [`Block::Other`] (a block type thClaws does not define, e.g.
/// a Codex `web_search_call`) is written verbatim, so export then import
/// gives the same turns. Use [`write_thclaws_with`] and
/// [`WriteOptions::only_thclaws_blocks`] for a file an older thClaws build
/// that rejects unknown block types must read.
/// Errors: [`Error::Io`] from `out`.
pub fn write_thclaws<W: Write>(session: &PortableSession, out: W) -> Result<WriteReport> {
    write_thclaws_with(session, out, &WriteOptions::default())
}

/// Options of [`write_thclaws_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// Write every block in a shape thClaws' own types accept
    /// ([`thclaws_blocks`]: a `data:` image becomes a base64 image, an image by
    /// URL and every block type thClaws does not define become text), and
    /// leave out turns with no content. Store export ([`super::export_thclaws`])
    /// always does this. Not lossless on re-import.
    pub only_thclaws_blocks: bool,
}

/// The blocks as thClaws' own types accept them (its `crates/core/src/types.rs`
/// `ContentBlock`; checked by [`super::thclaws_check`]), so that thClaws never
/// drops the message that holds them:
/// - `text`, `thinking`, `tool_use` are kept;
/// - an `image` whose source is `base64{media_type, data}` is kept; an image
///   by `data:` URL (Codex `input_image`, Claude `url` source) becomes a base64
///   image block; any other image (a `https:` URL, a file id) becomes a text
///   block `[image: <url or source JSON>]`;
/// - a `tool_result` keeps `tool_use_id` and `is_error`; its `content` becomes
///   what thClaws' `ToolResultContent` accepts (a string, or text and base64
///   image blocks; other parts become text, a null content `""`, any other
///   value its JSON text);
/// - any other block (Codex `web_search_call`, Claude `redacted_thinking`,
///   audio, documents, unknown types) becomes a text block
///   `[<type> block] <its JSON>`.
///
/// Not lossless on re-import for the converted blocks.
pub fn thclaws_blocks(blocks: &[Block]) -> Vec<Block> {
    blocks.iter().map(thclaws_block).collect()
}

fn as_text_block(v: &Value) -> Block {
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("unknown");
    Block::Text { text: format!("[{ty} block] {v}") }
}

/// `data:<media type>;base64,<data>` → (media type, data).
fn parse_data_url(url: &str) -> Option<(String, String)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let media = meta.strip_suffix(";base64")?;
    let media = if media.is_empty() { "application/octet-stream" } else { media };
    Some((media.to_owned(), data.to_owned()))
}

/// An image source in thClaws' `ImageSource::Base64` shape, or the text that
/// stands for it when it has no such form.
fn image_source(source: &Value) -> std::result::Result<Value, String> {
    let ty = source.get("type").and_then(Value::as_str);
    if ty == Some("base64") {
        if let (Some(mt), Some(data)) = (source.get("media_type").and_then(Value::as_str), source.get("data").and_then(Value::as_str)) {
            return Ok(serde_json::json!({"type": "base64", "media_type": mt, "data": data}));
        }
    }
    let url = source.get("url").and_then(Value::as_str).or_else(|| source.as_str());
    if let Some(url) = url {
        if let Some((mt, data)) = parse_data_url(url) {
            return Ok(serde_json::json!({"type": "base64", "media_type": mt, "data": data}));
        }
        return Err(format!("[image: {url}]"));
    }
    Err(format!("[image: {source}]"))
}

/// One part of an array `tool_result` content as thClaws accepts it: a text
/// part, a base64 image, or text standing for anything else.
fn tool_result_part(p: &Value) -> Value {
    match p.get("type").and_then(Value::as_str) {
        Some("text") if p.get("text").is_some_and(Value::is_string) => serde_json::json!({"type": "text", "text": p["text"]}),
        Some("image") => match image_source(p.get("source").unwrap_or(&Value::Null)) {
            Ok(src) => serde_json::json!({"type": "image", "source": src}),
            Err(text) => serde_json::json!({"type": "text", "text": text}),
        },
        _ => match as_text_block(p) {
            Block::Text { text } => serde_json::json!({"type": "text", "text": text}),
            _ => unreachable!("as_text_block makes text"),
        },
    }
}

fn tool_result_content(content: &Value) -> Value {
    match content {
        Value::String(_) => content.clone(),
        Value::Null => Value::String(String::new()),
        Value::Array(parts) => Value::Array(parts.iter().map(tool_result_part).collect()),
        other => Value::String(other.to_string()),
    }
}

/// [`tool_result_content`] by value: a string content (a tool's output,
/// possibly megabytes) and text parts move instead of being copied.
fn tool_result_content_owned(content: Value) -> Value {
    match content {
        Value::String(_) => content,
        Value::Array(parts) => Value::Array(
            parts
                .into_iter()
                .map(|mut p| match p.get("type").and_then(Value::as_str) {
                    Some("text") if p.get("text").is_some_and(Value::is_string) => serde_json::json!({"type": "text", "text": p["text"].take()}),
                    _ => tool_result_part(&p),
                })
                .collect(),
        ),
        other => tool_result_content(&other),
    }
}

/// [`thclaws_block`] by value (no copy of the text it keeps).
fn thclaws_block_owned(b: Block) -> Block {
    match b {
        Block::Text { .. } | Block::Thinking { .. } | Block::ToolUse { .. } => b,
        Block::ToolResult { tool_use_id, content, is_error } => Block::ToolResult { tool_use_id, content: tool_result_content_owned(content), is_error },
        other => thclaws_block(&other),
    }
}

fn thclaws_block(b: &Block) -> Block {
    match b {
        Block::Text { .. } | Block::Thinking { .. } | Block::ToolUse { .. } => b.clone(),
        Block::ToolResult { tool_use_id, content, is_error } => {
            Block::ToolResult { tool_use_id: tool_use_id.clone(), content: tool_result_content(content), is_error: *is_error }
        }
        Block::Image { source } => match image_source(source) {
            Ok(source) => Block::Image { source },
            Err(text) => Block::Text { text },
        },
        Block::Other(v) => as_text_block(v),
    }
}

/// True when a turn has nothing to say: no block, or only empty text blocks
/// (Claude `stop_hook_summary` / `turn_duration` system lines import so).
fn is_empty_turn(blocks: &[Block]) -> bool {
    blocks.iter().all(|b| matches!(b, Block::Text { text } if text.trim().is_empty()))
}

/// [`write_thclaws`] with options. Errors: [`Error::Io`] from `out`.
pub fn write_thclaws_with<W: Write>(session: &PortableSession, out: W, opts: &WriteOptions) -> Result<WriteReport> {
    let mut w = ThclawsWriter::start(session, out, opts)?;
    for t in &session.turns {
        w.turn(t)?;
    }
    w.finish()
}

/// A thClaws JSONL writer fed one turn at a time, so a stored session is
/// exported without holding its transcript ([`super::export_thclaws`]:
/// memory bounded by a page of entries, never the session).
///
/// [`ThclawsWriter::start`] takes the session's header fields, snapshots
/// and compactions (its `turns` are not read) and writes the header;
/// [`ThclawsWriter::turn`] writes the snapshots and compactions placed
/// before the turn (`at_turn` = turns before it), then the turn;
/// [`ThclawsWriter::finish`] writes the rest and the trailing `rename` and
/// `provider_state` lines. The lines are those of [`write_thclaws_with`],
/// which is this writer over `session.turns`.
pub struct ThclawsWriter<'s, W: Write> {
    session: &'s PortableSession,
    out: W,
    strict: bool,
    rep: WriteReport,
    last_ts: i64,
    /// Turns written or skipped so far.
    turns: usize,
    next_snapshot: usize,
    next_compaction: usize,
}

impl<'s, W: Write> ThclawsWriter<'s, W> {
    /// Write the header (and a plan / goal snapshot line for a kind the
    /// session has no snapshot of). Errors: [`Error::Io`] from `out`.
    pub fn start(session: &'s PortableSession, out: W, opts: &WriteOptions) -> Result<Self> {
        let created = secs(session.created_at_ms, 0);
        let mut w = ThclawsWriter {
            session,
            out,
            strict: opts.only_thclaws_blocks,
            rep: WriteReport::default(),
            last_ts: created,
            turns: 0,
            next_snapshot: 0,
            next_compaction: 0,
        };
        let model = match (&session.provider, &session.model) {
            (Some(p), Some(m)) if !m.starts_with(&format!("{p}/")) => format!("{p}/{m}"),
            (_, Some(m)) => m.clone(),
            (Some(p), None) => p.clone(),
            (None, None) => String::new(),
        };
        w.emit(&HeaderLine { ty: "header", id: &session.id, model: &model, cwd: session.cwd.as_deref().unwrap_or(""), created_at: created })?;
        let null = Value::Null;
        // Every snapshot is written in order at its place (issue 14 item 3); a
        // kind with none (a session built in memory) gets one line after the header.
        if !session.snapshots.iter().any(|s| s.kind == SnapshotKind::Plan) {
            w.emit(&PlanLine { ty: "plan_snapshot", plan: session.plan.as_ref().unwrap_or(&null), timestamp: created })?;
        }
        if !session.snapshots.iter().any(|s| s.kind == SnapshotKind::Goal) {
            w.emit(&GoalLine { ty: "goal_snapshot", goal: session.goal.as_ref().unwrap_or(&null), timestamp: created })?;
        }
        Ok(w)
    }

    /// Write `v` as one JSON line, straight into `out` (no line buffer: a
    /// turn of hundreds of MB is not copied again).
    fn emit(&mut self, v: &dyn erased::Ser) -> Result<()> {
        let mut w = Counting { out: &mut self.out, bytes: 0 };
        v.write_to(&mut w).and_then(|()| w.write_all(b"\n")).map_err(|e| Error::io("writing a thClaws session file", e))?;
        self.rep.lines += 1;
        self.rep.bytes += w.bytes;
        Ok(())
    }

    /// The snapshots and compactions placed at or before turn `upto`
    /// (`None`: all that are left), in stored order.
    fn placed(&mut self, upto: Option<usize>) -> Result<()> {
        let session = self.session;
        let fits = |at: usize| upto.is_none_or(|u| at <= u);
        while let Some(sn) = session.snapshots.get(self.next_snapshot).filter(|s| fits(s.at_turn)) {
            self.next_snapshot += 1;
            let timestamp = secs(sn.timestamp_ms, self.last_ts);
            match sn.kind {
                SnapshotKind::Plan => self.emit(&PlanLine { ty: "plan_snapshot", plan: &sn.value, timestamp })?,
                SnapshotKind::Goal => self.emit(&GoalLine { ty: "goal_snapshot", goal: &sn.value, timestamp })?,
            }
        }
        while let Some(c) = session.compactions.get(self.next_compaction).filter(|c| fits(c.at_turn)) {
            self.next_compaction += 1;
            let owned: Vec<Vec<Block>> = if self.strict { c.messages.iter().map(|m| thclaws_blocks(&m.blocks)).collect() } else { Vec::new() };
            let messages = c
                .messages
                .iter()
                .enumerate()
                .map(|(i, m)| CompactionMessage { role: thclaws_type(m.role), content: if self.strict { &owned[i] } else { &m.blocks } })
                .collect();
            let line = CompactionLine {
                ty: "compaction",
                messages,
                replaces_count: c.replaces_count.unwrap_or(c.at_turn as u64),
                timestamp: secs(c.timestamp_ms, self.last_ts),
            };
            self.emit(&line)?;
        }
        Ok(())
    }

    /// Write one turn (after what is placed before it). A turn with no
    /// content is left out under `only_thclaws_blocks` (thClaws would show
    /// an empty message; issue 14 item 5) but still counts for placement.
    /// Errors: [`Error::Io`] from `out`.
    pub fn turn(&mut self, t: &Turn) -> Result<()> {
        if self.strict {
            let blocks = thclaws_blocks(&t.blocks);
            self.write_turn(t, &blocks)
        } else {
            self.write_turn(t, &t.blocks)
        }
    }

    /// [`Self::turn`] taking the turn by value: under `only_thclaws_blocks`
    /// its blocks are converted in place, so the text is never copied (a
    /// store export of a 200 MB tool output holds it once, not twice).
    /// Errors: [`Error::Io`] from `out`.
    pub fn turn_owned(&mut self, mut t: Turn) -> Result<()> {
        if self.strict {
            t.blocks = std::mem::take(&mut t.blocks).into_iter().map(thclaws_block_owned).collect();
        }
        let blocks = std::mem::take(&mut t.blocks);
        self.write_turn(&t, &blocks)
    }

    fn write_turn(&mut self, t: &Turn, blocks: &[Block]) -> Result<()> {
        self.placed(Some(self.turns))?;
        self.turns += 1;
        self.last_ts = secs(t.timestamp_ms, self.last_ts);
        if self.strict && is_empty_turn(blocks) {
            return Ok(());
        }
        let line = TurnLine { ty: thclaws_type(t.role), content: blocks, timestamp: self.last_ts, provider: t.provider.as_deref(), model: t.model.as_deref() };
        self.emit(&line)?;
        self.rep.turns += 1;
        Ok(())
    }

    /// Write what is left (snapshots and compactions after the last turn,
    /// the title, the provider state) and flush. Errors: [`Error::Io`].
    pub fn finish(mut self) -> Result<WriteReport> {
        self.placed(None)?;
        let session = self.session;
        if let Some(title) = &session.title {
            self.emit(&RenameLine { ty: "rename", title, timestamp: self.last_ts })?;
        }
        if let Some(ps) = &session.provider_state {
            self.emit(&ProviderStateLine { ty: "provider_state", provider_session_id: ps, timestamp: self.last_ts })?;
        }
        self.out.flush().map_err(|e| Error::io("writing a thClaws session file", e))?;
        Ok(self.rep)
    }
}

/// A writer that counts the bytes written through it.
struct Counting<'w, W: Write> {
    out: &'w mut W,
    bytes: u64,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

mod erased {
    /// Object-safe "serialize as JSON into a writer".
    pub trait Ser {
        fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
            // Our line types serialize without error; only the writer fails.
            serde_json::to_writer(w, self).map_err(std::io::Error::other)
        }
    }
}

/// What [`repair_tail`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TailRepair {
    /// Bytes of a torn last line that were cut off.
    pub truncated_bytes: u64,
    /// True when a complete last line lacked `\n` and one was added.
    pub added_newline: bool,
}

/// Make a JSONL file safe to append to: a torn last line (no `\n`, does not
/// parse as JSON — cut mid-object or mid UTF-8 sequence) is truncated away;
/// a complete last line without `\n` gets one. A missing file is left alone.
///
/// A last line without `\n` longer than [`super::DEFAULT_MAX_LINE_BYTES`]
/// (64 MiB) is neither read nor cut: the file is left as it is and the
/// repair refused (at most that many bytes from the end are scanned, so a
/// 2 GiB file of NULs costs neither memory nor a full read).
///
/// Source: issue 4 item 2 ("the tail is repaired before anything is appended").
/// Errors: [`Error::Io`]; `InvalidInput` for a last line over the limit.
pub fn repair_tail(path: &Path) -> Result<TailRepair> {
    let mut f = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TailRepair::default()),
        Err(e) => return Err(Error::io("opening a session file for repair", e)),
    };
    let len = f.metadata().map_err(|e| Error::io("reading session file metadata", e))?.len();
    if len == 0 {
        return Ok(TailRepair::default());
    }
    // Find the last '\n' by scanning backwards in chunks.
    let mut end = len;
    let mut last_nl: Option<u64> = None;
    let mut chunk = vec![0u8; 64 * 1024];
    let limit = super::DEFAULT_MAX_LINE_BYTES;
    while end > 0 {
        if len - end > limit {
            return Err(Error::invalid(format!(
                "the last line of the session file is over {limit} bytes without a newline: not repaired or appended to (the file is unchanged)"
            )));
        }
        let start = end.saturating_sub(chunk.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start)).map_err(|e| Error::io("reading a session file tail", e))?;
        f.read_exact(&mut chunk[..n]).map_err(|e| Error::io("reading a session file tail", e))?;
        if let Some(p) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            last_nl = Some(start + p as u64);
            break;
        }
        end = start;
    }
    let tail_start = last_nl.map_or(0, |p| p + 1);
    if tail_start == len {
        return Ok(TailRepair::default());
    }
    let mut tail = Vec::with_capacity((len - tail_start) as usize);
    f.seek(SeekFrom::Start(tail_start)).map_err(|e| Error::io("reading a session file tail", e))?;
    f.read_to_end(&mut tail).map_err(|e| Error::io("reading a session file tail", e))?;
    let complete = tail.iter().all(|b| b.is_ascii_whitespace())
        || matches!(serde_json::from_slice::<Value>(&tail), Ok(Value::Object(_)))
        || super::lines::fix_lone_surrogates(&tail).is_some_and(|t| matches!(serde_json::from_slice::<Value>(&t), Ok(Value::Object(_))));
    if complete {
        f.seek(SeekFrom::End(0)).map_err(|e| Error::io("repairing a session file tail", e))?;
        f.write_all(b"\n").map_err(|e| Error::io("repairing a session file tail", e))?;
        f.sync_data().map_err(|e| Error::io("repairing a session file tail", e))?;
        Ok(TailRepair { truncated_bytes: 0, added_newline: true })
    } else {
        f.set_len(tail_start).map_err(|e| Error::io("repairing a session file tail", e))?;
        f.sync_data().map_err(|e| Error::io("repairing a session file tail", e))?;
        Ok(TailRepair { truncated_bytes: len - tail_start, added_newline: false })
    }
}

/// Append turns to a thClaws file after [`repair_tail`], one line each,
/// then fsync. Returns the repair that was needed.
/// Errors: [`Error::Io`].
pub fn append_turns(path: &Path, turns: &[Turn]) -> Result<TailRepair> {
    let repair = repair_tail(path)?;
    let mut buf = Vec::new();
    let mut last = 0;
    for t in turns {
        last = secs(t.timestamp_ms, last);
        let line = TurnLine {
            ty: thclaws_type(t.role),
            content: &t.blocks,
            timestamp: last,
            provider: t.provider.as_deref(),
            model: t.model.as_deref(),
        };
        serde_json::to_writer(&mut buf, &line).expect("in-memory JSON serialization cannot fail");
        buf.push(b'\n');
    }
    let mut f = OpenOptions::new().append(true).create(true).open(path).map_err(|e| Error::io("opening a session file for append", e))?;
    f.write_all(&buf).map_err(|e| Error::io("appending to a session file", e))?;
    f.sync_data().map_err(|e| Error::io("appending to a session file", e))?;
    Ok(repair)
}


#[cfg(test)]
mod owned_conversion {
    use super::*;

    /// The by-value conversion of a store export writes what the borrowed
    /// one writes, for every block shape it handles itself or hands on.
    #[test]
    fn owned_block_conversion_equals_the_borrowed_one() {
        let blocks = vec![
            Block::Text { text: "t".into() },
            Block::Thinking { text: "th".into(), signature: Some("s".into()) },
            Block::ToolUse { id: "c1".into(), name: "Bash".into(), input: serde_json::json!({"command": "ls"}), thought_signature: None },
            Block::ToolResult { tool_use_id: "c1".into(), content: Value::String("out".into()), is_error: false },
            Block::ToolResult { tool_use_id: "c2".into(), content: Value::Null, is_error: true },
            Block::ToolResult { tool_use_id: "c3".into(), content: serde_json::json!(7), is_error: false },
            Block::ToolResult {
                tool_use_id: "c4".into(),
                content: serde_json::json!([
                    {"type": "text", "text": "a"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}},
                    {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
                    {"type": "audio", "data": "zz"},
                    {"type": "text", "text": 5}
                ]),
                is_error: false,
            },
            Block::Image { source: serde_json::json!({"type": "url", "url": "data:image/png;base64,AA=="}) },
            Block::Other(serde_json::json!({"type": "web_search_call", "q": "x"})),
        ];
        let borrowed = thclaws_blocks(&blocks);
        let owned: Vec<Block> = blocks.into_iter().map(thclaws_block_owned).collect();
        assert_eq!(serde_json::to_string(&owned).unwrap(), serde_json::to_string(&borrowed).unwrap());
        assert_eq!(owned.len(), 9);
    }
}

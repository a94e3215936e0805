//! Claude Code transcript reader (`~/.claude/projects/<slug>/<sessionId>.jsonl`).
//!
//! Source: `samples/README.md`, "2. Claude Code transcript".
//! - `user` / `assistant` / `system` lines become turns of the thread they
//!   belong to: lines with `isSidechain:true` form separate sessions (one per
//!   sidechain root, the line whose parent is not a known sidechain line),
//!   found by following `parentUuid`; all other lines are the main session,
//!   in file order.
//! - One API message is split over several `assistant` lines (one block per
//!   line) sharing `message.id`: they are merged into one turn, also when
//!   the user's tool results for its first calls sit between them; its
//!   `usage` is counted once per message id (the last line's figures, which
//!   hold the final `output_tokens`).
//! - `system/compact_boundary` → [`Compaction`] (`compactMetadata` kept raw);
//!   other `system` lines with content → system turns with their `subtype`
//!   in `extra`; those without (`stop_hook_summary`, `turn_duration`) are
//!   not turns: kept raw, counted in `kept_raw` by kind (issue 28 item 3).
//! - `summary{summary}` (1.x) → the session title (latest wins).
//! - `progress`, `file-history-snapshot`, `queue-operation`, `last-prompt`:
//!   bookkeeping, counted in `not_imported`. Unknown types: kept raw.
//!
//! `user.toolUseResult` (the tool's structured result) is kept whole in the
//! turn's `extra.tool_use_result`.

use super::events::{Event, EventSink, Meta, Thread};
use super::lines::{json_time_ms, Line, LineReader};
use super::model::{Block, Compaction, OtherLine, ReadReport, Role, SourceFormat, Turn, Usage};
use super::ReadOptions;
use crate::Result;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

/// Buffered results between two lines of one split assistant message, at most.
const MAX_BUFFERED: usize = 64;

struct Pending {
    msg_id: String,
    turn: Turn,
    usage: Option<Usage>,
    /// Figures of the earlier lines' usage ([`Usage::partials`]).
    partials: Vec<[u64; 3]>,
    buffered: Vec<Turn>,
    /// Byte offset where the message's first line starts.
    start_offset: u64,
    /// Line of its latest part.
    last_line: u64,
}

/// A split message with no new part for this many lines is complete: Claude
/// Code writes the parts of one message next to each other, and a thread
/// that ends on an assistant message (a finished sidechain) must not hold
/// every later line of the file back from a commit.
const STALE_LINES: u64 = 256;

#[derive(Default)]
struct State {
    meta_sent: bool,
    side_threads: HashMap<String, Thread>,
    pending: HashMap<Thread, Pending>,
    usage_seen: HashSet<String>,
    /// `Some(true)` when the file itself is a subagent transcript (first conversation line is a sidechain).
    file_is_sidechain: Option<bool>,
}

/// Stream a Claude Code transcript into `sink`.
///
/// Lines below `opts.emit_from_line` are read for state (threads, counted
/// message ids) but emit nothing. Errors: I/O and sink errors only.
pub fn read_claude<R: BufRead>(input: R, opts: &ReadOptions, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let mut report = ReadReport { format: Some(SourceFormat::ClaudeCode), ..Default::default() };
    let mut lines = LineReader::new(input, opts.max_line_bytes());
    let mut st = State::default();
    loop {
        let stale: Vec<Thread> = st.pending.iter().filter(|(_, p)| p.last_line + STALE_LINES < lines.line).map(|(t, _)| t.clone()).collect();
        for t in stale {
            flush(&mut st, &t, sink, &mut report)?;
        }
        // Safe up to the line before the oldest message still collecting parts.
        match st.pending.values().min_by_key(|p| p.turn.source_line) {
            Some(p) => sink.safe_point(p.turn.source_line - 1, p.start_offset)?,
            None if lines.line > 0 => sink.safe_point(lines.line, report.bytes)?,
            None => {}
        }
        let Some(line) = lines.next(&mut report, 0)? else { break };
        let n = lines.line;
        let Line::Object(mut obj) = line else { continue };
        let emit = n >= opts.emit_from_line;
        if !emit {
            report.already_imported_lines += 1;
        }
        let ty = obj.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        let subtype = obj.get("subtype").and_then(Value::as_str).map(str::to_owned);
        let kind = match (&*ty, &subtype) {
            ("system", Some(s)) => format!("system/{s}"),
            ("", _) => "<no type>".to_owned(),
            _ => ty.clone(),
        };
        // A line already imported is counted once, in `already_imported_lines`.
        if emit {
            report.kind(&kind);
        }
        let conversational = matches!(ty.as_str(), "user" | "assistant" | "system" | "progress");
        if conversational && !st.meta_sent && obj.contains_key("sessionId") {
            st.meta_sent = true;
            let is_side = obj.get("isSidechain").and_then(Value::as_bool).unwrap_or(false);
            let sid = obj.get("sessionId").and_then(Value::as_str).unwrap_or("").to_owned();
            let mut extra = Map::new();
            for k in ["version", "gitBranch", "userType", "entrypoint"] {
                if let Some(v) = obj.get(k) {
                    extra.insert(k.to_owned(), v.clone());
                }
            }
            let id = match (is_side, obj.get("agentId").and_then(Value::as_str)) {
                (true, Some(agent)) => {
                    extra.insert("sidechain_of".into(), sid.clone().into());
                    format!("{sid}.agent.{agent}")
                }
                _ => sid,
            };
            // Session facts are sent even for lines already imported: a
            // resumed import needs them for sessions it looks up or creates.
            sink.event(
                &Thread::Main,
                Event::Meta(Meta {
                    id: Some(id),
                    model: None,
                    provider: Some("anthropic".into()),
                    cwd: obj.get("cwd").and_then(Value::as_str).map(str::to_owned),
                    created_at_ms: json_time_ms(obj.get("timestamp")),
                    extra,
                }),
            )?;
        }
        let thread = if conversational { thread_of(&mut st, &obj) } else { Thread::Main };
        let ts = json_time_ms(obj.get("timestamp"));
        match ty.as_str() {
            "user" => {
                if !emit {
                    continue;
                }
                let t = user_turn(&mut obj, ts, n);
                let only_results = !t.blocks.is_empty() && t.blocks.iter().all(|b| matches!(b, Block::ToolResult { .. }));
                match st.pending.get_mut(&thread) {
                    Some(p) if only_results && p.buffered.len() < MAX_BUFFERED => p.buffered.push(t),
                    _ => {
                        flush(&mut st, &thread, sink, &mut report)?;
                        sink.event(&thread, Event::Turn(t))?;
                    }
                }
            }
            "assistant" => {
                let Some(Value::Object(mut msg)) = obj.remove("message") else {
                    if emit {
                        report.kept_raw(&kind);
                        sink.event(&thread, Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) }))?;
                    }
                    continue;
                };
                let msg_id = msg.get("id").and_then(Value::as_str).map(str::to_owned);
                if !emit {
                    if let Some(id) = msg_id {
                        st.usage_seen.insert(id);
                    }
                    continue;
                }
                let model = msg.get("model").and_then(Value::as_str).map(str::to_owned);
                let usage = msg.get("usage").map(|u| claude_usage(u, model.clone(), n, ts));
                let blocks: Vec<Block> = match msg.remove("content") {
                    Some(Value::Array(a)) => a.into_iter().map(Block::from_json).collect(),
                    Some(Value::String(text)) => vec![Block::Text { text }],
                    _ => Vec::new(),
                };
                if let Some(m) = model.as_deref().filter(|m| *m != "<synthetic>") {
                    sink.event(&thread, Event::Meta(Meta { model: Some(m.to_owned()), ..Default::default() }))?;
                }
                let same = matches!((&msg_id, st.pending.get(&thread)), (Some(id), Some(p)) if *id == p.msg_id);
                if same {
                    let p = st.pending.get_mut(&thread).expect("checked");
                    p.turn.blocks.extend(blocks);
                    if let Some(u) = usage {
                        if let Some(prev) = p.usage.replace(u) {
                            let figs = [prev.input, prev.output, prev.cached];
                            let now = p.usage.as_ref().map(|u| [u.input, u.output, u.cached]);
                            if Some(figs) != now && p.partials.last() != Some(&figs) {
                                p.partials.push(figs);
                            }
                        }
                    }
                    p.last_line = n;
                    report.merged_lines += 1;
                    continue;
                }
                flush(&mut st, &thread, sink, &mut report)?;
                let mut t = Turn::new(Role::Assistant, blocks, ts, n);
                t.model = model;
                t.provider = Some("anthropic".into());
                copy_extra(&obj, &mut t.extra, &[("uuid", "uuid"), ("requestId", "request_id")]);
                match msg_id {
                    Some(id) => {
                        t.extra.insert("message_id".into(), id.clone().into());
                        st.pending.insert(thread.clone(), Pending { msg_id: id, turn: t, usage, partials: Vec::new(), buffered: Vec::new(), start_offset: lines.line_start, last_line: n });
                    }
                    None => sink.event(&thread, Event::Turn(t))?,
                }
            }
            "system" => {
                if !emit {
                    continue;
                }
                flush(&mut st, &thread, sink, &mut report)?;
                if subtype.as_deref() == Some("compact_boundary") {
                    let mut raw = Map::new();
                    copy_extra(&obj, &mut raw, &[("compactMetadata", "compactMetadata"), ("logicalParentUuid", "logicalParentUuid"), ("uuid", "uuid"), ("content", "content")]);
                    sink.event(
                        &thread,
                        Event::Compaction(Compaction { at_turn: 0, source_line: n, timestamp_ms: ts, summary: None, replaces_count: None, messages: Vec::new(), raw: Some(Value::Object(raw)) }),
                    )?;
                } else if obj.get("content").is_none_or(|c| c.is_null() || c.as_str().is_some_and(|t| t.trim().is_empty())) {
                    // Nothing to say (`stop_hook_summary`, `turn_duration`...):
                    // not a turn (an export would leave it out), the line kept
                    // whole and counted by kind.
                    report.kept_raw(&kind);
                    sink.event(&thread, Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) }))?;
                } else {
                    let blocks = match obj.remove("content") {
                        Some(Value::String(text)) => vec![Block::Text { text }],
                        Some(Value::Null) | None => Vec::new(),
                        Some(v) => vec![Block::Other(v)],
                    };
                    let mut t = Turn::new(Role::System, blocks, ts, n);
                    copy_extra(&obj, &mut t.extra, &[("uuid", "uuid"), ("subtype", "subtype"), ("level", "level"), ("isMeta", "is_meta"), ("durationMs", "duration_ms")]);
                    sink.event(&thread, Event::Turn(t))?;
                }
            }
            "summary" | "custom-title" | "ai-title" => {
                let title = ["summary", "customTitle", "aiTitle", "title"].iter().find_map(|k| obj.get(*k).and_then(Value::as_str)).map(str::to_owned);
                if emit {
                    match title {
                        Some(t) => sink.event(&Thread::Main, Event::Title { title: Some(t), line: n })?,
                        None => {
                            report.kept_raw(&kind);
                            sink.event(&Thread::Main, Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) }))?;
                        }
                    }
                }
            }
            "progress" | "file-history-snapshot" | "queue-operation" | "last-prompt" => {
                if emit {
                    report.not_imported(&kind);
                }
            }
            _ => {
                if emit {
                    report.kept_raw(&kind);
                    sink.event(&thread, Event::Other(OtherLine { line: n, kind, raw: Value::Object(obj) }))?;
                }
            }
        }
    }
    let threads: Vec<Thread> = st.pending.keys().cloned().collect();
    // Flush main first, then sidechains in a stable order.
    let mut threads = threads;
    threads.sort_by_key(|t| match t {
        Thread::Main => String::new(),
        Thread::Sidechain(u) => format!("~{u}"),
    });
    for t in threads {
        flush(&mut st, &t, sink, &mut report)?;
    }
    Ok(report)
}

fn thread_of(st: &mut State, obj: &Map<String, Value>) -> Thread {
    let side = obj.get("isSidechain").and_then(Value::as_bool).unwrap_or(false);
    let first = *st.file_is_sidechain.get_or_insert(side);
    if !side || first {
        return Thread::Main;
    }
    let uuid = obj.get("uuid").and_then(Value::as_str).unwrap_or("").to_owned();
    let parent = obj.get("parentUuid").and_then(Value::as_str);
    let t = parent.and_then(|p| st.side_threads.get(p).cloned()).unwrap_or_else(|| Thread::Sidechain(uuid.clone()));
    if !uuid.is_empty() {
        st.side_threads.insert(uuid, t.clone());
    }
    t
}

fn flush(st: &mut State, thread: &Thread, sink: &mut dyn EventSink, report: &mut ReadReport) -> Result<()> {
    if let Some(p) = st.pending.remove(thread) {
        sink.event(thread, Event::Turn(p.turn))?;
        if let Some(mut u) = p.usage {
            if st.usage_seen.insert(p.msg_id.clone()) {
                u.record_id = Some(format!("claude-msg\0{}", p.msg_id));
                u.partials = p.partials;
                sink.event(thread, Event::Usage(u))?;
            } else {
                report.duplicate_usage += 1;
            }
        }
        for t in p.buffered {
            sink.event(thread, Event::Turn(t))?;
        }
    }
    Ok(())
}

fn copy_extra(obj: &Map<String, Value>, extra: &mut Map<String, Value>, keys: &[(&str, &str)]) {
    for (from, to) in keys {
        if let Some(v) = obj.get(*from) {
            if !v.is_null() && *v != Value::Bool(false) {
                extra.insert((*to).to_owned(), v.clone());
            }
        }
    }
}

fn user_turn(obj: &mut Map<String, Value>, ts: Option<i64>, n: u64) -> Turn {
    let content = obj.get_mut("message").and_then(|m| m.as_object_mut()).and_then(|m| m.remove("content"));
    let blocks = match content {
        Some(Value::String(text)) => vec![Block::Text { text }],
        Some(Value::Array(a)) => a.into_iter().map(Block::from_json).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(v) => vec![Block::Other(v)],
    };
    let mut t = Turn::new(Role::User, blocks, ts, n);
    copy_extra(
        obj,
        &mut t.extra,
        &[
            ("uuid", "uuid"),
            ("isMeta", "is_meta"),
            ("isCompactSummary", "is_compact_summary"),
            ("isVisibleInTranscriptOnly", "is_visible_in_transcript_only"),
        ],
    );
    if let Some(r) = obj.remove("toolUseResult") {
        t.extra.insert("tool_use_result".into(), r);
    }
    t
}

fn claude_usage(u: &Value, model: Option<String>, line: u64, ts: Option<i64>) -> Usage {
    let g = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let cached = g("cache_read_input_tokens");
    Usage { input: g("input_tokens").saturating_add(g("cache_creation_input_tokens")).saturating_add(cached), output: g("output_tokens"), cached, model, source_line: line, timestamp_ms: ts, record_id: None, partials: Vec::new() }
}

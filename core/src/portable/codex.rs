//! OpenAI Codex rollout reader (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Source: `samples/README.md`, "1. OpenAI Codex CLI rollout". Every line is
//! `{timestamp, type, payload}`:
//! - `session_meta` → id, cwd, created, provider (`model_provider`); the rest
//!   (originator, cli_version, git, instructions) is kept in `source.extra`.
//! - `turn_context` → the current model (latest wins); not imported otherwise.
//! - `response_item`: `message` (user / assistant / developer→system),
//!   `reasoning` (→ thinking), `function_call` / `custom_tool_call` (→ tool_use),
//!   `function_call_output` / `custom_tool_call_output` (→ tool_result),
//!   `web_search_call` (→ an `Other` block). Consecutive assistant-side items
//!   (reasoning, message, calls) form one assistant turn; consecutive outputs
//!   one user turn of tool results, as in thClaws and Claude.
//! - `event_msg/token_count` → [`Usage`]: the difference between successive
//!   `total_token_usage` values (the cumulative total is authoritative; Codex
//!   repeats the same `token_count` after each request, so summing
//!   `last_token_usage` would double count). The sum of all records equals
//!   the final `total_token_usage`.
//! - `event_msg/user_message`, `agent_message`, `agent_reasoning` repeat text
//!   already in `response_item`s: counted in `not_imported`, not imported.
//! - `compacted{message, replacement_history}` → [`Compaction`].
//! - The legacy bare format (no envelope; `record_type:"state"` lines) is read too.

use super::events::{Event, EventSink, Meta, Thread};
use super::lines::{json_time_ms, parse_iso8601_ms, Line, LineReader};
use super::model::{Block, Compaction, OtherLine, ReadReport, Role, SourceFormat, Turn, Usage};
use super::ReadOptions;
use crate::Result;
use serde_json::{Map, Value};
use std::io::BufRead;

#[derive(Default, Clone, Copy, PartialEq)]
struct Totals {
    input: u64,
    cached: u64,
    output: u64,
}

#[derive(PartialEq, Clone, Copy)]
enum Side {
    Assistant,
    ToolOutput,
}

/// A held `agent_message`: text, timestamp, line, offset of the line, phase.
type AgentEvent = (String, Option<i64>, u64, u64, Option<Value>);

struct State {
    model: Option<String>,
    provider: Option<String>,
    prev_total: Option<Totals>,
    pending: Option<(Side, Turn)>,
    /// Byte offset where the pending message's first line starts.
    pending_offset: u64,
    /// A turn_context was read (its cwd and time were sent).
    context_seen: bool,
    /// A `session_meta` was read: a later one is a fork's copy of its parent's.
    meta_seen: bool,
    /// `event_msg/agent_message` lines not yet matched: `(text, ts, line,
    /// offset of the line, phase)`. The next `response_item` assistant
    /// message is the same reply (Codex writes both); any other item or a
    /// task boundary makes each one a reply of its own (a forked rollout's
    /// parent replies exist only as events).
    agent_events: Vec<AgentEvent>,
    /// Assistant text messages (`response_item`) of the current task with
    /// no event of theirs yet: an `agent_message` written after its item
    /// (other Codex versions) is that item's copy.
    unmatched_items: usize,
}

/// Stream a Codex rollout into `sink`.
///
/// Lines below `opts.emit_from_line` are read for state (model, token totals)
/// but emit nothing. Errors: I/O and sink errors only; bad lines are reported.
pub fn read_codex<R: BufRead>(input: R, opts: &ReadOptions, sink: &mut dyn EventSink) -> Result<ReadReport> {
    let mut report = ReadReport { format: Some(SourceFormat::Codex), ..Default::default() };
    let mut lines = LineReader::new(input, opts.max_line_bytes());
    let main = Thread::Main;
    let mut st = State { model: None, provider: None, prev_total: None, pending: None, pending_offset: 0, context_seen: false, meta_seen: false, agent_events: Vec::new(), unmatched_items: 0 };
    loop {
        // Safe up to the line before a message still collecting its items
        // (or an agent_message event not yet matched).
        let held = st.pending.as_ref().map(|(_, t)| (t.source_line, st.pending_offset)).into_iter().chain(st.agent_events.first().map(|e| (e.2, e.3))).min();
        match held {
            Some((line, offset)) => sink.safe_point(line - 1, offset)?,
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
        let ts = json_time_ms(obj.get("timestamp"));
        let (ty, payload) = match obj.remove("payload") {
            Some(Value::Object(p)) => (obj.get("type").and_then(Value::as_str).unwrap_or("").to_owned(), p),
            other => {
                if let Some(o) = other {
                    obj.insert("payload".into(), o);
                }
                // Legacy bare format.
                if obj.contains_key("record_type") {
                    if emit {
                        report.kind("record_type");
                        report.not_imported("record_type");
                    }
                    continue;
                }
                let t = obj.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
                if t.is_empty() && obj.contains_key("id") && obj.contains_key("timestamp") {
                    ("session_meta".to_owned(), std::mem::take(&mut obj))
                } else if is_response_item(&t) {
                    ("response_item".to_owned(), std::mem::take(&mut obj))
                } else {
                    (t, std::mem::take(&mut obj))
                }
            }
        };
        let sub = payload.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
        let kind = match ty.as_str() {
            "response_item" | "event_msg" => format!("{ty}/{sub}"),
            "" => "<no type>".to_owned(),
            _ => ty.clone(),
        };
        // A line already imported is counted once, in `already_imported_lines`.
        if emit {
            report.kind(&kind);
        }
        match ty.as_str() {
            "session_meta" if st.meta_seen => {
                // A forked rollout holds its parent's session_meta after its
                // own: the parent's facts, kept raw (the fork link is the
                // first one's `forked_from_id`).
                if !emit {
                    continue;
                }
                resolve_agent_events(&mut st, None, sink, &mut report)?;
                flush(&mut st, sink)?;
                report.kept_raw(&kind);
                let mut raw = obj;
                raw.insert("payload".into(), Value::Object(payload));
                sink.event(&main, Event::Other(OtherLine { line: n, kind, raw: Value::Object(raw) }))?;
            }
            "session_meta" => {
                st.meta_seen = true;
                let mut p = payload;
                st.provider = p.get("model_provider").and_then(Value::as_str).map(str::to_owned).or(st.provider.take());
                let meta = Meta {
                    id: take_str(&mut p, "id"),
                    model: None,
                    provider: st.provider.clone(),
                    cwd: take_str(&mut p, "cwd"),
                    created_at_ms: take_str(&mut p, "timestamp").and_then(|s| parse_iso8601_ms(&s)).or(ts),
                    extra: p,
                };
                // Session facts are sent even for lines already imported: a
                // resumed import needs them for sessions it looks up or creates.
                sink.event(&main, Event::Meta(meta))?;
            }
            "turn_context" => {
                let mut meta = Meta::default();
                if let Some(m) = payload.get("model").and_then(Value::as_str) {
                    if st.model.as_deref() != Some(m) {
                        st.model = Some(m.to_owned());
                        meta.model = st.model.clone();
                    }
                }
                if !st.context_seen {
                    // A rollout excerpt may start without its session_meta: the
                    // first turn_context still gives the workspace and a time
                    // (the sink keeps the first cwd and time it gets).
                    st.context_seen = true;
                    meta.cwd = payload.get("cwd").and_then(Value::as_str).filter(|c| !c.is_empty()).map(str::to_owned);
                    meta.created_at_ms = ts;
                }
                if meta != Meta::default() {
                    sink.event(&main, Event::Meta(meta))?;
                }
                if emit {
                    report.not_imported(&kind);
                }
            }
            "response_item" => {
                if !emit {
                    continue;
                }
                let item = response_item(payload, ts, n);
                let assistant_message = matches!(&item, Item::Blocks(Side::Assistant, b, _) if b.iter().all(|b| matches!(b, Block::Text { .. })) && !b.is_empty());
                resolve_agent_events(&mut st, Some(assistant_message), sink, &mut report)?;
                match item {
                    Item::Blocks(side, blocks, extra) => {
                        let merge = matches!(&st.pending, Some((s, _)) if *s == side);
                        if !merge {
                            flush(&mut st, sink)?;
                            let role = if side == Side::Assistant { Role::Assistant } else { Role::User };
                            let mut t = Turn::new(role, Vec::new(), ts, n);
                            if side == Side::Assistant {
                                t.model = st.model.clone();
                                t.provider = st.provider.clone();
                            }
                            st.pending = Some((side, t));
                            st.pending_offset = lines.line_start;
                        }
                        let t = &mut st.pending.as_mut().expect("set above").1;
                        t.blocks.extend(blocks);
                        for (k, v) in extra {
                            t.extra.entry(k).or_insert(v);
                        }
                    }
                    Item::Turn(t) => {
                        flush(&mut st, sink)?;
                        sink.event(&main, Event::Turn(t))?;
                    }
                    Item::Other(raw) => {
                        flush(&mut st, sink)?;
                        report.kept_raw(&kind);
                        sink.event(&main, Event::Other(OtherLine { line: n, kind: kind.clone(), raw: Value::Object(raw) }))?;
                    }
                }
            }
            "event_msg" => match sub.as_str() {
                "agent_message" if emit && st.unmatched_items > 0 => {
                    st.unmatched_items -= 1;
                    report.not_imported(&kind);
                }
                "agent_message" if emit => {
                    let text = payload.get("message").and_then(Value::as_str).unwrap_or("").to_owned();
                    st.agent_events.push((text, ts, n, lines.line_start, payload.get("phase").cloned()));
                }
                "task_started" | "task_complete" | "turn_aborted" if emit => {
                    // A task boundary ends the turn being collected: a grown
                    // file then adds what a fresh import of it would hold.
                    resolve_agent_events(&mut st, None, sink, &mut report)?;
                    flush(&mut st, sink)?;
                    report.not_imported(&kind);
                }
                "token_count" => {
                    let total = payload.get("info").and_then(|i| i.get("total_token_usage")).map(totals);
                    match total {
                        Some(t) if Some(t) != st.prev_total => {
                            let prev = st.prev_total.unwrap_or_default();
                            let grew = t.input >= prev.input && t.output >= prev.output && t.cached >= prev.cached;
                            let d = if grew {
                                Totals { input: t.input - prev.input, cached: t.cached - prev.cached, output: t.output - prev.output }
                            } else {
                                // The total went down (a reset): take the last request's own figures.
                                payload.get("info").and_then(|i| i.get("last_token_usage")).map(totals).unwrap_or(t)
                            };
                            st.prev_total = Some(t);
                            if emit {
                                sink.event(
                                    &main,
                                    Event::Usage(Usage {
                                        input: d.input,
                                        output: d.output,
                                        cached: d.cached,
                                        model: st.model.clone(),
                                        source_line: n,
                                        timestamp_ms: ts,
                                        // The event is identified by the cumulative total it reports.
                                        record_id: Some(format!("codex-total\0{}\0{}\0{}", t.input, t.output, t.cached)),
                                        partials: Vec::new(),
                                    }),
                                )?;
                            }
                        }
                        _ => {
                            if emit {
                                report.not_imported(&kind);
                            }
                        }
                    }
                }
                _ => {
                    if emit {
                        report.not_imported(&kind);
                    }
                }
            },
            "compacted" => {
                if !emit {
                    continue;
                }
                resolve_agent_events(&mut st, None, sink, &mut report)?;
                flush(&mut st, sink)?;
                let mut p = payload;
                let summary = take_str(&mut p, "message").filter(|m| !m.is_empty());
                let mut messages = Vec::new();
                if let Some(Value::Array(items)) = p.remove("replacement_history") {
                    for it in items {
                        let Value::Object(it) = it else { continue };
                        match response_item(it, ts, n) {
                            Item::Turn(t) => messages.push(t),
                            Item::Blocks(side, b, extra) => {
                                let role = if side == Side::Assistant { Role::Assistant } else { Role::User };
                                let mut t = Turn::new(role, b, ts, n);
                                t.extra = extra;
                                messages.push(t)
                            }
                            Item::Other(raw) => messages.push(Turn::new(Role::System, vec![Block::Other(Value::Object(raw))], ts, n)),
                        }
                    }
                }
                let raw = (!p.is_empty()).then_some(Value::Object(p));
                sink.event(&main, Event::Compaction(Compaction { at_turn: 0, source_line: n, timestamp_ms: ts, summary, replaces_count: None, messages, raw }))?;
            }
            _ => {
                if !emit {
                    continue;
                }
                resolve_agent_events(&mut st, None, sink, &mut report)?;
                flush(&mut st, sink)?;
                report.kept_raw(&kind);
                let mut raw = obj;
                raw.insert("payload".into(), Value::Object(payload));
                sink.event(&main, Event::Other(OtherLine { line: n, kind, raw: Value::Object(raw) }))?;
            }
        }
    }
    resolve_agent_events(&mut st, None, sink, &mut report)?;
    flush(&mut st, sink)?;
    Ok(report)
}

/// Settle the held `agent_message` events at a `response_item` (`Some(true)`
/// for an assistant text message, `Some(false)` for any other item) or a
/// boundary (`None`): an assistant message is the first event's reply
/// itself (that event is dropped, counted as before); anything else makes
/// every held event a reply of its own, added to the assistant turn being
/// collected as a text block (`extra.codex_event = "agent_message"`).
fn resolve_agent_events(st: &mut State, item: Option<bool>, sink: &mut dyn EventSink, report: &mut ReadReport) -> Result<()> {
    if item.is_none() {
        // A task boundary ends what an event may still copy.
        st.unmatched_items = 0;
    }
    if st.agent_events.is_empty() {
        if item == Some(true) {
            st.unmatched_items += 1;
        }
        return Ok(());
    }
    if item == Some(true) {
        st.agent_events.remove(0);
        report.not_imported("event_msg/agent_message");
        return Ok(());
    }
    for (text, ts, line, offset, phase) in std::mem::take(&mut st.agent_events) {
        if !matches!(&st.pending, Some((Side::Assistant, _))) {
            flush(st, sink)?;
            let mut t = Turn::new(Role::Assistant, Vec::new(), ts, line);
            t.model = st.model.clone();
            t.provider = st.provider.clone();
            t.extra.insert("codex_event".into(), "agent_message".into());
            st.pending = Some((Side::Assistant, t));
            st.pending_offset = offset;
        }
        let t = &mut st.pending.as_mut().expect("set above").1;
        t.blocks.push(Block::Text { text });
        if let Some(ph) = phase.filter(|p| !p.is_null()) {
            t.extra.entry("phase").or_insert(ph);
        }
    }
    Ok(())
}

fn is_response_item(t: &str) -> bool {
    matches!(
        t,
        "message"
            | "reasoning"
            | "function_call"
            | "function_call_output"
            | "custom_tool_call"
            | "custom_tool_call_output"
            | "local_shell_call"
            | "web_search_call"
    )
}

fn flush(st: &mut State, sink: &mut dyn EventSink) -> Result<()> {
    if let Some((_, t)) = st.pending.take() {
        sink.event(&Thread::Main, Event::Turn(t))?;
    }
    Ok(())
}

fn take_str(m: &mut Map<String, Value>, k: &str) -> Option<String> {
    match m.remove(k) {
        Some(Value::String(s)) => Some(s),
        Some(other) => {
            m.insert(k.to_owned(), other);
            None
        }
        None => None,
    }
}

fn totals(v: &Value) -> Totals {
    let g = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
    Totals { input: g("input_tokens"), cached: g("cached_input_tokens"), output: g("output_tokens") }
}

enum Item {
    /// Blocks for the pending assistant-side or tool-output turn, with turn extras.
    Blocks(Side, Vec<Block>, Map<String, Value>),
    /// A whole turn (user / developer message).
    Turn(Turn),
    /// Unknown response item, kept raw.
    Other(Map<String, Value>),
}

fn response_item(mut p: Map<String, Value>, ts: Option<i64>, n: u64) -> Item {
    let sub = p.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
    match sub.as_str() {
        "message" => {
            let role_s = p.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
            let Some(role) = Role::parse(&role_s) else { return Item::Other(p) };
            let blocks: Vec<Block> = match p.remove("content") {
                Some(Value::Array(a)) => a.into_iter().map(content_block).collect(),
                Some(Value::String(text)) => vec![Block::Text { text }],
                _ => Vec::new(),
            };
            let mut extra = Map::new();
            if role_s == "developer" {
                extra.insert("codex_role".into(), "developer".into());
            }
            if let Some(ph) = p.remove("phase") {
                extra.insert("phase".into(), ph);
            }
            if role == Role::Assistant {
                return Item::Blocks(Side::Assistant, blocks, extra);
            }
            let mut t = Turn::new(role, blocks, ts, n);
            t.extra = extra;
            Item::Turn(t)
        }
        "reasoning" => {
            let mut parts: Vec<String> = Vec::new();
            for key in ["summary", "content"] {
                if let Some(Value::Array(a)) = p.get(key) {
                    parts.extend(a.iter().filter_map(|x| x.get("text").and_then(Value::as_str)).map(str::to_owned));
                }
            }
            let signature = take_str(&mut p, "encrypted_content");
            Item::Blocks(Side::Assistant, vec![Block::Thinking { text: parts.join("\n\n"), signature }], Map::new())
        }
        "function_call" | "custom_tool_call" | "local_shell_call" => {
            let id = p.get("call_id").or_else(|| p.get("id")).and_then(Value::as_str).unwrap_or("").to_owned();
            let name = p.get("name").and_then(Value::as_str).unwrap_or(if sub == "local_shell_call" { "local_shell" } else { "" }).to_owned();
            let input = match p.remove(if sub == "function_call" { "arguments" } else if sub == "local_shell_call" { "action" } else { "input" }) {
                Some(Value::String(s)) if sub == "function_call" => serde_json::from_str::<Value>(&s).ok().filter(Value::is_object).unwrap_or(Value::String(s)),
                Some(v) => v,
                None => Value::Null,
            };
            Item::Blocks(Side::Assistant, vec![Block::ToolUse { id, name, input, thought_signature: None }], Map::new())
        }
        "function_call_output" | "custom_tool_call_output" => {
            let tool_use_id = p.get("call_id").and_then(Value::as_str).unwrap_or("").to_owned();
            let content = p.remove("output").unwrap_or(Value::String(String::new()));
            Item::Blocks(Side::ToolOutput, vec![Block::ToolResult { tool_use_id, content, is_error: false }], Map::new())
        }
        "web_search_call" => Item::Blocks(Side::Assistant, vec![Block::Other(Value::Object(p))], Map::new()),
        _ => Item::Other(p),
    }
}

fn content_block(v: Value) -> Block {
    let Value::Object(mut m) = v else { return Block::Other(v) };
    match m.get("type").and_then(Value::as_str) {
        Some("input_text" | "output_text" | "text") => match m.remove("text") {
            Some(Value::String(text)) => Block::Text { text },
            _ => Block::Other(Value::Object(m)),
        },
        Some("input_image") => match m.remove("image_url") {
            Some(url) => Block::Image { source: serde_json::json!({"type": "url", "url": url}) },
            None => Block::Other(Value::Object(m)),
        },
        _ => Block::Other(Value::Object(m)),
    }
}

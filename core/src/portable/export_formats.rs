//! The export formats a stored session can be written in (issue 28 item 7;
//! DESIGN.md "Portable sessions": "Exports: thClaws JSONL (default),
//! Markdown for people (redacted), the neutral model as JSON"): the one
//! [`ExportFormat`] every host and the CLI choose from, [`export_session`]
//! that writes any of them, and the Markdown and JSON writers.
//!
//! Redaction (DESIGN.md "Privacy"): the Markdown export redacts unless the
//! caller says not to, whatever the store's policy; thClaws JSONL and JSON
//! follow the policy (exact with the default `off`). [`redacts_by_default`]
//! says which.

use std::io::Write;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::export::{export_thclaws_redacting, load_portable_redacting, policy_redacts_exports, write_file_atomically};
use super::WriteReport;
use super::model::{Block, PortableSession, Role, SnapshotKind, Turn};
use crate::privacy::RedactionReport;
use crate::store::SessionStore;
use crate::{Error, Result};

/// What a session is exported as: thClaws JSONL (the default, what thClaws
/// and `import` read), Markdown for people, or the neutral model as one
/// JSON document.
///
/// Names (`as_str`, serde, the CLI's `--format`): `thclaws`, `markdown`,
/// `json`; [`ExportFormat::parse`] also takes `md` and `jsonl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum ExportFormat {
    /// thClaws JSONL (seed 002; what real thClaws reads), the default.
    ///
    /// thClaws JSONL (seed 002, in the shapes real thClaws reads: DESIGN.md
    /// "Portable sessions"); redacted only under the store's policy.
    #[default]
    #[serde(rename = "thclaws")]
    Thclaws,
    /// A Markdown transcript to read and share (secrets redacted).
    ///
    /// A Markdown transcript to read and share ([`write_markdown`]);
    /// redacted unless the caller turns it off, whatever the policy.
    #[serde(rename = "markdown")]
    Markdown,
    /// The neutral model as one pretty-printed JSON document.
    ///
    /// The neutral model as one JSON document ([`session_json`]),
    /// pretty-printed; redacted only under the store's policy.
    #[serde(rename = "json")]
    Json,
}

impl ExportFormat {
    /// `thclaws`, `markdown` or `json`.
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Thclaws => "thclaws",
            ExportFormat::Markdown => "markdown",
            ExportFormat::Json => "json",
        }
    }

    /// Parse `thclaws` (or `jsonl`), `markdown` (or `md`) or `json`, what
    /// hosts and the CLI pass. Errors: `InvalidInput` naming the choices.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "thclaws" | "jsonl" => Ok(ExportFormat::Thclaws),
            "markdown" | "md" => Ok(ExportFormat::Markdown),
            "json" => Ok(ExportFormat::Json),
            _ => Err(Error::invalid("export format must be one of thclaws, markdown (md), json")),
        }
    }
}

/// Does an export in `format` redact when the caller does not say? True for
/// [`ExportFormat::Markdown`] always, and for the others when the store's
/// policy is `on-export` or `on-write` ([`policy_redacts_exports`]).
pub fn redacts_by_default(store: &SessionStore, format: ExportFormat) -> bool {
    format == ExportFormat::Markdown || policy_redacts_exports(store)
}

/// Write stored session `session_id` to `out` as `format`, replacing every
/// secret by its marker (`[REDACTED:<rule>:<8 hex>]`) when `redact` (`None`:
/// [`redacts_by_default`]). Returns the bytes written and the secrets
/// replaced per rule.
///
/// thClaws JSONL is streamed page by page ([`super::export_thclaws_with`]);
/// Markdown and JSON read the whole session first (a document for people or
/// one JSON value: about twice the session's size in memory).
/// Errors: `NotFound`, `AuthenticationFailed`, store errors; `Io` from `out`.
pub fn export_session<W: Write>(store: &SessionStore, session_id: &str, format: ExportFormat, redact: Option<bool>, mut out: W) -> Result<(u64, RedactionReport)> {
    let redact = redact.unwrap_or_else(|| redacts_by_default(store, format));
    let written = match format {
        ExportFormat::Thclaws => export_thclaws_redacting(store, session_id, &mut out, redact).map(|(w, r)| (w.bytes, r))?,
        ExportFormat::Markdown | ExportFormat::Json => {
            let (s, rep) = load_portable_redacting(store, session_id, redact)?;
            let text = match format {
                ExportFormat::Markdown => write_markdown(&s),
                _ => json_text(&s),
            };
            out.write_all(text.as_bytes()).map_err(|e| Error::io("writing the export", e))?;
            (text.len() as u64, rep)
        }
    };
    out.flush().map_err(|e| Error::io("writing the export", e))?;
    Ok(written)
}

/// A stored session as text in `format`: `thclaws` (the default: JSONL
/// that real thClaws reads), `markdown` (a transcript to share, secrets
/// always redacted) or `json` (the neutral model as one pretty-printed
/// document). thClaws and JSON are redacted only under the store's
/// redaction policy (`on-export`, `on-write`).
///
/// [`export_session`] into a string (every host's `export_thclaws`), redacting
/// by default ([`redacts_by_default`]); `None` is thClaws JSONL. Errors: as
/// [`export_session`].
pub fn export_text(store: &SessionStore, session_id: &str, format: Option<ExportFormat>) -> Result<String> {
    let mut out = Vec::new();
    export_session(store, session_id, format.unwrap_or_default(), None, &mut out)?;
    String::from_utf8(out).map_err(|_| Error::corrupt("export produced invalid UTF-8"))
}

/// Export a stored session in `format` (as `export_thclaws`; default
/// thClaws JSONL, streamed) into the file at `path` (written to a private
/// 0600 temporary file beside it, renamed over it once complete: a failed
/// export leaves the old file); returns what was written.
///
/// [`export_session`] into the file at `path`, redacting by default
/// ([`redacts_by_default`]; `None` is thClaws JSONL), as
/// [`super::export_thclaws_to_file`] does; the temporary file is 0600 on Unix
/// (it is plaintext). What was written: for thClaws JSONL its lines, bytes and
/// turns; for Markdown and JSON the text's lines (`\n`), bytes, and the turns
/// in it (every turn for JSON; those with a block, each under its heading, for
/// Markdown).
///
/// Errors: as [`export_session`], `Io` creating, writing or renaming the file.
pub fn export_file(store: &SessionStore, session_id: &str, path: &std::path::Path, format: Option<ExportFormat>) -> Result<WriteReport> {
    let format = format.unwrap_or_default();
    if format == ExportFormat::Thclaws {
        let redact = redacts_by_default(store, format);
        return write_file_atomically(path, |out| Ok(export_thclaws_redacting(store, session_id, out, redact)?.0));
    }
    let (s, _) = load_portable_redacting(store, session_id, redacts_by_default(store, format))?;
    let (text, turns) = match format {
        ExportFormat::Markdown => (write_markdown(&s), s.turns.iter().filter(|t| !t.blocks.is_empty()).count()),
        _ => (json_text(&s), s.turns.len()),
    };
    write_file_atomically(path, |out| {
        out.write_all(text.as_bytes()).map_err(|e| Error::io("writing the export file", e))?;
        Ok(WriteReport { lines: text.matches('\n').count() as u64, bytes: text.len() as u64, turns: turns as u64 })
    })
}

/// The session as one JSON document, the neutral model (`id`, `title`,
/// `model`, `provider`, `cwd`, `created_at_ms` (ms since the Unix epoch),
/// `turns`, `snapshots`, `compactions`, `provider_state`; every key always
/// present, `null` when unknown; objects' keys in alphabetical order):
///
/// - a turn: `{seq, role, timestamp_ms, model, provider, extra, blocks}`,
///   `seq` the stored transcript seq, `role` `user|assistant|system|tool`,
///   `blocks` in the thClaws/Anthropic JSON form ([`Block::to_json`]),
///   `extra` the source's provenance ({} when none);
/// - a snapshot: `{kind: "plan"|"goal", at_seq, timestamp_ms, value}`;
/// - a compaction: `{at_seq, timestamp_ms, summary, replaces_count, messages:
///   [{role, blocks}]}`;
/// - `provider_state`: the provider session id text, or `null`.
///
/// Its `id`, `title`, `model`, `provider`, `cwd`, `created_at_ms` and each
/// turn's `role`, `blocks`, `timestamp_ms`, `model`, `provider` are the
/// shape [`super::write_thclaws_json`] takes, so a JSON export converts
/// back to thClaws JSONL, which `import` reads.
pub fn session_json(s: &PortableSession) -> Value {
    let turns: Vec<Value> = s
        .turns
        .iter()
        .map(|t| {
            json!({
                "seq": t.source_line,
                "role": t.role.as_str(),
                "timestamp_ms": t.timestamp_ms,
                "model": t.model,
                "provider": t.provider,
                "extra": Value::Object(t.extra.clone()),
                "blocks": t.blocks.iter().map(Block::to_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let snapshots: Vec<Value> = s
        .snapshots
        .iter()
        .map(|x| {
            json!({
                "kind": match x.kind { SnapshotKind::Plan => "plan", SnapshotKind::Goal => "goal" },
                "at_seq": x.at_turn,
                "timestamp_ms": x.timestamp_ms,
                "value": x.value,
            })
        })
        .collect();
    let compactions: Vec<Value> = s
        .compactions
        .iter()
        .map(|c| {
            json!({
                "at_seq": c.at_turn,
                "timestamp_ms": c.timestamp_ms,
                "summary": c.summary,
                "replaces_count": c.replaces_count,
                "messages": c.messages.iter().map(|m| json!({"role": m.role.as_str(), "blocks": m.blocks.iter().map(Block::to_json).collect::<Vec<_>>()})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "id": s.id,
        "title": s.title,
        "model": s.model,
        "provider": s.provider,
        "cwd": s.cwd,
        "created_at_ms": s.created_at_ms,
        "turns": turns,
        "snapshots": snapshots,
        "compactions": compactions,
        "provider_state": s.provider_state.clone().flatten(),
    })
}

/// [`session_json`] pretty-printed (two-space indent) with a final newline:
/// a document people open and diff; compact JSON would be about a third
/// smaller.
fn json_text(s: &PortableSession) -> String {
    let mut text = serde_json::to_string_pretty(&session_json(s)).expect("a JSON value serializes");
    text.push('\n');
    text
}

/// The session as a Markdown transcript (CommonMark with the HTML
/// `<details>` element GitHub, GitLab and most viewers fold):
///
/// ```text
/// # <title, or the id; HTML-escaped>
///
/// - session: `<id>`
/// - model: <model>            (when known)
/// - created: <RFC 3339 UTC>   (when known)
///
/// ## <Role> · <RFC 3339 UTC time> · #<seq>   (one per turn; no time when unknown)
/// ```
///
/// then each block: text as written (it is Markdown already, so its code
/// blocks stay code blocks); thinking folded in `<details><summary>Thinking</summary>`;
/// a tool call folded under its tool name with its input as a `json` code
/// block; a tool result folded under `<name> output` (`<name> error` when
/// the tool failed; the name of the call it answers, `tool` when unknown)
/// with its text in a code block; an image as `*(image)*`; an unknown block
/// folded under its `type` as a `json` code block. A turn whose blocks are
/// all tool results is headed `Tool` (thClaws and Claude store them as user
/// turns). Every code block's fence is one backtick longer than the longest
/// backtick run inside it (at least three), so no content closes it early;
/// summaries are HTML-escaped. Compactions and snapshots are left out (the
/// JSON export has them). Empty turns (no block) get no heading. The text
/// ends with one newline.
pub fn write_markdown(s: &PortableSession) -> String {
    let mut md = String::new();
    md.push_str(&format!("# {}\n\n", html_escape(&one_line(s.title.as_deref().unwrap_or(&s.id)))));
    md.push_str(&format!("- session: `{}`\n", s.id));
    if let Some(m) = &s.model {
        md.push_str(&format!("- model: {m}\n"));
    }
    if let Some(t) = s.created_at_ms {
        md.push_str(&format!("- created: {}\n", rfc3339(t)));
    }
    md.push('\n');
    let mut tool_names: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for t in &s.turns {
        if t.blocks.is_empty() {
            continue;
        }
        md.push_str(&format!("## {}", heading_role(t)));
        if let Some(ms) = t.timestamp_ms {
            md.push_str(&format!(" · {}", rfc3339(ms)));
        }
        md.push_str(&format!(" · #{}\n\n", t.source_line));
        for b in &t.blocks {
            match b {
                Block::Text { text } => {
                    md.push_str(text.trim_end_matches('\n'));
                    md.push_str("\n\n");
                }
                Block::Thinking { text, .. } => folded(&mut md, "Thinking", text, ""),
                Block::ToolUse { id, name, input, .. } => {
                    tool_names.insert(id, name);
                    let body = serde_json::to_string_pretty(input).expect("a JSON value serializes");
                    folded(&mut md, name, &body, "json");
                }
                Block::ToolResult { tool_use_id, content, is_error } => {
                    let name = tool_names.get(tool_use_id.as_str()).copied().unwrap_or("tool");
                    let summary = format!("{name} {}", if *is_error { "error" } else { "output" });
                    folded(&mut md, &summary, &result_text(content), "");
                }
                Block::Image { .. } => md.push_str("*(image)*\n\n"),
                Block::Other(v) => {
                    let kind = v.get("type").and_then(Value::as_str).unwrap_or("block");
                    folded(&mut md, kind, &serde_json::to_string_pretty(v).expect("a JSON value serializes"), "json");
                }
            }
        }
    }
    // One final newline, not a blank line.
    let end = md.trim_end_matches('\n').len();
    md.truncate(end);
    md.push('\n');
    md
}

/// `User`, `Assistant`, `System`, `Tool`; `Tool` too for a turn of tool results only.
fn heading_role(t: &Turn) -> &'static str {
    if t.blocks.iter().all(|b| matches!(b, Block::ToolResult { .. })) {
        return "Tool";
    }
    match t.role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
        Role::Tool => "Tool",
    }
}

/// `<details><summary>summary</summary>` + a code block of `body` + `</details>`.
fn folded(md: &mut String, summary: &str, body: &str, lang: &str) {
    md.push_str(&format!("<details><summary>{}</summary>\n\n", html_escape(&one_line(summary))));
    md.push_str(&code_block(body, lang));
    md.push_str("</details>\n\n");
}

/// A fenced code block whose fence is longer than any backtick run in `body`
/// (at least 3), so the body cannot close it (CommonMark 0.31, 4.5).
pub(crate) fn code_block(body: &str, lang: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    let body = body.trim_end_matches('\n');
    format!("{fence}{lang}\n{body}\n{fence}\n\n")
}

/// A tool result's text: a string as it is; an array's `text` items joined
/// by newlines (an image item as `(image)`, any other as its JSON); any
/// other value as its JSON.
fn result_text(content: &Value) -> String {
    match content {
        Value::String(x) => x.clone(),
        Value::Array(a) => a
            .iter()
            .map(|x| match (x.get("type").and_then(Value::as_str), x.get("text").and_then(Value::as_str)) {
                (_, Some(t)) => t.to_owned(),
                (Some("image"), None) => "(image)".to_owned(),
                _ => x.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        v => v.to_string(),
    }
}

/// `ms` (since the Unix epoch) as RFC 3339 UTC to the second; times before 1970 as 1970.
fn rfc3339(ms: i64) -> String {
    humantime::format_rfc3339_seconds(std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms.max(0) as u64)).to_string()
}

/// Line breaks as spaces (a heading or summary is one line).
fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// `&`, `<`, `>`, `"` as HTML entities.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

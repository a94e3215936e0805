//! `show`: a session's header and its transcript as readable turns (role,
//! time, text; tool calls and results as one line each with their names and
//! sizes; thinking folded to a marker), or with `--raw` each entry's stored
//! content as it is; `--json` the records. Entries are read and printed one
//! page at a time through one buffered writer (issue 33).

use std::collections::HashMap;
use std::io::Write;

use clap::Args;
use serde_json::Value;
use sessiondb::store::TranscriptEntry;
use sessiondb::{ContentFormat, Role, SessionRecord, SessionStore};

use crate::output::{self, Term};
use crate::{find, open_existing, Failure, Global};

/// `sessiondb show`.
#[derive(Args)]
pub struct ShowArgs {
    /// Session id, id prefix or title.
    session: String,
    /// Most entries to show; when more remain, the last line says how many and where to go on.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    limit: u64,
    /// First seq to show (default 1).
    #[arg(long, conflicts_with = "tail", value_parser = clap::value_parser!(u64).range(1..))]
    from: Option<u64>,
    /// Show the last N entries instead.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    tail: Option<u64>,
    /// Print each entry's content as stored (JSON blocks included) instead of readable turns.
    #[arg(long)]
    raw: bool,
}

/// The widest a one-line summary (tool call, tool result) is through a pipe.
const PIPE_SUMMARY_COLUMNS: usize = 100;

pub fn run(g: &Global, a: &ShowArgs) -> Result<(), Failure> {
    let s = open_existing(g)?;
    let rec = find(&s, &a.session)?;
    let count = rec.entry_count;
    // --tail N: the last min(N, --limit) entries; else --limit from --from.
    let (first, shown) = match a.tail {
        Some(n) => {
            let n = n.min(a.limit).min(count);
            (count - n + 1, n)
        }
        None => {
            let first = a.from.unwrap_or(1);
            (first, count.saturating_sub(first - 1).min(a.limit))
        }
    };
    // Entries before and after the ones shown.
    let earlier = (first - 1).min(count);
    let remaining = count.saturating_sub(first - 1).saturating_sub(shown);
    let totals = s.token_totals(&rec.id)?;
    let mut pages = Pages { id: rec.id.clone(), next: first, left: shown };
    if g.json {
        let mut entries = Vec::new();
        loop {
            let page = pages.next(&s)?;
            if page.is_empty() {
                break;
            }
            entries.extend(page);
        }
        let next_from = (remaining > 0).then_some(first + shown);
        output::print_json(&serde_json::json!({ "session": rec, "tokens": totals, "transcript": entries,
            "from": first, "shown": shown, "earlier": earlier, "remaining": remaining, "next_from": next_from }));
        return Ok(());
    }
    let term = Term::detect();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let title = crate::cmd::list::title(&s, &rec)?;
    let _ = header(&mut out, &rec, title.text(), &totals, &term);
    let mut tools = ToolNames::default();
    loop {
        let page = pages.next(&s)?;
        if page.is_empty() {
            break;
        }
        for e in &page {
            let written = if a.raw { raw_entry(&mut out, e) } else { readable_entry(&mut out, e, &term, &mut tools) };
            if written.is_err() {
                return Ok(()); // A closed stdout (`| head`) is not an error.
            }
        }
    }
    let _ = match (earlier, remaining) {
        (0, 0) => Ok(()),
        (0, n) => writeln!(out, "({n} more entries: show --from {})", first + shown),
        (b, 0) => writeln!(out, "({b} earlier entries: show --from 1)"),
        (b, n) => writeln!(out, "({b} earlier and {n} more entries: show --from {})", first + shown),
    };
    let _ = out.flush();
    Ok(())
}

/// Reads the entries shown one core page at a time, never all at once.
struct Pages {
    id: String,
    next: u64,
    left: u64,
}

impl Pages {
    fn next(&mut self, s: &SessionStore) -> Result<Vec<TranscriptEntry>, sessiondb::Error> {
        if self.left == 0 {
            return Ok(Vec::new());
        }
        let n = self.left.min(u64::from(sessiondb::store::DEFAULT_PAGE)) as u32;
        let page = s.get_transcript(&self.id, self.next, n)?;
        self.left -= page.len() as u64;
        if page.len() < n as usize {
            self.left = 0;
        }
        self.next += page.len() as u64;
        Ok(page)
    }
}

/// `ID  TITLE`, then model, entries and last activity, workspace, tokens.
fn header(out: &mut impl Write, rec: &SessionRecord, title: &str, totals: &sessiondb::TokenTotals, term: &Term) -> std::io::Result<()> {
    let first = format!("{}  {}", rec.id, output::shown(title));
    match term.width {
        Some(cols) => writeln!(out, "{}", output::truncate(&first, cols))?,
        None => writeln!(out, "{first}")?,
    }
    let rest = format!(" · {} entries · last activity {}", rec.entry_count, term.time(rec.updated_at_ms));
    let mut model = output::shown(rec.model.as_deref().unwrap_or("-"));
    if let Some(cols) = term.width {
        // A long model name (any text a session file gives) is cut so the
        // line fits, keeping the entry count and the time (at least 8 columns
        // of the name stay).
        model = output::truncate(&model, cols.saturating_sub(6 + output::width(&rest)).max(8));
    }
    let mut meta = format!("model {model}{rest}");
    for u in &rec.unreadable {
        meta.push_str(&format!(" · UNREADABLE {} ({}: {})", u.field, u.kind, u.record_id));
    }
    writeln!(out, "{meta}")?;
    out.write_all(b"workspace: ")?;
    match rec.workspace_path.as_deref() {
        Some(w) => output::write_shown_text(out, w)?,
        None => out.write_all(b"(unbound)")?,
    }
    writeln!(out)?;
    writeln!(out, "tokens: input {} · output {} · cached {}", totals.input, totals.output, totals.cached)
}

/// `--raw`: `--- #SEQ ROLE (TIME)` and the content as stored (control
/// characters escaped but newline and tab).
fn raw_entry(out: &mut impl Write, e: &TranscriptEntry) -> std::io::Result<()> {
    writeln!(out, "--- #{} {} ({})", e.seq, e.role.as_str(), output::fmt_time(e.created_at_ms))?;
    output::write_shown_text(out, &e.content)?;
    out.write_all(b"\n")
}

/// Tool names by call id, so a result names the tool it answers.
#[derive(Default)]
struct ToolNames(HashMap<String, String>);

/// A readable turn: a blank line, `#SEQ ROLE · TIME`, then its text
/// indented by two spaces (wrapped to the terminal), each tool call
/// `→ NAME · SIZE  INPUT…`, each tool result `← NAME · SIZE  OUTPUT…`
/// (`← NAME error · …` for an error), thinking as `[thinking · SIZE]`,
/// other blocks as `[TYPE · SIZE]`.
fn readable_entry(out: &mut impl Write, e: &TranscriptEntry, term: &Term, tools: &mut ToolNames) -> std::io::Result<()> {
    // On a terminal the turn's time is relative, and exact beside it (turns of one day all read `2 days ago`).
    let time = match term.width {
        Some(_) => format!("{} · {}", term.time(e.created_at_ms), output::fmt_time(e.created_at_ms)),
        None => output::fmt_time(e.created_at_ms),
    };
    writeln!(out, "\n#{} {} · {time}", e.seq, e.role.as_str())?;
    let cols = term.width;
    let summary_cols = cols.unwrap_or(PIPE_SUMMARY_COLUMNS);
    let blocks = match e.format {
        ContentFormat::Blocks => match serde_json::from_str::<Value>(&e.content) {
            Ok(Value::Array(b)) => Some(b),
            _ => None,
        },
        ContentFormat::Text => None,
    };
    let Some(blocks) = blocks else {
        if e.role == Role::Tool {
            return summary(out, &format!("← tool result · {}", output::size(e.content.len())), &e.content, summary_cols);
        }
        return output::write_block(out, &e.content, "  ", cols);
    };
    for b in &blocks {
        let kind = b.get("type").and_then(Value::as_str).unwrap_or("?");
        let size = |v: Option<&Value>| output::size(v.map_or(0, json_len));
        match kind {
            "text" => output::write_block(out, b.get("text").and_then(Value::as_str).unwrap_or(""), "  ", cols)?,
            "thinking" | "redacted_thinking" => {
                let text = b.get("thinking").or_else(|| b.get("content")).or_else(|| b.get("data"));
                writeln!(out, "  [thinking · {}]", size(text))?;
            }
            "tool_use" => {
                let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
                if let Some(id) = b.get("id").and_then(Value::as_str) {
                    tools.0.insert(id.to_string(), name.to_string());
                }
                let input = b.get("input");
                let preview = input.map(compact).unwrap_or_default();
                summary(out, &format!("→ {} · {}", output::shown(name), size(input)), &preview, summary_cols)?;
            }
            "tool_result" => {
                let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                let name = tools.0.get(id).map_or("tool", String::as_str);
                let err = if b.get("is_error").and_then(Value::as_bool) == Some(true) { " error" } else { "" };
                let content = b.get("content");
                let text = content.map(result_text).unwrap_or_default();
                summary(out, &format!("← {}{err} · {}", output::shown(name), size(content)), &text, summary_cols)?;
            }
            other => writeln!(out, "  [{} · {}]", output::shown(other), output::size(json_len(b)))?,
        }
    }
    Ok(())
}

/// One line: `  LABEL  PREVIEW…` with the preview's whitespace collapsed,
/// cut to `cols` columns.
fn summary(out: &mut impl Write, label: &str, preview: &str, cols: usize) -> std::io::Result<()> {
    let mut line = format!("  {label}");
    let mut words = String::new();
    for w in preview.split_whitespace() {
        if !words.is_empty() {
            words.push(' ');
        }
        words.push_str(w);
        if words.len() > cols * 4 {
            break;
        }
    }
    if !words.is_empty() {
        line.push_str("  ");
        line.push_str(&output::shown(&words));
    }
    writeln!(out, "{}", output::truncate(&line, cols))
}

/// Bytes of a JSON value: a string's own length, else its compact JSON's.
fn json_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len(),
        other => other.to_string().len(),
    }
}

/// A tool input as compact JSON (`{"command":"ls"}`).
fn compact(v: &Value) -> String {
    v.to_string()
}

/// A tool result's text: the string, or its `text` blocks joined.
fn result_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().filter_map(|i| i.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join(" "),
        other => other.to_string(),
    }
}

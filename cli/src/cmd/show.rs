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
    /// Benchmark only (`scripts/bench-show.py`): read and decrypt the
    /// entries `show` would print, one page at a time, and print nothing:
    /// the floor of `show` on this machine (issue 33 item 4).
    #[arg(long, hide = true)]
    read_only: bool,
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
    if a.read_only {
        while !pages.next(&s)?.is_empty() {}
        return Ok(());
    }
    if g.json {
        let next_from = (remaining > 0).then_some(first + shown);
        let head = JsonHead { session: &rec, totals: &totals, from: first, shown, earlier, remaining, next_from };
        let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        return match write_json(&mut out, &s, &head, &mut pages) {
            // A closed stdout (`| head`) is not an error.
            Ok(()) | Err(JsonError::Io) => Ok(()),
            Err(JsonError::Store(e)) => Err(e.into()),
        };
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

/// What `show --json` prints before the transcript: the fields of its one
/// object other than `transcript` (entry counts, seqs from 1).
struct JsonHead<'a> {
    session: &'a SessionRecord,
    totals: &'a sessiondb::TokenTotals,
    /// First seq shown.
    from: u64,
    /// Entries shown.
    shown: u64,
    /// Entries before `from`.
    earlier: u64,
    /// Entries after the ones shown.
    remaining: u64,
    /// Where `--from` goes on (`None`: nothing remains).
    next_from: Option<u64>,
}

/// Why [`write_json`] stopped: the writer failed (a closed pipe), or a
/// page could not be read (the store's error: `AuthenticationFailed`,
/// `Corrupt`, ...; what was written so far stays written).
enum JsonError {
    Io,
    Store(sessiondb::Error),
}

/// `show --json`: one pretty-printed object `{earlier, from, next_from,
/// remaining, session, shown, tokens, transcript}` and a newline, written
/// to `out` as the transcript is read, one core page at a time (memory
/// bounded by a page, not the session). The bytes are those of
/// `serde_json::to_writer_pretty` on the whole object built at once as a
/// `serde_json::Value` (keys in sorted order), which is what
/// `show --json` printed before it streamed (issue 33).
fn write_json(out: &mut impl Write, s: &SessionStore, head: &JsonHead<'_>, pages: &mut Pages) -> Result<(), JsonError> {
    /// The object's keys before `transcript` (sorted), pretty-printed by
    /// serde_json: small, so built whole.
    #[derive(serde::Serialize)]
    struct Head {
        earlier: u64,
        from: u64,
        next_from: Option<u64>,
        remaining: u64,
        session: serde_json::Value,
        shown: u64,
        tokens: serde_json::Value,
    }
    let io = |_| JsonError::Io;
    let h = Head {
        earlier: head.earlier,
        from: head.from,
        next_from: head.next_from,
        remaining: head.remaining,
        session: serde_json::to_value(head.session).map_err(|_| JsonError::Io)?,
        shown: head.shown,
        tokens: serde_json::to_value(head.totals).map_err(|_| JsonError::Io)?,
    };
    let mut text = serde_json::to_vec_pretty(&h).map_err(|_| JsonError::Io)?;
    // `{ ... \n}`: left open for the last key.
    text.truncate(text.len() - 2);
    out.write_all(&text).map_err(io)?;
    // The transcript as serde_json's pretty printer writes an array of
    // entry objects at this depth (array items indented by 4, their keys
    // by 6), the strings escaped as it escapes them
    // (`output::write_json_str`, the scan of which was 44% of `--json
    // show`'s instructions in serde_json's byte-at-a-time loop).
    out.write_all(b",\n  \"transcript\": [").map_err(io)?;
    let mut first = true;
    loop {
        let page = pages.next(s).map_err(JsonError::Store)?;
        if page.is_empty() {
            break;
        }
        for e in &page {
            out.write_all(if first { b"\n    {" } else { b",\n    {" }).map_err(io)?;
            first = false;
            write_json_entry(out, e).map_err(io)?;
            out.write_all(b"\n    }").map_err(io)?;
        }
    }
    out.write_all(if first { b"]\n}\n" } else { b"\n  ]\n}\n" }).map_err(io)?;
    out.flush().map_err(io)
}

/// The keys of one entry object of `show --json`, in sorted order (the
/// order serde_json writes a `serde_json::Value`'s keys in), each on its
/// own line indented by 6.
fn write_json_entry(out: &mut impl Write, e: &TranscriptEntry) -> std::io::Result<()> {
    // Destructured, so a field added to the entry fails to compile here.
    let TranscriptEntry { session_id, seq, role, format, content, created_at_ms, tokens, source_line } = e;
    // Written piece by piece: `write!` per entry was a tenth of the rest.
    let number = |out: &mut dyn Write, n: Option<u64>| match n {
        Some(n) => output::write_decimal(out, n),
        None => out.write_all(b"null"),
    };
    out.write_all(b"\n      \"content\": ")?;
    output::write_json_str(out, content)?;
    out.write_all(b",\n      \"created_at_ms\": ")?;
    if *created_at_ms < 0 {
        out.write_all(b"-")?;
    }
    output::write_decimal(out, created_at_ms.unsigned_abs())?;
    out.write_all(b",\n      \"format\": \"")?;
    out.write_all(format.as_str().as_bytes())?;
    out.write_all(b"\",\n      \"role\": \"")?;
    out.write_all(role.as_str().as_bytes())?;
    out.write_all(b"\",\n      \"seq\": ")?;
    output::write_decimal(out, *seq)?;
    out.write_all(b",\n      \"session_id\": ")?;
    output::write_json_str(out, session_id)?;
    out.write_all(b",\n      \"source_line\": ")?;
    number(out, *source_line)?;
    out.write_all(b",\n      \"tokens\": ")?;
    number(out, *tokens)
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
    out.write_all(b"--- #")?;
    output::write_decimal(out, e.seq)?;
    out.write_all(b" ")?;
    out.write_all(e.role.as_str().as_bytes())?;
    out.write_all(b" (")?;
    output::write_time(out, e.created_at_ms)?;
    out.write_all(b")\n")?;
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
    out.write_all(b"\n#")?;
    output::write_decimal(out, e.seq)?;
    out.write_all(b" ")?;
    out.write_all(e.role.as_str().as_bytes())?;
    out.write_all(" · ".as_bytes())?;
    if term.width.is_some() {
        write!(out, "{} · ", term.time(e.created_at_ms))?;
    }
    output::write_time(out, e.created_at_ms)?;
    out.write_all(b"\n")?;
    let cols = term.width;
    let summary_cols = cols.unwrap_or(PIPE_SUMMARY_COLUMNS);
    let blocks = match e.format {
        ContentFormat::Blocks => match serde_json::from_str::<Json<'_>>(&e.content) {
            Ok(Json::Arr(b)) => Some(b),
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
        let kind = b.get("type").and_then(Json::as_str).unwrap_or("?");
        let size = |v: Option<&Json<'_>>| output::size(v.map_or(0, Json::json_len));
        match kind {
            "text" => output::write_block(out, b.get("text").and_then(Json::as_str).unwrap_or(""), "  ", cols)?,
            "thinking" | "redacted_thinking" => {
                let text = b.get("thinking").or_else(|| b.get("content")).or_else(|| b.get("data"));
                writeln!(out, "  [thinking · {}]", size(text))?;
            }
            "tool_use" => {
                let name = b.get("name").and_then(Json::as_str).unwrap_or("tool");
                if let Some(id) = b.get("id").and_then(Json::as_str) {
                    tools.0.insert(id.to_string(), name.to_string());
                }
                let input = b.get("input");
                let preview = input.map(|i| i.to_value().to_string()).unwrap_or_default();
                // `json_len`, without serializing the input twice.
                let len = match input {
                    Some(Json::Str(s)) => s.len(),
                    _ => preview.len(),
                };
                summary(out, &format!("→ {} · {}", output::shown(name), output::size(len)), &preview, summary_cols)?;
            }
            "tool_result" => {
                let id = b.get("tool_use_id").and_then(Json::as_str).unwrap_or("");
                let name = tools.0.get(id).map_or("tool", String::as_str);
                let err = if b.get("is_error").and_then(Json::as_bool) == Some(true) { " error" } else { "" };
                let content = b.get("content");
                let text = content.map(Json::result_text).unwrap_or_default();
                summary(out, &format!("← {}{err} · {}", output::shown(name), size(content)), &text, summary_cols)?;
            }
            other => writeln!(out, "  [{} · {}]", output::shown(other), output::size(b.json_len()))?,
        }
    }
    Ok(())
}

/// A turn's blocks as `show` reads them: JSON parsed as
/// `serde_json::Value` would be (the same deserializer, the same errors:
/// a content `Value` rejects is rejected here, and shown as text), but
/// strings without escapes borrowed from the content and objects kept as
/// their entries in order, with no map built (parsing into `Value` was
/// ~24% of readable `show`'s instructions, issue 33 item 4). Numbers,
/// booleans and null are `Value`s; [`Json::to_value`] gives the `Value`
/// itself where its text is printed or measured.
#[derive(Debug)]
enum Json<'a> {
    Str(std::borrow::Cow<'a, str>),
    Arr(Vec<Json<'a>>),
    /// Entries in the order read, duplicate keys included (the last one
    /// counts, as in a `Value` object).
    Obj(Vec<(std::borrow::Cow<'a, str>, Json<'a>)>),
    Scalar(Value),
}

impl<'a> Json<'a> {
    /// `Value::get` of a key: an object's value for `key` (the last one).
    fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Obj(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Scalar(v) => v.as_bool(),
            _ => None,
        }
    }

    /// The `serde_json::Value` this parses as (keys sorted, the last of
    /// duplicate keys kept).
    fn to_value(&self) -> Value {
        match self {
            Json::Str(s) => Value::String(s.to_string()),
            Json::Arr(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Obj(entries) => Value::Object(entries.iter().map(|(k, v)| (k.to_string(), v.to_value())).collect()),
            Json::Scalar(v) => v.clone(),
        }
    }

    /// Bytes of the value: a string's own length, else its compact JSON's.
    fn json_len(&self) -> usize {
        match self {
            Json::Str(s) => s.len(),
            other => other.to_value().to_string().len(),
        }
    }

    /// A tool result's text: the string (borrowed), or its `text` blocks joined.
    fn result_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Json::Str(s) => std::borrow::Cow::Borrowed(s),
            Json::Arr(items) => items.iter().filter_map(|i| i.get("text").and_then(Json::as_str)).collect::<Vec<_>>().join(" ").into(),
            other => other.to_value().to_string().into(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Json<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

/// Builds a [`Json`] from what `deserialize_any` reports, as
/// `serde_json::Value`'s own visitor builds a `Value`.
struct JsonVisitor;

impl<'de> serde::de::Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Scalar(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Scalar(Value::Number(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Scalar(Value::Number(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json<'de>, E> {
        Ok(Json::Scalar(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::Str(std::borrow::Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::Str(std::borrow::Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::Str(std::borrow::Cow::Owned(v)))
    }
    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Scalar(Value::Null))
    }
    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Scalar(Value::Null))
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Json<'de>, D::Error> {
        serde::Deserialize::deserialize(d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Arr(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Json<'de>>()? {
            let Json::Str(key) = key else { return Err(serde::de::Error::custom("a key that is not a string")) };
            entries.push((key, map.next_value()?));
        }
        Ok(Json::Obj(entries))
    }
}

/// One line: `  LABEL  PREVIEW…` with the preview's whitespace collapsed,
/// cut to `cols` columns.
fn summary(out: &mut impl Write, label: &str, preview: &str, cols: usize) -> std::io::Result<()> {
    // Sized for the words kept (a little over `cols * 4` bytes): no growing.
    let mut words = String::with_capacity(preview.len().min(cols * 4 + 64));
    for w in preview.split_whitespace() {
        if !words.is_empty() {
            words.push(' ');
        }
        words.push_str(w);
        if words.len() > cols * 4 {
            break;
        }
    }
    let shown = output::shown(&words);
    let mut line = String::with_capacity(label.len() + 4 + shown.len());
    line.push_str("  ");
    line.push_str(label);
    if !words.is_empty() {
        line.push_str("  ");
        line.push_str(&shown);
    }
    writeln!(out, "{}", output::truncate(&line, cols))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sessiondb::{DataKey, KeySource, NewEntry, NewSession, OpenOptions};

    /// What `show --json` printed before it streamed: the whole object built
    /// at once, then `serde_json::to_writer_pretty` and a newline.
    fn whole_json(s: &SessionStore, head: &JsonHead<'_>, mut pages: Pages) -> Vec<u8> {
        let mut entries = Vec::new();
        loop {
            let page = pages.next(s).unwrap();
            if page.is_empty() {
                break;
            }
            entries.extend(page);
        }
        let doc = serde_json::json!({ "session": head.session, "tokens": head.totals, "transcript": entries,
            "from": head.from, "shown": head.shown, "earlier": head.earlier, "remaining": head.remaining, "next_from": head.next_from });
        let mut v = serde_json::to_vec_pretty(&doc).unwrap();
        v.push(b'\n');
        v
    }

    #[test]
    fn blocks_parse_as_serde_json_values_parse_and_fail_where_they_fail() {
        let deep = |n: usize| format!("[{}{}]", "[".repeat(n), "]".repeat(n));
        let texts = [
            r#"[{"type":"text","text":"plain"},{"type":"text","text":"esc \"q\" \\ \n \u00e9 \ud83d\ude00 \/"}]"#.to_string(),
            r#"[{"type":"tool_use","id":"t1","name":"bash","input":{"z":[1,-2,3.5,1e300,-0.0,18446744073709551615,-9223372036854775808,true,null],"a":{}}}]"#.to_string(),
            // Duplicate keys: the last one counts.
            r#"[{"type":"text","type":"thinking","thinking":"a","thinking":"bb"}]"#.to_string(),
            r#"[1, "s", null, [], {}, {"type": 7}]"#.to_string(),
            r#"{"type":"text"}"#.to_string(),
            r#""text""#.to_string(),
            // Rejected by both: out of range, lone surrogate, control character,
            // trailing text, too deep, not JSON.
            "[1e400]".to_string(),
            r#"["\ud800"]"#.to_string(),
            "[\"a\u{1}b\"]".to_string(),
            "[] x".to_string(),
            deep(126),
            deep(127),
            deep(200),
            "[{\"type\":".to_string(),
            String::new(),
        ];
        for t in &texts {
            let ours = serde_json::from_str::<Json<'_>>(t).map(|j| j.to_value());
            let theirs = serde_json::from_str::<Value>(t);
            assert_eq!(ours.is_ok(), theirs.is_ok(), "{t:?}: {ours:?} / {theirs:?}");
            if let (Ok(a), Ok(b)) = (ours, theirs) {
                assert_eq!(a, b, "{t:?}");
            }
        }
    }

    /// Readable turns of `entries` through a pipe (no terminal).
    fn readable(entries: &[(Role, ContentFormat, &str)]) -> String {
        let term = Term { width: None, now_ms: 0 };
        let mut tools = ToolNames::default();
        let mut out = Vec::new();
        for (i, (role, format, content)) in entries.iter().enumerate() {
            let e = TranscriptEntry {
                session_id: "s".into(),
                seq: i as u64 + 1,
                role: *role,
                format: *format,
                content: content.to_string(),
                created_at_ms: 1_767_225_600_000,
                tokens: None,
                source_line: None,
            };
            readable_entry(&mut out, &e, &term, &mut tools).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn readable_turns_show_text_tool_calls_results_and_other_blocks_exactly() {
        let text = readable(&[
            (
                Role::Assistant,
                ContentFormat::Blocks,
                r#"[{"type":"text","text":"Hello \"x\"\r\n\n    code\u001b[31m \u202e end\r"},{"type":"thinking","thinking":"abc"},{"type":"tool_use","id":"t1","name":"bash","input":{"b":1,"a":"é"}},{"type":"image","source":{"x":1}}]"#,
            ),
            (Role::User, ContentFormat::Blocks, r#"[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"out  put\nline"}],"is_error":true}]"#),
            (Role::User, ContentFormat::Blocks, r#"[{"type":"tool_result","tool_use_id":"t9","content":"plain\u0007 result"}, 5, {"type":"redacted_thinking","data":"xyz"}]"#),
            (Role::Tool, ContentFormat::Text, "raw\n\ttool   output"),
            (Role::User, ContentFormat::Blocks, "[1e400]"),
            (Role::System, ContentFormat::Text, "\n  \r\nsys\u{1b}"),
        ]);
        let expected = [
            "\n#1 assistant · 2026-01-01T00:00:00Z\n",
            "  Hello \"x\"\n\n      code\\u{1b}[31m \\u{202e} end\n",
            "  [thinking · 3 B]\n",
            "  → bash · 16 B  {\"a\":\"é\",\"b\":1}\n",
            "  [image · 33 B]\n",
            "\n#2 user · 2026-01-01T00:00:00Z\n",
            "  ← bash error · 41 B  out put line\n",
            "\n#3 user · 2026-01-01T00:00:00Z\n",
            "  ← tool · 13 B  plain\\u{7} result\n",
            "  [? · 1 B]\n",
            "  [thinking · 3 B]\n",
            "\n#4 tool · 2026-01-01T00:00:00Z\n",
            "  ← tool result · 18 B  raw tool output\n",
            "\n#5 user · 2026-01-01T00:00:00Z\n",
            "  [1e400]\n",
            "\n#6 system · 2026-01-01T00:00:00Z\n",
            "\n\n  sys\\u{1b}\n",
        ]
        .concat();
        assert_eq!(text, expected);
        // A huge text block (4 MB): every line written, none lost at a chunk's edge.
        let big: String = (0..100_000).map(|i| format!("line {i:06} {}\n", "w".repeat(i % 50))).collect();
        let content = serde_json::to_string(&serde_json::json!([{ "type": "text", "text": big }])).unwrap();
        let text = readable(&[(Role::Assistant, ContentFormat::Blocks, &content)]);
        let expected: String = (0..100_000).map(|i| format!("  line {i:06} {}\n", "w".repeat(i % 50))).collect::<String>() + "\n";
        assert_eq!(text, format!("\n#1 assistant · 2026-01-01T00:00:00Z\n{expected}"));
    }

    #[test]
    fn a_json_entry_is_written_as_serde_json_pretty_prints_it_whatever_its_numbers() {
        for (created_at_ms, tokens, source_line) in [(-1_i64, None, None), (i64::MIN, Some(0), Some(u64::MAX)), (i64::MAX, Some(7), None), (0, None, Some(1))] {
            let e = TranscriptEntry {
                session_id: "s \"1\"".into(),
                seq: u64::MAX,
                role: Role::Tool,
                format: ContentFormat::Blocks,
                content: "[\"\u{1}é\"]".into(),
                created_at_ms,
                tokens,
                source_line,
            };
            let mut ours = b"{\n  \"t\": [\n    {".to_vec();
            write_json_entry(&mut ours, &e).unwrap();
            ours.extend_from_slice(b"\n    }\n  ]\n}");
            let theirs = serde_json::to_vec_pretty(&serde_json::json!({ "t": [e] })).unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
        }
    }

    #[test]
    fn streamed_json_is_byte_identical_to_the_whole_object_on_a_multi_page_session() {
        let d = tempfile::tempdir().unwrap();
        let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[3; 32]).unwrap()))).unwrap();
        let rec = s
            .create_session_with(NewSession { id: Some("multi-page".into()), name: Some("Title \"q\" é".into()), model: Some("gpt-4o".into()), ..Default::default() })
            .unwrap();
        // 2,345 entries: three pages of DEFAULT_PAGE (1,000), the last one short;
        // text with escapes and non-ASCII, blocks, tool results, host token counts.
        let n = 2 * sessiondb::store::DEFAULT_PAGE as u64 + 345;
        let entries: Vec<NewEntry> = (1..=n)
            .map(|i| match i % 4 {
                0 => NewEntry::text(Role::User, format!("turn {i}: \"quoted\"\n\ttab é 日本 \u{7f} \u{202e} \\ \r\u{0}\u{8}\u{c}\u{1b}\u{1f} {}", "x".repeat(i as usize % 70))),
                1 => NewEntry {
                    format: ContentFormat::Blocks,
                    tokens: Some(i),
                    ..NewEntry::text(Role::Assistant, format!(r#"[{{"type":"text","text":"answer {i}"}},{{"type":"tool_use","id":"t{i}","name":"bash","input":{{"command":"ls {i}"}}}}]"#))
                },
                2 => NewEntry { created_at_ms: Some(1_767_225_600_000 + i as i64), source_line: Some(i), ..NewEntry::text(Role::Tool, format!("output {i}\n")) },
                _ => NewEntry::text(Role::System, String::new()),
            })
            .collect();
        s.append_entries(&rec.id, entries).unwrap();
        let rec = s.get_session(&rec.id).unwrap();
        let totals = s.token_totals(&rec.id).unwrap();
        // The whole session, a window with entries before and after it, and the tail.
        for (first, shown) in [(1, n), (999, 1_002), (n - 9, 10)] {
            let earlier = first - 1;
            let remaining = n - earlier - shown;
            let next_from = (remaining > 0).then_some(first + shown);
            let head = JsonHead { session: &rec, totals: &totals, from: first, shown, earlier, remaining, next_from };
            let pages = || Pages { id: rec.id.clone(), next: first, left: shown };
            let mut streamed = Vec::new();
            assert!(write_json(&mut streamed, &s, &head, &mut pages()).is_ok());
            let whole = whole_json(&s, &head, pages());
            assert_eq!(streamed.len(), whole.len(), "from {first}");
            assert!(streamed == whole, "from {first}: the bytes differ");
        }
        // A session without entries: `"transcript": []`.
        let empty = s.create_session_with(NewSession { id: Some("empty".into()), ..Default::default() }).unwrap();
        let totals = s.token_totals(&empty.id).unwrap();
        let head = JsonHead { session: &empty, totals: &totals, from: 1, shown: 0, earlier: 0, remaining: 0, next_from: None };
        let pages = || Pages { id: empty.id.clone(), next: 1, left: 0 };
        let mut streamed = Vec::new();
        assert!(write_json(&mut streamed, &s, &head, &mut pages()).is_ok());
        assert_eq!(String::from_utf8(streamed).unwrap(), String::from_utf8(whole_json(&s, &head, pages())).unwrap());
    }
}

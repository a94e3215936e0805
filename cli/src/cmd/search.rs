//! `sessiondb search QUERY` (issue 26; docs/search.md) and the search
//! fallback of `sessiondb resume WORDS`.
//!
//! Text output: one block per hit, the match highlighted (bold yellow) only
//! when stdout is a terminal and `NO_COLOR` is unset. `--json`: one object
//! `{"hits": [{session_id, seq, role, time, time_ms, score, field, snippet,
//! highlights: [{start, end}]}], "total": N, "next_cursor": ...}`; the
//! highlight offsets count Unicode code points of `snippet` unless
//! `--offsets utf8|utf16` says otherwise.

use std::io::{IsTerminal, Write};

use clap::{Args, ValueEnum};
use sessiondb::{ErrorKind, OffsetUnit, SearchOptions, SearchResults, SessionRecord, SessionStore};

use crate::output::fmt_time;
use crate::{open_existing, Failure, Global};

/// Offset unit names on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum Offsets {
    /// UTF-8 bytes.
    Utf8,
    /// Unicode code points (Python `str` indices).
    Codepoint,
    /// UTF-16 code units (JavaScript, Kotlin, Swift `utf16`).
    Utf16,
}

/// Arguments of `sessiondb search`.
#[derive(Args)]
pub struct SearchArgs {
    /// The query: words (all must match), "exact phrases", prefix*, -excluded, OR; filters
    /// role:, session:, model:, after:/before: (YYYY-MM-DD or 7d), in:text|tool|output|thinking|title,
    /// workspace:current|other|unbound|all. Several arguments are joined with spaces.
    #[arg(required_unless_present = "rebuild")]
    query: Vec<String>,
    /// Best hit per session (what a resume picker shows).
    #[arg(long)]
    sessions: bool,
    /// Hits per page (1..=1000).
    #[arg(long, default_value_t = 20)]
    limit: u32,
    /// The next_cursor printed by the previous page.
    #[arg(long)]
    cursor: Option<String>,
    /// Unit of the highlight offsets in --json.
    #[arg(long, value_enum, default_value = "codepoint")]
    offsets: Offsets,
    /// Rebuild the index from the store first (with a progress bar on a terminal).
    #[arg(long)]
    rebuild: bool,
}

/// Run `sessiondb search`.
pub fn run(g: &Global, a: &SearchArgs) -> Result<(), Failure> {
    let s = open_existing(g)?;
    if a.rebuild {
        let bar = (std::io::stderr().is_terminal() && !g.json).then(|| {
            let b = indicatif::ProgressBar::new(0);
            b.set_style(indicatif::ProgressStyle::with_template("indexing {bar:40} {percent}%").expect("static template"));
            b
        });
        let r = s.rebuild_search_index(&mut |done, total| {
            if let Some(b) = &bar {
                b.set_length(total);
                b.set_position(done);
            }
        })?;
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if a.query.is_empty() {
            if g.json {
                crate::print_json(&r);
            } else {
                let _ = writeln!(std::io::stdout().lock(), "indexed {} documents ({} bytes of text); index {} bytes", r.documents, r.content_bytes, r.index_bytes);
            }
            return Ok(());
        }
    }
    let query = a.query.join(" ");
    let offsets = match a.offsets {
        Offsets::Utf8 => OffsetUnit::Utf8,
        Offsets::Codepoint => OffsetUnit::CodePoint,
        Offsets::Utf16 => OffsetUnit::Utf16,
    };
    let opts = SearchOptions {
        limit: Some(a.limit),
        cursor: a.cursor.clone(),
        sessions: a.sessions,
        ..Default::default()
    };
    let r = s.search_in_units(&query, &opts, if g.json { offsets } else { OffsetUnit::Utf8 })?;
    if g.json {
        print_results_json(&r);
    } else {
        print_results(&s, &r, a.sessions);
    }
    Ok(())
}

fn print_results_json(r: &SearchResults) {
    let hits: Vec<_> = r
        .hits
        .iter()
        .map(|h| {
            serde_json::json!({
                "session_id": h.session_id,
                "seq": h.seq,
                "role": h.role,
                "time": fmt_time(h.time_ms),
                "time_ms": h.time_ms,
                "score": h.score,
                "field": h.field,
                "snippet": h.snippet,
                "highlights": h.highlights,
            })
        })
        .collect();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", serde_json::json!({ "hits": hits, "total": r.total, "next_cursor": r.next_cursor }));
}

/// The snippet with its highlights (UTF-8 byte ranges) in bold yellow when
/// `color`; control and bidi characters escaped (`crate::shown`: the core
/// blanks control characters, a bidi override would reorder the line).
fn highlighted(snippet: &str, ranges: &[sessiondb::Highlight], color: bool) -> String {
    if !color {
        return crate::shown(snippet);
    }
    let mut out = String::with_capacity(snippet.len() + ranges.len() * 12);
    let mut at = 0usize;
    for h in ranges {
        let (a, b) = (h.start as usize, h.end as usize);
        if a < at || b > snippet.len() || !snippet.is_char_boundary(a) || !snippet.is_char_boundary(b) {
            continue;
        }
        out.push_str(&crate::shown(&snippet[at..a]));
        out.push_str("\x1b[1;33m");
        out.push_str(&crate::shown(&snippet[a..b]));
        out.push_str("\x1b[0m");
        at = b;
    }
    out.push_str(&crate::shown(&snippet[at..]));
    out
}

fn print_results(s: &SessionStore, r: &SearchResults, sessions: bool) {
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = std::io::stdout().lock();
    if r.hits.is_empty() {
        let _ = writeln!(out, "no match");
        return;
    }
    for h in &r.hits {
        let title = if sessions { s.get_session(&h.session_id).ok().and_then(|x| x.name) } else { None };
        let what = match (&h.role, h.seq) {
            (_, 0) => "title".to_string(),
            (Some(role), seq) => format!("#{seq} {role}"),
            (None, seq) => format!("#{seq}"),
        };
        let _ = writeln!(
            out,
            "{}  {what}  {}{}",
            h.session_id,
            fmt_time(h.time_ms),
            title.map(|t| format!("  {}", crate::shown(&t))).unwrap_or_default()
        );
        let _ = writeln!(out, "    {}", highlighted(&h.snippet, &h.highlights, color));
    }
    let _ = writeln!(out, "{} of {} {}", r.hits.len(), r.total, if sessions { "session(s)" } else { "match(es)" });
    if let Some(c) = &r.next_cursor {
        let _ = writeln!(out, "next page: --cursor {c}");
    }
}

/// `resume WORDS` when no id, prefix or title matched: the sessions whose
/// content matches the words. One: that session. Several: `Conflict`
/// listing them (the caller prints them first). None: `None`.
pub fn resume_by_search(s: &SessionStore, words: &str) -> Result<Option<SessionRecord>, Failure> {
    let opts = SearchOptions { sessions: true, limit: Some(10), ..Default::default() };
    let r = match s.search(words, &opts) {
        Ok(r) => r,
        // Words that are no valid query (`resume "x`): not found, as before.
        Err(e) if e.kind() == ErrorKind::InvalidInput => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match r.hits.len() {
        0 => Ok(None),
        1 => Ok(Some(s.get_session(&r.hits[0].session_id)?)),
        _ => {
            let mut msg = format!("{} sessions match these words; resume one by id:", r.total);
            for h in &r.hits {
                let title = s.get_session(&h.session_id).ok().and_then(|x| x.name).map(|t| format!(" {}", crate::shown(&t))).unwrap_or_default();
                msg.push_str(&format!("\n  {}{}  {}", h.session_id, title, h.snippet));
            }
            Err(Failure::new(ErrorKind::Conflict, msg))
        }
    }
}

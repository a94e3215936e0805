//! `list` (and the rows of `sidebar`): one line per session, most recent
//! transcript activity first (a rename is not activity: the core's
//! `updated_at_ms`), titled by its name, else its first prompt.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use sessiondb::{SessionRecord, SessionStore, WorkspaceFilter};

use crate::output::{self, Term};
use crate::{cwd, open_existing, utf8_path, Failure, Global};

/// `sessiondb list`.
#[derive(Args)]
pub struct ListArgs {
    /// Sessions bound to this workspace.
    #[arg(long, group = "filter")]
    workspace: Option<PathBuf>,
    /// Sessions bound to other workspaces than the current one.
    #[arg(long, group = "filter")]
    other: bool,
    /// Sessions bound to no workspace.
    #[arg(long, group = "filter")]
    unbound: bool,
    /// Every session.
    #[arg(long, group = "filter")]
    all: bool,
    /// At most this many rows (at least 1).
    #[arg(long, default_value_t = 20, value_parser = at_least_one)]
    limit: u32,
}

/// `--limit` of `list`: 0 rows is never what was meant.
fn at_least_one(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(0) => Err("must be at least 1 (the most sessions to list)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

pub fn run(g: &Global, a: &ListArgs) -> Result<(), Failure> {
    let s = open_existing(g)?;
    let (filter, none) = if a.all {
        (WorkspaceFilter::All, "no sessions in this database".to_string())
    } else if a.unbound {
        (WorkspaceFilter::Unbound, "no sessions without a workspace (try --all)".to_string())
    } else if a.other {
        (WorkspaceFilter::Other(cwd()?), "no sessions bound to other workspaces (try --all)".to_string())
    } else {
        let ws = match &a.workspace {
            Some(w) => utf8_path(w)?,
            None => cwd()?,
        };
        let none = format!("no sessions bound to {ws} (try --all)");
        (WorkspaceFilter::Current(ws), none)
    };
    let rows = s.list_sessions_for_workspace(filter, Some(a.limit))?;
    if g.json {
        output::print_json(&json_rows(&s, &rows)?);
    } else if rows.is_empty() {
        eprintln!("{none}");
    } else {
        print_rows(&s, &rows, &Term::detect())?;
    }
    Ok(())
}

/// Where a row's title comes from.
pub enum Title {
    /// The session's name.
    Name(String),
    /// Its first user prompt (one line).
    FirstPrompt(String),
    /// Neither: `(empty session)`, `(no prompt)` or `(unreadable title)`.
    Placeholder(&'static str),
}

impl Title {
    /// The text shown.
    pub fn text(&self) -> &str {
        match self {
            Title::Name(t) | Title::FirstPrompt(t) => t,
            Title::Placeholder(p) => p,
        }
    }
    fn source(&self) -> &'static str {
        match self {
            Title::Name(_) => "name",
            Title::FirstPrompt(_) => "first_prompt",
            Title::Placeholder(_) => "none",
        }
    }
}

/// A session's title: its name, else its first prompt (read by the core
/// from the session's first entries), else a placeholder (a damaged name
/// is `(unreadable title)`; the row also flags it). Names are shown
/// on one line (whitespace collapsed).
pub fn title(s: &SessionStore, r: &SessionRecord) -> Result<Title, Failure> {
    if let Some(n) = r.name.as_deref().map(|n| n.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|n| !n.is_empty()) {
        return Ok(Title::Name(n));
    }
    if r.unreadable.iter().any(|u| u.field == "name") {
        return Ok(Title::Placeholder("(unreadable title)"));
    }
    Ok(match s.first_prompt(&r.id)? {
        Some(p) => Title::FirstPrompt(p),
        None if r.entry_count == 0 => Title::Placeholder("(empty session)"),
        None => Title::Placeholder("(no prompt)"),
    })
}

/// The `--json` rows: each session record plus `title`, `title_source`
/// (`name`, `first_prompt` or `none`), `first_prompt`, and the times in ISO
/// 8601 (`created_at`, `updated_at`).
fn json_rows(s: &SessionStore, rows: &[SessionRecord]) -> Result<Vec<serde_json::Value>, Failure> {
    rows.iter()
        .map(|r| {
            let t = title(s, r)?;
            let mut v = serde_json::to_value(r).expect("records serialize");
            v["title"] = t.text().into();
            v["title_source"] = t.source().into();
            v["first_prompt"] = match &t {
                Title::FirstPrompt(p) => p.as_str().into(),
                _ => s.first_prompt(&r.id)?.into(),
            };
            v["created_at"] = output::fmt_time(r.created_at_ms).into();
            v["updated_at"] = output::fmt_time(r.updated_at_ms).into();
            Ok(v)
        })
        .collect()
}

/// The id shown in each row: its first 13 characters, or more until no
/// other row shown shares them (imported sidechains share a session's first
/// 13, and more), so the prefix a user copies from `list` resolves
/// (`resume`, `show`).
pub fn short_ids(rows: &[SessionRecord]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            let chars: Vec<char> = r.id.chars().collect();
            let mut w = 13.min(chars.len());
            while w < chars.len() {
                let prefix: String = chars[..w].iter().collect();
                if !rows.iter().any(|o| o.id != r.id && o.id.starts_with(&prefix)) {
                    break;
                }
                w += 1;
            }
            chars[..w].iter().collect()
        })
        .collect()
}

/// Widest id column on a terminal; a longer id (a sidechain's) pushes its
/// row's other columns right instead of widening every row.
const TERM_ID_COLUMNS: usize = 24;

/// A title column narrower than this drops the model from the row.
const MIN_TITLE_COLUMNS: usize = 30;

/// Print the rows: `ID  TITLE  model · N msg · TIME`. On a terminal the
/// title column is cut to fit the width and padded so the rest lines up,
/// and times are relative; through a pipe the title is whole (` · ` after
/// it) and times are ISO 8601.
pub fn print_rows(s: &SessionStore, rows: &[SessionRecord], term: &Term) -> Result<(), Failure> {
    let ids = short_ids(rows);
    let idw = ids.iter().map(|i| output::width(i)).max().unwrap_or(0);
    let mut lines = Vec::with_capacity(rows.len());
    for (r, id) in rows.iter().zip(ids) {
        let title = output::shown(title(s, r)?.text());
        let model = output::shown(r.model.as_deref().unwrap_or("-"));
        let mut rest = format!("{} msg · {}", r.entry_count, term.time(r.updated_at_ms));
        for u in &r.unreadable {
            rest.push_str(&format!(" · UNREADABLE {} ({}: {})", u.field, u.kind, u.record_id));
        }
        lines.push((id, title, model, rest));
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match term.width {
        None => {
            for (id, title, model, rest) in &lines {
                let _ = writeln!(out, "{}  {title} · {model} · {rest}", output::pad(id, idw));
            }
        }
        Some(cols) => {
            let idw = lines.iter().map(|l| output::width(&l.0)).filter(|w| *w <= TERM_ID_COLUMNS).max().unwrap_or(TERM_ID_COLUMNS);
            let rest_w = lines.iter().map(|l| output::width(&l.3)).max().unwrap_or(0);
            let model_w = lines.iter().map(|l| output::width(&l.2)).max().unwrap_or(0);
            let fixed = idw + 2 + 2 + rest_w;
            let with_model = cols.saturating_sub(fixed + model_w + 2) >= MIN_TITLE_COLUMNS;
            let room = cols.saturating_sub(fixed + if with_model { model_w + 2 } else { 0 }).max(12);
            let title_w = lines.iter().map(|l| output::width(&l.1)).max().unwrap_or(0).min(room);
            for (id, title, model, rest) in &lines {
                // A longer id takes its columns from this row's title, so the rest still lines up.
                let tw = title_w.saturating_sub(output::width(id).saturating_sub(idw)).max(8);
                let title = output::pad(&output::truncate(title, tw), tw);
                let line = if with_model {
                    format!("{}  {title}  {}  {rest}", output::pad(id, idw), output::pad(model, model_w))
                } else {
                    format!("{}  {title}  {rest}", output::pad(id, idw))
                };
                let _ = writeln!(out, "{}", output::truncate(line.trim_end(), cols));
            }
        }
    }
    let _ = out.flush();
    Ok(())
}

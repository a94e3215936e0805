//! `import PATH...` and `import --auto` (every supported agent's standard
//! locations for the current user, as the core lists them:
//! `sessiondb::portable::standard_locations`). Files that are not sessions
//! (prompt logs, settings) are skipped and counted, never turned into
//! sessions. The progress bar (stderr, only when both stdout and stderr are
//! terminals and not under `--json`) advances as bytes are read, with an ETA.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use sessiondb::portable::{AgentLocation, FileImport, ImportReport, ImportStatus, LocationEnv, LocationKind};
use sessiondb::ErrorKind;

use crate::output::{self, shown, shown_path};
use crate::{open, Failure, Global};

/// `sessiondb import`.
#[derive(Args)]
pub struct ImportArgs {
    /// Files or directories (e.g. ~/.codex/sessions, ~/.claude/projects, .thclaws/sessions, ~/.gemini/tmp,
    /// ~/.local/share/opencode/opencode.db or its storage/ directory).
    #[arg(required_unless_present = "auto", conflicts_with = "auto")]
    paths: Vec<PathBuf>,
    /// Find every supported agent's history for the current user and import it: Codex
    /// ($CODEX_HOME or ~/.codex: sessions/, archived_sessions/), Claude Code ($CLAUDE_CONFIG_DIR
    /// or ~/.claude: projects/), thClaws (.thclaws/sessions/ of the current directory and of the
    /// projects in ~/.config/thclaws/recent_dirs.json), Gemini CLI ($GEMINI_CLI_HOME or ~:
    /// .gemini/tmp/<project>/chats/), opencode ($XDG_DATA_HOME/opencode or
    /// ~/.local/share/opencode: opencode.db, storage/). Prompt logs and settings are skipped.
    #[arg(long)]
    auto: bool,
}

pub fn run(g: &Global, a: &ImportArgs) -> Result<(), Failure> {
    let (paths, locations) = if a.auto {
        let env = LocationEnv::current().ok_or_else(|| {
            Failure::new(ErrorKind::InvalidInput, "import --auto: no home directory ($HOME is unset); name the paths to import instead")
        })?;
        let locations = sessiondb::portable::standard_locations(&env);
        // Existing session locations, and the prompt logs (so the detector
        // classifies and counts them). Settings are counted by name unread.
        let paths = locations
            .iter()
            .filter(|l| l.exists && (l.kind == LocationKind::Sessions || is_jsonl(&l.path)))
            .map(|l| l.path.clone())
            .collect::<Vec<_>>();
        (paths, Some(locations))
    } else {
        (a.paths.clone(), None)
    };
    let s = open(g)?;
    let report = if paths.is_empty() {
        ImportReport::default()
    } else {
        import_with_bar(&s, &paths, !g.json)?
    };
    match &locations {
        Some(locs) => print_auto(g, locs, &report),
        None if g.json => output::print_json(&report),
        None => print_files(&report),
    }
    outcome(if a.auto { &[] } else { &a.paths }, &report)
}

fn is_jsonl(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "jsonl")
}

/// Import with a byte-level progress bar on stderr when both stdout and
/// stderr are terminals (and `show_bar`).
fn import_with_bar(s: &sessiondb::SessionStore, paths: &[PathBuf], show_bar: bool) -> Result<ImportReport, Failure> {
    let bar = (show_bar && std::io::stderr().is_terminal() && std::io::stdout().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec} ETA {eta} {msg}")
                .expect("static template"),
        );
        b
    });
    let report = sessiondb::portable::import_paths_live(s, paths, &mut |p| {
        if let Some(b) = &bar {
            b.set_length(p.bytes_total);
            b.set_position(p.bytes_done);
            b.set_message(format!("{}/{} files", p.files_done, p.files_total));
        }
    })?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(report)
}

/// One line per file, then the totals (`import PATH...`).
fn print_files(report: &ImportReport) {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for f in &report.files {
        let fmt = f.format.map(|x| format!("{x:?}")).unwrap_or_else(|| "-".into());
        let _ = match (&f.status, &f.not_session) {
            (ImportStatus::Failed(why), _) => writeln!(out, "{} [{fmt}] Failed: {}", shown_path(&f.path), shown(why)),
            (_, Some(why)) => writeln!(out, "{} [{fmt}] Skipped: not a session ({why})", shown_path(&f.path)),
            (st, None) => writeln!(out, "{} [{fmt}] {st:?}", shown_path(&f.path)),
        };
        for si in &f.sessions {
            let _ = writeln!(
                out,
                "  {}{}: {} turns, {} tool calls, {} tool results, tokens in {} / out {} / cached {}",
                si.session_id,
                if si.created { " (new)" } else { "" },
                si.entries,
                si.tool_calls,
                si.tool_results,
                si.input_tokens,
                si.output_tokens,
                si.cached_tokens
            );
        }
        if let Some(r) = &f.read {
            if !r.skipped.is_empty() {
                let _ = writeln!(out, "  {} line(s) skipped: {:?}", r.skipped.len(), r.skipped.iter().map(|x| x.line).collect::<Vec<_>>());
            }
        }
    }
    let not_sessions = report.files.iter().filter(|f| f.not_session.is_some()).count();
    let skipped = if not_sessions > 0 { format!(", {not_sessions} skipped as not sessions") } else { String::new() };
    let _ = writeln!(out, "{} file(s), {} turn(s) imported{skipped}", report.files.len(), report.entries());
    let _ = out.flush();
}

/// Counts of the files of one location (or of all).
#[derive(Default, serde::Serialize)]
struct Tally {
    files: usize,
    imported: usize,
    up_to_date: usize,
    not_sessions: usize,
    unrecognized: usize,
    source_changed: usize,
    failed: usize,
    new_sessions: usize,
    turns: u64,
}

impl Tally {
    fn add(&mut self, f: &FileImport) {
        self.files += 1;
        match (&f.status, &f.not_session) {
            (_, Some(_)) => self.not_sessions += 1,
            (ImportStatus::Imported, _) => self.imported += 1,
            (ImportStatus::UpToDate, _) => self.up_to_date += 1,
            (ImportStatus::SourceChanged, _) => self.source_changed += 1,
            (ImportStatus::Unrecognized, _) => self.unrecognized += 1,
            (ImportStatus::Failed(_), _) => self.failed += 1,
        }
        self.new_sessions += f.sessions.iter().filter(|s| s.created).count();
        self.turns += f.sessions.iter().map(|s| s.entries).sum::<u64>();
    }

    /// `3 files: 2 imported (2 new sessions, 37 turns), 1 up to date`.
    fn words(&self) -> String {
        let mut parts = Vec::new();
        if self.imported > 0 {
            parts.push(format!("{} imported ({} new session(s), {} turn(s))", self.imported, self.new_sessions, self.turns));
        }
        for (n, what) in [
            (self.up_to_date, "up to date"),
            (self.not_sessions, "not sessions (skipped)"),
            (self.unrecognized, "unrecognized (skipped)"),
            (self.source_changed, "changed since imported (left alone)"),
            (self.failed, "failed"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        let files = format!("{} session file(s)", self.files);
        if parts.is_empty() {
            files
        } else {
            format!("{files}: {}", parts.join(", "))
        }
    }
}

/// `import --auto`: one line per location (the ones absent say so), the
/// files that failed, then the totals; `--json`: `{"locations": [...],
/// "files": [...], "totals": {...}}`.
fn print_auto(g: &Global, locations: &[AgentLocation], report: &ImportReport) {
    // Each file to the location it was found under (the longest match).
    let mut per: BTreeMap<usize, Tally> = BTreeMap::new();
    let mut total = Tally::default();
    for f in &report.files {
        let at = locations.iter().enumerate().filter(|(_, l)| f.path.starts_with(&l.path)).max_by_key(|(_, l)| l.path.as_os_str().len()).map(|(i, _)| i);
        if let Some(i) = at {
            per.entry(i).or_default().add(f);
        }
        total.add(f);
    }
    let settings: Vec<&AgentLocation> = locations.iter().filter(|l| l.exists && l.kind == LocationKind::NotSession && !is_jsonl(&l.path)).collect();
    total.not_sessions += settings.len();
    if g.json {
        let locs: Vec<serde_json::Value> = locations
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut v = serde_json::to_value(l).expect("locations serialize");
                v["tally"] = serde_json::to_value(per.get(&i)).expect("tallies serialize");
                v
            })
            .collect();
        output::print_json(&serde_json::json!({ "locations": locs, "files": report.files, "totals": total }));
        return;
    }
    let home = LocationEnv::current().map(|e| e.home);
    let tilde = |p: &Path| match home.as_deref().and_then(|h| p.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", shown_path(rest)),
        None => shown_path(p),
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let agent_w = locations.iter().map(|l| l.agent.len()).max().unwrap_or(0);
    for (i, l) in locations.iter().enumerate() {
        let what = match (l.kind, l.exists, per.get(&i)) {
            (LocationKind::Sessions, false, _) => "not present".to_string(),
            (LocationKind::Sessions, true, t) => t.map_or_else(|| "no session files".to_string(), Tally::words),
            (LocationKind::NotSession, true, _) => format!("skipped: not a session ({})", l.what),
            (LocationKind::NotSession, false, _) => continue,
        };
        let _ = writeln!(out, "{:agent_w$}  {}  {what}", l.agent, tilde(&l.path));
    }
    for f in report.files.iter().filter(|f| matches!(f.status, ImportStatus::Failed(_))) {
        let _ = writeln!(out, "failed: {}: {}", shown_path(&f.path), shown(&f.status.error().unwrap_or_default()));
    }
    let _ = writeln!(
        out,
        "total: {} turn(s) imported into {} new session(s) from {} file(s); {} up to date; {} skipped as not sessions; {} failed",
        total.turns,
        total.new_sessions,
        total.imported,
        total.up_to_date,
        total.not_sessions,
        total.failed
    );
    let _ = out.flush();
}

/// The exit status of `import`, once the whole report is printed: 7 (I/O)
/// when a file failed, else 2 (invalid input) when a file named on the
/// command line is not a session file. Unrecognized files found by walking
/// a directory (or by `--auto`) are only reported.
fn outcome(paths: &[PathBuf], report: &ImportReport) -> Result<(), Failure> {
    let named: Vec<&PathBuf> = paths.iter().filter(|p| !p.is_dir()).collect();
    let failed: Vec<_> = report.files.iter().filter(|f| matches!(f.status, ImportStatus::Failed(_))).collect();
    let unrecognized: Vec<_> =
        report.files.iter().filter(|f| f.status == ImportStatus::Unrecognized && named.contains(&&f.path)).collect();
    let list = |files: &[&FileImport]| files.iter().map(|f| shown_path(&f.path)).collect::<Vec<_>>().join(", ");
    let mut lines = Vec::new();
    if !failed.is_empty() {
        lines.push(format!("{} file(s) failed to import (see the report above): {}", failed.len(), list(&failed)));
    }
    if !unrecognized.is_empty() {
        lines.push(format!("invalid input: not a thClaws, Codex, Claude Code, Gemini CLI or opencode session file: {}", list(&unrecognized)));
    }
    if lines.is_empty() {
        return Ok(());
    }
    let kind = if failed.is_empty() { ErrorKind::InvalidInput } else { ErrorKind::Io };
    Err(Failure::new(kind, lines.join("\nsessiondb: ")))
}

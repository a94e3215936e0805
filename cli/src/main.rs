//! `sessiondb`: the command-line tool over the sessiondb core.
//!
//! Every read command takes `--json`; `--db PATH` picks a database file
//! (default: the OS state path of seed 000); the commands that only read
//! (and `recover`) need it to exist, the others create it. Exit codes: see
//! [`failure::EXIT_CODES`] (also printed by `--help`). Under `--json` every line on
//! stderr is one JSON object: `{"warning": {...}}` lines, and on failure one
//! `{"error": {"kind", "code", "exit_code", "message", ...}}` line.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// `println!` that ignores a closed stdout (`sessiondb list | head`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod args;
mod cmd;
mod failure;
mod output;

use args::{Cli, Cmd, Global, KeyCmd};

use cmd::export::{export_exists, export_to_file};
use cmd::key::{key_source, read_bounded, MAX_KEY_FILE_BYTES};
use failure::{exit_code, Failure};

use output::{print_json, shown, shown_path, warn};
use sessiondb::{ErrorKind, OpenOptions, Role, SessionRecord, SessionStore};


fn db_path(g: &Global) -> Result<PathBuf, sessiondb::Error> {
    match &g.db {
        Some(p) => Ok(p.clone()),
        None => sessiondb::paths::default_db_path(&g.app),
    }
}

/// Open the database, creating it (and its directory and data key) when it
/// does not exist yet: for the commands that write.
fn open(g: &Global) -> Result<SessionStore, sessiondb::Error> {
    SessionStore::open(OpenOptions {
        path: Some(db_path(g)?.into()),
        app: g.app.clone(),
        key: key_source(g)?,
        compress: g.compress(),
        redact: g.redact()?,
        redact_rules: g.redact_rules.clone(),
        max_line_bytes: g.max_line_bytes,
        ..Default::default()
    })
}

/// Open a database that must already exist: for every command but `new` and
/// `import` (they create it), since each reads or changes sessions it holds
/// (`recover` has nothing to do without one). A missing file is exit 3 and
/// nothing is created (no directory, no file, no data key).
fn open_existing(g: &Global) -> Result<SessionStore, Failure> {
    open_existing_with(g, true)
}

/// [`open_existing`], with or without the recovery pass at open (`doctor`
/// only reads: it never marks an operation).
fn open_existing_with(g: &Global, recover: bool) -> Result<SessionStore, Failure> {
    let path = db_path(g)?;
    // A server URL names a store on a server: nothing to check on disk
    // (its tables and key-check value are created on its first open).
    let server = path.to_str().is_some_and(sessiondb::store::is_server_url);
    // An empty file is no database either: SQLite would initialise it.
    let missing = !server && match std::fs::metadata(&path) {
        Ok(m) => m.is_file() && m.len() == 0,
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    if missing {
        return Err(Failure::new(
            ErrorKind::NotFound,
            format!(
                "no database at {}; nothing was created (`sessiondb import PATH...` or `sessiondb new` creates it)",
                shown_path(&path)
            ),
        ));
    }
    Ok(SessionStore::open(OpenOptions {
        path: Some(path.into()),
        app: g.app.clone(),
        key: key_source(g)?,
        recover,
        compress: g.compress(),
        redact: g.redact()?,
        redact_rules: g.redact_rules.clone(),
        max_line_bytes: g.max_line_bytes,
        ..Default::default()
    })?)
}

/// The redaction report on stderr (`redacted N secret(s): rule ×n, ...`,
/// or with `--json` the object `{"kind":"Redacted","total":N,"by_rule":{...}}`),
/// when something was redacted.
fn report_redactions(r: &sessiondb::privacy::RedactionReport, json: bool) {
    if r.total() == 0 {
        return;
    }
    if json {
        eprintln!("{}", serde_json::json!({"kind": "Redacted", "total": r.total(), "by_rule": r.by_rule}));
    } else {
        eprintln!("redacted {} secret(s): {}", r.total(), r.summary());
    }
}

/// `find_session`, with a not-found message naming what the user typed (the
/// core never echoes a title).
fn find(s: &SessionStore, reference: &str) -> Result<SessionRecord, Failure> {
    s.find_session(reference).map_err(|e| not_found_as_typed(e, reference))
}

fn not_found_as_typed(e: sessiondb::Error, reference: &str) -> Failure {
    if e.kind() == ErrorKind::NotFound {
        Failure::new(
            ErrorKind::NotFound,
            format!(
                "not found: session `{}` (no session has that id, id prefix or exact title; `sessiondb list --all` lists them)",
                shown(reference)
            ),
        )
    } else {
        Failure::Core(e)
    }
}

fn cwd() -> Result<String, sessiondb::Error> {
    utf8_path(&std::env::current_dir().map_err(|e| sessiondb::Error::io("reading the current directory", e))?)
}

/// A workspace path as UTF-8 (the canonical form is UTF-8; a lossy
/// conversion could make two directories collide).
fn utf8_path(p: &std::path::Path) -> Result<String, sessiondb::Error> {
    p.to_str().map(str::to_owned).ok_or_else(|| sessiondb::Error::invalid("workspace paths must be valid UTF-8"))
}

fn run(cli: Cli) -> Result<(), Failure> {
    let g = &cli.global;
    match &cli.cmd {
        Cmd::Path => {
            let p = db_path(g)?;
            if g.json {
                print_json(&serde_json::json!({ "path": p }));
            } else {
                outln!("{}", p.display());
            }
        }
        Cmd::Doctor { check } => {
            let s = open_existing_with(g, false)?;
            let st = s.stats()?;
            let report = if *check { Some(s.check_records()?) } else { None };
            if g.json {
                match &report {
                    Some(r) => print_json(&serde_json::json!({ "stats": st, "check": r })),
                    None => print_json(&st),
                }
            } else {
                outln!("path            {}", st.path);
                outln!("key backend     {}", st.key_backend);
                if let Some(f) = &st.key_file {
                    outln!("key file        {}", shown(f));
                }
                outln!("schema version  {}", st.schema_version);
                outln!("sessions        {}", st.sessions);
                outln!("entries         {}", st.transcript_entries);
                outln!("journal events  {}", st.journal_events);
                outln!("open operations {}", st.open_operations);
                outln!("db size         {} bytes", st.db_bytes);
                outln!("wal size        {} bytes", st.wal_bytes);
                outln!("note            losing the data key makes the sessions unreadable; there is no backup of it");
                if let Some(r) = &report {
                    outln!("records checked {}", r.records);
                    outln!("damaged         {}", r.damaged.len());
                    for d in &r.damaged {
                        outln!("  {}  {}: {}", d.record_id, d.kind, d.reason);
                    }
                }
            }
            if let Some(r) = report.filter(|r| !r.damaged.is_empty()) {
                return Err(Failure::new(
                    ErrorKind::Corrupt,
                    format!("{} damaged record(s); the others are readable and nothing was changed", r.damaged.len()),
                ));
            }
        }
        Cmd::New { name, workspace, unbound, model } => {
            let s = open(g)?;
            let ws = if *unbound {
                None
            } else {
                Some(match workspace {
                    Some(w) => utf8_path(w)?,
                    None => cwd()?,
                })
            };
            let rec = s.create_session_with(sessiondb::NewSession {
                name: name.clone(),
                workspace_path: ws,
                model: model.clone(),
                ..Default::default()
            })?;
            if g.json {
                print_json(&rec);
            } else {
                outln!("{}", rec.id);
            }
        }
        Cmd::Append { session, role, content } => {
            let s = open_existing(g)?;
            let role = Role::parse(role)?;
            let content = match content {
                Some(c) => c.clone(),
                None => {
                    // Bounded like an imported line (an entry longer than
                    // that would not import again from its own export):
                    // `append < /dev/zero` is refused, not read until memory runs out.
                    let max = s.max_line_bytes();
                    let mut buf = Vec::new();
                    std::io::stdin().take(max + 1).read_to_end(&mut buf).map_err(|e| sessiondb::Error::io("reading stdin", e))?;
                    if buf.len() as u64 > max {
                        return Err(sessiondb::Error::invalid(format!(
                            "content on stdin is over {max} bytes (--max-line-bytes): nothing was appended"
                        ))
                        .into());
                    }
                    String::from_utf8(buf).map_err(|_| sessiondb::Error::invalid("content on stdin must be UTF-8"))?
                }
            };
            let id = find(&s, session)?.id;
            let e = s.append_transcript(&id, role, content)?;
            report_redactions(&s.redaction_report(), g.json);
            if g.json {
                print_json(&e);
            } else {
                outln!("{}", e.seq);
            }
        }
        Cmd::List(a) => cmd::list::run(g, a)?,
        Cmd::Show(a) => cmd::show::run(g, a)?,
        Cmd::Rename { session, title } => {
            let s = open_existing(g)?;
            let id = find(&s, session)?.id;
            let rec = s.rename_session(&id, title.clone())?;
            match &rec.name {
                Some(t) => outln!("session renamed → {t}"),
                None => outln!("session title cleared"),
            }
        }
        Cmd::Delete { session } => {
            let s = open_existing(g)?;
            let id = find(&s, session)?.id;
            s.delete_session(&id)?;
            outln!("deleted {id}");
        }
        Cmd::Prune { max_age_days, max_sessions, keep_latest, include_named, dry_run } => {
            if max_age_days.is_none() && max_sessions.is_none() {
                return Err(sessiondb::Error::invalid("prune needs a limit: --max-age-days N and/or --max-sessions N").into());
            }
            let s = open_existing(g)?;
            let policy = sessiondb::privacy::RetentionPolicy {
                max_age_days: *max_age_days,
                max_sessions: *max_sessions,
                keep_named: !*include_named,
                keep_latest: *keep_latest,
            };
            let now = sessiondb::store::now_ms();
            let list = if *dry_run { s.prune_plan(&policy, now)? } else { s.prune(&policy, now)? };
            if g.json {
                print_json(&serde_json::json!({ "dry_run": dry_run, "sessions": list }));
            } else {
                let verb = if *dry_run { "would delete" } else { "deleted" };
                for p in &list {
                    outln!(
                        "{verb} {}  {}  last activity {}  {} entries{}",
                        p.session_id,
                        p.reason,
                        output::fmt_time(p.updated_at_ms),
                        p.entry_count,
                        p.title.as_deref().map(|t| format!("  {}", shown(t))).unwrap_or_default()
                    );
                }
                outln!("{} session(s) {}", list.len(), if *dry_run { "would be deleted (dry run)" } else { "deleted" });
            }
        }
        Cmd::Journal { session, from, limit } => {
            let s = open_existing(g)?;
            // Resolved like every other command; a deleted session's journal
            // is kept, so its exact id still shows it.
            let id = match s.find_session(session) {
                Ok(r) => r.id,
                Err(e) if e.kind() == ErrorKind::NotFound && !s.journal_events(session, 1, 1)?.is_empty() => session.clone(),
                Err(e) => return Err(not_found_as_typed(e, session)),
            };
            let ev = s.journal_events(&id, *from, (*limit).max(1))?;
            if g.json {
                print_json(&ev);
            } else {
                for e in ev {
                    outln!(
                        "{:>5} v{:<6} {} {}{}",
                        e.seq,
                        e.aggregate_version,
                        e.created_at,
                        e.kind,
                        e.operation_id.map(|o| format!(" op={o}")).unwrap_or_default()
                    );
                }
            }
        }
        Cmd::Recover => {
            let s = open_existing(g)?;
            let mut r = s.open_recovery_report();
            let again = s.recover()?;
            r.marked_unknown.extend(again.marked_unknown);
            if g.json {
                print_json(&r);
            } else {
                outln!("marked unknown outcome: {}", r.marked_unknown.len());
                for (sid, op) in &r.marked_unknown {
                    outln!("  {sid} {op}");
                }
                outln!("left alone (owner alive): {}", r.skipped_live.max(again.skipped_live));
            }
        }
        Cmd::Import(a) => cmd::import::run(g, a)?,
        Cmd::Export { session, output, force, format, no_redact } => {
            if output.as_os_str() != "-" && !*force && std::fs::symlink_metadata(output).is_ok() {
                return Err(export_exists(output));
            }
            let s = open_existing(g)?;
            let id = find(&s, session)?.id;
            let redact = !*no_redact && sessiondb::portable::redacts_by_default(&s, (*format).into());
            let (bytes, redacted) = if output.as_os_str() == "-" {
                cmd::export::export_to(&s, &id, *format, redact, std::io::stdout().lock())?
            } else {
                let (bytes, redacted) = export_to_file(&s, &id, output, *force, *format, redact)?;
                if !g.json {
                    eprintln!("exported {bytes} bytes → {}", shown_path(output));
                }
                (bytes, redacted)
            };
            let _ = bytes;
            report_redactions(&redacted, g.json);
        }
        Cmd::Completions { .. } => unreachable!("handled in main before any database is opened"),
        Cmd::Copy { from, to, no_redact } => {
            if g.redact()? == sessiondb::privacy::RedactPolicy::OnExport && !*no_redact {
                return Err(Failure::new(
                    ErrorKind::InvalidInput,
                    "copy moves ciphertext as it is and cannot redact it; with --redact on-export pass --no-redact to copy secrets as stored, or export the sessions instead (nothing was copied)".to_string(),
                ));
            }
            let source = open_existing(&Global { db: Some(from.clone()), ..g.clone() })?;
            let dg = Global { db: Some(to.clone()), ..g.clone() };
            // A source keyed by a key file (a machine without a keyring): a new
            // destination shares that file, so both have the one key copy needs.
            let dest_opts = OpenOptions {
                path: Some(db_path(&dg)?.into()),
                app: g.app.clone(),
                key: key_source(&dg)?,
                key_file_id: source.key_file_id().map(str::to_string),
                ..Default::default()
            };
            let dest = SessionStore::open(dest_opts)?;
            let r = source.copy_to(&dest)?;
            if g.json {
                print_json(&r);
            } else {
                outln!(
                    "copied {} → {}: {} session(s) seen, {} created, {} updated, {} deleted; {} entries, {} retractions, {} token rows, \
                     {} extensions, {} journal events, {} open operations, {} import records",
                    // The stores' own paths: a server URL's password is redacted there.
                    shown_path(source.path()),
                    shown_path(dest.path()),
                    r.sessions_seen,
                    r.sessions_created,
                    r.sessions_updated,
                    r.sessions_deleted,
                    r.entries,
                    r.retractions,
                    r.tokens,
                    r.extensions,
                    r.events,
                    r.open_operations,
                    r.import_records
                );
                for c in &r.conflicts {
                    outln!("refused {} ({}): {}", c.session_id, c.kind, c.reason);
                }
            }
            if !r.conflicts.is_empty() {
                return Err(Failure::new(
                    ErrorKind::Conflict,
                    format!("{} session(s) were refused (the destination holds rows the source does not); the others were copied", r.conflicts.len()),
                ));
            }
        }
        Cmd::Key { cmd: KeyCmd::Init { file } } => cmd::key::init(g, file.as_deref())?,
        Cmd::Key { cmd: KeyCmd::Export } => {
            let s = open_existing_with(g, false)?;
            warn(
                g.json,
                "RecoveryKeyExported",
                "this recovery key decrypts every session of this store (and of every store that shares its data key): \
                 keep it in a password manager or on paper, never in the repository or a chat; it cannot be revoked",
            );
            if g.json {
                print_json(&serde_json::json!({ "recovery_key": s.recovery_key() }));
            } else {
                outln!("{}", s.recovery_key());
            }
        }
        Cmd::Key { cmd: KeyCmd::Import { recovery_key } } => {
            let text = match recovery_key {
                Some(t) => t.clone(),
                None => {
                    let bytes = read_bounded(Ok(std::io::stdin()), MAX_KEY_FILE_BYTES, "reading the recovery key from stdin")?
                        .ok_or_else(|| sessiondb::Error::invalid(format!("more than {MAX_KEY_FILE_BYTES} bytes on stdin: not a recovery key")))?;
                    String::from_utf8(bytes).map_err(|_| sessiondb::Error::invalid("the recovery key on stdin is not UTF-8 text"))?
                }
            };
            let path = db_path(g)?;
            let s = SessionStore::import_recovery_key(
                OpenOptions { path: Some(path.clone().into()), app: g.app.clone(), key: key_source(g)?, compress: g.compress(), ..Default::default() },
                &text,
            )?;
            if g.json {
                print_json(&serde_json::json!({ "imported": true, "key_backend": s.key_backend(), "app": g.app, "path": s.path() }));
            } else {
                outln!("recovery key checked against {} and stored in {} (service `{}`); the store opens with it", shown_path(s.path()), s.key_backend(), shown(&g.app));
            }
        }
        Cmd::Search(a) => cmd::search::run(g, a)?,
        Cmd::Serve(a) => cmd::serve::run(g, a)?,
        Cmd::Resume { session } => {
            let s = open_existing(g)?;
            let here = cwd()?;
            let session = &session.join(" ");
            let found = match sessiondb::portable::resolve_session(&s, session, Some(&here)) {
                Err(e) if session != "last" && e.kind() == ErrorKind::NotFound => match cmd::search::resume_by_search(&s, session)? {
                    Some(rec) => Ok(rec),
                    None => Err(e),
                },
                other => other,
            };
            let rec = found.map_err(|e| {
                if session == "last" && e.kind() == ErrorKind::NotFound {
                    Failure::new(
                        ErrorKind::NotFound,
                        format!(
                            "no session is bound to this workspace ({here}); `sessiondb list --all` lists every session, then `sessiondb resume ID` (an id, id prefix or title) picks one"
                        ),
                    )
                } else {
                    not_found_as_typed(e, session)
                }
            })?;
            if g.json {
                print_json(&rec);
            } else {
                match &rec.name {
                    Some(t) => outln!("loaded {t} ({}) ({} message(s))", rec.id, rec.entry_count),
                    None => outln!("loaded {} ({} message(s))", rec.id, rec.entry_count),
                }
            }
        }
        Cmd::Fork { session, at, summary } => {
            let s = open_existing(g)?;
            let id = find(&s, session)?.id;
            let rec = sessiondb::portable::fork_session(
                &s,
                &id,
                *at, summary.clone(),
            )?;
            if g.json {
                print_json(&rec);
            } else {
                outln!("{}", rec.id);
            }
        }
        Cmd::Sidebar => {
            let s = open_existing(g)?;
            let rows = sessiondb::portable::sidebar_sessions(&s)?;
            if g.json {
                print_json(&rows);
            } else {
                cmd::list::print_rows(&s, &rows, &output::Term::detect())?;
            }
        }
        Cmd::Context { session, window } => {
            let s = open_existing(g)?;
            let rec = find(&s, session)?;
            let model = window.check(&rec)?;
            let st = sessiondb::context::context_status(&s, &rec.id, window.window, window.reserve, model)?;
            if g.json {
                print_json(&st);
            } else {
                let m = &st.meter;
                outln!(
                    "{} ({}) · {} of {} tokens · model {}{}",
                    m.label,
                    m.band.name(),
                    m.active_tokens,
                    st.capacity,
                    st.model.as_deref().unwrap_or("(estimate)"),
                    if m.overflow { " · OVER CAPACITY" } else { "" }
                );
                for t in &st.turns {
                    outln!("  #{:<6} {:?}{}", t.seq, t.state, if t.pinned { " (pinned)" } else { "" });
                }
            }
        }
        Cmd::Compact { session, window, target, dry_run } => {
            let s = open_existing(g)?;
            let rec = find(&s, session)?;
            let model = window.check(&rec)?;
            let plan = sessiondb::context::compact_session(&s, &rec.id, window.window, window.reserve, model, *target, *dry_run)?;
            if g.json {
                print_json(&plan);
            } else {
                // A run of turns is one transformation (DESIGN.md "Context governance").
                outln!(
                    "{} {} turn(s) in {} run(s): {} → {} tokens (capacity {}, target {}%){}",
                    if *dry_run { "would compact" } else { "compacted" },
                    plan.compacted_seqs().len(),
                    plan.transformations.len(),
                    plan.tokens_before,
                    plan.tokens_after,
                    plan.capacity,
                    plan.target_percent,
                    if plan.reached_target { "" } else { " · target not reached" }
                );
                for t in &plan.transformations {
                    let seqs = match t.last_seq {
                        Some(last) if last != t.seq => format!("{}–{last}", t.seq),
                        _ => t.seq.to_string(),
                    };
                    outln!("  #{seqs:<6} {:?} {} → {} tokens", t.action, t.tokens_before, t.tokens_after);
                }
            }
        }
    }
    Ok(())
}

/// Parse the command line. A usage error under `--json` (anywhere on the
/// line) is the JSON error object with exit 2; `--help` and `--version`
/// print as usual.
fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind as ClapKind;
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) if matches!(e.kind(), ClapKind::DisplayHelp | ClapKind::DisplayVersion | ClapKind::DisplayHelpOnMissingArgumentOrSubcommand) => e.exit(),
        Err(e) if std::env::args_os().skip(1).take_while(|a| a != "--").any(|a| a == "--json") => {
            let message = e.render().to_string();
            let message = message.trim_end().strip_prefix("error: ").unwrap_or(message.trim_end()).to_string();
            let f = Failure::new(ErrorKind::InvalidInput, message);
            eprintln!("{}", f.to_json());
            Err(ExitCode::from(exit_code(ErrorKind::InvalidInput)))
        }
        Err(e) => e.exit(),
    }
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if let Cmd::Completions { shell } = &cli.cmd {
        let mut cmd = <Cli as clap::CommandFactory>::command();
        let mut script = Vec::new();
        clap_complete::generate(*shell, &mut cmd, "sessiondb", &mut script);
        // A closed stdout (`| head`) is not an error, as for every command.
        let _ = std::io::stdout().lock().write_all(&script);
        return ExitCode::SUCCESS;
    }
    let json = cli.global.json;
    // The core's warnings (a key file created on a machine without a
    // keyring) as the CLI's: `--json` lines under --json.
    sessiondb::keys::set_warning_handler(move |kind, message| warn(json, kind, message));
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) if json => {
            eprintln!("{}", f.to_json());
            ExitCode::from(exit_code(f.kind()))
        }
        Err(Failure::Cli { kind, message }) => {
            eprintln!("sessiondb: {message}");
            ExitCode::from(exit_code(kind))
        }
        Err(Failure::Core(e)) => {
            eprintln!("sessiondb: {e}");
            if let sessiondb::Error::ContextOverflow(b) = &e {
                eprintln!(
                    "  protected tokens: system {} · pinned {} · recent {} · tool results {} · other {} (total {}, capacity {})",
                    b.system, b.pinned, b.recent, b.tool_results, b.other, b.protected_total, b.capacity
                );
                for r in &b.remedies {
                    eprintln!("  - {r}");
                }
            }
            ExitCode::from(exit_code(e.kind()))
        }
    }
}

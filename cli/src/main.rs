//! `sessiondb`: the command-line tool over the sessiondb core.
//!
//! Every read command takes `--json`; `--db PATH` picks a database file
//! (default: the OS state path of seed 000); the commands that only read
//! (and `recover`) need it to exist, the others create it. Exit codes: see
//! [`EXIT_CODES`] (also printed by `--help`). Under `--json` every line on
//! stderr is one JSON object: `{"warning": {...}}` lines, and on failure one
//! `{"error": {"kind", "code", "exit_code", "message", ...}}` line.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// `println!` that ignores a closed stdout (`sessiondb list | head`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod cmd;
mod failure;
mod output;

use cmd::export::{export_exists, export_to_file};
use cmd::key::{key_source, read_bounded, MAX_KEY_FILE_BYTES};
use cmd::window::WindowArgs;
use failure::{exit_code, Failure, EXIT_CODES};

use output::{print_json, shown, shown_path, warn};
use sessiondb::{ErrorKind, OpenOptions, Role, SessionRecord, SessionStore};

#[derive(Parser)]
#[command(name = "sessiondb", version, about = "Encrypted, journaled store of AI agent sessions", after_help = EXIT_CODES)]
struct Cli {
    #[command(flatten)]
    global: Global,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct Global {
    /// Database file (default: $XDG_STATE_HOME/<app>/sessions.db or the platform's equivalent),
    /// or a PostgreSQL URL (`postgres://user[:password]@host[:port]/database[?sslmode=require]`).
    #[arg(long, global = true, env = "SESSIONDB_DB")]
    db: Option<PathBuf>,
    /// App name: state directory and credential-store service.
    #[arg(long, global = true, default_value = "sessiondb", env = "SESSIONDB_APP")]
    app: String,
    /// Read the 32-byte data key (base64) from this file instead of the OS credential store.
    #[arg(long, global = true, env = "SESSIONDB_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// Print JSON instead of text (read commands); errors and warnings on stderr as JSON objects.
    #[arg(long, global = true)]
    json: bool,
    /// Compress contents of 512 bytes or more before encrypting them (off by default); stored
    /// lengths then depend on what repeats inside an entry (SECURITY.md "Size oracle").
    #[arg(long, global = true, overrides_with = "no_compress")]
    compress: bool,
    /// Store contents uncompressed, so stored lengths reveal only plaintext lengths (the default).
    #[arg(long, global = true, overrides_with = "compress")]
    no_compress: bool,
    /// Secret redaction policy: off (default), on-export (exports redact unless --no-redact) or
    /// on-write (secrets are replaced by markers before they are stored).
    #[arg(long, global = true, value_name = "POLICY", env = "SESSIONDB_REDACT")]
    redact: Option<String>,
    /// A gitleaks-format rules file (TOML) that extends the built-in redaction rules.
    #[arg(long, global = true, value_name = "FILE", env = "SESSIONDB_REDACT_RULES")]
    redact_rules: Option<PathBuf>,
    /// Longest line of a session file that `import` keeps, in bytes (default 67108864, 64 MiB;
    /// at most 1073741824): a longer line is read past without being kept and reported as
    /// `too_long` with its line number, so an import's memory stays bounded whatever the file.
    #[arg(long, global = true, value_name = "N", env = "SESSIONDB_MAX_LINE_BYTES")]
    max_line_bytes: Option<u64>,
}

impl Global {
    /// `--redact POLICY` (default off). Errors: `InvalidInput` for another word.
    fn redact(&self) -> Result<sessiondb::privacy::RedactPolicy, sessiondb::Error> {
        self.redact.as_deref().map_or(Ok(Default::default()), sessiondb::privacy::RedactPolicy::parse)
    }

    /// `--compress` / `--no-compress` (the last one given wins); `None`:
    /// the backend's default (`sessiondb::store::default_compress`).
    fn compress(&self) -> Option<bool> {
        match (self.compress, self.no_compress) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Print the database path.
    Path,
    /// Key backend, schema version, counts, WAL size.
    Doctor {
        /// Also read and authenticate every stored record and list the
        /// damaged ones by record id (exit 6 if any); changes nothing.
        #[arg(long)]
        check: bool,
    },
    /// Create a session; prints its id.
    New {
        /// Title.
        #[arg(long)]
        name: Option<String>,
        /// Bind to this workspace (default: the current directory; `--unbound` for none).
        #[arg(long)]
        workspace: Option<PathBuf>,
        /// Create the session without a workspace binding.
        #[arg(long, conflicts_with = "workspace")]
        unbound: bool,
        /// Model name.
        #[arg(long)]
        model: Option<String>,
    },
    /// Append a transcript entry (content from the argument or stdin).
    Append {
        /// Session id, id prefix or title.
        session: String,
        /// user, assistant, tool or system.
        #[arg(long, default_value = "user")]
        role: String,
        /// Content; read from stdin when absent.
        content: Option<String>,
    },
    /// List sessions (default: the current workspace's), most recent transcript activity first,
    /// each titled by its name or else its first prompt.
    List(cmd::list::ListArgs),
    /// Show a session and its transcript as readable turns (`--raw`: the stored content).
    Show(cmd::show::ShowArgs),
    /// Set or clear (no title) a session's title.
    Rename { session: String, title: Option<String> },
    /// Delete a session and its transcript.
    Delete { session: String },
    /// Delete sessions by a retention policy (needs --max-age-days or --max-sessions); each
    /// deletion is a SessionDeleted journal event with its reason. --dry-run lists what would go.
    Prune {
        /// Delete sessions whose last activity is more than N days old.
        #[arg(long, value_name = "N")]
        max_age_days: Option<u32>,
        /// Keep at most N sessions (by last activity).
        #[arg(long, value_name = "N")]
        max_sessions: Option<u32>,
        /// Always keep the newest N sessions.
        #[arg(long, value_name = "N", default_value_t = 1)]
        keep_latest: u32,
        /// Also delete named sessions (kept by default).
        #[arg(long)]
        include_named: bool,
        /// List what would be deleted; delete nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Show a session's journal.
    Journal {
        session: String,
        #[arg(long, default_value_t = 1)]
        from: u64,
        #[arg(long, default_value_t = 1000)]
        limit: u32,
    },
    /// Run the recovery pass now.
    Recover,
    /// Import agent session files or directory trees (thClaws, Codex, Claude Code, Gemini CLI; format detected),
    /// or with --auto every supported agent's history of the current user.
    Import(cmd::import::ImportArgs),
    /// Export a session as thClaws JSONL (default), Markdown or JSON. Markdown is redacted unless
    /// --no-redact; thClaws JSONL and JSON are exact unless the redaction policy is on-export or on-write.
    Export {
        session: String,
        /// thclaws (JSONL, default), markdown (md: a transcript to share) or json (the neutral model, one document).
        #[arg(long, default_value = "thclaws")]
        format: cmd::export::ExportFormat,
        /// Export secrets as stored, whatever the policy and format.
        #[arg(long)]
        no_redact: bool,
        /// Output file (`-` for stdout), created with mode 0600 (it is plaintext). An existing file is refused (exit 4) unless --force.
        #[arg(short, long)]
        output: PathBuf,
        /// Replace an existing output file (written to a temporary file beside it, then renamed over it).
        #[arg(long)]
        force: bool,
    },
    /// Find a session to continue: `last` (this workspace's most recent), an id, a prefix or a title;
    /// otherwise words searched in the sessions' content (one match resumes it, several are listed).
    Resume {
        #[arg(default_value = "last", num_args = 1..)]
        session: Vec<String>,
    },
    /// Serve a read-only web viewer of the sessions on loopback (prints a one-time sign-in URL;
    /// docs/viewer.md).
    Serve(cmd::serve::ServeArgs),
    /// Search every session's messages, tool calls, outputs, thinking and titles (docs/search.md).
    Search(cmd::search::SearchArgs),
    /// Fork a session: seeded with a summary of its history (default), a copy up to --at SEQ, or --summary TEXT.
    Fork {
        session: String,
        #[arg(long)]
        at: Option<u64>,
        #[arg(long)]
        summary: Option<String>,
    },
    /// The sidebar: last 10 sessions, titled first.
    Sidebar,
    /// Context meter (`Ctx N%`) and per-turn state (verbatim / compacted / excluded).
    Context {
        /// Session id, id prefix or title.
        session: String,
        #[command(flatten)]
        window: WindowArgs,
    },
    /// Plan compaction to the target (default 70%) and record it (`--dry-run`: only show).
    Compact {
        /// Session id, id prefix or title.
        session: String,
        #[command(flatten)]
        window: WindowArgs,
        /// Target utilization after compaction, percent.
        #[arg(long)]
        target: Option<u8>,
        /// Show the plan without recording it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Print a shell completion script: `sessiondb completions bash > /etc/bash_completion.d/sessiondb`,
    /// `sessiondb completions zsh > ~/.zfunc/_sessiondb`, `sessiondb completions fish > ~/.config/fish/completions/sessiondb.fish`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Copy every session of store A into store B (each a database file or a PostgreSQL URL),
    /// moving ciphertext as it is; run again to copy only what is new. B must have A's data key
    /// (both are opened with --key-file or the OS keyring of --app). A session B holds rows of
    /// that A lacks is refused and listed (exit 4); the others are copied.
    Copy {
        /// Copy even with the redaction policy on-export (copy moves ciphertext as it is and
        /// cannot redact it).
        #[arg(long)]
        no_redact: bool,
        /// Source store A (must exist).
        #[arg(long)]
        from: PathBuf,
        /// Destination store B (created when absent).
        #[arg(long)]
        to: PathBuf,
    },
    /// Data key: create one (init), print it as a recovery key (export), or store a recovery key here (import).
    Key {
        #[command(subcommand)]
        cmd: KeyCmd,
    },
}

#[derive(Subcommand)]
enum KeyCmd {
    /// Create a data key in the OS keyring of --app, or with --file in a new key file; never overwrites one.
    ///
    /// In the OS credential store: service <app>, account session-data-key (new databases of --app
    /// use it). With --file: base64 and a newline, mode 0600, to open with --key-file. An existing
    /// key or file is left as it is (exit 4). On a machine without a keyring the first `new` or
    /// `import` creates a key file by itself (under ~/.config/<app>/keys/), with a warning.
    Init {
        /// Create the key in this new file instead of the OS credential store.
        #[arg(long)]
        file: Option<PathBuf>,
    },
    /// Print the recovery key of --db: 56 characters in 14 groups of 4 (base32 of the data key
    /// and a 3-byte checksum). It decrypts every session: keep it in a password manager or on paper.
    Export,
    /// Check a recovery key against --db's key-check value and store it in this machine's
    /// credential store (the OS keyring of --app); then --db opens with it.
    Import {
        /// The recovery key (any case, with or without dashes and spaces); read from stdin when absent.
        recovery_key: Option<String>,
    },
}

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

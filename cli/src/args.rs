//! The command line: `sessiondb`'s global options ([`Global`]) and its
//! commands ([`Cmd`], [`KeyCmd`]), as clap parses them. `main.rs` runs them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::cmd::{self, window::WindowArgs};
use crate::failure::EXIT_CODES;

#[derive(Parser)]
#[command(name = "sessiondb", version, about = "Encrypted, journaled store of AI agent sessions", after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: Global,
    #[command(subcommand)]
    pub(crate) cmd: Cmd,
}

#[derive(Args, Clone)]
pub(crate) struct Global {
    /// Database file (default: $XDG_STATE_HOME/<app>/sessions.db or the platform's equivalent),
    /// or a PostgreSQL URL (`postgres://user[:password]@host[:port]/database[?sslmode=require]`).
    #[arg(long, global = true, env = "SESSIONDB_DB")]
    pub(crate) db: Option<PathBuf>,
    /// App name: state directory and credential-store service.
    #[arg(long, global = true, default_value = "sessiondb", env = "SESSIONDB_APP")]
    pub(crate) app: String,
    /// Read the 32-byte data key (base64) from this file instead of the OS credential store.
    #[arg(long, global = true, env = "SESSIONDB_KEY_FILE")]
    pub(crate) key_file: Option<PathBuf>,
    /// Print JSON instead of text (read commands); errors and warnings on stderr as JSON objects.
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Compress contents of 512 bytes or more before encrypting them (off by default); stored
    /// lengths then depend on what repeats inside an entry (SECURITY.md "Size oracle").
    #[arg(long, global = true, overrides_with = "no_compress")]
    pub(crate) compress: bool,
    /// Store contents uncompressed, so stored lengths reveal only plaintext lengths (the default).
    #[arg(long, global = true, overrides_with = "compress")]
    pub(crate) no_compress: bool,
    /// Secret redaction policy: off (default), on-export (exports redact unless --no-redact) or
    /// on-write (secrets are replaced by markers before they are stored).
    #[arg(long, global = true, value_name = "POLICY", env = "SESSIONDB_REDACT")]
    pub(crate) redact: Option<String>,
    /// A gitleaks-format rules file (TOML) that extends the built-in redaction rules.
    #[arg(long, global = true, value_name = "FILE", env = "SESSIONDB_REDACT_RULES")]
    pub(crate) redact_rules: Option<PathBuf>,
    /// Longest line of a session file that `import` keeps, in bytes (default 67108864, 64 MiB;
    /// at most 1073741824): a longer line is read past without being kept and reported as
    /// `too_long` with its line number, so an import's memory stays bounded whatever the file.
    #[arg(long, global = true, value_name = "N", env = "SESSIONDB_MAX_LINE_BYTES")]
    pub(crate) max_line_bytes: Option<u64>,
}

impl Global {
    /// `--redact POLICY` (default off). Errors: `InvalidInput` for another word.
    pub(crate) fn redact(&self) -> Result<sessiondb::privacy::RedactPolicy, sessiondb::Error> {
        self.redact.as_deref().map_or(Ok(Default::default()), sessiondb::privacy::RedactPolicy::parse)
    }

    /// `--compress` / `--no-compress` (the last one given wins); `None`:
    /// the backend's default (`sessiondb::store::default_compress`).
    pub(crate) fn compress(&self) -> Option<bool> {
        match (self.compress, self.no_compress) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

#[derive(Subcommand)]
pub(crate) enum Cmd {
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
pub(crate) enum KeyCmd {
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

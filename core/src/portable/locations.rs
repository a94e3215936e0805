//! Where the supported agents keep their history for the current user
//! (`sessiondb import --auto`, issue 27 item 3). The list is data: each
//! host or tool asks [`standard_locations`] and imports what exists.
//!
//! - Codex: `$CODEX_HOME` (default `~/.codex`): `sessions/` and
//!   `archived_sessions/` (rollout files); `history.jsonl` is its prompt
//!   log and `config.toml` its settings, listed as not sessions.
//! - Claude Code: `$CLAUDE_CONFIG_DIR` (default `~/.claude`): `projects/`;
//!   `history.jsonl` (prompt log), `settings.json` and `~/.claude.json`
//!   are not sessions.
//! - thClaws: sessions are project-scoped, `<project>/.thclaws/sessions/`:
//!   the current directory's, and those of the projects thClaws lists in
//!   `~/.config/thclaws/recent_dirs.json` (a JSON array of directories);
//!   `~/.config/thclaws/settings.json` is not a session.
//!
//! - Gemini CLI: `$GEMINI_CLI_HOME` replaces the home directory (its
//!   `packages/core/src/utils/paths.ts` `homedir()`); sessions are
//!   `.gemini/tmp/<project>/chats/` (one per folder of `.gemini/tmp/` that
//!   has `chats/` or `logs.json`, or `.gemini/tmp` itself when none has); each project's
//!   `logs.json` (prompt log) and `.gemini/settings.json` are not sessions.
//! - opencode: its data directory, `$XDG_DATA_HOME/opencode` (default
//!   `~/.local/share/opencode` on every OS: opencode's `global/index.ts`
//!   uses xdg-basedir): `opencode.db` (the SQLite database of newer
//!   releases) and `storage/` (the JSON-file tree of older ones; a session
//!   in both is stored once).

use std::path::{Path, PathBuf};

/// What a location holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocationKind {
    /// Session files (a directory tree walked for `*.jsonl`, or a file).
    Sessions,
    /// A file the agent keeps beside its sessions that is not one (prompt
    /// log, settings): never imported, only counted as skipped. A prompt
    /// log is still classified by its content when imported by hand (see
    /// [`super::classify_file`]).
    NotSession,
}

/// One standard location of one agent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AgentLocation {
    /// The agent: `Codex`, `Claude Code`, `thClaws`, `Gemini CLI` or `opencode`.
    pub agent: &'static str,
    /// The directory or file.
    pub path: PathBuf,
    /// Sessions, or a known file that is not one.
    pub kind: LocationKind,
    /// What it is, e.g. `sessions`, `prompt history (history.jsonl)`, `settings`.
    pub what: &'static str,
    /// Whether it exists now.
    pub exists: bool,
}

/// The user environment the locations derive from (the process's by
/// [`LocationEnv::current`]; tests give their own).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocationEnv {
    /// The home directory (`$HOME`; on Windows `%USERPROFILE%`).
    pub home: PathBuf,
    /// `$CODEX_HOME`, when set and not empty.
    pub codex_home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, when set and not empty.
    pub claude_config_dir: Option<PathBuf>,
    /// The current directory (thClaws sessions are project-scoped).
    pub cwd: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME` (Gemini CLI's home directory), when set and not empty.
    pub gemini_cli_home: Option<PathBuf>,
    /// `$XDG_DATA_HOME`, when set and not empty (opencode's data lives in
    /// `<it>/opencode`, else `~/.local/share/opencode`).
    pub xdg_data_home: Option<PathBuf>,
}

impl LocationEnv {
    /// The process's environment. `None` when no home directory is known.
    pub fn current() -> Option<LocationEnv> {
        let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let home = var("HOME").or_else(|| var("USERPROFILE"))?;
        Some(LocationEnv {
            home,
            codex_home: var("CODEX_HOME"),
            claude_config_dir: var("CLAUDE_CONFIG_DIR"),
            cwd: std::env::current_dir().ok(),
            gemini_cli_home: var("GEMINI_CLI_HOME"),
            xdg_data_home: var("XDG_DATA_HOME"),
        })
    }
}

/// Every standard location of every supported agent for `env`, in a fixed
/// order (Codex, Claude Code, thClaws, Gemini CLI, opencode), each with whether it exists.
/// Reads only `~/.config/thclaws/recent_dirs.json` (an unreadable or
/// malformed one lists no project) and lists the directories of Gemini
/// CLI's `.gemini/tmp/`; never fails.
pub fn standard_locations(env: &LocationEnv) -> Vec<AgentLocation> {
    use LocationKind::{NotSession, Sessions};
    let mut out = Vec::new();
    let mut add = |agent: &'static str, path: PathBuf, kind: LocationKind, what: &'static str| {
        if !out.iter().any(|l: &AgentLocation| l.path == path) {
            let exists = path.exists();
            out.push(AgentLocation { agent, path, kind, what, exists });
        }
    };
    let codex = env.codex_home.clone().unwrap_or_else(|| env.home.join(".codex"));
    add("Codex", codex.join("sessions"), Sessions, "sessions");
    add("Codex", codex.join("archived_sessions"), Sessions, "archived sessions");
    add("Codex", codex.join("history.jsonl"), NotSession, "prompt history (history.jsonl)");
    add("Codex", codex.join("config.toml"), NotSession, "settings");
    let claude = env.claude_config_dir.clone().unwrap_or_else(|| env.home.join(".claude"));
    add("Claude Code", claude.join("projects"), Sessions, "sessions");
    add("Claude Code", claude.join("history.jsonl"), NotSession, "prompt history (history.jsonl)");
    add("Claude Code", claude.join("settings.json"), NotSession, "settings");
    add("Claude Code", env.home.join(".claude.json"), NotSession, "settings");
    let thclaws_config = env.home.join(".config").join("thclaws");
    let mut projects: Vec<PathBuf> = env.cwd.iter().cloned().collect();
    projects.extend(recent_dirs(&thclaws_config.join("recent_dirs.json")));
    for p in projects {
        add("thClaws", p.join(".thclaws").join("sessions"), Sessions, "sessions");
    }
    add("thClaws", thclaws_config.join("settings.json"), NotSession, "settings");
    let gemini = env.gemini_cli_home.clone().unwrap_or_else(|| env.home.clone()).join(".gemini");
    let gemini_tmp = gemini.join("tmp");
    // Project folders: those with chats or a prompt log (not `tmp/bin`, where
    // Gemini CLI keeps the tools it downloads).
    let gemini_projects: Vec<PathBuf> = subdirs(&gemini_tmp).into_iter().filter(|p| p.join("chats").is_dir() || p.join("logs.json").exists()).collect();
    if gemini_projects.is_empty() {
        add("Gemini CLI", gemini_tmp.clone(), Sessions, "sessions");
    }
    for p in &gemini_projects {
        add("Gemini CLI", p.join("chats"), Sessions, "sessions");
        add("Gemini CLI", p.join("logs.json"), NotSession, "prompt log (logs.json)");
    }
    add("Gemini CLI", gemini.join("settings.json"), NotSession, "settings");
    let opencode = env.xdg_data_home.clone().unwrap_or_else(|| env.home.join(".local").join("share")).join("opencode");
    add("opencode", opencode.join("opencode.db"), Sessions, "sessions (database)");
    add("opencode", opencode.join("storage"), Sessions, "sessions (JSON storage)");
    out
}

/// The directories directly in `dir`, sorted (none when it cannot be read).
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).map(|rd| rd.flatten().filter(|e| e.file_type().is_ok_and(|t| t.is_dir())).map(|e| e.path()).collect()).unwrap_or_default();
    v.sort();
    v
}

/// The most bytes of thClaws's `recent_dirs.json` read (1 MiB): a longer
/// file, or one that is not a regular file (a FIFO, `/dev/zero`), is
/// treated as malformed, never read to its end.
const MAX_RECENT_DIRS_BYTES: u64 = 1 << 20;

/// The directories of thClaws's `recent_dirs.json` (a JSON array of
/// strings); empty when absent, malformed, not a regular file or over
/// [`MAX_RECENT_DIRS_BYTES`].
fn recent_dirs(path: &Path) -> Vec<PathBuf> {
    use std::io::Read;
    let read = || -> Option<Vec<u8>> {
        if !std::fs::metadata(path).ok()?.is_file() {
            return None;
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path).ok()?.take(MAX_RECENT_DIRS_BYTES + 1).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 <= MAX_RECENT_DIRS_BYTES).then_some(bytes)
    };
    read()
        .and_then(|t| serde_json::from_slice::<Vec<String>>(&t).ok())
        .unwrap_or_default()
        .into_iter()
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .collect()
}

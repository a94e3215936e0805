//! Issue 27 item 3: import that knows where history lives. The agents'
//! standard locations ([`standard_locations`]), prompt logs classified as
//! not sessions (never turned into one), and byte-level import progress.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde_json::json;
use sessiondb::portable::*;
use sessiondb::*;

fn open(dir: &Path) -> SessionStore {
    SessionStore::open(OpenOptions {
        path: Some(dir.join("s.db").into()),
        key: KeySource::Bytes(DataKey::from_bytes(&[7; 32]).unwrap()),
        ..Default::default()
    })
    .unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const CODEX_HISTORY: &str = "{\"session_id\":\"019c8bfe-ec25-79e0-97d7-bda6a9c575ff\",\"ts\":1771878925,\"text\":\"fix the parser\"}\n\
{\"session_id\":\"019c8bfe-ec25-79e0-97d7-bda6a9c575ff\",\"ts\":1771878990,\"text\":\"and the lexer\"}\n";
const CLAUDE_HISTORY: &str = "{\"display\":\"update CLAUDE.md\",\"pastedContents\":{},\"timestamp\":1757238866000,\"project\":\"/home/u/p\",\"sessionId\":\"5c0375b4-57a5-4f26-b12d-d022ee4e51b7\"}\n";

/// Was a bug: `sessiondb import ~/.codex` turned Codex's `history.jsonl`
/// (a prompt log; the path said `.codex/`) into an empty session named
/// `history`. Claude Code's prompt log has a `sessionId`, which read as a
/// Claude Code session line.
#[test]
fn prompt_logs_are_not_sessions_and_are_counted_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let codex = dir.path().join(".codex");
    let claude = dir.path().join(".claude");
    write(&codex.join("history.jsonl"), CODEX_HISTORY);
    write(&claude.join("history.jsonl"), CLAUDE_HISTORY);
    assert_eq!(classify_file(&codex.join("history.jsonl")).unwrap(), FileKind::NotSession("Codex prompt history (history.jsonl)"));
    assert_eq!(classify_file(&claude.join("history.jsonl")).unwrap(), FileKind::NotSession("Claude Code prompt history (history.jsonl)"));
    assert_eq!(detect_format(&codex.join("history.jsonl")).unwrap(), None);
    // JSON lines none of which is a session line: not a session, even under `.codex/`.
    write(&codex.join("log").join("other.jsonl"), "{\"level\":\"info\",\"msg\":\"x\"}\n");
    assert_eq!(classify_file(&codex.join("log").join("other.jsonl")).unwrap(), FileKind::Unknown);
    // An empty file under `.thclaws/` is still one by its path (a session being started).
    write(&dir.path().join(".thclaws/sessions/sess-1.jsonl"), "");
    assert_eq!(classify_file(&dir.path().join(".thclaws/sessions/sess-1.jsonl")).unwrap(), FileKind::Session(SourceFormat::Thclaws));

    let store = open(dir.path());
    let report = import_paths(&store, &[codex.clone(), claude.clone()], &mut |_| {}).unwrap();
    let got: Vec<(String, ImportStatus, Option<String>)> = report
        .files
        .iter()
        .map(|f| (f.path.strip_prefix(dir.path()).unwrap().display().to_string(), f.status.clone(), f.not_session.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (".codex/history.jsonl".into(), ImportStatus::Unrecognized, Some("Codex prompt history (history.jsonl)".into())),
            (".codex/log/other.jsonl".into(), ImportStatus::Unrecognized, None),
            (".claude/history.jsonl".into(), ImportStatus::Unrecognized, Some("Claude Code prompt history (history.jsonl)".into())),
        ]
    );
    assert!(store.list_sessions(None).unwrap().is_empty(), "no session was made of a prompt log");
}

#[test]
fn standard_locations_cover_every_agent_with_env_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("proj");
    write(&home.join(".config/thclaws/recent_dirs.json"), &json!([project.to_str().unwrap(), "/elsewhere"]).to_string());
    write(&home.join(".codex/history.jsonl"), CODEX_HISTORY);
    std::fs::create_dir_all(home.join(".claude/projects")).unwrap();
    let env = LocationEnv { home: home.clone(), codex_home: None, claude_config_dir: None, cwd: Some(project.clone()), gemini_cli_home: None, xdg_data_home: None };
    let got: Vec<(&str, String, LocationKind, bool)> = standard_locations(&env)
        .into_iter()
        .map(|l| (l.agent, l.path.strip_prefix(dir.path()).map(|p| p.display().to_string()).unwrap_or(l.path.display().to_string()), l.kind, l.exists))
        .collect();
    use LocationKind::{NotSession as N, Sessions as S};
    let s = |x: &str| x.to_string();
    assert_eq!(
        got,
        vec![
            ("Codex", s("home/.codex/sessions"), S, false),
            ("Codex", s("home/.codex/archived_sessions"), S, false),
            ("Codex", s("home/.codex/history.jsonl"), N, true),
            ("Codex", s("home/.codex/config.toml"), N, false),
            ("Claude Code", s("home/.claude/projects"), S, true),
            ("Claude Code", s("home/.claude/history.jsonl"), N, false),
            ("Claude Code", s("home/.claude/settings.json"), N, false),
            ("Claude Code", s("home/.claude.json"), N, false),
            // The current directory is also the first recent one: listed once.
            ("thClaws", s("proj/.thclaws/sessions"), S, false),
            ("thClaws", s("/elsewhere/.thclaws/sessions"), S, false),
            ("thClaws", s("home/.config/thclaws/settings.json"), N, false),
            // No project under ~/.gemini/tmp yet: the folder itself.
            ("Gemini CLI", s("home/.gemini/tmp"), S, false),
            ("Gemini CLI", s("home/.gemini/settings.json"), N, false),
            ("opencode", s("home/.local/share/opencode/opencode.db"), S, false),
            ("opencode", s("home/.local/share/opencode/storage"), S, false),
        ]
    );
    let env = LocationEnv { codex_home: Some(dir.path().join("ch")), claude_config_dir: Some(dir.path().join("cc")), cwd: None, ..env };
    let paths: Vec<PathBuf> = standard_locations(&env).into_iter().map(|l| l.path).collect();
    assert_eq!(paths[0], dir.path().join("ch/sessions"));
    assert_eq!(paths[4], dir.path().join("cc/projects"));
    assert_eq!(paths[7], home.join(".claude.json"));
    let env = LocationEnv { xdg_data_home: Some(dir.path().join("xdg")), ..env };
    let paths: Vec<PathBuf> = standard_locations(&env).into_iter().map(|l| l.path).collect();
    assert_eq!(paths[paths.len() - 2..], [dir.path().join("xdg/opencode/opencode.db"), dir.path().join("xdg/opencode/storage")]);
}

/// The progress bar advanced per file: a 60 MB file showed `0 B`, then done.
#[test]
fn live_progress_advances_within_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big").join("sess-big.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut w = BufWriter::new(std::fs::File::create(&file).unwrap());
    writeln!(w, "{}", json!({"type":"header","id":"sess-big","model":"m","cwd":"/tmp","created_at":1_700_000_000})).unwrap();
    for n in 0..700u64 {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        writeln!(w, "{}", json!({"type":role,"content":[{"type":"text","text":format!("turn {n} ").repeat(600)}],"timestamp":1_700_000_000 + n})).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let small = dir.path().join("small.jsonl");
    std::fs::write(&small, format!("{}\n", json!({"type":"header","id":"sess-small","model":"m","cwd":"/tmp","created_at":1}))).unwrap();
    let size = std::fs::metadata(&file).unwrap().len();
    let total = size + std::fs::metadata(&small).unwrap().len();
    assert!(size > 3 * PROGRESS_READ_BYTES as u64, "{size}");
    let store = open(dir.path());
    let mut seen = Vec::new();
    let report = import_paths_live(&store, &[dir.path().join("big"), small.clone()], &mut |p| seen.push(p)).unwrap();
    assert_eq!(report.files.iter().map(|f| f.status.clone()).collect::<Vec<_>>(), vec![ImportStatus::Imported, ImportStatus::Imported]);
    let within: Vec<&ImportProgress> = seen.iter().filter(|p| p.files_done == 0 && p.bytes_done > 0 && p.bytes_done < size).collect();
    assert!(within.len() >= 3, "progress within the big file: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].bytes_done <= w[1].bytes_done), "never backwards: {seen:?}");
    assert!(seen.iter().all(|p| p.bytes_total == total && p.files_total == 2));
    assert_eq!(*seen.last().unwrap(), ImportProgress { files_done: 2, files_total: 2, bytes_done: total, bytes_total: total });
    // import_paths (what the hosts call) still reports once per file.
    let mut per_file = Vec::new();
    import_paths(&store, &[small], &mut |p| per_file.push(p)).unwrap();
    assert_eq!(per_file.len(), 1);
}

/// thClaws's `recent_dirs.json` replaced by a link to `/dev/zero` (or a
/// FIFO) is treated as malformed, never read to its end (it was read with
/// `read_to_string`, without bound): the standard locations are listed as
/// with no such file.
#[cfg(unix)]
#[test]
fn a_recent_dirs_file_that_is_a_device_or_a_fifo_is_ignored_unread() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let env = LocationEnv { home: home.clone(), codex_home: None, claude_config_dir: None, cwd: None, gemini_cli_home: None, xdg_data_home: None };
    std::fs::create_dir_all(home.join(".config/thclaws")).unwrap();
    let plain: Vec<PathBuf> = standard_locations(&env).into_iter().map(|l| l.path).collect();
    let rd = home.join(".config/thclaws/recent_dirs.json");
    std::os::unix::fs::symlink("/dev/zero", &rd).unwrap();
    assert_eq!(standard_locations(&env).into_iter().map(|l| l.path).collect::<Vec<_>>(), plain);
    std::fs::remove_file(&rd).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(&rd).status().unwrap().success());
    assert_eq!(standard_locations(&env).into_iter().map(|l| l.path).collect::<Vec<_>>(), plain);
}

//! Issue 27: readable `list` and `show` (exact output on a fixed fixture,
//! through a pipe and as on an 80-column terminal with a fixed clock:
//! `SESSIONDB_TERM_WIDTH` and `SESSIONDB_NOW_MS`), and `import --auto` on a
//! fake HOME with files in the agents' standard locations.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
/// 2026-01-04T00:00:00Z: three days after the fixture's first turn.
const NOW_MS: &str = "1767484800000";

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("key"), KEY).unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(dir.path().join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        Env { dir }
    }
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
        c.current_dir(self.dir.path())
            .env_remove("SESSIONDB_TERM_WIDTH")
            .env_remove("SESSIONDB_NOW_MS")
            .arg("--db")
            .arg(self.dir.path().join("s.db"))
            .arg("--key-file")
            .arg(self.dir.path().join("key"))
            .args(args);
        c
    }
    fn ok_with(&self, mut c: Command) -> String {
        let o: Output = c.output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    }
    /// Through a pipe (what a test sees by default).
    fn pipe(&self, args: &[&str]) -> String {
        self.ok_with(self.cmd(args))
    }
    /// As on an 80-column terminal at [`NOW_MS`].
    fn term(&self, args: &[&str]) -> String {
        let mut c = self.cmd(args);
        c.env("SESSIONDB_TERM_WIDTH", "80").env("SESSIONDB_NOW_MS", NOW_MS);
        self.ok_with(c)
    }
    fn write(&self, name: &str, lines: &[&str]) -> PathBuf {
        let p = self.dir.path().join(name);
        std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        p
    }
}

/// Three thClaws sessions: a lexer fix with a tool call, a result and
/// thinking (untitled: its first prompt is its title); a Thai prompt renamed
/// `Warehouse filter` after its last turn; an empty one.
fn fixture(e: &Env) {
    let a = e.write(
        "a.jsonl",
        &[
            r#"{"type":"header","id":"fix-lexer-0001","model":"claude-sonnet-4-6","cwd":"/w/parser","created_at":1767225600}"#,
            r#"{"type":"user","content":[{"type":"text","text":"Why does the lexer drop the last token\nwhen the input ends without a newline? It should keep it, like every other token it reads."}],"timestamp":1767225600}"#,
            r#"{"type":"assistant","content":[{"type":"thinking","content":"The scanner loop exits at EOF before flushing."},{"type":"text","text":"Let me run the tests first."},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cargo test -p lexer"}}],"timestamp":1767225660}"#,
            r#"{"type":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"test result: FAILED. 2 passed; 1 failed\nlast_token_at_eof ... FAILED"}],"timestamp":1767225720}"#,
            r#"{"type":"assistant","content":[{"type":"text","text":"The scanner stops at EOF before flushing the pending token: flush it in the EOF branch. 修正しました。"}],"timestamp":1767225780}"#,
        ],
    );
    let b = e.write(
        "b.jsonl",
        &[
            r#"{"type":"header","id":"fix-thai-0002","model":"zai/glm-5.1","cwd":"/w/shop","created_at":1767312000}"#,
            r#"{"type":"user","content":[{"type":"text","text":"เพิ่ม filter ที่หน้า product view ให้ filter by warehouse ได้"}],"timestamp":1767312000}"#,
            r#"{"type":"assistant","content":[{"type":"text","text":"ได้ครับ"}],"timestamp":1767312060}"#,
            r#"{"type":"rename","title":"Warehouse filter","timestamp":1767312100}"#,
        ],
    );
    let c = e.write("c.jsonl", &[r#"{"type":"header","id":"fix-empty-0003","model":"gpt-5","cwd":"/w","created_at":1767139200}"#]);
    e.pipe(&["import", a.to_str().unwrap(), b.to_str().unwrap(), c.to_str().unwrap()]);
}

#[test]
fn list_titles_every_session_and_orders_by_transcript_activity_not_renames() {
    let e = Env::new();
    fixture(&e);
    assert_eq!(
        e.pipe(&["list", "--all"]),
        "fix-thai-0002  Warehouse filter · zai/glm-5.1 · 2 msg · 2026-01-02T00:01:00Z\n\
         fix-lexer-000  Why does the lexer drop the last token when the input ends without a newline? It should keep it, like every other token it reads. · claude-sonnet-4-6 · 4 msg · 2026-01-01T00:03:00Z\n\
         fix-empty-000  (empty session) · gpt-5 · 0 msg · 2025-12-31T00:00:00Z\n"
    );
    // A rename is not activity: the renamed session keeps its place.
    e.pipe(&["rename", "fix-lexer", "Lexer drops the last token"]);
    let term = e.term(&["list", "--all"]);
    assert_eq!(
        term,
        "fix-thai-0002  Warehouse filter            2 msg · 1 day ago\n\
         fix-lexer-000  Lexer drops the last token  4 msg · 2 days ago\n\
         fix-empty-000  (empty session)             0 msg · 4 days ago\n"
    );
    e.pipe(&["rename", "Lexer drops the last token"]);
    let term = e.term(&["list", "--all"]);
    assert_eq!(
        term,
        "fix-thai-0002  Warehouse filter                               2 msg · 1 day ago\n\
         fix-lexer-000  Why does the lexer drop the last token when …  4 msg · 2 days ago\n\
         fix-empty-000  (empty session)                                0 msg · 4 days ago\n"
    );
    assert!(term.lines().all(|l| unicode_width(l) <= 80), "{term}");
    // Wider: the model column comes back.
    let mut c = e.cmd(&["list", "--all"]);
    c.env("SESSIONDB_TERM_WIDTH", "120").env("SESSIONDB_NOW_MS", NOW_MS);
    assert_eq!(
        e.ok_with(c),
        "fix-thai-0002  Warehouse filter                                                    zai/glm-5.1        2 msg · 1 day ago\n\
         fix-lexer-000  Why does the lexer drop the last token when the input ends withou…  claude-sonnet-4-6  4 msg · 2 days ago\n\
         fix-empty-000  (empty session)                                                     gpt-5              0 msg · 4 days ago\n"
    );
    let json: serde_json::Value = serde_json::from_str(&e.pipe(&["--json", "list", "--all"])).unwrap();
    let row = |i: usize| {
        let r = &json[i];
        (r["id"].as_str().unwrap(), r["title"].as_str().unwrap(), r["title_source"].as_str().unwrap(), r["first_prompt"].as_str(), r["updated_at"].as_str().unwrap())
    };
    assert_eq!(row(0), ("fix-thai-0002", "Warehouse filter", "name", Some("เพิ่ม filter ที่หน้า product view ให้ filter by warehouse ได้"), "2026-01-02T00:01:00Z"));
    assert_eq!(
        row(1),
        (
            "fix-lexer-0001",
            "Why does the lexer drop the last token when the input ends without a newline? It should keep it, like every other token it reads.",
            "first_prompt",
            Some("Why does the lexer drop the last token when the input ends without a newline? It should keep it, like every other token it reads."),
            "2026-01-01T00:03:00Z"
        )
    );
    assert_eq!(row(2), ("fix-empty-0003", "(empty session)", "none", None, "2025-12-31T00:00:00Z"));
    assert_eq!(json[1]["updated_at_ms"], 1_767_225_780_000i64);
}

/// Display width as a terminal counts it (CJK 2 columns).
fn unicode_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

#[test]
fn show_prints_readable_turns_fitted_to_80_columns() {
    let e = Env::new();
    fixture(&e);
    assert_eq!(
        e.term(&["show", "fix-lexer"]),
        "fix-lexer-0001  Why does the lexer drop the last token when the input ends with…\n\
         model claude-sonnet-4-6 · 4 entries · last activity 2 days ago\n\
         workspace: /w/parser\n\
         tokens: input 0 · output 0 · cached 0\n\
         \n\
         #1 user · 3 days ago · 2026-01-01T00:00:00Z\n\
         \x20 Why does the lexer drop the last token\n\
         \x20 when the input ends without a newline? It should keep it, like every other\n\
         \x20 token it reads.\n\
         \n\
         #2 assistant · 2 days ago · 2026-01-01T00:01:00Z\n\
         \x20 [thinking · 46 B]\n\
         \x20 Let me run the tests first.\n\
         \x20 → Bash · 33 B  {\"command\":\"cargo test -p lexer\"}\n\
         \n\
         #3 user · 2 days ago · 2026-01-01T00:02:00Z\n\
         \x20 ← Bash · 68 B  test result: FAILED. 2 passed; 1 failed last_token_at_eof ... …\n\
         \n\
         #4 assistant · 2 days ago · 2026-01-01T00:03:00Z\n\
         \x20 The scanner stops at EOF before flushing the pending token: flush it in the\n\
         \x20 EOF branch. 修正しました。\n"
    );
    // Through a pipe: ISO times, lines as they are (summaries still one line).
    assert_eq!(
        e.pipe(&["show", "fix-lexer", "--from", "2", "--limit", "2"]),
        "fix-lexer-0001  Why does the lexer drop the last token when the input ends without a newline? It should keep it, like every other token it reads.\n\
         model claude-sonnet-4-6 · 4 entries · last activity 2026-01-01T00:03:00Z\n\
         workspace: /w/parser\n\
         tokens: input 0 · output 0 · cached 0\n\
         \n\
         #2 assistant · 2026-01-01T00:01:00Z\n\
         \x20 [thinking · 46 B]\n\
         \x20 Let me run the tests first.\n\
         \x20 → Bash · 33 B  {\"command\":\"cargo test -p lexer\"}\n\
         \n\
         #3 user · 2026-01-01T00:02:00Z\n\
         \x20 ← Bash · 68 B  test result: FAILED. 2 passed; 1 failed last_token_at_eof ... FAILED\n\
         (1 earlier and 1 more entries: show --from 4)\n"
    );
    // --raw: the stored JSON blocks.
    let raw = e.pipe(&["show", "fix-lexer", "--raw", "--from", "3", "--limit", "1"]);
    assert!(
        raw.ends_with(
            "--- #3 user (2026-01-01T00:02:00Z)\n\
             [{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"test result: FAILED. 2 passed; 1 failed\\nlast_token_at_eof ... FAILED\"}]\n\
             (2 earlier and 1 more entries: show --from 4)\n"
        ),
        "{raw}"
    );
}

/// A HOME with Codex, Claude Code and thClaws history in their standard
/// places, prompt logs and settings beside them.
fn fake_home(root: &Path) -> (PathBuf, PathBuf) {
    let home = root.join("home");
    let project = root.join("work").join("shop");
    let put = |p: PathBuf, text: &str| {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    put(
        home.join(".codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"),
        concat!(
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"019c8bfe-ec25-79e0-97d7-bda6a9c575ff","timestamp":"2026-01-01T00:00:00Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.1"}}"#,
            "\n",
            r#"{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"fix the parser"}]}}"#,
            "\n",
        ),
    );
    put(home.join(".codex/history.jsonl"), "{\"session_id\":\"019c8bfe-ec25-79e0-97d7-bda6a9c575ff\",\"ts\":1767225601,\"text\":\"fix the parser\"}\n");
    put(home.join(".codex/config.toml"), "model = \"gpt-5\"\n");
    put(
        home.join(".claude/projects/-w-app/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"),
        concat!(
            r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"5c0375b4-57a5-4f26-b12d-d022ee4e51b7","cwd":"/w/app","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"update the README"}}"#,
            "\n"
        ),
    );
    put(home.join(".claude/history.jsonl"), "{\"display\":\"update the README\",\"pastedContents\":{},\"timestamp\":1767225600000,\"project\":\"/w/app\"}\n");
    put(home.join(".claude/settings.json"), "{}\n");
    put(home.join(".config/thclaws/recent_dirs.json"), &serde_json::json!([project.to_str().unwrap()]).to_string());
    put(
        project.join(".thclaws/sessions/sess-18b0083aead7f4d7.jsonl"),
        "{\"type\":\"header\",\"id\":\"sess-18b0083aead7f4d7\",\"model\":\"zai/glm-5.1\",\"cwd\":\"/w/shop\",\"created_at\":1767225600}\n\
         {\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":1767225600}\n",
    );
    (home, project)
}

#[test]
fn import_auto_finds_every_agent_and_skips_prompt_logs_and_settings() {
    let e = Env::new();
    let (home, _project) = fake_home(e.dir.path());
    let run = |json: bool| {
        let mut c = e.cmd(if json { &["--json", "import", "--auto"] } else { &["import", "--auto"] });
        c.env("HOME", &home).env_remove("CODEX_HOME").env_remove("CLAUDE_CONFIG_DIR").env_remove("GEMINI_CLI_HOME").env_remove("XDG_DATA_HOME").current_dir(&home);
        e.ok_with(c)
    };
    let first = run(false);
    assert_eq!(
        first,
        "Codex        ~/.codex/sessions  1 session file(s): 1 imported (1 new session(s), 1 turn(s))\n\
         Codex        ~/.codex/archived_sessions  not present\n\
         Codex        ~/.codex/history.jsonl  skipped: not a session (prompt history (history.jsonl))\n\
         Codex        ~/.codex/config.toml  skipped: not a session (settings)\n\
         Claude Code  ~/.claude/projects  1 session file(s): 1 imported (1 new session(s), 1 turn(s))\n\
         Claude Code  ~/.claude/history.jsonl  skipped: not a session (prompt history (history.jsonl))\n\
         Claude Code  ~/.claude/settings.json  skipped: not a session (settings)\n\
         thClaws      ~/.thclaws/sessions  not present\n\
         thClaws      "
            .to_string()
            + &format!(
                "{}  1 session file(s): 1 imported (1 new session(s), 1 turn(s))\n\
                 Gemini CLI   ~/.gemini/tmp  not present\n\
                 opencode     ~/.local/share/opencode/opencode.db  not present\n\
                 opencode     ~/.local/share/opencode/storage  not present\n\
                 total: 3 turn(s) imported into 3 new session(s) from 3 file(s); 0 up to date; 4 skipped as not sessions; 0 failed\n",
                e.dir.path().join("work/shop/.thclaws/sessions").display()
            )
    );
    let ids: Vec<String> = serde_json::from_str::<serde_json::Value>(&e.pipe(&["--json", "list", "--all"])).unwrap().as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    let mut ids = ids;
    ids.sort();
    assert_eq!(ids, ["019c8bfe-ec25-79e0-97d7-bda6a9c575ff", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7", "sess-18b0083aead7f4d7"], "no session named `history`");
    // Again: everything up to date.
    let again = run(false);
    assert!(again.ends_with("total: 0 turn(s) imported into 0 new session(s) from 0 file(s); 3 up to date; 4 skipped as not sessions; 0 failed\n"), "{again}");
    let j: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    assert_eq!(j["totals"]["up_to_date"], 3);
    assert_eq!(j["totals"]["not_sessions"], 4);
    assert_eq!(j["locations"][2]["what"], "prompt history (history.jsonl)");
    assert_eq!(j["locations"][2]["kind"], "not_session");
}

/// Was a bug: `sessiondb import ~/.codex` made an empty session `history`.
#[test]
fn import_of_an_agent_home_skips_its_prompt_log() {
    let e = Env::new();
    let (home, _) = fake_home(e.dir.path());
    let out = e.pipe(&["import", home.join(".codex").to_str().unwrap()]);
    let h = home.join(".codex/history.jsonl");
    assert!(out.contains(&format!("{} [-] Skipped: not a session (Codex prompt history (history.jsonl))\n", h.display())), "{out}");
    assert!(out.ends_with("2 file(s), 1 turn(s) imported, 1 skipped as not sessions\n"), "{out}");
    assert!(!e.pipe(&["list", "--all"]).contains("history"));
}

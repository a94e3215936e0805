//! Issue 28 item 6: `sessiondb import` reads a Gemini CLI chat file (it
//! was `Unrecognized`, exit 2), and `import --auto` finds Gemini CLI's
//! chats under a fake HOME (`~/.gemini/tmp/<project>/chats/`) and under
//! `$GEMINI_CLI_HOME`, skipping its prompt log. The files are the core
//! tests' handmade ones (`core/tests/data/gemini/`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
const JSONL: &str = "session-2026-08-20T10-00-a1b2c3d4.jsonl";
const DOC: &str = "session-2026-03-01T09-00-c0ffee00.json";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/data/gemini").join(name)
}

fn cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
    c.current_dir(dir).arg("--db").arg(dir.join("s.db")).arg("--key-file").arg(dir.join("key")).args(args);
    c
}

fn setup() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("key"), KEY).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(d.path().join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    d
}

fn ok(mut c: Command) -> String {
    let o: Output = c.output().unwrap();
    assert!(o.status.success(), "exit {:?}: {}{}", o.status.code(), String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

#[test]
fn import_of_a_gemini_cli_chat_file_imports_it_and_again_is_up_to_date() {
    let d = setup();
    let p = d.path().join(JSONL);
    std::fs::copy(fixture(JSONL), &p).unwrap();
    let j: serde_json::Value = serde_json::from_str(&ok(cmd(d.path(), &["--json", "import", p.to_str().unwrap()]))).unwrap();
    let f = &j["files"][0];
    assert_eq!((f["format"].as_str(), f["status"].as_str()), (Some("gemini-cli"), Some("imported")), "{j}");
    let s = &f["sessions"][0];
    assert_eq!(s["session_id"], "a1b2c3d4-1111-4222-8333-444455556666");
    assert_eq!((s["entries"].as_u64(), s["tool_calls"].as_u64(), s["input_tokens"].as_u64(), s["output_tokens"].as_u64()), (Some(13), Some(3), Some(4710), Some(160)));
    let again = ok(cmd(d.path(), &["import", p.to_str().unwrap()]));
    assert_eq!(again, format!("{} [GeminiCli] UpToDate\n1 file(s), 0 turn(s) imported\n", p.display()));
    let list = ok(cmd(d.path(), &["list", "--all"]));
    assert!(list.contains("Fix the bug in main.rs"), "{list}");
}

#[test]
fn import_auto_finds_gemini_chats_in_home_and_gemini_cli_home() {
    let d = setup();
    let home = d.path().join("home");
    let chats = home.join(".gemini/tmp/my-proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::copy(fixture(JSONL), chats.join(JSONL)).unwrap();
    std::fs::copy(fixture(DOC), chats.join(DOC)).unwrap();
    std::fs::write(home.join(".gemini/tmp/my-proj/logs.json"), "[\n  {\n    \"sessionId\": \"s\",\n    \"messageId\": 0,\n    \"type\": \"user\",\n    \"message\": \"hi\"\n  }\n]").unwrap();
    let run = |gemini_home: Option<&Path>| {
        let mut c = cmd(d.path(), &["--json", "import", "--auto"]);
        c.env("HOME", &home).env_remove("CODEX_HOME").env_remove("CLAUDE_CONFIG_DIR").current_dir(&home);
        match gemini_home {
            Some(g) => c.env("GEMINI_CLI_HOME", g),
            None => c.env_remove("GEMINI_CLI_HOME"),
        };
        serde_json::from_str::<serde_json::Value>(&ok(c)).unwrap()
    };
    let j = run(None);
    let gem: Vec<(String, String, bool)> = j["locations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["agent"] == "Gemini CLI")
        .map(|l| (l["path"].as_str().unwrap().strip_prefix(home.to_str().unwrap()).unwrap().to_string(), l["what"].as_str().unwrap().to_string(), l["exists"].as_bool().unwrap()))
        .collect();
    assert_eq!(
        gem,
        [
            ("/.gemini/tmp/my-proj/chats".to_string(), "sessions".to_string(), true),
            ("/.gemini/tmp/my-proj/logs.json".to_string(), "prompt log (logs.json)".to_string(), true),
            ("/.gemini/settings.json".to_string(), "settings".to_string(), false),
        ]
    );
    assert_eq!((j["totals"]["imported"].as_u64(), j["totals"]["not_sessions"].as_u64()), (Some(2), Some(1)), "{}", j["totals"]);
    let mut ids: Vec<String> = serde_json::from_str::<serde_json::Value>(&ok(cmd(d.path(), &["--json", "list", "--all"]))).unwrap().as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap().to_string()).collect();
    ids.sort();
    assert_eq!(ids, ["a1b2c3d4-1111-4222-8333-444455556666", "c0ffee00-3333-4444-8555-666677778888"]);
    // `$GEMINI_CLI_HOME` moves Gemini CLI's home: the same chats there are
    // found there (and are already stored: nothing new).
    let alt = d.path().join("alt");
    std::fs::create_dir_all(alt.join(".gemini/tmp/p2/chats")).unwrap();
    std::fs::copy(fixture(JSONL), alt.join(".gemini/tmp/p2/chats").join(JSONL)).unwrap();
    let j = run(Some(&alt));
    let found: Vec<&str> = j["locations"].as_array().unwrap().iter().filter(|l| l["agent"] == "Gemini CLI" && l["exists"] == true).map(|l| l["path"].as_str().unwrap()).collect();
    assert_eq!(found, [alt.join(".gemini/tmp/p2/chats").to_str().unwrap()]);
    assert_eq!(j["totals"]["imported"].as_u64(), Some(1), "{}", j["totals"]);
}

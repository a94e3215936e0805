//! `sessiondb import` of opencode sessions (issue 28 item 6): a storage
//! tree named on the command line, and `import --auto` finding opencode's
//! data directory under a fake `$XDG_DATA_HOME` (and under `~/.local/share`
//! when it is unset). Record shapes as opencode's `session/message-v2.ts`.

use std::path::Path;
use std::process::{Command, Output};

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";
const SID: &str = "ses_cli0000000001";

fn cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
    c.current_dir(dir).arg("--db").arg(dir.join("s.db")).arg("--key-file").arg(dir.join("key")).args(args);
    c
}

fn ok(mut c: Command) -> String {
    let o: Output = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn put(path: &Path, v: serde_json::Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

/// One session: a question, an answer that ran one tool (one step).
fn storage(root: &Path) {
    use serde_json::json;
    put(&root.join("session/prj_1").join(format!("{SID}.json")), json!({"id": SID, "projectID": "prj_1", "directory": "/w/app",
        "title": "List the files", "version": "1.0.150", "time": {"created": 1_767_225_600_000i64, "updated": 1_767_225_660_000i64}}));
    put(&root.join("message").join(SID).join("msg_1.json"), json!({"id": "msg_1", "sessionID": SID, "role": "user",
        "time": {"created": 1_767_225_601_000i64}, "agent": "build", "model": {"providerID": "openai", "modelID": "gpt-5"}}));
    put(&root.join("part/msg_1/prt_1a.json"), json!({"id": "prt_1a", "sessionID": SID, "messageID": "msg_1", "type": "text", "text": "list the files"}));
    put(&root.join("message").join(SID).join("msg_2.json"), json!({"id": "msg_2", "sessionID": SID, "role": "assistant",
        "time": {"created": 1_767_225_602_000i64, "completed": 1_767_225_609_000i64}, "parentID": "msg_1", "modelID": "gpt-5",
        "providerID": "openai", "mode": "build", "agent": "build", "path": {"cwd": "/w/app", "root": "/w/app"}, "cost": 0,
        "tokens": {"input": 40, "output": 9, "reasoning": 1, "cache": {"read": 300, "write": 0}}}));
    put(&root.join("part/msg_2/prt_2a.json"), json!({"id": "prt_2a", "sessionID": SID, "messageID": "msg_2", "type": "step-start"}));
    put(&root.join("part/msg_2/prt_2b.json"), json!({"id": "prt_2b", "sessionID": SID, "messageID": "msg_2", "type": "tool", "callID": "call_1",
        "tool": "bash", "state": {"status": "completed", "input": {"command": "ls"}, "output": "a.rs\nb.rs\n", "title": "ls", "metadata": {},
        "time": {"start": 1_767_225_603_000i64, "end": 1_767_225_604_000i64}}}));
    put(&root.join("part/msg_2/prt_2c.json"), json!({"id": "prt_2c", "sessionID": SID, "messageID": "msg_2", "type": "step-finish",
        "reason": "stop", "cost": 0, "tokens": {"input": 40, "output": 9, "reasoning": 1, "cache": {"read": 300, "write": 0}}}));
}

fn env() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("key"), KEY).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(dir.path().join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    dir
}

#[test]
fn import_of_an_opencode_storage_directory() {
    let dir = env();
    let root = dir.path().join("opencode/storage");
    storage(&root);
    let out = ok(cmd(dir.path(), &["import", root.to_str().unwrap()]));
    // 3 turns (the question, the answer's tool call, its result), 1 call, 1 result;
    // tokens: input 40 + 300 cached, output 9 + 1 reasoning.
    assert_eq!(
        out,
        format!(
            "{} [Opencode] Imported\n  {SID} (new): 3 turns, 1 tool calls, 1 tool results, tokens in 340 / out 10 / cached 300\n1 file(s), 3 turn(s) imported\n",
            root.display()
        )
    );
    let again = ok(cmd(dir.path(), &["import", root.to_str().unwrap()]));
    assert!(again.contains("[Opencode] UpToDate\n"), "{again}");
    assert!(again.ends_with("1 file(s), 0 turn(s) imported\n"), "{again}");
}

#[test]
fn import_auto_finds_opencode_under_xdg_data_home_and_the_default() {
    let dir = env();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let xdg = dir.path().join("xdg");
    storage(&xdg.join("opencode/storage"));
    let mut c = cmd(dir.path(), &["import", "--auto"]);
    c.env("HOME", &home).env("XDG_DATA_HOME", &xdg).env_remove("CODEX_HOME").env_remove("CLAUDE_CONFIG_DIR").current_dir(&home);
    let out = ok(c);
    assert!(out.contains(&format!("opencode     {}  not present\n", xdg.join("opencode/opencode.db").display())), "{out}");
    assert!(out.contains(&format!("opencode     {}  1 session file(s): 1 imported (1 new session(s), 3 turn(s))\n", xdg.join("opencode/storage").display())), "{out}");
    assert!(out.ends_with("total: 3 turn(s) imported into 1 new session(s) from 1 file(s); 0 up to date; 0 skipped as not sessions; 0 failed\n"), "{out}");

    // XDG_DATA_HOME unset: ~/.local/share/opencode.
    let dir = env();
    let home = dir.path().join("home");
    storage(&home.join(".local/share/opencode/storage"));
    let mut c = cmd(dir.path(), &["import", "--auto"]);
    c.env("HOME", &home).env_remove("XDG_DATA_HOME").env_remove("CODEX_HOME").env_remove("CLAUDE_CONFIG_DIR").current_dir(&home);
    let out = ok(c);
    assert!(out.contains("opencode     ~/.local/share/opencode/storage  1 session file(s): 1 imported (1 new session(s), 3 turn(s))\n"), "{out}");
}

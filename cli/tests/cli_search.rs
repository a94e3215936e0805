//! `sessiondb search` and the search fallback of `resume` end to end (issue 26).

use std::process::{Command, Output, Stdio};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("key"), "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n").unwrap();
        #[cfg(unix)]
        std::fs::set_permissions(dir.path().join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        Env { dir }
    }
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_sessiondb"))
            .current_dir(self.dir.path())
            .arg("--db")
            .arg(self.dir.path().join("sessions.db"))
            .arg("--key-file")
            .arg(self.dir.path().join("key"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }
    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    }
}

#[test]
fn search_text_json_sessions_rebuild_and_resume_by_words() {
    let e = Env::new();
    let a = e.ok(&["new", "--name", "Flaky migration", "--unbound"]).trim().to_string();
    let b = e.ok(&["new", "--name", "Other", "--unbound"]).trim().to_string();
    e.ok(&["append", &a, "the retry_busy loop in openDatabase hangs"]);
    e.ok(&["append", &a, "--role", "assistant", "Fixed: core/src/store/mod.rs now retries ERR_SOCKET_TIMEOUT"]);
    e.ok(&["append", &b, "retry later 数据库 😀"]);

    // --json: one object; highlights in code points by default.
    let v: serde_json::Value = serde_json::from_str(&e.ok(&["search", "--json", "ERR_SOCKET_TIMEOUT"])).unwrap();
    assert_eq!(v["total"], 1);
    let h = &v["hits"][0];
    assert_eq!((h["session_id"].as_str().unwrap(), h["seq"].as_u64(), h["role"].as_str()), (a.as_str(), Some(2), Some("assistant")));
    assert_eq!(h["snippet"], "Fixed: core/src/store/mod.rs now retries ERR_SOCKET_TIMEOUT");
    assert_eq!(h["highlights"], serde_json::json!([{ "start": 41, "end": 59 }]));
    let v: serde_json::Value = serde_json::from_str(&e.ok(&["search", "--json", "--offsets", "utf16", "数据库"])).unwrap();
    assert_eq!(v["hits"][0]["highlights"], serde_json::json!([{ "start": 12, "end": 15 }]));

    // Text: no ANSI when stdout is not a terminal.
    let out = e.ok(&["search", "store"]);
    assert_eq!(out, format!("{a}  #2 assistant  {}\n    Fixed: core/src/store/mod.rs now retries ERR_SOCKET_TIMEOUT\n1 of 1 match(es)\n", time_of(&e, &a, 2)));
    let out = e.ok(&["search", "--sessions", "retry"]);
    assert!(out.ends_with("2 of 2 session(s)\n"), "{out}");

    // A bad query is exit 2 naming the position.
    let o = e.run(&["search", "x \"open"]);
    assert_eq!((o.status.code(), String::from_utf8_lossy(&o.stderr).trim()), (Some(2), "sessiondb: invalid input: search query: unclosed quote at character 3"));

    // --rebuild alone reports what it indexed (2 titles and 3 entries).
    assert!(e.ok(&["search", "--rebuild"]).starts_with("indexed 5 documents (146 bytes of text); index "));

    // resume WORDS: one session matches → resumed; several → listed, exit 4.
    assert_eq!(e.ok(&["resume", "openDatabase", "hangs"]), format!("loaded Flaky migration ({a}) (2 message(s))\n"));
    let o = e.run(&["resume", "retry"]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.starts_with("sessiondb: 2 sessions match these words; resume one by id:\n"), "{err}");
    assert!(err.contains(&format!("  {a} Flaky migration  the retry_busy loop in openDatabase hangs")), "{err}");
    let o = e.run(&["resume", "wombat"]);
    assert_eq!(o.status.code(), Some(3));
}

fn time_of(e: &Env, sid: &str, seq: u64) -> String {
    let v: serde_json::Value = serde_json::from_str(&e.ok(&["search", "--json", &format!("session:{sid}"), "--limit", "100"])).unwrap();
    v["hits"].as_array().unwrap().iter().find(|h| h["seq"].as_u64() == Some(seq)).unwrap()["time"].as_str().unwrap().to_string()
}

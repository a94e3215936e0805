//! The `sessiondb` binary end to end with a key file (no OS keyring).

use std::path::Path;
use std::process::{Command, Output, Stdio};

struct Env {
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("key"), "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n").unwrap();
        set_mode(&dir.path().join("key"), 0o600);
        Env { dir }
    }
    fn run_in(&self, cwd: &Path, args: &[&str], stdin: Option<&str>) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
        c.current_dir(cwd)
            .arg("--db")
            .arg(self.dir.path().join("db/sessions.db"))
            .arg("--key-file")
            .arg(self.dir.path().join("key"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        if let Some(s) = stdin {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
        } else {
            drop(child.stdin.take());
        }
        child.wait_with_output().unwrap()
    }
    fn run(&self, args: &[&str]) -> Output {
        self.run_in(self.dir.path(), args, None)
    }
    fn db(&self) -> std::path::PathBuf {
        self.dir.path().join("db/sessions.db")
    }
    /// Exit code and stderr of a command.
    fn fails(&self, args: &[&str]) -> (Option<i32>, String) {
        let o = self.run(args);
        (o.status.code(), String::from_utf8(o.stderr).unwrap())
    }
    fn ok(&self, args: &[&str]) -> String {
        let o = self.run(args);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    }
}

fn set_mode(path: &Path, mode: u32) {
    #[cfg(unix)]
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode)).unwrap();
}

#[test]
fn new_append_list_show_rename_journal_delete() {
    let e = Env::new();
    let id = e.ok(&["new", "--name", "first"]).trim().to_string();
    assert_eq!(String::from_utf8(e.run_in(e.dir.path(), &["append", &id], Some("from stdin")).stdout).unwrap().trim(), "1");
    assert_eq!(e.ok(&["append", &id, "--role", "assistant", "reply"]).trim(), "2");
    let list: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "list"])).unwrap();
    assert_eq!(list[0]["id"], id.as_str());
    assert_eq!(list[0]["entry_count"], 2);
    assert_eq!(list[0]["name"], "first");
    let other: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "list", "--other"])).unwrap();
    assert_eq!(other.as_array().unwrap().len(), 0, "bound to the cwd, not another workspace");
    let show: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "show", &id[..13]])).unwrap();
    assert_eq!(show["transcript"][0]["content"], "from stdin");
    assert_eq!(show["transcript"][1]["role"], "assistant");
    assert_eq!(e.ok(&["rename", &id, "second"]).trim(), "session renamed → second");
    assert_eq!(e.ok(&["rename", "second"]).trim(), "session title cleared");
    let journal: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "journal", &id])).unwrap();
    let kinds: Vec<&str> = journal.as_array().unwrap().iter().map(|j| j["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["SessionCreated", "TranscriptAppended", "TranscriptAppended", "SessionRenamed", "SessionRenamed"]);
    e.ok(&["delete", &id]);
    assert_eq!(e.run(&["show", &id]).status.code(), Some(3));
}

#[test]
fn exit_codes_a_shell_user_can_act_on() {
    let e = Env::new();
    let id = e.ok(&["new"]).trim().to_string();
    assert_eq!(e.run(&["show", "nope"]).status.code(), Some(3));
    assert_eq!(e.run(&["append", &id, "--role", "bogus", "x"]).status.code(), Some(2));
    std::fs::write(e.dir.path().join("key"), "BBECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=").unwrap();
    let o = e.run(&["list"]);
    assert_eq!(o.status.code(), Some(11));
    assert!(String::from_utf8_lossy(&o.stderr).contains("key mismatch"));
    std::fs::write(e.dir.path().join("key"), "short").unwrap();
    assert_eq!(e.run(&["list"]).status.code(), Some(2));
}

#[test]
fn context_and_compact_report_overflow_with_exit_13() {
    let e = Env::new();
    let id = e.ok(&["new", "--unbound"]).trim().to_string();
    for i in 0..6 {
        let body = format!("turn {i} ").repeat(300);
        e.run_in(e.dir.path(), &["append", &id, "--role", if i % 2 == 0 { "user" } else { "assistant" }], Some(&body));
    }
    let st: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "context", &id, "--window", "8000"])).unwrap();
    // capacity = 8000 - 640 - 2048 = 5312
    assert_eq!(st["capacity"], 5312);
    assert_eq!(st["turns"].as_array().unwrap().len(), 6);
    let o = e.run(&["compact", &id, "--window", "3000"]);
    assert_eq!(o.status.code(), Some(13), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("protected tokens"));
}

/// Red-team finding: `sessiondb context` on a 100,000-turn thClaws file
/// ending in a 20 KB compaction took 3.97 GB (every turn carried a copy of
/// the run's transformation). `--json` now lists the run once
/// (`compacted`) and each turn names it (`compacted_by`).
#[test]
fn context_json_lists_a_compaction_run_once_and_turns_name_it() {
    let e = Env::new();
    let mut lines = vec![r#"{"type":"header","id":"runs","model":"openai/gpt-4o","cwd":"/w","created_at":1}"#.to_string()];
    for i in 0..500 {
        lines.push(serde_json::json!({"type": if i % 2 == 0 { "user" } else { "assistant" }, "content": [{"type": "text", "text": format!("turn {i}")}], "timestamp": 1 + i}).to_string());
    }
    let summary = "s".repeat(20_480);
    lines.push(serde_json::json!({"type": "compaction", "messages": [{"role": "user", "content": [{"type": "text", "text": summary}]}], "replaces_count": 500, "timestamp": 600}).to_string());
    let f = e.dir.path().join("runs.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    e.ok(&["import", f.to_str().unwrap()]);
    let st: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "context", "runs"])).unwrap();
    let runs = st["compacted"].as_array().unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!((runs[0]["first_seq"].as_u64(), runs[0]["last_seq"].as_u64()), (Some(1), Some(500)));
    let t = &runs[0]["transformation"];
    assert_eq!((t["seq"].as_u64(), t["last_seq"].as_u64(), t["summary"].as_str()), (Some(1), Some(500), Some(format!("user: {summary}").as_str())));
    let turns = st["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 500);
    assert!(turns.iter().all(|x| x.as_object().unwrap().len() == 4 && x["state"] == "compacted" && x["compacted_by"] == 1), "{}", turns[0]);
    assert_eq!(turns[499], serde_json::json!({"seq": 500, "state": "compacted", "pinned": false, "compacted_by": 1}));
}

#[test]
fn compact_text_counts_the_turns_of_each_run() {
    // A run of turns is one transformation: the text says how many turns it
    // covers and which seqs (it said "compacted 1 turn(s)" for a run of 16).
    let e = Env::new();
    let id = e.ok(&["new", "--unbound"]).trim().to_string();
    for i in 1..=24 {
        let body = format!("turn {i} ").repeat(300);
        e.run_in(e.dir.path(), &["append", &id, "--role", if i % 2 == 1 { "user" } else { "assistant" }], Some(&body));
    }
    let plan: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "compact", &id, "--window", "16000", "--dry-run"])).unwrap();
    let runs = plan["transformations"].as_array().unwrap();
    let turns: u64 = runs.iter().map(|t| t["last_seq"].as_u64().unwrap_or(t["seq"].as_u64().unwrap()) - t["seq"].as_u64().unwrap() + 1).sum();
    assert!(turns > runs.len() as u64, "a run of several turns: {plan}");
    let text = e.ok(&["compact", &id, "--window", "16000", "--dry-run"]);
    let first = &runs[0];
    assert!(
        text.starts_with(&format!(
            "would compact {turns} turn(s) in {} run(s): {} → {} tokens (capacity 12672, target 70%)\n  #{}–{} ",
            runs.len(),
            plan["tokens_before"],
            plan["tokens_after"],
            first["seq"],
            first["last_seq"]
        )),
        "{text}"
    );
}

#[test]
fn import_samples_then_export_round_trips() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples");
    if !samples.exists() {
        eprintln!("SKIP: ../shared/samples is absent");
        return;
    }
    let e = Env::new();
    let rep: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "import", samples.to_str().unwrap()])).unwrap();
    assert_eq!(rep["files"].as_array().unwrap().len(), 9);
    let again: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "import", samples.to_str().unwrap()])).unwrap();
    assert!(again["files"].as_array().unwrap().iter().all(|f| f["status"] == "up_to_date"), "{again}");
    let out = e.dir.path().join("out.jsonl");
    e.ok(&["export", "sess-18b0133eac539936", "-o", out.to_str().unwrap()]);
    let text = std::fs::read_to_string(&out).unwrap();
    let turns = text.lines().filter(|l| l.starts_with("{\"type\":\"user\"") || l.starts_with("{\"type\":\"assistant\"")).count();
    assert_eq!(turns, 102);
    let show: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "resume", "sess-18b0133e"])).unwrap();
    assert_eq!(show["entry_count"], 102);
}

#[test]
fn unicode_session_ids_are_cut_on_character_boundaries_in_listings() {
    let e = Env::new();
    let f = e.dir.path().join("sess.jsonl");
    std::fs::write(
        &f,
        "{\"type\":\"header\",\"id\":\"ééééééééééé-1\",\"model\":\"m\",\"cwd\":\"/w\",\"created_at\":1700000000}\n\
         {\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"timestamp\":1700000001}\n",
    )
    .unwrap();
    e.ok(&["import", f.to_str().unwrap()]);
    let out = e.ok(&["list", "--all"]);
    assert!(out.starts_with("ééééééééééé-1"), "{out}");
}

#[test]
fn invalid_utf8_on_stdin_and_a_binary_key_file_are_invalid_input() {
    let e = Env::new();
    let id = e.ok(&["new"]).trim().to_string();
    let mut c = Command::new(env!("CARGO_BIN_EXE_sessiondb"));
    c.arg("--db").arg(e.dir.path().join("db/sessions.db")).arg("--key-file").arg(e.dir.path().join("key"));
    let mut child = c.args(["append", &id]).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&[0x66, 0xff, 0xfe]).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(e.dir.path().join("key"), [0xffu8; 32]).unwrap();
    let o = e.run(&["list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--key-file"));
}

/// A thClaws file of one session `id` with one user turn.
fn thclaws_file(path: &Path, id: &str) {
    std::fs::write(
        path,
        format!(
            "{{\"type\":\"header\",\"id\":\"{id}\",\"model\":\"m\",\"cwd\":\"/w\",\"created_at\":1700000000}}\n\
             {{\"type\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"hi\"}}],\"timestamp\":1700000001}}\n"
        ),
    )
    .unwrap();
}

#[test]
fn list_shows_ids_long_enough_to_resume() {
    // Imported sidechains share their session's first 13 characters: the
    // rows show as many as tell them apart, and that prefix resolves.
    let e = Env::new();
    thclaws_file(&e.dir.path().join("a.jsonl"), "5c0375b4-57a5-main");
    thclaws_file(&e.dir.path().join("b.jsonl"), "5c0375b4-57a5-main.sidechain.1");
    thclaws_file(&e.dir.path().join("c.jsonl"), "0a1b2c3d");
    e.ok(&["import", e.dir.path().to_str().unwrap()]);
    let out = e.ok(&["list", "--all"]);
    let mut prefixes: Vec<&str> = out.lines().map(|l| l.split("  ").next().unwrap()).collect();
    prefixes.sort();
    assert_eq!(prefixes, ["0a1b2c3d", "5c0375b4-57a5-main", "5c0375b4-57a5-main."], "{out}");
    assert!(e.ok(&["show", "5c0375b4-57a5-main."]).starts_with("5c0375b4-57a5"));
    // One session alone keeps the 13-character column.
    let one = Env::new();
    thclaws_file(&one.dir.path().join("a.jsonl"), "5c0375b4-57a5-main");
    one.ok(&["import", one.dir.path().to_str().unwrap()]);
    assert!(one.ok(&["list", "--all"]).starts_with("5c0375b4-57a5  "));
}

#[test]
fn journal_resolves_the_session_like_every_other_command() {
    let e = Env::new();
    let id = e.ok(&["new", "--name", "kept"]).trim().to_string();
    assert_eq!(
        e.fails(&["journal", "nonexistent"]),
        (Some(3), "sessiondb: not found: session `nonexistent` (no session has that id, id prefix or exact title; `sessiondb list --all` lists them)\n".into())
    );
    let (code, err) = e.fails(&["journal", "no such title"]);
    assert_eq!(code, Some(3));
    assert!(err.contains("not found: session `no such title`"), "{err}");
    // By title, like `show`; and a deleted session's journal is kept, so its exact id still shows it.
    assert!(e.ok(&["journal", "kept"]).contains("SessionCreated"));
    e.ok(&["delete", &id]);
    let out = e.ok(&["journal", &id]);
    assert!(out.contains("SessionCreated") && out.contains("SessionDeleted"), "{out}");
    assert_eq!(e.fails(&["journal", "kept"]).0, Some(3), "the title went with the session");
}

#[test]
fn not_found_names_what_the_user_typed() {
    let e = Env::new();
    e.ok(&["new", "--name", "there"]);
    for args in [&["show", "a:b"][..], &["export", "a:b", "-o", "-"], &["rename", "a:b", "t"], &["resume", "a:b"], &["context", "a:b"]] {
        assert_eq!(
            e.fails(args),
            (Some(3), "sessiondb: not found: session `a:b` (no session has that id, id prefix or exact title; `sessiondb list --all` lists them)\n".into()),
            "{args:?}"
        );
    }
    assert!(e.fails(&["show", "the title\twith a tab"]).1.contains("session `the title\\twith a tab`"));
}

#[test]
fn resume_with_no_session_in_this_workspace_says_so() {
    let e = Env::new();
    let elsewhere = e.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    e.ok(&["new", "--name", "bound here"]);
    let here = std::fs::canonicalize(&elsewhere).unwrap();
    for args in [&["resume"][..], &["resume", "last"]] {
        let o = e.run_in(&elsewhere, args, None);
        assert_eq!(o.status.code(), Some(3));
        assert_eq!(
            String::from_utf8(o.stderr).unwrap(),
            format!(
                "sessiondb: no session is bound to this workspace ({}); `sessiondb list --all` lists every session, then `sessiondb resume ID` (an id, id prefix or title) picks one\n",
                here.display()
            )
        );
    }
    assert!(e.ok(&["resume"]).starts_with("loaded bound here"));
}

#[test]
fn commands_on_a_missing_database_exit_3_and_create_nothing() {
    let e = Env::new();
    let db = e.db();
    let want = format!("no database at {}", db.display());
    let out = e.dir.path().join("out.jsonl");
    let out_s = out.to_str().unwrap();
    for args in [
        &["doctor"][..],
        &["list"],
        &["list", "--all"],
        &["show", "x"],
        &["export", "x", "-o", out_s],
        &["context", "x"],
        &["journal", "x"],
        &["resume"],
        &["resume", "x"],
        &["sidebar"],
        &["recover"],
        &["append", "x", "hello"],
        &["rename", "x", "title"],
        &["delete", "x"],
        &["fork", "x"],
        &["compact", "x"],
    ] {
        let (code, err) = e.fails(args);
        assert_eq!(code, Some(3), "{args:?}: {err}");
        assert!(err.starts_with(&format!("sessiondb: {want};")), "{args:?}: {err}");
        assert!(!db.parent().unwrap().exists(), "{args:?} created the database directory");
        assert!(!out.exists(), "{args:?} created the export file");
    }
    // `path` only prints it; a command that writes creates it.
    assert_eq!(e.ok(&["path"]).trim(), db.to_str().unwrap());
    let id = e.ok(&["new", "--unbound"]).trim().to_string();
    assert!(db.exists());
    assert!(e.ok(&["doctor"]).contains("sessions        1"));
    assert!(e.ok(&["list", "--all"]).starts_with(&id[..13]));
}

#[test]
fn the_default_path_is_created_by_a_first_import_not_by_a_read() {
    let e = Env::new();
    let state = e.dir.path().join("state");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_sessiondb"))
            .current_dir(e.dir.path())
            .env_remove("SESSIONDB_DB")
            .env_remove("SESSIONDB_APP")
            .env("XDG_STATE_HOME", &state)
            .env("HOME", e.dir.path())
            .arg("--key-file")
            .arg(e.dir.path().join("key"))
            .args(args)
            .output()
            .unwrap()
    };
    let db = state.join("sessiondb/sessions.db");
    let o = run(&["list", "--all"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("no database at {}", db.display())));
    assert!(!state.exists(), "a read created the state directory");
    let f = e.dir.path().join("first.jsonl");
    thclaws_file(&f, "sess-first-run");
    let o = run(&["import", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(db.exists());
    let o = run(&["list", "--all"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("sess-first-ru"), "{o:?}");
}

#[test]
fn import_reports_a_path_it_cannot_read_imports_the_rest_and_exits_7() {
    let e = Env::new();
    let good = e.dir.path().join("good.jsonl");
    thclaws_file(&good, "sess-good");
    let missing = e.dir.path().join("nonexistent/x");
    let o = e.run(&["import", good.to_str().unwrap(), missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(7));
    let out = String::from_utf8(o.stdout).unwrap();
    let m = missing.display();
    assert!(out.contains(&format!("{} [Thclaws] Imported\n", good.display())), "{out}");
    assert!(
        out.contains(&format!("{m} [-] Failed: `{m}`: I/O error while reading an import path: No such file or directory (os error 2)\n")),
        "{out}"
    );
    assert!(out.ends_with("2 file(s), 1 turn(s) imported\n"), "{out}");
    assert_eq!(String::from_utf8(o.stderr).unwrap(), format!("sessiondb: 1 file(s) failed to import (see the report above): {m}\n"));
    assert_eq!(e.ok(&["show", "sess-good", "--json"]).matches("\"content\": \"hi\"").count(), 1, "the good file was imported");
    // --json: the whole report, and the same exit code.
    let o = e.run(&["--json", "import", missing.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(7));
    let rep: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rep["files"][0]["status"]["failed"], format!("`{m}`: I/O error while reading an import path: No such file or directory (os error 2)"));
    assert_eq!(rep["files"][1]["status"], "up_to_date");
}

#[test]
fn import_exits_2_for_an_unrecognized_file_named_on_the_command_line_but_not_one_found_in_a_tree() {
    let e = Env::new();
    let tree = e.dir.path().join("tree");
    std::fs::create_dir(&tree).unwrap();
    thclaws_file(&tree.join("a.jsonl"), "sess-tree-a");
    let odd = tree.join("notes.jsonl");
    std::fs::write(&odd, "{\"hello\":\"world\"}\n").unwrap();
    let tree_s = tree.to_str().unwrap();
    // Found by walking: informational.
    let out = e.ok(&["import", tree_s]);
    assert!(out.contains(&format!("{} [-] Unrecognized\n", odd.display())), "{out}");
    // A second run: every recognised file is up to date.
    let out = e.ok(&["import", tree_s]);
    assert!(out.contains(&format!("{} [Thclaws] UpToDate\n", tree.join("a.jsonl").display())), "{out}");
    // Named explicitly: the whole report, then exit 2.
    let o = e.run(&["import", tree.join("a.jsonl").to_str().unwrap(), odd.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("UpToDate") && out.contains(&format!("{} [-] Unrecognized\n", odd.display())), "{out}");
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!("sessiondb: invalid input: not a thClaws, Codex, Claude Code, Gemini CLI or opencode session file: {}\n", odd.display())
    );
    // A failed file as well: the I/O code wins, both are said. (A path in
    // the test's own directory: a fixed one such as `/nonexistent/x` can
    // exist on a machine, as root creates it when a store is opened there.)
    let missing = e.dir.path().join("missing").join("x");
    let (code, err) = e.fails(&["import", odd.to_str().unwrap(), missing.to_str().unwrap()]);
    assert_eq!(code, Some(7));
    assert_eq!(
        err,
        format!(
            "sessiondb: 1 file(s) failed to import (see the report above): {}\n\
             sessiondb: invalid input: not a thClaws, Codex, Claude Code, Gemini CLI or opencode session file: {}\n",
            missing.display(),
            odd.display()
        )
    );
}

#[test]
fn list_limit_0_is_invalid_and_an_empty_list_only_suggests_all_without_it() {
    let e = Env::new();
    let id = e.ok(&["new"]).trim().to_string();
    let (code, err) = e.fails(&["list", "--limit", "0", "--all"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: invalid value '0' for '--limit <LIMIT>': must be at least 1 (the most sessions to list)\n"), "{err}");
    e.ok(&["delete", &id]);
    let o = e.run(&["list", "--all"]);
    assert_eq!((o.status.code(), String::from_utf8(o.stderr).unwrap()), (Some(0), "no sessions in this database\n".into()));
    let here = std::fs::canonicalize(e.dir.path()).unwrap();
    let o = e.run(&["list"]);
    assert_eq!(String::from_utf8(o.stderr).unwrap(), format!("no sessions bound to {} (try --all)\n", here.display()));
    let o = e.run(&["list", "--unbound"]);
    assert_eq!(String::from_utf8(o.stderr).unwrap(), "no sessions without a workspace (try --all)\n");
}

#[test]
fn a_bad_window_says_how_large_it_must_be_and_the_help_describes_the_options() {
    let e = Env::new();
    let id = e.ok(&["new", "--unbound"]).trim().to_string();
    let msg = |min: u64, got: u64, reserve: &str| {
        format!(
            "sessiondb: invalid input: --window must be at least {min} tokens (got {got}): smaller windows leave no room for context after the output reserve ({reserve}) and the safety margin (the larger of 2048 tokens and 2% of the window); it is the model's raw context window, default 128000\n"
        )
    };
    for cmd in ["context", "compact"] {
        assert_eq!(e.fails(&[cmd, &id, "--window", "0"]), (Some(2), msg(2228, 0, "8% of the window")), "{cmd}");
        assert_eq!(e.fails(&[cmd, &id, "--window", "2227"]), (Some(2), msg(2228, 2227, "8% of the window")), "{cmd}");
        assert_eq!(
            e.fails(&[cmd, &id, "--window", "9000", "--reserve", "9000"]),
            (Some(2), msg(11049, 9000, "the larger of 9000 tokens and 8% of the window")),
            "{cmd}"
        );
    }
    // The smallest windows named are accepted: 2228 - 179 - 2048 = 1 and 11049 - 9000 - 2048 = 1.
    let st: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "context", &id, "--window", "2228"])).unwrap();
    assert_eq!(st["capacity"], 1);
    let st: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "context", &id, "--window", "11049", "--reserve", "9000"])).unwrap();
    assert_eq!(st["capacity"], 1);
    // Omitted: 128000 (capacity 115200).
    let st: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "context", &id])).unwrap();
    assert_eq!(st["capacity"], 115_200);
    for cmd in ["context", "compact"] {
        let help = e.ok(&[cmd, "--help"]);
        for want in [
            "--window <TOKENS>      The model's raw context window in tokens (input + output); pass your model's [default: 128000]",
            "--reserve <TOKENS>     Tokens kept free for the model's answer; the larger of this and 8% of the window is reserved [default: 8% of the window]",
            "--model <MODEL>        Model name: picks the tokenizer and caps --reserve at the model's known maximum output [default: the session's model]",
        ] {
            assert!(help.contains(want), "{cmd} --help lacks {want:?}:\n{help}");
        }
    }
}

#[test]
fn show_pages_from_a_seq_or_the_tail_says_what_remains_and_never_clamps() {
    let e = Env::new();
    // A session of 12,000 entries (above the core's 10,000-entry page), imported.
    let file = e.dir.path().join("long.jsonl");
    let mut text = String::from("{\"type\":\"header\",\"id\":\"long-1\",\"model\":\"m\",\"cwd\":\"/w\",\"created_at\":1778930901}\n");
    for i in 1..=12_000 {
        let role = if i % 2 == 1 { "user" } else { "assistant" };
        text.push_str(&format!("{{\"type\":\"{role}\",\"content\":[{{\"type\":\"text\",\"text\":\"turn {i}\"}}],\"timestamp\":1778930901}}\n"));
    }
    std::fs::write(&file, text).unwrap();
    e.ok(&["import", file.to_str().unwrap()]);
    let seqs = |out: &str| -> Vec<u64> { out.lines().filter_map(|l| l.strip_prefix('#')).map(|l| l.split(' ').next().unwrap().parse().unwrap()).collect() };
    let last_line = |out: &str| out.lines().last().unwrap().to_string();

    let out = e.ok(&["show", "long-1", "--limit", "12000"]);
    assert_eq!(seqs(&out), (1..=12_000).collect::<Vec<_>>());
    assert_eq!(last_line(&out), "  turn 12000");
    let raw = e.ok(&["show", "long-1", "--raw", "--tail", "1"]);
    assert!(raw.ends_with("\ntokens: input 0 · output 0 · cached 0\n--- #12000 assistant (2026-05-16T11:28:21Z)\nturn 12000\n(11999 earlier entries: show --from 1)\n"), "{raw}");
    let out = e.ok(&["show", "long-1", "--limit", "10"]);
    assert_eq!(seqs(&out), (1..=10).collect::<Vec<_>>());
    assert_eq!(last_line(&out), "(11990 more entries: show --from 11)");
    let out = e.ok(&["show", "long-1", "--tail", "3"]);
    assert_eq!(seqs(&out), vec![11_998, 11_999, 12_000]);
    assert_eq!(last_line(&out), "(11997 earlier entries: show --from 1)");
    let out = e.ok(&["show", "long-1", "--from", "5000", "--limit", "2"]);
    assert_eq!(seqs(&out), vec![5000, 5001]);
    assert_eq!(last_line(&out), "(4999 earlier and 6999 more entries: show --from 5002)");
    // Past the end: nothing shown, and it says so.
    let out = e.ok(&["show", "long-1", "--from", "20000"]);
    assert_eq!(seqs(&out), Vec::<u64>::new());
    assert_eq!(last_line(&out), "(12000 earlier entries: show --from 1)");
    let v: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "show", "long-1", "--tail", "2"])).unwrap();
    assert_eq!((v["from"].as_u64(), v["shown"].as_u64(), v["earlier"].as_u64(), v["remaining"].as_u64()), (Some(11_999), Some(2), Some(11_998), Some(0)));
    assert_eq!(v["next_from"], serde_json::Value::Null);
    assert_eq!(v["transcript"].as_array().unwrap().len(), 2);
    let v: serde_json::Value = serde_json::from_str(&e.ok(&["--json", "show", "long-1", "--limit", "3"])).unwrap();
    assert_eq!((v["remaining"].as_u64(), v["next_from"].as_u64()), (Some(11_997), Some(4)));
    // Bad arguments are usage errors (exit 2), never a silent clamp.
    for args in [&["show", "long-1", "--limit", "0"][..], &["show", "long-1", "--tail", "0"], &["show", "long-1", "--from", "3", "--tail", "2"]] {
        assert_eq!(e.fails(args).0, Some(2), "{args:?}");
    }
}

/// The one JSON object a failing command prints on stderr under `--json`.
fn json_error(stderr: &str) -> serde_json::Value {
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr:?}");
    serde_json::from_str(stderr).unwrap()
}

#[test]
fn completions_for_bash_zsh_and_fish_need_no_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("db/sessions.db");
    for (shell, first_line) in [("bash", "_sessiondb() {"), ("zsh", "#compdef sessiondb"), ("fish", "# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.")] {
        let o = Command::new(env!("CARGO_BIN_EXE_sessiondb")).arg("--db").arg(&db).args(["completions", shell]).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert_eq!(String::from_utf8(o.stderr).unwrap(), "", "{shell}");
        let script = String::from_utf8(o.stdout).unwrap();
        assert_eq!(script.lines().next(), Some(first_line), "{shell}");
        for word in ["export", "completions", "force", "key-file", "json"] {
            assert!(script.contains(word), "{shell} completion lacks {word}");
        }
    }
    assert!(!dir.path().join("db").exists(), "completions opened no database");
    let o = Command::new(env!("CARGO_BIN_EXE_sessiondb")).args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("invalid value 'tcsh'"));
}

#[test]
fn help_lists_every_exit_code() {
    let e = Env::new();
    let help = e.ok(&["--help"]);
    let block: Vec<&str> = help.lines().skip_while(|l| *l != "Exit codes:").take(15).collect();
    assert_eq!(
        block,
        [
            "Exit codes:",
            "  0   ok",
            "  1   other error (database error, store closed)",
            "  2   invalid input or usage",
            "  3   not found (session, database file)",
            "  4   conflict (ambiguous session, import of another session's id, export -o FILE exists without --force)",
            "  5   busy (another writer held the database past the busy timeout)",
            "  6   corrupt or authentication failure (damaged record, newer schema, doctor --check found damage)",
            "  7   I/O error (a file failed to import, disk full)",
            "  10  recovery locked (the database exists but the data key is absent)",
            "  11  key mismatch (the data key is not this database's)",
            "  12  key store unavailable (keyring locked, denied or unreachable)",
            "  13  irreducible context overflow",
            "",
            "With --json, errors are one JSON object on stderr:",
        ]
    );
    // `-h` (short help) shows them too.
    assert!(e.ok(&["-h"]).contains("\n  13  irreducible context overflow\n"));
}

#[test]
fn errors_under_json_are_one_object_on_stderr_with_kind_code_and_exit_code() {
    let e = Env::new();
    let id = e.ok(&["new", "--unbound"]).trim().to_string();
    let o = e.run(&["--json", "show", "nope"]);
    assert_eq!(o.status.code(), Some(3));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), "");
    assert_eq!(
        json_error(&String::from_utf8(o.stderr).unwrap()),
        serde_json::json!({ "error": {
            "kind": "NotFound",
            "code": "ERR_NOT_FOUND",
            "exit_code": 3,
            "message": "not found: session `nope` (no session has that id, id prefix or exact title; `sessiondb list --all` lists them)",
        }})
    );
    // A core error (bad role) and a usage error (missing argument), `--json` after the command.
    let o = e.run(&["append", &id, "--role", "bogus", "x", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = json_error(&String::from_utf8(o.stderr).unwrap());
    assert_eq!((&err["error"]["kind"], &err["error"]["code"], &err["error"]["exit_code"]), (&"InvalidInput".into(), &"ERR_INVALID_INPUT".into(), &2.into()));
    let o = e.run(&["--json", "append"]);
    assert_eq!(o.status.code(), Some(2));
    let err = json_error(&String::from_utf8(o.stderr).unwrap());
    assert_eq!(err["error"]["code"], "ERR_INVALID_INPUT");
    assert_eq!(err["error"]["exit_code"], 2);
    assert!(err["error"]["message"].as_str().unwrap().starts_with("the following required arguments were not provided:"), "{err}");
    // The overflow carries its breakdown: window 3000 → capacity 3000 - 240 - 2048 = 712.
    for i in 0..4 {
        e.run_in(e.dir.path(), &["append", &id, "--role", if i % 2 == 0 { "user" } else { "assistant" }], Some(&format!("turn {i} ").repeat(300)));
    }
    let o = e.run(&["--json", "compact", &id, "--window", "3000"]);
    assert_eq!(o.status.code(), Some(13));
    let err = json_error(&String::from_utf8(o.stderr).unwrap());
    assert_eq!((&err["error"]["kind"], &err["error"]["code"], &err["error"]["exit_code"]), (&"ContextOverflow".into(), &"ERR_CONTEXT_OVERFLOW".into(), &13.into()));
    let b = &err["error"]["breakdown"];
    assert_eq!(b["capacity"], 712);
    let parts: u64 = ["system", "pinned", "recent", "tool_results", "other"].iter().map(|k| b[k].as_u64().unwrap()).sum();
    assert_eq!(b["protected_total"].as_u64(), Some(parts));
    // Without --json the same failure stays text.
    let (code, stderr) = e.fails(&["show", "nope"]);
    assert_eq!((code, stderr.lines().next().unwrap()), (Some(3), "sessiondb: not found: session `nope` (no session has that id, id prefix or exact title; `sessiondb list --all` lists them)"));
}

#[cfg(unix)]
#[test]
fn a_key_file_readable_by_group_or_others_is_used_with_a_warning() {
    let e = Env::new();
    let key = e.dir.path().join("key");
    e.ok(&["new", "--unbound"]);
    let warning = |who: &str, mode: &str| {
        format!(
            "sessiondb: warning: the key file {k} is readable by {who} (mode {mode}); anyone who can read it can decrypt every session: `chmod 600 {k}`\n",
            k = key.display()
        )
    };
    for (mode, who, shown) in [(0o644, "group and others", "0644"), (0o640, "its group", "0640"), (0o604, "others", "0604")] {
        set_mode(&key, mode);
        let o = e.run(&["list", "--all"]);
        assert_eq!(o.status.code(), Some(0));
        assert_eq!(String::from_utf8(o.stderr).unwrap(), warning(who, shown));
        let o = e.run(&["--json", "list", "--all"]);
        assert_eq!(o.status.code(), Some(0));
        let line: serde_json::Value = serde_json::from_str(&String::from_utf8(o.stderr).unwrap()).unwrap();
        assert_eq!(line, serde_json::json!({ "warning": { "kind": "KeyFilePermissions", "message": warning(who, shown).trim_end().strip_prefix("sessiondb: warning: ").unwrap() } }));
    }
    for mode in [0o600, 0o400, 0o620] {
        set_mode(&key, mode);
        let o = e.run(&["list", "--all"]);
        assert_eq!((o.status.code(), String::from_utf8(o.stderr).unwrap()), (Some(0), String::new()), "mode {mode:o}");
    }
}

#[test]
fn export_refuses_to_overwrite_an_existing_file_without_force() {
    let e = Env::new();
    let id = e.ok(&["new", "--unbound", "--name", "t"]).trim().to_string();
    e.ok(&["append", &id, "hello"]);
    let out = e.dir.path().join("out.jsonl");
    std::fs::write(&out, "keep me\n").unwrap();
    let o = e.run(&["export", &id, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(
        String::from_utf8(o.stderr).unwrap(),
        format!("sessiondb: {} already exists; nothing was written (`--force` replaces it)\n", out.display())
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me\n");
    let o = e.run(&["--json", "export", &id, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(4));
    assert_eq!(
        json_error(&String::from_utf8(o.stderr).unwrap()),
        serde_json::json!({ "error": {
            "kind": "Conflict", "code": "ERR_CONFLICT", "exit_code": 4,
            "message": format!("{} already exists; nothing was written (`--force` replaces it)", out.display()),
        }})
    );
    // A dangling symlink is an existing name too: never followed.
    #[cfg(unix)]
    {
        let link = e.dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(e.dir.path().join("nowhere"), &link).unwrap();
        assert_eq!(e.run(&["export", &id, "-o", link.to_str().unwrap()]).status.code(), Some(4));
        assert!(!e.dir.path().join("nowhere").exists());
    }
    let o = e.run(&["export", &id, "-o", out.to_str().unwrap(), "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let kinds: Vec<String> = text.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].as_str().unwrap().to_string()).collect();
    assert_eq!(kinds, ["header", "plan_snapshot", "goal_snapshot", "user", "rename"], "{text}");
    assert!(text.lines().nth(3).unwrap().contains(r#""text":"hello""#));
    let fresh = e.dir.path().join("fresh.jsonl");
    e.ok(&["export", &id, "-o", fresh.to_str().unwrap()]);
    assert_eq!(std::fs::read_to_string(&fresh).unwrap(), text);
    #[cfg(unix)]
    for f in [&out, &fresh] {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(f).unwrap().permissions().mode() & 0o777, 0o600, "{}", f.display());
    }
    let mut names: Vec<String> = std::fs::read_dir(e.dir.path()).unwrap().map(|d| d.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["db", "fresh.jsonl", "key", "link.jsonl", "out.jsonl"], "no temporary file left");
    // A failed export (unknown session) leaves no file behind.
    let missing = e.dir.path().join("missing.jsonl");
    assert_eq!(e.run(&["export", "nope", "-o", missing.to_str().unwrap()]).status.code(), Some(3));
    assert!(!missing.exists());
}

//! An import killed (SIGKILL) in the middle of a large file, then run again,
//! gives exactly what one uninterrupted import gives: the same entries in
//! the same order, the same token totals, the same context extensions, and
//! no duplicates (issue 4 "Re-importing the same file adds nothing"; DESIGN
//! "crash-safe"). The test binary re-executes itself as the importing child.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sessiondb::portable::import_file;
use sessiondb::*;

mod common;

const KEY: [u8; 32] = [5u8; 32];

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(
        path,
        KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()),
    ))
    .unwrap()
}

/// Child entry point: does nothing unless SESSIONDB_IMPORT_CHILD is set.
#[test]
fn child_process_entry() {
    let Ok(file) = std::env::var("SESSIONDB_IMPORT_CHILD") else {
        return;
    };
    let db = std::env::var("SESSIONDB_DB").unwrap();
    let store = open(Path::new(&db));
    import_file(&store, Path::new(&file), None).unwrap();
    println!("DONE");
}

fn line(w: &mut impl Write, v: serde_json::Value) {
    writeln!(w, "{v}").unwrap();
}

/// A Codex rollout of `turns` turns: a user message, an assistant message
/// split over two response items (reasoning + function call, merged into
/// one turn), a tool output, a token_count after each turn, an unknown line
/// every 97 turns and a `compacted` line every 1,000.
fn gen_codex(path: &Path, turns: u64) {
    let mut w = BufWriter::new(std::fs::File::create(path).unwrap());
    let ts = "2026-02-23T19:34:26.098Z";
    line(
        &mut w,
        serde_json::json!({"timestamp":ts,"type":"session_meta","payload":{"id":"crash-codex","timestamp":ts,"cwd":"/w","model_provider":"openai"}}),
    );
    line(
        &mut w,
        serde_json::json!({"timestamp":ts,"type":"turn_context","payload":{"cwd":"/w","model":"gpt-5.3-codex"}}),
    );
    let (mut tin, mut tout, mut tcached) = (0u64, 0u64, 0u64);
    for n in 0..turns {
        line(
            &mut w,
            serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":format!("question {n}")}]}}),
        );
        line(
            &mut w,
            serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":format!("thinking {n}")}],"content":null}}),
        );
        line(
            &mut w,
            serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":format!("{{\"cmd\":\"ls {n}\"}}"),"call_id":format!("call_{n}")}}),
        );
        line(
            &mut w,
            serde_json::json!({"timestamp":ts,"type":"response_item","payload":{"type":"function_call_output","call_id":format!("call_{n}"),"output":format!("output {n} ").repeat(20)}}),
        );
        tin += 1000 + n;
        tout += 10 + n % 7;
        tcached += 500;
        line(
            &mut w,
            serde_json::json!({"timestamp":ts,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":tin,"cached_input_tokens":tcached,"output_tokens":tout}}}}),
        );
        if n % 97 == 96 {
            line(
                &mut w,
                serde_json::json!({"timestamp":ts,"type":"future_line_kind","payload":{"n":n}}),
            );
        }
        if n % 1000 == 999 {
            line(
                &mut w,
                serde_json::json!({"timestamp":ts,"type":"compacted","payload":{"message":format!("summary up to {n}")}}),
            );
        }
    }
    w.flush().unwrap();
}

/// A Claude Code transcript of `turns` turns: a user question, an assistant
/// message split over two lines (same message id, same usage: counted once),
/// the tool result; plus, near the start, a sidechain whose last assistant
/// message has no further part (it stays open until it goes stale).
fn gen_claude(path: &Path, turns: u64) {
    let mut w = BufWriter::new(std::fs::File::create(path).unwrap());
    let ts = "2026-02-23T19:34:26.098Z";
    let base = |ty: &str, uuid: &str, parent: Option<&str>, side: bool| {
        serde_json::json!({"type":ty,"sessionId":"crash-claude","uuid":uuid,"parentUuid":parent,"isSidechain":side,"cwd":"/w","timestamp":ts})
    };
    let mut parent = String::new();
    for n in 0..turns {
        let q = format!("q{n}");
        let mut v = base("user", &q, (n > 0).then_some(parent.as_str()), false);
        v["message"] = serde_json::json!({"role":"user","content":format!("question {n}")});
        line(&mut w, v);
        let usage = serde_json::json!({"input_tokens":3 + n % 5,"cache_read_input_tokens":1000,"cache_creation_input_tokens":10,"output_tokens":20 + n % 3});
        for (part, content) in [
            ("a", serde_json::json!([{"type":"thinking","thinking":format!("thinking {n}")}])),
            ("b", serde_json::json!([{"type":"tool_use","id":format!("toolu_{n}"),"name":"Bash","input":{"command":format!("ls {n}")}}])),
        ] {
            let mut v = base("assistant", &format!("a{n}{part}"), Some(&q), false);
            v["message"] = serde_json::json!({"id":format!("msg_{n}"),"model":"claude-sonnet-4-5","role":"assistant","content":content,"usage":usage});
            line(&mut w, v);
        }
        let r = format!("r{n}");
        let mut v = base("user", &r, Some(&format!("a{n}b")), false);
        v["message"] = serde_json::json!({"role":"user","content":[{"type":"tool_result","tool_use_id":format!("toolu_{n}"),"content":format!("result {n} ").repeat(10)}]});
        v["toolUseResult"] = serde_json::json!({"stdout":format!("result {n}"),"stderr":"","interrupted":false});
        line(&mut w, v);
        parent = r;
        if n == 3 {
            let mut v = base("user", "side-root", None, true);
            v["message"] = serde_json::json!({"role":"user","content":"subagent task"});
            line(&mut w, v);
            let mut v = base("assistant", "side-a", Some("side-root"), true);
            v["message"] = serde_json::json!({"id":"msg_side","model":"claude-haiku-4-5","role":"assistant","content":[{"type":"text","text":"subagent answer"}],"usage":{"input_tokens":7,"output_tokens":9}});
            line(&mut w, v);
        }
    }
    w.flush().unwrap();
}

/// Everything an import leaves behind, in comparable form.
#[derive(Debug, PartialEq)]
struct Snapshot {
    entries: Vec<(u64, String, Option<u64>, String)>,
    tokens: (u64, u64, u64),
    extensions: Vec<(u64, String, String)>,
    model: Option<String>,
}

fn snapshot(store: &SessionStore, sid: &str) -> Snapshot {
    let mut entries = Vec::new();
    let mut from = 1;
    loop {
        let page = store.get_transcript(sid, from, 1000).unwrap();
        if page.is_empty() {
            break;
        }
        from = page.last().unwrap().seq + 1;
        entries.extend(
            page.into_iter()
                .map(|e| (e.seq, e.role.as_str().to_owned(), e.source_line, e.content)),
        );
    }
    let t = store.token_totals(sid).unwrap();
    let extensions = store
        .list_context_extensions(sid)
        .unwrap()
        .into_iter()
        .map(|x| (x.n, x.kind, x.body))
        .collect();
    Snapshot {
        entries,
        tokens: (t.input, t.output, t.cached),
        extensions,
        model: store.get_session(sid).unwrap().model,
    }
}


#[test]
fn an_import_killed_mid_file_then_run_again_equals_one_uninterrupted_import() {
    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("rollout-crash.jsonl");
    let turns = 6000;
    gen_codex(&file, turns);

    let reference = {
        let store = open(&dir.path().join("reference.db"));
        let r = import_file(&store, &file, None).unwrap();
        assert_eq!(r.sessions.len(), 1);
        let s = &r.sessions[0];
        // user + assistant (reasoning and call merged) + tool output per turn.
        assert_eq!(s.entries, 3 * turns);
        assert_eq!(s.usage_records, turns);
        let input: u64 = (0..turns).map(|n| 1000 + n).sum();
        let output: u64 = (0..turns).map(|n| 10 + n % 7).sum();
        assert_eq!(
            (s.input_tokens, s.output_tokens, s.cached_tokens),
            (input, output, 500 * turns)
        );
        // import_source + 61 unknown lines + 6 compactions, each with the
        // governance record of where Codex resumes (issue 14 item 4).
        assert_eq!(s.context_extensions, 1 + turns / 97 + 2 * (turns / 1000));
        snapshot(&store, "crash-codex")
    };
    assert_eq!(reference.entries.len() as u64, 3 * turns);

    crash_and_resume(&dir, &file, "crash-codex", &reference, 3 * turns as i64);
}

#[test]
fn a_claude_import_killed_mid_file_then_run_again_equals_one_uninterrupted_import() {
    let dir = tempfile::tempdir().unwrap();
    let file: PathBuf = dir.path().join("crash-claude.jsonl");
    let turns = 5000;
    gen_claude(&file, turns);
    let reference = {
        let store = open(&dir.path().join("reference.db"));
        let r = import_file(&store, &file, None).unwrap();
        assert_eq!(r.sessions.len(), 2, "the main session and the sidechain");
        let main = &r.sessions[0];
        // question + merged assistant message + tool result per turn.
        assert_eq!(main.entries, 3 * turns);
        assert_eq!((main.tool_calls, main.tool_results), (turns, turns));
        // One usage record per message id although each is on two lines.
        assert_eq!(main.usage_records, turns);
        let input: u64 = (0..turns).map(|n| 3 + n % 5 + 1010).sum();
        let output: u64 = (0..turns).map(|n| 20 + n % 3).sum();
        assert_eq!((main.input_tokens, main.output_tokens, main.cached_tokens), (input, output, 1000 * turns));
        let side = &r.sessions[1];
        assert_eq!((side.entries, side.usage_records, side.input_tokens, side.output_tokens), (2, 1, 7, 9));
        snapshot(&store, "crash-claude")
    };
    assert_eq!(reference.entries.len() as u64, 3 * turns);
    crash_and_resume(&dir, &file, "crash-claude", &reference, 3 * turns as i64 + 2);
}

/// Kill an importing child four times, at growing points (once at least
/// 600, 3,100, 5,600 and 8,100 entries are stored), import again each time
/// and compare session `sid` with `reference`. `total` = entries of all the
/// file's sessions.
fn crash_and_resume(dir: &tempfile::TempDir, file: &Path, sid: &str, reference: &Snapshot, total: i64) {
    let mut killed_mid_file = 0;
    for round in 0..4 {
        let db = dir.path().join(format!("crash-{sid}-{round}.db"));
        drop(open(&db));
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "child_process_entry", "--nocapture"])
            .env("SESSIONDB_IMPORT_CHILD", file)
            .env("SESSIONDB_DB", &db)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let threshold = 600 + round * 2500;
        let after_kill = common::kill_after_entries(&mut child, &db, threshold, Duration::from_secs(60));
        if after_kill > 0 && after_kill < total {
            killed_mid_file += 1;
        }
        // Import again (as a user would after the crash): it resumes and completes.
        let store = open(&db);
        let r = import_file(&store, file, None).unwrap();
        let again = snapshot(&store, sid);
        let ctx = format!("{sid} round {round}: killed at {after_kill} entries");
        assert_eq!(again.tokens, reference.tokens, "{ctx}");
        assert_eq!(again.extensions, reference.extensions, "{ctx}");
        assert_eq!(again.model, reference.model, "{ctx}");
        assert_eq!(again.entries.len(), reference.entries.len(), "{ctx}");
        assert!(again.entries == reference.entries, "{ctx}: same count, different entries");
        let added: u64 = r.sessions.iter().map(|s| s.entries).sum();
        assert_eq!(added as i64, total - after_kill, "{ctx}: the resumed import adds exactly the missing entries");
        // And once more: nothing to do.
        let r = import_file(&store, file, None).unwrap();
        assert_eq!(r.status, sessiondb::portable::ImportStatus::UpToDate, "{ctx}");
        assert!(snapshot(&store, sid) == *reference, "{ctx}: a second import changed the session");
    }
    assert!(killed_mid_file >= 2, "only {killed_mid_file} of 4 kills landed mid-file: the test did not exercise a crash");
}

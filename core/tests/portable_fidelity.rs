//! Every agent's history, exactly (issue 28 items 1-5): repeated records
//! are kept, forked Codex rollouts keep their parent, import(export(s)) ==
//! s for every sample, Claude usage counted once per message id whatever
//! order copies arrive in, Windows working directories. Handmade files in
//! the real formats; real samples from `../shared/samples` (skipped with a
//! message when absent).

use sessiondb::portable::{export_thclaws_text, import_file, load_portable, thclaws_blocks, FileImport, SourceFormat};
use sessiondb::store::{SessionStore, WorkspaceFilter};
use std::path::Path;

mod portable_support;
use portable_support::{samples, store};

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn entries(st: &SessionStore, id: &str) -> u64 {
    st.get_session(id).unwrap().entry_count
}

fn added(r: &FileImport) -> (u64, u64) {
    (r.sessions[0].entries, r.sessions[0].skipped_already_stored)
}

const TH_HEADER: &str = r#"{"type":"header","id":"sess-00000000000000aa","model":"zai/glm-5.1","cwd":"/tmp/proj","created_at":1700000000}"#;
const TH_HI: &str = r#"{"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1700000001}"#;
const TH_ANSWER: &str = r#"{"type":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":1700000002}"#;
const TH_ID: &str = "sess-00000000000000aa";

/// Item 1: two byte-identical lines (a retry) are two turns; a re-import,
/// a copy and an overlapping copy add nothing; a grown file adds exactly
/// its new repeats, also when the import resumes after the first lines.
#[test]
fn identical_thclaws_lines_are_two_records_and_copies_add_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let file = write(dir.path(), "a.jsonl", &format!("{TH_HEADER}\n{TH_HI}\n{TH_HI}\n{TH_ANSWER}\n"));
    assert_eq!(added(&import_file(&st, &file, None).unwrap()), (3, 0));
    // A copy under another name: every record is held already.
    let copy = write(dir.path(), "copy.jsonl", &std::fs::read_to_string(&file).unwrap());
    assert_eq!(added(&import_file(&st, &copy, Some(SourceFormat::Thclaws)).unwrap()), (0, 3));
    // An overlapping copy holding one of the two: it is the first occurrence.
    let part = write(dir.path(), "part.jsonl", &format!("{TH_HEADER}\n{TH_HI}\n"));
    assert_eq!(added(&import_file(&st, &part, Some(SourceFormat::Thclaws)).unwrap()), (0, 1));
    assert_eq!(entries(&st, TH_ID), 3);
    // The file grows by a third identical line: the import resumes after
    // line 4 and adds it (the earlier lines are counted again).
    std::fs::write(&file, format!("{TH_HEADER}\n{TH_HI}\n{TH_HI}\n{TH_ANSWER}\n{TH_HI}\n")).unwrap();
    let r = import_file(&st, &file, None).unwrap();
    assert_eq!((r.from_line, added(&r)), (5, (1, 0)));
    assert_eq!(entries(&st, TH_ID), 4);
    // A fresh import of the grown file holds the same.
    let st2 = store(&dir.path().join("fresh"));
    assert_eq!(added(&import_file(&st2, &file, None).unwrap()), (4, 0));
    let texts = |st: &SessionStore| load_portable(st, TH_ID).unwrap().turns.iter().map(|t| t.blocks_json()).collect::<Vec<_>>();
    assert_eq!(texts(&st), texts(&st2));
    // The overlapping copy grown to hold all three adds nothing.
    std::fs::write(&part, format!("{TH_HEADER}\n{TH_HI}\n{TH_HI}\n{TH_HI}\n")).unwrap();
    let r = import_file(&st, &part, None).unwrap();
    assert_eq!(added(&r), (0, 2));
    assert_eq!(entries(&st, TH_ID), 4);
}

const CODEX: &str = "codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl";
const CODEX_ID: &str = "019c8bfe-ec25-79e0-97d7-bda6a9c575ff";

/// Item 1, Codex: five copies of a `function_call` line appended to a
/// rollout add on re-import exactly what a fresh import of the grown file
/// holds (the task_complete before them ends the last turn).
#[test]
fn five_duplicated_codex_function_calls_add_what_a_fresh_import_holds() {
    let Some(root) = samples() else { return };
    let text = std::fs::read_to_string(root.join(CODEX)).unwrap();
    let call = text.lines().nth(52).unwrap();
    assert!(call.contains(r#""type":"function_call""#));
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let file = write(dir.path(), "rollout.jsonl", &text);
    assert_eq!(added(&import_file(&st, &file, Some(SourceFormat::Codex)).unwrap()), (18, 0));
    let grown = format!("{text}{}", format!("{call}\n").repeat(5));
    std::fs::write(&file, &grown).unwrap();
    let r = import_file(&st, &file, None).unwrap();
    assert_eq!((r.from_line, r.sessions[0].entries, r.sessions[0].tool_calls), (64, 1, 5));
    let st2 = store(&dir.path().join("fresh"));
    let fresh = import_file(&st2, &file, None).unwrap();
    assert_eq!((fresh.sessions[0].entries, fresh.sessions[0].tool_calls), (19, 10));
    let a = load_portable(&st, CODEX_ID).unwrap();
    let b = load_portable(&st2, CODEX_ID).unwrap();
    assert_eq!(a.turns.iter().map(|t| t.blocks_json()).collect::<Vec<_>>(), b.turns.iter().map(|t| t.blocks_json()).collect::<Vec<_>>());
    assert_eq!(a.tool_calls(), 10);
}

fn codex_line(ts: &str, ty: &str, payload: serde_json::Value) -> String {
    serde_json::json!({"timestamp": ts, "type": ty, "payload": payload}).to_string()
}

/// Item 2: a forked rollout (its own `session_meta` with `forked_from_id`,
/// then the parent's `session_meta` and history, whose replies exist only
/// as `event_msg/agent_message`) keeps the parent replies and the fork link.
#[test]
fn a_forked_codex_rollout_keeps_its_parent_replies_and_link() {
    use serde_json::json;
    let t = "2026-03-01T10:00:00.000Z";
    let lines = [
        codex_line(t, "session_meta", json!({"id": "child-1", "forked_from_id": "parent-1", "timestamp": t, "cwd": "/tmp/p", "originator": "codex_cli_rs", "cli_version": "0.120.0", "model_provider": "openai"})),
        codex_line(t, "session_meta", json!({"id": "parent-1", "timestamp": "2026-03-01T09:00:00.000Z", "cwd": "/tmp/p", "originator": "codex_cli_rs", "cli_version": "0.120.0", "model_provider": "openai"})),
        codex_line(t, "event_msg", json!({"type": "task_started", "turn_id": "p1"})),
        codex_line(t, "response_item", json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "parent question"}]})),
        codex_line(t, "event_msg", json!({"type": "user_message", "message": "parent question"})),
        codex_line(t, "event_msg", json!({"type": "agent_message", "message": "parent answer one"})),
        codex_line(t, "event_msg", json!({"type": "task_complete", "turn_id": "p1"})),
        codex_line(t, "event_msg", json!({"type": "agent_message", "message": "parent answer two"})),
        codex_line(t, "event_msg", json!({"type": "task_started", "turn_id": "c1"})),
        codex_line(t, "turn_context", json!({"cwd": "/tmp/p", "model": "gpt-5.3-codex"})),
        codex_line(t, "response_item", json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "child question"}]})),
        codex_line(t, "event_msg", json!({"type": "user_message", "message": "child question"})),
        codex_line(t, "event_msg", json!({"type": "agent_message", "message": "child answer"})),
        codex_line(t, "response_item", json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "child answer"}]})),
        codex_line(t, "event_msg", json!({"type": "task_complete", "turn_id": "c1"})),
    ];
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let file = write(dir.path(), "rollout-fork.jsonl", &(lines.join("\n") + "\n"));
    let r = import_file(&st, &file, Some(SourceFormat::Codex)).unwrap();
    assert_eq!(added(&r), (5, 0));
    let read = r.read.unwrap();
    assert_eq!(read.kept_raw["session_meta"], 1, "the parent's session_meta is kept");
    assert_eq!(read.not_imported["event_msg/agent_message"], 1, "only the child's answer is a copy");
    let rec = st.get_session("child-1").unwrap();
    assert_eq!(rec.forked_from.as_deref(), Some("parent-1"));
    let s = load_portable(&st, "child-1").unwrap();
    let said: Vec<(String, String)> = s.turns.iter().map(|t| (t.role.as_str().to_owned(), t.blocks_json())).collect();
    let text = |r: &str, x: &str| (r.to_owned(), serde_json::to_string(&[sessiondb::portable::Block::Text { text: x.into() }]).unwrap());
    assert_eq!(
        said,
        vec![text("user", "parent question"), text("assistant", "parent answer one"), text("assistant", "parent answer two"), text("user", "child question"), text("assistant", "child answer")]
    );
    assert_eq!(s.turns[1].extra["codex_event"], "agent_message");
}

/// (role, blocks as thClaws holds them, timestamp in seconds) of every entry.
fn transcript(st: &SessionStore, id: &str) -> Vec<(String, String, Option<i64>)> {
    let role = |r: sessiondb::portable::Role| if r == sessiondb::portable::Role::Tool { "user" } else { r.as_str() };
    load_portable(st, id)
        .unwrap()
        .turns
        .iter()
        .map(|t| (role(t.role).to_owned(), serde_json::to_string(&thclaws_blocks(&t.blocks)).unwrap(), t.timestamp_ms.map(|m| m.div_euclid(1000))))
        .collect()
}

/// Item 3: import(export(s)) == s for every sample: each session imported
/// from a sample, exported as thClaws and imported again, has the same
/// entries (roles, blocks, timestamps to the second), in order.
#[test]
fn export_then_import_is_the_identity_for_every_sample() {
    let Some(root) = samples() else { return };
    let mut files: Vec<std::path::PathBuf> = walk(&root);
    files.sort();
    assert_eq!(files.len(), 9);
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let mut figures = Vec::new();
    for f in &files {
        let r = import_file(&st, f, None).unwrap();
        for s in &r.sessions {
            let text = export_thclaws_text(&st, &s.session_id).unwrap();
            let sub = dir.path().join(format!("rt-{}", figures.len()));
            std::fs::create_dir(&sub).unwrap();
            let st2 = store(&sub);
            let exported = write(&sub, "export.jsonl", &text);
            let back = import_file(&st2, &exported, Some(SourceFormat::Thclaws)).unwrap();
            let id2 = &back.sessions[0].session_id;
            let (a, b) = (transcript(&st, &s.session_id), transcript(&st2, id2));
            assert_eq!(a, b, "{}", f.display());
            figures.push((f.file_name().unwrap().to_string_lossy().into_owned(), a.len(), b.len()));
        }
    }
    eprintln!("round trip entries (file, before, after): {figures:?}");
    let total: usize = figures.iter().map(|f| f.1).sum();
    // 11 sessions (two Claude sidechains), 207 entries in all, each the same after the round trip.
    assert_eq!((figures.len(), total), (11, 207));
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(p);
        }
    }
    out
}

fn claude_assistant(uuid: &str, parent: &str, block: &str, out: u64) -> String {
    format!(
        r#"{{"type":"assistant","uuid":"{uuid}","parentUuid":"{parent}","isSidechain":false,"sessionId":"cu-1","cwd":"/tmp/p","timestamp":"2026-01-01T00:00:0{}.000Z","message":{{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{block}],"usage":{{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":{out}}}}}}}"#,
        out % 10
    )
}

/// Item 4: a message split over three lines (output 3, 9, 41 tokens as it
/// streamed) is counted once with its final figures, whether the whole
/// file or a copy cut inside the message arrives first.
#[test]
fn claude_usage_is_counted_once_per_message_whatever_order_copies_arrive() {
    let user = r#"{"type":"user","uuid":"u1","parentUuid":null,"isSidechain":false,"sessionId":"cu-1","cwd":"/tmp/p","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"go"}}"#;
    let l1 = claude_assistant("a1", "u1", r#"{"type":"thinking","thinking":"hm","signature":"s"}"#, 3);
    let l2 = claude_assistant("a2", "a1", r#"{"type":"text","text":"done"}"#, 9);
    let l3 = claude_assistant("a3", "a2", r#"{"type":"tool_use","id":"t1","name":"Bash","input":{}}"#, 41);
    let full = format!("{user}\n{l1}\n{l2}\n{l3}\n");
    let partial = format!("{user}\n{l1}\n{l2}\n");
    for order in [[&full, &partial], [&partial, &full]] {
        let dir = tempfile::tempdir().unwrap();
        let st = store(dir.path());
        let a = write(dir.path(), "a.jsonl", order[0]);
        let b = write(dir.path(), "b.jsonl", order[1]);
        import_file(&st, &a, Some(SourceFormat::ClaudeCode)).unwrap();
        import_file(&st, &b, Some(SourceFormat::ClaudeCode)).unwrap();
        let t = st.token_totals("cu-1").unwrap();
        assert_eq!((t.input, t.output, t.cached), (115, 41, 100), "full file first: {}", std::ptr::eq(order[0], &full));
        assert_eq!(entries(&st, "cu-1"), 2);
    }
}

/// Item 5: a session recorded on Windows gets its workspace on every
/// platform, in the canonical form a Windows host computes, and lists
/// under that workspace however the path is spelled.
#[test]
fn windows_working_directories_are_bound_on_every_platform() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let header = r#"{"type":"header","id":"sess-00000000000000cc","model":"m","cwd":"C:\\Users\\User\\Proj\\","created_at":1700000000}"#;
    let file = write(dir.path(), "w.jsonl", &format!("{header}\n{TH_HI}\n"));
    import_file(&st, &file, None).unwrap();
    let rec = st.get_session("sess-00000000000000cc").unwrap();
    assert_eq!(rec.workspace_path.as_deref(), Some(r"c:\users\user\proj"));
    for spelling in [r"C:\Users\User\Proj", "c:/users/user/proj/", r"C:\Users\User\.\Other\..\Proj", r"\\?\C:\USERS\user\proj"] {
        let found = st.list_sessions_for_workspace(WorkspaceFilter::Current(spelling.into()), None).unwrap();
        assert_eq!(found.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(), ["sess-00000000000000cc"], "{spelling}");
    }
    // The export keeps the source's own text of the cwd.
    let text = export_thclaws_text(&st, "sess-00000000000000cc").unwrap();
    assert!(text.lines().next().unwrap().contains(r#""cwd":"C:\\Users\\User\\Proj\\""#), "{text}");
}

#[test]
fn windows_paths_canonicalize_as_on_windows() {
    use sessiondb::paths::{canonical_windows_path as c, is_absolute_anywhere};
    assert_eq!(c(r"C:\").as_deref(), Some(r"c:\"));
    assert_eq!(c("D:/a//b/../c/").as_deref(), Some(r"d:\a\c"));
    assert_eq!(c(r"C:\..\..").as_deref(), Some(r"c:\"), "never above the root");
    assert_eq!(c(r"\\Server\Share\Dir\").as_deref(), Some(r"\\server\share\dir"));
    assert_eq!(c(r"\\?\UNC\Server\Share\x").as_deref(), Some(r"\\server\share\x"));
    assert_eq!(c(r"\\server\share").as_deref(), Some(r"\\server\share\"));
    assert_eq!(c("C:\\Users\\Caf\u{0065}\u{0301}").as_deref(), Some("c:\\users\\caf\u{e9}"), "NFC");
    assert_eq!(c("/home/u"), None);
    assert_eq!(c("//server/share"), None, "a Unix path");
    assert_eq!(c("C:relative"), None);
    assert_eq!(c(r"\\server"), None);
    assert!(is_absolute_anywhere(r"C:\x") && is_absolute_anywhere("/x") && !is_absolute_anywhere("x"));
}

//! Adversarial tests of the batched importer, per-entry metadata and the
//! store pragmas, written by a review that tried to break them. Each test
//! states what it expects. The three `#[ignore]`d ones are known limitations
//! (listed in the README); the rest were bugs, fixed.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use sessiondb::portable::{import_file, ImportStatus};
use sessiondb::*;

const KEY: [u8; 32] = [9u8; 32];

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()))).unwrap()
}

fn write_lines(path: &Path, lines: &[Value]) {
    let mut f = std::fs::File::create(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

fn append_lines(path: &Path, lines: &[Value]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

const TS: &str = "2026-02-23T19:34:26.098Z";

fn claude(ty: &str, uuid: &str, parent: Option<&str>, side: bool) -> Value {
    json!({"type":ty,"sessionId":"brk-claude","uuid":uuid,"parentUuid":parent,"isSidechain":side,"cwd":"/tmp","timestamp":TS,"version":"2.0.1","gitBranch":"main"})
}

fn claude_user(uuid: &str, parent: Option<&str>, side: bool, text: &str) -> Value {
    let mut v = claude("user", uuid, parent, side);
    v["message"] = json!({"role":"user","content":text});
    v
}

fn claude_asst(uuid: &str, parent: Option<&str>, side: bool, msg_id: &str, content: Value, out: u64) -> Value {
    let mut v = claude("assistant", uuid, parent, side);
    v["message"] = json!({"id":msg_id,"model":"claude-sonnet-4-5","role":"assistant","content":content,
        "usage":{"input_tokens":3,"cache_read_input_tokens":100,"output_tokens":out}});
    v
}

#[derive(Debug, PartialEq)]
struct Dump {
    entries: Vec<(u64, String, Option<u64>, String, EntryMeta)>,
    tokens: (u64, u64, u64),
    ext_kinds: Vec<String>,
    workspace: Option<String>,
    provider: Option<String>,
    model: Option<String>,
}

fn dump(store: &SessionStore, sid: &str) -> Dump {
    let rec = store.get_session(sid).unwrap();
    let entries = store
        .get_transcript_with_meta(sid, 1, 10_000)
        .unwrap()
        .into_iter()
        .map(|(e, m)| (e.seq, e.role.as_str().to_owned(), e.source_line, e.content, m))
        .collect();
    let t = store.token_totals(sid).unwrap();
    Dump {
        entries,
        tokens: (t.input, t.output, t.cached),
        ext_kinds: store.list_context_extensions(sid).unwrap().into_iter().map(|x| x.kind).collect(),
        workspace: rec.workspace_path,
        provider: rec.provider,
        model: rec.model,
    }
}

fn session_ids(store: &SessionStore) -> Vec<String> {
    let mut v: Vec<String> = store.list_sessions(None).unwrap().into_iter().map(|s| s.id).collect();
    v.sort();
    v
}

/// A Claude file whose second half starts a sidechain (Task subagent).
fn claude_with_late_sidechain() -> (Vec<Value>, Vec<Value>) {
    let first = vec![
        claude_user("u1", None, false, "first question"),
        claude_asst("a1", Some("u1"), false, "msg_1", json!([{"type":"text","text":"first answer"}]), 5),
    ];
    let second = vec![
        claude_user("side-root", None, true, "subagent task"),
        claude_asst("side-a", Some("side-root"), true, "msg_side", json!([{"type":"text","text":"subagent answer"}]), 9),
        claude_user("u2", Some("a1"), false, "second question"),
        claude_asst("a2", Some("u2"), false, "msg_2", json!([{"type":"text","text":"second answer"}]), 7),
    ];
    (first, second)
}

/// Was a bug: a sidechain first seen by an incremental import (file grown since the
/// last import, or an import resumed after a crash) is created without the
/// workspace binding, provider and import_source metadata that a clean
/// import of the same file gives it: the Claude reader sends the session's
/// Meta (cwd, provider, version...) only when the line carrying it is at or
/// after `emit_from_line`.
#[test]
fn claude_sidechain_seen_by_an_incremental_import_equals_a_clean_import() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = claude_with_late_sidechain();
    let all: Vec<Value> = first.iter().chain(second.iter()).cloned().collect();

    let clean_file = dir.path().join("clean.jsonl");
    write_lines(&clean_file, &all);
    let clean = open(&dir.path().join("clean.db"));
    import_file(&clean, &clean_file, None).unwrap();

    let grown_file = dir.path().join("grown.jsonl");
    write_lines(&grown_file, &first);
    let grown = open(&dir.path().join("grown.db"));
    import_file(&grown, &grown_file, None).unwrap();
    append_lines(&grown_file, &second);
    import_file(&grown, &grown_file, None).unwrap();

    assert_eq!(session_ids(&clean), session_ids(&grown));
    let side = "brk-claude.sidechain.side-root";
    let (c, g) = (dump(&clean, side), dump(&grown, side));
    assert_eq!(c.workspace, Some("/tmp".to_string()), "clean import binds the sidechain to the cwd");
    assert_eq!(g.workspace, c.workspace, "incremental import: sidechain workspace");
    assert_eq!(g.provider, c.provider, "incremental import: sidechain provider");
    let ledger = |db: &Path| -> Vec<Option<String>> {
        let c = rusqlite::Connection::open(db).unwrap();
        let mut st = c.prepare("SELECT provider FROM token_ledger WHERE session_id = ?1 ORDER BY id").unwrap();
        st.query_map([side], |r| r.get(0)).unwrap().map(|r| r.unwrap()).collect()
    };
    assert_eq!(ledger(&dir.path().join("grown.db")), ledger(&dir.path().join("clean.db")), "token ledger provider of the sidechain");
}

/// Was a bug: a file that grew only by lines that produce no event (Claude
/// `file-history-snapshot` / `progress`, Codex `event_msg`s) never becomes
/// UpToDate: the progress record is written only when a target session was
/// touched in this run, so every later import reads the whole file again.
#[test]
fn growth_by_bookkeeping_lines_is_recorded_and_the_next_import_is_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let (first, _) = claude_with_late_sidechain();
    let file = dir.path().join("book.jsonl");
    write_lines(&file, &first);
    let store = open(&dir.path().join("s.db"));
    assert_eq!(import_file(&store, &file, None).unwrap().status, ImportStatus::Imported);
    assert_eq!(import_file(&store, &file, None).unwrap().status, ImportStatus::UpToDate);
    append_lines(&file, &[json!({"type":"file-history-snapshot","messageId":"x","snapshot":{},"isSnapshotUpdate":false})]);
    let r = import_file(&store, &file, None).unwrap();
    assert_eq!(r.status, ImportStatus::Imported);
    let r = import_file(&store, &file, None).unwrap();
    assert_eq!(r.status, ImportStatus::UpToDate, "second import after bookkeeping-only growth: from_line {} read {:?}", r.from_line, r.read.map(|x| x.lines));
}

/// Same for a Codex rollout that grew by `event_msg` lines only.
#[test]
fn codex_growth_by_event_msgs_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a53.jsonl");
    write_lines(
        &file,
        &[
            json!({"timestamp":TS,"type":"session_meta","payload":{"id":"brk-codex","timestamp":TS,"cwd":"/tmp","model_provider":"openai"}}),
            json!({"timestamp":TS,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}),
        ],
    );
    let store = open(&dir.path().join("s.db"));
    import_file(&store, &file, None).unwrap();
    append_lines(&file, &[json!({"timestamp":TS,"type":"event_msg","payload":{"type":"agent_reasoning","text":"..."}})]);
    import_file(&store, &file, None).unwrap();
    let r = import_file(&store, &file, None).unwrap();
    assert_eq!(r.status, ImportStatus::UpToDate);
}

/// A Claude assistant message split over two lines; the file is imported
/// when only the first part is written (Claude Code still writing), then
/// again after the second part. Expected: what a clean import gives (one
/// entry, the last part's usage).
#[test]
#[ignore = "known limitation: a message still being written when its file is imported is stored as two turns (README, Portable sessions)"]
fn claude_file_grown_in_the_middle_of_a_split_message_equals_a_clean_import() {
    let dir = tempfile::tempdir().unwrap();
    let a = claude_asst("a1a", Some("u1"), false, "msg_1", json!([{"type":"thinking","thinking":"hmm"}]), 1);
    let b = claude_asst("a1b", Some("a1a"), false, "msg_1", json!([{"type":"text","text":"answer"}]), 250);
    let first = vec![claude_user("u1", None, false, "q"), a];
    let clean_file = dir.path().join("clean.jsonl");
    write_lines(&clean_file, &[first.clone(), vec![b.clone()]].concat());
    let clean = open(&dir.path().join("clean.db"));
    import_file(&clean, &clean_file, None).unwrap();

    let grown_file = dir.path().join("grown.jsonl");
    write_lines(&grown_file, &first);
    let grown = open(&dir.path().join("grown.db"));
    import_file(&grown, &grown_file, None).unwrap();
    append_lines(&grown_file, &[b]);
    import_file(&grown, &grown_file, None).unwrap();
    let (c, g) = (dump(&clean, "brk-claude"), dump(&grown, "brk-claude"));
    assert_eq!(g.tokens, c.tokens, "token totals");
    assert_eq!(g.entries.len(), c.entries.len(), "entries");
}

/// The same for a Codex assistant turn (reasoning + function call items).
#[test]
#[ignore = "known limitation: a message still being written when its file is imported is stored as two turns (README, Portable sessions)"]
fn codex_file_grown_in_the_middle_of_an_assistant_turn_equals_a_clean_import() {
    let dir = tempfile::tempdir().unwrap();
    let head = vec![
        json!({"timestamp":TS,"type":"session_meta","payload":{"id":"brk-codex","timestamp":TS,"cwd":"/tmp","model_provider":"openai"}}),
        json!({"timestamp":TS,"type":"turn_context","payload":{"cwd":"/tmp","model":"gpt-5"}}),
        json!({"timestamp":TS,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}),
        json!({"timestamp":TS,"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}],"content":null}}),
    ];
    let tail = vec![json!({"timestamp":TS,"type":"response_item","payload":{"type":"function_call","name":"exec","arguments":"{}","call_id":"c1"}})];
    let clean_file = dir.path().join("rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a51.jsonl");
    write_lines(&clean_file, &[head.clone(), tail.clone()].concat());
    let clean = open(&dir.path().join("clean.db"));
    import_file(&clean, &clean_file, None).unwrap();
    let grown_file = dir.path().join("rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a52.jsonl");
    write_lines(&grown_file, &head);
    let grown = open(&dir.path().join("grown.db"));
    import_file(&grown, &grown_file, None).unwrap();
    append_lines(&grown_file, &tail);
    import_file(&grown, &grown_file, None).unwrap();
    let (c, g) = (dump(&clean, "brk-codex"), dump(&grown, "brk-codex"));
    assert_eq!(g.entries.len(), c.entries.len(), "entries: clean {:?}\ngrown {:?}", c.entries, g.entries);
}

fn nested(depth: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..depth {
        v = json!([v]);
    }
    v
}

/// Was a bug: one unknown line (kept raw as an `import_raw_line` extension) that
/// parses fine but is nested close to serde_json's 128-level limit makes the
/// extension body (the line wrapped in `{"raw": ...}`) one level deeper,
/// which `append_context_extension` rejects: the whole batch fails, and
/// every later import of the file fails at the same place (the lines after
/// it are never imported). DESIGN: "unknown line types are kept or skipped,
/// never fatal".
#[test]
fn a_deeply_nested_unknown_line_is_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let mut failures = Vec::new();
    for depth in [100usize, 120, 124, 125, 126, 127] {
        let file = dir.path().join(format!("deep{depth}.jsonl"));
        let sid = format!("brk-deep-{depth}");
        let mut lines = vec![json!({"type":"header","id":sid,"model":"openai/gpt-5","cwd":"/tmp","created_at":1_700_000_000})];
        lines.push(json!({"type":"user","content":[{"type":"text","text":"before"}],"timestamp":1_700_000_001}));
        lines.push(json!({"type":"future_kind","payload":nested(depth)}));
        lines.push(json!({"type":"user","content":[{"type":"text","text":"after"}],"timestamp":1_700_000_002}));
        write_lines(&file, &lines);
        // The line itself is valid JSON serde_json reads:
        let text = std::fs::read_to_string(&file).unwrap();
        let third = text.lines().nth(2).unwrap();
        if serde_json::from_str::<Value>(third).is_err() {
            continue;
        }
        match import_file(&store, &file, None) {
            Ok(r) if matches!(r.status, ImportStatus::Imported) => {
                let n = store.get_session(&sid).unwrap().entry_count;
                if n != 2 {
                    failures.push(format!("depth {depth}: {n} entries"));
                }
            }
            Ok(r) => failures.push(format!("depth {depth}: status {:?}", r.status)),
            Err(e) => failures.push(format!("depth {depth}: {e} ({:?})", e.kind())),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Canaries in Claude toolUseResult / Codex extra fields / meta must never
/// appear in plaintext in the db, -wal or -shm.
#[test]
fn canaries_in_tool_use_result_and_codex_extras_stay_encrypted() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("canary.db");
    let store = open(&db);
    let c1 = "CANARY1toolUseResultZX";
    let c2 = "CANARY2codexPhaseZX";
    let c3 = "CANARY3codexInstrZX";
    let c4 = "CANARY4requestIdZX";
    let c5 = "CANARY5uuidZX";
    let file = dir.path().join("c.jsonl");
    let mut u = claude_user(c5, None, false, "q");
    u["toolUseResult"] = json!({"stdout": c1, "file": {"filePath": "/secret/path"}});
    let mut a = claude_asst("a1", Some(c5), false, "msg_1", json!([{"type":"text","text":"x"}]), 3);
    a["requestId"] = json!(c4);
    write_lines(&file, &[u, a]);
    import_file(&store, &file, None).unwrap();
    let cf = dir.path().join("rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a50.jsonl");
    write_lines(
        &cf,
        &[
            json!({"timestamp":TS,"type":"session_meta","payload":{"id":"brk-codex-c","timestamp":TS,"cwd":"/tmp","model_provider":"openai","instructions":c3}}),
            json!({"timestamp":TS,"type":"response_item","payload":{"type":"message","role":"assistant","phase":c2,"content":[{"type":"output_text","text":"x"}]}}),
        ],
    );
    import_file(&store, &cf, None).unwrap();
    // Export, fork (meta re-sealed), and keep the store open so -wal/-shm exist.
    let f = sessiondb::portable::fork_session(&store, "brk-claude", Some(2), None).unwrap();
    let m = store.get_transcript_with_meta(&f.id, 1, 10).unwrap();
    assert_eq!(m[0].1.extra["tool_use_result"]["stdout"], c1);
    let mut hits = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        let bytes = std::fs::read(PathBuf::from(&p)).unwrap_or_default();
        for c in [c1, c2, c3, c4, c5, "/secret/path"] {
            if bytes.windows(c.len()).any(|w| w == c.as_bytes()) {
                hits.push(format!("{c} in {suffix:?}"));
            }
        }
    }
    // uuid is a source id: allowed? It is not an id of ours; report separately.
    assert!(hits.is_empty(), "plaintext found: {hits:?}");
}

/// Model names: entries and session rows clip them to 256 bytes without
/// control characters; the token ledger gets whatever the source says.
#[test]
fn a_10kb_model_name_with_control_characters_is_clipped_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("m.db");
    let store = open(&db);
    let model = format!("claude\u{1b}[31m\n{}", "x".repeat(10_000));
    let mut a = claude_asst("a1", Some("u1"), false, "msg_1", json!([{"type":"text","text":"x"}]), 3);
    a["message"]["model"] = json!(model);
    let file = dir.path().join("m.jsonl");
    write_lines(&file, &[claude_user("u1", None, false, "q"), a]);
    import_file(&store, &file, None).unwrap();
    let d = dump(&store, "brk-claude");
    let em = d.entries[1].4.model.clone().unwrap();
    assert!(em.len() <= 256 && !em.chars().any(char::is_control));
    let sm = d.model.unwrap();
    assert!(sm.len() <= 256 && !sm.chars().any(char::is_control));
    let c = rusqlite::Connection::open(&db).unwrap();
    let lm: String = c.query_row("SELECT model FROM token_ledger", [], |r| r.get(0)).unwrap();
    assert!(lm.len() <= 256 && !lm.chars().any(char::is_control), "token_ledger.model is {} bytes, control chars: {}", lm.len(), lm.chars().any(char::is_control));
}

/// After the deep-line failure, importing again does not get past it either:
/// the turn after it is never imported (and the turn before it, in the same
/// batch, is lost too).
#[test]
fn a_deeply_nested_unknown_line_blocks_the_file_forever() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = dir.path().join("deep.jsonl");
    let lines = vec![
        json!({"type":"header","id":"brk-deep","model":"openai/gpt-5","cwd":"/tmp","created_at":1_700_000_000}),
        json!({"type":"user","content":[{"type":"text","text":"before"}],"timestamp":1_700_000_001}),
        json!({"type":"future_kind","payload":nested(126)}),
        json!({"type":"user","content":[{"type":"text","text":"after"}],"timestamp":1_700_000_002}),
    ];
    write_lines(&file, &lines);
    let mut errs = Vec::new();
    for _ in 0..3 {
        if let Err(e) = import_file(&store, &file, None) {
            errs.push(e.to_string());
        }
    }
    let n = store.get_session("brk-deep").map(|s| s.entry_count).unwrap_or(0);
    assert_eq!((n, errs.len()), (2, 0), "entries {n}, errors {errs:?}");
}

/// Same with a Claude compact_boundary whose compactMetadata is deep (kept
/// in a `source_compaction` extension two levels deeper than in the line).
#[test]
fn a_deep_claude_compact_boundary_is_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = dir.path().join("deepc.jsonl");
    let mut cb = claude("system", "cb1", Some("u1"), false);
    cb["subtype"] = json!("compact_boundary");
    cb["compactMetadata"] = nested(126);
    write_lines(&file, &[claude_user("u1", None, false, "q"), cb, claude_user("u2", Some("cb1"), false, "after")]);
    let r = import_file(&store, &file, None);
    assert!(r.is_ok(), "{:?}", r.err());
    assert_eq!(store.get_session("brk-claude").unwrap().entry_count, 2);
}

/// A Claude assistant message whose two parts are more than 256 lines apart
/// (bookkeeping lines between) is flushed as stale after its first part: it
/// becomes two entries and the usage kept is the first part's (partial
/// output_tokens), the last part's figures are dropped as a duplicate.
/// Module docs: "its usage is counted once per message id (the last line's
/// figures, which hold the final output_tokens)".
#[test]
#[ignore = "known limitation: a message whose parts are more than 256 lines apart is split (README, Portable sessions)"]
fn a_claude_message_split_far_apart_keeps_the_last_usage() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = dir.path().join("far.jsonl");
    let mut lines = vec![
        claude_user("u1", None, false, "q"),
        claude_asst("a1a", Some("u1"), false, "msg_1", json!([{"type":"thinking","thinking":"hmm"}]), 1),
    ];
    for i in 0..300 {
        lines.push(json!({"type":"progress","sessionId":"brk-claude","uuid":format!("p{i}"),"timestamp":TS,"data":{}}));
    }
    lines.push(claude_asst("a1b", Some("a1a"), false, "msg_1", json!([{"type":"text","text":"answer"}]), 250));
    write_lines(&file, &lines);
    import_file(&store, &file, None).unwrap();
    let d = dump(&store, "brk-claude");
    assert_eq!(d.tokens.1, 250, "output tokens (entries: {})", d.entries.len());
}

fn surrogate_file(dir: &Path) -> PathBuf {
    let file = dir.join("sur.jsonl");
    let u = claude_user("u1", None, false, "PLACEHOLDER_A");
    let mut r = claude("user", "u2", Some("u1"), false);
    r["message"] = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"PLACEHOLDER_B"}]});
    r["toolUseResult"] = json!({"PLACEHOLDER_K": "PLACEHOLDER_C"});
    let text = format!("{u}\n{r}\n")
        .replace("PLACEHOLDER_A", r"a\ud800b\udc00c\\ud800")
        .replace("PLACEHOLDER_B", r"\ud83d\ude00\ud83d")
        .replace("PLACEHOLDER_K", r"k\udfff")
        .replace("PLACEHOLDER_C", r"\ud800\ud800\udc00");
    std::fs::write(&file, &text).unwrap();
    file
}

/// Lone surrogates (format given): replaced by U+FFFD in content, in
/// toolUseResult metadata and in its keys; lines reported. (Holds.)
#[test]
fn lone_surrogates_in_content_and_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = surrogate_file(dir.path());
    let rep = import_file(&store, &file, Some(sessiondb::portable::SourceFormat::ClaudeCode)).unwrap();
    let d = dump(&store, "brk-claude");
    assert_eq!(rep.read.as_ref().unwrap().surrogates_replaced, vec![1, 2]);
    assert_eq!(d.entries[0].3, "a\u{fffd}b\u{fffd}c\\ud800");
    assert!(d.entries[1].3.contains("😀\u{fffd}"), "{}", d.entries[1].3);
    assert_eq!(d.entries[1].4.extra["tool_use_result"], json!({"k\u{fffd}": "\u{fffd}\u{10000}"}));
}

/// Was a bug (minor): format detection parses lines without the lone-surrogate
/// repair the readers apply, so a Claude file whose first 16 lines each hold
/// a lone surrogate is `Unrecognized` (and skipped by `import` of a directory).
#[test]
fn format_detection_reads_lines_with_lone_surrogates() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = surrogate_file(dir.path());
    let rep = import_file(&store, &file, None).unwrap();
    assert_eq!(rep.status, ImportStatus::Imported);
}

/// A file truncated and rewritten (same first 4 KiB, shorter) is
/// SourceChanged; the same head but different content after it and longer
/// is imported as growth (documented: head hash covers 4 KiB only).
#[test]
fn truncated_or_rewritten_files() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = dir.path().join("t.jsonl");
    let mut lines = vec![json!({"type":"header","id":"brk-t","model":"openai/gpt-5","cwd":"/tmp","created_at":1_700_000_000})];
    for n in 0..100 {
        lines.push(json!({"type":"user","content":[{"type":"text","text":format!("turn {n} {}", "x".repeat(100))}],"timestamp":1_700_000_001}));
    }
    write_lines(&file, &lines);
    import_file(&store, &file, None).unwrap();
    write_lines(&file, &lines[..50]);
    assert_eq!(import_file(&store, &file, None).unwrap().status, ImportStatus::SourceChanged);
    // Head changed, same length + more.
    let mut l2 = lines.clone();
    l2[1] = json!({"type":"user","content":[{"type":"text","text":"changed"}],"timestamp":1_700_000_001});
    l2.push(json!({"type":"user","content":[{"type":"text","text":"more"}],"timestamp":1_700_000_001}));
    write_lines(&file, &l2);
    assert_eq!(import_file(&store, &file, None).unwrap().status, ImportStatus::SourceChanged);
    assert_eq!(store.get_session("brk-t").unwrap().entry_count, 100);
}

fn codex_rollout() -> Vec<Value> {
    let mut v = vec![
        json!({"timestamp":TS,"type":"session_meta","payload":{"id":"brk-codex-mv","timestamp":TS,"cwd":"/tmp","model_provider":"openai"}}),
        json!({"timestamp":TS,"type":"turn_context","payload":{"cwd":"/tmp","model":"gpt-5"}}),
    ];
    for n in 0..3u64 {
        v.push(json!({"timestamp":TS,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":format!("q{n}")}]}}));
        v.push(json!({"timestamp":TS,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":format!("a{n}")}]}}));
        v.push(json!({"timestamp":TS,"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100 * (n + 1),"cached_input_tokens":0,"output_tokens":10 * (n + 1)}}}}));
        v.push(json!({"timestamp":TS,"type":"future_kind","payload":{"n":n}}));
    }
    v.push(json!({"timestamp":TS,"type":"compacted","payload":{"message":"summary"}}));
    v
}

/// Was a bug: the same rollout imported again from another path (Codex moves
/// archived rollouts from `sessions/` to `archived_sessions/`; a copied
/// ~/.codex) adds a second copy of the token records and context extensions
/// that follow the last stored entry's line: only turns are guarded by the
/// "source line already stored" check.
#[test]
fn a_moved_rollout_imported_again_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    std::fs::create_dir_all(dir.path().join("sessions")).unwrap();
    std::fs::create_dir_all(dir.path().join("archived_sessions")).unwrap();
    let a = dir.path().join("sessions/rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a59.jsonl");
    let b = dir.path().join("archived_sessions/rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a59.jsonl");
    write_lines(&a, &codex_rollout());
    import_file(&store, &a, None).unwrap();
    let before = dump(&store, "brk-codex-mv");
    std::fs::rename(&a, &b).unwrap();
    let r = import_file(&store, &b, None).unwrap();
    let after = dump(&store, "brk-codex-mv");
    assert_eq!(after.entries.len(), before.entries.len());
    assert_eq!((after.tokens, after.ext_kinds.clone()), (before.tokens, before.ext_kinds.clone()), "report: {:?}", r.sessions);
}

/// Was a bug: after `delete_session` of an imported session, importing its file
/// again does nothing (UpToDate: the progress record outlives the session);
/// once the file grows, a new session holding only the new lines appears.
#[test]
fn a_deleted_imported_session_can_be_imported_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = dir.path().join("rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a58.jsonl");
    let lines = codex_rollout();
    write_lines(&file, &lines);
    import_file(&store, &file, None).unwrap();
    let n = store.get_session("brk-codex-mv").unwrap().entry_count;
    store.delete_session("brk-codex-mv").unwrap();
    let r = import_file(&store, &file, None).unwrap();
    let again = store.get_session("brk-codex-mv").map(|s| s.entry_count);
    assert_eq!(again.as_ref().ok(), Some(&n), "status {:?}, session after re-import: {again:?}", r.status);
}

/// A file read while a line is half written (torn tail, also cut inside a
/// multi-byte character), then completed: equals a clean import.
#[test]
fn torn_tail_then_completed_equals_clean_import() {
    let dir = tempfile::tempdir().unwrap();
    let lines = [
        json!({"type":"header","id":"brk-torn","model":"openai/gpt-5","cwd":"/tmp","created_at":1_700_000_000}),
        json!({"type":"user","content":[{"type":"text","text":"q1"}],"timestamp":1_700_000_001}),
        json!({"type":"assistant","content":[{"type":"text","text":"réponse 😀 ünïcödé"}],"timestamp":1_700_000_002,"model":"gpt-5","provider":"openai"}),
        json!({"type":"user","content":[{"type":"text","text":"q2"}],"timestamp":1_700_000_003}),
    ];
    let full: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let clean_f = dir.path().join("clean.jsonl");
    std::fs::write(&clean_f, &full).unwrap();
    let clean = open(&dir.path().join("c.db"));
    import_file(&clean, &clean_f, None).unwrap();
    let reference = dump(&clean, "brk-torn");
    let bytes = full.as_bytes();
    let start3 = full.find("réponse").unwrap();
    let mut failures = Vec::new();
    for cut in [start3 - 20, start3 + 2, start3 + 12, full.len() - 3, full.len() - 1] {
        let f = dir.path().join(format!("torn{cut}.jsonl"));
        std::fs::write(&f, &bytes[..cut]).unwrap();
        let db = dir.path().join(format!("t{cut}.db"));
        let s = open(&db);
        import_file(&s, &f, None).unwrap();
        std::fs::write(&f, bytes).unwrap();
        import_file(&s, &f, None).unwrap();
        let got = dump(&s, "brk-torn");
        if got.entries != reference.entries {
            failures.push(format!("cut {cut}: {:?}", got.entries.iter().map(|e| (e.0, e.3.clone())).collect::<Vec<_>>()));
        }
        if import_file(&s, &f, None).unwrap().status != ImportStatus::UpToDate {
            failures.push(format!("cut {cut}: not up to date"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Was a bug: the importer keeps one file-wide "latest model" and writes it to
/// every session of the file at each commit, so a Claude sidechain (Task
/// subagent on claude-haiku) is stored with the main thread's model, and the
/// main session takes the subagent's model when a sidechain line is the
/// last assistant line. `read_path` (the in-memory reader of the same file)
/// gives each session its own model.
#[test]
fn claude_sidechain_and_main_keep_their_own_models() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("models.jsonl");
    let mut side = claude_asst("side-a", Some("side-root"), true, "msg_side", json!([{"type":"text","text":"sub"}]), 9);
    side["message"]["model"] = json!("claude-haiku-4-5");
    write_lines(
        &file,
        &[
            claude_user("u1", None, false, "q"),
            claude_asst("a1", Some("u1"), false, "msg_1", json!([{"type":"text","text":"a"}]), 5),
            claude_user("side-root", None, true, "task"),
            side,
        ],
    );
    let collected = sessiondb::portable::read_path(&file, None).unwrap();
    let expected: Vec<(String, Option<String>)> = collected.sessions.iter().map(|s| (s.id.clone(), s.model.clone())).collect();
    let store = open(&dir.path().join("s.db"));
    import_file(&store, &file, None).unwrap();
    let got: Vec<(String, Option<String>)> = expected.iter().map(|(id, _)| (id.clone(), store.get_session(id).unwrap().model)).collect();
    assert_eq!(got, expected);
}

/// Continuation of the above: after the delete, the file grows; the import
/// recreates the session with only the new lines (history before the growth
/// is silently missing).
#[test]
fn a_deleted_imported_session_then_grown_file_is_imported_whole() {
    let dir = tempfile::tempdir().unwrap();
    let store = open(&dir.path().join("s.db"));
    let file = dir.path().join("rollout-2026-01-01T00-00-00-0199a213-81c0-7800-8aa1-bbab2a035a57.jsonl");
    write_lines(&file, &codex_rollout());
    import_file(&store, &file, None).unwrap();
    store.delete_session("brk-codex-mv").unwrap();
    append_lines(&file, &[json!({"timestamp":TS,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"new"}]}})]);
    import_file(&store, &file, None).unwrap();
    let s = store.get_session("brk-codex-mv").unwrap();
    assert_eq!((s.entry_count, s.workspace_path), (7, Some("/tmp".into())));
}

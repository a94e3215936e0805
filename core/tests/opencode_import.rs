//! opencode importer (issue 28 item 6): a session written by hand in both
//! of opencode's real layouts, its JSON-file `storage/` tree and its
//! SQLite `opencode.db`, record shapes as `packages/opencode/src/session/
//! message-v2.ts` declares them, tables as `session/session.sql.ts` does
//! (see `core/src/portable/opencode.rs` for the sources). Every part kind
//! is in the fixture.

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use serde_json::{json, Value};
use sessiondb::portable::opencode::{classify_path, OpencodePath};
use sessiondb::portable::{detect_format, export_thclaws_text, import_file, import_paths_report, read_opencode, Block, ImportStatus, OpencodeSource, SkipReason, SourceFormat};
use sessiondb::*;

const KEY: [u8; 32] = [9u8; 32];
const SID: &str = "ses_6a1b2c3d4e5fOpenCodeTest1";
const T0: i64 = 1_760_000_000_000;

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()))).unwrap()
}

/// A message with its parts, each record whole (ids included), as the
/// JSON-file layout keeps them.
struct Msg {
    info: Value,
    parts: Vec<Value>,
}

fn session_info() -> Value {
    json!({"id": SID, "slug": "brave-parser", "projectID": "prj_0a1b", "directory": "/work/proj", "title": "Fix the parser",
           "version": "1.0.150", "time": {"created": T0, "updated": T0 + 60_000}})
}

fn user(id: &str, t: i64, parts: Vec<Value>) -> Msg {
    Msg { info: json!({"id": id, "sessionID": SID, "role": "user", "time": {"created": t}, "agent": "build",
                       "model": {"providerID": "anthropic", "modelID": "claude-sonnet-4-5"}}), parts }
}

fn assistant(id: &str, t: i64, completed: Option<i64>, summary: bool, parts: Vec<Value>) -> Msg {
    let mut info = json!({"id": id, "sessionID": SID, "role": "assistant", "time": {"created": t}, "parentID": "msg_a001",
        "modelID": "claude-sonnet-4-5", "providerID": "anthropic", "mode": "build", "agent": "build",
        "path": {"cwd": "/work/proj", "root": "/work/proj"}, "cost": 0.012,
        "tokens": {"input": 0, "output": 0, "reasoning": 0, "cache": {"read": 0, "write": 0}}});
    if let Some(c) = completed {
        info["time"]["completed"] = json!(c);
        info["finish"] = json!("stop");
    }
    if summary {
        info["summary"] = json!(true);
    }
    Msg { info, parts }
}

fn part(mid: &str, id: &str, body: Value) -> Value {
    let mut p = json!({"id": id, "sessionID": SID, "messageID": mid});
    p.as_object_mut().unwrap().extend(body.as_object().unwrap().clone());
    p
}

fn step_finish(mid: &str, id: &str, input: u64, output: u64, reasoning: u64, read: u64, write: u64) -> Value {
    part(mid, id, json!({"type": "step-finish", "reason": "tool-calls", "snapshot": "4b825dc6", "cost": 0.004,
        "tokens": {"input": input, "output": output, "reasoning": reasoning, "cache": {"read": read, "write": write}}}))
}

/// Five messages holding every part kind (see the test for what each becomes).
fn fixture() -> Vec<Msg> {
    let (m1, m2, m3, m4, m5) = ("msg_a001", "msg_a002", "msg_a003", "msg_a004", "msg_a005");
    vec![
        user(m1, T0 + 1000, vec![
            part(m1, "prt_a001a", json!({"type": "text", "text": "Fix the parser bug"})),
            part(m1, "prt_a001b", json!({"type": "file", "mime": "image/png", "filename": "shot.png", "url": "data:image/png;base64,iVBORw0KGgo="})),
            part(m1, "prt_a001c", json!({"type": "agent", "name": "build", "source": {"value": "@build", "start": 0, "end": 6}})),
            part(m1, "prt_a001d", json!({"type": "file", "mime": "text/plain", "filename": "src/parse.rs", "url": "file:///work/proj/src/parse.rs"})),
        ]),
        assistant(m2, T0 + 2000, Some(T0 + 9000), false, vec![
            part(m2, "prt_a002a", json!({"type": "step-start", "snapshot": "4b825dc6"})),
            part(m2, "prt_a002b", json!({"type": "reasoning", "text": "Look at parse.rs first.", "time": {"start": T0 + 2100, "end": T0 + 2200}})),
            part(m2, "prt_a002c", json!({"type": "text", "text": "I will read the file.", "time": {"start": T0 + 2200, "end": T0 + 2300}})),
            part(m2, "prt_a002d", json!({"type": "tool", "callID": "toolu_01", "tool": "read", "state": {"status": "completed",
                "input": {"filePath": "/work/proj/src/parse.rs"}, "output": "fn parse() {}", "title": "src/parse.rs", "metadata": {},
                "time": {"start": T0 + 2300, "end": T0 + 2400}}})),
            part(m2, "prt_a002e", json!({"type": "tool", "callID": "toolu_02", "tool": "bash", "state": {"status": "error",
                "input": {"command": "cargo test"}, "error": "exit status 101", "time": {"start": T0 + 2400, "end": T0 + 2500}}})),
            step_finish(m2, "prt_a002f", 100, 20, 5, 1000, 50),
            part(m2, "prt_a002g", json!({"type": "step-start"})),
            part(m2, "prt_a002h", json!({"type": "text", "text": "Fixed."})),
            part(m2, "prt_a002i", json!({"type": "text", "text": "Fixed."})),
            part(m2, "prt_a002j", json!({"type": "tool", "callID": "toolu_03", "tool": "edit", "state": {"status": "running",
                "input": {"filePath": "/work/proj/src/parse.rs"}, "time": {"start": T0 + 2600}}})),
            part(m2, "prt_a002k", json!({"type": "patch", "hash": "9f2c1e", "files": ["/work/proj/src/parse.rs"]})),
            part(m2, "prt_a002l", json!({"type": "snapshot", "snapshot": "9f2c1e"})),
            step_finish(m2, "prt_a002m", 200, 30, 0, 1100, 0),
            part(m2, "prt_a002n", json!({"type": "retry", "attempt": 1, "error": {"name": "APIError", "data": {"message": "overloaded", "isRetryable": true}}, "time": {"created": T0 + 2700}})),
        ]),
        user(m3, T0 + 10_000, vec![part(m3, "prt_a003a", json!({"type": "compaction", "auto": true}))]),
        assistant(m4, T0 + 11_000, Some(T0 + 12_000), true, vec![
            part(m4, "prt_a004a", json!({"type": "text", "text": "Summary: the parser is fixed."})),
            step_finish(m4, "prt_a004b", 300, 40, 0, 0, 0),
        ]),
        user(m5, T0 + 13_000, vec![
            part(m5, "prt_a005a", json!({"type": "subtask", "prompt": "Review the diff", "description": "review", "agent": "general"})),
            part(m5, "prt_a005b", json!({"type": "future-kind", "foo": 1})),
        ]),
    ]
}

fn write_json(path: &Path, v: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_string_pretty(v).unwrap()).unwrap();
}

/// The JSON-file tree (`storage/session/<projectID>/<id>.json`,
/// `storage/message/<sessionID>/<id>.json`, `storage/part/<messageID>/<id>.json`).
fn write_storage(root: &Path, msgs: &[Msg]) {
    write_json(&root.join("session/prj_0a1b").join(format!("{SID}.json")), &session_info());
    for m in msgs {
        add_storage_message(root, m);
    }
}

fn add_storage_message(root: &Path, m: &Msg) {
    let mid = m.info["id"].as_str().unwrap();
    write_json(&root.join("message").join(SID).join(format!("{mid}.json")), &m.info);
    for p in &m.parts {
        write_json(&root.join("part").join(mid).join(format!("{}.json", p["id"].as_str().unwrap())), p);
    }
}

/// The tables of `session/session.sql.ts` (the columns this fixture fills).
fn write_db(path: &Path, msgs: &[Msg]) {
    let c = Connection::open(path).unwrap();
    c.execute_batch(
        "CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text,
            `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `sandboxes` text NOT NULL);
         CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
            `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL,
            `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text,
            `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL,
            `tokens_reasoning` integer DEFAULT 0 NOT NULL, `tokens_cache_read` integer DEFAULT 0 NOT NULL,
            `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, `permission` text, `goal` text, `agent` text, `model` text,
            `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer,
            FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE cascade);
         CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
            `time_updated` integer NOT NULL, `data` text NOT NULL,
            FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE cascade);
         CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`, `time_created`, `id`);
         CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL,
            `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL,
            FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE cascade);
         CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`, `id`);",
    )
    .unwrap();
    c.execute("INSERT INTO project VALUES ('prj_0a1b', '/work/proj', 'git', NULL, ?1, ?1, '[]')", [T0]).unwrap();
    let s = session_info();
    c.execute(
        "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?1, 'prj_0a1b', ?2, ?3, ?4, ?5, ?6, ?7)",
        rusqlite::params![SID, s["slug"].as_str(), s["directory"].as_str(), s["title"].as_str(), s["version"].as_str(), T0, T0 + 60_000],
    )
    .unwrap();
    for m in msgs {
        add_db_message(&c, m);
    }
}

fn add_db_message(c: &Connection, m: &Msg) {
    let mut data = m.info.clone();
    let mid = data.as_object_mut().unwrap().remove("id").unwrap();
    data.as_object_mut().unwrap().remove("sessionID");
    let t = m.info["time"]["created"].as_i64().unwrap();
    c.execute("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)", rusqlite::params![mid.as_str(), SID, t, data.to_string()]).unwrap();
    for p in &m.parts {
        let mut d = p.clone();
        let o = d.as_object_mut().unwrap();
        let pid = o.remove("id").unwrap();
        o.remove("sessionID");
        o.remove("messageID");
        c.execute("INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)", rusqlite::params![pid.as_str(), mid.as_str(), SID, t, d.to_string()]).unwrap();
    }
}

/// (role, content) of every entry.
fn entries(st: &SessionStore, id: &str) -> Vec<(Role, String)> {
    st.get_transcript(id, 1, 1000).unwrap().into_iter().map(|e| (e.role, e.content)).collect()
}

fn expected_entries() -> Vec<(Role, String)> {
    let e = |r: Role, s: &str| (r, s.to_owned());
    vec![
        e(Role::User, r#"[{"type":"text","text":"Fix the parser bug"},{"type":"image","source":{"data":"iVBORw0KGgo=","media_type":"image/png","type":"base64"}},{"type":"text","text":"[file: src/parse.rs (text/plain)]"}]"#),
        e(Role::Assistant, r#"[{"type":"thinking","content":"Look at parse.rs first."},{"type":"text","text":"I will read the file."},{"type":"tool_use","id":"toolu_01","name":"read","input":{"filePath":"/work/proj/src/parse.rs"}},{"type":"tool_use","id":"toolu_02","name":"bash","input":{"command":"cargo test"}}]"#),
        e(Role::User, r#"[{"type":"tool_result","tool_use_id":"toolu_01","content":"fn parse() {}"},{"type":"tool_result","tool_use_id":"toolu_02","content":"exit status 101","is_error":true}]"#),
        // Two identical text parts: both kept.
        e(Role::Assistant, r#"[{"type":"text","text":"Fixed."},{"type":"text","text":"Fixed."},{"type":"tool_use","id":"toolu_03","name":"edit","input":{"filePath":"/work/proj/src/parse.rs"}}]"#),
        e(Role::Assistant, "Summary: the parser is fixed."),
        e(Role::User, "[subtask general: review]\nReview the diff"),
    ]
}

/// (session id, created, entries, tool calls, tool results, usage records, input, output, cached)
type Counts = (String, bool, u64, u64, u64, u64, u64, u64, u64);

fn counts(r: &portable::FileImport) -> Vec<Counts> {
    r.sessions
        .iter()
        .map(|s| (s.session_id.clone(), s.created, s.entries, s.tool_calls, s.tool_results, s.usage_records, s.input_tokens, s.output_tokens, s.cached_tokens))
        .collect()
}

fn map(pairs: &[(&str, u64)]) -> std::collections::BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// The figures of the fixture: 6 turns, 3 tool calls, 2 tool results, 3
/// usage figures: input (100+1000+50) + (200+1100) + 300 = 2750, output
/// (20+5) + 30 + 40 = 95, cached 1000 + 1100 = 2100.
fn assert_first_import(st: &SessionStore, r: &portable::FileImport) {
    assert_eq!(r.status, ImportStatus::Imported);
    assert_eq!(r.format, Some(SourceFormat::Opencode));
    assert_eq!(counts(r), vec![(SID.to_owned(), true, 6, 3, 2, 3, 2750, 95, 2100)]);
    assert_eq!(entries(st, SID), expected_entries());
    let t = st.token_totals(SID).unwrap();
    assert_eq!((t.input, t.output, t.cached), (2750, 95, 2100));
    let s = st.get_session(SID).unwrap();
    assert_eq!(s.name.as_deref(), Some("Fix the parser"));
    assert_eq!(s.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(s.provider.as_deref(), Some("anthropic"));
    assert_eq!(s.created_at_ms, T0);
    assert_eq!(s.workspace_path.as_deref(), Some("/work/proj"));
    let kinds: Vec<String> = st.list_context_extensions(SID).unwrap().into_iter().map(|x| x.kind).collect();
    assert!(kinds.contains(&"source_compaction".to_owned()), "{kinds:?}");
    assert!(kinds.contains(&"import_raw_line".to_owned()), "{kinds:?}");
    // Every record in one place: 1 session + 5 messages + 23 parts.
    let read = r.read.as_ref().unwrap();
    assert_eq!(read.lines, 29);
    let a = read.line_account();
    assert_eq!(a.total(), 29);
    assert_eq!(
        a.in_session,
        map(&[("session", 1), ("message/user", 3), ("message/assistant", 2), ("part/text", 5), ("part/file", 2), ("part/reasoning", 1),
              ("part/tool", 3), ("part/step-finish", 3), ("part/compaction", 1), ("part/subtask", 1)])
    );
    assert_eq!(a.not_imported, map(&[("part/agent", 1), ("part/step-start", 2), ("part/patch", 1), ("part/snapshot", 1), ("part/retry", 1)]));
    assert_eq!(a.kept_raw, map(&[("part/future-kind", 1)]));
    assert!(a.unreadable.is_empty());
}

#[test]
fn storage_tree_imports_every_part_kind_with_exact_figures() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("opencode/storage");
    write_storage(&root, &fixture());
    let st = open(&dir.path().join("s.db"));
    let r = import_file(&st, &root, None).unwrap();
    assert_first_import(&st, &r);
    // Each turn names its message and its place in it.
    let metas: Vec<(String, u64)> = st
        .get_transcript_with_meta(SID, 1, 100)
        .unwrap()
        .into_iter()
        .map(|(_, m)| {
            let x: Value = serde_json::to_value(&m).unwrap();
            let extra = &x["extra"];
            (extra["opencode_message_id"].as_str().unwrap_or("?").to_owned(), extra["opencode_turn"].as_u64().unwrap_or(99))
        })
        .collect();
    let want: Vec<(String, u64)> = [("msg_a001", 0), ("msg_a002", 0), ("msg_a002", 1), ("msg_a002", 2), ("msg_a004", 0), ("msg_a005", 0)]
        .iter()
        .map(|(m, k)| (m.to_string(), *k))
        .collect();
    assert_eq!(metas, want);

    // Re-import: nothing added, reported up to date.
    let again = import_file(&st, &root, None).unwrap();
    assert_eq!(again.status, ImportStatus::UpToDate);
    assert_eq!(counts(&again), vec![(SID.to_owned(), false, 0, 0, 0, 0, 0, 0, 0)]);
    assert_eq!(again.sessions[0].skipped_already_stored, 6);
    assert_eq!(entries(&st, SID), expected_entries());
    let t = st.token_totals(SID).unwrap();
    assert_eq!((t.input, t.output, t.cached), (2750, 95, 2100));
}

#[test]
fn database_imports_the_same_session_as_the_storage_tree() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    write_db(&db, &fixture());
    let st = open(&dir.path().join("s.db"));
    let r = import_file(&st, &db, None).unwrap();
    assert_first_import(&st, &r);
    let again = import_file(&st, &db, None).unwrap();
    assert_eq!(again.status, ImportStatus::UpToDate);
    assert_eq!(counts(&again), vec![(SID.to_owned(), false, 0, 0, 0, 0, 0, 0, 0)]);

    // The same session from the JSON tree (opencode migrated one into the
    // other): stored once.
    let root = dir.path().join("storage");
    write_storage(&root, &fixture());
    let both = import_file(&st, &root, None).unwrap();
    assert_eq!(both.status, ImportStatus::UpToDate);
    // The data directory holding both, as one report: each source's session, 29 records each.
    let data = import_file(&st, dir.path(), None).unwrap();
    assert_eq!(data.status, ImportStatus::UpToDate);
    assert_eq!(counts(&data), vec![(SID.to_owned(), false, 0, 0, 0, 0, 0, 0, 0); 2]);
    assert_eq!(data.read.as_ref().unwrap().lines, 58);
    assert_eq!(data.read.as_ref().unwrap().line_account().total(), 58);
    assert_eq!(entries(&st, SID), expected_entries());
    let t = st.token_totals(SID).unwrap();
    assert_eq!((t.input, t.output, t.cached), (2750, 95, 2100));
}

#[test]
fn a_message_added_later_is_imported_alone_and_the_answer_being_written_waits() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("storage");
    let db = dir.path().join("opencode.db");
    write_storage(&root, &fixture());
    write_db(&db, &fixture());
    for (src, store_name) in [(root.clone(), "a.db"), (db.clone(), "b.db")] {
        let st = open(&dir.path().join(store_name));
        import_file(&st, &src, None).unwrap();
        // A new question, and an answer still streaming (no time.completed).
        let q = user("msg_a006", T0 + 20_000, vec![part("msg_a006", "prt_a006a", json!({"type": "text", "text": "And the tests?"}))]);
        let mut a = assistant("msg_a007", T0 + 21_000, None, false, vec![part("msg_a007", "prt_a007a", json!({"type": "text", "text": "Running th"}))]);
        if src == root {
            add_storage_message(&root, &q);
            add_storage_message(&root, &a);
        } else {
            let c = Connection::open(&db).unwrap();
            add_db_message(&c, &q);
            add_db_message(&c, &a);
        }
        let r = import_file(&st, &src, None).unwrap();
        assert_eq!(counts(&r), vec![(SID.to_owned(), false, 1, 0, 0, 0, 0, 0, 0)], "{src:?}");
        let read = r.read.as_ref().unwrap();
        assert_eq!(read.lines, 33);
        let acc = read.line_account();
        assert_eq!(acc.total(), 33);
        assert_eq!(acc.not_imported.get("in progress: message"), Some(&1));
        assert_eq!(acc.not_imported.get("in progress: part"), Some(&1));
        assert_eq!(entries(&st, SID).last().unwrap(), &(Role::User, "And the tests?".to_owned()));

        // The answer is finished: it alone is imported, whole.
        a = assistant("msg_a007", T0 + 21_000, Some(T0 + 22_000), false, vec![
            part("msg_a007", "prt_a007a", json!({"type": "text", "text": "Running them now."})),
            step_finish("msg_a007", "prt_a007b", 10, 2, 0, 0, 0),
        ]);
        if src == root {
            std::fs::remove_dir_all(root.join("part/msg_a007")).unwrap();
            add_storage_message(&root, &a);
        } else {
            let c = Connection::open(&db).unwrap();
            c.execute("DELETE FROM part WHERE message_id = 'msg_a007'", []).unwrap();
            c.execute("DELETE FROM message WHERE id = 'msg_a007'", []).unwrap();
            add_db_message(&c, &a);
        }
        let r = import_file(&st, &src, None).unwrap();
        assert_eq!(counts(&r), vec![(SID.to_owned(), false, 1, 0, 0, 1, 10, 2, 0)], "{src:?}");
        let all = entries(&st, SID);
        assert_eq!(all.len(), 8);
        assert_eq!(all[7], (Role::Assistant, "Running them now.".to_owned()));
        assert_eq!(import_file(&st, &src, None).unwrap().status, ImportStatus::UpToDate);
    }
}

#[test]
fn a_corrupt_record_file_is_skipped_by_name_and_nothing_stored_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("storage");
    write_storage(&root, &fixture());
    let st = open(&dir.path().join("s.db"));
    import_file(&st, &root, None).unwrap();
    let before = st.get_transcript_with_meta(SID, 1, 100).unwrap();
    // A new message whose second part file is torn, and a message file that is not JSON.
    let m = user("msg_a006", T0 + 20_000, vec![part("msg_a006", "prt_a006a", json!({"type": "text", "text": "Still there?"}))]);
    add_storage_message(&root, &m);
    std::fs::write(root.join("part/msg_a006/prt_a006b.json"), "{\"id\": \"prt_a006b\", \"type\": \"text\", \"te").unwrap();
    std::fs::write(root.join("message").join(SID).join("msg_a008.json"), "not json").unwrap();
    write_json(&root.join("part/msg_a008/prt_a008a.json"), &part("msg_a008", "prt_a008a", json!({"type": "text", "text": "orphaned"})));
    let r = import_file(&st, &root, None).unwrap();
    assert_eq!(r.status, ImportStatus::Imported);
    assert_eq!(counts(&r), vec![(SID.to_owned(), false, 1, 0, 0, 0, 0, 0, 0)]);
    let read = r.read.as_ref().unwrap();
    // msg_a008 has no time: it sorts first (record 2), its part is record 3;
    // the fixture's 28 records follow (4..=31), then msg_a006 and its parts (32..=34).
    assert_eq!(read.lines, 34);
    let skipped: Vec<(u64, SkipReason)> = read.skipped.iter().map(|s| (s.line, s.reason.clone())).collect();
    assert_eq!(skipped, vec![(2, SkipReason::InvalidJson { column: 2 }), (34, SkipReason::InvalidJson { column: 39 })]);
    let acc = read.line_account();
    assert_eq!(acc.total(), 34);
    assert_eq!(acc.unreadable, map(&[("invalid_json", 2)]));
    assert_eq!(acc.not_imported.get("part of an unreadable message"), Some(&1));
    let after = st.get_transcript_with_meta(SID, 1, 100).unwrap();
    assert_eq!(after[..6], before[..]);
    assert_eq!(after.len(), 7);
    assert_eq!(after[6].0.content, "Still there?");
}

#[test]
fn export_of_an_imported_opencode_session_imports_back_to_the_same_entries() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("storage");
    write_storage(&root, &fixture());
    let st = open(&dir.path().join("s.db"));
    import_file(&st, &root, None).unwrap();
    let text = export_thclaws_text(&st, SID).unwrap();
    let file = dir.path().join("exported.jsonl");
    std::fs::write(&file, &text).unwrap();
    let other = open(&dir.path().join("t.db"));
    let r = import_file(&other, &file, None).unwrap();
    assert_eq!(r.format, Some(SourceFormat::Thclaws));
    assert_eq!(r.sessions.len(), 1);
    let id = r.sessions[0].session_id.clone();
    assert_eq!(entries(&other, &id), expected_entries());
    assert_eq!((r.sessions[0].tool_calls, r.sessions[0].tool_results), (3, 2));
}

#[test]
fn the_reader_gives_the_neutral_session_and_paths_are_classified() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("opencode");
    let root = data.join("storage");
    write_storage(&root, &fixture());
    let out = read_opencode(&OpencodeSource::Storage(root.clone())).unwrap();
    assert_eq!(out.len(), 1);
    let s = &out[0].sessions[0];
    assert_eq!((s.id.as_str(), s.title.as_deref(), s.cwd.as_deref()), (SID, Some("Fix the parser"), Some("/work/proj")));
    assert_eq!((s.turns.len(), s.tool_calls(), s.tool_results(), s.usage.len(), s.compactions.len(), s.other_lines.len()), (6, 3, 2, 3, 1, 1));
    assert_eq!(s.compactions[0].at_turn, 4);
    assert!(matches!(&s.turns[1].blocks[0], Block::Thinking { text, .. } if text == "Look at parse.rs first."));
    assert_eq!(s.source.extra.get("opencode_version"), Some(&json!("1.0.150")));

    assert_eq!(classify_path(&root), OpencodePath::Storage(root.clone()));
    assert_eq!(classify_path(&data), OpencodePath::DataDir(vec![root.clone()]));
    let sfile = root.join("session/prj_0a1b").join(format!("{SID}.json"));
    assert_eq!(classify_path(&sfile), OpencodePath::SessionFile(root.clone(), SID.to_owned()));
    let pfile = root.join("part/msg_a001/prt_a001a.json");
    assert_eq!(classify_path(&pfile), OpencodePath::RecordFile);

    // detect_format tells every opencode source, and no record file.
    let db = dir.path().join("opencode.db");
    write_db(&db, &fixture());
    for p in [&root, &data, &sfile, &db] {
        assert_eq!(detect_format(p).unwrap(), Some(SourceFormat::Opencode), "{p:?}");
    }
    assert_eq!(detect_format(&pfile).unwrap(), None);

    // One session file imports that session; a part file is a typed error.
    let st = open(&dir.path().join("s.db"));
    let r = import_file(&st, &sfile, None).unwrap();
    assert_eq!(counts(&r), vec![(SID.to_owned(), true, 6, 3, 2, 3, 2750, 95, 2100)]);
    assert!(matches!(import_file(&st, &pfile, None), Err(Error::InvalidInput { .. })));
    // The data directory through import_paths: its storage tree, up to date.
    let files = import_paths_report(&st, std::slice::from_ref(&data)).unwrap();
    assert_eq!(files.iter().map(|f| (f.path.clone(), f.status.clone())).collect::<Vec<(PathBuf, ImportStatus)>>(), vec![(root.clone(), ImportStatus::UpToDate)]);
}

#[test]
fn an_answer_that_ended_in_an_error_is_imported_with_the_error_named() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("storage");
    let mut msgs = fixture();
    let mut aborted = assistant("msg_a006", T0 + 20_000, None, false, vec![part("msg_a006", "prt_a006a", json!({"type": "text", "text": "Let me"}))]);
    aborted.info["error"] = json!({"name": "MessageAbortedError", "data": {"message": "aborted"}});
    msgs.push(aborted);
    write_storage(&root, &msgs);
    let st = open(&dir.path().join("s.db"));
    let r = import_file(&st, &root, None).unwrap();
    // Not held back as in progress: it has an error.
    assert_eq!(r.sessions[0].entries, 7);
    let (last, meta) = st.get_transcript_with_meta(SID, 7, 1).unwrap().remove(0);
    assert_eq!((last.role, last.content.as_str()), (Role::Assistant, "Let me"));
    assert_eq!(meta.extra.get("opencode_error"), Some(&json!("MessageAbortedError")));
    assert_eq!(r.read.as_ref().unwrap().line_account().total(), 31);
}

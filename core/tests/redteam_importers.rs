//! Red-team attacks on the Gemini CLI and opencode importers and on
//! `SessionStore::replace_tail_items`. Tests marked `#[ignore = "bug: ..."]`
//! assert the correct behaviour and fail today.

mod portable_support;

use portable_support::store;
use rusqlite::Connection;
use serde_json::{json, Value};
use sessiondb::portable::{import_file, ImportStatus, SourceFormat};
use sessiondb::{DataKey, EntryMeta, ErrorKind, KeySource, NewEntry, OpenOptions, Role, SessionStore};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------- helpers

fn entries(st: &SessionStore, id: &str) -> Vec<(String, String)> {
    st.get_transcript(id, 1, 10_000).unwrap().into_iter().map(|e| (format!("{:?}", e.role), e.content)).collect()
}

const GID: &str = "deadbeef-1111-4222-8333-444455556666";

fn gemini_file(dir: &Path, lines: &[String]) -> PathBuf {
    let chats = dir.join("proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let p = chats.join("session-2026-08-20T10-00-deadbeef.jsonl");
    let mut s = String::new();
    for l in lines {
        s.push_str(l);
        s.push('\n');
    }
    std::fs::write(&p, s).unwrap();
    p
}

fn gmeta() -> String {
    json!({"sessionId": GID, "projectHash": "abc", "startTime": "2026-08-20T10:00:00.000Z", "lastUpdated": "2026-08-20T10:00:00.000Z", "kind": "main"}).to_string()
}

fn guser(id: &str, text: &str) -> String {
    json!({"id": id, "timestamp": "2026-08-20T10:00:01.000Z", "type": "user", "content": [{"text": text}]}).to_string()
}

fn ggemini(id: &str, text: &str, tokens: Value) -> String {
    json!({"id": id, "timestamp": "2026-08-20T10:00:02.000Z", "type": "gemini", "content": text, "model": "gemini-2.5-pro", "tokens": tokens}).to_string()
}

// ---------------------------------------------------------------- Gemini

#[test]
fn gemini_token_counts_that_overflow_do_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let p = gemini_file(dir.path(), &[gmeta(), guser("u1", "hi"), ggemini("g1", "hello", json!({"input": u64::MAX, "tool": 1, "output": u64::MAX, "thoughts": 5, "cached": 0}))]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| import_file(&st, &p, None)));
    let r = r.expect("import panicked on huge token counts");
    // Either a typed error or an import; never a panic or a wrapped (tiny) count.
    match r {
        Ok(f) => {
            let s = &f.sessions[0];
            assert!(s.input_tokens == 0 || s.input_tokens >= u64::MAX / 2, "wrapped input tokens: {}", s.input_tokens);
        }
        Err(e) => assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}"),
    }
}

#[test]
fn gemini_negative_and_fractional_tokens_count_as_zero_and_the_text_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let p = gemini_file(dir.path(), &[gmeta(), guser("u1", "hi"), ggemini("g1", "hello", json!({"input": -5, "output": 1.5, "cached": "7", "tool": null}))]);
    let f = import_file(&st, &p, None).unwrap();
    let s = &f.sessions[0];
    assert_eq!(entries(&st, &s.session_id), [("User".to_string(), "hi".to_string()), ("Assistant".to_string(), "hello".to_string())]);
    assert_eq!((s.input_tokens, s.output_tokens, s.cached_tokens), (0, 0, 0));
}

#[test]
fn gemini_hostile_lines_are_skipped_by_kind_and_nothing_panics() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_obj = format!("{{\"id\":\"x\",\"type\":\"user\",\"content\":{}{}}}", "[".repeat(120), "]".repeat(120));
    let lines = vec![
        gmeta(),
        guser("u1", "first"),
        deep,
        deep_obj,
        "{\"id\":\"u2\",\"type\":\"user\",\"content\":\"nul\u{0}byte\"}".to_string(),
        "{\"id\":\"u3\",\"type\":\"user\",\"content\":\"a\\u0000b\"}".to_string(),
        "{\"id\": 12, \"type\": \"user\", \"content\": \"numeric id\"}".to_string(),
        "{\"id\":\"u4\",\"type\":\"user\",\"content\":\"\\ud800 lone\"}".to_string(),
        "1e999999".to_string(),
        "{\"id\":\"u5\",\"type\":\"user\",\"timestamp\":1e308,\"content\":\"big ts\"}".to_string(),
        guser("u6", "last"),
    ];
    let mut p = gemini_file(dir.path(), &lines);
    // Invalid UTF-8 line appended raw.
    let mut bytes = std::fs::read(&p).unwrap();
    bytes.extend_from_slice(b"{\"id\":\"u7\",\"type\":\"user\",\"content\":\"\xff\xfe\"}\n");
    bytes.extend_from_slice(guser("u8", "after").as_bytes());
    bytes.push(b'\n');
    std::fs::write(&p, &bytes).unwrap();
    let f = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| import_file(&st, &p, None))).expect("panic").unwrap();
    let rep = f.read.as_ref().unwrap();
    assert!(!rep.skipped.is_empty(), "{rep:?}");
    let got = entries(&st, &f.sessions[0].session_id);
    assert!(got.iter().any(|(_, c)| c == "first") && got.iter().any(|(_, c)| c == "after"), "{got:?}");
    // Re-import adds nothing.
    let before = got.len();
    let again = import_file(&st, &p, None).unwrap();
    assert_eq!(again.sessions.iter().map(|s| s.entries).sum::<u64>(), 0);
    assert_eq!(entries(&st, &f.sessions[0].session_id).len(), before);
    p.pop();
}

#[test]
fn gemini_reimport_adds_nothing_and_a_grown_file_adds_only_the_new_lines() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let mut lines = vec![gmeta(), guser("u1", "one"), ggemini("g1", "two", json!({"input": 10, "output": 3}))];
    let p = gemini_file(dir.path(), &lines);
    let f = import_file(&st, &p, None).unwrap();
    let sid = f.sessions[0].session_id.clone();
    assert_eq!(f.sessions[0].entries, 2);
    assert_eq!(import_file(&st, &p, None).unwrap().status, ImportStatus::UpToDate);
    lines.push(ggemini("g1", "two", json!({"input": 10, "output": 3})));
    lines.push(guser("u2", "three"));
    gemini_file(dir.path(), &lines);
    let g = import_file(&st, &p, None).unwrap();
    assert_eq!(g.sessions[0].entries, 1, "{g:?}");
    assert_eq!(g.sessions[0].usage_records, 0);
    assert_eq!(entries(&st, &sid).iter().map(|e| e.1.as_str()).collect::<Vec<_>>(), ["one", "two", "three"]);
    assert_eq!(st.token_totals(&sid).unwrap().input, 10);
}

#[test]
fn gemini_file_rewritten_shorter_then_reimported_changes_nothing_stored() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let lines = vec![gmeta(), guser("u1", "one"), guser("u2", "two"), guser("u3", "three")];
    let p = gemini_file(dir.path(), &lines);
    let f = import_file(&st, &p, None).unwrap();
    let sid = f.sessions[0].session_id.clone();
    let before = entries(&st, &sid);
    // Rewritten shorter and different.
    gemini_file(dir.path(), &[gmeta(), guser("u9", "zzz")]);
    let r = import_file(&st, &p, None);
    match &r {
        Ok(_) | Err(_) => {}
    }
    let after = entries(&st, &sid);
    assert_eq!(&after[..before.len()], &before[..], "stored entries changed: {r:?}");
}

#[test]
fn gemini_concurrent_imports_of_one_file_store_each_entry_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = vec![gmeta()];
    for i in 0..300 {
        lines.push(guser(&format!("u{i}"), &format!("message {i}")));
    }
    let p = gemini_file(dir.path(), &lines);
    let _ = store(dir.path());
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let d = dir.path().to_path_buf();
            let p = p.clone();
            std::thread::spawn(move || {
                let st = store(&d);
                import_file(&st, &p, None)
            })
        })
        .collect();
    let rs: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
    for r in &rs {
        if let Err(e) = r {
            assert!(matches!(e.kind(), ErrorKind::Busy | ErrorKind::Conflict), "{e}");
        }
    }
    let st = store(dir.path());
    let got = entries(&st, GID);
    assert_eq!(got.len(), 300, "duplicates or losses: {}", got.len());
}

#[test]
fn gemini_json_document_torn_is_invalid_input_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let chats = dir.path().join("p/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let p = chats.join("session-2026-03-01T09-00-c0ffee00.json");
    std::fs::write(&p, "{\n  \"sessionId\": \"c0ffee00-aaaa\",\n  \"messages\": [\n    {\n      \"id\": \"m1\", \"type\": \"user\", \"content\": \"x\"\n").unwrap();
    let e = import_file(&st, &p, Some(SourceFormat::GeminiCli)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    assert!(st.list_sessions(None).unwrap().is_empty());
}

#[test]
fn gemini_json_document_with_overflowing_tokens_does_not_panic() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let chats = dir.path().join("p/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let p = chats.join("session-2026-03-01T09-00-c0ffee00.json");
    let doc = json!({"sessionId": "c0ffee00-aaaa", "projectHash": "h", "startTime": "2026-03-01T09:00:00Z", "lastUpdated": "2026-03-01T09:00:00Z",
        "messages": [{"id": "g", "type": "gemini", "content": "x", "timestamp": "2026-03-01T09:00:01Z", "tokens": {"input": u64::MAX, "tool": u64::MAX}}]});
    std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| import_file(&st, &p, None)));
    assert!(r.is_ok(), "import panicked");
}

// ---------------------------------------------------------------- opencode

const SID: &str = "ses_redteam01";
const T0: i64 = 1_760_000_000_000;

fn oc_schema(c: &Connection) {
    c.execute_batch(
        "CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, parent_id text, directory text NOT NULL, title text NOT NULL,
            version text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL);
         CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
         CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL, time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);",
    )
    .unwrap();
}

fn oc_session(c: &Connection, id: &str) {
    c.execute("INSERT INTO session VALUES (?1, 'prj', NULL, '/w', 'T', '1.0', ?2, ?2)", rusqlite::params![id, T0]).unwrap();
}

fn oc_msg(c: &Connection, sid: &str, mid: &str, t: i64, data: Value) {
    c.execute("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)", rusqlite::params![mid, sid, t, data.to_string()]).unwrap();
}

fn oc_part(c: &Connection, sid: &str, mid: &str, pid: &str, data: Value) {
    c.execute("INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?4, ?5)", rusqlite::params![pid, mid, sid, T0, data.to_string()]).unwrap();
}

fn oc_user(c: &Connection, sid: &str, mid: &str, t: i64, text: &str) {
    oc_msg(c, sid, mid, t, json!({"role": "user", "time": {"created": t}}));
    oc_part(c, sid, mid, &format!("prt_{mid}"), json!({"type": "text", "text": text}));
}

fn oc_answer(c: &Connection, sid: &str, mid: &str, t: i64, text: &str, tokens: Value) {
    oc_msg(c, sid, mid, t, json!({"role": "assistant", "time": {"created": t, "completed": t + 1}, "modelID": "m", "providerID": "p"}));
    oc_part(c, sid, mid, &format!("prt_{mid}_a"), json!({"type": "text", "text": text}));
    oc_part(c, sid, mid, &format!("prt_{mid}_b"), json!({"type": "step-finish", "tokens": tokens}));
}

#[test]
fn opencode_absurd_token_count_does_not_abort_the_import() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    oc_schema(&c);
    oc_session(&c, SID);
    oc_user(&c, SID, "msg_1", T0, "hi");
    oc_answer(&c, SID, "msg_2", T0 + 10, "hello", json!({"input": 1e300, "output": 2, "reasoning": 0, "cache": {"read": 0, "write": 0}}));
    drop(c);
    let f = import_file(&st, &db, None).unwrap();
    assert_eq!(entries(&st, SID).len(), 2, "{f:?}");
}

#[test]
fn opencode_negative_tokens_count_as_zero() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    oc_schema(&c);
    oc_session(&c, SID);
    oc_user(&c, SID, "msg_1", T0, "hi");
    oc_answer(&c, SID, "msg_2", T0 + 10, "hello", json!({"input": -100, "output": -1.5, "reasoning": 3, "cache": {"read": "x", "write": 4}}));
    drop(c);
    import_file(&st, &db, None).unwrap();
    let t = st.token_totals(SID).unwrap();
    assert_eq!((t.input, t.output, t.cached), (4, 3, 0));
    assert_eq!(entries(&st, SID).len(), 2);
}

#[test]
fn opencode_db_record_with_invalid_utf8_is_skipped_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    oc_schema(&c);
    oc_session(&c, SID);
    oc_user(&c, SID, "msg_1", T0, "hi");
    c.execute("INSERT INTO part VALUES ('prt_bad', 'msg_1', ?1, 0, 0, CAST(X'7b22747970223a22746578742c2274657874223a22ff227d' AS BLOB))", [SID]).unwrap();
    drop(c);
    let f = import_file(&st, &db, None).unwrap();
    let rep = f.read.as_ref().unwrap();
    assert_eq!(rep.skipped.len(), 1, "{rep:?}");
    assert_eq!(entries(&st, SID).len(), 1);
}

#[test]
fn opencode_db_with_wrong_column_types_is_a_typed_error_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    oc_schema(&c);
    oc_session(&c, SID);
    // time_created as text; id as an integer.
    c.execute("INSERT INTO message VALUES ('msg_1', ?1, 'yesterday', 0, '{\"role\":\"user\"}')", [SID]).unwrap();
    drop(c);
    let r = import_file(&st, &db, None);
    let e = r.unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Database, "{e}");
    assert!(st.list_sessions(None).unwrap().is_empty());
}

#[test]
fn opencode_db_missing_a_read_column_is_not_detected_as_opencode() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TABLE session (id text, directory text, title text, version text, time_created integer);
         CREATE TABLE message (id text, session_id text, time_created integer, data text);
         CREATE TABLE part (id text, message_id text, session_id text, data text);
         INSERT INTO session VALUES ('ses_x', '/w', 't', '1', 0);",
    )
    .unwrap();
    drop(c);
    let st = store(dir.path());
    let r = import_file(&st, &db, None);
    // Either not recognised, or imported; never a SQL "no such column" error.
    if let Err(e) = &r {
        assert!(!e.to_string().contains("no such column"), "{e}");
    }
}

#[test]
#[ignore = "bug: sanitize_id maps opencode ids `ses:a` and `ses_a` to one store id: the second is a Conflict that aborts the whole opencode.db import"]
fn opencode_ids_differing_only_by_colon_stay_separate_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    oc_schema(&c);
    oc_session(&c, "ses:a");
    oc_session(&c, "ses_a");
    oc_user(&c, "ses:a", "msg_1", T0, "from colon");
    oc_user(&c, "ses_a", "msg_2", T0, "from underscore");
    drop(c);
    let r = import_file(&st, &db, None);
    let f = r.unwrap();
    let ids: std::collections::BTreeSet<_> = f.sessions.iter().map(|s| s.session_id.clone()).collect();
    assert_eq!(ids.len(), 2, "{f:?}");
    for id in ids {
        assert_eq!(entries(&st, &id).len(), 1, "session {id}: {:?}", entries(&st, &id));
    }
}

#[test]
fn opencode_db_ids_with_slashes_and_dotdot_are_typed_errors_or_plain_ids() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    let c = Connection::open(&db).unwrap();
    oc_schema(&c);
    oc_session(&c, "../../etc/passwd");
    oc_user(&c, "../../etc/passwd", "../msg", T0, "traversal");
    drop(c);
    match import_file(&st, &db, None) {
        Ok(f) => {
            let id = &f.sessions[0].session_id;
            assert_eq!(entries(&st, id).len(), 1);
        }
        Err(e) => assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}"),
    }
    assert!(!dir.path().join("etc").exists());
}

fn write_json(path: &Path, v: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, v.to_string()).unwrap();
}

fn storage(root: &Path, sid: &str) {
    write_json(&root.join("session/prj").join(format!("{sid}.json")), &json!({"id": sid, "projectID": "prj", "directory": "/w", "title": "t", "version": "1", "time": {"created": T0}}));
    std::fs::create_dir_all(root.join("message")).unwrap();
    std::fs::create_dir_all(root.join("part")).unwrap();
}

fn storage_user(root: &Path, sid: &str, mid: &str, t: i64, text: &str) {
    write_json(&root.join("message").join(sid).join(format!("{mid}.json")), &json!({"id": mid, "sessionID": sid, "role": "user", "time": {"created": t}}));
    write_json(&root.join("part").join(mid).join(format!("prt_{mid}.json")), &json!({"id": format!("prt_{mid}"), "type": "text", "text": text}));
}

#[test]
fn opencode_storage_session_without_message_dir_imports_the_session_alone() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let root = dir.path().join("storage");
    storage(&root, SID);
    let f = import_file(&st, &root, None).unwrap();
    assert_eq!(f.sessions.len(), 1);
    assert_eq!(entries(&st, SID).len(), 0);
    assert_eq!(import_file(&st, &root, None).unwrap().status, ImportStatus::UpToDate);
}

#[test]
fn opencode_storage_symlink_loops_and_special_files_do_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let root = dir.path().join("storage");
    storage(&root, SID);
    storage_user(&root, SID, "msg_1", T0, "hello");
    // A symlink loop as a message file and as a part directory; a FIFO-like
    // special file via /dev/zero symlink; a directory named like a record.
    std::os::unix::fs::symlink("loop2.json", root.join("message").join(SID).join("loop1.json")).unwrap();
    std::os::unix::fs::symlink("loop1.json", root.join("message").join(SID).join("loop2.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.join("part/msg_1/prt_zero.json")).unwrap();
    std::fs::create_dir_all(root.join("message").join(SID).join("dir.json")).unwrap();
    std::os::unix::fs::symlink(root.join("part"), root.join("part/msg_1/self")).unwrap();
    let f = import_file(&st, &root, None).unwrap();
    assert_eq!(entries(&st, SID), [("User".to_string(), "hello".to_string())], "{f:?}");
}

#[test]
fn opencode_storage_session_file_named_dotdot_stays_inside_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let root = dir.path().join("storage");
    storage(&root, SID);
    // `session/prj/...json` has the stem `..`: its messages would be read
    // from `message/..` = the storage root.
    write_json(&root.join("session/prj/...json"), &json!({"id": "..", "title": "dots"}));
    write_json(&root.join("stray.json"), &json!({"id": "stray", "role": "user", "time": {"created": T0}}));
    let r = import_file(&st, &root, None);
    if let Ok(f) = &r {
        for s in &f.sessions {
            let es = entries(&st, &s.session_id);
            assert!(es.iter().all(|e| !e.1.contains("stray")), "{es:?}");
        }
        let dots = f.read.as_ref().unwrap();
        assert!(!dots.kinds.contains_key("message/user"), "read a message from outside message/: {dots:?}");
    }
}

#[test]
fn opencode_reimport_and_changed_records_leave_stored_entries_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let root = dir.path().join("storage");
    storage(&root, SID);
    storage_user(&root, SID, "msg_1", T0, "one");
    storage_user(&root, SID, "msg_2", T0 + 5, "two");
    import_file(&st, &root, None).unwrap();
    let before = entries(&st, SID);
    assert_eq!(import_file(&st, &root, None).unwrap().status, ImportStatus::UpToDate);
    // Records rewritten: one text changed, one deleted, one corrupt.
    storage_user(&root, SID, "msg_1", T0, "one EDITED");
    std::fs::remove_file(root.join("part/msg_2/prt_msg_2.json")).unwrap();
    std::fs::write(root.join("message").join(SID).join("msg_3.json"), b"{\"role\":\"user\",\"time\":{\"created\":").unwrap();
    let _ = import_file(&st, &root, None);
    let after = entries(&st, SID);
    assert_eq!(&after[..before.len()], &before[..]);
}

#[test]
fn opencode_db_that_is_not_sqlite_or_not_opencode_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let db = dir.path().join("opencode.db");
    std::fs::write(&db, b"SQLite format 3\0garbage garbage garbage").unwrap();
    let r = import_file(&st, &db, Some(SourceFormat::Opencode));
    assert!(r.is_err() || r.as_ref().unwrap().status != ImportStatus::Imported, "{r:?}");
    let other = dir.path().join("other.db");
    let c = Connection::open(&other).unwrap();
    c.execute_batch("CREATE TABLE session (id text); INSERT INTO session VALUES ('x');").unwrap();
    drop(c);
    let r = import_file(&st, &other, Some(SourceFormat::Opencode));
    assert!(r.is_err() || r.as_ref().unwrap().sessions.is_empty(), "{r:?}");
    assert!(st.list_sessions(None).unwrap().is_empty());
}

// ---------------------------------------------------------------- replace_tail_items

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&[7u8; 32]).unwrap()))).unwrap()
}

fn item(text: &str) -> (NewEntry, EntryMeta) {
    let json = json!({ "role": "user", "content": text }).to_string();
    (NewEntry::text(Role::User, text), EntryMeta { item: Some(json), ..Default::default() })
}

fn exp(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| item(t).1.item.unwrap()).collect()
}

fn contents(s: &SessionStore, sid: &str) -> Vec<String> {
    s.get_transcript(sid, 1, 10_000).unwrap().into_iter().map(|e| e.content).collect()
}

#[test]
fn replace_tail_key_reused_in_another_session_is_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let a = s.create_session(None, None).unwrap().id;
    let b = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&a, vec![item("a1")]).unwrap();
    s.append_entries_with_meta(&b, vec![item("a1")]).unwrap();
    s.replace_tail_items(&a, exp(&["a1"]), vec![item("x")], Some("op-shared")).unwrap();
    let e = s.replace_tail_items(&b, exp(&["a1"]), vec![item("x")], Some("op-shared")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert_eq!(contents(&s, &b), ["a1"]);
    assert_eq!(contents(&s, &a), ["x"]);
}

#[test]
fn replace_tail_on_two_handles_at_once_exactly_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let s = open(&path);
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("base")]).unwrap();
    drop(s);
    for round in 0..20 {
        let cur = contents(&open(&path), &sid).last().unwrap().clone();
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let hs: Vec<_> = (0..2)
            .map(|w| {
                let (path, sid, cur, barrier) = (path.clone(), sid.clone(), cur.clone(), barrier.clone());
                std::thread::spawn(move || {
                    let s = open(&path);
                    barrier.wait();
                    s.replace_tail_items(&sid, exp(&[&cur]), vec![item(&format!("r{round}w{w}"))], None)
                })
            })
            .collect();
        let rs: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        let ok = rs.iter().filter(|r| r.is_ok()).count();
        for r in &rs {
            if let Err(e) = r {
                assert!(matches!(e.kind(), ErrorKind::Conflict | ErrorKind::Busy), "{e}");
            }
        }
        assert!(ok <= 1, "both writers replaced the same tail in round {round}: {rs:?}");
        let now = contents(&open(&path), &sid);
        assert_eq!(now.len(), 1, "round {round}: {now:?}");
    }
}

#[test]
fn replace_tail_with_huge_expected_count_is_a_quick_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a")]).unwrap();
    let many = vec!["{}".to_string(); 2_000_000];
    let t = std::time::Instant::now();
    let e = s.replace_tail_items(&sid, many, vec![item("x")], None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert!(t.elapsed().as_secs() < 10);
    assert_eq!(contents(&s, &sid), ["a"]);
}

#[test]
fn replace_tail_on_an_empty_session_and_with_retracted_entries() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    assert_eq!(s.replace_tail_items(&sid, exp(&["a"]), vec![], None).unwrap_err().kind(), ErrorKind::Conflict);
    assert!(s.replace_tail_items(&sid, vec![], vec![], None).unwrap().is_empty());
    let got = s.replace_tail_items(&sid, vec![], vec![item("a"), item("b")], None).unwrap();
    assert_eq!(got.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2]);
    s.replace_tail_items(&sid, exp(&["b"]), vec![item("c")], None).unwrap();
    // "b" is retracted: it no longer matches even though it is still stored.
    assert_eq!(s.replace_tail_items(&sid, exp(&["a", "b"]), vec![], None).unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(s.replace_tail_items(&sid, exp(&["b", "c"]), vec![], None).unwrap_err().kind(), ErrorKind::Conflict);
    // Replacing everything with nothing, then the session is empty.
    s.replace_tail_items(&sid, exp(&["a", "c"]), vec![], None).unwrap();
    assert!(contents(&s, &sid).is_empty());
    let next = s.replace_tail_items(&sid, vec![], vec![item("d")], None).unwrap();
    assert_eq!(next[0].seq, 4);
}

#[test]
fn replace_tail_keys_are_compared_byte_for_byte_and_bad_keys_are_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a")]).unwrap();
    // NFC "é" is a key; NFD "e\u{301}" is refused (not NFC).
    s.replace_tail_items(&sid, vec![], vec![item("b")], Some("op-\u{e9}")).unwrap();
    s.replace_tail_items(&sid, vec![], vec![item("c")], None).unwrap();
    assert_eq!(s.replace_tail_items(&sid, vec![], vec![item("q")], Some("op-e\u{301}")).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(contents(&s, &sid), ["a", "b", "c"]);
    for bad in ["", "x.dispatch", "y.terminal", &"k".repeat(129)] {
        let e = s.replace_tail_items(&sid, vec![], vec![item("z")], Some(bad)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidInput, "key {bad:?}: {e}");
    }
    assert_eq!(contents(&s, &sid), ["a", "b", "c"]);
}

#[test]
fn replace_tail_deeply_nested_expected_item_is_invalid_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    s.append_entries_with_meta(&sid, vec![item("a")]).unwrap();
    let deep = format!("{}{}", "[".repeat(200_000), "]".repeat(200_000));
    assert_eq!(s.replace_tail_items(&sid, vec![deep], vec![], None).unwrap_err().kind(), ErrorKind::InvalidInput);
    assert_eq!(contents(&s, &sid), ["a"]);
}

#[test]
fn replace_tail_numbers_compare_as_json_values() {
    let dir = tempfile::tempdir().unwrap();
    let s = open(&dir.path().join("s.db"));
    let sid = s.create_session(None, None).unwrap().id;
    let stored = r#"{"type":"function_call_output","n":1,"s":"é"}"#.to_string();
    s.append_entries_with_meta(&sid, vec![(NewEntry::text(Role::Tool, "out"), EntryMeta { item: Some(stored), ..Default::default() })]).unwrap();
    // The same value with escapes and key order changed matches.
    s.replace_tail_items(&sid, vec![r#"{"s":"\u00e9","n":1,"type":"function_call_output"}"#.into()], vec![item("x")], None).unwrap();
    assert_eq!(contents(&s, &sid), ["x"]);
}

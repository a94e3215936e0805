//! Import of an OpenAI Agents SDK `SQLiteSession` database (issue 29 item 3):
//! a database shaped as openai-agents 0.24.0 `agents/memory/sqlite_session.py`
//! creates it, written by hand here; the real SDK writes one in
//! `python/tests/test_sdk_import.py`.

use std::path::Path;

use rusqlite::Connection;
use sessiondb::portable::{agents_item_entry, import_file, ImportStatus, PyJson, SkipReason};
use sessiondb::*;

const KEY: [u8; 32] = [7u8; 32];

fn open(path: &Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(path, KeySource::Bytes(DataKey::from_bytes(&KEY).unwrap()))).unwrap()
}

/// The SDK's schema, verbatim (default table names).
fn sdk_db(path: &Path) -> Connection {
    let c = Connection::open(path).unwrap();
    c.execute_batch(
        "CREATE TABLE IF NOT EXISTS agent_sessions (
            session_id TEXT PRIMARY KEY,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
        );
        CREATE TABLE IF NOT EXISTS agent_messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            message_data TEXT NOT NULL,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE
        );
        CREATE INDEX IF NOT EXISTS idx_agent_messages_session_id ON agent_messages (session_id, id);",
    )
    .unwrap();
    c
}

fn add(c: &Connection, sid: &str, data: &str, at: &str) {
    c.execute("INSERT OR IGNORE INTO agent_sessions (session_id, created_at) VALUES (?1, '2026-01-02 03:04:05')", [sid]).unwrap();
    c.execute("INSERT INTO agent_messages (session_id, message_data, created_at) VALUES (?1, ?2, ?3)", [sid, data, at]).unwrap();
}

// The items as the SDK's `json.dumps` writes them (", " and ": " separators).
const USER: &str = r#"{"content": "What is 2+2?", "role": "user"}"#;
const ASSISTANT: &str = r#"{"id": "msg_1", "content": [{"annotations": [], "text": "Let me check.", "type": "output_text", "logprobs": []}], "role": "assistant", "status": "completed", "type": "message"}"#;
const CALL: &str = r#"{"arguments": "{\"a\": 2, \"b\": 2}", "call_id": "call_1", "name": "add", "type": "function_call", "id": "fc_1", "status": "completed"}"#;
const OUTPUT: &str = r#"{"call_id": "call_1", "output": "4", "type": "function_call_output"}"#;
const REASONING: &str = r#"{"id": "rs_1", "summary": [{"text": "Adding.", "type": "summary_text"}, {"text": "Done.", "type": "summary_text"}], "type": "reasoning"}"#;
const REFUSAL: &str = r#"{"content": [{"refusal": "No.", "type": "refusal"}], "role": "assistant", "type": "message"}"#;
const DEVELOPER: &str = r#"{"content": "Be brief.", "role": "developer"}"#;
const OTHER: &str = r#"{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "é\n", "n": 1.0, "big": 12345678901234567890123, "tiny": 1e-7}}"#;
const DICT_OUTPUT: &str = r#"{"call_id": "c2", "output": {"b":1,"a":[true,null]}, "type": "computer_call_output"}"#;

#[test]
fn role_and_text_follow_the_python_adapter() {
    let cases: [(&str, Role, &str); 9] = [
        (USER, Role::User, "What is 2+2?"),
        (ASSISTANT, Role::Assistant, "Let me check."),
        (CALL, Role::Assistant, r#"add({"a": 2, "b": 2})"#),
        (OUTPUT, Role::Tool, "4"),
        (REASONING, Role::Assistant, "Adding.\nDone."),
        (REFUSAL, Role::Assistant, "No."),
        (DEVELOPER, Role::System, "Be brief."),
        (
            OTHER,
            Role::Assistant,
            r#"{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"query": "é\n", "n": 1.0, "big": 12345678901234567890123, "tiny": 1e-07}}"#,
        ),
        (DICT_OUTPUT, Role::Tool, r#"{"b": 1, "a": [true, null]}"#),
    ];
    for (item, role, text) in cases {
        assert_eq!(agents_item_entry(item).unwrap(), (role, text.to_owned()), "{item}");
    }
    // A repeated key keeps its first place and its last value, as a dict does.
    assert_eq!(PyJson::parse(r#"{"a":1,"b":2,"a":3}"#).unwrap().dumps(), r#"{"a": 3, "b": 2}"#);
    assert_eq!(PyJson::parse("[1e16, 123.25, -0, 0.0001, 1E+2]").unwrap().dumps(), "[1e+16, 123.25, 0, 0.0001, 100.0]");
    assert!(matches!(agents_item_entry("[1]"), Err(Error::InvalidInput { .. })));
    assert!(matches!(agents_item_entry("{oops"), Err(Error::InvalidInput { .. })));
}

#[test]
fn imports_each_sdk_session_with_its_items_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("conversations.db");
    let c = sdk_db(&src);
    for (n, item) in [USER, ASSISTANT, CALL, OUTPUT, REASONING].iter().enumerate() {
        add(&c, "user_123", item, &format!("2026-01-02 03:04:0{n}"));
    }
    add(&c, "other", DEVELOPER, "2026-01-02 03:05:00");
    add(&c, "other", "{not json", "2026-01-02 03:05:01");
    add(&c, "other", OTHER, "2026-01-02 03:05:02");
    drop(c);
    let before = std::fs::read(&src).unwrap();

    let store = open(&dir.path().join("s.db"));
    let r = import_file(&store, &src, None).unwrap();
    assert_eq!(r.status, ImportStatus::Imported);
    assert_eq!(r.format, Some(sessiondb::portable::SourceFormat::AgentsSdk));
    assert_eq!(r.read.as_ref().map(|x| x.format), Some(Some(sessiondb::portable::SourceFormat::AgentsSdk)));
    let got: Vec<(String, bool, u64, u64, u64)> = r.sessions.iter().map(|s| (s.session_id.clone(), s.created, s.entries, s.tool_calls, s.tool_results)).collect();
    assert_eq!(got, vec![("other".to_owned(), true, 2, 1, 0), ("user_123".to_owned(), true, 5, 1, 1)]);
    let read = r.read.unwrap();
    assert_eq!(read.lines, 8);
    assert_eq!(read.skipped.len(), 1);
    assert_eq!(read.skipped[0].line, 7);
    assert_eq!(read.skipped[0].reason, SkipReason::InvalidJson { column: 2 });
    assert_eq!(std::fs::read(&src).unwrap(), before, "the source is not modified");

    let rows = store.get_transcript_with_meta("user_123", 1, 100).unwrap();
    let got: Vec<(Role, String, Option<String>, Option<i64>)> =
        rows.iter().map(|(e, m)| (e.role, e.content.clone(), m.item.clone(), Some(e.created_at_ms))).collect();
    let t0 = 1_767_323_040_000; // 2026-01-02 03:04:00 UTC
    assert_eq!(
        got,
        vec![
            (Role::User, "What is 2+2?".to_owned(), Some(USER.to_owned()), Some(t0)),
            (Role::Assistant, "Let me check.".to_owned(), Some(ASSISTANT.to_owned()), Some(t0 + 1000)),
            (Role::Assistant, r#"add({"a": 2, "b": 2})"#.to_owned(), Some(CALL.to_owned()), Some(t0 + 2000)),
            (Role::Tool, "4".to_owned(), Some(OUTPUT.to_owned()), Some(t0 + 3000)),
            (Role::Assistant, "Adding.\nDone.".to_owned(), Some(REASONING.to_owned()), Some(t0 + 4000)),
        ]
    );
    assert_eq!(store.get_session("user_123").unwrap().created_at_ms, 1_767_323_045_000);
    let page = store.get_entry_items("other", 1, 100).unwrap();
    assert_eq!(page.items_json, format!("[{DEVELOPER},{OTHER}]"));

    // Importing again adds nothing.
    let again = import_file(&store, &src, None).unwrap();
    assert_eq!(again.status, ImportStatus::UpToDate);
    let got: Vec<(String, bool, u64, u64)> = again.sessions.iter().map(|s| (s.session_id.clone(), s.created, s.entries, s.skipped_already_stored)).collect();
    assert_eq!(got, vec![("other".to_owned(), false, 0, 2), ("user_123".to_owned(), false, 0, 5)]);

    // A grown database adds only its new messages.
    let c = Connection::open(&src).unwrap();
    add(&c, "user_123", REFUSAL, "2026-01-02 03:06:00");
    drop(c);
    let grown = import_file(&store, &src, None).unwrap();
    assert_eq!(grown.status, ImportStatus::Imported);
    let got: Vec<(String, u64, u64)> = grown.sessions.iter().map(|s| (s.session_id.clone(), s.entries, s.skipped_already_stored)).collect();
    assert_eq!(got, vec![("other".to_owned(), 0, 2), ("user_123".to_owned(), 1, 5)]);
    let page = store.get_entry_items("user_123", 1, 100).unwrap();
    assert_eq!(page.items_json, format!("[{USER},{ASSISTANT},{CALL},{OUTPUT},{REASONING},{REFUSAL}]"));
}

#[test]
fn an_sqlite_file_without_the_sdk_tables_is_unrecognized() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("other.db");
    Connection::open(&src).unwrap().execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);").unwrap();
    let store = open(&dir.path().join("s.db"));
    let r = import_file(&store, &src, None).unwrap();
    assert_eq!(r.status, ImportStatus::Unrecognized);
    assert!(r.sessions.is_empty());
    // Named, the format is checked: this is no Agents SDK database, nor a text file of one.
    let e = import_file(&store, &src, Some(sessiondb::portable::SourceFormat::AgentsSdk)).unwrap_err();
    assert_eq!(e.kind(), sessiondb::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("not an Agents SDK session database"), "{e}");
    let text = dir.path().join("t.jsonl");
    std::fs::write(&text, "{}\n").unwrap();
    assert_eq!(import_file(&store, &text, Some(sessiondb::portable::SourceFormat::AgentsSdk)).unwrap_err().kind(), sessiondb::ErrorKind::InvalidInput);
    assert_eq!(sessiondb::portable::SourceFormat::parse("agents-sdk").unwrap().as_str(), "agents-sdk");
    assert!(store.list_sessions(Default::default()).unwrap().is_empty());
}

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

/// The tables `AdvancedSQLiteSession(create_tables=True)` adds (openai-agents
/// 0.24.0 `agents/extensions/memory/advanced_sqlite_session.py`), verbatim.
fn advanced_tables(c: &Connection) {
    c.execute_batch(
        "CREATE TABLE IF NOT EXISTS message_structure (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            message_id INTEGER NOT NULL,
            branch_id TEXT NOT NULL DEFAULT 'main',
            message_type TEXT NOT NULL,
            sequence_number INTEGER NOT NULL,
            user_turn_number INTEGER,
            branch_turn_number INTEGER,
            tool_name TEXT,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
            FOREIGN KEY (message_id) REFERENCES agent_messages(id) ON DELETE CASCADE
        );
        CREATE TABLE IF NOT EXISTS turn_usage (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            branch_id TEXT NOT NULL DEFAULT 'main',
            user_turn_number INTEGER NOT NULL,
            requests INTEGER DEFAULT 0,
            input_tokens INTEGER DEFAULT 0,
            output_tokens INTEGER DEFAULT 0,
            total_tokens INTEGER DEFAULT 0,
            input_tokens_details JSON,
            output_tokens_details JSON,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions(session_id) ON DELETE CASCADE,
            UNIQUE(session_id, branch_id, user_turn_number)
        );
        CREATE TABLE IF NOT EXISTS branch_reservations (session_id TEXT NOT NULL, branch_id TEXT NOT NULL, PRIMARY KEY (session_id, branch_id));
        CREATE TABLE IF NOT EXISTS session_clear_generations (session_id TEXT PRIMARY KEY, generation INTEGER NOT NULL DEFAULT 0);
        CREATE INDEX IF NOT EXISTS idx_structure_session_seq ON message_structure(session_id, sequence_number);
        CREATE INDEX IF NOT EXISTS idx_turn_usage_session_turn ON turn_usage(session_id, branch_id, user_turn_number);",
    )
    .unwrap();
}

/// A message of session `adv` with its `main` structure row, as
/// `AdvancedSQLiteSession.add_items` writes them; returns the message id.
fn adv_add(c: &Connection, branch: &str, data: &str, turn: i64, at: &str) -> i64 {
    add(c, "adv", data, at);
    let id = c.last_insert_rowid();
    adv_link(c, branch, id, turn, at);
    id
}

/// A structure row of message `id` on `branch` (`create_branch_from_turn` copies).
fn adv_link(c: &Connection, branch: &str, id: i64, turn: i64, at: &str) {
    let kind: String = c.query_row("SELECT CASE WHEN json_extract(message_data, '$.role') = 'user' THEN 'user' ELSE 'x' END FROM agent_messages WHERE id = ?1", [id], |r| r.get(0)).unwrap();
    c.execute(
        "INSERT INTO message_structure (session_id, message_id, branch_id, message_type, sequence_number, user_turn_number, branch_turn_number, created_at)
         VALUES ('adv', ?1, ?2, ?3, (SELECT COALESCE(MAX(sequence_number), 0) + 1 FROM message_structure WHERE session_id = 'adv'), ?4, ?4, ?5)",
        rusqlite::params![id, branch, kind, turn, at],
    )
    .unwrap();
}

fn adv_usage(c: &Connection, branch: &str, turn: i64, counts: [&dyn rusqlite::ToSql; 4], ind: &str, outd: &str) {
    c.execute(
        "INSERT OR REPLACE INTO turn_usage (session_id, branch_id, user_turn_number, requests, input_tokens, output_tokens, total_tokens, input_tokens_details, output_tokens_details, created_at)
         VALUES ('adv', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, '2026-01-02 04:00:00')",
        rusqlite::params![branch, turn, counts[0], counts[1], counts[2], counts[3], ind, outd],
    )
    .unwrap();
}

const USER2: &str = r#"{"content": "And 3+3?", "role": "user"}"#;
const ANSWER2: &str = r#"{"content": [{"annotations": [], "text": "6", "type": "output_text"}], "role": "assistant", "type": "message"}"#;
const USER3: &str = r#"{"content": "Try 3+3 once more", "role": "user"}"#;
const ANSWER3: &str = r#"{"content": [{"annotations": [], "text": "Still 6", "type": "output_text"}], "role": "assistant", "type": "message"}"#;

/// Every context extension of `sid` as `(kind, body)`.
fn extensions(store: &SessionStore, sid: &str) -> Vec<(String, serde_json::Value)> {
    store.list_context_extensions(sid).unwrap().into_iter().map(|x| (x.kind, serde_json::from_str(&x.body).unwrap())).collect()
}

#[test]
fn an_advanced_session_brings_its_branches_and_usage() {
    use serde_json::json;
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("advanced.db");
    let c = sdk_db(&src);
    advanced_tables(&c);
    // main: turn 1 (user, assistant), turn 2 (user, call, output, answer).
    let u1 = adv_add(&c, "main", USER, 1, "2026-01-02 03:04:00");
    let a1 = adv_add(&c, "main", ASSISTANT, 1, "2026-01-02 03:04:01");
    adv_add(&c, "main", USER2, 2, "2026-01-02 03:04:02");
    adv_add(&c, "main", CALL, 2, "2026-01-02 03:04:03");
    adv_add(&c, "main", OUTPUT, 2, "2026-01-02 03:04:04");
    adv_add(&c, "main", ANSWER2, 2, "2026-01-02 03:04:05");
    adv_usage(&c, "main", 1, [&1, &10, &5, &15], r#"{"cached_tokens": 3}"#, r#"{"reasoning_tokens": 2}"#);
    adv_usage(&c, "main", 2, [&2, &20, &8, &28], r#"{"cached_tokens": 0}"#, r#"{"reasoning_tokens": 0}"#);
    // create_branch_from_turn(2, "retry"): turn 1 copied, then its own turn 2.
    adv_link(&c, "retry", u1, 1, "2026-01-02 03:05:00");
    adv_link(&c, "retry", a1, 1, "2026-01-02 03:05:00");
    adv_add(&c, "retry", USER3, 2, "2026-01-02 03:05:01");
    adv_add(&c, "retry", ANSWER3, 2, "2026-01-02 03:05:02");
    adv_usage(&c, "retry", 2, [&1, &30, &4, &34], r#"{"cached_tokens": 7}"#, "not json");
    drop(c);
    let before = std::fs::read(&src).unwrap();

    let store = open(&dir.path().join("s.db"));
    let r = import_file(&store, &src, None).unwrap();
    assert_eq!(r.status, ImportStatus::Imported);
    assert_eq!(std::fs::read(&src).unwrap(), before, "the source is not modified");
    let fork = r.sessions[1].session_id.clone();
    let got: Vec<_> = r
        .sessions
        .iter()
        .map(|s| (s.session_id.clone(), s.created, s.entries, s.tool_calls, s.tool_results, s.usage_records, s.input_tokens, s.output_tokens, s.cached_tokens, s.context_extensions))
        .collect();
    assert_eq!(got, vec![("adv".to_owned(), true, 6, 1, 1, 2, 30, 13, 3, 4), (fork.clone(), true, 4, 0, 0, 1, 30, 4, 7, 0)]);
    let read = r.read.unwrap();
    assert_eq!((read.lines, read.skipped.len(), read.kinds.get("turn_usage").copied()), (8, 0, Some(3)));
    assert!(read.not_imported.is_empty(), "{:?}", read.not_imported);

    // main is the root session; the branch a fork of it after turn 1.
    let items = |sid: &str| store.get_entry_items(sid, 1, 100).unwrap().items_json;
    assert_eq!(items("adv"), format!("[{USER},{ASSISTANT},{USER2},{CALL},{OUTPUT},{ANSWER2}]"));
    assert_eq!(items(&fork), format!("[{USER},{ASSISTANT},{USER3},{ANSWER3}]"));
    let t0 = 1_767_323_040_000; // 2026-01-02 03:04:00 UTC
    assert_eq!(store.get_session("adv").unwrap().created_at_ms, t0);
    let f = store.get_session(&fork).unwrap();
    assert_eq!(
        (f.name.as_deref(), f.forked_from.as_deref(), f.forked_at_seq, f.created_at_ms),
        (Some("adv branch retry"), Some("adv"), Some(2), t0 + 60_000)
    );
    let times: Vec<i64> = store.get_transcript(&fork, 1, 100).unwrap().iter().map(|e| e.created_at_ms).collect();
    // Each entry's time is its structure row's: the copies' is when the branch was made.
    assert_eq!(times, vec![t0 + 60_000, t0 + 60_000, t0 + 61_000, t0 + 62_000]);

    // The adapter's branch map and per-turn usage records, on the root session.
    let usage = |branch: &str, sid: &str, turn: u64, anchor: u64, n: [u64; 4], ind: serde_json::Value, outd: serde_json::Value| {
        (
            "agents.turn_usage".to_owned(),
            json!({"branch_id": branch, "session_id": sid, "turn": turn, "anchor_seq": anchor, "requests": n[0], "input_tokens": n[1],
                   "output_tokens": n[2], "total_tokens": n[3], "input_tokens_details": ind, "output_tokens_details": outd}),
        )
    };
    let expected = vec![
        ("agents.branch".to_owned(), json!({"branch_id": "retry", "session_id": fork, "parent": "main", "turn": 2, "at_seq": 2})),
        usage("main", "adv", 1, 1, [1, 10, 5, 15], json!({"cached_tokens": 3}), json!({"reasoning_tokens": 2})),
        usage("main", "adv", 2, 3, [2, 20, 8, 28], json!({"cached_tokens": 0}), json!({"reasoning_tokens": 0})),
        usage("retry", &fork, 2, 3, [1, 30, 4, 34], json!({"cached_tokens": 7}), serde_json::Value::Null),
    ];
    assert_eq!(extensions(&store, "adv"), expected);
    assert!(extensions(&store, &fork).is_empty());
    // The token ledger of each branch's session sums its turns.
    assert_eq!(store.token_totals("adv").unwrap(), TokenTotals { input: 30, output: 13, cached: 3 });
    assert_eq!(store.token_totals(&fork).unwrap(), TokenTotals { input: 30, output: 4, cached: 7 });
    assert_eq!(store.list_sessions(None).unwrap().len(), 2);

    // Importing again adds nothing.
    let again = import_file(&store, &src, None).unwrap();
    assert_eq!(again.status, ImportStatus::UpToDate);
    let got: Vec<_> = again.sessions.iter().map(|s| (s.session_id.clone(), s.created, s.entries, s.skipped_already_stored, s.usage_records, s.context_extensions)).collect();
    assert_eq!(got, vec![("adv".to_owned(), false, 0, 6, 0, 0), (fork.clone(), false, 0, 4, 0, 0)]);
    assert_eq!(again.read.unwrap().not_imported.get("already stored: turn_usage").copied(), Some(3));

    // Damaged usage rows are left out, each under its reason, and nothing stored changes.
    let c = Connection::open(&src).unwrap();
    adv_usage(&c, "retry", 1, [&1, &"many", &4, &5], "{}", "{}");
    adv_usage(&c, "main", 3, [&1, &1, &1, &2], "{}", "{}");
    adv_usage(&c, "gone", 1, [&1, &1, &1, &2], "{}", "{}");
    adv_usage(&c, "main", 4, [&1, &1, &1, &-2], "{}", "{}");
    adv_usage(&c, "retry", 3, [&1, &1, &1, &2], "{}", "{}");
    c.execute("UPDATE turn_usage SET input_tokens_details = 7 WHERE branch_id = 'retry' AND user_turn_number = 3", []).unwrap();
    drop(c);
    let snapshot = |store: &SessionStore| {
        (extensions(store, "adv"), store.token_totals("adv").unwrap(), store.token_totals(&fork).unwrap(), items("adv"), items(&fork), store.list_sessions(None).unwrap().len())
    };
    let kept = snapshot(&store);
    let damaged = import_file(&store, &src, None).unwrap();
    assert_eq!(damaged.status, ImportStatus::UpToDate);
    let not_imported = damaged.read.unwrap().not_imported;
    let reasons: Vec<(&str, u64)> = not_imported.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(
        reasons,
        vec![
            ("already stored: turn", 10),
            ("already stored: turn_usage", 3),
            ("turn_usage: bad count", 2),
            ("turn_usage: bad token details", 1),
            ("turn_usage: no such branch", 1),
            ("turn_usage: no such turn", 1),
        ]
    );
    assert_eq!(snapshot(&store), kept);

    // A grown branch adds its new messages to its session only; a replaced
    // usage row (a new id) is the turn's latest record.
    let c = Connection::open(&src).unwrap();
    c.execute("DELETE FROM turn_usage WHERE id > 3", []).unwrap();
    adv_add(&c, "retry", REFUSAL, 2, "2026-01-02 03:05:03");
    adv_usage(&c, "retry", 2, [&2, &40, &6, &46], r#"{"cached_tokens": 1}"#, r#"{"reasoning_tokens": 1}"#);
    drop(c);
    let grown = import_file(&store, &src, None).unwrap();
    assert_eq!(grown.status, ImportStatus::Imported);
    let got: Vec<_> = grown.sessions.iter().map(|s| (s.session_id.clone(), s.entries, s.usage_records, s.context_extensions)).collect();
    assert_eq!(got, vec![("adv".to_owned(), 0, 0, 1), (fork.clone(), 1, 1, 0)]);
    assert_eq!(items(&fork), format!("[{USER},{ASSISTANT},{USER3},{ANSWER3},{REFUSAL}]"));
    assert_eq!(items("adv"), format!("[{USER},{ASSISTANT},{USER2},{CALL},{OUTPUT},{ANSWER2}]"));
    let last = extensions(&store, "adv").pop().unwrap();
    assert_eq!(last, usage("retry", &fork, 2, 3, [2, 40, 6, 46], json!({"cached_tokens": 1}), json!({"reasoning_tokens": 1})));
    assert_eq!(store.token_totals(&fork).unwrap(), TokenTotals { input: 70, output: 10, cached: 8 });

    // A branch deleted through the adapter (its session deleted, `agents.branch_deleted`
    // on the root) is not brought back by another import.
    store.delete_session(&fork).unwrap();
    store.append_context_extension("adv", "agents.branch_deleted", r#"{"branch_id": "retry"}"#).unwrap();
    let kept = extensions(&store, "adv");
    let after = import_file(&store, &src, None).unwrap();
    assert_eq!(after.status, ImportStatus::UpToDate);
    let got: Vec<_> = after.sessions.iter().map(|s| (s.session_id.clone(), s.created, s.entries)).collect();
    assert_eq!(got, vec![("adv".to_owned(), false, 0)]);
    assert_eq!(after.read.unwrap().not_imported.get("message_structure: branch deleted in the store").copied(), Some(5));
    assert_eq!(extensions(&store, "adv"), kept);
    assert_eq!(store.list_sessions(None).unwrap().len(), 1);
}

#[test]
fn a_branch_without_main_is_a_fork_of_the_empty_root() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("advanced.db");
    let c = sdk_db(&src);
    advanced_tables(&c);
    // `main` popped empty; branch `b` (made from turn 1: nothing copied) has items.
    adv_add(&c, "b", USER, 1, "2026-01-02 03:04:00");
    adv_add(&c, "b", ANSWER2, 1, "2026-01-02 03:04:01");
    // A message in no branch (structure rows popped) is left out, as the SDK's reads leave it out.
    add(&c, "adv", USER2, "2026-01-02 03:04:02");
    drop(c);
    let store = open(&dir.path().join("s.db"));
    let r = import_file(&store, &src, None).unwrap();
    let fork = r.sessions[1].session_id.clone();
    let got: Vec<_> = r.sessions.iter().map(|s| (s.session_id.clone(), s.created, s.entries, s.context_extensions)).collect();
    assert_eq!(got, vec![("adv".to_owned(), true, 0, 1), (fork.clone(), true, 2, 0)]);
    let read = r.read.unwrap();
    assert_eq!((read.lines, read.not_imported.get("agent_messages: in no branch").copied()), (3, Some(1)));
    assert_eq!(store.get_session("adv").unwrap().created_at_ms, 1_767_323_045_000, "agent_sessions.created_at");
    let f = store.get_session(&fork).unwrap();
    assert_eq!((f.name.as_deref(), f.forked_from.as_deref(), f.forked_at_seq), (Some("adv branch b"), Some("adv"), Some(0)));
    assert_eq!(store.get_entry_items(&fork, 1, 10).unwrap().items_json, format!("[{USER},{ANSWER2}]"));
    assert_eq!(
        extensions(&store, "adv"),
        vec![("agents.branch".to_owned(), serde_json::json!({"branch_id": "b", "session_id": fork, "parent": "main", "turn": 1, "at_seq": 0}))]
    );
}

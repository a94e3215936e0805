//! `sessiondb import` of an OpenAI Agents SDK database written by
//! `AdvancedSQLiteSession` (issue 29 item 3): the branch becomes a fork the
//! CLI lists, usage goes to the token ledger, and a damaged `turn_usage`
//! row is reported under its reason (`--json`). The database is made by SQL
//! with the SDK's schema (openai-agents 0.24.0); the real SDK writes one in
//! `python/tests/test_sdk_import.py`.

use std::path::Path;
use std::process::{Command, Output};

use rusqlite::Connection;

const KEY: &str = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=\n";

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

/// The SDK's tables (default names) with one advanced session `chat`: turn 1
/// on `main`, a branch `retry` from turn 1 with its own turn, usage for
/// both turns.
fn advanced_db(path: &Path) {
    let c = Connection::open(path).unwrap();
    c.execute_batch(
        "CREATE TABLE agent_sessions (session_id TEXT PRIMARY KEY, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
        CREATE TABLE agent_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_data TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions (session_id) ON DELETE CASCADE);
        CREATE TABLE message_structure (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, message_id INTEGER NOT NULL, branch_id TEXT NOT NULL DEFAULT 'main',
            message_type TEXT NOT NULL, sequence_number INTEGER NOT NULL, user_turn_number INTEGER, branch_turn_number INTEGER, tool_name TEXT,
            created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions(session_id) ON DELETE CASCADE, FOREIGN KEY (message_id) REFERENCES agent_messages(id) ON DELETE CASCADE);
        CREATE TABLE turn_usage (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, branch_id TEXT NOT NULL DEFAULT 'main', user_turn_number INTEGER NOT NULL,
            requests INTEGER DEFAULT 0, input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, total_tokens INTEGER DEFAULT 0,
            input_tokens_details JSON, output_tokens_details JSON, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
            FOREIGN KEY (session_id) REFERENCES agent_sessions(session_id) ON DELETE CASCADE, UNIQUE(session_id, branch_id, user_turn_number));
        INSERT INTO agent_sessions (session_id, created_at) VALUES ('chat', '2026-01-02 03:04:00');
        INSERT INTO agent_messages (id, session_id, message_data, created_at) VALUES
            (1, 'chat', '{\"role\": \"user\", \"content\": \"hi\"}', '2026-01-02 03:04:00'),
            (2, 'chat', '{\"role\": \"assistant\", \"content\": \"hello\"}', '2026-01-02 03:04:01'),
            (3, 'chat', '{\"role\": \"user\", \"content\": \"hi again\"}', '2026-01-02 03:05:00'),
            (4, 'chat', '{\"arguments\": \"{}\", \"call_id\": \"c1\", \"name\": \"ls\", \"type\": \"function_call\"}', '2026-01-02 03:05:01'),
            (5, 'chat', '{\"call_id\": \"c1\", \"output\": \"a.rs\", \"type\": \"function_call_output\"}', '2026-01-02 03:05:02');
        INSERT INTO message_structure (session_id, message_id, branch_id, message_type, sequence_number, user_turn_number, branch_turn_number, tool_name, created_at) VALUES
            ('chat', 1, 'main', 'user', 1, 1, 1, NULL, '2026-01-02 03:04:00'),
            ('chat', 2, 'main', 'assistant', 2, 1, 1, NULL, '2026-01-02 03:04:01'),
            ('chat', 3, 'retry', 'user', 3, 1, 1, NULL, '2026-01-02 03:05:00'),
            ('chat', 4, 'retry', 'function_call', 4, 1, 1, 'ls', '2026-01-02 03:05:01'),
            ('chat', 5, 'retry', 'function_call_output', 5, 1, 1, NULL, '2026-01-02 03:05:02');
        INSERT INTO turn_usage (session_id, branch_id, user_turn_number, requests, input_tokens, output_tokens, total_tokens, input_tokens_details, output_tokens_details) VALUES
            ('chat', 'main', 1, 1, 100, 10, 110, '{\"cached_tokens\": 40}', '{\"reasoning_tokens\": 0}'),
            ('chat', 'retry', 1, 2, 300, 30, 330, '{\"cached_tokens\": 0}', NULL);",
    )
    .unwrap();
}

#[test]
fn import_of_an_advanced_sdk_database() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("key"), KEY).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(dir.path().join("key"), std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    let src = dir.path().join("advanced.db");
    advanced_db(&src);
    let path = src.to_str().unwrap();

    let out = ok(cmd(dir.path(), &["import", path]));
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some(format!("{path} [AgentsSdk] Imported").as_str()), "{out}");
    assert_eq!(lines.next(), Some("  chat (new): 2 turns, 0 tool calls, 0 tool results, tokens in 100 / out 10 / cached 40"), "{out}");
    let fork_line = lines.next().unwrap();
    let fork = fork_line.trim_start().split(' ').next().unwrap().to_owned();
    assert_eq!(fork_line, format!("  {fork} (new): 3 turns, 1 tool calls, 1 tool results, tokens in 300 / out 30 / cached 0"), "{out}");
    assert_eq!(lines.next(), Some("1 file(s), 5 turn(s) imported"), "{out}");

    // The branch is a session the CLI lists, titled as the adapter titles it.
    let list = ok(cmd(dir.path(), &["--json", "list", "--all"]));
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let rows = list.as_array().or_else(|| list.get("sessions").and_then(|s| s.as_array())).expect("sessions");
    let branch = rows.iter().find(|s| s["id"] == fork.as_str()).expect("the fork is listed");
    assert_eq!((branch["name"].as_str(), branch["forked_from"].as_str(), branch["forked_at_seq"].as_u64()), (Some("chat branch retry"), Some("chat"), Some(0)));

    // A damaged usage row is reported under its reason; nothing is added.
    Connection::open(&src)
        .unwrap()
        .execute_batch("INSERT INTO turn_usage (session_id, branch_id, user_turn_number, requests, input_tokens) VALUES ('chat', 'main', 2, 1, 5)")
        .unwrap();
    let again = ok(cmd(dir.path(), &["--json", "import", path]));
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    let file = &again["files"][0];
    assert_eq!(file["status"], "up_to_date", "{again}");
    assert_eq!(
        file["read"]["not_imported"],
        serde_json::json!({"already stored: turn": 5, "already stored: turn_usage": 2, "turn_usage: no such turn": 1}),
        "{again}"
    );
}

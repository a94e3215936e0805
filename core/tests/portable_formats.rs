//! Small inline inputs for format rules no real sample covers: Claude Code
//! subagent files and `compact_boundary`, the legacy Codex layout, and
//! incremental imports that must not double count tokens.

use sessiondb::keys::KeySource;
use sessiondb::portable::{import_file, read_path, Block, ImportStatus, Role, SourceFormat};
use sessiondb::store::{OpenOptions, SessionStore};
use sessiondb::DataKey;
use std::io::Write;

fn store(dir: &std::path::Path) -> SessionStore {
    SessionStore::open(OpenOptions::at(dir.join("sessions.db"), KeySource::Bytes(DataKey::from_bytes(&[3u8; 32]).unwrap()))).unwrap()
}

fn claude(uuid: &str, parent: Option<&str>, side: bool, ty: &str, message: serde_json::Value, extra: serde_json::Value) -> String {
    let mut v = serde_json::json!({
        "parentUuid": parent, "isSidechain": side, "userType": "external", "cwd": "/p", "sessionId": "aaaaaaaa-0000-0000-0000-000000000001",
        "version": "2.1.38", "type": ty, "uuid": uuid, "timestamp": "2026-02-10T21:11:56.846Z"
    });
    if !message.is_null() {
        v["message"] = message;
    }
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v.to_string()
}

#[test]
fn claude_subagent_file_is_its_own_session_tied_to_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("agent-a1.jsonl");
    let lines = [
        claude("u1", None, true, "user", serde_json::json!({"role":"user","content":"find files"}), serde_json::json!({"agentId":"a1"})),
        claude("u2", Some("u1"), true, "assistant", serde_json::json!({"id":"msg_1","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"ok"}],"usage":{"input_tokens":5,"output_tokens":2}}), serde_json::json!({"agentId":"a1"})),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let o = read_path(&p, None).unwrap();
    assert_eq!(o.report.format, Some(SourceFormat::ClaudeCode));
    assert_eq!(o.sessions.len(), 1);
    let s = &o.sessions[0];
    assert_eq!(s.id, "aaaaaaaa-0000-0000-0000-000000000001.agent.a1");
    assert_eq!(s.source.extra["sidechain_of"], "aaaaaaaa-0000-0000-0000-000000000001");
    assert_eq!(s.turns.len(), 2);
    assert_eq!(s.usage_total().input, 5);
}

#[test]
fn claude_compact_boundary_is_a_compaction_and_the_summary_turn_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.jsonl");
    let lines = [
        claude("u1", None, false, "user", serde_json::json!({"role":"user","content":"long work"}), serde_json::json!({})),
        claude("s1", Some("u1"), false, "system", serde_json::Value::Null, serde_json::json!({"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":150000},"logicalParentUuid":"u1"})),
        claude("u2", Some("s1"), false, "user", serde_json::json!({"role":"user","content":"This session is being continued... summary"}), serde_json::json!({"isCompactSummary":true})),
        r#"{"type":"custom-title","customTitle":"my title","sessionId":"aaaaaaaa-0000-0000-0000-000000000001"}"#.to_string(),
        r#"{"type":"worktree-state","whatever":1}"#.to_string(),
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let o = read_path(&p, None).unwrap();
    let s = &o.sessions[0];
    assert_eq!(s.turns.len(), 2);
    assert_eq!(s.compactions.len(), 1);
    assert_eq!(s.compactions[0].at_turn, 1);
    assert_eq!(s.compactions[0].raw.as_ref().unwrap()["compactMetadata"]["preTokens"], 150000);
    assert_eq!(s.turns[1].extra["is_compact_summary"], true);
    assert_eq!(s.title.as_deref(), Some("my title"));
    assert_eq!(o.report.kept_raw["worktree-state"], 1);
    assert_eq!(o.report.kinds["system/compact_boundary"], 1);
}

#[test]
fn legacy_codex_layout_without_envelope_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("rollout-2025-06-01T10-00-00-bbbbbbbb-0000-0000-0000-000000000002.jsonl");
    let lines = [
        r#"{"id":"bbbbbbbb-0000-0000-0000-000000000002","timestamp":"2025-06-01T10:00:00.000Z","instructions":null}"#,
        r#"{"record_type":"state"}"#,
        r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#,
        r#"{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}"#,
        r#"{"type":"function_call_output","call_id":"c1","output":"{\"output\":\"a\",\"metadata\":{\"exit_code\":0}}"}"#,
        r#"{"record_type":"state"}"#,
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let o = read_path(&p, None).unwrap();
    assert_eq!(o.report.format, Some(SourceFormat::Codex));
    let s = &o.sessions[0];
    assert_eq!(s.id, "bbbbbbbb-0000-0000-0000-000000000002");
    assert_eq!(s.turns.iter().map(|t| t.role).collect::<Vec<_>>(), [Role::User, Role::Assistant, Role::User]);
    assert_eq!(s.tool_calls(), 1);
    assert_eq!(s.tool_results(), 1);
    assert_eq!(o.report.not_imported["record_type"], 2);
}

fn tc(total_in: u64, total_out: u64) -> String {
    format!(
        r#"{{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"input_tokens":{total_in},"cached_input_tokens":0,"output_tokens":{total_out},"total_tokens":0}},"last_token_usage":{{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1,"total_tokens":2}}}}}}}}"#
    )
}

#[test]
fn growing_codex_and_claude_files_import_the_same_totals_as_one_shot() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let meta = r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"cccccccc-0000-0000-0000-000000000003","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","model_provider":"openai"}}"#;
    let user = r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}}"#;
    let p = dir.path().join("rollout-2026-01-01T00-00-00-cccccccc-0000-0000-0000-000000000003.jsonl");
    std::fs::write(&p, format!("{meta}\n{user}\n{}\n{}\n", tc(100, 10), tc(100, 10))).unwrap();
    import_file(&st, &p, None).unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
    // A second user turn (its own timestamp: an identical line would be the
    // same source record, imported once since issue 14).
    writeln!(f, "{}\n{}\n{}", user.replace("00:00:01.000Z", "00:00:03.000Z"), tc(250, 30), tc(250, 30)).unwrap();
    drop(f);
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!(r.status, ImportStatus::Imported);
    assert_eq!((r.sessions[0].entries, r.sessions[0].usage_records), (1, 1));
    let t = st.token_totals("cccccccc-0000-0000-0000-000000000003").unwrap();
    assert_eq!((t.input, t.output), (250, 30), "the final total, counted once");

    // Claude: a message id seen in the first import is not counted again.
    let q = dir.path().join("claude.jsonl");
    let a1 = claude("a1", None, false, "assistant", serde_json::json!({"id":"msg_X","role":"assistant","model":"m","content":[{"type":"text","text":"part 1"}],"usage":{"input_tokens":10,"output_tokens":3}}), serde_json::json!({}));
    std::fs::write(&q, format!("{a1}\n")).unwrap();
    import_file(&st, &q, None).unwrap();
    let a2 = claude("a2", Some("a1"), false, "assistant", serde_json::json!({"id":"msg_X","role":"assistant","model":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}],"usage":{"input_tokens":10,"output_tokens":9}}), serde_json::json!({}));
    let a3 = claude("a3", Some("a2"), false, "assistant", serde_json::json!({"id":"msg_Y","role":"assistant","model":"m","content":[{"type":"text","text":"next"}],"usage":{"input_tokens":20,"output_tokens":4}}), serde_json::json!({}));
    std::fs::write(&q, format!("{a1}\n{a2}\n{a3}\n")).unwrap();
    let r = import_file(&st, &q, None).unwrap();
    assert_eq!(r.sessions[0].entries, 2, "the continuation of msg_X and msg_Y");
    let t = st.token_totals("aaaaaaaa-0000-0000-0000-000000000001").unwrap();
    assert_eq!((t.input, t.output), (30, 7), "msg_X once (as first seen), msg_Y once");
    let entries = st.get_transcript("aaaaaaaa-0000-0000-0000-000000000001", 1, 10).unwrap();
    assert_eq!(entries.len(), 3);
    assert!(matches!(serde_json::from_str::<serde_json::Value>(&entries[1].content).map(|v| Block::from_json(v[0].clone())), Ok(Block::ToolUse { .. })));
}

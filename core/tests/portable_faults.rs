//! Handmade fault inputs of issue 4 ("Tests"), written inline: torn tail then
//! append, lone surrogate escape, U+2028 in a message, unknown line type last,
//! a tool call without its result, an empty session with only a header, and
//! the other reader rules of issue 4 item 2.

use sessiondb::portable::{
    append_turns, read_path, read_stream, read_thclaws, repair_tail, write_thclaws, Block, Collector, PortableSession, ReadOptions, ReadReport,
    Role, SkipReason, SourceFormat, Turn,
};
use std::io::Write;

const HEADER: &str = r#"{"type":"header","id":"sess-00000000000000aa","model":"anthropic/claude-sonnet-4-6","cwd":"/tmp/p","created_at":1700000000}"#;

fn read(bytes: &[u8]) -> (PortableSession, ReadReport) {
    let mut sink = Collector::new(SourceFormat::Thclaws, None);
    let rep = read_thclaws(bytes, &ReadOptions::default(), &mut sink).unwrap();
    (sink.finish("fallback").remove(0), rep)
}

fn user(text: &str, ts: i64) -> String {
    serde_json::json!({"type":"user","content":[{"type":"text","text":text}],"timestamp":ts}).to_string()
}

fn texts(s: &PortableSession) -> Vec<String> {
    s.turns.iter().flat_map(|t| &t.blocks).filter_map(|b| if let Block::Text { text } = b { Some(text.clone()) } else { None }).collect()
}

#[test]
fn torn_last_line_is_skipped_reported_and_repaired_before_append() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sess-torn.jsonl");
    let good = format!("{HEADER}\n{}\n", user("hello", 1700000001));
    let torn = r#"{"type":"assistant","content":[{"type":"text","text":"hal"#;
    std::fs::write(&path, format!("{good}{torn}")).unwrap();

    let o = read_path(&path, None).unwrap();
    assert_eq!(texts(&o.sessions[0]), ["hello"]);
    let t = o.report.torn_tail().expect("torn tail reported");
    assert_eq!(t.line, 3);
    assert_eq!(t.offset, good.len() as u64);
    assert_eq!(o.report.bytes, good.len() as u64, "resume offset excludes the torn tail");

    let mut next = Turn::new(Role::Assistant, vec![Block::Text { text: "hello back".into() }], Some(1_700_000_002_000), 0);
    next.model = Some("anthropic/claude-sonnet-4-6".into());
    let repair = append_turns(&path, &[next]).unwrap();
    assert_eq!(repair.truncated_bytes, torn.len() as u64);
    let o = read_path(&path, None).unwrap();
    assert!(o.report.skipped.is_empty(), "{:?}", o.report.skipped);
    assert_eq!(texts(&o.sessions[0]), ["hello", "hello back"]);
}

#[test]
fn torn_tail_cut_inside_a_utf8_sequence_is_skipped() {
    let mut bytes = format!("{HEADER}\n{}\n", user("ok", 1)).into_bytes();
    let line = user("เอกสาร", 2);
    let cut = line.find('เ').unwrap() + 1; // one byte into a three-byte character
    bytes.extend_from_slice(&line.as_bytes()[..cut]);
    let (s, rep) = read(&bytes);
    assert_eq!(texts(&s), ["ok"]);
    assert_eq!(rep.skipped.len(), 1);
    assert_eq!(rep.skipped[0].line, 3);
    assert_eq!(rep.skipped[0].reason, SkipReason::TornTail);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    let r = repair_tail(&path).unwrap();
    assert_eq!(r.truncated_bytes, cut as u64);
    assert!(std::fs::read(&path).unwrap().ends_with(b"\n"));
}

#[test]
fn complete_last_line_without_newline_is_accepted_and_gets_one_before_append() {
    let bytes = format!("{HEADER}\n{}", user("last", 5));
    let (s, rep) = read(bytes.as_bytes());
    assert_eq!(texts(&s), ["last"]);
    assert!(rep.skipped.is_empty());
    assert!(rep.missing_final_newline);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    append_turns(&path, &[Turn::new(Role::User, vec![Block::Text { text: "more".into() }], Some(6000), 0)]).unwrap();
    let o = read_path(&path, Some(SourceFormat::Thclaws)).unwrap();
    assert_eq!(texts(&o.sessions[0]), ["last", "more"]);
    assert!(!o.report.missing_final_newline);
}

#[test]
fn malformed_line_in_the_middle_is_reported_with_its_number_and_the_rest_loads() {
    let bytes = format!("{HEADER}\n{}\n{{\"type\":\"user\",\"content\":[}}\n[1,2]\n\n{}\n", user("a", 1), user("b", 2));
    let (s, rep) = read(bytes.as_bytes());
    assert_eq!(texts(&s), ["a", "b"]);
    assert_eq!(rep.skipped.len(), 2);
    assert_eq!(rep.skipped[0].line, 3);
    assert!(matches!(rep.skipped[0].reason, SkipReason::InvalidJson { .. }));
    assert_eq!(rep.skipped[1].line, 4);
    assert_eq!(rep.skipped[1].reason, SkipReason::NotAnObject);
    assert_eq!(rep.blank_lines, 1);
    assert_eq!(rep.lines, 6);
}

#[test]
fn invalid_utf8_line_in_the_middle_is_reported() {
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}\n");
    bytes.extend_from_slice(format!("{}\n", user("fine", 3)).as_bytes());
    let (s, rep) = read(&bytes);
    assert_eq!(texts(&s), ["fine"]);
    assert_eq!(rep.skipped[0].line, 2);
    assert_eq!(rep.skipped[0].reason, SkipReason::InvalidUtf8);
}

#[test]
fn lone_surrogate_escape_becomes_replacement_char_and_is_reported() {
    let bytes = format!(
        "{HEADER}\n{}\n{}\n",
        r#"{"type":"user","content":[{"type":"text","text":"a\ud800b \udc01 ok \ud83d\ude00"}],"timestamp":1}"#,
        r#"{"type":"user","content":[{"type":"text","text":"literal \\ud800 stays"}],"timestamp":2}"#
    );
    let (s, rep) = read(bytes.as_bytes());
    assert_eq!(texts(&s), ["a\u{FFFD}b \u{FFFD} ok 😀", "literal \\ud800 stays"]);
    assert_eq!(rep.surrogates_replaced, [2]);
    assert!(rep.skipped.is_empty());
    // Written back: valid UTF-8, and never a surrogate escape.
    let mut out = Vec::new();
    write_thclaws(&s, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap().to_lowercase().replace("\\\\", "");
    assert!(!text.contains("\\ud8") && !text.contains("\\udc"), "no surrogate escape is ever written");
}

#[test]
fn line_separators_inside_strings_are_content_not_line_breaks() {
    let msg = "one\u{2028}two\u{2029}three\rfour";
    let bytes = format!("{HEADER}\n{}\n", user(msg, 1));
    assert!(bytes.contains('\u{2028}'), "serde_json writes U+2028 raw");
    let (s, rep) = read(bytes.as_bytes());
    assert_eq!(rep.lines, 2);
    assert_eq!(texts(&s), [msg]);
    let mut out = Vec::new();
    let w = write_thclaws(&s, &mut out).unwrap();
    assert_eq!(out.iter().filter(|b| **b == b'\n').count() as u64, w.lines);
    let (back, _) = read(&out);
    assert_eq!(texts(&back), [msg]);
}

#[test]
fn unknown_line_type_last_is_kept_and_counted_never_fatal() {
    let bytes = format!("{HEADER}\n{}\n{}\n", user("x", 1), r#"{"type":"turn_usage","after":3,"text":"t","timestamp":4}"#);
    let (s, rep) = read(bytes.as_bytes());
    assert_eq!(texts(&s), ["x"]);
    assert_eq!(rep.kept_raw["turn_usage"], 1);
    assert_eq!(s.other_lines.len(), 1);
    assert_eq!(s.other_lines[0].line, 3);
    assert_eq!(s.other_lines[0].raw["after"], 3);
}

#[test]
fn tool_call_without_its_result_is_kept() {
    let call = r#"{"type":"assistant","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}],"timestamp":2,"provider":"zai","model":"zai/glm-5.1"}"#;
    let bytes = format!("{HEADER}\n{}\n{call}\n", user("run", 1));
    let (s, _) = read(bytes.as_bytes());
    assert_eq!(s.tool_calls(), 1);
    assert_eq!(s.tool_results(), 0);
    let mut out = Vec::new();
    write_thclaws(&s, &mut out).unwrap();
    let (back, _) = read(&out);
    assert_eq!(back.tool_calls(), 1);
    assert_eq!(back.tool_results(), 0);
    assert_eq!(back.turns[1].blocks, s.turns[1].blocks);
    assert_eq!(back.turns[1].model.as_deref(), Some("zai/glm-5.1"));
}

#[test]
fn empty_session_with_only_a_header_reads_and_exports() {
    let (s, rep) = read(format!("{HEADER}\n").as_bytes());
    assert_eq!(s.id, "sess-00000000000000aa");
    assert!(s.turns.is_empty());
    assert_eq!(rep.lines, 1);
    let mut out = Vec::new();
    write_thclaws(&s, &mut out).unwrap();
    let lines: Vec<serde_json::Value> = out.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect();
    assert_eq!(lines[0], serde_json::json!({"type":"header","id":"sess-00000000000000aa","model":"anthropic/claude-sonnet-4-6","cwd":"/tmp/p","created_at":1700000000}));
    assert_eq!(lines.len(), 3, "header, plan_snapshot, goal_snapshot as real thClaws writes");
}

#[test]
fn seed_message_form_and_created_string_are_read() {
    let bytes = concat!(
        r#"{"type":"header","id":"s-4f3a2b1c","model":"claude-sonnet-4-6","cwd":"/w","created":"2026-01-02T03:04:05Z"}"#, "\n",
        r#"{"type":"message","role":"user","content":[{"type":"text","text":"hi"}]}"#, "\n",
        r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"hello"}]}"#, "\n",
        r#"{"type":"message","role":"tool","content":[{"type":"tool_result","tool_use_id":"x","content":"out"}]}"#, "\n",
    );
    let (s, rep) = read(bytes.as_bytes());
    assert_eq!(s.id, "s-4f3a2b1c");
    assert_eq!(s.created_at_ms, Some(1_767_323_045_000));
    assert_eq!(s.turns.iter().map(|t| t.role).collect::<Vec<_>>(), [Role::User, Role::Assistant, Role::Tool]);
    assert_eq!(rep.kinds["message"], 3);
    // Export writes the real form (`user`/`assistant` lines), never `message`.
    let mut out = Vec::new();
    write_thclaws(&s, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains(r#""type":"message""#));
    assert!(text.contains(r#""created_at":1767323045"#));
}

#[test]
fn compaction_supersedes_earlier_messages_and_latest_snapshots_win() {
    let bytes = [
        HEADER.to_string(),
        user("old 1", 1),
        user("old 2", 2),
        r#"{"type":"plan_snapshot","plan":{"id":"p","steps":[{"id":"1","title":"a","description":"","status":"todo"}]},"timestamp":3}"#.into(),
        r#"{"type":"compaction","messages":[{"role":"user","content":[{"type":"text","text":"summary of 2"}]}],"replaces_count":2,"timestamp":4}"#.into(),
        user("new", 5),
        r#"{"type":"rename","title":"first","timestamp":6}"#.into(),
        r#"{"type":"rename","title":"second","timestamp":7}"#.into(),
        r#"{"type":"plan_snapshot","plan":null,"timestamp":8}"#.into(),
        r#"{"type":"goal_snapshot","goal":{"text":"g"},"timestamp":9}"#.into(),
        r#"{"type":"provider_state","provider_session_id":"uuid-1","timestamp":10}"#.into(),
    ]
    .join("\n");
    let (s, _) = read(bytes.as_bytes());
    assert_eq!(s.turns.len(), 3, "full history kept");
    let active: Vec<_> = s.active_turns().iter().flat_map(|t| t.blocks.clone()).collect();
    assert_eq!(active, [Block::Text { text: "summary of 2".into() }, Block::Text { text: "new".into() }]);
    assert_eq!(s.compactions[0].at_turn, 2);
    assert_eq!(s.compactions[0].replaces_count, Some(2));
    assert_eq!(s.title.as_deref(), Some("second"));
    assert_eq!(s.plan, Some(serde_json::Value::Null));
    assert_eq!(s.goal, Some(serde_json::json!({"text":"g"})));
    assert_eq!(s.provider_state, Some(Some("uuid-1".into())));

    let mut out = Vec::new();
    write_thclaws(&s, &mut out).unwrap();
    let (back, _) = read(&out);
    assert_eq!(back.title.as_deref(), Some("second"));
    assert_eq!(back.provider_state, Some(Some("uuid-1".into())));
    assert_eq!(back.active_turns().len(), 2);
    assert_eq!(back.compactions[0].at_turn, 2);
}

#[test]
fn rename_without_title_clears_it() {
    let bytes = format!("{HEADER}\n{}\n{}\n", r#"{"type":"rename","title":"t","timestamp":1}"#, r#"{"type":"rename","timestamp":2}"#);
    let (s, _) = read(bytes.as_bytes());
    assert_eq!(s.title, None);
}

#[test]
fn resuming_from_a_line_emits_only_newer_lines() {
    let bytes = format!("{HEADER}\n{}\n{}\n{}\n", user("a", 1), user("b", 2), user("c", 3));
    let mut sink = Collector::new(SourceFormat::Thclaws, None);
    let rep = read_stream(SourceFormat::Thclaws, bytes.as_bytes(), &ReadOptions { emit_from_line: 3, ..Default::default() }, &mut sink).unwrap();
    let s = sink.finish("x").remove(0);
    assert_eq!(s.id, "sess-00000000000000aa", "the header is still read");
    assert_eq!(texts(&s), ["b", "c"]);
    assert_eq!(rep.already_imported_lines, 1);
}

#[test]
fn codex_duplicate_event_text_is_counted_not_imported_and_tokens_not_double_counted() {
    let lines = [
        r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"11111111-2222-3333-4444-555555555555","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.58.0","model_provider":"openai"}}"#,
        r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"turn_context","payload":{"model":"gpt-5","cwd":"/w"}}"#,
        r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
        r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"hi","images":[]}}"#,
        r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"c1"}}"#,
        r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5,"total_tokens":105},"last_token_usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5,"total_tokens":105}}}}"#,
        r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5,"total_tokens":105},"last_token_usage":{"input_tokens":100,"cached_input_tokens":10,"output_tokens":5,"total_tokens":105}}}}"#,
        r#"{"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a\nb"}}"#,
        r#"{"timestamp":"2026-01-01T00:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}"#,
        r#"{"timestamp":"2026-01-01T00:00:04.000Z","type":"event_msg","payload":{"type":"agent_message","message":"done"}}"#,
        r#"{"timestamp":"2026-01-01T00:00:04.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":250,"cached_input_tokens":110,"output_tokens":9,"total_tokens":259},"last_token_usage":{"input_tokens":150,"cached_input_tokens":100,"output_tokens":4,"total_tokens":154}}}}"#,
        r#"{"timestamp":"2026-01-01T00:00:05.000Z","type":"something_new","payload":{"x":1}}"#,
    ];
    let text = lines.join("\n") + "\n";
    let mut sink = Collector::new(SourceFormat::Codex, None);
    let rep = read_stream(SourceFormat::Codex, text.as_bytes(), &ReadOptions::default(), &mut sink).unwrap();
    let s = sink.finish("x").remove(0);
    assert_eq!(s.turns.len(), 4);
    assert_eq!(texts(&s), ["hi", "done"]);
    assert_eq!(rep.not_imported["event_msg/user_message"], 1);
    assert_eq!(rep.not_imported["event_msg/agent_message"], 1);
    assert_eq!(rep.not_imported["event_msg/token_count"], 1);
    assert_eq!(rep.kept_raw["something_new"], 1);
    let u = s.usage_total();
    assert_eq!((u.input, u.cached, u.output, s.usage.len()), (250, 110, 9, 2));
    assert_eq!(s.usage[0].model.as_deref(), Some("gpt-5"));
    assert!(matches!(&s.turns[1].blocks[0], Block::ToolUse { input, .. } if input["command"][0] == "ls"));
    assert!(matches!(&s.turns[2].blocks[0], Block::ToolResult { content, .. } if content == "a\nb"));
}

#[test]
fn writer_output_is_lf_only_valid_utf8_with_real_thclaws_keys() {
    let mut s = PortableSession { id: "sess-1".into(), model: Some("gpt-5".into()), provider: Some("openai".into()), created_at_ms: Some(1_700_000_000_123), ..Default::default() };
    s.turns.push(Turn::new(Role::Assistant, vec![Block::Thinking { text: "hm".into(), signature: None }, Block::Text { text: "x\r\ny".into() }], Some(1_700_000_001_999), 0));
    let mut out = Vec::new();
    write_thclaws(&s, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains('\r'), "CR inside strings is escaped");
    let l: Vec<&str> = text.lines().collect();
    assert_eq!(l[0], r#"{"type":"header","id":"sess-1","model":"openai/gpt-5","cwd":"","created_at":1700000000}"#);
    assert_eq!(l[3], r#"{"type":"assistant","content":[{"type":"thinking","content":"hm"},{"type":"text","text":"x\r\ny"}],"timestamp":1700000001}"#);
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

#[test]
fn strict_export_writes_only_thclaws_block_types() {
    use sessiondb::portable::{write_thclaws_with, WriteOptions};
    let mut s = PortableSession { id: "s".into(), ..Default::default() };
    let other = serde_json::json!({"type":"web_search_call","status":"completed"});
    s.turns.push(Turn::new(Role::Assistant, vec![Block::Other(other.clone())], Some(0), 0));
    let mut lossless = Vec::new();
    write_thclaws(&s, &mut lossless).unwrap();
    assert_eq!(read(&lossless).0.turns[0].blocks, [Block::Other(other)]);
    let mut strict = Vec::new();
    write_thclaws_with(&s, &mut strict, &WriteOptions { only_thclaws_blocks: true }).unwrap();
    let back = read(&strict).0;
    assert!(matches!(&back.turns[0].blocks[0], Block::Text { text } if text.starts_with("[web_search_call block] ")));
}

//! Every real sample file in `../shared/samples` (see its README) is read
//! with exact counts, and round-trips through the thClaws writer.
//! The samples are never copied into the project; when the folder is absent
//! these tests print a SKIP line and pass.

use sessiondb::portable::{read_path, write_thclaws, Block, PortableSession, ReadOptions, Role, SourceFormat};
use std::path::PathBuf;

fn samples() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples");
    if p.join("README.md").exists() {
        Some(p)
    } else {
        eprintln!("SKIP: real session samples not found at {} (they live beside the repo, never in it)", p.display());
        None
    }
}

/// Exact figures of one session.
#[derive(Debug, PartialEq)]
struct Fig {
    users: usize,
    assistants: usize,
    systems: usize,
    tool_calls: usize,
    tool_results: usize,
    usage_records: usize,
    input: u64,
    output: u64,
    cached: u64,
    plan_steps: usize,
    compactions: usize,
}

fn fig(s: &PortableSession) -> Fig {
    let n = |r: Role| s.turns.iter().filter(|t| t.role == r).count();
    let u = s.usage_total();
    Fig {
        users: n(Role::User),
        assistants: n(Role::Assistant),
        systems: n(Role::System),
        tool_calls: s.tool_calls(),
        tool_results: s.tool_results(),
        usage_records: s.usage.len(),
        input: u.input,
        output: u.output,
        cached: u.cached,
        plan_steps: s.plan_steps(),
        compactions: s.compactions.len(),
    }
}

#[allow(clippy::too_many_arguments)]
fn f(users: usize, assistants: usize, systems: usize, tool_calls: usize, tool_results: usize, usage_records: usize, input: u64, output: u64, cached: u64, plan_steps: usize, compactions: usize) -> Fig {
    Fig { users, assistants, systems, tool_calls, tool_results, usage_records, input, output, cached, plan_steps, compactions }
}

fn kinds(pairs: &[(&str, u64)]) -> std::collections::BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Export to thClaws and read back: same turns (roles, blocks, timestamps to the second), plan, goal, title, compactions.
fn assert_round_trip(s: &PortableSession) {
    let mut buf = Vec::new();
    let w = write_thclaws(s, &mut buf).expect("write");
    assert!(!buf.contains(&b'\r'));
    assert!(std::str::from_utf8(&buf).is_ok());
    assert_eq!(w.turns as usize, s.turns.len());
    let mut sink = sessiondb::portable::Collector::new(SourceFormat::Thclaws, None);
    let rep = sessiondb::portable::read_thclaws(&buf[..], &ReadOptions::default(), &mut sink).expect("read back");
    assert!(rep.skipped.is_empty(), "{:?}", rep.skipped);
    let back = sink.finish("x").remove(0);
    assert_eq!(back.id, s.id);
    assert_eq!(back.turns.len(), s.turns.len());
    for (a, b) in s.turns.iter().zip(&back.turns) {
        let role = if a.role == Role::Tool { Role::User } else { a.role };
        assert_eq!(b.role, role);
        assert_eq!(b.blocks, a.blocks, "line {}", a.source_line);
        if let Some(ts) = a.timestamp_ms {
            assert_eq!(b.timestamp_ms, Some(ts.div_euclid(1000) * 1000));
        }
        assert_eq!(b.model, a.model);
        assert_eq!(b.provider, a.provider);
    }
    assert_eq!(back.plan.clone().unwrap_or_default(), s.plan.clone().unwrap_or_default());
    assert_eq!(back.goal.clone().unwrap_or_default(), s.goal.clone().unwrap_or_default());
    assert_eq!(back.title, s.title);
    assert_eq!(back.compactions.len(), s.compactions.len());
    for (a, b) in s.compactions.iter().zip(&back.compactions) {
        assert_eq!(a.at_turn, b.at_turn);
        assert_eq!(a.messages.iter().map(|m| (&m.blocks, m.role)).collect::<Vec<_>>(), b.messages.iter().map(|m| (&m.blocks, m.role)).collect::<Vec<_>>());
    }
    assert_eq!(back.active_turns().len(), s.active_turns().len());
}

#[test]
fn thclaws_apcball_small_session_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("thclaws/apcball_sess-18b0083aead7f4d7.jsonl"), None).unwrap();
    assert_eq!(o.report.format, Some(SourceFormat::Thclaws));
    assert_eq!(o.report.lines, 11);
    assert_eq!(o.report.kinds, kinds(&[("header", 1), ("plan_snapshot", 1), ("goal_snapshot", 1), ("user", 4), ("assistant", 4)]));
    assert!(o.report.skipped.is_empty() && o.report.not_imported.is_empty() && o.report.kept_raw.is_empty());
    assert_eq!(o.sessions.len(), 1);
    let s = &o.sessions[0];
    assert_eq!(s.id, "sess-18b0083aead7f4d7");
    assert_eq!(s.model.as_deref(), Some("zai/glm-5.1"));
    assert_eq!(s.provider.as_deref(), Some("zai"));
    assert_eq!(s.cwd.as_deref(), Some("/workspace"));
    assert_eq!(s.created_at_ms, Some(1_778_930_901_000));
    assert_eq!(s.plan, Some(serde_json::Value::Null));
    assert_eq!(fig(s), f(4, 4, 0, 1, 1, 0, 0, 0, 0, 0, 0));
    let thinking = s.turns.iter().flat_map(|t| &t.blocks).filter(|b| matches!(b, Block::Thinking { .. })).count();
    assert_eq!(thinking, 3);
    assert_eq!(s.turns[1].model.as_deref(), Some("zai/glm-5.1"));
    assert_eq!(s.turns[1].provider.as_deref(), Some("zai"));
    assert_round_trip(s);
}

#[test]
fn thclaws_apcball_rich_session_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("thclaws/apcball_sess-18b0133eac539936.jsonl"), None).unwrap();
    assert_eq!(o.report.lines, 116);
    assert_eq!(o.report.kinds, kinds(&[("header", 1), ("plan_snapshot", 10), ("goal_snapshot", 3), ("user", 51), ("assistant", 51)]));
    assert!(o.report.skipped.is_empty());
    let s = &o.sessions[0];
    assert_eq!(s.id, "sess-18b0133eac539936");
    // 51 tool calls, 50 results: one call has no result, and that is kept as is.
    assert_eq!(fig(s), f(51, 51, 0, 51, 50, 0, 0, 0, 0, 3, 0));
    let plan = s.plan.as_ref().unwrap();
    assert_eq!(plan["id"], "plan-f4d18c16-092d-4e6d-8ade-0990b6bd256a");
    let statuses: Vec<_> = plan["steps"].as_array().unwrap().iter().map(|st| st["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["done", "done", "done"], "the latest plan_snapshot wins");
    let errors = s.turns.iter().flat_map(|t| &t.blocks).filter(|b| matches!(b, Block::ToolResult { is_error: true, .. })).count();
    assert_eq!(errors, 7);
    assert_round_trip(s);
}

#[test]
fn thclaws_athena_header_only_session_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("thclaws/athena_sess-18b1e2cdf829bd8c.jsonl"), None).unwrap();
    assert_eq!(o.report.lines, 3);
    let s = &o.sessions[0];
    assert_eq!(s.id, "sess-18b1e2cdf829bd8c");
    assert_eq!(s.model.as_deref(), Some("openrouter/anthropic/claude-sonnet-4-6"));
    assert_eq!(s.provider.as_deref(), Some("openrouter"));
    assert_eq!(s.cwd.as_deref(), Some("C:\\Users\\user\\OneDrive\\เอกสาร"));
    assert_eq!(s.created_at_ms, Some(1_779_452_702_000));
    assert_eq!(fig(s), f(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    assert_round_trip(s);
}

#[test]
fn codex_localpush_rollout_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"), None).unwrap();
    assert_eq!(o.report.format, Some(SourceFormat::Codex));
    assert_eq!(o.report.lines, 63);
    assert_eq!(
        o.report.kinds,
        kinds(&[
            ("session_meta", 1),
            ("turn_context", 6),
            ("response_item/message", 13),
            ("response_item/reasoning", 6),
            ("response_item/function_call", 5),
            ("response_item/function_call_output", 5),
            ("event_msg/token_count", 12),
            ("event_msg/agent_reasoning", 6),
            ("event_msg/agent_message", 6),
            ("event_msg/user_message", 1),
            ("event_msg/task_started", 1),
            ("event_msg/task_complete", 1),
        ])
    );
    // Duplicated text and repeated token_count lines are counted, not imported.
    assert_eq!(
        o.report.not_imported,
        kinds(&[
            ("turn_context", 6),
            ("event_msg/token_count", 6),
            ("event_msg/agent_reasoning", 6),
            ("event_msg/agent_message", 6),
            ("event_msg/user_message", 1),
            ("event_msg/task_started", 1),
            ("event_msg/task_complete", 1),
        ])
    );
    let s = &o.sessions[0];
    assert_eq!(s.id, "019c8bfe-ec25-79e0-97d7-bda6a9c575ff");
    assert_eq!(s.model.as_deref(), Some("gpt-5.3-codex"));
    assert_eq!(s.provider.as_deref(), Some("openai"));
    assert_eq!(s.cwd.as_deref(), Some("/redacted/path/ea96e59ed9"));
    assert_eq!(s.created_at_ms, Some(1_771_875_265_573));
    assert_eq!(s.source.extra["originator"], "Codex Desktop");
    // 4 developer messages (system), 3 user messages + 5 tool-output turns, 6 assistant turns.
    // Tokens: the final total_token_usage {input 298373, cached 238848, output 1123}, in 6 records.
    assert_eq!(fig(s), f(8, 6, 4, 5, 5, 6, 298_373, 1_123, 238_848, 0, 0));
    let thinking = s.turns.iter().flat_map(|t| &t.blocks).filter(|b| matches!(b, Block::Thinking { .. })).count();
    assert_eq!(thinking, 6);
    assert_round_trip(s);
}

#[test]
fn codex_compacted_excerpt_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("codex/excerpts/localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted.jsonl"), None).unwrap();
    assert_eq!(o.report.format, Some(SourceFormat::Codex));
    assert_eq!(o.report.lines, 17);
    assert_eq!(o.report.kinds["compacted"], 1);
    assert_eq!(o.report.not_imported["event_msg/context_compacted"], 1);
    let s = &o.sessions[0];
    assert_eq!(s.id, "localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted", "no session_meta: the file stem");
    // Excerpt: the first token_count total is taken whole (cumulative), so the
    // sum still equals the last total_token_usage.
    assert_eq!(fig(s), f(1, 2, 0, 2, 1, 2, 22_454_993, 90_856, 21_131_904, 0, 1));
    let c = &s.compactions[0];
    assert_eq!(c.at_turn, 2);
    assert_eq!(c.messages.len(), 40);
    assert_eq!(c.source_line, 9);
    assert_eq!(s.active_turns().len(), 41);
    assert_round_trip(s);
}

#[test]
fn claude_spotter_short_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("claude-code/spotter_short.jsonl"), None).unwrap();
    assert_eq!(o.report.format, Some(SourceFormat::ClaudeCode));
    assert_eq!(o.report.lines, 15);
    assert_eq!(o.report.kinds, kinds(&[("file-history-snapshot", 1), ("progress", 3), ("user", 4), ("assistant", 5), ("system/local_command", 2)]));
    assert_eq!(o.report.not_imported, kinds(&[("file-history-snapshot", 1), ("progress", 3)]));
    assert_eq!(o.report.merged_lines, 4, "five assistant lines, one message id");
    assert_eq!(o.sessions.len(), 1);
    let s = &o.sessions[0];
    assert_eq!(s.id, "55604662-cf2a-4331-851a-ec234028f8ca");
    assert_eq!(s.model.as_deref(), Some("claude-opus-4-6"));
    assert_eq!(s.cwd.as_deref(), Some("/home/user/projects/spotter"));
    assert_eq!(fig(s), f(4, 1, 2, 2, 2, 1, 25_353, 13, 11_515, 0, 0));
    let kinds_in_assistant: Vec<_> = s.turns[1].blocks.iter().map(|b| match b {
        Block::Text { .. } => "text",
        Block::Thinking { .. } => "thinking",
        Block::ToolUse { .. } => "tool_use",
        _ => "other",
    }).collect();
    assert_eq!(kinds_in_assistant, ["text", "thinking", "text", "tool_use", "tool_use"]);
    assert!(matches!(&s.turns[1].blocks[1], Block::Thinking { signature: Some(_), .. }));
    let errors = s.turns.iter().flat_map(|t| &t.blocks).filter(|b| matches!(b, Block::ToolResult { is_error: true, .. })).count();
    assert_eq!(errors, 2, "both calls were rejected");
    assert_round_trip(s);
}

#[test]
fn claude_spotter_tool_heavy_reads_exactly() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("claude-code/spotter_tool_heavy.jsonl"), None).unwrap();
    assert_eq!(o.report.lines, 39);
    assert_eq!(o.report.not_imported, kinds(&[("file-history-snapshot", 3), ("progress", 10), ("queue-operation", 2)]));
    assert_eq!(o.report.merged_lines, 5);
    let s = &o.sessions[0];
    assert_eq!(s.id, "d6e0bada-1959-4eec-a9d2-0bfade768d8f");
    assert_eq!(fig(s), f(13, 4, 2, 6, 6, 4, 105_981, 212, 88_231, 0, 0));
    // The message split around a tool result (lines 34 and 37) is one turn,
    // its results follow it; usage counted once with the final output_tokens.
    let t = s.turns.iter().find(|t| t.source_line == 34).unwrap();
    assert_eq!(t.tool_calls(), 2);
    assert_eq!(s.usage.iter().find(|u| u.source_line == 37).map(|u| u.output), Some(173));
    let with_result = s.turns.iter().filter(|t| t.extra.contains_key("tool_use_result")).count();
    assert_eq!(with_result, 6, "toolUseResult kept whole");
    assert_round_trip(s);
}

#[test]
fn claude_viewer_inline_sidechains_are_separate_sessions() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("claude-code/claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"), None).unwrap();
    assert_eq!(o.report.lines, 53);
    assert_eq!(o.report.kinds, kinds(&[("user", 25), ("assistant", 28)]));
    assert_eq!(o.report.merged_lines, 8);
    assert_eq!(o.sessions.len(), 3);
    let main = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7";
    assert_eq!(o.sessions[0].id, main);
    assert_eq!(o.sessions[1].id, format!("{main}.sidechain.6340ddef-f656-4b72-a065-82390f637678"));
    assert_eq!(o.sessions[2].id, format!("{main}.sidechain.83e2917c-8940-4df6-a5a5-f2514f0d08c5"));
    assert_eq!(o.sessions[1].source.sidechain_of.as_deref(), Some(main));
    assert_eq!(fig(&o.sessions[0]), f(15, 10, 0, 13, 13, 10, 216_399, 2_003, 190_261, 0, 0));
    assert_eq!(fig(&o.sessions[1]), f(3, 3, 0, 2, 2, 3, 39_191, 485, 25_737, 0, 0));
    assert_eq!(fig(&o.sessions[2]), f(7, 7, 0, 6, 6, 7, 116_545, 1_141, 108_261, 0, 0));
    // 22 sidechain lines = 3 + 4 + 15 lines... all accounted: 21 tool pairs in total.
    let calls: usize = o.sessions.iter().map(PortableSession::tool_calls).sum();
    assert_eq!(calls, 21);
    for s in &o.sessions {
        assert_round_trip(s);
    }
}

#[test]
fn claude_summary_excerpt_sets_the_title() {
    let Some(root) = samples() else { return };
    let o = read_path(&root.join("claude-code/excerpts/claude-code-viewer_fe5e1c67_lines1-8_summary.jsonl"), None).unwrap();
    assert_eq!(o.report.lines, 8);
    assert_eq!(o.report.kinds, kinds(&[("summary", 1), ("user", 4), ("assistant", 3)]));
    let s = &o.sessions[0];
    assert_eq!(s.id, "fe5e1c67-53e7-4862-81ae-d0e013e3270b");
    assert_eq!(s.title.as_deref(), Some("Empty Repo Setup: CLAUDE.md Foundation Created"));
    assert_eq!(fig(s), f(4, 1, 0, 2, 2, 1, 16_208, 172, 14_874, 0, 0));
    assert_round_trip(s);
}

#[test]
fn every_sample_file_is_detected_and_reads_without_skips() {
    let Some(root) = samples() else { return };
    let files = sessiondb::portable::find_jsonl_files(&root).unwrap();
    assert_eq!(files.len(), 9);
    for f in files {
        let o = read_path(&f, None).unwrap();
        assert!(o.report.skipped.is_empty(), "{}", f.display());
        assert_eq!(o.report.bytes, std::fs::metadata(&f).unwrap().len());
        let expected = if f.to_string_lossy().contains("/thclaws/") {
            SourceFormat::Thclaws
        } else if f.to_string_lossy().contains("/codex/") {
            SourceFormat::Codex
        } else {
            SourceFormat::ClaudeCode
        };
        assert_eq!(o.report.format, Some(expected));
    }
}

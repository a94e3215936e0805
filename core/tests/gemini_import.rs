//! Gemini CLI importer (issue 28 item 6): handmade files in the real
//! formats of Gemini CLI's `chatRecordingService.ts` (the append-only JSONL
//! and the older JSON document), in `tests/data/gemini/`:
//!
//! - `session-2026-08-20T10-00-a1b2c3d4.jsonl` (23 lines): metadata, a
//!   `$set directories`, user messages (text, an image), a `gemini` message
//!   written three times (tokens, then tool calls added: one success, one
//!   error), a `gemini` message with a thought part, a `fileData` part and
//!   tokens, `info`/`error`/`warning` notices, `$set summary`, bookkeeping
//!   `$set`s, an unknown record, two messages of identical content (ids
//!   `u3`, `u4`), `u4` written again byte for byte, a `$rewindTo`, a blank
//!   line and a tool call still executing (no result).
//! - `session-2026-08-21T08-00-b0b0b0b0.jsonl`: a `$set messages`
//!   checkpoint (history rewritten after `/compress`) and a torn last line.
//! - `session-2026-03-01T09-00-c0ffee00.json` (112 lines, no final `\n`):
//!   a pretty-printed `ConversationRecord` with thoughts, a tool call,
//!   tokens, two byte-identical messages and an `info` notice.

mod portable_support;

use portable_support::store;
use sessiondb::portable::{self, classify_file, export_thclaws, import_file, import_paths_report, read_path, standard_locations, Block, FileKind, ImportStatus, LocationEnv, LocationKind, Role, SourceFormat};
use sessiondb::ErrorKind;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const JSONL: &str = "session-2026-08-20T10-00-a1b2c3d4.jsonl";
const JSONL_ID: &str = "a1b2c3d4-1111-4222-8333-444455556666";
const CHECKPOINT: &str = "session-2026-08-21T08-00-b0b0b0b0.jsonl";
const DOC: &str = "session-2026-03-01T09-00-c0ffee00.json";
const DOC_ID: &str = "c0ffee00-3333-4444-8555-666677778888";

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/gemini").join(name)
}

/// A copy of a fixture in `dir` (imports record their source path).
fn copy(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(data(name), &p).unwrap();
    p
}

fn m(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// `\n`-separated lines of a file, a last line without `\n` included.
fn line_count(p: &Path) -> u64 {
    let b = std::fs::read(p).unwrap();
    b.iter().filter(|c| **c == b'\n').count() as u64 + u64::from(b.last().is_some_and(|c| *c != b'\n'))
}

/// `(role, content)` of every stored entry of `id`.
fn entries(st: &sessiondb::SessionStore, id: &str) -> Vec<(String, String)> {
    st.get_transcript(id, 1, 1000).unwrap().into_iter().map(|e| (format!("{:?}", e.role), e.content)).collect()
}

fn block_kinds(blocks: &[Block]) -> Vec<&'static str> {
    blocks
        .iter()
        .map(|b| match b {
            Block::Text { .. } => "text",
            Block::Thinking { .. } => "thinking",
            Block::ToolUse { .. } => "tool_use",
            Block::ToolResult { is_error: false, .. } => "tool_result",
            Block::ToolResult { is_error: true, .. } => "tool_result(error)",
            Block::Image { .. } => "image",
            _ => "other",
        })
        .collect()
}

#[test]
fn gemini_jsonl_every_record_kind_becomes_the_documented_turns_blocks_and_usage() {
    let out = read_path(&data(JSONL), None).unwrap();
    assert_eq!(out.report.format, Some(SourceFormat::GeminiCli));
    assert_eq!(out.sessions.len(), 1);
    let s = &out.sessions[0];
    assert_eq!(s.id, JSONL_ID);
    assert_eq!(s.title.as_deref(), Some("Fix the bug in main.rs"));
    assert_eq!(s.cwd.as_deref(), Some("/home/dev/proj"), "directories[0]");
    assert_eq!(s.model.as_deref(), Some("gemini-2.5-flash"), "the latest model");
    assert_eq!(s.created_at_ms, Some(1_787_220_000_000), "startTime 2026-08-20T10:00:00Z");
    assert_eq!(s.source.extra["gemini_project_hash"], "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8");
    assert_eq!(s.source.extra["gemini_kind"], "main");
    let got: Vec<(Role, Vec<&str>, u64)> = s.turns.iter().map(|t| (t.role, block_kinds(&t.blocks), t.source_line)).collect();
    assert_eq!(
        got,
        vec![
            (Role::User, vec!["text"], 3),
            (Role::Assistant, vec!["thinking", "text"], 5),
            (Role::Assistant, vec!["tool_use", "tool_use"], 5),
            (Role::User, vec!["tool_result", "tool_result(error)"], 5),
            (Role::Assistant, vec!["text"], 9),
            (Role::System, vec!["text"], 10),
            (Role::User, vec!["text", "image"], 11),
            (Role::Assistant, vec!["thinking", "text", "other"], 12),
            (Role::System, vec!["text"], 13),
            (Role::System, vec!["text"], 14),
            (Role::User, vec!["text"], 18),
            (Role::User, vec!["text"], 19),
            (Role::Assistant, vec!["tool_use"], 23),
        ]
    );
    // The thought summary, a thought part with its signature, the tool
    // result texts, the notices' kinds.
    assert_eq!(s.turns[1].blocks[0], Block::Thinking { text: "**Planning** List the directory, then read main.rs.".into(), signature: None });
    assert_eq!(s.turns[7].blocks[0], Block::Thinking { text: "Reading the picture.".into(), signature: Some("c2lnLTE=".into()) });
    assert_eq!(s.turns[3].blocks[1], Block::ToolResult { tool_use_id: "call-read-2".into(), content: "File not found: /home/dev/proj/missing.rs".into(), is_error: true });
    assert_eq!(s.turns[3].blocks[0], Block::ToolResult { tool_use_id: "call-ls-1".into(), content: "main.rs\nlib.rs".into(), is_error: false });
    assert_eq!(s.turns[2].blocks[0], Block::ToolUse { id: "call-ls-1".into(), name: "list_directory".into(), input: serde_json::json!({"path": "/home/dev/proj"}), thought_signature: None });
    assert_eq!((s.turns[1].model.as_deref(), s.turns[2].model.as_deref()), (Some("gemini-2.5-pro"), Some("gemini-2.5-pro")));
    assert_eq!((&s.turns[1].extra["gemini_id"], &s.turns[2].extra["gemini_part"]), (&serde_json::json!("g1"), &serde_json::json!("tool_calls")));
    assert_eq!([&s.turns[5], &s.turns[8], &s.turns[9]].map(|t| t.extra["gemini_type"].as_str().unwrap()), ["info", "error", "warning"]);
    assert_eq!(s.turns[3].extra["gemini_tool_calls"][1]["status"], "error");
    // Usage: input + tool, output + thoughts, cached; one figure per message id.
    let usage: Vec<(u64, u64, u64, Option<&str>)> = s.usage.iter().map(|u| (u.input, u.output, u.cached, u.record_id.as_deref())).collect();
    assert_eq!(usage, vec![(1210, 65, 800, Some("gemini\0g1")), (1500, 60, 1000, Some("gemini\0g2")), (2000, 35, 0, Some("gemini\0g3"))]);
    assert_eq!(s.other_lines.iter().map(|o| (o.line, o.kind.as_str())).collect::<Vec<_>>(), [(17, "checkpoint"), (21, "$rewindTo")]);
    // Every line in one place.
    let a = out.report.line_account();
    assert_eq!(out.report.lines, 23);
    assert_eq!(a.total(), line_count(&data(JSONL)));
    assert_eq!(
        a.in_session,
        m(&[("session", 1), ("$set directories", 1), ("$set summary", 1), ("message/user", 4), ("message/gemini", 4), ("message/info", 1), ("message/error", 1), ("message/warning", 1)])
    );
    assert_eq!(a.not_imported, m(&[("$set lastUpdated", 2), ("$set memoryScratchpad", 1), ("message/gemini superseded", 2), ("message/user superseded", 1)]));
    assert_eq!(a.kept_raw, m(&[("$rewindTo", 1), ("checkpoint", 1)]));
    assert_eq!((a.blank, a.unreadable.len(), a.already_imported), (1, 0, 0));
}

#[test]
fn gemini_jsonl_imports_with_exact_counts_and_a_reimport_or_a_copy_adds_nothing() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    let p = copy(d.path(), JSONL);
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!((r.status, r.format), (ImportStatus::Imported, Some(SourceFormat::GeminiCli)));
    let s = &r.sessions[0];
    assert_eq!(
        (s.session_id.as_str(), s.entries, s.tool_calls, s.tool_results, s.usage_records, s.input_tokens, s.output_tokens, s.cached_tokens),
        (JSONL_ID, 13, 3, 2, 3, 4710, 160, 1800)
    );
    let rec = st.get_session(JSONL_ID).unwrap();
    assert_eq!((rec.name.as_deref(), rec.workspace_path.as_deref(), rec.model.as_deref()), (Some("Fix the bug in main.rs"), Some("/home/dev/proj"), Some("gemini-2.5-flash")));
    let t = st.token_totals(JSONL_ID).unwrap();
    assert_eq!((t.input, t.output, t.cached), (4710, 160, 1800));
    // The two messages of identical content (u3, u4) are two entries.
    let e = entries(&st, JSONL_ID);
    assert_eq!(e.iter().filter(|(r, c)| r == "User" && c == "yes").count(), 2);
    // Again: up to date.
    assert_eq!(import_file(&st, &p, None).unwrap().status, ImportStatus::UpToDate);
    // A copy elsewhere: every record is already stored.
    let other = tempfile::tempdir().unwrap();
    let p2 = copy(other.path(), JSONL);
    let r2 = import_file(&st, &p2, None).unwrap();
    assert_eq!(r2.status, ImportStatus::Imported);
    assert_eq!((r2.sessions[0].entries, r2.sessions[0].usage_records, r2.sessions[0].skipped_already_stored), (0, 0, 13));
    assert_eq!(entries(&st, JSONL_ID), e);
    assert_eq!(st.token_totals(JSONL_ID).unwrap().input, 4710);
}

#[test]
fn a_grown_gemini_jsonl_adds_only_its_new_messages() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    let full = std::fs::read_to_string(data(JSONL)).unwrap();
    let lines: Vec<&str> = full.split_inclusive('\n').collect();
    let p = d.path().join(JSONL);
    // The first 9 lines: u1, g1 (final version on line 8) and g2.
    std::fs::write(&p, lines[..9].concat()).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].tool_calls, r.sessions[0].input_tokens), (5, 2, 2710));
    std::fs::write(&p, lines.concat()).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!(r.from_line, 10);
    let s = &r.sessions[0];
    assert_eq!((s.entries, s.tool_calls, s.tool_results, s.input_tokens, s.output_tokens, s.cached_tokens), (8, 1, 0, 2000, 35, 0));
    let a = r.read.unwrap().line_account();
    assert_eq!((a.total(), a.already_imported), (23, 9));
    // The same entries as one import of the whole file.
    let d2 = tempfile::tempdir().unwrap();
    let st2 = store(d2.path());
    import_file(&st2, &copy(d2.path(), JSONL), None).unwrap();
    assert_eq!(entries(&st, JSONL_ID), entries(&st2, JSONL_ID));
}

/// Gemini CLI writes a `gemini` message when its text arrives, again with
/// its tokens, and again with its tool calls when they complete: an import
/// between those lines stores the text turn, and the next ones add only the
/// usage, then the calls and their results (the text is not read again,
/// not stored twice).
#[test]
fn a_gemini_message_completed_after_an_import_adds_only_its_tokens_and_tool_calls() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    let full = std::fs::read_to_string(data(JSONL)).unwrap();
    let lines: Vec<&str> = full.split_inclusive('\n').collect();
    let p = d.path().join(JSONL);
    // Lines 1-5: u1 and g1's first version (no tokens, no tool calls).
    std::fs::write(&p, lines[..5].concat()).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].usage_records), (2, 0));
    // Lines 6-7: g1 with its tokens.
    std::fs::write(&p, lines[..7].concat()).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    let s = &r.sessions[0];
    assert_eq!((s.entries, s.skipped_already_stored, s.usage_records, s.input_tokens), (0, 0, 1, 1210), "the text turn is not read again");
    let a = r.read.unwrap().line_account();
    assert_eq!((a.already_imported, a.in_session.clone()), (5, m(&[("message/gemini", 1)])), "line 6 ($set lastUpdated) not imported, line 7 the usage");
    // Line 8: g1 with its completed tool calls.
    std::fs::write(&p, lines[..8].concat()).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    let s = &r.sessions[0];
    assert_eq!((s.entries, s.tool_calls, s.tool_results, s.skipped_already_stored, s.usage_records), (2, 2, 2, 0, 0));
    // The same as one import of the 8 lines.
    let d2 = tempfile::tempdir().unwrap();
    let st2 = store(d2.path());
    let p2 = d2.path().join(JSONL);
    std::fs::write(&p2, lines[..8].concat()).unwrap();
    import_file(&st2, &p2, None).unwrap();
    assert_eq!(entries(&st, JSONL_ID), entries(&st2, JSONL_ID));
    assert_eq!(entries(&st, JSONL_ID).len(), 4);
    assert_eq!(st.token_totals(JSONL_ID).unwrap().input, 1210);
}

#[test]
fn a_gemini_set_messages_checkpoint_is_a_compaction_and_a_torn_last_line_waits() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    let p = copy(d.path(), CHECKPOINT);
    let out = read_path(&p, None).unwrap();
    let s = &out.sessions[0];
    assert_eq!(s.turns.len(), 3);
    assert_eq!(s.compactions.len(), 1);
    let c = &s.compactions[0];
    assert_eq!((c.at_turn, c.source_line, c.messages.len()), (2, 4, 2));
    assert_eq!(c.messages[0].blocks, vec![Block::Text { text: "<state_snapshot>a Rust workspace</state_snapshot>".into() }]);
    let a = out.report.line_account();
    assert_eq!(a.in_session, m(&[("session", 1), ("message/user", 2), ("message/gemini", 1), ("$set lastUpdated,messages", 1)]));
    assert_eq!((a.unreadable.clone(), a.total()), (m(&[("torn_tail", 1)]), 6));
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].input_tokens), (3, 300));
    // The torn line completed: only it is added.
    let mut text = std::fs::read_to_string(&p).unwrap();
    text.push_str(r#"0:11.000Z","type":"user","content":[{"text":"bye"}]}"#);
    text.push('\n');
    std::fs::write(&p, text).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!((r.from_line, r.sessions[0].entries), (6, 1));
    assert_eq!(entries(&st, "b0b0b0b0-2222-4333-8444-555566667777").last().unwrap(), &("User".to_string(), "bye".to_string()));
}

#[test]
fn gemini_json_document_is_one_record_counted_by_its_lines() {
    let out = read_path(&data(DOC), None).unwrap();
    let s = &out.sessions[0];
    assert_eq!((s.id.as_str(), s.title.as_deref(), s.cwd.as_deref(), s.model.as_deref()), (DOC_ID, Some("Run the tests"), Some("/home/dev/app"), Some("gemini-2.5-pro")));
    let got: Vec<(Role, Vec<&str>, u64)> = s.turns.iter().map(|t| (t.role, block_kinds(&t.blocks), t.source_line)).collect();
    assert_eq!(
        got,
        vec![
            (Role::User, vec!["text"], 7),
            (Role::Assistant, vec!["thinking", "text"], 17),
            (Role::Assistant, vec!["tool_use"], 17),
            (Role::User, vec!["tool_result"], 17),
            (Role::Assistant, vec!["text"], 64),
            (Role::User, vec!["text"], 80),
            (Role::User, vec!["text"], 90),
            (Role::System, vec!["text"], 100),
        ],
        "each message at the line its object starts; the two byte-identical `m4` entries are both kept"
    );
    let usage: Vec<(u64, u64, u64)> = s.usage.iter().map(|u| (u.input, u.output, u.cached)).collect();
    assert_eq!(usage, vec![(903, 27, 600), (1000, 8, 900)]);
    let a = out.report.line_account();
    assert_eq!((out.report.lines, a.total(), line_count(&data(DOC))), (112, 112, 112));
    assert_eq!(a.in_session, m(&[("document", 112)]));
    assert!(out.report.missing_final_newline, "JSON.stringify writes no final newline");
}

#[test]
fn a_rewritten_gemini_json_document_adds_only_its_new_messages() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    let p = copy(d.path(), DOC);
    let r = import_file(&st, &p, None).unwrap();
    let s = &r.sessions[0];
    assert_eq!((s.entries, s.tool_calls, s.tool_results, s.input_tokens, s.output_tokens, s.cached_tokens), (8, 1, 1, 1903, 35, 1500));
    assert_eq!(import_file(&st, &p, None).unwrap().status, ImportStatus::UpToDate);
    // Gemini CLI rewrites the file whole: a new `lastUpdated`, one more message.
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
    doc["lastUpdated"] = "2026-03-01T09:03:00.000Z".into();
    doc["messages"].as_array_mut().unwrap().push(serde_json::json!({"id": "m6", "timestamp": "2026-03-01T09:03:00.000Z", "type": "gemini", "content": "Done.", "tokens": {"input": 50, "output": 2, "cached": 0, "thoughts": 0, "tool": 0, "total": 52}, "model": "gemini-2.5-pro"}));
    std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let r = import_file(&st, &p, None).unwrap();
    assert_eq!(r.status, ImportStatus::Imported, "read again whole, not SourceChanged");
    let s = &r.sessions[0];
    assert_eq!((s.entries, s.skipped_already_stored, s.input_tokens, s.output_tokens), (1, 8, 50, 2));
    assert_eq!(st.get_session(DOC_ID).unwrap().entry_count, 9);
    assert_eq!(entries(&st, DOC_ID).iter().filter(|(_, c)| c == "again").count(), 2);
    // Its JSONL successor (Gemini CLI migrates `x.json` to `x.jsonl` on
    // resume, copying every message) adds nothing it already holds.
    let mut jsonl = String::new();
    let meta = serde_json::json!({"sessionId": DOC_ID, "projectHash": doc["projectHash"], "startTime": doc["startTime"], "lastUpdated": doc["lastUpdated"], "kind": "main", "directories": doc["directories"], "summary": doc["summary"]});
    jsonl.push_str(&format!("{meta}\n"));
    for msg in doc["messages"].as_array().unwrap() {
        jsonl.push_str(&format!("{msg}\n"));
    }
    let pl = d.path().join(format!("{DOC}l"));
    std::fs::write(&pl, jsonl).unwrap();
    let r = import_file(&st, &pl, None).unwrap();
    assert_eq!((r.sessions[0].entries, r.sessions[0].usage_records), (0, 0));
}

#[test]
fn a_torn_gemini_json_document_is_an_invalid_input_error_and_changes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    let p = copy(d.path(), DOC);
    import_file(&st, &p, None).unwrap();
    let before = entries(&st, DOC_ID);
    let full = std::fs::read(&p).unwrap();
    // Cut by a rewrite, one byte longer than before so the file changed.
    let mut torn = full[..full.len() - 40].to_vec();
    torn.extend_from_slice(&[b' '; 41]);
    std::fs::write(&p, &torn).unwrap();
    let e = import_file(&st, &p, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(e.to_string().contains("not one complete JSON document"), "{e}");
    let r = import_paths_report(&st, std::slice::from_ref(&p)).unwrap();
    assert!(matches!(&r[0].status, ImportStatus::Failed(why) if why.contains("not one complete JSON document")), "{:?}", r[0].status);
    assert_eq!(entries(&st, DOC_ID), before);
    // Written whole again: imports (nothing new).
    std::fs::write(&p, &full).unwrap();
    assert_eq!(import_file(&st, &p, None).unwrap().status, ImportStatus::UpToDate);
}

/// A whole record on one line (what Gemini CLI's loader also accepts as the
/// first line), then a corrupt line and a message: the record's messages
/// are imported, the bad line is reported with its number, the rest loads.
#[test]
fn a_one_line_gemini_record_and_a_corrupt_line_in_the_middle() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("session-one-line.jsonl");
    let text = concat!(
        r#"{"sessionId":"d1d1d1d1-0000-4000-8000-000000000001","projectHash":"ab","startTime":"2026-05-01T00:00:00.000Z","lastUpdated":"2026-05-01T00:01:00.000Z","summary":"One line","messages":[{"id":"m1","timestamp":"2026-05-01T00:00:01.000Z","type":"user","content":"hello"},{"id":"m2","timestamp":"2026-05-01T00:00:02.000Z","type":"gemini","content":"hi","tokens":{"input":10,"output":2,"cached":0,"thoughts":1,"tool":0,"total":13},"model":"gemini-2.5-flash"}]}"#,
        "\n",
        r#"{"id":"m3","timestamp": not json}"#,
        "\n",
        r#"{"id":"m4","timestamp":"2026-05-01T00:00:04.000Z","type":"user","content":[{"text":"after"}]}"#,
        "\n",
    );
    std::fs::write(&p, text).unwrap();
    assert_eq!(classify_file(&p).unwrap(), FileKind::Session(SourceFormat::GeminiCli));
    let out = read_path(&p, None).unwrap();
    let s = &out.sessions[0];
    assert_eq!((s.id.as_str(), s.title.as_deref()), ("d1d1d1d1-0000-4000-8000-000000000001", Some("One line")));
    let got: Vec<(Role, Vec<&str>, u64)> = s.turns.iter().map(|t| (t.role, block_kinds(&t.blocks), t.source_line)).collect();
    assert_eq!(got, vec![(Role::User, vec!["text"], 1), (Role::Assistant, vec!["text"], 1), (Role::User, vec!["text"], 3)]);
    assert_eq!(s.usage.iter().map(|u| (u.input, u.output)).collect::<Vec<_>>(), [(10, 3)]);
    assert_eq!(out.report.skipped.iter().map(|k| (k.line, k.reason.name())).collect::<Vec<_>>(), [(2, "invalid_json")]);
    let a = out.report.line_account();
    assert_eq!((a.total(), a.in_session, a.unreadable), (3, m(&[("session", 1), ("message/user", 1)]), m(&[("invalid_json", 1)])));
}

#[test]
fn gemini_files_are_detected_and_other_json_is_not() {
    let d = tempfile::tempdir().unwrap();
    assert_eq!(classify_file(&data(JSONL)).unwrap(), FileKind::Session(SourceFormat::GeminiCli));
    assert_eq!(classify_file(&data(DOC)).unwrap(), FileKind::Session(SourceFormat::GeminiCli));
    assert_eq!(classify_file(&data(CHECKPOINT)).unwrap(), FileKind::Session(SourceFormat::GeminiCli));
    let w = |name: &str, text: &str| {
        let p = d.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p
    };
    // Pretty JSON that is not a conversation record, even under chats/.
    assert_eq!(classify_file(&w("chats/settings.json", "{\n  \"theme\": \"dark\",\n  \"sessionId\": \"x\"\n}\n")).unwrap(), FileKind::Unknown);
    assert_eq!(classify_file(&w("other.json", "{\n  \"messages\": []\n}")).unwrap(), FileKind::Unknown);
    // Gemini CLI's prompt log.
    let log = w(".gemini/tmp/proj/logs.json", "[\n  {\n    \"sessionId\": \"s\",\n    \"messageId\": 0,\n    \"type\": \"user\",\n    \"message\": \"hi\"\n  }\n]");
    assert_eq!(classify_file(&log).unwrap(), FileKind::NotSession("Gemini CLI prompt log (logs.json)"));
    // A Claude Code line (`sessionId`, no `projectHash`) stays Claude Code.
    let claude = w("c.jsonl", "{\"type\":\"user\",\"uuid\":\"u1\",\"sessionId\":\"c-1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
    assert_eq!(classify_file(&claude).unwrap(), FileKind::Session(SourceFormat::ClaudeCode));
    // A directory walk finds the JSONL and the JSON chat files under chats/.
    let chats = d.path().join("g/chats");
    std::fs::create_dir_all(chats.join("parent-id")).unwrap();
    copy(&chats, JSONL);
    copy(&chats, DOC);
    std::fs::copy(data(DOC), chats.join("parent-id/sub.json")).unwrap();
    std::fs::write(d.path().join("g/notes.json"), "{}").unwrap();
    let found: Vec<String> = portable::find_jsonl_files(&d.path().join("g")).unwrap().iter().map(|p| p.strip_prefix(d.path()).unwrap().display().to_string()).collect();
    assert_eq!(found, ["g/chats/parent-id/sub.json", &format!("g/chats/{DOC}"), &format!("g/chats/{JSONL}")]);
}

#[test]
fn export_of_an_imported_gemini_session_imports_back_to_the_same_entries() {
    for name in [JSONL, DOC] {
        let d = tempfile::tempdir().unwrap();
        let st = store(d.path());
        let id = import_file(&st, &copy(d.path(), name), None).unwrap().sessions[0].session_id.clone();
        let mut out = Vec::new();
        export_thclaws(&st, &id, &mut out).unwrap();
        let exported = d.path().join("exported.jsonl");
        std::fs::write(&exported, &out).unwrap();
        let d2 = tempfile::tempdir().unwrap();
        let st2 = store(d2.path());
        let r = import_file(&st2, &exported, None).unwrap();
        assert_eq!(r.format, Some(SourceFormat::Thclaws), "{name}");
        assert_eq!(r.sessions[0].session_id, id);
        // A block thClaws does not know (the `fileData` part) is exported as
        // text (DESIGN.md "Portable sessions"); everything else is equal.
        let file_data = r#"{"fileData":{"fileUri":"gs://bucket/report.pdf","mimeType":"application/pdf"}}"#;
        let as_text = format!(r#"{{"type":"text","text":{}}}"#, serde_json::Value::String(format!("[unknown block] {file_data}")));
        let expected: Vec<(String, String)> = entries(&st, &id).into_iter().map(|(r, c)| (r, c.replace(file_data, &as_text))).collect();
        assert_eq!(expected.iter().filter(|(_, c)| c.contains("[unknown block]")).count(), usize::from(name == JSONL));
        assert_eq!(entries(&st2, &id), expected, "{name}");
        let rec = st2.get_session(&id).unwrap();
        assert_eq!(rec.name, st.get_session(&id).unwrap().name, "{name}");
    }
}

#[test]
fn standard_locations_list_gemini_chats_under_gemini_cli_home_or_home() {
    let d = tempfile::tempdir().unwrap();
    let home = d.path().join("home");
    std::fs::create_dir_all(home.join(".gemini/tmp/my-proj/chats")).unwrap();
    // A folder with neither chats nor a prompt log (Gemini CLI's `tmp/bin`).
    std::fs::create_dir_all(home.join(".gemini/tmp/bin")).unwrap();
    let env = LocationEnv { home: home.clone(), codex_home: None, claude_config_dir: None, cwd: None, gemini_cli_home: None, xdg_data_home: None };
    let gem: Vec<(PathBuf, LocationKind, bool)> = standard_locations(&env).into_iter().filter(|l| l.agent == "Gemini CLI").map(|l| (l.path, l.kind, l.exists)).collect();
    let g = home.join(".gemini");
    assert_eq!(
        gem,
        vec![
            (g.join("tmp/my-proj/chats"), LocationKind::Sessions, true),
            (g.join("tmp/my-proj/logs.json"), LocationKind::NotSession, false),
            (g.join("settings.json"), LocationKind::NotSession, false),
        ]
    );
    // `$GEMINI_CLI_HOME` replaces the home directory; nothing under it yet.
    let alt = d.path().join("alt");
    let env = LocationEnv { gemini_cli_home: Some(alt.clone()), ..env };
    let gem: Vec<PathBuf> = standard_locations(&env).into_iter().filter(|l| l.agent == "Gemini CLI").map(|l| l.path).collect();
    assert_eq!(gem, vec![alt.join(".gemini/tmp"), alt.join(".gemini/settings.json")]);
}

/// Every prefix of each fixture (a file cut at any byte, as a reader racing
/// a writer sees it), read whole and resumed at every line: no panic; a
/// JSONL's lines are each accounted for once; a cut JSON document is an
/// `InvalidInput` error (it parses only whole).
#[test]
fn every_cut_of_a_gemini_file_reads_without_panic_and_accounts_for_every_line() {
    use sessiondb::portable::{read_stream, Collector, ReadOptions};
    for name in [JSONL, CHECKPOINT, DOC] {
        let bytes = std::fs::read(data(name)).unwrap();
        for cut in 0..=bytes.len() {
            let part = &bytes[..cut];
            let lines = part.iter().filter(|c| **c == b'\n').count() as u64 + u64::from(part.last().is_some_and(|c| *c != b'\n'));
            for from in [0, 2, lines.max(1)] {
                let mut sink = Collector::new(SourceFormat::GeminiCli, None);
                let opts = ReadOptions { emit_from_line: from, ..Default::default() };
                match read_stream(SourceFormat::GeminiCli, part, &opts, &mut sink) {
                    Ok(rep) => {
                        assert_eq!(rep.lines, lines, "{name} cut at {cut}");
                        assert_eq!(rep.line_account().total(), lines, "{name} cut at {cut} from line {from}: {:?}", rep.line_account());
                    }
                    Err(e) => {
                        assert_eq!((name, e.kind()), (DOC, ErrorKind::InvalidInput), "{name} cut at {cut}: {e}");
                        assert!(cut < bytes.len(), "the whole document parses");
                    }
                }
            }
        }
    }
}

/// The working directory: Gemini CLI's `<project>/.project_root` marker
/// beside the chats when there is one, else the entry of `directories`
/// whose SHA-256 is the `projectHash` (checked, never inverted), else
/// `directories[0]`.
#[test]
fn the_working_directory_is_the_project_root_marker_else_the_directory_of_the_project_hash() {
    let d = tempfile::tempdir().unwrap();
    let st = store(d.path());
    // sha256("/w/root") = e237a2...
    let meta = r#"{"sessionId":"e0e0e0e0-0000-4000-8000-00000000000e","projectHash":"e237a221e4da0523beebbac0d43c0b01c75ae3b46eb1152978bc78556ab3bc16","startTime":"2026-05-01T00:00:00.000Z","lastUpdated":"2026-05-01T00:00:00.000Z","directories":["/w/lib","/w/root"]}"#;
    let msg = r#"{"id":"x1","timestamp":"2026-05-01T00:00:01.000Z","type":"user","content":"hi"}"#;
    let p = d.path().join("loose.jsonl");
    std::fs::write(&p, format!("{meta}\n{msg}\n")).unwrap();
    assert_eq!(read_path(&p, None).unwrap().sessions[0].cwd.as_deref(), Some("/w/root"), "the directory whose hash is projectHash");
    // In a project folder with its marker: the marker.
    let chats = d.path().join("tmp/my-proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(d.path().join("tmp/my-proj/.project_root"), "/home/dev/real-root").unwrap();
    let p = copy(&chats, JSONL);
    let s = &read_path(&p, None).unwrap().sessions[0];
    assert_eq!((s.cwd.as_deref(), s.source.extra["gemini_project_root"].as_str()), (Some("/home/dev/real-root"), Some("/home/dev/real-root")));
    import_file(&st, &p, None).unwrap();
    assert_eq!(st.get_session(JSONL_ID).unwrap().workspace_path.as_deref(), Some("/home/dev/real-root"));
    // A subagent's chat one folder below: the same marker.
    std::fs::create_dir_all(chats.join("parent-id")).unwrap();
    let sub = chats.join("parent-id/sub.jsonl");
    std::fs::write(&sub, format!("{meta}\n{msg}\n")).unwrap();
    assert_eq!(portable::gemini::project_root_marker(&sub).as_deref(), Some("/home/dev/real-root"));
    // No marker, no directories: no working directory.
    assert_eq!(read_path(&data(CHECKPOINT), None).unwrap().sessions[0].cwd, None);
}

/// A message with nothing in it (an empty `user` content, a `gemini`
/// message with no content, thoughts, calls or tokens) is no turn: its line
/// is counted as not imported.
#[test]
fn an_empty_gemini_message_is_counted_not_imported() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("empty.jsonl");
    std::fs::write(
        &p,
        concat!(
            r#"{"sessionId":"f0f0f0f0-0000-4000-8000-00000000000f","projectHash":"ab","startTime":"2026-05-01T00:00:00.000Z","lastUpdated":"2026-05-01T00:00:00.000Z"}"#, "\n",
            r#"{"id":"e1","timestamp":"2026-05-01T00:00:01.000Z","type":"user","content":[]}"#, "\n",
            r#"{"id":"e2","timestamp":"2026-05-01T00:00:02.000Z","type":"gemini","content":"","thoughts":[],"tokens":null,"model":"gemini-2.5-pro"}"#, "\n",
            r#"{"id":"e3","timestamp":"2026-05-01T00:00:03.000Z","type":"user","content":"real"}"#, "\n",
        ),
    )
    .unwrap();
    let out = read_path(&p, None).unwrap();
    assert_eq!(out.sessions[0].turns.len(), 1);
    let a = out.report.line_account();
    assert_eq!((a.total(), a.in_session.clone(), a.not_imported.clone()), (4, m(&[("session", 1), ("message/user", 1)]), m(&[("message/user", 1), ("message/gemini", 1)])));
}

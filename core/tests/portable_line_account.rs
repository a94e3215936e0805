//! Every line accounted for (issue 28 item 8): each reader's report puts
//! every source line in one place (`ReadReport::line_account`: in the
//! session by kind, kept raw, not imported by kind, unreadable by reason,
//! blank, or already imported), and the places add up to the file's line
//! count. Handmade files in each format with exact counts per kind, then
//! every sample of `../shared/samples` (see its README; never copied into
//! the project; skipped with a SKIP line when absent).

use sessiondb::portable::{self, read_path, LineAccount, SourceFormat};
use sessiondb::{DataKey, KeySource, OpenOptions, SessionStore};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `\n`-separated lines of a file, a last line without `\n` included:
/// counted here independently of the readers.
fn line_count(p: &Path) -> u64 {
    let b = std::fs::read(p).unwrap();
    let n = b.iter().filter(|c| **c == b'\n').count() as u64;
    n + u64::from(b.last().is_some_and(|c| *c != b'\n'))
}

fn m(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Read `p` as `format`; the account, checked against the file's line count.
fn account(p: &Path, format: SourceFormat) -> LineAccount {
    let out = read_path(p, Some(format)).unwrap();
    let a = out.report.line_account();
    assert_eq!(out.report.lines, line_count(p), "{}", p.display());
    assert_eq!(a.total(), line_count(p), "{}: {a:?}", p.display());
    a
}

/// Write `text` to `dir/name`, each `@FF@` as the byte 0xFF (invalid UTF-8).
fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    let mut bytes = Vec::new();
    for (i, part) in text.split("@FF@").enumerate() {
        if i > 0 {
            bytes.push(0xFF);
        }
        bytes.extend_from_slice(part.as_bytes());
    }
    std::fs::write(&p, bytes).unwrap();
    p
}

/// A thClaws file with every place a line can go: 12 lines.
fn thclaws_file(dir: &Path) -> PathBuf {
    write(dir, "t.jsonl", concat!(
        r#"{"type":"header","id":"sess-la","model":"openai/gpt-5","cwd":"/w","created_at":1767225600}"#, "\n",
        r#"{"type":"rename","title":"Counting"}"#, "\n",
        r#"{"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1767225601}"#, "\n",
        "\n",
        r#"{"type":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":1767225602}"#, "\n",
        r#"{"type":"plan_snapshot","plan":{"steps":[]}}"#, "\n",
        r#"{"type":"future_kind","x":1}"#, "\n",
        r#"{"type":"user","content":[{"type":"text","text":"again"}],"timestamp":1767225603}"#, "\n",
        "not json\n",
        r#"[1,2]"#, "\n",
        r#"{"type":"compaction","messages":[{"role":"user","content":[{"type":"text","text":"sum"}]}],"replaces_count":2}"#, "\n",
        r#"{"type":"user","content":[{"type":"te"#,
    ))
}

/// A Codex rollout with every place a line can go: 15 lines.
fn codex_file(dir: &Path) -> PathBuf {
    write(dir, "rollout-2026-01-01T00-00-00-0199aaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl", concat!(
        r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"0199aaaa-bbbb-cccc-dddd-eeeeeeeeeeee","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.120.0","model_provider":"openai"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-codex"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"task_started"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"user_message","message":"list files"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_1"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"a.txt"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:05.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a.txt"}]}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:05.000Z","type":"event_msg","payload":{"type":"agent_message","message":"a.txt"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:06.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:06.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":3}}}}"#, "\n",
        "\n",
        r#"{"timestamp":"2026-01-01T00:00:07.000Z","type":"future_line","payload":{"type":"x"}}"#, "\n",
        r#"{"timestamp":"2026-01-01T00:00:08.000Z","type":"event_msg","payload":{"type":"task_complete"}}"#, "\n",
        "\"just a string\"\n",
    ))
}

/// A Claude Code transcript with every place a line can go: 10 lines.
fn claude_file(dir: &Path) -> PathBuf {
    write(dir, "c.jsonl", concat!(
        r#"{"type":"summary","summary":"Counting lines","leafUuid":"u2"}"#, "\n",
        r#"{"type":"file-history-snapshot","messageId":"m0","snapshot":{}}"#, "\n",
        r#"{"type":"user","uuid":"u1","sessionId":"c-1","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#, "\n",
        r#"{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"c-1","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4","content":[{"type":"thinking","thinking":"hm","signature":"s"}],"usage":{"input_tokens":5,"output_tokens":1}}}"#, "\n",
        r#"{"type":"assistant","uuid":"u3","parentUuid":"u2","sessionId":"c-1","timestamp":"2026-01-01T00:00:01.500Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"hello"}],"usage":{"input_tokens":5,"output_tokens":2}}}"#, "\n",
        r#"{"type":"progress","uuid":"p1","sessionId":"c-1","timestamp":"2026-01-01T00:00:02.000Z","data":{}}"#, "\n",
        r#"{"type":"system","subtype":"turn_duration","uuid":"s1","sessionId":"c-1","timestamp":"2026-01-01T00:00:03.000Z","durationMs":2000}"#, "\n",
        r#"{"type":"x-new-kind","sessionId":"c-1"}"#, "\n",
        "\n",
        "{\"type\":\"user\",\"message\":\"@FF@\"}\n",
    ))
}

#[test]
fn thclaws_every_line_is_in_the_session_kept_skipped_or_blank() {
    let d = tempfile::tempdir().unwrap();
    let a = account(&thclaws_file(d.path()), SourceFormat::Thclaws);
    assert_eq!(
        a,
        LineAccount {
            in_session: m(&[("assistant", 1), ("compaction", 1), ("header", 1), ("plan_snapshot", 1), ("rename", 1), ("user", 2)]),
            kept_raw: m(&[("future_kind", 1)]),
            not_imported: m(&[]),
            unreadable: m(&[("invalid_json", 1), ("not_an_object", 1), ("torn_tail", 1)]),
            blank: 1,
            already_imported: 0,
        }
    );
    assert_eq!(a.total(), 12);
}

#[test]
fn codex_every_line_is_in_the_session_kept_skipped_or_blank() {
    let d = tempfile::tempdir().unwrap();
    let a = account(&codex_file(d.path()), SourceFormat::Codex);
    assert_eq!(
        a,
        LineAccount {
            in_session: m(&[
                ("event_msg/token_count", 1),
                ("response_item/function_call", 1),
                ("response_item/function_call_output", 1),
                ("response_item/message", 2),
                ("session_meta", 1),
            ]),
            kept_raw: m(&[("future_line", 1)]),
            // The agent_message and user_message copy the message items; the
            // second token_count repeats the first total.
            not_imported: m(&[
                ("event_msg/agent_message", 1),
                ("event_msg/task_complete", 1),
                ("event_msg/task_started", 1),
                ("event_msg/token_count", 1),
                ("event_msg/user_message", 1),
                ("turn_context", 1),
            ]),
            unreadable: m(&[("not_an_object", 1)]),
            blank: 1,
            already_imported: 0,
        }
    );
    assert_eq!(a.total(), 15);
}

#[test]
fn claude_code_every_line_is_in_the_session_kept_skipped_or_blank() {
    let d = tempfile::tempdir().unwrap();
    let a = account(&claude_file(d.path()), SourceFormat::ClaudeCode);
    assert_eq!(
        a,
        LineAccount {
            // Two assistant lines of one message id: one entry, both lines in it.
            in_session: m(&[("assistant", 2), ("summary", 1), ("user", 1)]),
            kept_raw: m(&[("system/turn_duration", 1), ("x-new-kind", 1)]),
            not_imported: m(&[("file-history-snapshot", 1), ("progress", 1)]),
            unreadable: m(&[("invalid_utf8", 1)]),
            blank: 1,
            already_imported: 0,
        }
    );
    assert_eq!(a.total(), 10);
}

/// A resumed import counts the lines of the earlier import once, as
/// already imported, and the new ones by kind.
#[test]
fn a_grown_file_counts_earlier_lines_as_already_imported() {
    let d = tempfile::tempdir().unwrap();
    let s = SessionStore::open(OpenOptions::at(d.path().join("s.db"), KeySource::Bytes(DataKey::from_bytes(&[3; 32]).unwrap()))).unwrap();
    for (name, format, grow) in [
        ("g.jsonl", SourceFormat::Thclaws, r#"{"type":"user","content":[{"type":"text","text":"more"}],"timestamp":1767225700}"#),
        ("c.jsonl", SourceFormat::ClaudeCode, r#"{"type":"user","uuid":"u9","sessionId":"c-1","timestamp":"2026-01-01T00:01:00.000Z","message":{"role":"user","content":"more"}}"#),
    ] {
        let p = match format {
            SourceFormat::Thclaws => write(d.path(), name, concat!(
                r#"{"type":"header","id":"sess-grow","created_at":1767225600}"#, "\n",
                r#"{"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1767225601}"#, "\n",
                "\n",
                r#"{"type":"assistant","content":[{"type":"text","text":"hello"}],"timestamp":1767225602}"#, "\n",
            )),
            _ => write(d.path(), name, concat!(
                r#"{"type":"user","uuid":"u1","sessionId":"c-1","cwd":"/w","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#, "\n",
                r#"{"type":"progress","uuid":"p1","sessionId":"c-1","timestamp":"2026-01-01T00:00:02.000Z","data":{}}"#, "\n",
                "\n",
                r#"{"type":"assistant","uuid":"u2","parentUuid":"u1","sessionId":"c-1","timestamp":"2026-01-01T00:00:01.000Z","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"hello"}]}}"#, "\n",
            )),
        };
        let first = portable::import_file(&s, &p, Some(format)).unwrap().read.unwrap().line_account();
        assert_eq!(first.total(), 4, "{name}");
        let mut f = std::fs::OpenOptions::new().append(true).open(&p).unwrap();
        std::io::Write::write_all(&mut f, format!("{grow}\n").as_bytes()).unwrap();
        let rep = portable::import_file(&s, &p, Some(format)).unwrap();
        assert_eq!(rep.from_line, 5, "{name}");
        let read = rep.read.unwrap();
        let a = read.line_account();
        assert_eq!((read.lines, a.total()), (5, 5), "{name}: {a:?}");
        match format {
            // Line 1 (the header) is read again for the session's facts;
            // the blank line is blank whenever it is read.
            SourceFormat::Thclaws => assert_eq!((a.in_session, a.blank, a.already_imported), (m(&[("header", 1), ("user", 1)]), 1, 2), "{name}"),
            _ => assert_eq!((a.in_session, a.blank, a.already_imported), (m(&[("user", 1)]), 1, 3), "{name}"),
        }
    }
}

/// Every sample of one format: each line accounted for (sum = line count),
/// with the figures printed (`--nocapture`).
/// `expected`: per file (path under the samples folder), its line count and
/// the lines in the session, not imported and kept raw (no sample has
/// unreadable or blank lines).
fn samples_of(dir: &str, format: SourceFormat, expected: &[(&str, u64, u64, u64, u64)]) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/samples");
    if !root.join("README.md").exists() {
        eprintln!("SKIP: real session samples not found at {} (they live beside the repo, never in it)", root.display());
        return;
    }
    let mut files = Vec::new();
    let mut dirs = vec![root.join(dir)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    files.sort();
    let sum = |m: &BTreeMap<String, u64>| m.values().sum::<u64>();
    let mut seen = Vec::new();
    for p in files {
        let a = account(&p, format);
        let name = p.strip_prefix(&root).unwrap().display().to_string();
        println!("{name} lines={} account={a:?}", line_count(&p));
        assert_eq!((a.unreadable.len(), a.blank, a.already_imported), (0, 0, 0), "{name}");
        seen.push((name, line_count(&p), sum(&a.in_session), sum(&a.not_imported), sum(&a.kept_raw)));
    }
    let expected: Vec<_> = expected.iter().map(|(n, l, i, x, k)| (n.to_string(), *l, *i, *x, *k)).collect();
    assert_eq!(seen, expected);
}

#[test]
fn thclaws_samples_every_line_accounted_for() {
    samples_of(
        "thclaws",
        SourceFormat::Thclaws,
        &[
            ("thclaws/apcball_sess-18b0083aead7f4d7.jsonl", 11, 11, 0, 0),
            ("thclaws/apcball_sess-18b0133eac539936.jsonl", 116, 116, 0, 0),
            ("thclaws/athena_sess-18b1e2cdf829bd8c.jsonl", 3, 3, 0, 0),
        ],
    );
}

#[test]
fn codex_samples_every_line_accounted_for() {
    samples_of(
        "codex",
        SourceFormat::Codex,
        &[
            ("codex/excerpts/localpush_rollout-2026-02-23T12-54-34_lines1780-1796_compacted.jsonl", 17, 9, 8, 0),
            ("codex/localpush_rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl", 63, 36, 27, 0),
        ],
    );
}

#[test]
fn claude_code_samples_every_line_accounted_for() {
    samples_of(
        "claude-code",
        SourceFormat::ClaudeCode,
        &[
            ("claude-code/claude-code-viewer_5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl", 53, 53, 0, 0),
            ("claude-code/excerpts/claude-code-viewer_fe5e1c67_lines1-8_summary.jsonl", 8, 8, 0, 0),
            ("claude-code/spotter_short.jsonl", 15, 11, 4, 0),
            ("claude-code/spotter_tool_heavy.jsonl", 39, 24, 15, 0),
        ],
    );
}

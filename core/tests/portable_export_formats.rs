//! Readable exports (issue 28 item 7; DESIGN.md "Portable sessions",
//! "Privacy"): `ExportFormat::Markdown` (a transcript to share, redacted
//! unless told not to) and `ExportFormat::Json` (the neutral model as one
//! document), over a handmade thClaws session with a user turn, thinking, a
//! code block holding a ``` run, a tool call and its output, and an AWS key.
use sessiondb::portable::{self, ExportFormat, SourceFormat};
use sessiondb::privacy::RedactPolicy;
use sessiondb::*;

/// An AWS access key id of gitleaks' own test cases (rule `aws-access-token`).
const AWS: &str = "AKIALALEMEL33243OLIB";

fn open(p: &std::path::Path, redact: RedactPolicy) -> SessionStore {
    SessionStore::open(OpenOptions { redact, ..OpenOptions::at(p, KeySource::Bytes(DataKey::from_bytes(&std::array::from_fn::<u8, 32, _>(|i| i as u8)).unwrap())) }).unwrap()
}

/// The handmade session: thClaws JSONL, times in Unix seconds.
fn session_file(dir: &std::path::Path) -> std::path::PathBuf {
    let lines = [
        serde_json::json!({"type": "header", "id": "sess-md", "model": "anthropic/claude-sonnet-4", "cwd": "/w/p", "created_at": 1767225600}),
        serde_json::json!({"type": "rename", "title": "Fix the <build>"}),
        serde_json::json!({"type": "user", "content": [{"type": "text", "text": format!("Deploy with key {AWS}, please.")}], "timestamp": 1767225601}),
        serde_json::json!({"type": "assistant", "content": [
            {"type": "thinking", "content": "The user wants a deploy.\nCheck the script first."},
            {"type": "text", "text": "Here is the script:\n\n````sh\necho '```'\n````\n"},
            {"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls ```"}}
        ], "timestamp": 1767225602}),
        serde_json::json!({"type": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": format!("deploy.sh\nAWS={AWS}")}], "timestamp": 1767225603}),
        serde_json::json!({"type": "assistant", "content": [{"type": "text", "text": "Done."}], "timestamp": 1767225604}),
    ];
    let p = dir.join("sess-md.jsonl");
    std::fs::write(&p, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    p
}

fn store_with_session(policy: RedactPolicy) -> (tempfile::TempDir, SessionStore) {
    let d = tempfile::tempdir().unwrap();
    let s = open(&d.path().join("s.db"), policy);
    let f = session_file(d.path());
    let r = portable::import_file(&s, &f, Some(SourceFormat::Thclaws)).unwrap();
    assert_eq!(r.sessions[0].entries, 4);
    (d, s)
}

fn export(s: &SessionStore, format: ExportFormat, redact: Option<bool>) -> (String, u64) {
    let mut out = Vec::new();
    let (bytes, rep) = portable::export_session(s, "sess-md", format, redact, &mut out).unwrap();
    assert_eq!(bytes, out.len() as u64);
    (String::from_utf8(out).unwrap(), rep.total())
}

/// The Markdown of the handmade session, `marker` in place of each secret.
fn expected_markdown(secret: &str) -> String {
    format!(
        r#"# Fix the &lt;build&gt;

- session: `sess-md`
- model: anthropic/claude-sonnet-4
- created: 2026-01-01T00:00:00Z

## User · 2026-01-01T00:00:01Z · #1

Deploy with key {secret}, please.

## Assistant · 2026-01-01T00:00:02Z · #2

<details><summary>Thinking</summary>

```
The user wants a deploy.
Check the script first.
```

</details>

Here is the script:

````sh
echo '```'
````

<details><summary>Bash</summary>

````json
{{
  "command": "ls ```"
}}
````

</details>

## Tool · 2026-01-01T00:00:03Z · #3

<details><summary>Bash output</summary>

```
deploy.sh
AWS={secret}
```

</details>

## Assistant · 2026-01-01T00:00:04Z · #4

Done.
"#
    )
}

/// The marker of [`AWS`] under this test's key (keyed by the data key).
const MARKER: &str = "[REDACTED:aws-access-token:998170a8]";

#[test]
fn markdown_export_is_a_readable_redacted_transcript() {
    let (_d, s) = store_with_session(RedactPolicy::Off);
    let (md, n) = export(&s, ExportFormat::Markdown, None);
    assert_eq!(md, expected_markdown(MARKER));
    assert_eq!(n, 2);
}

#[test]
fn markdown_export_with_no_redact_keeps_the_secret() {
    let (_d, s) = store_with_session(RedactPolicy::Off);
    let (md, n) = export(&s, ExportFormat::Markdown, Some(false));
    assert_eq!(md, expected_markdown(AWS));
    assert_eq!(n, 0);
}

/// The JSON document of the handmade session, `secret` for each secret.
fn expected_json(secret: &str) -> serde_json::Value {
    serde_json::json!({
        "compactions": [],
        "created_at_ms": 1767225600000_i64,
        "cwd": "/w/p",
        "id": "sess-md",
        "model": "anthropic/claude-sonnet-4",
        "provider": "anthropic",
        "provider_state": null,
        "snapshots": [],
        "title": "Fix the <build>",
        "turns": [
            {"blocks": [{"text": format!("Deploy with key {secret}, please."), "type": "text"}],
             "extra": {}, "model": null, "provider": null, "role": "user", "seq": 1, "timestamp_ms": 1767225601000_i64},
            {"blocks": [
                {"content": "The user wants a deploy.\nCheck the script first.", "type": "thinking"},
                {"text": "Here is the script:\n\n````sh\necho '```'\n````\n", "type": "text"},
                {"id": "call_1", "input": {"command": "ls ```"}, "name": "Bash", "type": "tool_use"}
             ],
             "extra": {}, "model": "anthropic/claude-sonnet-4", "provider": "anthropic", "role": "assistant", "seq": 2, "timestamp_ms": 1767225602000_i64},
            {"blocks": [{"content": format!("deploy.sh\nAWS={secret}"), "tool_use_id": "call_1", "type": "tool_result"}],
             "extra": {}, "model": null, "provider": null, "role": "user", "seq": 3, "timestamp_ms": 1767225603000_i64},
            {"blocks": [{"text": "Done.", "type": "text"}],
             "extra": {}, "model": "anthropic/claude-sonnet-4", "provider": "anthropic", "role": "assistant", "seq": 4, "timestamp_ms": 1767225604000_i64}
        ]
    })
}

/// JSON: one pretty-printed document (two-space indent, keys sorted, final
/// newline), exact with the default policy.
#[test]
fn json_export_is_the_neutral_model_as_one_document() {
    let (_d, s) = store_with_session(RedactPolicy::Off);
    let (text, n) = export(&s, ExportFormat::Json, None);
    assert_eq!(n, 0);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v, expected_json(AWS));
    assert_eq!(text, format!("{}\n", serde_json::to_string_pretty(&expected_json(AWS)).unwrap()));
    assert!(text.starts_with("{\n  \"compactions\": [],\n  \"created_at_ms\": 1767225600000,\n"), "{text}");
    // What write_thclaws_json takes: the document converts back to thClaws
    // JSONL, which imports as the same four entries.
    let jsonl = portable::write_thclaws_json(&v).unwrap();
    let d = tempfile::tempdir().unwrap();
    let t = open(&d.path().join("t.db"), RedactPolicy::Off);
    let f = d.path().join("back.jsonl");
    std::fs::write(&f, jsonl).unwrap();
    let r = portable::import_file(&t, &f, Some(SourceFormat::Thclaws)).unwrap();
    assert_eq!((r.sessions[0].session_id.as_str(), r.sessions[0].entries, r.sessions[0].tool_calls, r.sessions[0].tool_results), ("sess-md", 4, 1, 1));
}

/// JSON and thClaws follow the store's policy: redacted with on-export,
/// exact again with `redact = Some(false)`.
#[test]
fn json_and_thclaws_exports_redact_only_by_policy() {
    let (_d, s) = store_with_session(RedactPolicy::OnExport);
    let (text, n) = export(&s, ExportFormat::Json, None);
    assert_eq!((serde_json::from_str::<serde_json::Value>(&text).unwrap(), n), (expected_json(MARKER), 2));
    let (text, n) = export(&s, ExportFormat::Json, Some(false));
    assert_eq!((serde_json::from_str::<serde_json::Value>(&text).unwrap(), n), (expected_json(AWS), 0));
    let (jsonl, n) = export(&s, ExportFormat::Thclaws, None);
    assert_eq!((jsonl.matches(MARKER).count(), jsonl.contains(AWS), n), (2, false, 2));
    assert_eq!(portable::export_text(&s, "sess-md", None).unwrap(), jsonl);
}

/// `export_text` (every host's `export_thclaws(id, format)`) and
/// `export_file` give the same text as `export_session` with the format's
/// default redaction; `export_file` reports lines, bytes and turns.
#[test]
fn export_text_and_file_take_the_format() {
    let (d, s) = store_with_session(RedactPolicy::Off);
    assert_eq!(portable::export_text(&s, "sess-md", Some(ExportFormat::Markdown)).unwrap(), expected_markdown(MARKER));
    let json = portable::export_text(&s, "sess-md", Some(ExportFormat::Json)).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap(), expected_json(AWS));
    let p = d.path().join("out.md");
    let w = portable::export_file(&s, "sess-md", &p, Some(ExportFormat::Markdown)).unwrap();
    let md = expected_markdown(MARKER);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), md);
    assert_eq!((w.lines, w.bytes, w.turns), (md.matches('\n').count() as u64, md.len() as u64, 4));
    // thClaws: header, four turns, the title, and the (empty) plan and goal snapshots.
    let w = portable::export_file(&s, "sess-md", &p, None).unwrap();
    let jsonl = std::fs::read_to_string(&p).unwrap();
    assert_eq!((w.lines, w.turns, jsonl.lines().count()), (8, 4, 8));
    let types: Vec<String> = jsonl.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["type"].as_str().unwrap().to_owned()).collect();
    assert_eq!(types, ["header", "plan_snapshot", "goal_snapshot", "user", "assistant", "user", "assistant", "rename"]);
    assert_eq!(jsonl, portable::export_text(&s, "sess-md", None).unwrap());
}

/// Format names: `thclaws`/`jsonl`, `markdown`/`md`, `json`; anything else
/// is `InvalidInput` naming the choices.
#[test]
fn export_format_names_parse_and_a_bad_one_is_invalid_input() {
    for (name, f) in [("thclaws", ExportFormat::Thclaws), ("jsonl", ExportFormat::Thclaws), ("markdown", ExportFormat::Markdown), ("md", ExportFormat::Markdown), ("json", ExportFormat::Json)] {
        assert_eq!(ExportFormat::parse(name).unwrap(), f);
    }
    assert_eq!([ExportFormat::Thclaws, ExportFormat::Markdown, ExportFormat::Json].map(ExportFormat::as_str), ["thclaws", "markdown", "json"]);
    let e = ExportFormat::parse("html").unwrap_err();
    assert_eq!((e.kind(), e.to_string().contains("thclaws, markdown (md), json")), (ErrorKind::InvalidInput, true), "{e}");
}

/// Fences: one backtick longer than the longest run inside, at least three.
#[test]
fn a_tool_output_with_long_backtick_runs_gets_a_longer_fence() {
    let mut s = portable::PortableSession { id: "x".into(), ..Default::default() };
    let mut t = portable::Turn::new(portable::Role::Tool, vec![portable::Block::ToolResult { tool_use_id: "c".into(), content: serde_json::json!("a ````` b"), is_error: true }], None, 1);
    t.model = None;
    s.turns.push(t);
    assert_eq!(portable::write_markdown(&s), "# x\n\n- session: `x`\n\n## Tool · #1\n\n<details><summary>tool error</summary>\n\n``````\na ````` b\n``````\n\n</details>\n");
}

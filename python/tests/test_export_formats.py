"""Readable exports (issue 28 item 7): ``export_thclaws(session_id, format)``
with ``markdown`` (a transcript to share, secrets redacted) and ``json``
(the neutral model as one document); thClaws JSONL stays the default. The
same handmade session and exact texts as core/tests/portable_export_formats.rs
(the same key, so the same redaction marker)."""

import json

import pytest

import sessiondb

AWS = "AKIALALEMEL33243OLIB"
MARKER = "[REDACTED:aws-access-token:998170a8]"

LINES = [
    {"type": "header", "id": "sess-md", "model": "anthropic/claude-sonnet-4", "cwd": "/w/p", "created_at": 1767225600},
    {"type": "rename", "title": "Fix the <build>"},
    {"type": "user", "content": [{"type": "text", "text": f"Deploy with key {AWS}, please."}], "timestamp": 1767225601},
    {
        "type": "assistant",
        "content": [
            {"type": "thinking", "content": "The user wants a deploy.\nCheck the script first."},
            {"type": "text", "text": "Here is the script:\n\n````sh\necho '```'\n````\n"},
            {"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls ```"}},
        ],
        "timestamp": 1767225602,
    },
    {"type": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": f"deploy.sh\nAWS={AWS}"}], "timestamp": 1767225603},
    {"type": "assistant", "content": [{"type": "text", "text": "Done."}], "timestamp": 1767225604},
]

MARKDOWN = f"""# Fix the &lt;build&gt;

- session: `sess-md`
- model: anthropic/claude-sonnet-4
- created: 2026-01-01T00:00:00Z

## User · 2026-01-01T00:00:01Z · #1

Deploy with key {MARKER}, please.

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
AWS={MARKER}
```

</details>

## Assistant · 2026-01-01T00:00:04Z · #4

Done.
"""

MODEL = {"model": "anthropic/claude-sonnet-4", "provider": "anthropic"}
NONE = {"model": None, "provider": None}
DOCUMENT = {
    "compactions": [],
    "created_at_ms": 1767225600000,
    "cwd": "/w/p",
    "id": "sess-md",
    "model": "anthropic/claude-sonnet-4",
    "provider": "anthropic",
    "provider_state": None,
    "snapshots": [],
    "title": "Fix the <build>",
    "turns": [
        {"blocks": [{"text": f"Deploy with key {AWS}, please.", "type": "text"}], "extra": {}, **NONE, "role": "user", "seq": 1, "timestamp_ms": 1767225601000},
        {
            "blocks": [
                {"content": "The user wants a deploy.\nCheck the script first.", "type": "thinking"},
                {"text": "Here is the script:\n\n````sh\necho '```'\n````\n", "type": "text"},
                {"id": "call_1", "input": {"command": "ls ```"}, "name": "Bash", "type": "tool_use"},
            ],
            "extra": {}, **MODEL, "role": "assistant", "seq": 2, "timestamp_ms": 1767225602000,
        },
        {"blocks": [{"content": f"deploy.sh\nAWS={AWS}", "tool_use_id": "call_1", "type": "tool_result"}], "extra": {}, **NONE, "role": "user", "seq": 3, "timestamp_ms": 1767225603000},
        {"blocks": [{"text": "Done.", "type": "text"}], "extra": {}, **MODEL, "role": "assistant", "seq": 4, "timestamp_ms": 1767225604000},
    ],
}


@pytest.fixture
def session(store, tmp_path):
    f = tmp_path / "sess-md.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    rep = store.import_file(str(f), "thclaws")
    assert rep.sessions[0].entries == 4
    return "sess-md"


def test_markdown_export_is_the_exact_redacted_transcript(store, session):
    assert store.export_thclaws(session, "markdown") == MARKDOWN
    assert store.export_thclaws(session, format="markdown") == MARKDOWN


def test_json_export_is_the_neutral_model_as_one_document(store, session):
    text = store.export_thclaws(session, "json")
    assert json.loads(text) == DOCUMENT
    assert text == json.dumps(DOCUMENT, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_thclaws_stays_the_default(store, session):
    text = store.export_thclaws(session)
    assert text == store.export_thclaws(session, "thclaws")
    assert [json.loads(x)["type"] for x in text.splitlines()] == ["header", "plan_snapshot", "goal_snapshot", "user", "assistant", "user", "assistant", "rename"]
    assert AWS in text


def test_export_to_file_takes_the_format(store, session, tmp_path):
    out = tmp_path / "out.md"
    rep = store.export_thclaws_to_file(session, str(out), "markdown")
    assert out.read_text(encoding="utf-8") == MARKDOWN
    assert (rep.lines, rep.bytes, rep.turns) == (MARKDOWN.count("\n"), len(MARKDOWN.encode()), 4)


def test_an_unknown_format_is_invalid_input(store, session):
    with pytest.raises(sessiondb.InvalidInputError, match="thclaws, markdown \\(md\\), json"):
        store.export_thclaws(session, "html")

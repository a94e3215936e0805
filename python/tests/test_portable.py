"""Portable sessions: export to thClaws JSONL, import it back, fork."""

import json

import pytest

import sessiondb


def test_export_import_round_trip_and_fork(store, tmp_path):
    s = store.create_session("portable", id="p1", model="claude-sonnet-4-6", provider="anthropic")
    store.append_transcript(s.id, "user", "hello")
    store.append_transcript(s.id, "assistant", "hi there")
    text = store.export_thclaws(s.id)
    lines = [json.loads(x) for x in text.splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["id"] == "p1"
    turns = [(x["type"], x["content"][0]["text"]) for x in lines if x["type"] in ("user", "assistant")]
    assert turns == [("user", "hello"), ("assistant", "hi there")]
    assert lines[-1] == {"type": "rename", "title": "portable", "timestamp": lines[-1]["timestamp"]}
    f = tmp_path / "p1.jsonl"
    f.write_text(text, encoding="utf-8")
    store.delete_session(s.id)
    rep = store.import_file(str(f), "thclaws")
    assert isinstance(rep, sessiondb.FileImport)
    assert (rep.path, rep.format, rep.status, rep.error, rep.from_line) == (str(f), "thclaws", "imported", None, 1)
    (si,) = rep.sessions
    assert isinstance(si, sessiondb.SessionImport)
    assert si.to_dict() == {
        "session_id": "p1",
        "created": True,
        "entries": 2,
        "tool_calls": 0,
        "tool_results": 0,
        "usage_records": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cached_tokens": 0,
        "context_extensions": 3,
        "skipped_already_stored": 0,
    }
    assert repr(si).startswith("SessionImport(session_id='p1', created=True, entries=2, ")
    r = rep.read
    assert isinstance(r, sessiondb.ReadReport)
    assert (r.format, r.lines, r.bytes, r.skipped, r.missing_final_newline, r.blank_lines) == (
        "thclaws",
        len(lines),
        len(text.encode("utf-8")),
        [],
        False,
        0,
    )
    assert r.kinds == {"header": 1, "plan_snapshot": 1, "goal_snapshot": 1, "user": 1, "assistant": 1, "rename": 1}
    assert (r.not_imported, r.kept_raw, r.surrogates_replaced, r.already_imported_lines) == ({}, {}, [], 0)
    assert repr(rep).startswith(f"FileImport(path={str(f)!r}, format='thclaws', status='imported', error=None, ")
    again = store.import_file(str(f), "thclaws")
    assert (again.status, again.sessions, again.error) == ("up_to_date", [], None)
    assert again != rep
    assert again == store.import_file(str(f), "thclaws")
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"hello": 1}\n', encoding="utf-8")
    un = store.import_file(str(junk))
    assert (un.format, un.status, un.error, un.sessions, un.read) == (None, "unrecognized", None, [], None)
    imported = store.get_session("p1")
    assert [e.content for e in store.iter_transcript(imported.id)] == ["hello", "hi there"]
    fork = store.fork_session("p1", at_seq=1)
    assert (fork.forked_from, fork.forked_at_seq, fork.entry_count) == ("p1", 1, 1)
    with pytest.raises(sessiondb.InvalidInputError):
        store.import_file(str(f), "word")


def test_read_thclaws_digest_is_typed():
    text = (
        '{"type":"header","id":"sess-1","model":"zai/glm-5.1","cwd":"/w","created_at":1700000000}\n'
        '{"type":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}\n'
        "{not json}\n"
        '{"type":"turn_usage","n":1}\n'
        '{"type":"assistant","content":[{"type":"text","text":"yo"}],"timestamp":2}'
    )
    d = sessiondb.read_thclaws_digest(text.encode("utf-8"), "fallback")
    assert isinstance(d, sessiondb.ThclawsDigest)
    assert (d.id, d.title, d.model, d.provider, d.cwd, d.created_at_ms) == (
        "sess-1",
        None,
        "zai/glm-5.1",
        "zai",
        "/w",
        1_700_000_000_000,
    )
    assert (d.roles, d.texts, d.active_texts) == (["user", "assistant"], ["hi", "yo"], ["hi", "yo"])
    assert (d.tool_calls, d.tool_results, d.plan_steps, d.compactions, d.lines, d.bytes) == (
        0,
        0,
        0,
        0,
        5,
        len(text.encode("utf-8")),
    )
    (skip,) = d.skipped
    assert isinstance(skip, sessiondb.DigestSkippedLine)
    assert (skip.line, skip.reason) == (3, "invalid_json")
    assert repr(skip) == "DigestSkippedLine(line=3, reason='invalid_json')"
    assert (d.surrogates_replaced, d.missing_final_newline, d.kept_raw, d.other_lines) == ([], True, {"turn_usage": 1}, 1)
    assert d.to_dict()["skipped"] == [{"line": 3, "reason": "invalid_json"}]
    assert repr(d).startswith("ThclawsDigest(id='sess-1', title=None, model='zai/glm-5.1', ")
    assert d == sessiondb.read_thclaws_digest(text.encode("utf-8"), "other")
    assert d != sessiondb.read_thclaws_digest(text.encode("utf-8") + b"\n", "fallback")


def _thclaws(sid, text):
    return (
        f'{{"type":"header","id":"{sid}","model":"m","cwd":"/tmp","created_at":1700000000}}\n'
        f'{{"type":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":1}}\n'
    )


def test_import_paths_walks_a_directory(store, tmp_path):
    d = tmp_path / "sessions"
    d.mkdir()
    (d / "a.jsonl").write_text(_thclaws("sess-a", "hello a"), encoding="utf-8")
    (d / "b.jsonl").write_text(_thclaws("sess-b", "hello b"), encoding="utf-8")
    (d / "notes.jsonl").write_text('{"note": "not a session"}\n', encoding="utf-8")
    missing = tmp_path / "missing"
    reps = store.import_paths([d, str(missing)])
    assert all(isinstance(r, sessiondb.FileImport) for r in reps)
    assert [(r.path, r.format, r.status) for r in reps] == [
        (str(d / "a.jsonl"), "thclaws", "imported"),
        (str(d / "b.jsonl"), "thclaws", "imported"),
        (str(d / "notes.jsonl"), None, "unrecognized"),
        (str(missing), None, "failed"),
    ]
    assert [r.error for r in reps[:3]] == [None, None, None]
    assert reps[3].error == f"`{missing}`: I/O error while reading an import path: No such file or directory (os error 2)"
    assert [[(s.session_id, s.created, s.entries) for s in r.sessions] for r in reps] == [
        [("sess-a", True, 1)],
        [("sess-b", True, 1)],
        [],
        [],
    ]
    assert [e.content for e in store.iter_transcript("sess-a")] == ["hello a"]
    again = store.import_paths([str(d / "a.jsonl"), d / "b.jsonl"])
    assert [(r.path, r.status, r.sessions, r.error) for r in again] == [
        (str(d / "a.jsonl"), "up_to_date", [], None),
        (str(d / "b.jsonl"), "up_to_date", [], None),
    ]
    assert store.import_paths([]) == []
    with pytest.raises(TypeError):
        store.import_paths(str(d))

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
    assert (rep["format"], rep["status"], rep["sessions"][0]["session_id"], rep["sessions"][0]["entries"]) == (
        "thclaws",
        "imported",
        "p1",
        2,
    )
    imported = store.get_session("p1")
    assert [e.content for e in store.iter_transcript(imported.id)] == ["hello", "hi there"]
    fork = store.fork_session("p1", at_seq=1)
    assert (fork.forked_from, fork.forked_at_seq, fork.entry_count) == ("p1", 1, 1)
    with pytest.raises(sessiondb.InvalidInputError):
        store.import_file(str(f), "word")

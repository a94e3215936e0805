"""The seed 002 commands and context helpers Kotlin/Swift already had, now in
Python too (drift listed in issue 11): resolve_session, recent_sessions,
sidebar_sessions, record_compaction, encoding_for_model, truncate_chars,
detect_format."""

import pytest

import sessiondb


def test_resolve_session_by_last_id_prefix_and_title(store, tmp_path):
    ws = str(tmp_path)
    a = store.create_session("alpha", workspace_path=ws)
    b = store.create_session("beta")
    assert store.resolve_session("last", workspace=ws).id == a.id
    assert store.resolve_session("beta").id == b.id
    # A UUIDv7 id starts with its millisecond: 20 characters are not unique for
    # two sessions created in the same millisecond, 30 are (random bits).
    assert store.resolve_session(a.id[:30]).id == a.id
    with pytest.raises(sessiondb.NotFoundError):
        store.resolve_session("no such title")


def test_recent_and_sidebar_sessions(store):
    untitled = store.create_session()
    titled = store.create_session("titled")
    assert [s.id for s in store.recent_sessions()] == [titled.id, untitled.id]
    assert [s.id for s in store.sidebar_sessions()][0] == titled.id


def test_record_compaction_records_a_plan_and_skips_an_empty_one(store):
    s = store.create_session("long")
    for i in range(12):
        store.append_transcript(s.id, "user" if i % 2 == 0 else "assistant", f"turn {i} " + "words " * 400)
    plan = store.compact_session(s.id, raw_window=8_000, dry_run=True)
    assert plan.transformations
    assert store.recover_context_governance(s.id).history == []
    n = store.record_compaction(s.id, plan)
    assert n == 1
    assert len(store.recover_context_governance(s.id).history) == 1
    empty = sessiondb.compact_context([], 1_000)
    assert store.record_compaction(s.id, empty) is None
    with pytest.raises(sessiondb.NotFoundError):
        store.record_compaction("missing", plan)


def test_encoding_truncation_and_format_detection(store, tmp_path):
    assert sessiondb.encoding_for_model("gpt-4o") == "o200k_base"
    assert sessiondb.encoding_for_model("gpt-4") == "cl100k_base"
    assert sessiondb.encoding_for_model("claude-sonnet-4-6") is None
    assert sessiondb.truncate_chars("short", 10) == "short"
    cut = sessiondb.truncate_chars("日本語のテキストです", 5)
    assert len(cut) <= 5 and cut.endswith("…")
    s = store.create_session("exported")
    store.append_transcript(s.id, "user", "hello")
    f = tmp_path / "s.jsonl"
    f.write_text(store.export_thclaws(s.id))
    assert sessiondb.detect_format(f) == "thclaws"
    other = tmp_path / "notes.txt"
    other.write_text("just text\n")
    assert sessiondb.detect_format(str(other)) is None
    with pytest.raises(sessiondb.IoError):
        sessiondb.detect_format(tmp_path / "absent.jsonl")

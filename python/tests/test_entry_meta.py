"""Per-entry metadata (EntryMeta): append_entries_with_meta / get_transcript_with_meta, exact values."""

import json
import os
from pathlib import Path

import pytest

import sessiondb
from sessiondb import EntryMeta, NewEntry

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
TOOL_HEAVY = ROOT.parent / "shared" / "samples" / "claude-code" / "spotter_tool_heavy.jsonl"

EXTRA = {"phase": "final_answer", "tool_use_result": {"stdout": "ok", "exit": 0, "nested": {"a": [1, 2, None], "b": True}}}


def test_entry_meta_record():
    m = EntryMeta("claude-opus-4-6", "anthropic", EXTRA)
    assert (m.model, m.provider, m.extra) == ("claude-opus-4-6", "anthropic", EXTRA)
    assert m.to_dict() == {"model": "claude-opus-4-6", "provider": "anthropic", "extra": EXTRA, "item": None}
    assert repr(EntryMeta(model="m", extra={"k": [1]})) == "EntryMeta(model='m', provider=None, extra={'k': [1]}, item=None)"
    assert EntryMeta(item='{"a": 1}').item == '{"a": 1}'
    assert EntryMeta(item='{"a": 1}') != EntryMeta(item='{"a":1}')
    assert EntryMeta() == EntryMeta(None, None, {})
    assert (EntryMeta().model, EntryMeta().provider, EntryMeta().extra) == (None, None, {})
    assert m == EntryMeta(model="claude-opus-4-6", provider="anthropic", extra=dict(EXTRA))
    assert m != EntryMeta(model="claude-opus-4-6", provider="anthropic")
    m.extra["phase"] = "changed"  # a new dict on each read: the record stays frozen
    assert m.extra == EXTRA
    with pytest.raises(AttributeError):
        m.model = "x"  # type: ignore[misc]
    with pytest.raises(sessiondb.InvalidInputError):
        EntryMeta(extra=[1, 2])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        EntryMeta(extra={"k": object()})


def test_append_and_read_with_meta_exact(store):
    s = store.create_session("meta", id="m1")
    out = store.append_entries_with_meta(
        s.id,
        [
            (NewEntry("assistant", "answer", tokens=4, created_at_ms=1000), EntryMeta("gpt-5", "openai", EXTRA)),
            (NewEntry("user", "thanks", created_at_ms=2000), EntryMeta()),
        ],
    )
    assert [(e.seq, e.role, e.content, e.tokens, e.created_at_ms) for e in out] == [
        (1, "assistant", "answer", 4, 1000),
        (2, "user", "thanks", None, 2000),
    ]
    got = store.get_transcript_with_meta(s.id)
    assert got == [(out[0], EntryMeta("gpt-5", "openai", EXTRA)), (out[1], EntryMeta())]
    assert [type(x) for x in got[0]] == [sessiondb.TranscriptEntry, EntryMeta]
    assert got[0][1].to_dict() == {"model": "gpt-5", "provider": "openai", "extra": EXTRA, "item": None}
    assert got[1][1].to_dict() == {"model": None, "provider": None, "extra": {}, "item": None}
    assert store.get_transcript_with_meta(s.id, from_seq=2, limit=1) == [(out[1], EntryMeta())]
    assert store.get_transcript(s.id) == out
    # Entries written without metadata read back with an empty one.
    plain = store.append_transcript(s.id, "system", "note")
    assert store.get_transcript_with_meta(s.id, from_seq=3) == [(plain, EntryMeta())]
    assert store.append_entries_with_meta(s.id, []) == []


def test_meta_errors(store):
    s = store.create_session("meta")
    with pytest.raises(sessiondb.InvalidInputError):
        store.append_entries_with_meta(s.id, [(NewEntry("assistant", "x"), EntryMeta(model="m" * 257))])
    with pytest.raises(sessiondb.InvalidInputError):
        store.append_entries_with_meta(s.id, [(NewEntry("assistant", "x"), EntryMeta(provider="p" * 257))])
    # 256 bytes is the limit, not over it; the failed calls wrote nothing.
    (e,) = store.append_entries_with_meta(s.id, [(NewEntry("assistant", "x"), EntryMeta(model="m" * 256))])
    assert e.seq == 1
    assert store.get_transcript_with_meta(s.id)[0][1] == EntryMeta(model="m" * 256)
    with pytest.raises(sessiondb.NotFoundError):
        store.append_entries_with_meta("nope", [(NewEntry("user", "x"), EntryMeta())])
    with pytest.raises(sessiondb.NotFoundError):
        store.get_transcript_with_meta("nope")
    with pytest.raises(sessiondb.InvalidInputError):
        store.get_transcript_with_meta(s.id, limit=0)
    with pytest.raises(TypeError):
        store.append_entries_with_meta(s.id, [NewEntry("user", "x")])  # type: ignore[list-item]


def test_claude_sample_import_keeps_model_and_tool_use_result(store):
    if not TOOL_HEAVY.exists():
        pytest.skip(f"{TOOL_HEAVY} is absent")
    rep = store.import_file(str(TOOL_HEAVY))
    (si,) = rep.sessions
    assert si.session_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
    rows = store.get_transcript_with_meta(si.session_id, limit=10_000)
    assert len(rows) == si.entries
    models = [(m.model, m.provider) for _, m in rows if m.model is not None]
    assert models == [("claude-opus-4-6", "anthropic")] * 4
    results = [(e, m.extra["tool_use_result"]) for e, m in rows if "tool_use_result" in m.extra]
    assert len(results) == 6
    first, value = results[0]
    assert (first.role, first.source_line) == ("user", 11)
    assert value == {
        "stdout": "",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
        "backgroundTaskId": "bae407b",
    }


ITEM = '{"z": 1,  "role":"user",\n "content": "h\\u00e9llo ☃ café \\ud83d\\ude00 😀", "a": [ ]}\t'


def test_structured_item_round_trips_byte_exact_and_counts_only_its_text(store):
    s = store.create_session(id="items")
    plain = store.create_session(id="plain")
    text = "héllo ☃ café 😀"
    store.append_entries_with_meta(s.id, [(NewEntry("user", text), EntryMeta(item=ITEM)), (NewEntry("user", "b"), EntryMeta(extra={"k": 1}, item="[1]"))])
    store.append_entries(plain.id, [NewEntry("user", text), NewEntry("user", "b")])
    got = store.get_transcript_with_meta(s.id)
    assert [(e.content, m.item, m.extra) for e, m in got] == [(text, ITEM, {}), ("b", "[1]", {"k": 1})]
    assert got[0][1].item.encode("utf-8") == ITEM.encode("utf-8")
    # The meter and the active context count the text alone.
    a, b = store.active_context(s.id, 128_000, model="gpt-4o"), store.active_context(plain.id, 128_000, model="gpt-4o")
    assert [i.tokens for i in a.items] == [i.tokens for i in b.items] == [sessiondb.count_tokens("gpt-4o", t).tokens for t in (text, "b")]
    assert store.context_status(s.id, 128_000, model="gpt-4o").meter.active_tokens == a.tokens
    with pytest.raises(sessiondb.InvalidInputError, match="EntryMeta.item must be the JSON text of one value"):
        store.append_entries_with_meta(s.id, [(NewEntry("user", "x"), EntryMeta(item="{not json"))])
    assert store.get_session(s.id).entry_count == 2


def test_transcript_tail_with_meta_one_read(store):
    s = store.create_session(id="tail")
    store.append_entries_with_meta(s.id, [(NewEntry("user", f"t{i}"), EntryMeta(model=f"m{i}", item=f'{{"n": {i}}}')) for i in range(1, 6)])
    store.retract_entry(s.id, 5)
    tail = store.get_transcript_tail_with_meta(s.id, 2)
    assert [(e.seq, e.content, m.model, m.item) for e, m in tail] == [(3, "t3", "m3", '{"n": 3}'), (4, "t4", "m4", '{"n": 4}')]
    assert len(store.get_transcript_tail_with_meta(s.id)) == 4
    with pytest.raises(sessiondb.InvalidInputError):
        store.get_transcript_tail_with_meta(s.id, 0)
    with pytest.raises(sessiondb.NotFoundError):
        store.get_transcript_tail_with_meta("nope", 2)


def test_entry_items_one_json_array_with_the_entries_without_an_item_beside_it(store):
    s = store.create_session(id="items")
    item = lambda n: f'{{ "n":{n}, "t": "caf\\u00e9 ☃" }}'  # noqa: E731  byte-exact, escapes kept
    store.append_entries_with_meta(s.id, [
        (NewEntry("user", "one"), EntryMeta(item=item(1))),
        (NewEntry("assistant", "two"), EntryMeta(item=item(2))),
        (NewEntry("tool", "plain three"), EntryMeta(model="gpt-5", extra={"uuid": "u-3"})),
        (NewEntry("user", "four"), EntryMeta(item=item(4))),
        (NewEntry("user", "five"), EntryMeta(item=item(5))),
    ])
    store.append_transcript(s.id, "system", "six, no metadata")
    store.retract_entry(s.id, 2)
    page = store.get_entry_items(s.id)
    assert isinstance(page, sessiondb.ItemPage)
    assert page.items_json == f"[{item(1)},null,{item(4)},{item(5)},null]"
    assert page.seqs == [1, 3, 4, 5, 6]
    assert [(e.seq, e.role, e.content, m) for e, m in page.without_item] == [
        (3, "tool", "plain three", EntryMeta(model="gpt-5", extra={"uuid": "u-3"})),
        (6, "system", "six, no metadata", EntryMeta()),
    ]
    assert json.loads(page.items_json) == [{"n": 1, "t": "café ☃"}, None, {"n": 4, "t": "café ☃"}, {"n": 5, "t": "café ☃"}, None]
    assert page.to_dict()["seqs"] == [1, 3, 4, 5, 6]
    p = store.get_entry_items(s.id, 2, 2)
    assert (p.items_json, p.seqs, [e.seq for e, _ in p.without_item]) == (f"[null,{item(4)}]", [3, 4], [3])
    assert store.get_entry_items(s.id, 7).to_dict() == {"items_json": "[]", "seqs": [], "without_item": []}
    t = store.get_entry_items_tail(s.id, 2)
    assert (t.items_json, t.seqs) == (f"[{item(5)},null]", [5, 6])
    assert store.get_entry_items_tail(s.id) == page
    for bad in (lambda: store.get_entry_items(s.id, 1, 0), lambda: store.get_entry_items(s.id, 1, 10_001), lambda: store.get_entry_items_tail(s.id, 0)):
        with pytest.raises(sessiondb.InvalidInputError):
            bad()
    with pytest.raises(sessiondb.NotFoundError):
        store.get_entry_items("nope")
    with pytest.raises(sessiondb.NotFoundError):
        store.get_entry_items_tail("nope", 2)

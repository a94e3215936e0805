"""Every SessionStore method, round trip, exact values."""

import json
import os

import pytest

import sessiondb
from sessiondb import NewEntry

from conftest import KEY


def test_open_creates_private_files_and_reports_backend(store, db_path):
    assert store.path == db_path
    assert store.closed is False
    assert store.key_backend == "host-provided key bytes"
    assert len(store.instance_id) == 32
    if os.name == "posix":
        assert os.stat(db_path).st_mode & 0o777 == 0o600
        assert os.stat(os.path.dirname(db_path)).st_mode & 0o777 == 0o700
    rep = store.open_recovery_report()
    assert (rep.marked_unknown, rep.skipped_live, rep.failed) == ([], 0, [])
    assert rep == store.open_recovery_report()


def test_create_get_list_rename_delete_session(store, tmp_path):
    ws = tmp_path / "projA"
    ws.mkdir()
    s = store.create_session("refactor auth", str(ws))
    assert s.name == "refactor auth"
    assert s.workspace_path == os.path.realpath(str(ws))
    assert s.entry_count == 0
    assert s.model is None and s.forked_from is None and s.forked_at_seq is None
    assert s.created_at_ms == s.updated_at_ms
    assert store.get_session(s.id) == s
    assert store.list_sessions() == [s]
    assert store.find_session("refactor auth") == s
    assert store.find_session(s.id[:13]) == s

    r = store.rename_session(s.id, "auth v2")
    assert r.name == "auth v2"
    assert store.rename_session(s.id, None).name is None
    m = store.set_session_model(s.id, "claude-sonnet-4-6", "anthropic")
    assert (m.model, m.provider, m.id) == ("claude-sonnet-4-6", "anthropic", s.id)
    assert store.set_work_mode(s.id, "plan").work_mode == "plan"

    store.delete_session(s.id)
    assert store.list_sessions() == []
    with pytest.raises(sessiondb.NotFoundError):
        store.get_session(s.id)


def test_create_session_with_every_field(store):
    s = store.create_session(
        "imported",
        id="sess-1",
        model="gpt-5",
        provider="openai",
        work_mode="build",
        created_at_ms=1_700_000_000_000,
    )
    fork = store.create_session(
        "fork", id="sess-2", forked_from="sess-1", forked_at_seq=3, created_at_ms=1_700_000_000_001
    )
    assert (s.id, s.model, s.provider, s.work_mode, s.created_at_ms) == (
        "sess-1",
        "gpt-5",
        "openai",
        "build",
        1_700_000_000_000,
    )
    assert (fork.forked_from, fork.forked_at_seq) == ("sess-1", 3)
    assert [x.id for x in store.list_sessions(limit=1)] == ["sess-2"]
    with pytest.raises(sessiondb.ConflictError):
        store.create_session(id="sess-1")


def test_workspace_filters(store, tmp_path):
    a = tmp_path / "projA"
    ab = tmp_path / "projAB"
    a.mkdir()
    ab.mkdir()
    sa = store.create_session("a", str(a))
    sab = store.create_session("ab", str(ab))
    su = store.create_session("unbound")
    ids = lambda v: sorted(x.id for x in v)  # noqa: E731
    assert ids(store.list_sessions_for_workspace("current", str(a))) == [sa.id]
    assert ids(store.list_sessions_for_workspace("other", str(a))) == [sab.id]
    assert ids(store.list_sessions_for_workspace("unbound")) == [su.id]
    assert ids(store.list_sessions_for_workspace("all")) == sorted([sa.id, sab.id, su.id])
    with pytest.raises(sessiondb.InvalidInputError):
        store.list_sessions_for_workspace("current")
    with pytest.raises(sessiondb.InvalidInputError):
        store.list_sessions_for_workspace("everywhere")


def test_transcript_append_page_iterate(store):
    s = store.create_session("t")
    e1 = store.append_transcript(s.id, "user", "hello")
    assert (e1.session_id, e1.seq, e1.role, e1.format, e1.content, e1.tokens, e1.source_line) == (
        s.id,
        1,
        "user",
        "text",
        "hello",
        None,
        None,
    )
    batch = store.append_entries(
        s.id,
        [
            NewEntry("assistant", "hi", tokens=3, created_at_ms=1000),
            NewEntry("tool", '[{"type":"text","text":"x"}]', format="blocks", source_line=7),
        ],
    )
    assert [(e.seq, e.role, e.format, e.tokens, e.source_line, e.created_at_ms) for e in batch] == [
        (2, "assistant", "text", 3, None, 1000),
        (3, "tool", "blocks", None, 7, batch[1].created_at_ms),
    ]
    for i in range(4, 26):
        store.append_transcript(s.id, "system", f"m{i}")
    page = store.get_transcript(s.id, from_seq=2, limit=2)
    assert [e.seq for e in page] == [2, 3]
    assert page[0] == batch[0]
    it = store.iter_transcript(s.id, page_size=4)
    assert iter(it) is it
    seen = list(it)
    assert [e.seq for e in seen] == list(range(1, 26))
    assert seen[0] == e1
    assert [e.seq for e in store.iter_transcript(s.id, from_seq=24)] == [24, 25]
    assert store.get_session(s.id).entry_count == 25
    with pytest.raises(sessiondb.InvalidInputError):
        store.append_transcript(s.id, "robot", "x")
    with pytest.raises(sessiondb.InvalidInputError):
        store.get_transcript(s.id, limit=0)
    with pytest.raises(sessiondb.NotFoundError):
        store.append_transcript("nope", "user", "x")
    with pytest.raises(sessiondb.NotFoundError):
        list(store.iter_transcript("nope"))


def test_records_have_repr_and_equality(store):
    s = store.create_session("r", id="rid")
    assert repr(s).startswith("Session(id='rid', name='r', workspace_path=None,")
    e = store.append_transcript("rid", "user", "x")
    assert repr(e).startswith("TranscriptEntry(session_id='rid', seq=1, role='user', format='text', content='x',")
    assert e != store.append_transcript("rid", "user", "x")
    assert repr(NewEntry("user", "secret")) == (
        "NewEntry(role='user', content=<6 chars>, format='text', created_at_ms=None, tokens=None, source_line=None)"
    )
    assert NewEntry("user", "a") == NewEntry("user", "a")


def test_records_built_by_callers_keep_the_text_and_parse_it_when_passed_in(store):
    # NewEntry and ContextItem are generated from bridge/api.rs: a bad
    # role, format or kind is kept as given and refused, with the core's
    # message, when the record is passed in; nothing is stored.
    s = store.create_session("built")
    bad = NewEntry("robot", "x")
    assert (bad.role, bad.format) == ("robot", "text")
    with pytest.raises(sessiondb.InvalidInputError, match=r"^invalid input: role must be one of user, assistant, tool, system$"):
        store.append_entries(s.id, [NewEntry("user", "ok"), bad])
    with pytest.raises(sessiondb.InvalidInputError, match=r"^invalid input: content format must be `text` or `blocks`$"):
        store.append_entries(s.id, [NewEntry("user", "x", format="html")])
    assert store.get_session(s.id).entry_count == 0
    with pytest.raises(sessiondb.InvalidInputError, match=r'^invalid input: kind is not one of its known values \("note"\)$'):
        sessiondb.summarize_item(sessiondb.ContextItem(1, "user", "note", 3))
    item = sessiondb.ContextItem(1, "user", "message", 3, text="hello")
    assert item.to_dict() == {
        "seq": 1, "role": "user", "kind": "message", "tokens": 3, "pinned": False,
        "text": "hello", "call_ids": [], "compacted": False,
    }
    assert sessiondb.summarize_item(item) == sessiondb.summarize_item(item.to_dict())


def test_tokens_and_context_extensions(store):
    s = store.create_session("tok")
    assert store.token_totals(s.id) == store.token_totals(s.id)
    t0 = store.token_totals(s.id)
    assert (t0.input, t0.output, t0.cached) == (0, 0, 0)
    store.record_tokens(s.id, input=100, output=20, cached=5, model="m", provider="p")
    store.record_tokens(s.id, input=1, output=2)
    t = store.token_totals(s.id)
    assert (t.input, t.output, t.cached) == (101, 22, 5)
    assert repr(t) == "TokenTotals(input=101, output=22, cached=5)"
    assert store.append_context_extension(s.id, "pin", json.dumps({"seq": 1})) == 1
    assert store.append_context_extension(s.id, "exclude", '{"seq":2}') == 2
    exts = store.list_context_extensions(s.id)
    assert [(x.session_id, x.n, x.kind, json.loads(x.body)) for x in exts] == [
        (s.id, 1, "pin", {"seq": 1}),
        (s.id, 2, "exclude", {"seq": 2}),
    ]
    with pytest.raises(sessiondb.InvalidInputError):
        store.append_context_extension(s.id, "pin", "not json")


def test_journal_append_idempotent_and_conflict(store):
    s = store.create_session("j")
    before = len(store.journal_events(s.id))
    o = store.journal_append("ev-1", s.id, "Note", {"a": [1, 2, "x"]})
    assert (o.seq, o.duplicate) == (before + 1, False)
    again = store.journal_append("ev-1", s.id, "Note", {"a": [1, 2, "x"]})
    assert (again.seq, again.aggregate_version, again.duplicate) == (o.seq, o.aggregate_version, True)
    with pytest.raises(sessiondb.ConflictError) as ei:
        store.journal_append("ev-1", s.id, "Note", {"a": "other"})
    assert ei.value.code == "ERR_CONFLICT" and ei.value.kind == "Conflict"
    ev = store.journal_events(s.id, from_seq=o.seq)[0]
    assert (ev.event_id, ev.session_id, ev.seq, ev.kind, ev.payload, ev.operation_id) == (
        "ev-1",
        s.id,
        o.seq,
        "Note",
        {"a": [1, 2, "x"]},
        None,
    )
    assert ev.created_at.endswith("Z")
    with pytest.raises(TypeError):
        store.journal_append("ev-2", s.id, "Note", object())


def test_operations_and_recovery(store):
    s = store.create_session("ops")
    d = store.dispatch_operation(s.id, "op-1", {"tool": "bash"})
    assert d.duplicate is False
    ops = store.open_operations()
    assert [(o.session_id, o.operation_id, o.owner) for o in ops] == [(s.id, "op-1", store.instance_id)]
    rep = store.recover()
    assert (rep.marked_unknown, rep.skipped_live) == ([], 0)  # its own live handle: not even counted
    done = store.complete_operation(s.id, "op-1", "succeeded", {"exit": 0})
    assert done.seq == d.seq + 1
    assert store.complete_operation(s.id, "op-1", "succeeded", {"exit": 0}).duplicate is True
    with pytest.raises(sessiondb.ConflictError):
        store.complete_operation(s.id, "op-1", "failed", {"exit": 0})
    with pytest.raises(sessiondb.NotFoundError):
        store.complete_operation(s.id, "op-never", "failed")
    with pytest.raises(sessiondb.InvalidInputError):
        store.complete_operation(s.id, "op-1", "exploded")
    assert store.open_operations() == []
    kinds = [e.kind for e in store.journal_events(s.id)][-2:]
    assert kinds == ["EffectDispatchCommitted", "OperationSucceeded"]


def test_dead_owner_operation_is_marked_unknown_at_next_open(db_path):
    a = sessiondb.SessionStore(db_path, key=KEY)
    s = a.create_session("crash")
    a.dispatch_operation(s.id, "op-x")
    a.close()
    with sessiondb.SessionStore(db_path, key=KEY) as b:
        rep = b.open_recovery_report()
        assert rep.marked_unknown == [(s.id, "op-x")]
        assert rep.skipped_live == 0
        assert b.journal_events(s.id)[-1].kind == "OperationUnknownOutcome"


def test_stats(store):
    s = store.create_session("st")
    store.append_transcript(s.id, "user", "x")
    st = store.stats()
    assert (st.path, st.key_backend, st.sessions, st.transcript_entries, st.open_operations) == (
        store.path,
        "host-provided key bytes",
        1,
        1,
        0,
    )
    assert st.schema_version >= 1 and st.journal_events == 2 and st.db_bytes > 0


def test_close_and_context_manager(db_path):
    with sessiondb.SessionStore(db_path, key=KEY) as st:
        s = st.create_session("c")
    assert st.closed is True
    assert repr(st) == f"SessionStore(path={db_path!r}, closed=True)"
    with pytest.raises(sessiondb.ClosedError) as ei:
        st.get_session(s.id)
    assert ei.value.code == "ERR_CLOSED"
    st.close()  # idempotent
    it = sessiondb.SessionStore(db_path, key=KEY)
    walker = it.iter_transcript(s.id)
    it.close()
    with pytest.raises(sessiondb.ClosedError):
        next(walker)


def test_functions(tmp_path):
    assert sessiondb.canonical_workspace(str(tmp_path / "a" / ".." / "b" / "")) == os.path.realpath(
        str(tmp_path / "b")
    )
    p = sessiondb.default_db_path("myapp")
    assert p.endswith(os.path.join("myapp", "sessions.db"))
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.default_db_path("a/b")
    env = sessiondb.encrypt_field(KEY, "session:x:name", "héllo".encode())
    assert sorted(json.loads(env)) == ["alg", "c", "n", "t", "v"]
    assert sessiondb.decrypt_field(KEY, "session:x:name", env).decode() == "héllo"
    with pytest.raises(sessiondb.AuthenticationError):
        sessiondb.decrypt_field(KEY, "session:y:name", env)
    assert sessiondb.envelope_aad("session:abc:name") == "session:abc:name:v1:aes-256-gcm"
    assert len(sessiondb.workspace_index(KEY, "/projA")) == 64
    assert isinstance(sessiondb.__version__, str)


def _damage_title(db_path, session_id, value_sql):
    import sqlite3

    c = sqlite3.connect(db_path, timeout=5)
    with c:
        assert c.execute(f"UPDATE sessions SET name_enc = {value_sql} WHERE id = ?", (session_id,)).rowcount == 1
    c.close()


@pytest.mark.parametrize(
    "value_sql,kind",
    [("zeroblob(64)", "Corrupt"), ("''", "Corrupt"), ("(SELECT name_enc FROM sessions WHERE name_enc IS NOT NULL AND id <> ?1 LIMIT 1)", None)],
)
def test_a_damaged_title_is_listed_with_its_unreadable_field_and_hides_no_other_session(store, db_path, value_sql, kind):
    ids = [store.create_session(t).id for t in ("alpha", "beta", "gamma")]
    if kind is None:
        value_sql, kind = f"(SELECT name_enc FROM sessions WHERE id = '{ids[0]}')", "AuthenticationFailed"
    _damage_title(db_path, ids[1], value_sql)
    listed = {s.id: s for s in store.list_sessions()}
    assert sorted(listed) == sorted(ids)
    damaged = listed[ids[1]]
    assert damaged.name is None
    assert [(u.field, u.record_id, u.kind) for u in damaged.unreadable] == [("name", f"session:{ids[1]}:name", kind)]
    assert [listed[i].name for i in (ids[0], ids[2])] == ["alpha", "gamma"]
    assert listed[ids[0]].unreadable == []
    assert store.find_session("gamma").id == ids[2]
    assert damaged.to_dict()["unreadable"][0]["kind"] == kind

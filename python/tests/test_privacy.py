"""Issue 30 "No size oracle": `compress` at open (SECURITY.md "Size oracle")."""

import sqlite3

import pytest

import sessiondb

from conftest import KEY

BODY = ("tool output line, repeated\n" * 152)[:4096]


def versions(db_path):
    """The envelope version byte of every stored content, in seq order."""
    with sqlite3.connect(db_path) as c:
        rows = c.execute("SELECT content_enc FROM entry_envelopes ORDER BY seq").fetchall()
    return [bytes(r[0])[0] for r in rows]


@pytest.mark.parametrize("compress, version", [(False, 1), (True, 2), (None, 1)])
def test_a_4k_body_is_stored_compressed_only_with_compress_on(tmp_path, compress, version):
    db = str(tmp_path / "s.db")
    with sessiondb.SessionStore(db, key=KEY, compress=compress) as st:
        s = st.create_session(None, None)
        st.append_transcript(s.id, "tool", BODY)
        assert st.get_transcript(s.id, 1, 1)[0].content == BODY
    assert versions(db) == [version]


def test_compress_must_be_a_bool(tmp_path):
    with pytest.raises(TypeError):
        sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY, compress="no")


def test_prune_dry_run_lists_what_prune_deletes_and_journals_it(tmp_path):
    db = str(tmp_path / "s.db")
    with sessiondb.SessionStore(db, key=KEY) as st:
        old = st.create_session(None, None, created_at_ms=1_700_000_000_000)
        st.create_session("named", None, created_at_ms=1_700_000_000_000)
        newest = st.create_session(None, None)
        assert st.prune() == []  # no limit: nothing
        plan = st.prune(max_age_days=30, dry_run=True)
        assert [(p.session_id, p.reason, p.title, p.updated_at_ms, p.entry_count, p.last_seq) for p in plan] == [
            (old.id, "max_age_days", None, 1_700_000_000_000, 0, 0)
        ]
        assert len(st.list_sessions()) == 3
        assert [p.to_dict() for p in st.prune(max_age_days=30)] == [p.to_dict() for p in plan]
        assert [s.id for s in st.list_sessions()][0] == newest.id
        assert len(st.list_sessions()) == 2
        ev = st.journal_events(old.id)[-1]
        assert ev.kind == "SessionDeleted"
        assert ev.payload == {"entries": 0, "reason": "max_age_days", "title": None, "updated_at_ms": 1_700_000_000_000}


SECRET = "Deploy with key AKIALALEMEL33243OLIB now"


def test_redact_on_write_stores_the_marker_and_on_export_keeps_the_secret_stored(tmp_path):
    """Issue 30 item 2 in Python: the `redact` open option."""
    import re

    marker = re.compile(r"^Deploy with key \[REDACTED:aws-access-token:[0-9a-f]{8}\] now$")
    with sessiondb.SessionStore(str(tmp_path / "w.db"), key=KEY, redact="on-write") as st:
        s = st.create_session(None, None)
        st.append_transcript(s.id, "user", SECRET)
        stored = st.get_transcript(s.id, 1, 1)[0].content
        assert marker.match(stored), stored
    with sessiondb.SessionStore(str(tmp_path / "e.db"), key=KEY, redact="on-export") as st:
        s = st.create_session(None, None)
        st.append_transcript(s.id, "user", SECRET)
        assert st.get_transcript(s.id, 1, 1)[0].content == SECRET
        exported = st.export_thclaws(s.id)
        assert "AKIALALEMEL33243OLIB" not in exported and "[REDACTED:aws-access-token:" in exported
    with sessiondb.SessionStore(str(tmp_path / "o.db"), key=KEY) as st:
        s = st.create_session(None, None)
        st.append_transcript(s.id, "user", SECRET)
        assert "AKIALALEMEL33243OLIB" in st.export_thclaws(s.id)


def test_an_unknown_redaction_policy_is_invalid_input_and_creates_nothing(tmp_path):
    with pytest.raises(sessiondb.InvalidInputError, match="redaction policy `always` is not one of off, on-export, on-write"):
        sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY, redact="always")
    assert not (tmp_path / "s.db").exists()

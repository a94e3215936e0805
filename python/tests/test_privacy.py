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


@pytest.mark.parametrize("compress, version", [(False, 1), (True, 2), (None, 2)])
def test_a_4k_body_is_stored_uncompressed_only_with_compress_off(tmp_path, compress, version):
    db = str(tmp_path / "s.db")
    with sessiondb.SessionStore(db, key=KEY, compress=compress) as st:
        s = st.create_session(None, None)
        st.append_transcript(s.id, "tool", BODY)
        assert st.get_transcript(s.id, 1, 1)[0].content == BODY
    assert versions(db) == [version]


def test_compress_must_be_a_bool(tmp_path):
    with pytest.raises(TypeError):
        sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY, compress="no")

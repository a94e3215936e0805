"""SessionStore.copy_to and recovery keys (issue 13 items 7 and 8) from
Python: exact counts, idempotence, KeyMismatch before any write, the exact
recovery text of a known key, the checksum error, and the import into a
key provider."""

import pytest

import sessiondb

KEY = bytes(range(32))
# base32(KEY + sha256(b"sessiondb recovery key v1\0" + KEY)[:3]), in groups of 4.
KEY_TEXT = "AAAQ-EAYE-AUDA-OCAJ-BIFQ-YDIO-B4IB-CEQT-CQKR-MFYY-DENB-WHA5-DYPU-PUO5"

COUNTS = ("sessions_seen", "sessions_created", "sessions_updated", "sessions_deleted", "entries", "retractions",
          "tokens", "extensions", "events", "open_operations", "import_records")


def counts(r):
    return [getattr(r, k) for k in COUNTS]


def test_copy_to_copies_every_kind_then_nothing_then_only_new_rows(tmp_path):
    a = sessiondb.SessionStore(str(tmp_path / "a.db"), key=KEY)
    s = a.create_session("laptop")
    a.append_transcript(s.id, "user", "one")
    a.append_transcript(s.id, "assistant", "two")
    a.record_tokens(s.id, input=10, output=5)
    a.append_context_extension(s.id, "pin", '{"seq": 1}')
    b = sessiondb.SessionStore(str(tmp_path / "b.db"), key=KEY)
    r = a.copy_to(b)
    assert isinstance(r, sessiondb.CopyReport)
    assert counts(r) == [1, 1, 0, 0, 2, 0, 1, 1, 5, 0, 0]
    assert r.conflicts == []
    assert [e.content for e in b.get_transcript(s.id)] == ["one", "two"]
    assert b.get_session(s.id).name == "laptop"
    assert counts(a.copy_to(b)) == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    a.append_transcript(s.id, "user", "three")
    assert counts(a.copy_to(b))[4:9] == [1, 0, 0, 0, 1]


def test_a_session_written_on_both_sides_is_a_conflict_in_the_report(tmp_path):
    a = sessiondb.SessionStore(str(tmp_path / "a.db"), key=KEY)
    b = sessiondb.SessionStore(str(tmp_path / "b.db"), key=KEY)
    s = a.create_session("both")
    a.copy_to(b)
    a.append_transcript(s.id, "user", "in A")
    b.append_transcript(s.id, "user", "in B")
    r = a.copy_to(b)
    assert [(c.session_id, c.kind) for c in r.conflicts] == [(s.id, "Conflict")]
    assert r.conflicts[0].reason == "journal event at seq 2 differs between source and destination"
    assert [e.content for e in b.get_transcript(s.id)] == ["in B"]


def test_copy_into_a_store_with_another_key_raises_key_mismatch_and_writes_nothing(tmp_path):
    a = sessiondb.SessionStore(str(tmp_path / "a.db"), key=KEY)
    a.create_session("secret")
    b = sessiondb.SessionStore(str(tmp_path / "b.db"), key=bytes([7] * 32))
    with pytest.raises(sessiondb.KeyMismatchError):
        a.copy_to(b)
    assert b.list_sessions() == []
    assert b.stats().journal_events == 0


def test_a_known_key_has_its_exact_recovery_text_and_parses_back_tolerantly(tmp_path):
    assert sessiondb.recovery_key_text(KEY) == KEY_TEXT
    assert sessiondb.SessionStore(str(tmp_path / "a.db"), key=KEY).recovery_key() == KEY_TEXT
    for text in (KEY_TEXT, KEY_TEXT.lower(), KEY_TEXT.replace("-", ""), KEY_TEXT.replace("-", " "), "\n" + KEY_TEXT.replace("-", "\n") + "\n"):
        assert sessiondb.parse_recovery_key(text) == KEY


def test_a_one_character_typo_is_the_checksum_error():
    typo = "AAAR" + KEY_TEXT[4:]
    with pytest.raises(sessiondb.InvalidInputError) as e:
        sessiondb.parse_recovery_key(typo)
    assert str(e.value) == ("invalid input: recovery key checksum mismatch: a character was mistyped or left out; "
                            "compare it group by group with the exported text")
    with pytest.raises(sessiondb.InvalidInputError, match="52 characters, a recovery key has 56"):
        sessiondb.parse_recovery_key(KEY_TEXT[:-5])
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.recovery_key_text(b"short")


class Memory:
    def __init__(self, key=None):
        self.key = key

    def get_key(self):
        return self.key

    def set_key(self, key):
        self.key = bytes(key)


def test_import_recovery_key_checks_the_database_then_stores_the_key(tmp_path):
    db = str(tmp_path / "laptop.db")
    laptop = sessiondb.SessionStore(db, key=KEY)
    sid = laptop.create_session("from the laptop").id
    laptop.close()
    device = Memory()
    with pytest.raises(sessiondb.KeyMismatchError):
        sessiondb.import_recovery_key(sessiondb.recovery_key_text(bytes([9] * 32)), db, key_provider=device)
    assert device.key is None
    with pytest.raises(sessiondb.InvalidInputError, match="checksum"):
        sessiondb.import_recovery_key("AAAR" + KEY_TEXT[4:], db, key_provider=device)
    store = sessiondb.import_recovery_key(KEY_TEXT.lower(), db, key_provider=device)
    assert store.get_session(sid).name == "from the laptop"
    assert device.key == KEY
    store.close()
    assert sessiondb.SessionStore(db, key_provider=device).get_session(sid).name == "from the laptop"
    with pytest.raises(sessiondb.ConflictError):
        sessiondb.import_recovery_key(KEY_TEXT, db, key_provider=Memory(bytes([3] * 32)))
    with pytest.raises(sessiondb.NotFoundError):
        sessiondb.import_recovery_key(KEY_TEXT, str(tmp_path / "missing.db"), key_provider=Memory())

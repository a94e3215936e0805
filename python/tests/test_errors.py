"""Errors by class: one Python class per core ErrorKind, exact codes."""

import os
import sqlite3
import subprocess
import sys

import pytest

import sessiondb
from sessiondb import errors

from conftest import KEY, OTHER_KEY, MemoryKeyProvider


def test_every_core_kind_has_its_class_and_code():
    kinds = sessiondb.error_kinds()
    assert len(kinds) == 13
    for name, code, cls_name in kinds:
        cls = getattr(errors, cls_name)
        assert issubclass(cls, sessiondb.SessionDBError)
        assert (cls.kind, cls.code) == (name, code)
    assert [k[0] for k in kinds] == [
        "RecoveryLocked",
        "KeyMismatch",
        "KeyStoreUnavailable",
        "NotFound",
        "Conflict",
        "AuthenticationFailed",
        "Corrupt",
        "Busy",
        "InvalidInput",
        "Io",
        "Database",
        "ContextOverflow",
        "Closed",
    ]


def test_os_error_hierarchy():
    assert issubclass(sessiondb.IoError, OSError)
    assert issubclass(sessiondb.FileNotFoundIoError, FileNotFoundError)
    assert issubclass(sessiondb.PermissionIoError, PermissionError)
    assert issubclass(sessiondb.InvalidInputError, ValueError)
    assert issubclass(sessiondb.NotFoundError, LookupError)


def test_not_found(store):
    with pytest.raises(sessiondb.NotFoundError) as ei:
        store.get_session("missing-id")
    assert str(ei.value) == "not found: session `missing-id`"
    assert ei.value.code == "ERR_NOT_FOUND"


def test_wrong_key_is_key_mismatch(db_path):
    sessiondb.SessionStore(db_path, key=KEY).close()
    with pytest.raises(sessiondb.KeyMismatchError) as ei:
        sessiondb.SessionStore(db_path, key=OTHER_KEY)
    assert ei.value.code == "ERR_KEY_MISMATCH"
    assert ei.value.backend == "host-provided key bytes"


def test_provider_without_key_for_existing_db_is_recovery_locked(db_path):
    sessiondb.SessionStore(db_path, key=KEY).close()
    p = MemoryKeyProvider(None)
    with pytest.raises(sessiondb.RecoveryLockedError) as ei:
        sessiondb.SessionStore(db_path, key_provider=p)
    assert ei.value.code == "ERR_RECOVERY_LOCKED"
    assert (p.gets, p.sets) == (1, 0)  # no new key was written


def test_invalid_input(tmp_path):
    with pytest.raises(sessiondb.InvalidInputError) as ei:
        sessiondb.SessionStore(str(tmp_path / "x.db"), key=b"short")
    assert str(ei.value) == "invalid input: key: 5 bytes, neither the 32-byte data key nor its base64 text (a key file's content)"
    assert isinstance(ei.value, ValueError)
    with pytest.raises(sessiondb.InvalidInputError):
        sessiondb.SessionStore(str(tmp_path / "x.db"), key=KEY, key_provider=MemoryKeyProvider())


def test_not_a_database_is_corrupt(tmp_path):
    p = tmp_path / "junk.db"
    p.write_bytes(b"this is not a sqlite database" * 100)
    with pytest.raises(sessiondb.CorruptError) as ei:
        sessiondb.SessionStore(str(p), key=KEY)
    assert ei.value.code == "ERR_CORRUPT"


def test_tampered_ciphertext_is_authentication_error(db_path):
    with sessiondb.SessionStore(db_path, key=KEY) as st:
        a = st.create_session("alpha", id="a")
        st.create_session("beta", id="b")
    c = sqlite3.connect(db_path)
    name_b = c.execute("SELECT name_enc FROM sessions WHERE id='b'").fetchone()[0]
    c.execute("UPDATE sessions SET name_enc=? WHERE id='a'", (name_b,))
    c.commit()
    c.close()
    with sessiondb.SessionStore(db_path, key=KEY) as st:
        with pytest.raises(sessiondb.AuthenticationError) as ei:
            st.get_session(a.id)
    assert ei.value.code == "ERR_AUTHENTICATION_FAILED"
    assert "alpha" not in str(ei.value) and "beta" not in str(ei.value)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores permissions")
def test_permission_denied_is_permission_error(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    os.chmod(d, 0o500)
    try:
        with pytest.raises(PermissionError) as ei:
            sessiondb.SessionStore(str(d / "sub" / "s.db"), key=KEY)
        assert isinstance(ei.value, sessiondb.IoError)
    finally:
        os.chmod(d, 0o700)


def test_io_error_is_an_os_error(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    # A path under a regular file: the state directory cannot be created.
    with pytest.raises(sessiondb.IoError) as ei:
        sessiondb.SessionStore(str(f / "sub" / "s.db"), key=KEY)
    assert isinstance(ei.value, OSError)
    assert ei.value.code == "ERR_IO"


def test_provider_exception_is_key_store_unavailable_with_cause(db_path):
    class Locked:
        def get_key(self):
            raise RuntimeError("keychain locked")

        def set_key(self, key):
            raise AssertionError("never called")

    with pytest.raises(sessiondb.KeyStoreUnavailableError) as ei:
        sessiondb.SessionStore(db_path, key_provider=Locked())
    assert isinstance(ei.value.__cause__, RuntimeError)
    assert str(ei.value.__cause__) == "keychain locked"
    assert "Python key provider Locked" in str(ei.value)
    assert not os.path.exists(db_path)


HOLD_WRITE_LOCK = """
import sqlite3, sys
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
c.execute("ROLLBACK")
"""


def test_busy_error_has_timeout(db_path):
    # The lock is held by another process: POSIX locks do not separate two
    # SQLite libraries inside one process.
    with sessiondb.SessionStore(db_path, key=KEY, busy_timeout_ms=50) as st:
        s = st.create_session("busy")
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_WRITE_LOCK, db_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        try:
            assert holder.stdout.readline().strip() == "locked"
            with pytest.raises(sessiondb.BusyError) as ei:
                st.append_transcript(s.id, "user", "x")
            assert ei.value.timeout_ms == 50
            assert ei.value.code == "ERR_BUSY"
        finally:
            holder.communicate("go\n", timeout=10)
        assert st.append_transcript(s.id, "user", "x").seq == 1

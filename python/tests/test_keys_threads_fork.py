"""Key provider callback, sharing a store between threads, fork safety, GIL release."""

import os
import sys
import threading
import time

import pytest

import sessiondb

from conftest import KEY, MemoryKeyProvider


def test_key_provider_creates_then_reuses_key(db_path):
    p = MemoryKeyProvider()
    with sessiondb.SessionStore(db_path, key_provider=p) as st:
        assert st.key_backend == "Python key provider MemoryKeyProvider"
        sid = st.create_session("kp").id
    assert (p.gets, p.sets) == (1, 1)
    assert isinstance(p.key, bytes) and len(p.key) == 32
    with sessiondb.SessionStore(db_path, key_provider=p) as st:
        assert st.get_session(sid).name == "kp"
    assert (p.gets, p.sets) == (2, 1)
    # The provider's key is the database key.
    with sessiondb.SessionStore(db_path, key=p.key) as st:
        assert st.get_session(sid).name == "kp"


def test_key_provider_backend_name(db_path):
    class Named(MemoryKeyProvider):
        backend_name = "Test Vault"

    with sessiondb.SessionStore(db_path, key_provider=Named()) as st:
        assert st.key_backend == "Test Vault"


def test_provider_wrong_length_key_is_key_store_unavailable(db_path):
    with pytest.raises(sessiondb.KeyStoreUnavailableError) as ei:
        sessiondb.SessionStore(db_path, key_provider=MemoryKeyProvider(b"123"))
    assert "returned 3 bytes" in str(ei.value)


def test_threads_share_one_store(store):
    s = store.create_session("threads")
    errors = []

    def worker(t):
        try:
            for i in range(50):
                store.append_transcript(s.id, "user", f"t{t}-{i}")
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    entries = list(store.iter_transcript(s.id))
    assert [e.seq for e in entries] == list(range(1, 401))
    assert sorted(e.content for e in entries) == sorted(f"t{t}-{i}" for t in range(8) for i in range(50))


def test_gil_is_released_during_store_calls(store):
    """A pure-Python thread keeps running while another thread is inside the core."""
    s = store.create_session("gil")
    big = "x" * 200_000
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)  # without GIL release the ticker would starve for ~1 s per call
    try:
        t = threading.Thread(target=ticker)
        t.start()
        t0 = time.perf_counter()
        for _ in range(20):
            store.append_transcript(s.id, "user", big)
        list(store.iter_transcript(s.id))
        t1 = time.perf_counter()
        stop.set()
        t.join()
    finally:
        sys.setswitchinterval(old)
    during = [x for x in ticks if t0 <= x <= t1]
    assert len(during) > 20, f"only {len(during)} ticks while the core worked for {t1 - t0:.3f}s"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_store_used_after_fork_raises_closed_error(store):
    s = store.create_session("fork")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        os.close(r)
        try:
            store.get_session(s.id)
            msg = b"no error"
        except sessiondb.ClosedError as e:
            msg = ("ClosedError:" + str(e)).encode()
        except BaseException as e:  # pragma: no cover
            msg = repr(e).encode()
        os.write(w, msg)
        os.close(w)
        os._exit(0)
    os.close(w)
    out = b""
    while True:
        chunk = os.read(r, 4096)
        if not chunk:
            break
        out += chunk
    os.close(r)
    os.waitpid(pid, 0)
    assert out.decode().startswith("ClosedError:store closed")
    assert "fork" in out.decode()
    # The parent's handle is untouched.
    assert store.get_session(s.id).name == "fork"


_STARTUP_CHILD = r"""
import os, sys, time
import sessiondb

db, mode, keyfile, go = sys.argv[1:5]


class FileKeyProvider:
    def get_key(self):
        try:
            data = open(keyfile, "rb").read()
        except FileNotFoundError:
            return None
        return data if len(data) == 32 else None

    def set_key(self, key):
        time.sleep(0.005)
        with open(keyfile, "wb") as f:
            f.write(bytes(key))


while not os.path.exists(go):
    time.sleep(0.0005)
kw = {"key": bytes(range(32))} if mode == "bytes" else {"key_provider": FileKeyProvider()}
with sessiondb.SessionStore(db, **kw) as st:
    sid = st.create_session(None).id
    for i in range(10):
        st.append_transcript(sid, "user", f"entry {i}")
print("OK", sid)
"""


@pytest.mark.parametrize("mode", ["bytes", "provider"])
def test_sixteen_processes_starting_at_once_all_succeed_with_one_key(tmp_path, mode):
    import subprocess

    rounds = int(os.environ.get("SESSIONDB_STRESS_ROUNDS", "1"))
    ok = 0
    for r in range(rounds):
        db = str(tmp_path / f"r{r}" / "sessions.db")
        os.makedirs(os.path.dirname(db))
        keyfile = str(tmp_path / f"r{r}.key")
        for phase in ("fresh", "existing"):
            go = str(tmp_path / f"r{r}.{phase}.go")
            kids = [
                subprocess.Popen([sys.executable, "-c", _STARTUP_CHILD, db, mode, keyfile, go], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(16)
            ]
            open(go, "w").close()
            outs = [k.communicate() for k in kids]
            failed = [err.strip().splitlines()[-1:] for (out, err), k in zip(outs, kids) if k.returncode != 0]
            assert failed == [], f"round {r} {phase}"
            ok += 16
        kw = {"key": bytes(range(32))} if mode == "bytes" else {"key": open(keyfile, "rb").read()}
        with sessiondb.SessionStore(db, **kw) as st:
            sessions = st.list_sessions()
            assert len(sessions) == 32
            assert {s.entry_count for s in sessions} == {10}
    assert ok == 32 * rounds

"""The stubs catch mistakes (issue 15 item 4): typed use of the installed
package passes `mypy --strict`, and a typo in a role, band, outcome, format
or error code fails it."""

import subprocess
import sys
import textwrap

import pytest

GOOD = """
import sessiondb
from sessiondb import Role


def use(store: sessiondb.SessionStore, sid: str) -> None:
    store.append_transcript(sid, "user", "hi")
    store.append_entries(sid, [sessiondb.NewEntry("assistant", "[]", format="blocks")])
    role: Role = store.get_transcript(sid)[0].role
    print(role)
    if store.context_status(sid, raw_window=128_000).meter.band == "amber":
        store.complete_operation(sid, "op", "succeeded")
    store.import_file("x.jsonl", format="claude-code")
    try:
        store.get_session(sid)
    except sessiondb.SessionDBError as e:
        if e.code == "ERR_NOT_FOUND" and e.kind == "NotFound":
            pass
"""

TYPOS = {
    "role": 'store.append_transcript(sid, "usr", "hi")',
    "band": 'print(store.context_status(sid, raw_window=128_000).meter.band == "yellow")',
    "outcome": 'store.complete_operation(sid, "op", "success")',
    "format": 'store.append_entries(sid, [sessiondb.NewEntry("user", "x", format="json")])',
    "source format": 'store.import_file("x.jsonl", format="claude")',
    "error code": """
    try:
        store.get_session(sid)
    except sessiondb.SessionDBError as e:
        print(e.code == "ERR_NOTFOUND")
""",
}


def mypy(tmp_path, name, source):
    f = tmp_path / f"{name}.py"
    f.write_text(source)
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(f)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_typed_use_passes_mypy_strict(tmp_path):
    r = mypy(tmp_path, "good", GOOD)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("what", sorted(TYPOS))
def test_a_typo_fails_mypy_strict(tmp_path, what):
    body = textwrap.indent(textwrap.dedent(TYPOS[what]).strip(), "    ")
    src = f"import sessiondb\n\n\ndef use(store: sessiondb.SessionStore, sid: str) -> None:\n{body}\n"
    r = mypy(tmp_path, "typo", src)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "typo.py:" in r.stdout and "error:" in r.stdout, r.stdout


# ---- sessiondb.aio (issue 27 item 4): the async front is typed like the sync one.

GOOD_ASYNC = """
import sessiondb
from sessiondb.aio import AsyncSessionStore


async def use(path: str, key: bytes) -> None:
    async with await AsyncSessionStore.open(path, key=key) as store:
        s: sessiondb.Session = await store.create_session("chat", model="gpt-5")
        reveal_type(await store.create_session("x"))
        e = await store.append_transcript(s.id, "user", "hi")
        print(e.seq + 1, store.path.upper(), store.key_backend, store.closed)
        status = await store.context_status(s.id, raw_window=128_000)
        if status.meter.band == "amber":
            await store.complete_operation(s.id, "op", "succeeded")
        entries = await store.get_transcript(s.id)
        print(entries[0].role, len(await store.import_paths(["x.jsonl"])))
        async for entry in store.iter_transcript(s.id):
            print(entry.content)
        print(store.open_recovery_report().marked_unknown, (await store.stats()).key_file)
"""

ASYNC_MISTAKES = {
    "role typo": ('await store.append_transcript(sid, "usr", "hi")', 'Argument 2 to "append_transcript" of "AsyncSessionStore" has incompatible type "Literal[\'usr\']"'),
    "wrong keyword": ('await store.create_session(nam="x")', 'Unexpected keyword argument "nam" for "create_session" of "AsyncSessionStore"'),
    "missing await": ("print(store.get_session(sid).name)", '"Coroutine[Any, Any, Session]" has no attribute "name"'),
    "outcome typo": ('await store.complete_operation(sid, "op", "success")', 'Argument 3 to "complete_operation" of "AsyncSessionStore" has incompatible type "Literal[\'success\']"'),
    "unknown method": ("await store.get_sesion(sid)", '"AsyncSessionStore" has no attribute "get_sesion"'),
    "open argument": ('await AsyncSessionStore.open("x.db", key=1)', 'Argument "key" to "open" of "AsyncSessionStore" has incompatible type "int"'),
}


def test_typed_async_use_passes_mypy_strict(tmp_path):
    r = mypy(tmp_path, "good_async", GOOD_ASYNC)
    assert r.returncode == 0, r.stdout + r.stderr
    assert 'good_async.py:9: note: Revealed type is "sessiondb._native.Session"' in r.stdout, r.stdout


@pytest.mark.parametrize("what", sorted(ASYNC_MISTAKES))
def test_a_mistake_in_async_code_fails_mypy_strict(tmp_path, what):
    line, expected = ASYNC_MISTAKES[what]
    src = f"from sessiondb.aio import AsyncSessionStore\n\n\nasync def use(store: AsyncSessionStore, sid: str) -> None:\n    {line}\n"
    r = mypy(tmp_path, "mistake", src)
    assert r.returncode == 1, r.stdout + r.stderr
    assert f"mistake.py:5: error: {expected}" in r.stdout, r.stdout


def test_the_aio_stub_is_what_the_generator_writes_from_the_sync_stub():
    import os
    from pathlib import Path

    root = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
    r = subprocess.run([sys.executable, str(root / "python" / "scripts" / "aio_stub.py"), "--check"], capture_output=True, text=True)
    assert (r.returncode, r.stderr) == (0, "")


def test_every_sync_method_is_on_the_async_store_with_its_signature():
    import asyncio
    import inspect

    import sessiondb
    from sessiondb.aio import AsyncSessionStore

    sync = {n for n in vars(sessiondb.SessionStore) if not n.startswith("_")}
    missing = sorted(n for n in sync - {"open_default"} if not hasattr(AsyncSessionStore, n))
    assert missing == []
    assert asyncio.iscoroutinefunction(AsyncSessionStore.create_session)
    assert not asyncio.iscoroutinefunction(AsyncSessionStore.open_recovery_report)
    assert inspect.signature(AsyncSessionStore.create_session) == inspect.signature(sessiondb.SessionStore.create_session)

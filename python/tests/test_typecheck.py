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

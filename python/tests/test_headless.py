"""A machine with no keyring (issue 27 items 1 and 2): no D-Bus session bus
and a fresh HOME, as a container, CI job or SSH session has. The README's
example and the Agents SDK one-line switch run as written: the first open
creates the key in ~/.config/sessiondb/keys/ and says so once on stderr;
every later run finds it. The key is taken as bytes or as a key file's
base64 text; anything else is InvalidInputError."""

import base64
import glob
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import sessiondb

from conftest import KEY

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))


def headless_env(tmp_path):
    """This process's environment without D-Bus, XDG overrides or sessiondb
    settings, with HOME (and XDG_RUNTIME_DIR, where zbus looks for a bus) in tmp_path."""
    env = {k: v for k, v in os.environ.items() if k != "DBUS_SESSION_BUS_ADDRESS" and not k.startswith(("XDG_", "SESSIONDB_"))}
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "run").mkdir()
    env.update(HOME=str(home), XDG_RUNTIME_DIR=str(tmp_path / "run"))
    return env, home


def key_files(home):
    return sorted(glob.glob(str(home / ".config" / "sessiondb" / "keys" / "*.key")))


def warning(key_file):
    return (
        f"sessiondb: warning: no OS keyring is reachable, so the data key of this new database is in the key file {key_file} (mode 0600). "
        "Back it up (`sessiondb key export`): without it the sessions are lost. SESSIONDB_NO_KEY_FILE=1 turns this off.\n"
    )


def run(code, cwd, env):
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def readme_example():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)
    example = [b for b in blocks if b.startswith("# example.py")]
    assert len(example) == 1, "the README's Python example (a block starting `# example.py`)"
    return example[0]


def test_the_readme_python_example_runs_as_written_without_a_keyring(tmp_path):
    env, home = headless_env(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    code = readme_example()
    r = run(code, work, env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1 user Rename the login handler\n2 assistant Done.\nCtx 0% green\n"
    files = key_files(home)
    assert len(files) == 1
    assert r.stderr == warning(files[0])
    assert os.stat(files[0]).st_mode & 0o777 == 0o600
    assert (work / "session.jsonl").exists()
    # The second run finds the key: no warning, the first run's session is there.
    r = run(code + "\nwith sessiondb.SessionStore.open_default() as st:\n    print(len(st.list_sessions()), st.key_backend)\n", work, env)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.endswith("\n2 file\n"), r.stdout
    assert key_files(home) == files


AGENTS_SWITCH = textwrap.dedent(
    """
    import asyncio
    from sessiondb.agents import SessionDBSession

    async def main():
        session = SessionDBSession("user-123", "c.db")
        await session.add_items([{"role": "user", "content": "hi"}])
        print(len(await session.get_items()), session.store.key_backend)
        session.close()

    asyncio.run(main())
    """
)


def test_the_agents_sdk_one_line_switch_runs_without_a_keyring(tmp_path):
    env, home = headless_env(tmp_path)
    r = run(AGENTS_SWITCH, tmp_path, env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1 file\n"
    files = key_files(home)
    assert len(files) == 1 and r.stderr == warning(files[0])
    r = run(AGENTS_SWITCH, tmp_path, env)
    assert (r.returncode, r.stdout, r.stderr) == (0, "2 file\n", "")
    # The key file opens the database from any host: here as str and as bytes.
    text = Path(files[0]).read_text()
    for key in (text, text.encode(), text.strip(), base64.b64decode(text)):
        with sessiondb.SessionStore(str(tmp_path / "c.db"), key=key) as st:
            assert [s.id for s in st.list_sessions()] == ["user-123"]


def test_with_the_fallback_off_the_error_is_short_and_actionable(tmp_path):
    env, home = headless_env(tmp_path)
    env["SESSIONDB_NO_KEY_FILE"] = "1"
    r = run("import sessiondb\nsessiondb.SessionStore('c.db')\n", tmp_path, env)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last == (
        "sessiondb.errors.KeyStoreUnavailableError: key store unavailable: Secret Service (D-Bus): not running "
        "(no D-Bus session bus: a container, server, CI job or SSH session). Pass the key yourself (CLI --key-file FILE, "
        "made by `sessiondb key init --file FILE`; hosts: the `key` option), or allow the key file (unset SESSIONDB_NO_KEY_FILE)"
    )
    assert not (tmp_path / "c.db").exists() and key_files(home) == []


B64 = base64.b64encode(KEY).decode()


@pytest.mark.parametrize("key", [KEY, bytearray(KEY), B64, B64 + "\n", f"  {B64}\r\n", (B64 + "\n").encode()], ids=["bytes", "bytearray", "str", "str-newline", "str-spaces", "file-bytes"])
def test_the_key_is_bytes_or_the_base64_text_of_a_key_file(db_path, key):
    with sessiondb.SessionStore(db_path, key=KEY) as st:
        sid = st.create_session("k").id
    with sessiondb.SessionStore(db_path, key=key) as st:
        assert st.get_session(sid).name == "k"
        assert st.key_backend == "host-provided key bytes"


@pytest.mark.parametrize(
    "key,message",
    [
        (123, "key: expected bytes (the 32-byte data key) or str (the base64 text of a key file), got int"),
        (["x"], "key: expected bytes (the 32-byte data key) or str (the base64 text of a key file), got list"),
        ("not a key!", "key: not the base64 text of a data key (10 characters; a key file holds 44 characters of base64 and a newline) and not 32 bytes"),
        (B64[:40], "key: base64 of 30 bytes, a data key is 32 bytes (44 characters of base64)"),
        (KEY[:31], "key: 31 bytes, neither the 32-byte data key nor its base64 text (a key file's content)"),
        ("", "key: base64 of 0 bytes, a data key is 32 bytes (44 characters of base64)"),
    ],
)
def test_any_other_key_is_invalid_input(db_path, key, message):
    with pytest.raises(sessiondb.InvalidInputError) as ei:
        sessiondb.SessionStore(db_path, key=key)
    assert str(ei.value) == f"invalid input: {message}"
    assert not os.path.exists(db_path)

"""The README's Python example (the default store, OS keyring) and
python/README.md's first example (a key in hand), run as written (issue 27
item 5: every code block of the README and docs runs in a test; the block
checker is cli/tests/doc_blocks.rs)."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))


def block(doc: str, heading: str, lang: str) -> str:
    """The first `lang` block after `heading` in `doc`."""
    text = "\n" + (ROOT / doc).read_text(encoding="utf-8")
    at = text.index(f"\n{heading}\n")
    m = re.compile(rf"^```{lang}\n(.*?)^```$", re.S | re.M).search(text, at)
    assert m is not None, f"no {lang} block after {heading!r} in {doc}"
    return m.group(1)


def test_the_readme_python_example_runs_on_the_default_store(tmp_path):
    if shutil.which("gnome-keyring-daemon") is None or shutil.which("dbus-daemon") is None:
        pytest.skip("needs gnome-keyring-daemon and dbus-daemon (scripts/install-system-deps.sh) for the OS keyring")
    code = block("README.md", "## Python", "python")
    env = dict(os.environ, HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"))
    (tmp_path / "home").mkdir()
    r = subprocess.run(
        [str(ROOT / "scripts/with-secret-service.sh"), "--unlocked", sys.executable, "-c", code],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "1 user Rename the login handler\n2 assistant Done.\nCtx 0% green\n"
    assert (tmp_path / "state/sessiondb/sessions.db").is_file()
    assert '"text":"Rename the login handler"' in (tmp_path / "session.jsonl").read_text()


def test_the_package_readme_example_runs_with_a_key_in_hand(tmp_path):
    code = block("python/README.md", "# sessiondb (Python)", "python")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "Ctx 0%\n"
    assert (tmp_path / "sessions.db").is_file()

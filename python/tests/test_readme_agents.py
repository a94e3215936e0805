"""The README's "With the OpenAI Agents SDK (Python)" snippet, run verbatim (issue 16 item 7)."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))


def snippet(heading: str, lang: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    at = text.index(f"\n### {heading}\n")
    m = re.compile(rf"^```{lang}\n(.*?)^```$", re.S | re.M).search(text, at)
    assert m is not None, f"no {lang} block after {heading!r}"
    return m.group(1)


def test_the_readme_agents_sdk_snippet_runs_verbatim_offline(tmp_path):
    code = snippet("With the OpenAI Agents SDK (Python)", "python")
    assert len(code.splitlines()) <= 16
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "[{'role': 'assistant', 'content': 'lib.rs and main.rs'}]\n{'role': 'assistant', 'content': 'lib.rs and main.rs'}\n1\n"


def test_the_package_readme_advanced_session_snippet_runs(tmp_path):
    """python/README.md's "Branches, usage per turn, content lookup and TTL" block."""
    text = (ROOT / "python" / "README.md").read_text(encoding="utf-8")
    at = text.index("\n### Branches, usage per turn, content lookup and TTL\n")
    m = re.compile(r"^```python\n(.*?)^```$", re.S | re.M).search(text, at)
    assert m is not None
    r = subprocess.run([sys.executable, "-c", m.group(1)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout == "retry\n['main', 'retry']\nuser-123 2\n"

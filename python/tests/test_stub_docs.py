"""The stub's docstrings are the built module's (python/scripts/stubdoc.py
writes them from the Rust doc comments pyo3 keeps), so IDE hovers show the
same text as help() and the two cannot drift."""

import os
import sys
from pathlib import Path

import sessiondb._native

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(ROOT / "python" / "scripts"))
import stubdoc  # noqa: E402


def test_stub_docstrings_are_the_modules():
    pyi = ROOT / "python" / "python" / "sessiondb" / "_native.pyi"
    text = pyi.read_text(encoding="utf-8")
    assert stubdoc.render(sessiondb._native, text) == text, "run: python python/scripts/stubdoc.py (with the wheel installed)"


def test_every_class_and_documented_function_has_its_docstring_in_the_stub():
    text = (ROOT / "python" / "python" / "sessiondb" / "_native.pyi").read_text(encoding="utf-8")
    assert sessiondb._native.SessionStore.get_transcript.__doc__.splitlines()[0] in text
    assert sessiondb._native.meter.__doc__.splitlines()[0] in text


def test_a_generated_method_needs_no_hand_written_stub():
    """bridge/api.rs is the one declaration: stubdoc writes a generated
    method's or function's signature (and docstring) into the stub, so a
    stub without them renders to the same text as the real one."""
    pyi = ROOT / "python" / "python" / "sessiondb" / "_native.pyi"
    text = pyi.read_text(encoding="utf-8")
    lines = text.split("\n")
    start = lines.index(next(l for l in lines if l.startswith("    def fork_session(")))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("    def "))
    # fork_session is cut out whole, docstring and all.
    stripped = "\n".join(lines[:start] + lines[end:])
    assert "def fork_session(" not in stripped
    assert stubdoc.render(sessiondb._native, stripped).count("def fork_session(") == 1
    # A signature edited by hand is put back.
    edited = text.replace("at_seq: Optional[int] = None, summary", "at_seq: int = 0, summary", 1)
    assert edited != text
    assert stubdoc.render(sessiondb._native, edited) == text
    gen = sessiondb._native._bridge_stubs
    assert "    def fork_session(self, session_id: str, at_seq: Optional[int] = None, summary: Optional[str] = None) -> Session: ..." in gen.split("\n")

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

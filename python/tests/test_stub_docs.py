"""The stub's docstrings are the built module's (sessiondb-bridge writes
them from the doc comments pyo3 keeps; python/scripts/stubdoc.py those of
the hand-written part), so IDE hovers show the same text as help() and the
two cannot drift."""

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
    assert stubdoc.render(sessiondb._native, text) == text, "the generated stub's docstrings differ from the module's (bridge/src/pyi.rs)"


def test_every_class_and_documented_function_has_its_docstring_in_the_stub():
    text = (ROOT / "python" / "python" / "sessiondb" / "_native.pyi").read_text(encoding="utf-8")
    assert sessiondb._native.SessionStore.get_transcript.__doc__.splitlines()[0] in text
    assert sessiondb._native.meter.__doc__.splitlines()[0] in text


def test_the_hand_written_part_has_the_modules_docstrings():
    """sessiondb-bridge writes the stub from python/_native.hand.pyi: its
    docstrings (of what python/src declares by hand) are the module's too,
    so a doc comment changed there is fixed at its source."""
    hand = ROOT / "python" / "_native.hand.pyi"
    text = hand.read_text(encoding="utf-8")
    assert "    # bridge: methods\n" in text
    assert stubdoc.render(sessiondb._native, text) == text, "run: python python/scripts/stubdoc.py python/_native.hand.pyi (with the wheel installed)"

"""The built module against the one surface list (tests/api/surface.json,
issue 11 item 4), and the API table of docs/api.md against the same list (item 6).
A method, parameter, default or record field that differs fails here."""

import os
import sys
from pathlib import Path

import sessiondb._native

ROOT = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(ROOT / "tests" / "api"))
import surface  # noqa: E402


def test_module_matches_the_surface_list():
    assert surface.check_python(sessiondb._native) == []


def test_a_missing_method_a_field_or_another_default_is_reported():
    real = surface.python_surface(sessiondb._native)
    broken = {k: dict(v) for k, v in real.items()}
    del broken["methods"]["token_totals"]
    broken["records"]["Session"] = [f for f in real["records"]["Session"] if f != "entry_count"]
    broken["methods"]["get_transcript"] = [("session_id", False, None), ("from_seq", True, 1), ("limit", True, 10000)]
    assert sorted(surface.compare("python", broken)) == [
        "python: get_transcript(limit) default 10000 != listed 1000",
        "python: method token_totals (token_totals) is missing",
        "python: record Session lacks field entry_count",
    ]


def test_docs_api_table_is_the_surface_list():
    assert surface.check_readme(ROOT / "docs" / "api.md") == []


def test_error_classes_match_the_error_declaration():
    assert surface.check_errors() == []


def test_a_missing_error_class_attribute_or_kind_is_reported():
    texts = {k: p.read_text(encoding="utf-8") for k, p in surface.ERROR_FILES.items()}
    texts["errors.py"] = texts["errors.py"].replace("class ClosedError(SessionDBError):", "class ClosedErr(SessionDBError):")
    texts["errors.py"] = texts["errors.py"].replace("    waited_ms: int = 0\n", "")
    texts["errors.d.ts"] = texts["errors.d.ts"].replace("  readonly remedy: string\n", "")
    texts["errors.js"] = texts["errors.js"].replace("  ['Closed', 'ERR_CLOSED', 'ClosedError'],\n", "")
    problems = surface.check_errors(texts)
    assert problems[:3] == [
        "errors.py: BusyError lacks attribute waited_ms",
        "errors.py: kind Closed: class ClosedError is missing",
        "errors.py: class ClosedErr is not in the error declaration of bridge/api.rs",
    ]
    assert problems[3].startswith("errors.js: KINDS [") and problems[3].endswith(", ('Closed', 'ERR_CLOSED', 'ClosedError')]")
    assert problems[4:] == ["errors.d.ts: KeyStoreUnavailableError lacks field remedy"]

"""The built module against the one surface list (tests/api/surface.json,
issue 11 item 4), and the README's API table against the same list (item 6).
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


def test_readme_api_table_is_the_surface_list():
    assert surface.check_readme(ROOT / "README.md") == []

"""Search across the encrypted history (issue 26): exact hits for fixed
queries, highlight ranges that slice Python's own strings (code points),
paging, the per-session mode, errors, and a second handle's entries."""

import pytest

import sessiondb
from sessiondb import SearchOptions
from sessiondb.errors import InvalidInputError

from conftest import KEY


@pytest.fixture
def corpus(store):
    a = store.create_session("Flaky migration hunt")
    b = store.create_session(None)
    store.append_entries(
        a.id,
        [
            sessiondb.NewEntry("user", "Why does retry_busy fail in openDatabase?"),
            sessiondb.NewEntry("assistant", "Look at core/src/store/mod.rs: ERR_SOCKET_TIMEOUT at 0x7f3a"),
        ],
    )
    store.append_entries(b.id, [sessiondb.NewEntry("user", "数据库迁移失败了 😀 please retry")])
    return store, a.id, b.id


def keys(results):
    return sorted((h.session_id, h.seq) for h in results.hits)


def test_fixed_queries_give_exact_hits(corpus):
    store, a, b = corpus
    assert keys(store.search("retry_busy")) == [(a, 1)]
    assert keys(store.search("database")) == [(a, 1)]
    assert keys(store.search("core/src/store/mod.rs")) == [(a, 2)]
    assert keys(store.search("store")) == [(a, 2)]
    assert keys(store.search("0x7f3a")) == [(a, 2)]
    assert keys(store.search('"retry_busy fail"')) == [(a, 1)]
    assert keys(store.search("retr*")) == sorted([(a, 1), (b, 1)])
    assert keys(store.search("retry -迁移")) == [(a, 1)]
    assert keys(store.search("迁移")) == [(b, 1)]
    assert keys(store.search("hunt in:title")) == [(a, 0)]
    assert keys(store.search("retry role:user")) == sorted([(a, 1), (b, 1)])
    assert keys(store.search(f"fail session:{a}")) == [(a, 1)]
    hit = store.search("0x7f3a").hits[0]
    assert (hit.role, hit.field, hit.seq) == ("assistant", "text", 2)


def test_highlights_slice_python_strings(corpus):
    store, a, b = corpus
    for q, word in [("retry", "retry"), ("迁移", "迁移"), ("ERR_SOCKET_TIMEOUT", "ERR_SOCKET_TIMEOUT")]:
        for hit in store.search(q).hits:
            assert [hit.snippet[h.start : h.end] for h in hit.highlights] == [word], (q, hit.snippet)
    hit = next(h for h in store.search("retry").hits if h.session_id == b)
    assert hit.snippet == "数据库迁移失败了 😀 please retry"
    # Code points: the emoji is one index (UTF-16 would count two).
    assert [(h.start, h.end) for h in hit.highlights] == [(18, 23)]


def test_pages_sessions_mode_and_errors(corpus):
    store, a, b = corpus
    p1 = store.search("retr*", SearchOptions(limit=1))
    assert (p1.total, len(p1.hits)) == (2, 1)
    p2 = store.search("retr*", SearchOptions(limit=1, cursor=p1.next_cursor))
    assert p2.next_cursor is None
    assert sorted([p1.hits[0].session_id, p2.hits[0].session_id]) == sorted([a, b])
    s = store.search("retr* OR fail", SearchOptions(sessions=True))
    assert (s.total, sorted(h.session_id for h in s.hits)) == (2, sorted([a, b]))
    with pytest.raises(InvalidInputError, match="unclosed quote at character 7"):
        store.search('retry "open')
    with pytest.raises(InvalidInputError):
        store.search(" ".join(["w"] * 10_000))
    report = store.rebuild_search_index()
    assert report.documents == 5


def test_another_handle_finds_new_entries(corpus, db_path):
    store, a, b = corpus
    with sessiondb.SessionStore(db_path, key=KEY) as other:
        assert keys(other.search("wombat")) == []
        e = store.append_transcript(a, "user", "a wombat appears")
        assert keys(other.search("wombat")) == [(a, e.seq)]
        store.delete_session(a)
        assert keys(other.search("wombat")) == []


def test_the_python_block_of_docs_search_md_runs(tmp_path):
    import contextlib
    import io
    import os
    import re
    from pathlib import Path

    root = Path(os.environ.get("SESSIONDB_REPO", Path(__file__).resolve().parents[2]))
    doc = (root / "docs" / "search.md").read_text(encoding="utf-8")
    code = re.search(r"^```python\n(.*?)^```$", doc, re.S | re.M).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {"DB_PATH": str(tmp_path / "sessions.db"), "KEY": KEY})
    assert out.getvalue() == "True 1 ['retry_busy']\n"


# The cases of tests/conformance/search/ run in test_conformance.py, with every
# other conformance case (the search call is in store_steps.py).

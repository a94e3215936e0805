"""sessiondb.aio (calls off the event loop) and the OpenAI Agents SDK session
adapter, checked against the SDK's own SQLiteSession (issue 16)."""

import asyncio
import json
import time

import pytest

import sessiondb
from sessiondb.agents import ITEM_KEY, SessionDBSession
from sessiondb.aio import AsyncSessionStore

KEY = bytes(range(32))

agents = pytest.importorskip("agents", reason="openai-agents is not installed (scripts/test-python.sh installs it)")
from agents.memory.session import Session  # noqa: E402
from agents import SQLiteSession  # noqa: E402

ITEMS = [
    {"role": "user", "content": "What is in src/?"},
    {"type": "function_call", "call_id": "c1", "name": "ls", "arguments": "{\"path\": \"src\"}", "id": "fc_1", "status": "completed"},
    {"type": "function_call_output", "call_id": "c1", "output": "lib.rs\nmain.rs"},
    {"role": "assistant", "content": [{"type": "output_text", "text": "Two files: lib.rs and main.rs.", "annotations": []}], "id": "m_1", "type": "message", "status": "completed"},
    {"role": "user", "content": "Thanks ✓ 日本"},
]


async def lag_during(coro_fn) -> float:
    """Largest delay (s) of a 1 ms ticker while `coro_fn()` runs."""
    worst = 0.0
    done = asyncio.Event()

    async def probe():
        nonlocal worst
        while not done.is_set():
            t = time.perf_counter()
            await asyncio.sleep(0.001)
            worst = max(worst, time.perf_counter() - t - 0.001)

    p = asyncio.create_task(probe())
    await asyncio.sleep(0.01)
    result = await coro_fn()
    done.set()
    await p
    return worst, result


def test_session_db_session_is_an_sdk_session_and_behaves_like_sqlite_session(tmp_path):
    async def main():
        ours = SessionDBSession("sdk-1", path=str(tmp_path / "s.db"), key=KEY)
        theirs = SQLiteSession("sdk-1", str(tmp_path / "sdk.sqlite"))
        assert isinstance(ours, Session)
        for s in (ours, theirs):
            assert await s.get_items() == []
            assert await s.pop_item() is None
            await s.add_items(ITEMS[:3])
            await s.add_items(ITEMS[3:])
        assert await ours.get_items() == await theirs.get_items() == ITEMS
        for limit in (1, 2, 5, 9):
            assert await ours.get_items(limit) == await theirs.get_items(limit) == ITEMS[-limit:]
        assert await ours.pop_item() == await theirs.pop_item() == ITEMS[4]
        assert await ours.get_items() == await theirs.get_items() == ITEMS[:4]
        await ours.add_items([{"role": "user", "content": "again"}])
        await theirs.add_items([{"role": "user", "content": "again"}])
        assert await ours.get_items(2) == await theirs.get_items(2) == [ITEMS[3], {"role": "user", "content": "again"}]
        await ours.clear_session()
        await theirs.clear_session()
        assert await ours.get_items() == await theirs.get_items() == []
        await ours.add_items(ITEMS[:1])
        assert await ours.get_items() == ITEMS[:1]
        ours.close()

    asyncio.run(main())


def test_items_are_stored_whole_encrypted_with_their_text_as_content(tmp_path):
    async def main():
        s = SessionDBSession("sdk-2", path=str(tmp_path / "s.db"), key=KEY)
        await s.add_items(ITEMS)
        popped = await s.pop_item()
        assert popped == ITEMS[4]
        store = s.store
        # The conversation, not JSON, is what the meter and compaction count.
        t = store.get_transcript("sdk-2")
        assert [(e.seq, e.role, e.content) for e in t] == [
            (1, "user", "What is in src/?"),
            (2, "assistant", 'ls({"path": "src"})'),
            (3, "tool", "lib.rs\nmain.rs"),
            (4, "assistant", "Two files: lib.rs and main.rs."),
        ]
        # pop_item retracted entry 5: it is out of reads and counts, and the journal says so.
        assert store.get_session("sdk-2").entry_count == 4
        assert [e.kind for e in store.journal_events("sdk-2")].count("EntryRetracted") == 1
        # The item is the entry's structured item, its JSON text whole.
        meta = store.get_transcript_with_meta("sdk-2", 2, 1)[0][1]
        assert meta.item == json.dumps(ITEMS[1], ensure_ascii=False)
        assert meta.extra == {}
        s.close()
        raw = (tmp_path / "s.db").read_bytes()
        assert b"Two files" not in raw and b"function_call_output" not in raw

    asyncio.run(main())


def test_append_agents_items_stores_each_item_whole_with_its_role_and_text_once_per_key(tmp_path):
    from sessiondb.agents import item_role, item_text

    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as st:
        sid = st.create_session(id="native").id
        texts = [json.dumps(i, ensure_ascii=False) for i in ITEMS]
        assert st.append_agents_items(sid, texts, "turn-1", 1_700_000_000_123) == 1
        # A retry under the same key stores nothing and gives the first call's seq.
        assert st.append_agents_items(sid, texts, "turn-1", 1_700_000_000_123) == 1
        rows = st.get_transcript_with_meta(sid)
        assert [(e.seq, e.role, e.content, e.created_at_ms, m.item) for e, m in rows] == [
            (n, item_role(i), item_text(i), 1_700_000_000_123, t) for n, (i, t) in enumerate(zip(ITEMS, texts), 1)
        ]
        assert st.append_agents_items(sid, []) == 0
        with pytest.raises(sessiondb.InvalidInputError):
            st.append_agents_items(sid, [texts[0], "[1]"])
        with pytest.raises(sessiondb.ConflictError):
            st.append_agents_items(sid, texts[:1], "turn-1")
        assert st.get_session(sid).entry_count == len(ITEMS)


def test_items_written_by_the_earlier_extra_form_still_read_back(tmp_path):
    async def main():
        path = str(tmp_path / "s.db")
        with sessiondb.SessionStore(path, key=KEY) as st:
            st.create_session(id="old")
            # As the adapter wrote them before EntryMeta.item: JSON under extra["agents_item"].
            st.append_entries_with_meta("old", [
                (sessiondb.NewEntry("user", "What is in src/?"), sessiondb.EntryMeta(extra={ITEM_KEY: json.dumps(ITEMS[0])})),
                (sessiondb.NewEntry("assistant", "imported"), sessiondb.EntryMeta()),
            ])
        s = SessionDBSession("old", path=path, key=KEY)
        await s.add_items(ITEMS[1:3])
        assert await s.get_items() == [ITEMS[0], {"role": "assistant", "content": "imported"}, ITEMS[1], ITEMS[2]]
        assert await s.get_items(3) == [{"role": "assistant", "content": "imported"}, ITEMS[1], ITEMS[2]]
        assert await s.pop_item() == ITEMS[2]
        assert await s.pop_item() == ITEMS[1]
        assert await s.pop_item() == {"role": "assistant", "content": "imported"}
        assert await s.pop_item() == ITEMS[0]
        assert await s.pop_item() is None
        s.close()

    asyncio.run(main())


@pytest.mark.parametrize("page", [4, 1000])
def test_get_items_pages_skip_retracted_entries_and_read_entries_without_an_item(tmp_path, monkeypatch, page):
    import sessiondb.agents as adapter

    monkeypatch.setattr(adapter, "PAGE", page)
    n = 2 * page + 3  # pages of `page`, the last one short

    async def main():
        path = str(tmp_path / "s.db")
        s = SessionDBSession("pages", path=path, key=KEY)
        want = [{"role": "user", "content": f"m{i}", "i": i} for i in range(n)]
        await s.add_items(want)
        st = s.store
        # Entries without an item among them (an import, an older writer), and retractions.
        st.append_transcript("pages", "assistant", "plain")
        st.append_entries_with_meta("pages", [(sessiondb.NewEntry("user", "old"), sessiondb.EntryMeta(extra={ITEM_KEY: json.dumps(ITEMS[0])}))])
        want += [{"role": "assistant", "content": "plain"}, ITEMS[0]]
        for seq in (1, page, page + 1, n):  # the first, both sides of a page boundary, the last item
            st.retract_entry("pages", seq)
            want[seq - 1] = None
        want = [w for w in want if w is not None]
        assert await s.get_items() == want
        for limit in (1, 2, page, page + 1, len(want), len(want) + 5, 10_000, 10_001):
            assert await s.get_items(limit) == want[-limit:], limit
        assert await s.pop_item() == ITEMS[0]
        assert await s.get_items(3) == want[-4:-1]
        assert await s.get_items() == want[:-1]
        s.close()

    asyncio.run(main())


def test_a_window_makes_get_items_the_active_context_compacted_when_it_overflows(tmp_path):
    async def main():
        with pytest.raises(sessiondb.InvalidInputError):
            SessionDBSession("x", path=str(tmp_path / "s.db"), key=KEY, window=0)
        s = SessionDBSession("gov", path=str(tmp_path / "s.db"), key=KEY, window=10_000)
        # About 1,000 tokens each (estimate: 3 bytes a token); capacity 7,152.
        turns = [{"role": "user" if i % 2 else "assistant", "content": f"turn {i:02} " + "word " * 599} for i in range(1, 13)]
        await s.add_items(turns[:2])
        # Within capacity: the items as they are, nothing recorded.
        assert await s.get_items() == turns[:2]
        assert s.store.list_context_extensions("gov") == []
        await s.add_items(turns[2:])
        items = await s.get_items()
        # Over capacity: compacted first; the oldest turns became one summary item.
        plan = s.store.recover_context_governance("gov").history[0].plan
        run = plan.transformations[0]
        assert (run.seq, run.last_seq) == (1, len(plan.compacted_seqs))
        assert items[0] == {"role": "user", "content": run.summary}
        assert items[1:] == turns[run.last_seq:]
        assert plan.tokens_after * 100 <= plan.capacity * 70
        # The stored history is unchanged, and a second call changes nothing.
        assert len(s.store.get_transcript("gov")) == 12
        assert await s.get_items() == items
        assert len(s.store.list_context_extensions("gov")) == 1
        assert await s.get_items(2) == turns[-2:]
        s.close()

    asyncio.run(main())


def test_a_window_reads_its_verbatim_items_across_pages(tmp_path, monkeypatch):
    import sessiondb.agents as adapter

    monkeypatch.setattr(adapter, "PAGE", 2)

    async def main():
        s = SessionDBSession("gov", path=str(tmp_path / "s.db"), key=KEY, window=10_000)
        turns = [{"role": "user" if i % 2 else "assistant", "content": f"turn {i:02} " + "word " * 599} for i in range(1, 13)]
        await s.add_items(turns)
        s.store.append_transcript("gov", "user", "plain")  # an entry without an item
        s.store.retract_entry("gov", 12)
        items = await s.get_items()
        run = s.store.recover_context_governance("gov").history[0].plan.transformations[0]
        assert items[0] == {"role": "user", "content": run.summary}
        assert items[1:] == turns[run.last_seq:11] + [{"role": "user", "content": "plain"}]
        assert await s.get_items(2) == [turns[10], {"role": "user", "content": "plain"}]
        s.close()

    asyncio.run(main())


def test_aio_store_keeps_the_event_loop_running_during_a_10000_entry_read(tmp_path):
    db = str(tmp_path / "s.db")
    with sessiondb.SessionStore(db, key=KEY) as st:
        sid = st.create_session("big").id
        body = "x" * 2000
        for i in range(10):
            st.append_entries(sid, [sessiondb.NewEntry("user", f"{i}:{j}:{body}") for j in range(1000)])

    async def main():
        store = await AsyncSessionStore.open(db, key=KEY)
        # The read runs off the loop: a task scheduled after it runs while it
        # is still in flight (a read on the loop thread would finish first).
        read = asyncio.ensure_future(store.get_transcript(sid, 1, 10_000))
        seen = []

        async def marker():
            seen.append(read.done())

        page, _ = await asyncio.gather(read, marker())
        assert seen == [False]
        assert len(page) == 10_000 and page[-1].content.startswith("9:999:")
        # The synchronous call on the loop thread stalls it more than the
        # awaited one (python/bench/aio_loop_lag.py prints both figures).
        lag, _ = await lag_during(lambda: store.get_transcript(sid, 1, 10_000))

        async def blocking():
            return store.sync.get_transcript(sid, 1, 10_000)

        sync_lag, _ = await lag_during(blocking)
        assert sync_lag > lag
        n = 0
        async for _ in store.iter_transcript(sid, page_size=4000):
            n += 1
        assert n == 10_000
        assert store.path == store.sync.path
        with pytest.raises(sessiondb.NotFoundError):
            await store.get_session("missing")
        await store.close()

    asyncio.run(main())

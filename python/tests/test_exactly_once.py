"""Exactly once (issue 29 item 2): appends under an idempotency key, and the
Agents SDK adapter and ``sessiondb.aio`` under cancellation and retry."""

import asyncio

import pytest

import sessiondb
from sessiondb.agents import SessionDBSession
from sessiondb.aio import _READS, AsyncSessionStore

KEY = bytes(range(32))


def test_a_retried_append_with_its_key_is_stored_once(tmp_path):
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as st:
        sid = st.create_session("k").id
        first = st.append_entries(sid, [sessiondb.NewEntry("user", "a"), sessiondb.NewEntry("user", "b")], idempotency_key="turn-1")
        again = st.append_entries(sid, [sessiondb.NewEntry("user", "a"), sessiondb.NewEntry("user", "b")], "turn-1")
        assert [(e.seq, e.content, e.created_at_ms) for e in again] == [(e.seq, e.content, e.created_at_ms) for e in first]
        assert [e.seq for e in first] == [1, 2]
        assert len(st.get_transcript(sid)) == 2
        with pytest.raises(sessiondb.ConflictError, match="idempotency key `turn-1` was already used for other entries"):
            st.append_entries(sid, [sessiondb.NewEntry("user", "other")], idempotency_key="turn-1")
        with pytest.raises(sessiondb.InvalidInputError, match="idempotency key: an event id must be 1..=128 characters"):
            st.append_entries(sid, [sessiondb.NewEntry("user", "x")], idempotency_key="a b")
        meta = [(sessiondb.NewEntry("user", "m"), sessiondb.EntryMeta(model="gpt"))]
        assert st.append_entries_with_meta(sid, meta, idempotency_key="m-1")[0].seq == 3
        assert st.append_entries_with_meta(sid, meta, idempotency_key="m-1")[0].seq == 3
        assert len(st.get_transcript(sid)) == 3


def test_every_read_the_aio_store_runs_concurrently_is_a_store_method():
    assert sorted(n for n in _READS if not callable(getattr(sessiondb.SessionStore, n, None))) == []


def test_1000_cancelled_and_retried_add_items_store_every_item_once_in_order(tmp_path):
    turns = [[{"role": "user", "content": f"turn {t} item {i}"} for i in range(3)] for t in range(1000)]

    async def main():
        s = SessionDBSession("c", path=str(tmp_path / "s.db"), key=KEY)
        await s.add_items([{"role": "system", "content": "start"}])
        interrupted = 0
        for t, turn in enumerate(turns):
            call = asyncio.ensure_future(s.add_items(turn))
            # Cancel before the call starts, while it waits for the worker,
            # or after it has been handed over; or time it out.
            for _ in range(t % 4):
                await asyncio.sleep(0)
            if t % 5 == 4:
                try:
                    await asyncio.wait_for(call, timeout=0)
                except asyncio.TimeoutError:
                    interrupted += 1
            else:
                call.cancel()
                try:
                    await call
                except asyncio.CancelledError:
                    interrupted += 1
            await s.add_items(turn)  # the retry
        items = await s.get_items()
        s.close()
        return interrupted, items

    interrupted, items = asyncio.run(main())
    assert interrupted > 900  # nearly every call was interrupted (some finish first)
    assert items == [{"role": "system", "content": "start"}] + [item for turn in turns for item in turn]


def test_the_same_items_added_twice_on_purpose_are_stored_twice(tmp_path):
    async def main():
        s = SessionDBSession("d", path=str(tmp_path / "s.db"), key=KEY)
        ok = [{"role": "user", "content": "ok"}]
        await s.add_items(ok)
        await s.add_items(ok)
        call = asyncio.ensure_future(s.add_items(ok))
        await asyncio.sleep(0)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await s.add_items(ok)  # the retry of the cancelled third: once
        await s.add_items(ok)  # a fourth, new call
        items = await s.get_items()
        s.close()
        return items

    assert asyncio.run(main()) == [{"role": "user", "content": "ok"}] * 4


def test_aio_writes_land_in_call_order_even_when_cancelled(tmp_path):
    async def main():
        store = await AsyncSessionStore.open(str(tmp_path / "s.db"), key=KEY)
        sid = (await store.create_session("o")).id
        for i in range(200):
            call = asyncio.ensure_future(store.append_entries(sid, [sessiondb.NewEntry("user", f"{i}")], idempotency_key=f"k{i}"))
            await asyncio.sleep(0)
            call.cancel()
            try:
                await call
            except asyncio.CancelledError:
                pass
            await store.append_entries(sid, [sessiondb.NewEntry("user", f"{i}")], idempotency_key=f"k{i}")
        page = await store.get_transcript(sid, 1, 1000)
        await store.close()
        return [e.content for e in page]

    assert asyncio.run(main()) == [str(i) for i in range(200)]


def test_aio_10000_gathered_appends_land_in_call_order_and_a_failing_one_raises_its_class(tmp_path):
    """Issue 33 item 2: 10,000 appends in flight at once (one gather) are
    stored in call order, each returns its own entry, the one to a missing
    session raises NotFoundError alone."""

    async def main():
        store = await AsyncSessionStore.open(str(tmp_path / "s.db"), key=KEY)
        sid = (await store.create_session("burst")).id
        calls = [store.append_transcript(sid, "user", f"m{i}") for i in range(10_000)]
        calls.insert(5_000, store.append_transcript("no-such-session", "user", "lost"))
        out = await asyncio.gather(*calls, return_exceptions=True)
        page = await store.get_transcript(sid, 1, 10_000)
        await store.close()
        return out, page

    out, page = asyncio.run(main())
    assert type(out[5_000]) is sessiondb.NotFoundError
    ok = out[:5_000] + out[5_001:]
    assert [(e.seq, e.content) for e in ok] == [(i + 1, f"m{i}") for i in range(10_000)]
    assert [(e.seq, e.content) for e in page] == [(i + 1, f"m{i}") for i in range(10_000)]


def test_aio_write_results_reach_the_loop_in_slices_of_at_most_256(monkeypatch):
    """One loop turn settles at most ``_SLICE_N`` write results; the rest
    wait for the next turn (so timers run between slices), oldest first."""
    import sessiondb.aio as aio

    monkeypatch.setattr(aio, "_SLICE_S", 60.0)  # only the count bounds a slice here

    async def main():
        w = aio._Writer(asyncio.get_running_loop())
        futs = [w.loop.create_future() for _ in range(600)]
        w.done.extend((f, True, i) for i, f in enumerate(futs))
        w.scheduled = True
        w._drain()
        first = sum(f.done() for f in futs)
        await asyncio.sleep(0)
        second = sum(f.done() for f in futs)
        await asyncio.sleep(0)
        third = sum(f.done() for f in futs)
        w.shutdown()
        return first, second, third, [f.result() for f in futs], w.scheduled

    first, second, third, results, scheduled = asyncio.run(main())
    assert (first, second, third) == (256, 512, 600)
    assert results == list(range(600))
    assert scheduled is False


def test_session_settings_limit_and_non_positive_limits_behave_as_the_sdks_sqlite_session(tmp_path):
    """Issue 29 item 1 (part): ``session_settings`` and ``get_items(limit)``
    for 0 and negative limits, side by side with the SDK's own session."""
    agents = pytest.importorskip("agents", reason="openai-agents is not installed (scripts/test-python.sh installs it)")
    from agents.memory.session_settings import SessionSettings

    items = [{"role": "user", "content": f"m{i}"} for i in range(5)]

    async def main():
        ours = SessionDBSession("st", path=str(tmp_path / "s.db"), key=KEY, session_settings=SessionSettings(limit=2))
        theirs = agents.SQLiteSession("st", str(tmp_path / "sdk.sqlite"), session_settings=SessionSettings(limit=2))
        dict_settings = SessionDBSession("st", store=ours.store, session_settings={"limit": 3})
        out = []
        for s in (ours, theirs):
            await s.add_items(items)
            out.append([await s.get_items(), await s.get_items(4), await s.get_items(0), await s.get_items(-1), s.session_settings.limit])
        out.append(await dict_settings.get_items())
        ours.close()
        return out

    ours, theirs, dicted = asyncio.run(main())
    assert ours == theirs
    assert ours == [items[-2:], items[-4:], [], items, 2]
    assert dicted == items[-3:]


def test_replace_tail_items_swaps_the_matching_tail_once(tmp_path):
    """The store's atomic tail replacement (the JS Agents SDK session's
    history transactions), from Python: a match replaces, a retry with the
    key is a no-op, a mismatch is ConflictError and changes nothing."""
    with sessiondb.SessionStore(str(tmp_path / "s.db"), key=KEY) as st:
        sid = st.create_session("t").id

        def row(text):
            return (sessiondb.NewEntry("user", text), sessiondb.EntryMeta(item='{"role":"user","content":"%s"}' % text))

        st.append_entries_with_meta(sid, [row("a"), row("b")])
        got = st.replace_tail_items(sid, ['{"content":"b","role":"user"}'], [row("c"), row("d")], idempotency_key="op-1")
        assert [(e.seq, e.content) for e in got] == [(3, "c"), (4, "d")]
        again = st.replace_tail_items(sid, ['{"content":"b","role":"user"}'], [row("c"), row("d")], idempotency_key="op-1")
        assert [(e.seq, e.content) for e in again] == [(3, "c"), (4, "d")]
        with pytest.raises(sessiondb.ConflictError, match="no longer hold the expected items"):
            st.replace_tail_items(sid, ['{"role":"user","content":"b"}'], [row("e")])
        assert [e.content for e in st.get_transcript(sid)] == ["a", "c", "d"]

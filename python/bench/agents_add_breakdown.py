"""Where the Agents SDK adapter's add_items() time goes (issue 29 item 4).

The same turns as bench_agents_adapter.py (10 items each), TURNS of them
added several ways into fresh sessions, each a median over ROUNDS rounds, in
microseconds per turn: the adapter's Python preparation alone (each item's
JSON text), the native append_agents_items of those texts (roles and texts
derived in Rust; with an idempotency key, as the adapter calls it), the
earlier path for comparison (roles, texts and NewEntry/EntryMeta records
built in Python, then append_entries_with_meta), the adapter's synchronous
_add (preparation and append), the whole awaited
add_items (plus the hop to its worker thread), an empty hop to a
one-thread executor (the floor of any store that runs its writes off the
event loop, as the SDK's sessions do with asyncio.to_thread), and the SDK's
SQLiteSession with synchronous=NORMAL doing the same turns; then, by CPU
time of every thread (time.process_time, which the machine's load moves
less), _add on the calling thread, the same _add on a one-thread executor,
and an empty hop.

Run: scripts/bench-python.sh agents_add_breakdown.py
Env: BENCH_TURNS (default 300), BENCH_ROUNDS (default 5).
"""

import asyncio
import concurrent.futures
import json
import os
import statistics
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_agents_adapter import turn  # noqa: E402

from sessiondb import EntryMeta, NewEntry  # noqa: E402
from sessiondb.agents import SessionDBSession, _dict, _dumps, item_role, item_text  # noqa: E402

TURNS = int(os.environ.get("BENCH_TURNS", "300"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
KEY = bytes(range(32))


def prepare(items):
    """What the adapter prepares in Python: each item's JSON text."""
    return [_dumps(_dict(i)) for i in items]


def prepare_records(items):
    """The earlier preparation: role, text and the two records per item."""
    rows = []
    for item in items:
        d = _dict(item)
        rows.append((NewEntry(item_role(d), item_text(d)), EntryMeta(item=json.dumps(d, ensure_ascii=False))))
    return rows


def main():
    turns = [turn(t) for t in range(TURNS)]
    results = {}

    def record(name, seconds):
        results.setdefault(name, []).append(seconds / TURNS * 1e6)

    for r in range(ROUNDS):
        d = tempfile.mkdtemp()
        s = SessionDBSession(f"a{r}", path=os.path.join(d, "x.db"), key=KEY)
        st = s.store
        t0 = time.perf_counter()
        prepared = [prepare(t) for t in turns]
        record("Python preparation (item JSON texts)", time.perf_counter() - t0)

        sid = st.create_session().id
        t0 = time.perf_counter()
        for texts in prepared:
            st.append_agents_items(sid, texts, uuid.uuid4().hex)
        record("native append_agents_items (prepared, keyed)", time.perf_counter() - t0)

        t0 = time.perf_counter()
        records = [prepare_records(t) for t in turns]
        record("earlier: Python roles, texts, JSON, records", time.perf_counter() - t0)
        sid3 = st.create_session().id
        t0 = time.perf_counter()
        for rows in records:
            st.append_entries_with_meta(sid3, rows, uuid.uuid4().hex)
        record("earlier: native append_entries_with_meta (keyed)", time.perf_counter() - t0)

        sid2 = st.create_session().id
        t0, c0 = time.perf_counter(), time.process_time()
        for t in turns:
            s._add(t, uuid.uuid4().hex, None, sid2)
        record("adapter _add (preparation + append)", time.perf_counter() - t0)
        record("CPU (every thread): _add on this thread", time.process_time() - c0)

        async def awaited():
            # The same _add on a one-thread executor, by CPU time: what the
            # work itself costs on the worker thread, the hop's CPU included.
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
            loop = asyncio.get_running_loop()
            sid4 = st.create_session().id
            c0 = time.process_time()
            for t in turns:
                await loop.run_in_executor(pool, s._add, t, uuid.uuid4().hex, None, sid4)
            record("CPU (every thread): _add on a one-thread executor", time.process_time() - c0)
            c0 = time.process_time()
            for _ in turns:
                await loop.run_in_executor(pool, int)
            record("CPU (every thread): empty hop", time.process_time() - c0)
            pool.shutdown()
            t0 = time.perf_counter()
            for t in turns:
                await s.add_items(t)
            record("adapter add_items, awaited (+ worker hop)", time.perf_counter() - t0)
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
            loop = asyncio.get_running_loop()
            t0 = time.perf_counter()
            for _ in turns:
                await loop.run_in_executor(pool, int)
            record("empty hop to a one-thread executor (floor)", time.perf_counter() - t0)
            pool.shutdown()
            try:
                from bench_agents_adapter import sessions
            except ImportError:
                return
            sq = sessions(d, f"n{r}")["agents SQLiteSession NORMAL"]
            t0 = time.perf_counter()
            for t in turns:
                await sq.add_items(t)
            record("SDK SQLiteSession NORMAL add_items, awaited", time.perf_counter() - t0)

        asyncio.run(awaited())

    print(f"{TURNS} turns of 10 items, median of {ROUNDS} rounds, microseconds per turn")
    for name, v in results.items():
        print(f"  {name:52} {statistics.median(v):8.1f} us")


if __name__ == "__main__":
    main()

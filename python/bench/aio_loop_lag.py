"""How long sessiondb.aio stalls the event loop during a 10,000-entry read,
against the synchronous call made on the loop thread, in one run.

A 1 ms ticker runs on the loop while `get_transcript(sid, 1, 10_000)` (entries
of 2 KB) runs, awaited through `AsyncSessionStore` and then called directly
(`store.sync`). Printed: the worst tick delay of each of ROUNDS interleaved
rounds in ms, the medians, and their ratio (sync / aio). The README's goal for
the awaited call is a stall of at most 10 ms.

Run: scripts/bench-python.sh aio_loop_lag.py
Env: BENCH_ROUNDS (default 9).
"""

import asyncio
import os
import statistics
import tempfile
import time

import sessiondb
from sessiondb.aio import AsyncSessionStore

KEY = bytes(range(32))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "9"))


async def lag_during(coro_fn):
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
    await coro_fn()
    done.set()
    await p
    return worst


def main():
    with tempfile.TemporaryDirectory() as d:
        db = os.path.join(d, "s.db")
        with sessiondb.SessionStore(db, key=KEY) as st:
            sid = st.create_session("big").id
            body = "x" * 2000
            for i in range(10):
                st.append_entries(sid, [sessiondb.NewEntry("user", f"{i}:{j}:{body}") for j in range(1000)])

        async def run():
            store = await AsyncSessionStore.open(db, key=KEY)

            async def blocking():
                return store.sync.get_transcript(sid, 1, 10_000)

            aio, sync = [], []
            for _ in range(ROUNDS):
                aio.append(await lag_during(lambda: store.get_transcript(sid, 1, 10_000)) * 1000)
                sync.append(await lag_during(blocking) * 1000)
            await store.close()
            return aio, sync

        aio, sync = asyncio.run(run())
    print("rounds (ms):", " ".join(f"aio {a:.1f} / sync {s:.1f}" for a, s in zip(aio, sync)))
    ma, ms = statistics.median(aio), statistics.median(sync)
    print(f"event-loop stall during a 10,000-entry read: aio median {ma:.1f} ms, sync median {ms:.1f} ms, sync/aio {ms / ma:.1f}x (goal: aio <= 10 ms)")


if __name__ == "__main__":
    main()

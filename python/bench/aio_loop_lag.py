"""How long sessiondb.aio stalls the event loop during a 10,000-entry read,
against the synchronous call made on the loop thread, in one run.

A 1 ms ticker runs on the loop while `get_transcript(sid, 1, 10_000)` (entries
of 2 KB) runs, awaited through `AsyncSessionStore` and then called directly
(`store.sync`). Printed: the worst tick delay of each of ROUNDS interleaved
rounds in ms, the medians, and their ratio (sync / aio). The README's goal for
the awaited call is a stall of at most 10 ms.

Run: scripts/bench-python.sh aio_loop_lag.py
Env: BENCH_ROUNDS (default 9), BENCH_BURST (default 10000),
SESSIONDB_AIO_BEFORE.
"""

import asyncio
import importlib.util
import os
import statistics
import tempfile
import time

import sessiondb
from sessiondb.aio import AsyncSessionStore

KEY = bytes(range(32))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "9"))
BURST = int(os.environ.get("BENCH_BURST", "10000"))


def aio_before():
    """The AsyncSessionStore of SESSIONDB_AIO_BEFORE (an older aio.py), or None."""
    path = os.environ.get("SESSIONDB_AIO_BEFORE")
    if not path:
        return None
    spec = importlib.util.spec_from_file_location("sessiondb._aio_before", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.AsyncSessionStore


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


async def burst(cls, db):
    """BURST appends gathered at once: (worst tick lateness s, appends/s, out of order)."""
    store = await cls.open(db, key=KEY)
    sid = (await store.create_session("burst")).id
    texts = [f"{i:06d} " + "lorem ipsum dolor sit amet " * 37 for i in range(BURST)]
    took = 0.0

    async def run():
        nonlocal took
        t = time.perf_counter()
        await asyncio.gather(*(store.append_transcript(sid, "user", x) for x in texts))
        took = time.perf_counter() - t

    worst = await lag_during(run)
    got = await store.get_transcript(sid, 1, BURST)
    bad = sum(1 for i, e in enumerate(got) if e.seq != i + 1 or e.content != texts[i])
    bad += BURST - len(got)
    await store.close()
    return worst, BURST / took, bad


async def floor():
    """Worst tick lateness (s) while BURST coroutines that do nothing are gathered."""

    async def nothing(x):
        return x

    async def run():
        await asyncio.gather(*(nothing(i) for i in range(BURST)))

    return await lag_during(run)


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
    runs = [("", AsyncSessionStore)]
    if aio_before() is not None:
        runs.append((" (before)", aio_before()))
    print(f"floor: {BURST} coroutines that do nothing, gathered: worst event-loop lateness {asyncio.run(floor()) * 1000:.1f} ms")
    with tempfile.TemporaryDirectory() as d:
        for k, (tag, cls) in enumerate(runs):
            worst, rate, bad = asyncio.run(burst(cls, os.path.join(d, f"burst{k}.db")))
            print(f"aio{tag}: {BURST} appends gathered at once: worst event-loop lateness {worst * 1000:.1f} ms (goal <= 10 ms), {rate:,.0f} appends/s, {bad} stored out of call order")


if __name__ == "__main__":
    main()

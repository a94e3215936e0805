"""sessiondb (Python binding) vs the OpenAI Agents SDK sessions.

Same 10,000 items of ~1 KiB, same machine, same run:
* append: one call per item (sessiondb `append_transcript`; Agents SDK
  `add_items([item])`, awaited) - each is its own committed transaction;
* read: every item back (sessiondb `iter_transcript`, pages of 1,000;
  Agents SDK `get_items()`).
Then the same sessiondb work done by the Rust core alone (`_bench_core`, no
Python in the loop) to show the binding's own overhead.

Run: scripts/bench-python.sh  (or: pip install openai-agents[encrypt] and a
release wheel of sessiondb, then `python python/bench/bench_vs_agents_sdk.py`).
Env: BENCH_N (default 10000).
"""

import asyncio
import json
import os
import tempfile
import time

import sessiondb
import sessiondb._native

N = int(os.environ.get("BENCH_N", "10000"))
KEY = bytes(range(32))


def payload(i: int) -> str:
    s = f"entry {i} "
    while len(s) < 1024:
        s += "lorem ipsum dolor sit amet "
    return s[:1024]


ITEMS = [payload(i) for i in range(N)]


def bench_sessiondb(d: str):
    with sessiondb.SessionStore(os.path.join(d, "sessiondb.db"), key=KEY) as st:
        sid = st.create_session("bench").id
        t = time.perf_counter()
        for it in ITEMS:
            st.append_transcript(sid, "user", it)
        append = time.perf_counter() - t
        t = time.perf_counter()
        got = sum(len(e.content) for e in st.iter_transcript(sid, page_size=1000))
        read = time.perf_counter() - t
    assert got == sum(len(x) for x in ITEMS)
    return append, read


async def bench_agents(session):
    t = time.perf_counter()
    for it in ITEMS:
        await session.add_items([{"role": "user", "content": it}])
    append = time.perf_counter() - t
    t = time.perf_counter()
    items = await session.get_items()
    read = time.perf_counter() - t
    assert len(items) == N and items[-1]["content"] == ITEMS[-1], len(items)
    return append, read


def main():
    from agents import SQLiteSession
    from agents.extensions.memory import EncryptedSession
    from cryptography.fernet import Fernet

    rows = []
    with tempfile.TemporaryDirectory() as d:
        sdb = bench_sessiondb(d)
        plain = asyncio.run(bench_agents(SQLiteSession("bench", os.path.join(d, "agents.db"))))
        enc_session = EncryptedSession(
            session_id="bench",
            underlying_session=SQLiteSession("bench", os.path.join(d, "agents-enc.db")),
            encryption_key=Fernet.generate_key().decode("ascii"),
            ttl=86_400,
        )
        enc = asyncio.run(bench_agents(enc_session))
        core = sessiondb._native._bench_core(os.path.join(d, "core.db"), KEY, ITEMS, 1000)

    rate = lambda s: N / s  # noqa: E731
    print(f"{N} items of 1 KiB, one committed append per item, then read all back")
    print(f"{'':34} {'append/s':>10} {'read/s':>10}")
    for name, (a, r) in [
        ("sessiondb (Python binding)", sdb),
        ("sessiondb Rust core, no Python", core),
        ("agents SQLiteSession", plain),
        ("agents EncryptedSession", enc),
    ]:
        print(f"{name:34} {rate(a):>10,.0f} {rate(r):>10,.0f}")
    ra, rr = enc[0] / sdb[0], enc[1] / sdb[1]
    print(f"sessiondb vs EncryptedSession: append {ra:.1f}x (goal >= 10x), read {rr:.1f}x (goal >= 5x)")
    print(f"sessiondb vs SQLiteSession (unencrypted): append {plain[0] / sdb[0]:.1f}x, read {plain[1] / sdb[1]:.1f}x")
    oa, orr = sdb[0] / core[0], sdb[1] / core[1]
    print(f"binding overhead vs the Rust core: append {oa:.2f}x, read {orr:.2f}x (goal <= 1.3x)")
    print(json.dumps({"n": N, "sessiondb": sdb, "core": core, "sqlite_session": plain, "encrypted_session": enc}))


if __name__ == "__main__":
    main()

"""sessiondb (Python binding) vs the OpenAI Agents SDK sessions.

Same 10,000 items of ~1 KiB, same machine, same run, two ways of writing:
* one committed append per item (sessiondb `append_transcript`; Agents SDK
  `add_items([item])`, awaited): a host that saves each message as it comes;
* one committed append per agent turn of 10 items (sessiondb
  `append_entries`; Agents SDK `add_items(ten_items)`), which is how the
  Agents SDK runner itself saves a turn's new items.
Then every item is read back (sessiondb `iter_transcript`, pages of 1,000;
Agents SDK `get_items()`), and the same sessiondb work is done by the Rust
core alone (`_bench_core`, no Python in the loop) to show the binding's own
overhead.

Run: scripts/bench-python.sh  (or: pip install openai-agents[encrypt] and a
release wheel of sessiondb, then `python python/bench/bench_vs_agents_sdk.py`).
Env: BENCH_N (default 10000), BENCH_TURN (items per turn, default 10).
"""

import asyncio
import json
import os
import tempfile
import time

import sessiondb
import sessiondb._native

N = int(os.environ.get("BENCH_N", "10000"))
TURN = int(os.environ.get("BENCH_TURN", "10"))
KEY = bytes(range(32))


def payload(i: int) -> str:
    s = f"entry {i} "
    while len(s) < 1024:
        s += "lorem ipsum dolor sit amet "
    return s[:1024]


ITEMS = [payload(i) for i in range(N)]


def chunks(batch: int):
    return [ITEMS[i : i + batch] for i in range(0, N, batch)]


def bench_sessiondb(path: str, batch: int):
    with sessiondb.SessionStore(path, key=KEY) as st:
        sid = st.create_session("bench").id
        t = time.perf_counter()
        if batch == 1:
            for it in ITEMS:
                st.append_transcript(sid, "user", it)
        else:
            for c in chunks(batch):
                st.append_entries(sid, [sessiondb.NewEntry("user", it) for it in c])
        append = time.perf_counter() - t
        t = time.perf_counter()
        got = sum(len(e.content) for e in st.iter_transcript(sid, page_size=1000))
        read = time.perf_counter() - t
    assert got == sum(len(x) for x in ITEMS)
    return append, read


async def bench_agents(session, batch: int):
    t = time.perf_counter()
    for c in chunks(batch):
        await session.add_items([{"role": "user", "content": it} for it in c])
    append = time.perf_counter() - t
    t = time.perf_counter()
    items = await session.get_items()
    read = time.perf_counter() - t
    assert len(items) == N and items[-1]["content"] == ITEMS[-1], len(items)
    return append, read


def run(d: str, batch: int):
    from agents import SQLiteSession
    from agents.extensions.memory import EncryptedSession
    from cryptography.fernet import Fernet

    tag = f"b{batch}"
    sdb = bench_sessiondb(os.path.join(d, f"sessiondb-{tag}.db"), batch)
    plain = asyncio.run(bench_agents(SQLiteSession("bench", os.path.join(d, f"agents-{tag}.db")), batch))
    enc_session = EncryptedSession(
        session_id="bench",
        underlying_session=SQLiteSession("bench", os.path.join(d, f"agents-enc-{tag}.db")),
        encryption_key=Fernet.generate_key().decode("ascii"),
        ttl=86_400,
    )
    enc = asyncio.run(bench_agents(enc_session, batch))
    core = sessiondb._native._bench_core(os.path.join(d, f"core-{tag}.db"), KEY, ITEMS, 1000, batch)
    return {"sessiondb": sdb, "core": core, "sqlite_session": plain, "encrypted_session": enc}


def report(title: str, r: dict):
    rate = lambda s: N / s  # noqa: E731
    sdb, core, plain, enc = r["sessiondb"], r["core"], r["sqlite_session"], r["encrypted_session"]
    print(title)
    print(f"  {'':34} {'append/s':>10} {'read/s':>10}")
    for name, (a, rd) in [
        ("sessiondb (Python binding)", sdb),
        ("sessiondb Rust core, no Python", core),
        ("agents SQLiteSession", plain),
        ("agents EncryptedSession", enc),
    ]:
        print(f"  {name:34} {rate(a):>10,.0f} {rate(rd):>10,.0f}")
    print(f"  sessiondb vs EncryptedSession: append {enc[0] / sdb[0]:.1f}x (goal >= 10x), read {enc[1] / sdb[1]:.1f}x (goal >= 5x)")
    print(f"  sessiondb vs SQLiteSession (unencrypted): append {plain[0] / sdb[0]:.1f}x, read {plain[1] / sdb[1]:.1f}x")
    print(f"  binding overhead vs the Rust core: append {sdb[0] / core[0]:.2f}x, read {sdb[1] / core[1]:.2f}x (goal <= 1.3x)")


def main():
    with tempfile.TemporaryDirectory() as d:
        per_item = run(d, 1)
        per_turn = run(d, TURN)
    print(f"{N} items of 1 KiB, then read all back")
    report("one committed append per item", per_item)
    report(f"one committed append per turn of {TURN} items", per_turn)
    print(json.dumps({"n": N, "turn": TURN, "per_item": per_item, "per_turn": per_turn}))


if __name__ == "__main__":
    main()

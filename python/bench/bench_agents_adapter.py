"""The Agents SDK adapter (sessiondb.agents.SessionDBSession) vs the SDK's own
sessions on the same workload, side by side in one run (issue 16 "Performance").

Workload: an agent turn of 10 items (a user message, then five tool calls with
their outputs, an assistant message... 10 SDK items of 60 B to 1.5 KiB, as the
Runner saves them: one `add_items(turn)` call), repeated TURNS times; then
`get_items()` of the whole history, REPEAT times. Rates are items per second:
add over all turns, get from the median of the REPEAT reads. Then
`get_items(limit=20)` on a session of 50,000 items (LONG): the median and the
worst of 200 calls, in ms.

The sessions take turns call by call (turn t is added to each session, then
turn t+1...; each read round reads each session once), all on one event loop,
so a change of the machine's load during the run (2 shared cores) falls on
every session alike instead of on whichever ran then.

Sessions: sessiondb's adapter (encrypted, journaled), the SDK's `SQLiteSession`
(plaintext) and its `EncryptedSession` (Fernet per item over a SQLiteSession,
`openai-agents[encrypt]`), and the SDK's SQLiteSession with synchronous=NORMAL
(the durability class of sessiondb's default). Goals (issue 29 item 4):
get >= 1.0x SQLiteSession; add >= 1.5x SQLiteSession NORMAL; sessiondb >= 3x
EncryptedSession for add and get; get_items(limit=20) on 50,000 items: p99 <= 1 ms.

Run: scripts/bench-python.sh bench_agents_adapter.py
Env: BENCH_TURNS (default 500), BENCH_REPEAT (default 9), BENCH_LONG (default 50000).
"""

import asyncio
import concurrent.futures
import json
import os
import statistics
import tempfile
import time

TURNS = int(os.environ.get("BENCH_TURNS", "500"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "9"))
LONG = int(os.environ.get("BENCH_LONG", "50000"))
KEY = bytes(range(32))


def turn(t: int) -> list:
    """One agent turn of 10 SDK items (Responses API shapes, as the Python SDK stores them)."""
    out = "\n".join(f"src/module_{t}_{i}.rs: fn handler_{i}() -> Result<(), Error>" for i in range(20))
    items: list = [{"role": "user", "content": f"Turn {t}: find where the login handler is defined and rename it to sign_in."}]
    for c in range(4):
        items.append({"type": "function_call", "call_id": f"call_{t}_{c}", "name": "grep", "arguments": json.dumps({"pattern": f"login_{c}", "path": "src"}), "id": f"fc_{t}_{c}", "status": "completed"})
        items.append({"type": "function_call_output", "call_id": f"call_{t}_{c}", "output": out})
    items.append({"id": f"msg_{t}", "type": "message", "role": "assistant", "status": "completed",
                  "content": [{"type": "output_text", "text": f"Renamed login to sign_in in {t} files. " + "Checked callers. " * 20, "annotations": []}]})
    assert len(items) == 10
    return items


#: {name: (add CPU µs per turn, get CPU ms per read)}, filled by add_and_get:
#: the CPU time of the whole process (every thread: the event loop and the
#: session's worker) over each awaited call, summed over the add calls and
#: the median of the reads. Only one call runs at a time, so each call's CPU
#: is its own; a busy machine delays a call but adds little CPU to it, so
#: these ratios hold at a load where the rates measure the machine.
#: (CPU time leaves out waiting for the disk: an fsync of synchronous=FULL.)
CPU: dict = {}


async def add_and_get(sessions: dict) -> dict:
    """{name: (add items/s, get items/s)}, the sessions taking turns."""
    turns = [turn(t) for t in range(TURNS)]
    add = dict.fromkeys(sessions, 0.0)
    add_cpu = dict.fromkeys(sessions, 0.0)
    for items in turns:
        for name, session in sessions.items():
            c0, t0 = time.process_time(), time.perf_counter()
            await session.add_items(items)
            add[name] += time.perf_counter() - t0
            add_cpu[name] += time.process_time() - c0
    gets: dict = {name: [] for name in sessions}
    get_cpu: dict = {name: [] for name in sessions}
    for _ in range(REPEAT):
        for name, session in sessions.items():
            c0, t0 = time.process_time(), time.perf_counter()
            got = await session.get_items()
            gets[name].append(time.perf_counter() - t0)
            get_cpu[name].append(time.process_time() - c0)
            assert len(got) == TURNS * 10 and got[-1] == turns[-1][-1] and got[0] == turns[0][0], len(got)
    CPU.update({name: (add_cpu[name] / TURNS * 1e6, statistics.median(get_cpu[name]) * 1e3) for name in sessions})
    return {name: (TURNS * 10 / add[name], TURNS * 10 / statistics.median(gets[name])) for name in sessions}


async def tail(sessions: dict) -> dict:
    """{name: (median ms, p99 ms, worst ms)} of get_items(limit=20) on LONG items."""
    for t in range(LONG // 10):
        items = turn(t)
        for session in sessions.values():
            await session.add_items(items)
    want = turn(LONG // 10 - 1)[-10:]
    times: dict = {name: [] for name in sessions}
    # The floor of a read run off the event loop, as every session here runs
    # it: an empty call on a one-thread executor, timed in the same rounds.
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    loop = asyncio.get_running_loop()
    times[HOP] = []
    for _ in range(200):
        for name, session in sessions.items():
            t0 = time.perf_counter()
            got = await session.get_items(limit=20)
            times[name].append(time.perf_counter() - t0)
            assert len(got) == 20 and got[-10:] == want
        t0 = time.perf_counter()
        await loop.run_in_executor(pool, int)
        times[HOP].append(time.perf_counter() - t0)
    pool.shutdown()
    return {name: (statistics.median(v) * 1000, statistics.quantiles(v, n=100)[98] * 1000, max(v) * 1000) for name, v in times.items()}


HOP = "floor: empty executor hop"


def json_floor() -> float:
    """items/s of json.loads alone over the same items' JSON: what any session
    that stores items as JSON text pays on get_items, before any storage."""
    texts = [json.dumps(i, ensure_ascii=False) for t in range(TURNS) for i in turn(t)]
    t0 = time.perf_counter()
    for _ in range(REPEAT):
        for x in texts:
            json.loads(x)
    return len(texts) * REPEAT / (time.perf_counter() - t0)


def sessions(d: str, tag: str):
    from agents import SQLiteSession
    from agents.extensions.memory import EncryptedSession
    from cryptography.fernet import Fernet

    from sessiondb.agents import SessionDBSession

    class NormalSQLiteSession(SQLiteSession):
        """The SDK's SQLiteSession with `synchronous=NORMAL` (WAL): a commit
        is durable against a crash of the process, not of the OS, the same
        durability class as sessiondb's default (WAL, synchronous=NORMAL)."""

        @staticmethod
        def _configure_connection(conn):
            SQLiteSession._configure_connection(conn)
            conn.execute("PRAGMA synchronous=NORMAL")

    return {
        "sessiondb SessionDBSession": SessionDBSession("bench", path=os.path.join(d, f"sdb-{tag}.db"), key=KEY),
        "agents SQLiteSession": SQLiteSession("bench", os.path.join(d, f"sqlite-{tag}.db")),
        "agents SQLiteSession NORMAL": NormalSQLiteSession("bench", os.path.join(d, f"normal-{tag}.db")),
        "agents EncryptedSession": EncryptedSession(
            session_id="bench",
            underlying_session=SQLiteSession("bench", os.path.join(d, f"enc-{tag}.db")),
            encryption_key=Fernet.generate_key().decode("ascii"),
            ttl=86_400,
        ),
    }


def main():
    import agents
    import sessiondb

    with tempfile.TemporaryDirectory() as d:
        rates = asyncio.run(add_and_get(sessions(d, "turns")))
        tails = asyncio.run(tail(sessions(d, "long")))
        floor = json_floor()
    print(f"sessiondb {sessiondb.__version__}, openai-agents {agents.__version__}")
    print(f"{TURNS} agent turns of 10 items (one add_items per turn), then get_items() of all {TURNS * 10} items x{REPEAT} (get: the median); sessions interleaved")
    print(f"  {'':30} {'add items/s':>12} {'get items/s':>12}   get_items(limit=20) on {LONG:,} items: median / p99 / worst ms")
    for name in rates:
        (a, g), (med, p99, worst) = rates[name], tails[name]
        print(f"  {name:30} {a:>12,.0f} {g:>12,.0f}   {med:8.3f} / {p99:.3f} / {worst:.3f}")
    med, p99, worst = tails[HOP]
    print(f"  {HOP:30} {'':>12} {'':>12}   {med:8.3f} / {p99:.3f} / {worst:.3f}")
    ours, enc, plain = rates["sessiondb SessionDBSession"], rates["agents EncryptedSession"], rates["agents SQLiteSession"]
    normal = rates["agents SQLiteSession NORMAL"]
    print(f"  sessiondb vs SQLiteSession synchronous=NORMAL (same durability class): add {ours[0] / normal[0]:.2f}x (goal >= 1.5x), get {ours[1] / normal[1]:.2f}x")
    print(f"  sessiondb vs EncryptedSession: add {ours[0] / enc[0]:.2f}x, get {ours[1] / enc[1]:.2f}x (goal >= 3x both)")
    print(f"  sessiondb vs SQLiteSession (plaintext, default synchronous=FULL): add {ours[0] / plain[0]:.2f}x, get {ours[1] / plain[1]:.2f}x (goal get >= 1.0x)")
    print("  CPU time per call, every thread (time.process_time; robust to the machine's load):")
    for name, (a, g) in CPU.items():
        print(f"    {name:30} add {a:8.1f} us/turn   get {g:7.2f} ms/read")
    cn, cp, co = CPU["agents SQLiteSession NORMAL"], CPU["agents SQLiteSession"], CPU["sessiondb SessionDBSession"]
    print(f"    sessiondb by CPU: add {cn[0] / co[0]:.2f}x NORMAL, get {cp[1] / co[1]:.2f}x SQLiteSession ({cn[1] / co[1]:.2f}x NORMAL)")
    print(f"  floor: json.loads alone of the same items: {floor:,.0f} items/s = {floor / enc[1]:.2f}x EncryptedSession's get")
    med, p99, _ = tails["sessiondb SessionDBSession"]
    print(f"  sessiondb get_items(limit=20) on {LONG:,} items: median {med:.3f} ms, p99 {p99:.3f} ms (goal p99 <= 1 ms: {'met' if p99 <= 1 else 'NOT met'}; the empty hop's p99 in the same rounds: {tails[HOP][1]:.3f} ms)")
    print(json.dumps({"turns": TURNS, "repeat": REPEAT, "long": LONG, "rates": rates, "cpu": CPU, "tail_ms": tails, "json_loads_floor": floor}))


if __name__ == "__main__":
    main()

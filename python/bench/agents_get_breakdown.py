"""Where the Agents SDK adapter's get_items() time goes (issue 16 "Performance").

The same history as bench_agents_adapter.py (500 turns of 10 items), read
several ways, each the mean of 5 runs in ms: the store's entries alone
(get_transcript), the entries with their metadata (get_transcript_with_meta,
what get_items read before get_entry_items), the structured items' getters,
json.loads of each item, the items read (get_entry_items: one JSON array per
page, contents of entries with an item not decrypted) in pages of 1,000 and
10,000, json.loads of those arrays and of one array of all items, and the
adapter's get_items() without and with its event loop.

Run: scripts/bench-python.sh agents_get_breakdown.py
"""

import asyncio
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_agents_adapter import turn  # noqa: E402

from sessiondb.agents import SessionDBSession  # noqa: E402


def ms(f, n=5):
    t0 = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - t0) / n * 1e3


def main():
    d = tempfile.mkdtemp()
    s = SessionDBSession("b", path=os.path.join(d, "x.db"), key=bytes(range(32)))

    async def fill():
        for t in range(500):
            await s.add_items(turn(t))

    asyncio.run(fill())
    st = s.store

    def pages(read):
        out, seq = [], 1
        while page := read("b", seq, 1000):
            out.extend(page)
            last = page[-1]
            seq = (last[0] if isinstance(last, tuple) else last).seq + 1
        return out

    def item_pages(size):
        out, seq = [], 1
        while (page := st.get_entry_items("b", seq, size)).seqs:
            out.append(page)
            seq = page.seqs[-1] + 1
        return out

    pairs = pages(st.get_transcript_with_meta)
    items = [m.item for _, m in pairs]
    n = len(pairs)
    arrays = [p.items_json for p in item_pages(1000)]
    whole = "[" + ",".join(items) + "]"
    rows = [
        ("get_transcript (entries alone)", ms(lambda: pages(st.get_transcript))),
        ("get_transcript_with_meta (the previous get_items read)", ms(lambda: pages(st.get_transcript_with_meta))),
        ("EntryMeta.item getters", ms(lambda: [m.item for _, m in pairs])),
        ("json.loads of each item", ms(lambda: [json.loads(x) for x in items])),
        ("get_entry_items, pages of 1,000 (what get_items reads)", ms(lambda: item_pages(1000))),
        ("get_entry_items, pages of 10,000", ms(lambda: item_pages(10_000))),
        ("json.loads of the pages' items_json (1,000 each)", ms(lambda: [json.loads(a) for a in arrays])),
        ("json.loads of one array of all items", ms(lambda: json.loads(whole))),
        ("SessionDBSession._items(None) (no event loop)", ms(lambda: s._items(None))),
        ("SessionDBSession.get_items()", ms(lambda: asyncio.run(s.get_items()))),
    ]
    print(f"{n} items ({sum(map(len, items)):,} bytes of item JSON), mean of 5 runs")
    for name, t in rows:
        print(f"  {name:50} {t:8.1f} ms  {n / t * 1e3:>10,.0f} items/s")
    s.close()


if __name__ == "__main__":
    main()

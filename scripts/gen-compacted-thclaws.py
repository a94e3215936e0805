#!/usr/bin/env python3
"""Write a thClaws JSONL session of TURNS turns ending in one `compaction`
line whose single replacement message is SUMMARY_BYTES of text (the
red-team case of a compaction run held once per seq: importing it records a
governance `compaction` plan whose one run covers seqs 1..=TURNS).

Usage: gen-compacted-thclaws.py OUT.jsonl [TURNS=100000] [SUMMARY_BYTES=20480]

Format: samples/README.md "3. thClaws" (header{id, model, cwd, created_at},
user|assistant{content:[blocks], timestamp}, compaction{messages,
replaces_count, timestamp}). Deterministic: the same arguments write the
same bytes.
"""

import json
import sys


def main():
    out = sys.argv[1]
    turns = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    summary_bytes = int(sys.argv[3]) if len(sys.argv) > 3 else 20 * 1024
    t0 = 1_760_000_000
    with open(out, "w", encoding="utf-8") as f:
        header = {"type": "header", "id": "govruns-100k", "model": "anthropic/claude-sonnet-4", "cwd": "/tmp/govruns", "created_at": t0}
        f.write(json.dumps(header) + "\n")
        for i in range(turns):
            role = "user" if i % 2 == 0 else "assistant"
            line = {"type": role, "content": [{"type": "text", "text": f"turn {i}: " + "lorem ipsum " * 8}], "timestamp": t0 + i}
            f.write(json.dumps(line) + "\n")
        unit = "summary of the earlier conversation. "
        text = (unit * (summary_bytes // len(unit) + 1))[:summary_bytes]
        compaction = {"type": "compaction", "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}], "replaces_count": turns, "timestamp": t0 + turns}
        f.write(json.dumps(compaction) + "\n")


if __name__ == "__main__":
    main()

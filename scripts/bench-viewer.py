#!/usr/bin/env python3
"""First screen of a large session in the viewer (issue 32 item 3: a
50,000-entry session opens its first screen in <= 300 ms). Prints figures;
asserts nothing about time.

Makes a thClaws JSONL session of TURNS entries (default 50,000), imports it
with the CLI, starts `sessiondb serve`, signs in with the token and times,
over real HTTP on loopback, what the page requests for its first screen, in
order: `/`, `/app.js`, `/app.css`, `/api/info`, `/api/session`,
`/api/entries` (the first 100 turns); then the meter (`/api/context`, read
after the turns are shown), a page in the middle and the last page. Each is
run RUNS times (default 7); the median and the worst are printed. Baseline
in the same run: `sessiondb --json show ID --limit 100` (the CLI's bounded
read of the same first page, process start included). The server's peak
RSS (VmHWM) is printed at the end.

Usage: scripts/bench-viewer.py SESSIONDB_BINARY [TURNS] [RUNS]
"""

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main():
    binary = os.path.abspath(sys.argv[1])
    turns = int(sys.argv[2]) if len(sys.argv) > 2 else 50_000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    root = Path(tempfile.mkdtemp(prefix="sessiondb-bench-viewer-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONDB_")}
    env.update(HOME=str(root), SESSIONDB_DB=str(root / "s.db"), SESSIONDB_KEY_FILE=str(root / "key"))
    subprocess.run([binary, "key", "init", "--file", str(root / "key")], env=env, check=True, capture_output=True)
    src = root / "big.jsonl"
    t0 = 1_760_000_000
    with open(src, "w") as f:
        f.write(json.dumps({"type": "header", "id": "bench-50k", "model": "anthropic/claude-sonnet-4", "cwd": "/tmp/bench", "created_at": t0}) + "\n")
        for i in range(turns):
            role = "user" if i % 2 == 0 else "assistant"
            text = f"turn {i}: " + "the quick brown fox jumps over the lazy dog; " * (4 + i % 12)
            f.write(json.dumps({"type": role, "content": [{"type": "text", "text": text}], "timestamp": t0 + i}) + "\n")
    t = time.perf_counter()
    subprocess.run([binary, "import", str(src)], env=env, check=True, capture_output=True)
    print(f"imported {turns} entries in {time.perf_counter() - t:.1f} s")
    sid = json.loads(subprocess.run([binary, "--json", "list", "--all"], env=env, check=True, capture_output=True, text=True).stdout)[0]["id"]

    server = subprocess.Popen([binary, "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        url = server.stdout.readline().strip()
        host, token = url.split("//")[1].split("/")[0], url.split("token=")[1]
        base = "/" + url.split("/")[3]  # every address is under the viewer's random base path
        addr, port = host.split(":")
        conn = http.client.HTTPConnection(addr, int(port))
        conn.request("GET", f"{base}/?token={token}", headers={"Host": host})
        r = conn.getresponse()
        r.read()
        cookie = r.getheader("Set-Cookie").split(";")[0]

        def get(path):
            conn.request("GET", base + path, headers={"Host": host, "Cookie": cookie})
            r = conn.getresponse()
            body = r.read()
            assert r.status == 200, (path, r.status, body[:200])
            return body

        first = ["/", "/app.js", "/app.css", "/api/info", f"/api/session?id={sid}", f"/api/entries?id={sid}&from=1&limit=100"]
        figures = {"first screen (6 requests)": [], "meter (/api/context)": [], "middle page (100 entries)": [], "last page (100 entries)": [], "CLI show --limit 100 (baseline)": []}
        for _ in range(runs):
            t = time.perf_counter()
            for p in first:
                body = get(p)
            figures["first screen (6 requests)"].append(time.perf_counter() - t)
            assert len(json.loads(body)["entries"]) == 100
            t = time.perf_counter()
            get(f"/api/context?id={sid}&window=200000")
            figures["meter (/api/context)"].append(time.perf_counter() - t)
            t = time.perf_counter()
            get(f"/api/entries?id={sid}&from={turns // 2}&limit=100")
            figures["middle page (100 entries)"].append(time.perf_counter() - t)
            t = time.perf_counter()
            get(f"/api/entries?id={sid}&before={turns + 1}&limit=100")
            figures["last page (100 entries)"].append(time.perf_counter() - t)
            t = time.perf_counter()
            subprocess.run([binary, "--json", "show", sid, "--limit", "100"], env=env, check=True, capture_output=True)
            figures["CLI show --limit 100 (baseline)"].append(time.perf_counter() - t)
        hwm = next((l.split()[1] for l in Path(f"/proc/{server.pid}/status").read_text().splitlines() if l.startswith("VmHWM")), "?")
    finally:
        server.terminate()
        server.wait()
    base = statistics.median(figures["CLI show --limit 100 (baseline)"])
    print(f"{turns}-entry session, {runs} runs (median / worst):")
    for k, v in figures.items():
        med = statistics.median(v)
        print(f"  {k:34s} {med * 1000:8.1f} ms / {max(v) * 1000:8.1f} ms   ({med / base:.2f}x the CLI baseline)")
    print(f"  server peak RSS (VmHWM): {int(hwm) / 1024:.1f} MB" if hwm != "?" else "  server peak RSS: ?")


if __name__ == "__main__":
    main()

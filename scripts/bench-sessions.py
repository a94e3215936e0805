#!/usr/bin/env python3
"""Long and huge sessions (issue 12, "Performance"), side by side for CLI builds.

For each `sessiondb` binary (e.g. a baseline build and this build) it prints
wall seconds and peak RSS (`/usr/bin/time -v`) of:

* `compact --window 128000` (recorded, then `context`) on generated thClaws
  sessions of 3,000, 20,000 and 100,000 turns: exit code and the Ctx
  percentage after compaction (target: success at <= 70%);
* `context`, `export` and `show --tail 5` on one session of 50,000 entries
  (~385 MB: 49,900 turns of ~600 bytes and 100 tool outputs of 2-5 MB);
* `show`, `export` and `context` on a session holding one 200 MB entry.

Sizes: SESSIONDB_BENCH_HUGE_MB (default 200) for the single entry.
SESSIONDB_BENCH_SKIP_LONG=1 leaves out the 3,000/20,000/100,000-turn sessions.
Usage: scripts/bench-sessions.py LABEL=PATH_TO_SESSIONDB [LABEL=PATH ...]
"""
import base64, json, os, random, re, shutil, subprocess, sys, tempfile, time

rng = random.Random(7)
WORDS = ["parser", "token", "build", "error", "the", "a", "function", "returns", "value", "test", "fails", "because", "index", "cargo", "src", "lib", "main", "async"]


def prose(n):
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS) if rng.random() > 0.1 else "%x" % rng.getrandbits(48)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def turns_file(path, sid, n_turns, big=()):
    """A thClaws file: user/assistant turns; `big` maps turn index -> bytes of a tool output."""
    with open(path, "w") as f:
        f.write(json.dumps({"type": "header", "id": sid, "model": "claude-sonnet-4-5", "cwd": "/w", "created_at": 1778930901}) + "\n")
        chunk = prose(4096)
        for i in range(n_turns):
            ts = 1778930901 + i
            if i in big:
                n = big[i]
                text = (chunk * (n // len(chunk) + 1))[:n]
                f.write(json.dumps({"type": "assistant", "content": [{"type": "tool_use", "id": "c%d" % i, "name": "Bash", "input": {"command": "cat big"}}], "timestamp": ts}) + "\n")
                f.write(json.dumps({"type": "user", "content": [{"type": "tool_result", "tool_use_id": "c%d" % i, "content": text}], "timestamp": ts}) + "\n")
            else:
                role = "user" if i % 2 == 0 else "assistant"
                f.write(json.dumps({"type": role, "content": [{"type": "text", "text": prose(rng.randint(300, 900))}], "timestamp": ts}) + "\n")


def timed(binary, db, key, *args):
    p = subprocess.run(["/usr/bin/time", "-v", binary, "--db", db, "--key-file", key, *args], capture_output=True, text=True)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr).group(1)
    parts = [float(x) for x in wall.split(":")]
    secs = sum(x * 60 ** i for i, x in enumerate(reversed(parts)))
    return p.returncode, secs, rss / 1024, p.stdout


def main():
    bins = [a.split("=", 1) for a in sys.argv[1:]]
    if not bins:
        raise SystemExit(__doc__)
    work = tempfile.mkdtemp(prefix="sessiondb-bench-sessions-")
    key = os.path.join(work, "key")
    with open(key, "w") as f:
        f.write(base64.b64encode(os.urandom(32)).decode())
    os.chmod(key, 0o600)
    files = {}
    longs = () if os.environ.get("SESSIONDB_BENCH_SKIP_LONG") == "1" else (3000, 20000, 100000)
    for n in longs:
        files["long%d" % n] = (os.path.join(work, "long%d.jsonl" % n), "long-%d" % n)
        turns_file(files["long%d" % n][0], "long-%d" % n, n)
    big = {i * 499: rng.randint(2_000_000, 5_000_000) for i in range(1, 101)}
    files["mixed"] = (os.path.join(work, "mixed.jsonl"), "mixed-50k")
    turns_file(files["mixed"][0], "mixed-50k", 49_900, big)
    huge_mb = int(os.environ.get("SESSIONDB_BENCH_HUGE_MB", "200"))
    files["huge"] = (os.path.join(work, "huge.jsonl"), "huge-1")
    turns_file(files["huge"][0], "huge-1", 2, {1: huge_mb * 1024 * 1024})
    for k, (p, _) in files.items():
        print("generated %-10s %8.1f MB" % (k, os.path.getsize(p) / 1e6), flush=True)
    print()
    print("%-8s %-10s %-22s %5s %8s %9s  %s" % ("build", "session", "command", "exit", "wall s", "RSS MiB", "output"))
    for label, binary in bins:
        db = os.path.join(work, "%s.db" % label)
        for k, (p, sid) in files.items():
            rc, secs, rss, _ = timed(binary, db, key, "import", p)
            print("%-8s %-10s %-22s %5d %8.2f %9.1f" % (label, k, "import", rc, secs, rss), flush=True)
        for n in longs:
            sid = "long-%d" % n
            rc, secs, rss, out = timed(binary, db, key, "compact", sid, "--window", "128000")
            tail = out.strip().splitlines()[-1][:60] if out.strip() else ""
            print("%-8s %-10s %-22s %5d %8.2f %9.1f  %s" % (label, "long%d" % n, "compact --window 128000", rc, secs, rss, tail), flush=True)
            rc, secs, rss, out = timed(binary, db, key, "context", sid, "--window", "128000")
            ctx = re.search(r"Ctx \d+%", out)
            print("%-8s %-10s %-22s %5d %8.2f %9.1f  %s" % (label, "long%d" % n, "context (after)", rc, secs, rss, ctx.group(0) if ctx else ""), flush=True)
        for cmd in (["context", "mixed-50k", "--window", "128000"], ["export", "mixed-50k", "-o", os.path.join(work, "%s-mixed.out.jsonl" % label)], ["show", "mixed-50k", "--tail", "5"]):
            rc, secs, rss, out = timed(binary, db, key, *cmd)
            ctx = re.search(r"Ctx \d+%", out)
            print("%-8s %-10s %-22s %5d %8.2f %9.1f  %s" % (label, "mixed", " ".join(cmd[:1] + cmd[2:3]), rc, secs, rss, ctx.group(0) if ctx else ""), flush=True)
        for cmd in (["show", "huge-1"], ["export", "huge-1", "-o", os.path.join(work, "%s-huge.out.jsonl" % label)], ["context", "huge-1", "--window", "128000"]):
            rc, secs, rss, out = timed(binary, db, key, *cmd)
            print("%-8s %-10s %-22s %5d %8.2f %9.1f" % (label, "huge", cmd[0], rc, secs, rss), flush=True)
        for x in ("", "-wal", "-shm"):
            if os.path.exists(db + x):
                os.remove(db + x)
        for f in os.listdir(work):
            if f.endswith(".out.jsonl"):
                os.remove(os.path.join(work, f))
    print("\nlargest entry of `mixed`: %.1f MiB; of `huge`: %.1f MiB" % (max(big.values()) / 2**20, huge_mb))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()

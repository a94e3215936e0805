#!/usr/bin/env python3
"""Storage figures (issue 12, "Performance"), side by side for several CLI builds.

For each generated source (a Codex rollout, a Claude Code file and a thClaws
file of SESSIONDB_BENCH_MB MB each, default 100) and each `sessiondb` binary
given on the command line (e.g. a baseline build and this build), it imports
the file into a fresh database and prints:

* database + WAL bytes over the source bytes, and the page accounting of
  SQLite's `dbstat` (table pages, overflow pages, bytes they carry);
* WAL growth per single 1 KiB append (`append` run 200 times on a fresh
  database, WAL bytes after minus before, over 200; no checkpoint runs: the
  autocheckpoint threshold is far above it), and which b-trees the frames
  belong to: each 24-byte WAL frame header names its page (SQLite's WAL
  format, https://sqlite.org/fileformat2.html#walformat), mapped to its
  table or index with `dbstat` (page 1, the header, counts as `page1`);
* the import wall time.

Contents are generated text of real-session compressibility: Zipf-drawn words
from a 6,000-word synthetic vocabulary, identifiers, paths, numbers and hex
hashes; the script prints the zstd ratio of its turns (python `zstandard` is
not needed: it asks the binary under test, whose v=2 rows are the measure).

Usage: scripts/bench-storage.py LABEL=PATH_TO_SESSIONDB[@PAGE_SIZE] [LABEL=PATH ...]

`@PAGE_SIZE` pre-creates each database file with that page size (an empty
WAL database, which sessiondb initialises as new), to compare layouts.
"""
import json, os, random, shutil, sqlite3, subprocess, sys, tempfile, time, base64

MB = int(os.environ.get("SESSIONDB_BENCH_MB", "100"))
TARGET = MB * 1024 * 1024
rng = random.Random(12)

SYL = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "zen", "dor", "pel", "qua", "rix", "tam", "ul", "wo", "yst", "bre", "cho", "fin"]
VOCAB = ["".join(rng.choice(SYL) for _ in range(rng.randint(1, 4))) for _ in range(6000)]
WEIGHTS = [1.0 / (i + 1) for i in range(len(VOCAB))]
CUM = []
acc = 0.0
for w in WEIGHTS:
    acc += w
    CUM.append(acc)


def words(n_bytes):
    out, size = [], 0
    picks = rng.choices(VOCAB, cum_weights=CUM, k=max(8, n_bytes // 5))
    i = 0
    while size < n_bytes:
        r = rng.random()
        if r < 0.03:
            w = "%x" % rng.getrandbits(64)
        elif r < 0.06:
            w = "/src/%s/%s.rs:%d" % (picks[i % len(picks)], picks[(i + 7) % len(picks)], rng.randint(1, 2000))
        elif r < 0.09:
            w = str(rng.randint(0, 100000))
        else:
            w = picks[i % len(picks)]
        i += 1
        if i >= len(picks):
            picks = rng.choices(VOCAB, cum_weights=CUM, k=len(picks))
            i = 0
        out.append(w)
        size += len(w) + 1
        if rng.random() < 0.08:
            out.append("\n")
    return " ".join(out)


def gen_thclaws(path):
    with open(path, "w") as f:
        f.write(json.dumps({"type": "header", "id": "bench-thclaws", "model": "zai/glm-5.1", "cwd": "/workspace", "created_at": 1778930901}) + "\n")
        n = 0
        while f.tell() < TARGET:
            ts = 1778930901 + n
            f.write(json.dumps({"type": "user", "content": [{"type": "text", "text": words(300)}], "timestamp": ts}) + "\n")
            f.write(json.dumps({"type": "assistant", "content": [{"type": "thinking", "content": words(600)}, {"type": "text", "text": words(900)},
                    {"type": "tool_use", "id": "call_%d" % n, "name": "Bash", "input": {"command": "cargo test -p x%d" % n}}], "timestamp": ts}) + "\n")
            f.write(json.dumps({"type": "user", "content": [{"type": "tool_result", "tool_use_id": "call_%d" % n, "content": words(2800)}], "timestamp": ts}) + "\n")
            n += 1


def iso(i):
    return "2026-02-23T%02d:%02d:%02d.%03dZ" % ((i // 3600000) % 24, (i // 60000) % 60, (i // 1000) % 60, i % 1000)


def gen_codex(path):
    with open(path, "w") as f:
        f.write(json.dumps({"timestamp": iso(0), "type": "session_meta", "payload": {"id": "019c8bfe-ec25-79e0-97d7-bda6a9c57500", "timestamp": iso(0), "cwd": "/w", "model_provider": "openai"}}) + "\n")
        f.write(json.dumps({"timestamp": iso(1), "type": "turn_context", "payload": {"model": "gpt-5.3-codex", "cwd": "/w"}}) + "\n")
        n, total = 0, 0
        while f.tell() < TARGET:
            t = iso(10 * n)
            f.write(json.dumps({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": words(300)}]}}) + "\n")
            f.write(json.dumps({"timestamp": t, "type": "response_item", "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": words(400)}]}}) + "\n")
            f.write(json.dumps({"timestamp": t, "type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "rg %s" % words(20)]}), "call_id": "call_%d" % n}}) + "\n")
            f.write(json.dumps({"timestamp": t, "type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_%d" % n, "output": words(2500)}}) + "\n")
            f.write(json.dumps({"timestamp": t, "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": words(700)}]}}) + "\n")
            total += 5000
            f.write(json.dumps({"timestamp": t, "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": {"input_tokens": total, "cached_input_tokens": total // 2, "output_tokens": total // 5, "total_tokens": total + total // 5},
                    "last_token_usage": {"input_tokens": 5000, "cached_input_tokens": 2500, "output_tokens": 1000, "total_tokens": 6000}, "model_context_window": 272000}}}) + "\n")
            n += 1


def gen_claude(path):
    sid = "5c0375b4-57a5-4f26-b12d-d022ee4e5100"
    with open(path, "w") as f:
        parent, n = None, 0
        while f.tell() < TARGET:
            base = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": sid, "version": "2.1.38", "gitBranch": "main"}
            u = dict(base, type="user", message={"role": "user", "content": words(300)}, uuid="u-%d" % n, timestamp=iso(10 * n))
            a = dict(base, parentUuid=u["uuid"], type="assistant", uuid="a-%d" % n, timestamp=iso(10 * n + 1), requestId="req_%d" % n,
                     message={"id": "msg_%d" % n, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [
                         {"type": "text", "text": words(900)}, {"type": "tool_use", "id": "toolu_%d" % n, "name": "Bash", "input": {"command": "ls %d" % n}}],
                         "usage": {"input_tokens": 12, "output_tokens": 300, "cache_read_input_tokens": 20000, "cache_creation_input_tokens": 100}})
            r = dict(base, parentUuid=a["uuid"], type="user", uuid="r-%d" % n, timestamp=iso(10 * n + 2),
                     message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_%d" % n, "content": words(2800)}]},
                     toolUseResult={"stdout": "", "stderr": "", "interrupted": False})
            for x in (u, a, r):
                f.write(json.dumps(x, ensure_ascii=False) + "\n")
            parent = r["uuid"]
            n += 1


def precreate(db, page):
    if page:
        c = sqlite3.connect(db)
        c.execute("PRAGMA page_size=%d" % page)
        c.execute("PRAGMA journal_mode=WAL")
        c.close()


def run(binary, db, key, *args, stdin=None):
    p = subprocess.run([binary, "--db", db, "--key-file", key, *args], input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit("%s %s failed (%d): %s" % (binary, args, p.returncode, p.stderr[-500:]))
    return p.stdout


def sizes(db):
    s = os.path.getsize(db)
    w = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
    return s, w


def pages(db):
    c = sqlite3.connect(db)
    page = c.execute("PRAGMA page_size").fetchone()[0]
    rows = c.execute("SELECT name, pagetype, COUNT(*), SUM(payload), SUM(unused) FROM dbstat GROUP BY name, pagetype ORDER BY SUM(pgsize) DESC").fetchall()
    free = c.execute("PRAGMA freelist_count").fetchone()[0]
    c.close()
    return page, rows, free


def main():
    bins = []
    for a in sys.argv[1:]:
        label, path = a.split("=", 1)
        path, _, page = path.partition("@")
        bins.append((label, path, int(page) if page else None))
    if not bins:
        raise SystemExit(__doc__)
    work = tempfile.mkdtemp(prefix="sessiondb-bench-storage-")
    key = os.path.join(work, "key")
    with open(key, "w") as f:
        f.write(base64.b64encode(os.urandom(32)).decode())
    os.chmod(key, 0o600)
    sources = []
    for name, gen, fname in [("codex", gen_codex, "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c57500.jsonl"), ("claude", gen_claude, "5c0375b4-57a5-4f26-b12d-d022ee4e5100.jsonl"), ("thclaws", gen_thclaws, "bench.jsonl")]:
        d = os.path.join(work, name)
        os.mkdir(d)
        p = os.path.join(d, fname)
        t = time.time()
        gen(p)
        sources.append((name, p))
        print("generated %-8s %8.1f MB in %.1f s" % (name, os.path.getsize(p) / 1e6, time.time() - t), flush=True)
    # How compressible the generated turns are, per turn as the store compresses them.
    try:
        sample = [words(n).encode() for n in [300, 900, 2800] * 20]
        out = sum(len(subprocess.run(["zstd", "-3", "-c"], input=t, capture_output=True, check=True).stdout) for t in sample)
        print("zstd -3 per turn of generated text: %.2f of its bytes" % (out / sum(map(len, sample))))
    except (OSError, subprocess.CalledProcessError):
        print("(zstd CLI absent: per-turn compressibility not printed)")
    print()
    print("%-10s %-8s %10s %10s %10s %7s %8s" % ("build", "source", "src MB", "db MB", "wal MB", "ratio", "import s"))
    accounting = []
    for label, binary, page in bins:
        for name, src in sources:
            db = os.path.join(work, "%s-%s.db" % (label, name))
            precreate(db, page)
            t = time.time()
            run(binary, db, key, "import", src)
            took = time.time() - t
            s, w = sizes(db)
            src_b = os.path.getsize(src)
            print("%-10s %-8s %10.1f %10.1f %10.1f %6.2fx %8.1f" % (label, name, src_b / 1e6, s / 1e6, w / 1e6, (s + w) / src_b, took), flush=True)
            accounting.append((label, name, pages(db)))
            os.remove(db)
            for x in ("-wal", "-shm"):
                if os.path.exists(db + x):
                    os.remove(db + x)
    print()
    print("page accounting (dbstat): table, page type, pages, payload MB, unused MB")
    for label, name, (page, rows, free) in accounting:
        print("%s / %s (page %d bytes, %d free pages)" % (label, name, page, free))
        for r in rows[:8]:
            print("   %-28s %-9s %9d %9.1f %9.1f" % (r[0], r[1], r[2], (r[3] or 0) / 1e6, (r[4] or 0) / 1e6))
    print()
    appends = 200
    body = words(1024)[:1024]
    print("WAL growth per single 1 KiB append (%d appends, one process each)" % appends)
    for label, binary, page in bins:
        db = os.path.join(work, "%s-wal.db" % label)
        precreate(db, page)
        sid = run(binary, db, key, "new", "--unbound").strip().split()[-1]
        run(binary, db, key, "append", sid, body)
        # A reader holding one snapshot keeps every CLI process's closing
        # checkpoint from resetting the WAL, so the WAL grows by exactly the
        # frames each append commits. The snapshot must include a frame: a
        # writer may restart a WAL none of whose frames a reader uses (it
        # then writes from offset 32, not at the end of the file), so the WAL
        # is emptied first and one append written before the snapshot.
        c = sqlite3.connect(db, isolation_level=None)
        page = c.execute("PRAGMA page_size").fetchone()[0]
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        run(binary, db, key, "append", sid, body)
        c.execute("BEGIN")
        c.execute("SELECT COUNT(*) FROM sessions").fetchone()
        _, w0 = sizes(db)
        for _ in range(appends):
            run(binary, db, key, "append", sid, body)
        _, w1 = sizes(db)
        # Read before the snapshot ends: the last connection's close
        # checkpoints and removes the WAL.
        with open(db + "-wal", "rb") as f:
            wal = f.read()
        c.execute("COMMIT")
        owner = dict(c.execute("SELECT pageno, name FROM dbstat").fetchall())
        c.close()
        print("   %-10s page %5d: %6.1f KiB per append (%d frames of %d bytes)" % (label, page, (w1 - w0) / appends / 1024, (w1 - w0) // (page + 24), page + 24))
        # The frames the appends wrote: the WAL was not reset while the
        # snapshot was held, so they are the ones from offset w0 on.
        per, commits, off = {}, 0, w0
        while off + 24 <= w1:
            pgno, commit = int.from_bytes(wal[off:off + 4], "big"), int.from_bytes(wal[off + 4:off + 8], "big")
            name = "page1" if pgno == 1 else owner.get(pgno, "page %d" % pgno)
            per[name] = per.get(name, 0) + 1
            commits += 1 if commit else 0
            off += 24 + page
        print("      frames per append by b-tree (%d commits): %s" % (commits, ", ".join("%s %.2f" % (k, v / max(commits, 1)) for k, v in sorted(per.items(), key=lambda x: -x[1]))))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()

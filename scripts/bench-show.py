#!/usr/bin/env python3
"""`show` benchmark (issue 33 item 4, "show streams"): prints figures and
ratios against baselines measured in the same run, not a timed test.

1. Writes one thClaws JSONL session of MB megabytes (default 100): prose,
   code, tool calls and tool outputs (deterministic, seed 33).
2. Imports it with the release CLI.
3. For `show` (readable turns), `show --raw` and `show --json`, each of the
   whole session (`--limit` = its entry count) through a pipe
   (`sessiondb ... | cat > /dev/null`), under `/usr/bin/time -v`: wall
   time and peak RSS (the largest process of the pipeline), median of
   ROUNDS runs, the binaries interleaved round by round.
4. Baselines in the same run: `cat FILE | cat > /dev/null` of a file
   holding the very bytes that command printed (the floor of moving them
   through a pipe), and, when SESSIONDB_OLD_BIN names another build (e.g.
   `main`'s), that build on the same database.

Usage: scripts/bench-show.py [MB] [WORKDIR]
  env: SESSIONDB_BIN (default $CARGO_TARGET_DIR/release/sessiondb),
       SESSIONDB_OLD_BIN (optional), ROUNDS (default 3).
Build first: cargo build --release -p sessiondb-cli
"""
import base64, json, os, random, re, shutil, statistics, subprocess, sys, tempfile, time

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MB = int(ARGS[0]) if len(ARGS) > 0 else 100
WORK = ARGS[1] if len(ARGS) > 1 else "/tmp/sessiondb-show-bench"
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(os.path.dirname(__file__), "..", "target"))
BIN = os.environ.get("SESSIONDB_BIN", os.path.join(TARGET, "release", "sessiondb"))
OLD = os.environ.get("SESSIONDB_OLD_BIN")
ROUNDS = int(os.environ.get("ROUNDS", "3"))
SESSION = "bench-show"

rng = random.Random(33)
VOCAB = ["".join(rng.choice("bcdfghjklmnprstvwz") + rng.choice("aeiou") for _ in range(rng.randint(1, 4))) for _ in range(20000)]
VOCAB += ["function", "error", "the", "a", "and", "is", "to", "of", "in", "build", "test"] * 40


def prose(n):
    return " ".join(rng.choices(VOCAB, k=n)).capitalize() + "."


def code(lines):
    return "\n".join(f"    let {rng.choice(VOCAB)} = {rng.choice(VOCAB)}.{rng.choice(VOCAB)}(0x{rng.getrandbits(16):04x});" for _ in range(lines))


def tool_output(lines):
    return "\n".join(f"src/{rng.choice(VOCAB)}.rs:{rng.randint(1, 999)}: warning: {prose(8)}" for _ in range(lines))


def generate(path, total_bytes):
    pool = [prose(rng.randint(10, 150)) for _ in range(2000)]
    codes = [code(rng.randint(3, 30)) for _ in range(1000)]
    outs = [tool_output(rng.randint(3, 40)) for _ in range(1000)]
    t0, size, i = 1_760_000_000, 0, 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"type": "header", "id": SESSION, "model": "anthropic/claude-sonnet-4", "cwd": "/work/p", "created_at": t0}) + "\n")
        while size < total_bytes:
            if i % 2 == 0:
                blocks = [{"type": "text", "text": rng.choice(pool)}]
                if i % 6 == 2:
                    blocks.append({"type": "tool_result", "tool_use_id": f"t{i - 1}", "content": rng.choice(outs)})
                line = {"type": "user", "content": blocks, "timestamp": t0 + i}
            else:
                blocks = [{"type": "text", "text": rng.choice(pool) + "\n```rust\n" + rng.choice(codes) + "\n```"}]
                if i % 6 == 1:
                    blocks.append({"type": "tool_use", "id": f"t{i}", "name": "bash", "input": {"command": f"cargo test -p {rng.choice(VOCAB)}"}})
                line = {"type": "assistant", "content": blocks, "timestamp": t0 + i}
            s = json.dumps(line, ensure_ascii=False) + "\n"
            f.write(s)
            size += len(s.encode())
            i += 1
    return i, size


def timed(shell_cmd, env):
    """Wall seconds and peak RSS (KiB) of `sh -c shell_cmd` by /usr/bin/time -v
    (the maximum over the pipeline's processes)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-v", "-o", tf.name, "sh", "-c", shell_cmd], capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t
        report = tf.read()
    if r.returncode != 0:
        sys.exit(f"{shell_cmd}: {r.stderr[-2000:]}")
    return wall, int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1))


def main():
    os.makedirs(WORK, exist_ok=True)
    src = os.path.join(WORK, f"session-{MB}.jsonl")
    if not os.path.exists(src):
        turns, written = generate(src + ".part", MB * 1024 * 1024)
        os.rename(src + ".part", src)
    print(f"source: {src}, {os.path.getsize(src) / 1e6:.1f} MB of thClaws JSONL")
    for tool in [BIN] + ([OLD] if OLD else []):
        if not os.path.exists(tool):
            sys.exit(f"missing {tool}: cargo build --release -p sessiondb-cli")
    shutil.rmtree(os.path.join(WORK, "db"), ignore_errors=True)
    key = os.path.join(WORK, "key")
    with open(key, "w") as f:
        f.write(base64.b64encode(bytes(range(32))).decode() + "\n")
    os.chmod(key, 0o600)
    db = os.path.join(WORK, "db", "sessions.db")
    env = dict(os.environ, SESSIONDB_DB=db, SESSIONDB_KEY_FILE=key)
    env.pop("SESSIONDB_TERM_WIDTH", None)
    wall, rss = timed(f"'{BIN}' import '{src}' > /dev/null", env)
    print(f"import: {wall:.1f} s, peak RSS {rss / 1024:.0f} MiB")
    rec = json.loads(subprocess.run([BIN, "--json", "show", SESSION, "--limit", "1"], capture_output=True, text=True, env=env, check=True).stdout)
    n = rec["session"]["entry_count"]
    print(f"session {SESSION}: {n} entries")
    bins = [("new", BIN)] + ([("old", OLD)] if OLD else [])
    for label, args in [("show", ["show"]), ("show --raw", ["show", "--raw"]), ("show --json", ["--json", "show"])]:
        argv = " ".join(args) + f" {SESSION} --limit {n}"
        # The bytes this command prints, for the `cat` baseline and to check both builds print the same.
        outs = {}
        for name, b in bins:
            path = os.path.join(WORK, f"out-{name}-{label.replace(' ', '').replace('-', '')}.txt")
            subprocess.run(f"'{b}' {argv} > '{path}'", shell=True, env=env, check=True)
            outs[name] = path
        same = "" if not OLD else (", old and new print the same bytes" if open(outs["old"], "rb").read() == open(outs["new"], "rb").read() else ", OLD AND NEW OUTPUT DIFFER")
        size = os.path.getsize(outs["new"])
        runs = {name: [] for name, _ in bins}
        runs["cat"] = []
        for _ in range(ROUNDS):
            for name, b in bins:
                runs[name].append(timed(f"'{b}' {argv} | cat > /dev/null", env))
            runs["cat"].append(timed(f"cat '{outs['new']}' | cat > /dev/null", env))
        med = {k: (statistics.median(w for w, _ in v), max(r for _, r in v)) for k, v in runs.items()}
        print(f"\n`sessiondb {argv} | cat > /dev/null`: {size / 1e6:.1f} MB out{same}")
        for k, (w, r) in med.items():
            print(f"  {k:4}: median {w:.3f} s, peak RSS {r / 1024:.1f} MiB")
        w_new, r_new = med["new"]
        print(f"  new / cat of the same bytes: {w_new / med['cat'][0]:.2f}x wall")
        if OLD:
            print(f"  new / old: {w_new / med['old'][0]:.3f}x wall, {r_new / med['old'][1]:.3f}x peak RSS")
        print(f"  goal (issue 33 item 4): <= 0.3 s and <= 32 MiB: {'met' if w_new <= 0.3 and r_new <= 32 * 1024 else 'NOT met'}")


if __name__ == "__main__":
    main()

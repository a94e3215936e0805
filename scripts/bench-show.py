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
   through a pipe); `show --read-only` of the new build (hidden: the same
   pages read and decrypted, nothing printed: the floor of reading); and,
   when SESSIONDB_OLD_BIN names another build (e.g. `main`'s), that build
   on the same database.

5. With --callgrind: the same three commands on a session of CG_MB
   megabytes (default 10) under `valgrind --tool=callgrind`, instructions
   of each build (the figure a loaded machine does not move).

Usage: scripts/bench-show.py [MB] [WORKDIR] [--callgrind]
  env: SESSIONDB_BIN (default $CARGO_TARGET_DIR/release/sessiondb),
       SESSIONDB_OLD_BIN (optional), ROUNDS (default 3), CG_MB (default 10).
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
    """Wall seconds, peak RSS (KiB) and CPU seconds (user + system, of the
    whole pipeline) of `sh -c shell_cmd` by /usr/bin/time -v (the RSS is the
    maximum over the pipeline's processes). CPU time moves less than wall
    time on a machine shared with other work."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        t = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-v", "-o", tf.name, "sh", "-c", shell_cmd], capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t
        report = tf.read()
    if r.returncode != 0:
        sys.exit(f"{shell_cmd}: {r.stderr[-2000:]}")
    cpu = sum(float(re.search(rf"{what} time \(seconds\): ([\d.]+)", report).group(1)) for what in ("User", "System"))
    return wall, int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1)), cpu


COMMANDS = [("show", ["show"]), ("show --raw", ["show", "--raw"]), ("show --json", ["--json", "show"])]


def prepared(mb, bins):
    """One database per build, each holding one generated session of `mb`
    MB imported by that build (a newer build's schema is one an older
    build cannot open): ({name: env}, entries)."""
    src = os.path.join(WORK, f"session-{mb}.jsonl")
    if not os.path.exists(src):
        generate(src + ".part", mb * 1024 * 1024)
        os.rename(src + ".part", src)
    print(f"source: {src}, {os.path.getsize(src) / 1e6:.1f} MB of thClaws JSONL")
    key = os.path.join(WORK, "key")
    with open(key, "w") as f:
        f.write(base64.b64encode(bytes(range(32))).decode() + "\n")
    os.chmod(key, 0o600)
    envs, n = {}, None
    for name, b in bins:
        shutil.rmtree(os.path.join(WORK, f"db-{mb}-{name}"), ignore_errors=True)
        db = os.path.join(WORK, f"db-{mb}-{name}", "sessions.db")
        env = dict(os.environ, SESSIONDB_DB=db, SESSIONDB_KEY_FILE=key)
        env.pop("SESSIONDB_TERM_WIDTH", None)
        wall, rss, _ = timed(f"'{b}' import '{src}' > /dev/null", env)
        print(f"import ({name}): {wall:.1f} s, peak RSS {rss / 1024:.0f} MiB")
        rec = json.loads(subprocess.run([b, "--json", "show", SESSION, "--limit", "1"], capture_output=True, text=True, env=env, check=True).stdout)
        n = rec["session"]["entry_count"]
        envs[name] = env
    print(f"session {SESSION}: {n} entries")
    return envs, n


def callgrind(bins):
    envs, n = prepared(int(os.environ.get("CG_MB", "10")), bins)
    for label, args in COMMANDS:
        argv = [*args, SESSION, "--limit", str(n)]
        ir = {}
        for name, b in bins:
            out = os.path.join(WORK, f"cg.{name}")
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", b, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=envs[name], check=True)
            totals = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True).stdout
            ir[name] = int(re.search(r"([\d,]+) \(100.0%\) +PROGRAM TOTALS", totals).group(1).replace(",", ""))
        line = ", ".join(f"{k} {v:,} Ir" for k, v in ir.items())
        ratio = f": new / old {ir['new'] / ir['old']:.3f}" if "old" in ir else ""
        print(f"callgrind `sessiondb {' '.join(argv)}`: {line}{ratio}")
    # The floor: the same pages read and decrypted by the new build, nothing printed.
    out = os.path.join(WORK, "cg.read")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", BIN, "show", "--read-only", SESSION, "--limit", str(n)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=envs["new"], check=True)
    totals = subprocess.run(["callgrind_annotate", out], capture_output=True, text=True).stdout
    ir = int(re.search(r"([\d,]+) \(100.0%\) +PROGRAM TOTALS", totals).group(1).replace(",", ""))
    print(f"callgrind `sessiondb show --read-only {SESSION} --limit {n}` (read and decrypt, nothing printed): new {ir:,} Ir")


def main():
    os.makedirs(WORK, exist_ok=True)
    for tool in [BIN] + ([OLD] if OLD else []):
        if not os.path.exists(tool):
            sys.exit(f"missing {tool}: cargo build --release -p sessiondb-cli")
    bins = [("new", BIN)] + ([("old", OLD)] if OLD else [])
    if "--callgrind" in sys.argv:
        callgrind(bins)
    envs, n = prepared(MB, bins)
    for label, args in COMMANDS:
        argv = " ".join(args) + f" {SESSION} --limit {n}"
        # The bytes this command prints, for the `cat` baseline and to check both builds print the same.
        outs = {}
        for name, b in bins:
            path = os.path.join(WORK, f"out-{name}-{label.replace(' ', '').replace('-', '')}.txt")
            subprocess.run(f"'{b}' {argv} > '{path}'", shell=True, env=envs[name], check=True)
            outs[name] = path
        same = "" if not OLD else (", old and new print the same bytes" if open(outs["old"], "rb").read() == open(outs["new"], "rb").read() else ", OLD AND NEW OUTPUT DIFFER")
        size = os.path.getsize(outs["new"])
        runs = {name: [] for name, _ in bins}
        runs["cat"] = []
        runs["read"] = []
        for _ in range(ROUNDS):
            for name, b in bins:
                runs[name].append(timed(f"'{b}' {argv} | cat > /dev/null", envs[name]))
            runs["cat"].append(timed(f"cat '{outs['new']}' | cat > /dev/null", envs["new"]))
            runs["read"].append(timed(f"'{BIN}' show --read-only {SESSION} --limit {n} | cat > /dev/null", envs["new"]))
        med = {k: (statistics.median(w for w, _, _ in v), max(r for _, r, _ in v), statistics.median(c for _, _, c in v)) for k, v in runs.items()}
        print(f"\n`sessiondb {argv} | cat > /dev/null`: {size / 1e6:.1f} MB out{same}")
        for k, (w, r, c) in med.items():
            print(f"  {k:4}: median {w:.3f} s wall, {c:.3f} s CPU, peak RSS {r / 1024:.1f} MiB")
        w_new, r_new, c_new = med["new"]
        print(f"  new / cat of the same bytes: {w_new / med['cat'][0]:.2f}x wall, {c_new / max(med['cat'][2], 0.001):.2f}x CPU")
        print(f"  new / read (read and decrypt, nothing printed): {w_new / med['read'][0]:.2f}x wall, {c_new / max(med['read'][2], 0.001):.2f}x CPU; "
              f"read + cat: {med['read'][0] + med['cat'][0]:.3f} s wall, {med['read'][2] + med['cat'][2]:.3f} s CPU")
        if OLD:
            print(f"  new / old: {w_new / med['old'][0]:.3f}x wall, {c_new / med['old'][2]:.3f}x CPU, {r_new / med['old'][1]:.3f}x peak RSS")
        print(f"  goal (issue 33 item 4): <= 0.3 s and <= 32 MiB: {'met' if w_new <= 0.3 and r_new <= 32 * 1024 else 'NOT met'}")


if __name__ == "__main__":
    main()

#!/usr/bin/env bash
# bench-wheel-profile.sh — the shipped Python wheel of this tree against the one
# of a base revision (default `main`), side by side in one run: size, append and
# read rates, and the first exact token count (issue 15 item 2: <= 8 MB, not
# slower).
#
# Builds both wheels exactly as the shipped one is built (`maturin build
# --release`, each tree's own Cargo.toml and pyproject.toml; the base from `git
# archive BASE_REF`, with the same CARGO_TARGET_DIR so only its own crates
# compile), installs each into its own venv, then for ROUNDS rounds, the wheels
# interleaved, each in a fresh process:
#   - bench_sessiondb() of python/bench/bench_vs_agents_sdk.py (BENCH_N items of
#     1 KiB: one append per item, one append per turn of 10, read back);
#   - the first `count_tokens("gpt-4o", ...)` and `count_tokens("gpt-4", ...)`
#     of the process (the o200k_base / cl100k_base tables are loaded then), and
#     the rate of later counts of a 1 KiB text.
# Prints each wheel's size and medians, and the ratios this tree / base.
# With CALLGRIND=1 it also counts instructions (valgrind --tool=callgrind,
# PYTHONHASHSEED=0) of CALLGRIND_N appends + the read back, minus a run that
# only opens the store, per wheel (repeatable where seconds are not).
# Env: BASE_REF (default main), BENCH_N (default 10000), ROUNDS (default 5),
# CALLGRIND, CALLGRIND_N (default 2000), KEEP=1 keeps the work dir.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CACHE="${SESSIONDB_PY_CACHE:-$HOME/.cache/sessiondb-py}"
PY="${PYTHON:-python3}"
BASE_REF="${BASE_REF:-main}"
WORK="$(mktemp -d)"
trap '[ "${KEEP:-}" = 1 ] || rm -rf "$WORK"' EXIT
[ -x "$CACHE/build-venv/bin/maturin" ] || { mkdir -p "$CACHE"; "$PY" -m venv "$CACHE/build-venv"; "$CACHE/build-venv/bin/pip" install -q 'maturin>=1.7,<2'; }
MATURIN="$CACHE/build-venv/bin/maturin"
mkdir "$WORK/base-src"
git archive "$BASE_REF" | tar -x -C "$WORK/base-src"
# Fresh mtimes: git archive gives the commit's time, and cargo (whose cargo shim here
# hashes both trees alike) could take an older artifact of another state as fresh.
find "$WORK/base-src" -type f -exec touch {} +
build() {  # NAME SOURCE-TREE
  mkdir -p "$WORK/$1"
  echo "--- building wheel $1 ($2)" >&2
  local t=$SECONDS
  # Each wheel's artifacts get their own hashes: with shared ones, cargo took a
  # build of a changed workspace crate from another tree (the base, or another
  # clone built since this tree's last edit: fresher mtimes) as this tree's.
  local meta=(env __CARGO_DEFAULT_LIB_METADATA=sessiondb-bench-base)
  [ "$1" = this ] && meta=(env __CARGO_DEFAULT_LIB_METADATA="sessiondb-bench-this-$(printf %s "$2" | cksum | cut -d' ' -f1)")
  nice -n 10 "${meta[@]}" "$MATURIN" build --release -q --auditwheel skip -m "$2/python/Cargo.toml" -o "$WORK/$1" -i "$PY" >&2
  echo "    built in $((SECONDS - t)) s" >&2
  "$PY" -m venv "$WORK/venv-$1"
  "$WORK/venv-$1/bin/pip" install -q --no-deps "$WORK/$1"/sessiondb-*.whl
}
build base "$WORK/base-src"
build this "$ROOT"
names=(base this)
for n in "${names[@]}"; do echo "$n $(stat -c %s "$WORK/$n"/sessiondb-*.whl)" >> "$WORK/sizes"; done
cat > "$WORK/run.py" <<'PY'
import os, sys, tempfile, time
t = time.perf_counter()
import sessiondb
first = {}
for model in ("gpt-4o", "gpt-4"):
    t = time.perf_counter()
    sessiondb.count_tokens(model, "hello world")
    first[model] = time.perf_counter() - t
text = ("lorem ipsum dolor sit amet, consectetur 12345 " * 24)[:1024]
t = time.perf_counter()
for _ in range(2000):
    sessiondb.count_tokens("gpt-4o", text)
count_rate = 2000 / (time.perf_counter() - t)
sys.path.insert(0, sys.argv[1])
import bench_vs_agents_sdk as b
with tempfile.TemporaryDirectory() as d:
    a1, r1 = b.bench_sessiondb(os.path.join(d, "one.db"), 1)
    a10, r10 = b.bench_sessiondb(os.path.join(d, "turn.db"), 10)
print(sys.argv[2], b.N / a1, b.N / r1, b.N / a10, b.N / r10, first["gpt-4o"] * 1e3, first["gpt-4"] * 1e3, count_rate)
PY
ROUNDS="${ROUNDS:-5}"
for r in $(seq "$ROUNDS"); do
  for n in "${names[@]}"; do
    (cd "$WORK" && "$WORK/venv-$n/bin/python" "$WORK/run.py" "$ROOT/python/bench" "$n") >> "$WORK/rates"
  done
done
"$PY" - "$WORK/sizes" "$WORK/rates" "$ROUNDS" <<'PY'
import statistics, sys
sizes = dict(l.split() for l in open(sys.argv[1]))
rates = {}
for l in open(sys.argv[2]):
    n, *v = l.split()
    rates.setdefault(n, []).append([float(x) for x in v])
med = {n: [statistics.median(col) for col in zip(*vs)] for n, vs in rates.items()}
cols = ["append/s", "read/s", "turn append/s", "turn read/s", "1st o200k ms", "1st cl100k ms", "counts/s"]
print(f"medians of {sys.argv[3]} interleaved rounds")
print(f"{'wheel':6} {'bytes':>10} " + " ".join(f"{c:>14}" for c in cols))
for n in sizes:
    print(f"{n:6} {int(sizes[n]):>10,} " + " ".join(f"{x:>14,.1f}" for x in med[n]))
print(f"{'this/base':17} " + " ".join(f"{t / b:>13.2f}x" for t, b in zip(med["this"], med["base"])))
print(f"size this/base {int(sizes['this']) / int(sizes['base']):.3f}")
PY
if [ "${CALLGRIND:-0}" = 1 ]; then
  cat > "$WORK/cg.py" <<'PY'
import os, sys, tempfile
import sessiondb
n = int(sys.argv[1])
if sys.argv[2] == "tok":  # n = 1: load both tokenizer tables (first exact counts)
    if n:
        assert sessiondb.count_tokens("gpt-4o", "hello world").tokens == 2
        assert sessiondb.count_tokens("gpt-4", "hello world").tokens == 2
    sys.exit(0)
items = [(f"entry {i} " + "lorem ipsum dolor sit amet " * 40)[:1024] for i in range(n)]
with tempfile.TemporaryDirectory() as d:
    with sessiondb.SessionStore(os.path.join(d, "s.db"), key=bytes(range(32))) as st:
        sid = st.create_session("cg").id
        for it in items:
            st.append_transcript(sid, "user", it)
        got = sum(len(e.content) for e in st.iter_transcript(sid, page_size=1000))
        assert got == 1024 * n
PY
  CN="${CALLGRIND_N:-2000}"
  for n in "${names[@]}"; do
    for run in "store 0" "store $CN" "tok 0" "tok 1"; do
      set -- $run
      (cd "$WORK" && PYTHONHASHSEED=0 nice valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.$n.$1.$2" \
        "$WORK/venv-$n/bin/python" "$WORK/cg.py" "$2" "$1" 2> "$WORK/cg.$n.$1.$2.log")
      echo "$n $1 $2 $(sed -n 's/^summary: //p' "$WORK/cg.$n.$1.$2")" >> "$WORK/cg"
    done
  done
  "$PY" - "$WORK/cg" "$CN" <<'PY'
import sys
ir = {}
for l in open(sys.argv[1]):
    n, mode, k, v = l.split()
    ir[(n, mode, int(k))] = int(v)
cn = int(sys.argv[2])
per = {n: (ir[(n, "store", cn)] - ir[(n, "store", 0)]) / cn for n in ("base", "this")}
tok = {n: ir[(n, "tok", 1)] - ir[(n, "tok", 0)] for n in ("base", "this")}
for n in ("base", "this"):
    print(f"callgrind {n}: {ir[(n, 'store', 0)]:,} Ir open only, {ir[(n, 'store', cn)]:,} Ir with {cn} appends + read back: {per[n]:,.0f} Ir per item; first o200k + cl100k counts {tok[n]:,} Ir")
print(f"callgrind this/base: per item {per['this'] / per['base']:.4f}, first counts {tok['this'] / tok['base']:.3f}")
PY
fi

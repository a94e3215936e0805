#!/usr/bin/env bash
# bench-wheel-profile.sh — wheel size against append/read speed for build-profile
# variants of the Python wheel, measured in one run (issue 15 item 2: <= 8 MB).
#
# Builds the release wheel as Cargo.toml sets it (the baseline, shared target
# dir) and each variant below (its own target dir, WORK_TARGET, deleted unless
# KEEP=1), installs each into its own venv, then runs bench_sessiondb() of
# python/bench/bench_vs_agents_sdk.py (one append per item, one append per turn
# of 10, read back) for every wheel in turn, ROUNDS times interleaved, and prints
# each wheel's size and its median append/read rates as ratios to the baseline.
#   variant lto-fat:   profile.release lto = "fat", codegen-units = 1
#   variant lto-fat-s: the same + opt-level = "s" for the binding crate only
# Env: BENCH_N (default 10000), ROUNDS (default 3), WORK_TARGET.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CACHE="${SESSIONDB_PY_CACHE:-$HOME/.cache/sessiondb-py}"
PY="${PYTHON:-python3}"
WORK="$(mktemp -d)"
WORK_TARGET="${WORK_TARGET:-$WORK/target}"
trap '[ "${KEEP:-}" = 1 ] || rm -rf "$WORK"' EXIT
[ -x "$CACHE/build-venv/bin/maturin" ] || { mkdir -p "$CACHE"; "$PY" -m venv "$CACHE/build-venv"; "$CACHE/build-venv/bin/pip" install -q 'maturin>=1.7,<2'; }
MATURIN="$CACHE/build-venv/bin/maturin"
build() {  # NAME TARGET-DIR CONFIG...
  local name="$1" target="$2"; shift 2
  local args=()
  for c in "$@"; do args+=(--config "$c"); done
  mkdir -p "$WORK/$name"
  echo "--- building wheel $name ${*:-(Cargo.toml profile)}" >&2
  CARGO_TARGET_DIR="$target" nice -n 10 "$MATURIN" build --release -q --auditwheel skip -m "$ROOT/python/Cargo.toml" \
    -o "$WORK/$name" -i "$PY" "${args[@]}" >&2
  "$PY" -m venv "$WORK/venv-$name"
  "$WORK/venv-$name/bin/pip" install -q --no-deps "$WORK/$name"/sessiondb-*.whl
}
build baseline "$CARGO_TARGET_DIR"
build lto-fat "$WORK_TARGET" 'profile.release.lto="fat"' 'profile.release.codegen-units=1'
build lto-fat-s "$WORK_TARGET" 'profile.release.lto="fat"' 'profile.release.codegen-units=1' 'profile.release.package.sessiondb-python.opt-level="s"'
names=(baseline lto-fat lto-fat-s)
for n in "${names[@]}"; do echo "$n $(stat -c %s "$WORK/$n"/sessiondb-*.whl)" >> "$WORK/sizes"; done
ROUNDS="${ROUNDS:-3}"
for r in $(seq "$ROUNDS"); do
  for n in "${names[@]}"; do
    "$WORK/venv-$n/bin/python" - "$ROOT/python/bench" "$n" >> "$WORK/rates" <<'PY'
import sys, tempfile, os
sys.path.insert(0, sys.argv[1])
import bench_vs_agents_sdk as b
with tempfile.TemporaryDirectory() as d:
    a1, r1 = b.bench_sessiondb(os.path.join(d, "one.db"), 1)
    a10, r10 = b.bench_sessiondb(os.path.join(d, "turn.db"), 10)
print(sys.argv[2], b.N / a1, b.N / r1, b.N / a10, b.N / r10)
PY
  done
done
"$PY" - "$WORK/sizes" "$WORK/rates" <<'PY'
import statistics, sys
sizes = dict(l.split() for l in open(sys.argv[1]))
rates = {}
for l in open(sys.argv[2]):
    n, *v = l.split()
    rates.setdefault(n, []).append([float(x) for x in v])
med = {n: [statistics.median(col) for col in zip(*vs)] for n, vs in rates.items()}
base = med["baseline"]
print(f"{'wheel':12} {'bytes':>10} {'append/s':>10} {'read/s':>10} {'turn append/s':>14} {'turn read/s':>12}   ratios to baseline (append, read, turn append, turn read)")
for n in sizes:
    m = med[n]
    print(f"{n:12} {int(sizes[n]):>10,} {m[0]:>10,.0f} {m[1]:>10,.0f} {m[2]:>14,.0f} {m[3]:>12,.0f}   " + ", ".join(f"{a / b_:.2f}x" for a, b_ in zip(m, base)))
PY

#!/usr/bin/env bash
# Issue 33 item 1: a single append (1 KiB of text, one transaction) and a
# read of every entry, the store against the matched design floor
# (core/examples/append_floor.rs: the same pragmas, page size and cache,
# cached statements, the entry row sealed with AES-256-GCM, the seed's
# journal row, the session's activity), in callgrind instructions, one build,
# one run:
#   append: (Ir(MODE, N) - Ir(MODE, 0)) / N, and the second half alone
#           (Ir(N) - Ir(N/2)) / (N/2); ratio = floor / store (>= 1.0: the
#           store appends at least as fast as the floor)
#   read:   Ir of the read function alone (--toggle-collect) after R appends;
#           the floor twice: seq and content only, and the fields an entry
#           of the design's row has (seq, role, creation time, content)
# N stays at 200 (a WAL under the store's 4 MiB checkpoint threshold, so no
# checkpoint runs during the appends counted).
# Usage: scripts/bench-append.sh [N=200] [R=10000]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-200}"
R="${2:-10000}"
cargo build --release -q -p sessiondb --example append_floor
BIN="${CARGO_TARGET_DIR:-target}/release/examples/append_floor"
ir() {
  local out; out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
  rm -f "$out"
}
H=$((N / 2))
args=("$N" "$H")
for m in store store-zstd floor; do
  args+=("$(ir "$BIN" "$m" 0)" "$(ir "$BIN" "$m" "$H")" "$(ir "$BIN" "$m" "$N")")
done
args+=("$R" "$(ir --collect-atstart=no '--toggle-collect=*read_all_store*' "$BIN" store-read "$R")")
args+=("$(ir --collect-atstart=no '--toggle-collect=*read_all_floor' "$BIN" floor-read "$R")")
args+=("$(ir --collect-atstart=no '--toggle-collect=*read_all_floor_entries' "$BIN" floor-read-entries "$R")")
python3 - "${args[@]}" <<'PY'
import sys
v = list(map(int, sys.argv[1:]))
n, h = v[0], v[1]
per = {}
for k, m in enumerate(["store", "store-zstd", "floor"]):
    z, a, b = v[2 + 3 * k: 5 + 3 * k]
    per[m] = ((b - z) / n, (b - a) / (n - h))
f = per["floor"]
for m in ["store", "store-zstd", "floor"]:
    s = per[m]
    print(f"append {m:10}: {s[0]:,.0f} instructions each (appends 1..{n}), {s[1]:,.0f} ({h + 1}..{n}); floor/{m} {f[0] / s[0]:.3f} / {f[1] / s[1]:.3f}")
r, rs, rf, re = v[11], v[12], v[13], v[14]
print(f"read {r} entries: store {rs:,} instructions, floor {rf:,}; floor/store {rf / rs:.3f}")
print(f"read {r} entries: floor reading an entry's fields (seq, role, time, content) {re:,}; floor/store {re / rs:.3f}")
PY

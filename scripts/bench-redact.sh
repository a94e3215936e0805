#!/usr/bin/env bash
# Issue 30 item 2: instructions per append with the redaction policy on-write
# against off (today's appends), under callgrind, in one run of one build:
#   ratio = (Ir(on-write, N) - Ir(on-write, 0)) / (Ir(off, N) - Ir(off, 0))
# (the N = 0 runs take out open, key check and session creation).
# Usage: scripts/bench-redact.sh [N=200]   (builds the example in release;
# PROFILE=debug uses the debug build instead, when a release build is out of reach)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-200}"
PROFILE="${PROFILE:-release}"
if [ "$PROFILE" = release ]; then
  cargo build --release -q -p sessiondb --example redact_append_cost
else
  cargo build -q -p sessiondb --example redact_append_cost
fi
BIN="${CARGO_TARGET_DIR:-target}/$PROFILE/examples/redact_append_cost"
ir() {
  local out; out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$BIN" "$1" "$2" >/dev/null 2>&1
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
  rm -f "$out"
}
off0=$(ir off 0); offn=$(ir off "$N"); on0=$(ir on-write 0); onn=$(ir on-write "$N")
python3 - "$N" "$off0" "$offn" "$on0" "$onn" <<'PY'
import sys
n, off0, offn, on0, onn = map(int, sys.argv[1:])
off, on = (offn - off0) / n, (onn - on0) / n
print(f"appends: {n}; instructions per append: off {off:,.0f}, on-write {on:,.0f}; ratio {on / off:.3f}")
PY

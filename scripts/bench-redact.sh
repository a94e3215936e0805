#!/usr/bin/env bash
# Issue 30 item 2: instructions per append with the redaction policy on-write
# against off (today's appends), under callgrind, in one run of one build:
#   ratio = (Ir(on-write, N) - Ir(on-write, 0)) / (Ir(off, N) - Ir(off, 0))
# (the N = 0 runs take out open, key check and session creation), and the
# same for the second half alone, (Ir(N) - Ir(N/2)) / (N/2): closer to the
# cost once the regexes' lazy DFAs are built (the first appends pay for
# building them). Past ~400 appends (a 4 MiB WAL) the background checkpoint
# thread's work would count too, so N stays at 200 or below for ratios.
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
H=$((N / 2))
off0=$(ir off 0); offh=$(ir off "$H"); offn=$(ir off "$N")
on0=$(ir on-write 0); onh=$(ir on-write "$H"); onn=$(ir on-write "$N")
python3 - "$N" "$H" "$off0" "$offh" "$offn" "$on0" "$onh" "$onn" <<'PY'
import sys
n, h, off0, offh, offn, on0, onh, onn = map(int, sys.argv[1:])
off, on = (offn - off0) / n, (onn - on0) / n
print(f"appends: {n}; instructions per append: off {off:,.0f}, on-write {on:,.0f}; ratio {on / off:.3f}")
off, on = (offn - offh) / (n - h), (onn - onh) / (n - h)
print(f"appends {h + 1}..{n} alone: off {off:,.0f}, on-write {on:,.0f}; ratio {on / off:.3f}")
PY

#!/usr/bin/env bash
# Issue 30 item 3: what `PRAGMA secure_delete=ON` costs, in instructions
# under callgrind, against the same build with it off (the measurement-only
# cargo feature `bench-no-secure-delete`), one build of each:
#   append ratio = (Ir(on, append N) - Ir(on, append 0)) / (Ir(off, append N) - Ir(off, append 0))
#   delete ratio = (Ir(on, delete N) - Ir(on, append N)) / (Ir(off, delete N) - Ir(off, append N))
# (N entries of 1-4 KiB over two sessions; the delete removes one of them
# and ends with the truncating checkpoint in both builds).
# Usage: scripts/bench-secure-delete.sh [N=200]   (debug build by default, as
# a release build is out of reach on the shared machine; PROFILE=release
# builds the example in release)
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-200}"
PROFILE="${PROFILE:-debug}"
REL=(); [ "$PROFILE" = release ] && REL=(--release)
TARGET="${CARGO_TARGET_DIR:-target}"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
cargo build -q "${REL[@]}" -p sessiondb --example secure_delete_cost
cp "$TARGET/$PROFILE/examples/secure_delete_cost" "$TMP/on"
cargo build -q "${REL[@]}" -p sessiondb --example secure_delete_cost --features bench-no-secure-delete
cp "$TARGET/$PROFILE/examples/secure_delete_cost" "$TMP/off"
ir() {
  local out="$TMP/cg.out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$TMP/$1" "$2" "$3" >/dev/null 2>&1
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
  rm -f "$out"
}
on0=$(ir on append 0); onn=$(ir on append "$N"); ond=$(ir on delete "$N")
off0=$(ir off append 0); offn=$(ir off append "$N"); offd=$(ir off delete "$N")
python3 - "$N" "$on0" "$onn" "$ond" "$off0" "$offn" "$offd" <<'PY'
import sys
n, on0, onn, ond, off0, offn, offd = map(int, sys.argv[1:])
on, off = (onn - on0) / n, (offn - off0) / n
print(f"appends: {n}; instructions per append: secure_delete off {off:,.0f}, on {on:,.0f}; ratio {on / off:.3f}")
don, doff = ond - onn, offd - offn
print(f"delete of a session of {n // 2 + n % 2} entries: off {doff:,} instructions, on {don:,}; ratio {don / doff:.3f}")
PY

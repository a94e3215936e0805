#!/usr/bin/env bash
# PostgreSQL figures (issue 13, "Performance"), one run on a throwaway server:
# 8 concurrent sessiondb clients appending 1 KiB entries (appends/s, p50/p99);
# one client's append and read rates on PostgreSQL and on SQLite; and the
# floor: pgbench, 8 clients, one INSERT of a 1 KiB row per transaction; then
# the ratio sessiondb / pgbench (goal >= 0.5), all measured in the same run.
# Usage: scripts/bench-postgres.sh [CLIENTS] [APPENDS_PER_CLIENT]   (as root)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CLIENTS="${1:-8}"; PER="${2:-500}"
cargo build -q --release -p sessiondb --features postgres --example pg_append_bench
export CLIENTS PER
exec scripts/with-postgres.sh bash -c '
  set -euo pipefail
  OUT="$(mktemp)"; S="$(mktemp)"; trap "rm -f $OUT $S" EXIT
  "$CARGO_TARGET_DIR/release/examples/pg_append_bench" "$CLIENTS" "$PER" | tee "$OUT" | grep -v "^bench-postgres:"
  psql -q "$SESSIONDB_TEST_PG_URL" -c "CREATE TABLE floor (session_id text, seq bigserial, body bytea, PRIMARY KEY (session_id, seq))"
  echo "INSERT INTO floor (session_id, body) VALUES ('"'"'s'"'"' || :client_id, convert_to(repeat('"'"'x'"'"', 1024), '"'"'UTF8'"'"'));" > "$S"
  /usr/lib/postgresql/15/bin/pgbench -n -c "$CLIENTS" -j 2 -t "$PER" -f "$S" "$SESSIONDB_TEST_PG_URL" 2>&1 | grep -E "latency average|tps" | sed "s/^/pgbench floor: /" | tee -a "$OUT"
  ours="$(sed -n "s/^bench-postgres: appends_per_s=//p" "$OUT")"
  floor="$(sed -n "s/^pgbench floor: tps = \([0-9.]*\).*/\1/p" "$OUT")"
  awk -v a="$ours" -v b="$floor" "BEGIN { printf \"sessiondb / pgbench floor: %.2fx (goal >= 0.50x)\n\", a / b }"'

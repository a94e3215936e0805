#!/usr/bin/env bash
# PostgreSQL figures (issue 13, "Performance"), one run on a throwaway server:
# 8 concurrent sessiondb clients appending 1 KiB entries (appends/s, p50/p99),
# and the floor: pgbench, 8 clients, one INSERT of a 1 KiB row per transaction.
# Usage: scripts/bench-postgres.sh [CLIENTS] [APPENDS_PER_CLIENT]   (as root)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CLIENTS="${1:-8}"; PER="${2:-500}"
cargo build -q --release -p sessiondb --features postgres --example pg_append_bench
exec scripts/with-postgres.sh bash -c '
  set -euo pipefail
  "$CARGO_TARGET_DIR/release/examples/pg_append_bench" '"$CLIENTS"' '"$PER"'
  psql -q "$SESSIONDB_TEST_PG_URL" -c "CREATE TABLE floor (session_id text, seq bigserial, body bytea, PRIMARY KEY (session_id, seq))"
  S="$(mktemp)"; echo "INSERT INTO floor (session_id, body) VALUES ('"'"'s'"'"' || :client_id, convert_to(repeat('"'"'x'"'"', 1024), '"'"'UTF8'"'"'));" > "$S"
  /usr/lib/postgresql/15/bin/pgbench -n -c '"$CLIENTS"' -j 2 -t '"$PER"' -f "$S" "$SESSIONDB_TEST_PG_URL" 2>&1 | grep -E "latency average|tps" | sed "s/^/pgbench floor: /"
  rm -f "$S"'

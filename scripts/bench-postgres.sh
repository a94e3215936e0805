#!/usr/bin/env bash
# PostgreSQL figures (issues 13 and 33), one run on a throwaway server:
# 8 concurrent sessiondb clients appending 1 KiB entries (appends/s, p50/p99);
# one client's append and read rates on PostgreSQL and on SQLite; and the
# floors, pgbench on the same server, same clients and transaction counts:
# * "one INSERT": one 1 KiB row per transaction (issue 13's floor);
# * "same rows": what an append writes, a 1 KiB entry row AND a journal row
#   (event id, ~200-byte payload), two INSERTs in one transaction, sent as one
#   compound command (`\;`: one round trip, the best a client can do);
# * "same rows, 4 round trips": the same two INSERTs as BEGIN; INSERT;
#   INSERT; COMMIT, one command each (how a client without pipelining sends them).
# Then the ratios sessiondb / floor at CLIENTS clients and at 1 client
# (issue 33 item 5: >= 0.8x and >= 0.7x of "same rows").
# Usage: scripts/bench-postgres.sh [CLIENTS] [APPENDS_PER_CLIENT]   (as root)
# BENCH_BIN=path runs that build of the example instead of building this
# tree's (to compare builds against the same floors). SYNC_COMMIT=off runs
# everything (sessiondb and the floors) with synchronous_commit off: no
# wait for the WAL flush, so round trips and CPU are what is measured,
# not this machine's fsync.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CLIENTS="${1:-8}"; PER="${2:-500}"
if [ -z "${BENCH_BIN:-}" ]; then
  cargo build -q --release -p sessiondb --features postgres --example pg_append_bench
  BENCH_BIN="$CARGO_TARGET_DIR/release/examples/pg_append_bench"
fi
SYNC_COMMIT="${SYNC_COMMIT:-on}"
export CLIENTS PER BENCH_BIN SYNC_COMMIT
exec scripts/with-postgres.sh bash -c '
  set -euo pipefail
  OUT="$(mktemp)"; D="$(mktemp -d)"; trap "rm -rf $OUT $D" EXIT
  psql -q "$SESSIONDB_TEST_PG_URL" -c "ALTER DATABASE postgres SET synchronous_commit = $SYNC_COMMIT"
  echo "synchronous_commit = $SYNC_COMMIT"
  "$BENCH_BIN" "$CLIENTS" "$PER" | tee "$OUT" | grep -v "^bench-postgres:"
  psql -q "$SESSIONDB_TEST_PG_URL" <<SQL
CREATE TABLE floor (session_id text, seq bigserial, body bytea, PRIMARY KEY (session_id, seq));
CREATE TABLE floor_entries (session_id text, seq bigserial, body bytea, PRIMARY KEY (session_id, seq));
CREATE TABLE floor_journal (session_id text, seq bigserial, event_id text, payload text, PRIMARY KEY (session_id, seq));
SQL
  ENTRY="INSERT INTO floor_entries (session_id, body) VALUES ('"'"'s'"'"' || :client_id, convert_to(repeat('"'"'x'"'"', 1024), '"'"'UTF8'"'"'))"
  EVENT="INSERT INTO floor_journal (session_id, event_id, payload) VALUES ('"'"'s'"'"' || :client_id, md5(random()::text), repeat('"'"'y'"'"', 200))"
  echo "INSERT INTO floor (session_id, body) VALUES ('"'"'s'"'"' || :client_id, convert_to(repeat('"'"'x'"'"', 1024), '"'"'UTF8'"'"'));" > "$D/one.sql"
  printf "%s\\\\;\n%s;\n" "$ENTRY" "$EVENT" > "$D/same.sql"
  printf "BEGIN;\n%s;\n%s;\nCOMMIT;\n" "$ENTRY" "$EVENT" > "$D/same4.sql"
  pgb() { # NAME SCRIPT CLIENTS TRANSACTIONS: prints "pgbench NAME: <tps>"
    local tps
    tps="$(/usr/lib/postgresql/15/bin/pgbench -n -c "$3" -j "$(( $3 < 2 ? 1 : 2 ))" -t "$4" -f "$2" "$SESSIONDB_TEST_PG_URL" 2>&1 | sed -n "s/^tps = \([0-9.]*\).*/\1/p")"
    echo "pgbench $1: $tps tps" | tee -a "$OUT"
  }
  N1="$(sed -n "s/^one client, \([0-9]*\) x.*/\1/p" "$OUT")"
  pgb "one INSERT, $CLIENTS clients" "$D/one.sql" "$CLIENTS" "$PER"
  pgb "same rows, $CLIENTS clients" "$D/same.sql" "$CLIENTS" "$PER"
  pgb "same rows 4 round trips, $CLIENTS clients" "$D/same4.sql" "$CLIENTS" "$PER"
  pgb "same rows, 1 client" "$D/same.sql" 1 "$N1"
  pgb "same rows 4 round trips, 1 client" "$D/same4.sql" 1 "$N1"
  ours="$(sed -n "s/^bench-postgres: appends_per_s=//p" "$OUT")"
  one="$(sed -n "s/^one client, .*: postgres \([0-9]*\) appends.*/\1/p" "$OUT")"
  f() { sed -n "s/^pgbench $1: \([0-9.]*\) tps/\1/p" "$OUT"; }
  awk -v a="$ours" -v b="$(f "one INSERT, $CLIENTS clients")" -v c="$(f "same rows, $CLIENTS clients")" -v d="$(f "same rows 4 round trips, $CLIENTS clients")" \
      -v o="$one" -v e="$(f "same rows, 1 client")" -v g="$(f "same rows 4 round trips, 1 client")" -v n="$CLIENTS" "BEGIN {
    printf \"sessiondb / pgbench, %d clients: same rows %.2fx (goal >= 0.80x), same rows 4 round trips %.2fx, one INSERT %.2fx\n\", n, a / c, a / d, a / b
    printf \"sessiondb / pgbench, 1 client: same rows %.2fx (goal >= 0.70x), same rows 4 round trips %.2fx\n\", o / e, o / g }"'

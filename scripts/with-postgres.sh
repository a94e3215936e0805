#!/usr/bin/env bash
# Runs CMD... against a throwaway PostgreSQL 15 server on loopback:
# initdb in a temporary directory (owned by the `postgres` user), pg_ctl
# start on 127.0.0.1:$SESSIONDB_TEST_PG_PORT (default: a free port), export
# SESSIONDB_TEST_PG_URL (a superuser URL of database `postgres`; each test
# makes its own database), SESSIONDB_TEST_PG_DATA (the data directory) and
# SESSIONDB_TEST_PG_CTL (a command line to restart it: "$SESSIONDB_TEST_PG_CTL
# restart"), run CMD, stop the server and remove the directory.
# Needs root (it runs initdb and pg_ctl as `postgres` through runuser);
# installs the `postgresql` package when PostgreSQL 15 is missing.
# Usage: scripts/with-postgres.sh cargo test -p sessiondb --features postgres --test store_postgres
set -euo pipefail
PGBIN="${PGBIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$PGBIN/initdb" ]; then
  echo "with-postgres: installing postgresql (PostgreSQL 15 not found in $PGBIN)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null || {
    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null; }
fi
[ "$(id -u)" = 0 ] || { echo "with-postgres: run as root (initdb and pg_ctl run as the postgres user)" >&2; exit 2; }
PORT="${SESSIONDB_TEST_PG_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}"
DIR="$(mktemp -d /tmp/sessiondb-pg.XXXXXX)"
chown postgres: "$DIR"; chmod 700 "$DIR"
as_pg() { runuser -u postgres -- "$@"; }
cleanup() {
  as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT
as_pg "$PGBIN/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
OPTS="-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=on -c max_connections=200"
as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -o "$OPTS" -w start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
export SESSIONDB_TEST_PG_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
export SESSIONDB_TEST_PG_DATA="$DIR/data" SESSIONDB_TEST_PG_LOG="$DIR/server.log"
export SESSIONDB_TEST_PG_CTL="runuser -u postgres -- $PGBIN/pg_ctl -D $DIR/data -l $DIR/server.log -o '$OPTS' -w"
echo "with-postgres: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT" >&2
status=0
"$@" || status=$?
exit $status

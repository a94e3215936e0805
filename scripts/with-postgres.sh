#!/usr/bin/env bash
# Runs CMD... against a throwaway PostgreSQL 15 server on loopback:
# initdb in a temporary directory (owned by the `postgres` user), pg_ctl
# start on 127.0.0.1:$SESSIONDB_TEST_PG_PORT (default: a free port), export
# SESSIONDB_TEST_PG_URL (a superuser URL of database `postgres`; each test
# makes its own database), SESSIONDB_TEST_PG_DATA (the data directory) and
# SESSIONDB_TEST_PG_CTL (a command line to restart it: "$SESSIONDB_TEST_PG_CTL
# restart"), run CMD, stop the server and remove the directory.
# TLS: when openssl is present (and SESSIONDB_TEST_PG_TLS is not 0), the
# server also has ssl=on with a certificate for IP 127.0.0.1 signed by a CA
# made here: SESSIONDB_TEST_PG_CA is that CA's PEM file and
# SESSIONDB_TEST_PG_OTHER_CA an unrelated CA's (for "wrong CA" tests). The
# exported URL still says sslmode=disable, so clients behave as before.
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
if [ "${SESSIONDB_TEST_PG_TLS:-1}" != 0 ] && command -v openssl >/dev/null; then
  T="$DIR/tls"; mkdir "$T"
  ca() { openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 2 -subj "/CN=$2" \
           -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
           -keyout "$T/$1.key" -out "$T/$1.crt" 2>/dev/null; }
  ca ca "sessiondb test CA" && ca other-ca "another CA"
  openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -subj "/CN=127.0.0.1" \
    -keyout "$T/server.key" -out "$T/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' > "$T/ext"
  openssl x509 -req -in "$T/server.csr" -CA "$T/ca.crt" -CAkey "$T/ca.key" -CAcreateserial -days 2 \
    -extfile "$T/ext" -out "$T/server.crt" 2>/dev/null
  chown -R postgres: "$T"; chmod 600 "$T/server.key"; chmod 644 "$T"/*.crt; chmod 755 "$T"
  OPTS="$OPTS -c ssl=on -c ssl_cert_file=$T/server.crt -c ssl_key_file=$T/server.key"
  export SESSIONDB_TEST_PG_CA="$T/ca.crt" SESSIONDB_TEST_PG_OTHER_CA="$T/other-ca.crt"
fi
as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -o "$OPTS" -w start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
export SESSIONDB_TEST_PG_URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"
export SESSIONDB_TEST_PG_DATA="$DIR/data" SESSIONDB_TEST_PG_LOG="$DIR/server.log"
export SESSIONDB_TEST_PG_CTL="runuser -u postgres -- $PGBIN/pg_ctl -D $DIR/data -l $DIR/server.log -o '$OPTS' -w"
echo "with-postgres: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT" >&2
status=0
"$@" || status=$?
exit $status

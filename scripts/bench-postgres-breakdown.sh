#!/usr/bin/env bash
# Where the PostgreSQL server's time per append goes (issue 33 item 5), one run
# on a throwaway server (scripts/with-postgres.sh), synchronous_commit off,
# autovacuum off, pg_stat_statements (track = all) and track_functions = all.
# The schema is this tree's: the SQL of every migration is taken from
# core/src/backend/postgres/schema.rs. pgbench (-M prepared, as the store's
# client prepares its call) calls, from CLIENTS clients, one session each:
# * sessiondb_append: this tree's function (the newest schema's), a 1 KiB
#   entry and a ~500-byte journal row, fenced (owner lease checked), the
#   session's updated_at moved; append_v6: schema 6's, the same call;
# * variants of schema 6's function that each leave one part out, to price it (never used by the
#   store): v_noupd (no UPDATE of sessions.updated_at), v_noheads (journal
#   seq from MAX(journal.seq) instead of the journal_heads row; own
#   sessions), v_nolock (no FOR UPDATE on the session's row), v_updheads
#   (the head moved by a plain UPDATE instead of INSERT .. ON CONFLICT),
#   v_values (one entry inserted by INSERT .. VALUES, not from unnest()),
#   v_empty (the PL/pgSQL call with its 27 arguments and nothing done);
# * the floor: the same two rows as two INSERTs in one transaction, one round
#   trip (pgbench's simple protocol: a compound command cannot be prepared).
# The seen values (updated_at, last seq) are read by subqueries of the call
# (the store has them from its hints), the same for every variant.
# Prints per ROUND and variant: tps and the server's CPU per call in us (user +
# sys of the backends, read from the postmaster's reaped children in
# /proc/PID/stat: 10 ms ticks), then pg_stat_statements' mean time per nested
# statement and pg_stat_user_functions' per function (wall time in us: on a
# loaded machine inflated by waiting for a core; compare within one run).
# Usage: scripts/bench-postgres-breakdown.sh [CLIENTS] [CALLS_PER_CLIENT] [ROUNDS]   (as root)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CLIENTS="${1:-1}"; PER="${2:-5000}"; ROUNDS="${3:-2}"
D="$(mktemp -d)"; trap 'rm -rf "$D"' EXIT; chmod 755 "$D"
python3 - "$ROOT/core/src/backend/postgres/schema.rs" "$D" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
d = sys.argv[2]
table = re.search(r'const MIGRATIONS_TABLE: &str = "(.*?)";\n', s, re.S).group(1).replace('\\"', '"')
versions = re.findall(r'const V(\d+): &str = r#"(.*?)"#;', s, re.S)
open(f"{d}/schema.sql", "w").write(table + ";\n" + "\n".join(sql for _, sql in versions))
# Schema 6's function: "before" (renamed append_v6) and the base of the variants.
fn = re.findall(r'(CREATE OR REPLACE FUNCTION sessiondb_append\(.*?\$fn\$;)', dict(versions)["6"], re.S)[-1]
heads = re.search(r'  INSERT INTO journal_heads .*?INTO ev_seq;\n', fn, re.S).group(0)
upd = re.search(r'  IF new_updated_at IS NOT NULL THEN\n    UPDATE sessions .*?END IF;\n', fn, re.S).group(0)
lock = re.search(r'SELECT s\.updated_at INTO cur_updated_at FROM sessions s WHERE s\.session_id = sid FOR UPDATE;', fn).group(0)
def v(name, a, b):
    assert a in fn, name
    return fn.replace("sessiondb_append(", name + "(").replace(a, b)
out = [
    fn.replace("sessiondb_append(", "append_v6("),
    v("v_noupd", upd, ""),
    v("v_noheads", heads, "  SELECT COALESCE(MAX(j.seq), 0) + 1 INTO ev_seq FROM journal j WHERE j.session_id = sid;\n"),
    v("v_nolock", lock, lock.replace(" FOR UPDATE", "")),
    v("v_updheads", heads, "  UPDATE journal_heads SET last_seq = last_seq + 1 WHERE session_id = sid RETURNING last_seq INTO ev_seq;\n"
      "  IF NOT FOUND THEN\n" + heads + "  END IF;\n"),
]
ins = re.search(r'  INSERT INTO transcript_entries .*? AS u;\n', fn, re.S).group(0)
cols = re.search(r'\((session_id, seq, .*?)\)', ins, re.S).group(1)
args = re.search(r'unnest\((.*?)\) AS u', ins, re.S).group(1)
one = ", ".join(a.strip() + "[1]" for a in args.split(","))
out.append(v("v_values", ins, "  IF cardinality(e_seq) = 1 THEN\n    INSERT INTO transcript_entries (" + cols + ")\n      VALUES (sid, " + one + ");\n  ELSE\n" + ins + "  END IF;\n"))
empty = fn.replace("sessiondb_append(", "v_empty(")
out.append(empty[:empty.index("BEGIN\n") + 6] + "  status := 'ok';\nEND\n$fn$;")
open(f"{d}/variants.sql", "w").write("\n".join(out))
PY
cat > "$D/call.tmpl" <<'EOF'
SELECT status FROM FN('P' || :client_id, (SELECT updated_at FROM sessions WHERE session_id = 'P' || :client_id), (SELECT COALESCE(MAX(seq), 0) FROM transcript_entries WHERE session_id = 'P' || :client_id), (SELECT updated_at + 1 FROM sessions WHERE session_id = 'P' || :client_id), ARRAY[(SELECT COALESCE(MAX(seq), 0) + 1 FROM transcript_entries WHERE session_id = 'P' || :client_id)], ARRAY['user'], ARRAY['text'], ARRAY[0::bigint], ARRAY[NULL::bigint], ARRAY[NULL::bigint], ARRAY[NULL::text], ARRAY[NULL::text], ARRAY[1024::bigint], ARRAY[NULL::text], ARRAY[NULL::text], ARRAY[convert_to(repeat('x', 1024), 'UTF8')], ARRAY[NULL::bytea], md5(random()::text), '', 'EntryAppended', repeat('y', 200), repeat('z', 300), '2026-12-08T00:00:00Z', true, 'inst', 1, ARRAY[NULL::bigint]);
EOF
for f in sessiondb_append append_v6 v_values v_noupd v_nolock v_updheads v_empty; do sed "s/FN/$f/; s/'P'/'s'/g" "$D/call.tmpl" > "$D/$f.sql"; done
sed "s/FN/v_noheads/; s/'P'/'n'/g" "$D/call.tmpl" > "$D/v_noheads.sql"
printf "%s\\\\;\n%s;\n" \
  "INSERT INTO floor_entries (session_id, body) VALUES ('s' || :client_id, convert_to(repeat('x', 1024), 'UTF8'))" \
  "INSERT INTO floor_journal (session_id, event_id, payload) VALUES ('s' || :client_id, md5(random()::text), repeat('y', 200))" > "$D/floor.sql"
export D CLIENTS PER ROUNDS
exec "$ROOT/scripts/with-postgres.sh" bash -c '
  set -euo pipefail
  P="psql -q -v ON_ERROR_STOP=1 $SESSIONDB_TEST_PG_URL"
  $P -c "ALTER DATABASE postgres SET synchronous_commit = off" -c "ALTER SYSTEM SET autovacuum = off" \
     -c "ALTER SYSTEM SET shared_preload_libraries = '"'"'pg_stat_statements'"'"'" -c "ALTER SYSTEM SET track_functions = '"'"'all'"'"'"
  eval "$SESSIONDB_TEST_PG_CTL restart" >/dev/null
  $P -c "CREATE EXTENSION pg_stat_statements" -c "ALTER SYSTEM SET pg_stat_statements.track = '"'"'all'"'"'" -c "SELECT pg_reload_conf()" >/dev/null
  $P -f "$D/schema.sql" >/dev/null
  $P -f "$D/variants.sql"
  $P -c "INSERT INTO owners VALUES ('"'"''"'"', '"'"'inst'"'"', 1, now() + interval '"'"'1 day'"'"')" \
     -c "INSERT INTO sessions (session_id, created_at, updated_at, workspace_index) SELECT p || g, 0, 1, '"'"'w'"'"' FROM generate_series(0, $CLIENTS) g, unnest(ARRAY['"'"'s'"'"', '"'"'n'"'"']) p" \
     -c "CREATE TABLE floor_entries (session_id text, seq bigserial, body bytea, PRIMARY KEY (session_id, seq))" \
     -c "CREATE TABLE floor_journal (session_id text, seq bigserial, event_id text, payload text, PRIMARY KEY (session_id, seq))"
  PM="$(head -1 "$SESSIONDB_TEST_PG_DATA/postmaster.pid")"
  ticks() { awk "{print \$16 + \$17}" "/proc/$PM/stat"; }
  pgb() { # NAME PROTOCOL
    local a b t
    a="$(ticks)"
    t="$(/usr/lib/postgresql/15/bin/pgbench -M "$2" -n -c "$CLIENTS" -j "$(( CLIENTS < 2 ? 1 : 2 ))" -t "$PER" -f "$D/$1.sql" "$SESSIONDB_TEST_PG_URL" 2>&1 | sed -n "s/^tps = \([0-9.]*\).*/\1/p")"
    sleep 0.3; b="$(ticks)"
    echo "round $r, $CLIENTS client(s), $1: ${t:-FAILED} tps, server CPU $(( (b - a) * 10000 / (CLIENTS * PER) )) us per call"
  }
  PER_ALL="$PER"; PER=200; r=0 # warm-up: the tables'"'"' first pages and index levels
  for f in append_v6 sessiondb_append v_values v_noupd v_noheads v_nolock v_updheads v_empty; do pgb "$f" prepared >/dev/null; done
  PER="$PER_ALL"
  $P -c "SELECT pg_stat_statements_reset()" -c "SELECT pg_stat_reset()" >/dev/null
  for r in $(seq "$ROUNDS"); do
    pgb floor simple
    for f in append_v6 sessiondb_append v_values v_noupd v_noheads v_nolock v_updheads v_empty; do pgb "$f" prepared; done
  done
  $P -c "SELECT calls, round((total_exec_time / calls * 1000)::numeric, 1) AS us_per_call,
                left(regexp_replace(query, '"'"'\s+'"'"', '"'"' '"'"', '"'"'g'"'"'), 100) AS statement
         FROM pg_stat_statements WHERE calls >= $PER ORDER BY total_exec_time DESC LIMIT 30"
  $P -c "SELECT funcname, calls, round((self_time / calls * 1000)::numeric, 1) AS us_per_call FROM pg_stat_user_functions ORDER BY 1"
  $P -c "ALTER TABLE journal DROP CONSTRAINT journal_session_id_event_id_key" \
     -c "DROP INDEX journal_by_event, journal_by_operation, journal_by_version"
  for r in $(seq "$ROUNDS"); do
    echo "(journal with its primary key only, to price its other 4 indexes)"; pgb sessiondb_append prepared; pgb floor simple
  done'

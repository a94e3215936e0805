#!/usr/bin/env bash
# check-secret-service.sh — self-test of scripts/with-secret-service.sh: the three
# modes behave as documented (uses secret-tool from libsecret-tools). Prints one
# line per check and a closing "N passed, N failed"; exits non-zero on a failure.
# Takes well under a second per mode; needs no TTY and no stdin.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
W="$HERE/with-secret-service.sh"
pass=0; fail=0
check() {  # check NAME EXPECTED-EXIT CMD...
  local name="$1" want="$2"; shift 2
  local out rc
  out="$("$@" </dev/null 2>&1)"; rc=$?
  if [ "$rc" = "$want" ]; then pass=$((pass+1)); echo "ok   $name"
  else fail=$((fail+1)); echo "FAIL $name (exit $rc, want $want)"; echo "$out" | sed 's/^/     /'; fi
}
command -v secret-tool >/dev/null 2>&1 || bash "$HERE/install-system-deps.sh" </dev/null

check "unlocked: store then lookup returns the secret" 0 "$W" bash -c '
  [ "$SESSIONDB_SECRET_SERVICE" = unlocked ] || exit 10
  printf %s s3cret | secret-tool store --label x service sdbtest account a || exit 11
  [ "$(secret-tool lookup service sdbtest account a)" = s3cret ] || exit 12'
check "unlocked: absent item is absent (lookup exit 1, no error text)" 0 "$W" bash -c '
  out=$(secret-tool lookup service sdbtest account nobody 2>&1); rc=$?
  [ $rc = 1 ] && [ -z "$out" ]'
check "unlocked: CMD exit status is passed through" 7 "$W" sh -c 'exit 7'
check "locked: default collection reports Locked=true" 0 "$W" --locked bash -c '
  [ "$SESSIONDB_SECRET_SERVICE" = locked ] || exit 10
  dbus-send --session --print-reply --dest=org.freedesktop.secrets /org/freedesktop/secrets/aliases/default \
    org.freedesktop.DBus.Properties.Get string:org.freedesktop.Secret.Collection string:Locked | grep -q "boolean true"'
check "locked: store fails with a locked-collection error" 0 "$W" --locked bash -c '
  out=$(printf %s v | secret-tool store --label x service sdbtest account a 2>&1); rc=$?
  [ $rc != 0 ] && printf %s "$out" | grep -qi locked'
check "none: nothing owns org.freedesktop.secrets" 0 "$W" --none bash -c '
  [ "$SESSIONDB_SECRET_SERVICE" = none ] || exit 10
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q "boolean false"'
check "none: no D-Bus activation (ServiceUnknown, nothing started)" 0 "$W" --none bash -c '
  out=$(secret-tool lookup service sdbtest account a 2>&1); rc=$?
  [ $rc != 0 ] && printf %s "$out" | grep -q "not provided by any .service files" || exit 11
  dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets | grep -q "boolean false"'

echo "secret-service: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# with-secret-service.sh — run a command against a real, private Secret Service
# (gnome-keyring) on a private D-Bus session bus, headless, as root or not.
#
# Usage:
#   scripts/with-secret-service.sh [MODE] [--] CMD [ARGS...]
#
# MODE (default --unlocked):
#   --unlocked  a fresh gnome-keyring Secret Service whose default collection
#               ("login", alias "default") exists and is UNLOCKED: store/lookup work.
#   --locked    the same service, but the default collection is LOCKED before CMD
#               runs (org.freedesktop.Secret.Service.Lock on
#               /org/freedesktop/secrets/aliases/default). Reading an item fails:
#               Unlock returns a prompt, and with no prompter on the bus the prompt
#               completes at once as dismissed (no hang); creating an item fails with
#               "Cannot create an item in a locked collection". For the test that a
#               locked keyring is an error, not "absent".
#   --none      a private session bus with NO Secret Service: nothing owns
#               org.freedesktop.secrets and it cannot be D-Bus-activated (the bus
#               has no service directories), so clients get
#               org.freedesktop.DBus.Error.ServiceUnknown ("The name
#               org.freedesktop.secrets was not provided by any .service files").
#               For the KeyStoreUnavailable test.
#
# In every mode CMD runs with:
#   DBUS_SESSION_BUS_ADDRESS   the private bus (unix socket in a temp dir)
#   SESSIONDB_SECRET_SERVICE   unlocked | locked | none | existing  (what CMD got)
#   GNOME_KEYRING_CONTROL etc. whatever `gnome-keyring-daemon --start` printed
# and the caller's stdin, stdout, stderr and other variables (HOME is untouched).
# The script exits with CMD's exit status (or 125 if the keyring could not be set up).
#
# How: the private bus is `dbus-run-session --config-file=TMP/bus.conf`, a session
# config with no <servicedir> (so the system's org.freedesktop.secrets.service,
# which would start gnome-keyring on demand with root's real ~/.local/share/keyrings,
# is never used, in any mode). Inside it, the script:
#   printf '%s' "$password" | gnome-keyring-daemon --unlock --components=secrets
#   gnome-keyring-daemon --start --components=secrets   (its KEY=VALUE lines exported)
# with XDG_DATA_HOME / XDG_RUNTIME_DIR pointing into the temp dir (for the daemon
# only), so the keyring files are fresh for every run and nothing touches ~.
# It then waits until org.freedesktop.secrets answers, checks the default
# collection's Locked property (false, or true after locking for --locked) and
# execs CMD. Needs no TTY and no stdin (the password comes from a pipe).
# When CMD exits, dbus-run-session stops the bus; the keyring daemon is stopped
# and the temp dir removed. A TERM/INT to this script stops CMD and all it started.
#
# Environment:
#   SESSIONDB_USE_EXISTING_KEYRING=1  (--unlocked only) if a Secret Service already
#       answers on the current session bus, just exec CMD there
#       (SESSIONDB_SECRET_SERVICE=existing); otherwise start a private one as above.
#   SESSIONDB_KEYRING_PASSWORD   password of the private login keyring (default
#       "sessiondb-test").
#   SESSIONDB_KEYRING_DATA_DIR   keep the keyring files in this directory instead of
#       a fresh temp dir (e.g. to look at a key across several runs).
#   SESSIONDB_KEYRING_DEBUG=1    print the daemon log and keep the temp dir.
#
# Requires dbus (dbus-run-session, dbus-send), gnome-keyring; secret-tool
# (libsecret-tools) is handy for checks. When a tool is missing and
# scripts/install-system-deps.sh is next to this script, that is run first.
#
# Examples:
#   scripts/with-secret-service.sh cargo test -p sessiondb --features keyring-tests
#   scripts/with-secret-service.sh --locked cargo test locked_keyring
#   scripts/with-secret-service.sh --none python -m pytest python/tests -k unavailable
#   scripts/with-secret-service.sh bash -c 'secret-tool store --label x service s account a <<< v;
#                                           secret-tool lookup service s account a'
set -uo pipefail

SELF="$(readlink -f "${BASH_SOURCE[0]}")"
HERE="$(dirname "$SELF")"
log() { echo "with-secret-service: $*" >&2; }
SETUP_FAILED=125

SECRETS=org.freedesktop.secrets
SECRETS_PATH=/org/freedesktop/secrets
DEFAULT_ALIAS=/org/freedesktop/secrets/aliases/default

# --- D-Bus helpers (dbus-send only: it comes with the dbus package) ----------
bus_call() {  # bus_call DEST PATH IFACE.METHOD ARGS...  -> reply on stdout
  dbus-send --session --reply-timeout=10000 --print-reply --dest="$1" "$2" "$3" "${@:4}"
}
name_has_owner() {
  bus_call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
    "string:$1" 2>/dev/null | grep -q 'boolean true'
}
secrets_answer() {  # the service answers a real call (not just owns its name)
  bus_call "$SECRETS" "$SECRETS_PATH" org.freedesktop.DBus.Properties.Get \
    string:org.freedesktop.Secret.Service string:Collections >/dev/null 2>&1
}
default_locked() {  # prints true/false, fails when there is no default collection
  bus_call "$SECRETS" "$DEFAULT_ALIAS" org.freedesktop.DBus.Properties.Get \
    string:org.freedesktop.Secret.Collection string:Locked 2>/dev/null \
    | awk '/boolean/ { print $NF; found=1 } END { exit !found }'
}

# --- inner part: runs inside dbus-run-session --------------------------------
inner() {
  local mode="$1" tmp="$2"; shift 2
  local fail=$SETUP_FAILED
  export SESSIONDB_SECRET_SERVICE="$mode"

  if [ "$mode" = none ]; then
    if name_has_owner "$SECRETS"; then log "--none: something owns $SECRETS"; exit $fail; fi
    exec "$@"
  fi

  local data="${SESSIONDB_KEYRING_DATA_DIR:-$tmp/data}"
  mkdir -p "$data" "$tmp/run" && chmod 700 "$data" "$tmp/run" || exit $fail
  local daemon_env=(env "XDG_DATA_HOME=$data" "XDG_RUNTIME_DIR=$tmp/run")

  # 1. start the daemon with the login keyring created/unlocked by the password
  #    (stdout/stderr to files: the daemonized process keeps them open).
  if ! printf '%s' "${SESSIONDB_KEYRING_PASSWORD:-sessiondb-test}" \
       | "${daemon_env[@]}" gnome-keyring-daemon --unlock --components=secrets \
         >"$tmp/unlock.out" 2>>"$tmp/daemon.log"; then
    log "gnome-keyring-daemon --unlock failed:"; cat "$tmp/daemon.log" >&2; exit $fail
  fi
  # 2. --start attaches to it and prints the variables clients need.
  if ! "${daemon_env[@]}" gnome-keyring-daemon --start --components=secrets \
       >"$tmp/start.env" 2>>"$tmp/daemon.log"; then
    log "gnome-keyring-daemon --start failed:"; cat "$tmp/daemon.log" >&2; exit $fail
  fi
  local line
  while IFS= read -r line; do
    case "$line" in [A-Za-z_]*=*) export "${line?}" ;; esac
  done < <(cat "$tmp/unlock.out" "$tmp/start.env")

  # 3. wait until the Secret Service answers (up to 10 s)
  local i
  for i in $(seq 1 100); do secrets_answer && break; sleep 0.1; done
  if ! secrets_answer; then
    log "the Secret Service did not come up on the private bus:"; cat "$tmp/daemon.log" >&2; exit $fail
  fi
  # record the daemon's pid so the outer part can make sure it is gone afterwards
  bus_call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.GetConnectionUnixProcessID \
    "string:$SECRETS" 2>/dev/null | awk '/uint32/ { print $NF }' > "$tmp/daemon.pid"

  local locked
  if ! locked="$(default_locked)"; then log "no default collection on the Secret Service"; exit $fail; fi
  if [ "$locked" != false ]; then log "default collection is locked after --unlock"; exit $fail; fi

  # 4. --locked: lock the default collection and check that it is.
  if [ "$mode" = locked ]; then
    if ! bus_call "$SECRETS" "$SECRETS_PATH" org.freedesktop.Secret.Service.Lock \
         "array:objpath:$DEFAULT_ALIAS" >/dev/null; then
      log "Lock of the default collection failed"; exit $fail
    fi
    if [ "$(default_locked)" != true ]; then log "default collection still unlocked after Lock"; exit $fail; fi
  fi

  exec "$@"
}

if [ "${1:-}" = --__inner ]; then shift; inner "$@"; exit $?; fi

# --- outer part ----------------------------------------------------------------
mode=unlocked
while [ $# -gt 0 ]; do
  case "$1" in
    --unlocked) mode=unlocked; shift ;;
    --locked) mode=locked; shift ;;
    --none) mode=none; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -uo/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) log "unknown option $1 (--unlocked|--locked|--none)"; exit 2 ;;
    *) break ;;
  esac
done
[ $# -gt 0 ] || { log "usage: $0 [--unlocked|--locked|--none] [--] CMD [ARGS...]"; exit 2; }

# An existing Secret Service on the caller's session bus, if asked for.
if [ "$mode" = unlocked ] && [ "${SESSIONDB_USE_EXISTING_KEYRING:-}" = 1 ]; then
  if [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && command -v dbus-send >/dev/null 2>&1 \
     && name_has_owner "$SECRETS" && secrets_answer; then
    export SESSIONDB_SECRET_SERVICE=existing
    exec "$@"
  fi
  log "SESSIONDB_USE_EXISTING_KEYRING=1 but no Secret Service answers on the session bus: starting a private one"
fi

need=(dbus-run-session dbus-send)
[ "$mode" != none ] && need+=(gnome-keyring-daemon)
missing=()
for t in "${need[@]}"; do command -v "$t" >/dev/null 2>&1 || missing+=("$t"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ -f "$HERE/install-system-deps.sh" ]; then
    log "missing ${missing[*]}: running $HERE/install-system-deps.sh"
    bash "$HERE/install-system-deps.sh" </dev/null >&2 || { log "install-system-deps.sh failed"; exit $SETUP_FAILED; }
  fi
  for t in "${need[@]}"; do
    command -v "$t" >/dev/null 2>&1 || { log "$t not found (apt-get install dbus gnome-keyring libsecret-tools)"; exit $SETUP_FAILED; }
  done
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/sdb-keyring.XXXXXX")" || exit $SETUP_FAILED
chmod 700 "$tmp"
cat > "$tmp/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- private session bus for with-secret-service.sh: no <servicedir>, so nothing
     is ever D-Bus-activated (no gnome-keyring on demand, no prompter) -->
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir=$tmp</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
EOF

child=""
cleanup() {
  local pid
  if [ -s "$tmp/daemon.pid" ]; then
    pid="$(cat "$tmp/daemon.pid")"
    # the daemon leaves when its bus goes away; make sure, by its recorded pid
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      grep -qs gnome-keyring "/proc/$pid/cmdline" || break
      [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
      sleep 0.2
    done
    if grep -qs gnome-keyring "/proc/$pid/cmdline" && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
      kill -TERM "$pid" 2>/dev/null || true
    fi
  fi
  if [ "${SESSIONDB_KEYRING_DEBUG:-}" = 1 ]; then
    log "daemon log:"; cat "$tmp/daemon.log" >&2 2>/dev/null; log "kept $tmp"
  else
    rm -rf --one-file-system "$tmp"
  fi
}
on_signal() {
  # CMD runs in its own session/process group (setsid): stop all of it
  if [ -n "$child" ]; then
    kill -TERM -- "-$child" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$child" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
  fi
  exit "$1"
}
trap cleanup EXIT
trap 'on_signal 143' TERM
trap 'on_signal 130' INT
trap 'on_signal 129' HUP

run=(dbus-run-session "--config-file=$tmp/bus.conf" -- bash "$SELF" --__inner "$mode" "$tmp" "$@")
rc=0
if [ -t 0 ]; then
  # interactive: stay in the terminal's foreground process group (Ctrl-C reaches CMD)
  trap ':' INT   # not '' : an ignored SIGINT would be inherited by CMD
  "${run[@]}" || rc=$?
else
  # no TTY (CI): own process group, so a TERM to this script stops everything;
  # SIGINT/SIGQUIT reset to default (a background job would otherwise ignore them)
  setsid -w env --default-signal=INT,QUIT "${run[@]}" <&0 &
  child=$!
  wait "$child" || rc=$?
  child=""
fi
exit "$rc"

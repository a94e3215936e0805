#!/usr/bin/env bash
# Runs CMD with a working OS credential store for the default sessiondb store:
# the desktop keyring when one answers on this session's D-Bus, otherwise a
# private gnome-keyring whose files persist in $SESSIONDB_KEYRING_DATA_DIR
# (default ~/.local/share/sessiondb/headless-keyring), so the data key
# survives between runs. Password: $SESSIONDB_KEYRING_PASSWORD (default
# "sessiondb-test"; set your own). scripts/sessiondb.sh and scripts/main.sh use it.
# Usage: scripts/with-keyring.sh CMD [ARGS...]   e.g. scripts/with-keyring.sh python3 example.py
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export SESSIONDB_KEYRING_DATA_DIR="${SESSIONDB_KEYRING_DATA_DIR:-$HOME/.local/share/sessiondb/headless-keyring}"
mkdir -p "$SESSIONDB_KEYRING_DATA_DIR" && chmod 700 "$SESSIONDB_KEYRING_DATA_DIR"
[ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] && export SESSIONDB_USE_EXISTING_KEYRING=1
# dbus-daemon run as root in a container says it cannot raise its fd limit: harmless, filtered.
exec "$ROOT/scripts/with-secret-service.sh" --unlocked "$@" \
  2> >(grep -v --line-buffered 'Failed to set fd limit' >&2)

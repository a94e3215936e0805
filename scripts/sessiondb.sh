#!/usr/bin/env bash
# Runs the `sessiondb` CLI (built in release mode on first use) against the
# default store, with a real OS credential store:
# - if a Secret Service already answers on this session's D-Bus (a desktop
#   keyring), that one is used;
# - otherwise (headless, CI, a container) a private gnome-keyring is started
#   for the duration of the command, its keyring files kept in
#   $SESSIONDB_KEYRING_DATA_DIR (default ~/.local/share/sessiondb/headless-keyring)
#   so the data key survives between runs. Its password is
#   $SESSIONDB_KEYRING_PASSWORD (default "sessiondb-test"): set your own.
# Usage: scripts/sessiondb.sh ARGS...   (e.g. scripts/sessiondb.sh list --all)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
bash "$ROOT/scripts/install-system-deps.sh" >&2
if [ ! -x "$CARGO_TARGET_DIR/release/sessiondb" ] || [ -n "$(find "$ROOT/core/src" "$ROOT/cli/src" -newer "$CARGO_TARGET_DIR/release/sessiondb" -name '*.rs' 2>/dev/null | head -1)" ]; then
  (cd "$ROOT" && cargo build --release --locked -q -p sessiondb-cli) >&2
fi
exec "$ROOT/scripts/with-keyring.sh" "$CARGO_TARGET_DIR/release/sessiondb" "$@"

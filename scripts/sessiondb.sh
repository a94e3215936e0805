#!/usr/bin/env bash
# Runs the `sessiondb` CLI (built in release mode on first use) against the
# default store, as a user would: the desktop keyring when one answers, else
# (headless: CI, a container, SSH) the CLI's own key-file fallback
# (~/.config/sessiondb/keys/, docs/keys.md). SESSIONDB_PRIVATE_KEYRING=1 runs it
# under scripts/with-keyring.sh instead (a private gnome-keyring kept in
# ~/.local/share/sessiondb/headless-keyring), as main.sh did before key files.
# Usage: scripts/sessiondb.sh ARGS...   (e.g. scripts/sessiondb.sh list --all)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
bash "$ROOT/scripts/install-system-deps.sh" >&2
if [ ! -x "$CARGO_TARGET_DIR/release/sessiondb" ] || [ -n "$(find "$ROOT/core/src" "$ROOT/cli/src" -newer "$CARGO_TARGET_DIR/release/sessiondb" -name '*.rs' 2>/dev/null | head -1)" ]; then
  (cd "$ROOT" && cargo build --release --locked -q -p sessiondb-cli) >&2
fi
if [ "${SESSIONDB_PRIVATE_KEYRING:-0}" = 1 ]; then
  exec "$ROOT/scripts/with-keyring.sh" "$CARGO_TARGET_DIR/release/sessiondb" "$@"
fi
exec "$CARGO_TARGET_DIR/release/sessiondb" "$@"

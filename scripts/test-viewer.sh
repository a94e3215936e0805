#!/usr/bin/env bash
# The viewer in a real browser (issue 32; docs/viewer.md): Debian's Chromium
# and chromedriver (installed by scripts/install-system-deps.sh, never
# downloaded by a tool), Selenium from PyPI, the CLI of this tree.
# Screenshots go to test-artifacts/viewer/ (gitignored), or $VIEWER_ARTIFACTS.
# Usage: scripts/test-viewer.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
for b in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$b" ] || { echo "missing $b: run scripts/install-system-deps.sh" >&2; exit 1; }
done
python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium
# Selenium Manager must never fetch a driver or a browser: the driver's path is
# given explicitly (scripts/test-viewer.py), and this turns the manager off.
export SE_OFFLINE=true
cargo build --locked -q -p sessiondb-cli
python3 scripts/test-viewer.py "$CARGO_TARGET_DIR/debug/sessiondb" "${VIEWER_ARTIFACTS:-$ROOT/test-artifacts/viewer}"

#!/usr/bin/env bash
# test-vscode-example.sh — compile the example VS Code extension (examples/vscode)
# with `tsc --strict` against @types/vscode and the packed sessiondb npm package,
# then run its node:test tests (the indicator's logic, src/status.ts, against the
# real package; VS Code itself cannot run here).
#
# Usage: scripts/test-vscode-example.sh MAIN.tgz PLATFORM.tgz
#   the tarballs written by scripts/pack-node.sh (scripts/test-node.sh passes them).
# The example is copied to a temp dir and installed there from the tarballs and
# the npm registry (typescript, @types/vscode, @types/node at the versions pinned
# in its package.json); the source tree is not touched.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# = 2 ] && [ -f "$1" ] && [ -f "$2" ] || { echo "usage: $0 MAIN.tgz PLATFORM.tgz (from scripts/pack-node.sh)" >&2; exit 2; }
MAIN_TGZ="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
PLATFORM_TGZ="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$ROOT/examples/vscode/." "$WORK/"
rm -rf "$WORK/node_modules" "$WORK/out"
cd "$WORK"
echo "--- examples/vscode: npm install (sessiondb from the packed tarballs)"
npm install --no-audit --no-fund --loglevel=error "$PLATFORM_TGZ" "$MAIN_TGZ"
echo "--- examples/vscode: tsc --strict ($(npx tsc --version), @types/vscode $(node -p "require('@types/vscode/package.json').version"))"
npx tsc --strict -p .
for f in out/src/extension.js out/src/status.js out/src/find.js out/src/viewer.js; do [ -f "$f" ] || { echo "test-vscode-example: $f not emitted" >&2; exit 1; }; done
echo "--- examples/vscode: node --test (the indicator's logic against the installed package)"
node --test out/test/

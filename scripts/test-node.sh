#!/usr/bin/env bash
# Node binding: build the addon with the napi CLI, `npm pack` the package and
# its platform package (scripts/pack-node.sh), install both tarballs (not the source tree) into a fresh directory, and run
# the node:test suites against that install, including every conformance
# case the binding can execute. Works from a fresh clone.
# Usage: scripts/test-node.sh   (env: SESSIONDB_NODE_RELEASE=1 for a release build)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
cd "$ROOT/node"

echo "--- npm ci (napi CLI)"
npm ci --no-audit --no-fund --loglevel=error

profile=()
[ "${SESSIONDB_NODE_RELEASE:-0}" = 1 ] && profile=(--release)
echo "--- napi build --platform ${profile[*]:-(debug)}"
npx napi build --platform "${profile[@]}" --js native.js --dts native.d.ts

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
echo "--- npm pack the main package and the platform package, install both tarballs into a fresh directory"
SESSIONDB_PACK_PREBUILT=1 bash "$ROOT/scripts/pack-node.sh" "$WORK"
V="$(node -p "require('./package.json').version")"
TGZ="$WORK/sessiondb-$V.tgz"; PLATFORM_TGZ="$WORK/sessiondb-linux-x64-gnu-$V.tgz"
mkdir "$WORK/app"
(cd "$WORK/app" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "$PLATFORM_TGZ" "$TGZ")
# The OpenAI Agents SDK for JS and Node's types, for sessiondb/agents' tests and its typed example app.
(cd "$WORK/app" && npm install --no-audit --no-fund --loglevel=error '@openai/agents@^0.20.0' '@types/node@^20')
echo "@openai/agents $(node -p "require('$WORK/app/node_modules/@openai/agents/package.json').version") installed"
PKG="$WORK/app/node_modules/sessiondb"
[ -f "$WORK/app/node_modules/sessiondb-linux-x64-gnu/sessiondb.linux-x64-gnu.node" ] || { echo "platform package not installed" >&2; exit 1; }
node -e "const s=require('$PKG'); if (typeof s.SessionStore.open !== 'function') process.exit(1); console.log('sessiondb from', require.resolve('$PKG'))"
(cd "$WORK/app" && node --input-type=module -e "import { SessionStore, NotFoundError } from 'sessiondb'; if (typeof SessionStore.open !== 'function' || typeof NotFoundError !== 'function') process.exit(1); console.log('ESM named imports ok')")

echo "--- the example VS Code extension (examples/vscode) against the same tarballs"
bash "$ROOT/scripts/test-vscode-example.sh" "$TGZ" "$PLATFORM_TGZ"

echo "--- node --test against the installed package"
cp -r "$ROOT/node/__test__" "$WORK/app/__test__"
cd "$WORK/app"
export SESSIONDB_PKG="$PKG" SESSIONDB_REPO="$ROOT" SESSIONDB_CONFORMANCE_COUNT_FILE="$WORK/conformance-count"
node --test __test__/
read -r ran total < "$WORK/conformance-count"
echo "node: conformance cases run: $ran of $total"

# The store opened by postgres:// URL, against a throwaway server (root only:
# with-postgres.sh runs initdb and pg_ctl as the postgres user).
if [ "$(id -u)" = 0 ]; then
  echo "--- node --test __test__/postgres.test.mjs under scripts/with-postgres.sh"
  "$ROOT/scripts/with-postgres.sh" node --test __test__/postgres.test.mjs
else
  echo "--- skipped the PostgreSQL test (not root: scripts/with-postgres.sh needs root)"
fi

#!/usr/bin/env bash
# Node benchmark: release build of the addon, better-sqlite3@12 in a temp
# dir, then node/bench/bench.mjs against the packed package.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
cd "$ROOT/node"
npm ci --no-audit --no-fund --loglevel=error
npx napi build --platform --release --js native.js --dts native.d.ts
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT
npm pack --silent --pack-destination "$WORK" >/dev/null
mkdir "$WORK/app" && cd "$WORK/app" && npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$WORK"/sessiondb-*.tgz better-sqlite3@12
mkdir bench && cp "$ROOT/node/bench/bench.mjs" bench/
SESSIONDB_PKG="$WORK/app/node_modules/sessiondb" node bench/bench.mjs

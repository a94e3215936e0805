#!/usr/bin/env bash
# Packs the npm packages of the addon built in node/ (by `napi build --platform`):
#   DEST/sessiondb-linux-x64-gnu-<v>.tgz  the platform package (node/npm/linux-x64-gnu:
#                                         the .node, os/cpu/libc, README, licences)
#   DEST/sessiondb-<v>.tgz                the main package (JS, types, README, licences,
#                                         no .node; the platform package is its
#                                         optional dependency)
# and checks each tarball's file list. When no addon is built yet (a fresh
# clone), it builds one first in release (`npm ci`, `napi build --platform
# --release`); scripts/test-node.sh builds its own before calling this.
# Usage: scripts/pack-node.sh DEST
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "${1:?usage: scripts/pack-node.sh DEST}"
DEST="$(cd "$1" && pwd)"
cd "$ROOT/node"
# The addon is built here (release; cargo rebuilds only what changed), so
# the tarball never holds an addon left in node/ by an older build (the
# README's `pack-node.sh DIR` packed a stale one: "schema version 9 is newer
# than this build supports"). test-node.sh and check-artifacts.sh build their
# own first and set SESSIONDB_PACK_PREBUILT=1.
if [ "${SESSIONDB_PACK_PREBUILT:-}" != 1 ]; then
  echo "pack-node: building the addon (release)" >&2
  [ -d node_modules/@napi-rs/cli ] || npm ci --no-audit --no-fund --loglevel=error
  npx napi build --platform --release --js native.js --dts native.d.ts >&2
fi
[ -f sessiondb.linux-x64-gnu.node ] || { echo "pack-node: no addon in node/" >&2; exit 1; }
V="$(node -p "require('./package.json').version")"
PLAT=npm/linux-x64-gnu
cp sessiondb.linux-x64-gnu.node "$PLAT/"
(cd "$PLAT" && npm pack --silent --pack-destination "$DEST" >/dev/null)
# As `napi pre-publish` does: the packed package.json names the platform packages
# as optional dependencies (the source one does not, so `npm ci` needs no registry
# entry for a package that is not published).
cp package.json "$DEST/.package.json.orig"
restore() { cp "$DEST/.package.json.orig" package.json; rm -f "$DEST/.package.json.orig" "$PLAT/sessiondb.linux-x64-gnu.node"; }
trap restore EXIT
node -e '
const fs = require("fs"); const p = JSON.parse(fs.readFileSync("package.json", "utf8"));
p.optionalDependencies = { "sessiondb-linux-x64-gnu": p.version };
fs.writeFileSync("package.json", JSON.stringify(p, null, 2) + "\n");'
npm pack --silent --pack-destination "$DEST" >/dev/null
restore; trap - EXIT
check() {  # TGZ WANT...: the tarball holds exactly these files
  local tgz="$1"; shift
  local have want
  have="$(tar -tzf "$tgz" | sed 's#^package/##' | sort)"
  want="$(printf '%s\n' "$@" | sort)"
  echo "    $(basename "$tgz") ($(stat -c %s "$tgz") bytes):"; echo "$have" | sed 's/^/      /'
  [ "$have" = "$want" ] || { echo "pack-node: $(basename "$tgz") holds other files than expected:" >&2; diff <(echo "$want") <(echo "$have") >&2; exit 1; }
}
check "$DEST/sessiondb-linux-x64-gnu-$V.tgz" package.json README.md LICENSE-MIT LICENSE-APACHE sessiondb.linux-x64-gnu.node
check "$DEST/sessiondb-$V.tgz" package.json README.md LICENSE-MIT LICENSE-APACHE \
  index.js index.mjs index.d.ts errors.js errors.d.ts agents.js agents.mjs agents.d.ts native.js native.d.ts

#!/usr/bin/env bash
# Runs every test of the project: the Rust workspace (under a private, real
# Secret Service), the OS-keyring test in its locked and no-service modes,
# and the binding suites as they land. Installs what it needs first.
# Usage: scripts/test-all.sh        (CI: .ci/run calls exactly this)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
export CARGO_TERM_COLOR=never
step() { printf '\n=== %s\n' "$*"; }

step "system packages"
bash scripts/install-system-deps.sh
python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install -q cryptography

step "dependencies: no direct dependency in two versions, every licence allowed (scripts/check-deps.sh)"
bash scripts/check-deps.sh

step "rust: cargo test --workspace (real Secret Service, unlocked)"
KR_DATA="$(mktemp -d)"; LOCKTEST="$(mktemp -d)"
trap 'rm -rf "$KR_DATA" "$LOCKTEST"' EXIT
export SESSIONDB_KEYRING_DATA_DIR="$KR_DATA" SESSIONDB_LOCKTEST_DIR="$LOCKTEST"
scripts/with-secret-service.sh --unlocked cargo test --workspace --locked

step "rust: OS keyring with the collection locked"
scripts/with-secret-service.sh --locked cargo test -q --locked -p sessiondb --test os_keyring
step "rust: OS keyring with no Secret Service"
scripts/with-secret-service.sh --none cargo test -q --locked -p sessiondb --test os_keyring
unset SESSIONDB_KEYRING_DATA_DIR SESSIONDB_LOCKTEST_DIR

step "rust: the PostgreSQL backend against a real server on loopback (behaviour suite, conformance cases, Citus keys, pg_dump canaries, 8 processes; server restart and SIGKILL)"
scripts/with-postgres.sh cargo test --locked -p sessiondb --features postgres --test store_postgres --test store_postgres_faults --test copy --test search_postgres

step "scripts/test-viewer.sh (the viewer in headless Chromium: pages, search, meter, charts, hostile content, canary scan)"
bash scripts/test-viewer.sh

for suite in scripts/test-python.sh scripts/test-node.sh scripts/test-kotlin.sh scripts/test-swift.sh; do
  if [ -f "$suite" ]; then
    step "$suite"
    bash "$suite"
  fi
done
step "scripts/check-artifacts.sh (release wheel, npm package and CLI: no debug info, no libdbus, auditwheel, import/require without libdbus)"
bash scripts/check-artifacts.sh
step "all test suites passed"

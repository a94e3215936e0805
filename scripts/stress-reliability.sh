#!/usr/bin/env bash
# The full round counts of the reliability issue ("Nothing lost under real
# use"), which CI runs only a few rounds of: 16 processes x 20 fresh + 10
# existing rounds (key bytes, a host key provider, the OS keyring), 30
# rounds of 16 live owners under recovery, 500 threads opening their own
# store, the CLI and the Python and Node bindings, under a private, real
# Secret Service. Prints each case's figures. Takes a few minutes.
# Usage: scripts/stress-reliability.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
export SESSIONDB_STRESS_ROUNDS="${SESSIONDB_STRESS_ROUNDS:-20}"
export SESSIONDB_STRESS_OWNER_ROUNDS="${SESSIONDB_STRESS_OWNER_ROUNDS:-30}"
export SESSIONDB_STRESS_THREADS="${SESSIONDB_STRESS_THREADS:-500}"
KR_DATA="$(mktemp -d)"; trap 'rm -rf "$KR_DATA"' EXIT
export SESSIONDB_KEYRING_DATA_DIR="$KR_DATA"
echo "=== core: start-up contention, live owners, threads (rounds=$SESSIONDB_STRESS_ROUNDS owners=$SESSIONDB_STRESS_OWNER_ROUNDS threads=$SESSIONDB_STRESS_THREADS)"
scripts/with-secret-service.sh --unlocked cargo test -q --locked -p sessiondb --test startup_contention -- --test-threads=1 --nocapture 2>&1 \
  | grep -E "start-up contention|live owners|test result|panicked|CHILD-ERR"
echo "=== CLI: 16 processes x (new + 10 appends), two 'new' with the OS keyring"
scripts/with-secret-service.sh --unlocked cargo test -q --locked -p sessiondb-cli --test cli_real_use -- --test-threads=1 2>&1 | grep -E "test result|panicked"
if [ -d "${SESSIONDB_PY_VENV:-}" ]; then
  echo "=== Python: 16 processes at once"
  (cd "$ROOT/python/tests" && "$SESSIONDB_PY_VENV/bin/python" -m pytest -q -k sixteen_processes test_keys_threads_fork.py)
fi

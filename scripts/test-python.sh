#!/usr/bin/env bash
# Python binding: build the wheel with maturin, install it (not the source
# tree) into a fresh virtualenv, check the stubs against the built module
# (mypy stubtest), and run pytest, including every conformance case the
# binding can execute. Works from a fresh clone; venvs live under the cache
# dir, never in the repo.
# Usage: scripts/test-python.sh [TEST FILE...]   (env: SESSIONDB_PY_RELEASE=1 for a release wheel)
# With test files (paths under python/tests, or pytest node ids), pytest runs
# only those, and the conformance count and the PostgreSQL test are skipped.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CACHE="${SESSIONDB_PY_CACHE:-$HOME/.cache/sessiondb-py}"
PY="${PYTHON:-python3}"
mkdir -p "$CACHE"

BUILD_VENV="$CACHE/build-venv"
if [ ! -x "$BUILD_VENV/bin/maturin" ]; then
  "$PY" -m venv "$BUILD_VENV"
  "$BUILD_VENV/bin/pip" install -q --upgrade pip
  "$BUILD_VENV/bin/pip" install -q 'maturin>=1.7,<2'
fi

WHEELS="$(mktemp -d)"; TEST_VENV="$(mktemp -d "$CACHE/test-venv.XXXXXX")"; WORK="$(mktemp -d)"
trap 'rm -rf "$WHEELS" "$TEST_VENV" "$WORK"' EXIT

# The debug wheel keeps its symbols and line tables (pyproject.toml strips the wheel).
profile=(--strip false)
[ "${SESSIONDB_PY_RELEASE:-0}" = 1 ] && profile=(--release)
echo "--- maturin build ${profile[*]}"
"$BUILD_VENV/bin/maturin" build "${profile[@]}" -q --auditwheel warn -m python/Cargo.toml -o "$WHEELS" -i "$PY"
ls "$WHEELS"

echo "--- fresh virtualenv with the built wheel"
"$PY" -m venv "$TEST_VENV"
"$TEST_VENV/bin/pip" install -q --upgrade pip
"$TEST_VENV/bin/pip" install -q "$WHEELS"/sessiondb-*.whl pytest mypy "openai-agents[encrypt]"

# Run from an empty directory so `import sessiondb` can only mean the install.
cd "$WORK"
"$TEST_VENV/bin/python" -c 'import sessiondb, sys; print("sessiondb", sessiondb.__version__, "from", sessiondb.__file__); assert "site-packages" in sessiondb.__file__'

echo "--- stubtest (stubs vs the built module)"
MYPY_CACHE_DIR="$WORK/.mypy_cache" "$TEST_VENV/bin/python" -m mypy.stubtest sessiondb \
  --allowlist "$ROOT/python/stubtest-allowlist.txt"

echo "--- pytest"
export SESSIONDB_REPO="$ROOT" SESSIONDB_CONFORMANCE_COUNT_FILE="$WORK/conformance-count"
if [ "$#" -gt 0 ]; then
  targets=()
  for t in "$@"; do
    case "$t" in /*) targets+=("$t") ;; *) targets+=("$ROOT/$t") ;; esac
  done
  "$TEST_VENV/bin/python" -m pytest -q -rs -p no:cacheprovider --rootdir "$ROOT/python/tests" "${targets[@]}"
  exit 0
fi
"$TEST_VENV/bin/python" -m pytest -q -rs -p no:cacheprovider --rootdir "$ROOT/python/tests" "$ROOT/python/tests"
read -r ran total < "$WORK/conformance-count"
echo "python: conformance cases run: $ran of $total"

# The store opened by postgres:// URL, against a throwaway server (root only:
# with-postgres.sh runs initdb and pg_ctl as the postgres user).
if [ "$(id -u)" = 0 ]; then
  echo "--- pytest tests/test_postgres.py under scripts/with-postgres.sh"
  "$ROOT/scripts/with-postgres.sh" "$TEST_VENV/bin/python" -m pytest -q -rs -p no:cacheprovider --rootdir "$ROOT/python/tests" "$ROOT/python/tests/test_postgres.py"
else
  echo "--- skipped the PostgreSQL test (not root: scripts/with-postgres.sh needs root)"
fi

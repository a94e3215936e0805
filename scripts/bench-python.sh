#!/usr/bin/env bash
# Python benchmark: a release wheel of sessiondb and openai-agents[encrypt]
# in a venv under the cache dir, then python/bench/BENCH (default
# bench_vs_agents_sdk.py; bench_agents_adapter.py: the Agents SDK adapter).
# Usage: scripts/bench-python.sh [BENCH.py]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CACHE="${SESSIONDB_PY_CACHE:-$HOME/.cache/sessiondb-py}"
PY="${PYTHON:-python3}"
mkdir -p "$CACHE"
[ -x "$CACHE/build-venv/bin/maturin" ] || { "$PY" -m venv "$CACHE/build-venv"; "$CACHE/build-venv/bin/pip" install -q 'maturin>=1.7,<2'; }
WHEELS="$(mktemp -d)"; trap 'rm -rf "$WHEELS"' EXIT
"$CACHE/build-venv/bin/maturin" build --release -q --auditwheel warn -m "$ROOT/python/Cargo.toml" -o "$WHEELS" -i "$PY"
[ -x "$CACHE/bench-venv/bin/python" ] || "$PY" -m venv "$CACHE/bench-venv"
"$CACHE/bench-venv/bin/pip" install -q 'openai-agents[encrypt]'
"$CACHE/bench-venv/bin/pip" install -q --force-reinstall --no-deps "$WHEELS"/sessiondb-*.whl
cd "$WHEELS" && "$CACHE/bench-venv/bin/python" "$ROOT/python/bench/${1:-bench_vs_agents_sdk.py}"

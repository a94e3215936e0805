#!/usr/bin/env bash
# test-kotlin.sh — generate the Kotlin bindings and run their JUnit 5 tests on
# the JVM (Maven project bindings/kotlin: kotlin-maven-plugin 2.x, JNA, JUnit 5,
# Surefire pinned). The tests load bindings/out/lib/libsessiondb_ffi.so through
# JNA (jna.library.path) and run the conformance cases in tests/conformance,
# store round trips, the error kinds, a Kotlin KeyProvider and an 8-thread
# append-while-closing stress test.
#
# Needs: cargo, a JDK 17+, mvn (scripts/install-system-deps.sh installs them).
# Maven's repository is the default ~/.m2 (kept between runs; filled from Maven
# Central on a fresh machine). Extra Maven flags: MVN_FLAGS (e.g. "-o").
# The sample-import cases read ../shared/samples beside the clone (or
# SESSIONDB_SAMPLES_DIR) and are skipped with a message when it is absent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$SECONDS
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
  echo "test-kotlin: installing maven and a JDK" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven default-jdk-headless >/dev/null
fi
bash scripts/gen-bindings.sh kotlin
log="$ROOT/bindings/out/kotlin-mvn.log"
rc=0
# shellcheck disable=SC2086
(cd bindings/kotlin && nice -n 10 mvn -B -ntp ${MVN_FLAGS:-} \
  ${SESSIONDB_SAMPLES_DIR:+-Dsessiondb.samples.dir="$SESSIONDB_SAMPLES_DIR"} test) > "$log" 2>&1 || rc=$?
grep -E '^\[(kotlin|conformance)\]|Tests run:|BUILD|ERROR|FAIL' "$log" | grep -v '^\[INFO\] *$' || true
if [ "$rc" != 0 ]; then
  echo "test-kotlin: mvn failed (exit $rc); log: $log; tail:" >&2
  tail -60 "$log" >&2
  exit "$rc"
fi
if ! grep -qE 'Tests run: [1-9][0-9]*, Failures: 0, Errors: 0' "$log"; then
  echo "test-kotlin: no test ran (see $log)" >&2
  exit 1
fi
echo "test-kotlin: passed in $((SECONDS - start))s"

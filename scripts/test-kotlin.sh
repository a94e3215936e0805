#!/usr/bin/env bash
# test-kotlin.sh — generate the Kotlin bindings and run their JUnit 5 tests on
# the JVM (Maven project bindings/kotlin: kotlin-maven-plugin 2.x, JNA, JUnit 5,
# Surefire pinned). The tests load bindings/out/lib/libsessiondb_ffi.so through
# JNA (jna.library.path) and run the conformance cases in tests/conformance,
# store round trips, the error kinds, a Kotlin KeyProvider and an 8-thread
# append-while-closing stress test. The suite runs inside a private, unlocked
# Secret Service (scripts/with-secret-service.sh) so the OS-keyring path is
# tested for real; OsKeyringTest runs once more with the keyring locked.
#
# Needs: cargo, a JDK 17+, mvn (installed here when missing), gnome-keyring and
# dbus (scripts/install-system-deps.sh).
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
bash scripts/install-system-deps.sh
bash scripts/gen-bindings.sh kotlin
# The generated Kotlin against the one surface list (methods, parameters, defaults, record fields).
python3 tests/api/surface.py kotlin bindings/out/kotlin/dev/sessiondb/sessiondb_ffi.kt

mvn_test() {  # mvn_test KEYRING-MODE LOG MAVEN-ARGS-AND-GOALS...
  local mode="$1" log="$2" rc=0; shift 2
  # shellcheck disable=SC2086
  nice -n 10 bash scripts/with-secret-service.sh "$mode" -- \
    mvn -B -ntp -f bindings/kotlin/pom.xml ${MVN_FLAGS:-} \
    ${SESSIONDB_SAMPLES_DIR:+-Dsessiondb.samples.dir="$SESSIONDB_SAMPLES_DIR"} "$@" > "$log" 2>&1 || rc=$?
  grep -E '^\[(kotlin|conformance)\]|Tests run:|BUILD|ERROR|FAIL' "$log" | grep -v '^\[INFO\] *$' | grep -v ' -- Time elapsed' || true
  if [ "$rc" != 0 ]; then
    echo "test-kotlin: mvn failed (exit $rc); log: $log; tail:" >&2
    tail -60 "$log" >&2
    exit "$rc"
  fi
  if ! grep -qE 'Tests run: [1-9][0-9]*, Failures: 0, Errors: 0' "$log"; then
    echo "test-kotlin: no test ran (see $log)" >&2
    exit 1
  fi
}
echo "test-kotlin: all tests (private Secret Service, unlocked)"
mvn_test --unlocked "$ROOT/bindings/out/kotlin-mvn.log" test
echo "test-kotlin: OsKeyringTest (private Secret Service, locked)"
# surefire:test alone: the classes compiled by the first run are reused.
mvn_test --locked "$ROOT/bindings/out/kotlin-mvn-locked.log" -Dtest=OsKeyringTest surefire:test
echo "test-kotlin: passed in $((SECONDS - start))s"

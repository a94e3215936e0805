#!/usr/bin/env bash
# test-kotlin.sh — build the Kotlin Maven artifact dev.sessiondb:sessiondb,
# install it into the local Maven repository, and run the Kotlin host's JUnit 5
# tests in a separate consumer project that depends on it by coordinates.
#
# Steps: scripts/gen-bindings.sh kotlin (uniffi Kotlin with its suspend
# variants, libsessiondb_ffi.so) -> the generated Kotlin checked against
# tests/api/surface.json -> the library staged at bindings/out/jna/linux-x86-64/
# (JNA's resource path) -> `mvn install` of bindings/kotlin (jar: generated
# Kotlin, the native library, LICENSE-*; pom with JNA and kotlinx-coroutines)
# -> the jar's contents checked -> `mvn test` of bindings/kotlin/sample, which
# loads the library from the jar (no jna.library.path): the conformance cases of
# tests/conformance, store round trips, the error kinds, a Kotlin KeyProvider,
# an 8-thread append-while-closing stress test and the suspend variants. The
# tests run inside a private, unlocked Secret Service
# (scripts/with-secret-service.sh) so the OS-keyring path is tested for real;
# OsKeyringTest runs once more with the keyring locked.
#
# Needs: cargo, a JDK 17+, mvn (installed here when missing), gnome-keyring and
# dbus (scripts/install-system-deps.sh).
# Maven's repository is the default ~/.m2 (kept between runs; filled from Maven
# Central on a fresh machine). Extra Maven flags: MVN_FLAGS (e.g. "-o").
# The jar is the published artifact, so its library is a release build by
# default (PROFILE=release); PROFILE=debug puts a debug one in (faster to build
# while iterating; gen-bindings.sh strips its debug info either way).
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
export PROFILE="${PROFILE:-release}"
bash scripts/gen-bindings.sh kotlin
# The generated Kotlin against the one surface list (methods, parameters, defaults, record fields).
python3 tests/api/surface.py kotlin bindings/out/kotlin/dev/sessiondb/sessiondb_ffi.kt

# The artifact: the library in JNA's resource path, then `mvn install`.
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
POM_VERSION="$(sed -n '0,/<artifactId>sessiondb<\/artifactId>/d; s#^  <version>\(.*\)</version>#\1#p' bindings/kotlin/pom.xml | head -n1)"
[ "$VERSION" = "$POM_VERSION" ] || { echo "test-kotlin: bindings/kotlin/pom.xml version $POM_VERSION != Cargo workspace version $VERSION" >&2; exit 1; }
rm -rf bindings/out/jna
mkdir -p bindings/out/jna/linux-x86-64
cp bindings/out/lib/libsessiondb_ffi.so bindings/out/jna/linux-x86-64/
echo "test-kotlin: mvn install dev.sessiondb:sessiondb:$VERSION"
# shellcheck disable=SC2086
if ! nice -n 10 mvn -B -ntp -f bindings/kotlin/pom.xml ${MVN_FLAGS:-} install > bindings/out/kotlin-install.log 2>&1; then
  echo "test-kotlin: mvn install failed; log: bindings/out/kotlin-install.log; tail:" >&2
  tail -60 bindings/out/kotlin-install.log >&2
  exit 1
fi
JAR="${HOME}/.m2/repository/dev/sessiondb/sessiondb/$VERSION/sessiondb-$VERSION.jar"
[ -f "$JAR" ] || { echo "test-kotlin: $JAR was not installed" >&2; exit 1; }
listing="$(python3 -c 'import sys, zipfile; [print(i.file_size, i.filename) for i in zipfile.ZipFile(sys.argv[1]).infolist()]' "$JAR")"
for want in linux-x86-64/libsessiondb_ffi.so dev/sessiondb/SessionStore.class dev/sessiondb/AsyncSessionStore.class META-INF/LICENSE-MIT META-INF/LICENSE-APACHE; do
  grep -q " $want\$" <<<"$listing" || { echo "test-kotlin: $want missing from $JAR" >&2; exit 1; }
done
for dep in net.java.dev.jna:jna org.jetbrains.kotlinx:kotlinx-coroutines-core; do
  grep -q "<artifactId>${dep#*:}</artifactId>" "${JAR%.jar}.pom" || { echo "test-kotlin: the installed pom lacks $dep" >&2; exit 1; }
done
echo "test-kotlin: installed $JAR ($(stat -c %s "$JAR") bytes; native library $(awk '$2 == "linux-x86-64/libsessiondb_ffi.so" {print $1}' <<<"$listing") bytes)"

mvn_test() {  # mvn_test KEYRING-MODE LOG MAVEN-ARGS-AND-GOALS...
  local mode="$1" log="$2" rc=0; shift 2
  # shellcheck disable=SC2086
  nice -n 10 bash scripts/with-secret-service.sh "$mode" -- \
    mvn -B -ntp -f bindings/kotlin/sample/pom.xml -Dsessiondb.version="$VERSION" ${MVN_FLAGS:-} \
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
echo "test-kotlin: sample project tests against the installed artifact (private Secret Service, unlocked)"
mvn_test --unlocked "$ROOT/bindings/out/kotlin-mvn.log" test
echo "test-kotlin: OsKeyringTest (private Secret Service, locked)"
# surefire:test alone: the classes compiled by the first run are reused.
mvn_test --locked "$ROOT/bindings/out/kotlin-mvn-locked.log" -Dtest=OsKeyringTest surefire:test
echo "test-kotlin: passed in $((SECONDS - start))s"

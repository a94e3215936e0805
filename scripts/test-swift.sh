#!/usr/bin/env bash
# test-swift.sh — generate the Swift bindings, then compile and run the Swift
# test program (bindings/swift/main.swift + Json.swift) against them with
# swiftc in a Debian trixie root (scripts/swift-root.sh: built with
# debootstrap when absent, cached in /var/cache/sessiondb/trixie-swift).
#
# Steps: scripts/gen-bindings.sh swift (SessionDB.swift, SessionDBFFI.h,
# module.modulemap, libsessiondb_ffi.so) -> a staging dir with the tests and
# tests/conformance -> in the root: the module SessionDB as a library
# (swiftc -emit-library -emit-module -I . -L . -lsessiondb_ffi), the test
# program linked to it with an rpath to /work, then ./tests conformance.
# The test program prints "N passed, 0 failed" and exits non-zero on failure.
# swift-root.sh unmounts what it mounted, also on failure. Needs root.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$SECONDS
bash scripts/gen-bindings.sh swift
# The generated Swift against the one surface list (methods, parameters, defaults, record fields).
python3 tests/api/surface.py swift bindings/out/swift/SessionDB.swift

OUT="$ROOT/bindings/out"
STAGE="$OUT/swift-run"
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp "$OUT"/swift/SessionDB.swift "$OUT"/swift/SessionDBFFI.h "$OUT"/swift/module.modulemap "$STAGE/"
cp "$OUT"/lib/libsessiondb_ffi.so "$STAGE/"
cp bindings/swift/*.swift "$STAGE/"
cp -r tests/conformance "$STAGE/conformance"
# Real sample files for the import cases: outside the project (../shared/samples
# beside the clone); the cases are skipped with a message when absent.
SAMPLES="${SESSIONDB_SAMPLES_DIR:-$ROOT/../shared/samples}"
if [ -d "$SAMPLES" ]; then cp -r "$SAMPLES" "$STAGE/samples"; else echo "test-swift: $SAMPLES absent: import cases skipped" >&2; fi

# The library needs no libdbus (the Secret Service client is zbus, pure Rust);
# swift-root.sh adds missing packages to an existing root in place.
export SWIFT_ROOT_PACKAGES="${SWIFT_ROOT_PACKAGES:-swiftlang libc6-dev}"
bash scripts/swift-root.sh run "$STAGE" sh -ec '
  swiftc --version 2>&1 | head -n1
  echo "test-swift: compiling module SessionDB"
  swiftc -emit-library -emit-module -module-name SessionDB -parse-as-library \
    -I . -L . -lsessiondb_ffi -Xlinker -rpath -Xlinker /work \
    SessionDB.swift -o libSessionDB.so
  echo "test-swift: compiling tests"
  swiftc -module-name SessionDBTests -I . -L . -lSessionDB -lsessiondb_ffi \
    -Xlinker -rpath -Xlinker /work main.swift Json.swift StoreSteps.swift -o tests
  ./tests conformance samples
'
echo "test-swift: passed in $((SECONDS - start))s"

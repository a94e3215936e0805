#!/usr/bin/env bash
# test-swift.sh — build the SessionDB SwiftPM package and run its XCTest suite
# with `swift build` and `swift test` in a Debian trixie root
# (scripts/swift-root.sh: built with debootstrap when absent, cached in
# /var/cache/sessiondb/trixie-swift).
#
# Steps: scripts/gen-bindings.sh swift (SessionDB.swift with its async
# variants, SessionDBFFI.h, module.modulemap,
# libsessiondb_ffi.so) -> the generated Swift checked against
# tests/api/surface.json -> scripts/build-swift-package.sh assembles the package
# (bindings/swift/Package.swift and Tests/) in bindings/out/swift-package -> a
# staging dir with the package, tests/conformance and the samples -> in the
# root: `swift build`, then `swift test` (XCTest: the conformance cases, store
# round trips, error kinds, a Swift KeyProvider, threads appending while the
# store closes, the async variants). swift-root.sh unmounts what it mounted,
# also on failure. Needs root.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
start=$SECONDS
bash scripts/gen-bindings.sh swift
# The generated Swift against the one surface list (methods, parameters, defaults, record fields).
python3 tests/api/surface.py swift bindings/out/swift/SessionDB.swift

OUT="$ROOT/bindings/out"
NO_GEN=1 bash scripts/build-swift-package.sh "$OUT/swift-package"
STAGE="$OUT/swift-run"
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -r "$OUT/swift-package/." "$STAGE/"
cp -r tests/conformance "$STAGE/conformance"
# Real sample files for the import cases: outside the project (../shared/samples
# beside the clone); the cases are skipped with a message when absent.
SAMPLES="${SESSIONDB_SAMPLES_DIR:-$ROOT/../shared/samples}"
if [ -d "$SAMPLES" ]; then cp -r "$SAMPLES" "$STAGE/samples"; else echo "test-swift: $SAMPLES absent: import cases skipped" >&2; fi

# The library needs no libdbus (the Secret Service client is zbus, pure Rust);
# swift-root.sh adds missing packages to an existing root in place.
export SWIFT_ROOT_PACKAGES="${SWIFT_ROOT_PACKAGES:-swiftlang libc6-dev}"
bash scripts/swift-root.sh run "$STAGE" sh -ec '
  swift --version 2>&1 | head -n1
  echo "test-swift: swift build"
  swift build 2>&1 | tail -n 20
  echo "test-swift: swift test"
  SESSIONDB_CONFORMANCE_DIR=/work/conformance SESSIONDB_SAMPLES_DIR=/work/samples swift test --disable-swift-testing 2>&1
'
echo "test-swift: passed in $((SECONDS - start))s"

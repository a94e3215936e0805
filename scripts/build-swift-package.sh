#!/usr/bin/env bash
# build-swift-package.sh — assemble the SessionDB SwiftPM package from the
# generated bindings, in bindings/out/swift-package (see bindings/swift/Package.swift
# for the layout). Runs scripts/gen-bindings.sh swift first unless NO_GEN=1.
#
# Usage: scripts/build-swift-package.sh [OUT-DIR]     (default bindings/out/swift-package)
# Environment: PROFILE=debug|release (gen-bindings.sh), CARGO_TARGET_DIR.
# The result builds with `swift build` and tests with `swift test` where a
# Swift toolchain is (scripts/test-swift.sh does both in a Debian trixie root).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${1:-$ROOT/bindings/out/swift-package}"
GEN="$ROOT/bindings/out/swift"
[ "${NO_GEN:-}" = 1 ] || bash scripts/gen-bindings.sh swift
for f in SessionDB.swift SessionDBFFI.h module.modulemap; do
  [ -f "$GEN/$f" ] || { echo "build-swift-package: $GEN/$f missing (run scripts/gen-bindings.sh swift)" >&2; exit 1; }
done
rm -rf "$OUT"
mkdir -p "$OUT/Sources/SessionDBFFI" "$OUT/Sources/SessionDB" "$OUT/lib" "$OUT/Tests"
cp bindings/swift/Package.swift "$OUT/"
cp -r bindings/swift/Tests/SessionDBTests "$OUT/Tests/"
cp "$GEN/SessionDB.swift" "$OUT/Sources/SessionDB/"
cp "$GEN/SessionDBFFI.h" "$OUT/Sources/SessionDBFFI/"
# The system-library module links the Rust library (uniffi's map names only the header).
sed 's/^\(    header "SessionDBFFI.h"\)$/\1\n    link "sessiondb_ffi"/' "$GEN/module.modulemap" > "$OUT/Sources/SessionDBFFI/module.modulemap"
grep -q 'link "sessiondb_ffi"' "$OUT/Sources/SessionDBFFI/module.modulemap" || { echo "build-swift-package: could not add the link line to the module map" >&2; exit 1; }
case "$(uname -s)" in
  Darwin) cp bindings/out/lib/libsessiondb_ffi.dylib "$OUT/lib/" ;;
  *) cp bindings/out/lib/libsessiondb_ffi.so "$OUT/lib/" ;;
esac
cp LICENSE-MIT LICENSE-APACHE "$OUT/"
echo "build-swift-package: $OUT ($(cd "$OUT" && find . -type f | sort | tr '\n' ' '))" >&2

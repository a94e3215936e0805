#!/usr/bin/env bash
# build-xcframework.sh — build SessionDBFFI.xcframework (the Rust static library
# for iOS, the iOS simulator and macOS, with uniffi's header and module map) and
# put it in the SwiftPM package (bindings/out/swift-package), whose Package.swift
# then uses it as a binary target instead of the Linux system library.
#
# NOT RUN IN THIS REPOSITORY'S CI: the CI machine is Linux and has no Xcode
# (xcodebuild, lipo and the Apple SDKs). The script exits with status 3 and a
# message when they are absent.
#
# Needs: macOS with Xcode 15 or newer, rustup.
# Steps:
#   1. rustup target add aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios aarch64-apple-darwin x86_64-apple-darwin
#   2. per target: cargo build -p sessiondb-ffi --release --lib (the crate's
#      staticlib: libsessiondb_ffi.a); the OS keyring there is the Keychain.
#   3. lipo: one fat library for the simulator (arm64 + x86_64) and one for
#      macOS (arm64 + x86_64).
#   4. scripts/build-swift-package.sh (host build: generated Swift, async
#      variants, header, module map) for the headers directory.
#   5. xcodebuild -create-xcframework -library <ios.a> -headers H
#      -library <sim.a> -headers H -library <macos.a> -headers H
#      -output bindings/out/swift-package/SessionDBFFI.xcframework
# Then `swift build` in bindings/out/swift-package links it (and Security.framework).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ "$(uname -s)" != Darwin ] || ! command -v xcodebuild >/dev/null 2>&1 || ! command -v lipo >/dev/null 2>&1; then
  echo "build-xcframework: needs macOS with Xcode (xcodebuild, lipo); this machine cannot build the XCFramework" >&2
  exit 3
fi
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
targets=(aarch64-apple-ios aarch64-apple-ios-sim x86_64-apple-ios aarch64-apple-darwin x86_64-apple-darwin)
rustup target add "${targets[@]}"
for t in "${targets[@]}"; do
  cargo build -p sessiondb-ffi --release --lib --locked --target "$t"
done
lib() { echo "$TARGET_DIR/$1/release/libsessiondb_ffi.a"; }
OUT="$ROOT/bindings/out/xcframework"
rm -rf "$OUT"; mkdir -p "$OUT/ios" "$OUT/sim" "$OUT/macos" "$OUT/headers"
cp "$(lib aarch64-apple-ios)" "$OUT/ios/libsessiondb_ffi.a"
lipo -create "$(lib aarch64-apple-ios-sim)" "$(lib x86_64-apple-ios)" -output "$OUT/sim/libsessiondb_ffi.a"
lipo -create "$(lib aarch64-apple-darwin)" "$(lib x86_64-apple-darwin)" -output "$OUT/macos/libsessiondb_ffi.a"
PROFILE=release bash scripts/build-swift-package.sh
PKG="$ROOT/bindings/out/swift-package"
cp "$ROOT/bindings/out/swift/SessionDBFFI.h" "$ROOT/bindings/out/swift/module.modulemap" "$OUT/headers/"
rm -rf "$PKG/SessionDBFFI.xcframework"
xcodebuild -create-xcframework \
  -library "$OUT/ios/libsessiondb_ffi.a" -headers "$OUT/headers" \
  -library "$OUT/sim/libsessiondb_ffi.a" -headers "$OUT/headers" \
  -library "$OUT/macos/libsessiondb_ffi.a" -headers "$OUT/headers" \
  -output "$PKG/SessionDBFFI.xcframework"
echo "build-xcframework: $PKG/SessionDBFFI.xcframework; build with: (cd $PKG && swift build)"

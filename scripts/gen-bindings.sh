#!/usr/bin/env bash
# gen-bindings.sh — build the sessiondb-ffi library and generate the Kotlin and
# Swift bindings from it with the workspace's own uniffi-bindgen (library mode).
#
# Usage: scripts/gen-bindings.sh [kotlin|swift|all]     (default: all)
#
# Output (gitignored):
#   bindings/out/lib/libsessiondb_ffi.so               the built cdylib (debug info stripped)
#   bindings/out/kotlin/dev/sessiondb/sessiondb_ffi.kt (with the `suspend` twins)
#   bindings/out/swift/SessionDB.swift (with the `async` twins), SessionDBFFI.h, module.modulemap
# Environment: CARGO_TARGET_DIR (default target/), PROFILE=debug|release (default debug).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
what="${1:-all}"
PROFILE="${PROFILE:-debug}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/bindings/out"
cargo_flags=(-p sessiondb-ffi --locked)
# A release library without the default `cli` feature: that feature only serves
# the uniffi-bindgen binary (it pulls uniffi_bindgen, askama, goblin, ... into
# the build), and the generator below is the debug one.
[ "$PROFILE" = release ] && cargo_flags+=(--release --no-default-features)

case "$(uname -s)" in
  Darwin) LIBFILE=libsessiondb_ffi.dylib ;;
  *) LIBFILE=libsessiondb_ffi.so ;;
esac

echo "gen-bindings: cargo build ${cargo_flags[*]}" >&2
nice -n 10 cargo build -q "${cargo_flags[@]}" --lib
# The generator is a debug build whatever PROFILE is (its output depends only on
# the library it reads; the debug build is the one `cargo test --workspace` and
# the debug bindings already compiled, so a release library costs no second,
# optimised build of uniffi-bindgen and its dependencies).
nice -n 10 cargo build -q -p sessiondb-ffi --locked --bin uniffi-bindgen
LIB="$TARGET_DIR/$PROFILE/$LIBFILE"
[ -f "$LIB" ] || { echo "gen-bindings: $LIB not found" >&2; exit 1; }
BINDGEN="$TARGET_DIR/debug/uniffi-bindgen"

mkdir -p "$OUT/lib"
# The hosts load this copy; debug info is dropped (95 MB -> a few MB in a
# debug build) since the tests copy it around. Bindings are generated from it.
if command -v strip >/dev/null 2>&1 && [ "$(uname -s)" != Darwin ]; then
  strip --strip-debug -o "$OUT/lib/$LIBFILE.tmp" "$LIB" && mv -f "$OUT/lib/$LIBFILE.tmp" "$OUT/lib/$LIBFILE"
else
  cp -f "$LIB" "$OUT/lib/$LIBFILE"
fi

gen() {  # gen LANGUAGE
  rm -rf "${OUT:?}/$1"
  mkdir -p "$OUT/$1"
  # Equivalent to `cargo run -p sessiondb-ffi --bin uniffi-bindgen -- generate ...`
  # (run from the built binary so a second cargo invocation is not needed).
  # bindings/uniffi.toml is found through cargo metadata (crate root).
  "$BINDGEN" generate --library "$OUT/lib/$LIBFILE" --language "$1" \
    --out-dir "$OUT/$1" --no-format >&2
}
case "$what" in
  kotlin) gen kotlin ;;
  swift) gen swift ;;
  all) gen kotlin; gen swift ;;
  *) echo "usage: $0 [kotlin|swift|all]" >&2; exit 2 ;;
esac
if [ -f "$OUT/swift/SessionDB.swift" ]; then
  # uniffi 0.32 writes Swift error cases UpperCamelCase (its ErrorTemplate
  # applies `class_name` to variant names; a uniffi.toml rename cannot change
  # that), while Swift enum cases, and every other enum here, are
  # lowerCamelCase: SessionDbError.recoveryLocked. Rewrite the 13 case names
  # where they appear as a case (`case X(`, `.X(`, `.X:`); no other type or
  # case in the module has these names, and swiftc checks the result.
  kinds=RecoveryLocked/KeyMismatch/KeyStoreUnavailable/NotFound/Conflict/AuthenticationFailed/Corrupt/Busy/InvalidInput/Io/Database/ContextOverflow/Closed
  perl -pi -e 'BEGIN { %k = map { $_ => lcfirst($_) } split m{/}, shift } s/(\bcase |\bcase let |\.)(RecoveryLocked|KeyMismatch|KeyStoreUnavailable|NotFound|Conflict|AuthenticationFailed|Corrupt|Busy|InvalidInput|Io|Database|ContextOverflow|Closed)\b(?=[(:\s,])/$1$k{$2}/g' "$kinds" "$OUT/swift/SessionDB.swift"
  n="$(grep -cE '^    case (recoveryLocked|keyMismatch|keyStoreUnavailable|notFound|conflict|authenticationFailed|corrupt|busy|invalidInput|io|database|contextOverflow|closed)\(' "$OUT/swift/SessionDB.swift" || true)"
  [ "$n" = 13 ] || { echo "gen-bindings: expected 13 lowerCamelCase SessionDbError cases in SessionDB.swift, found $n" >&2; exit 1; }
fi
if [ -d "$OUT/swift" ]; then
  # swiftc looks for `module.modulemap` in every -I directory.
  for m in "$OUT"/swift/*.modulemap; do
    [ -e "$m" ] && [ "$(basename "$m")" != module.modulemap ] && mv -f "$m" "$OUT/swift/module.modulemap"
  done
fi
# The Kotlin artifact takes the library from JNA's resource path
# (bindings/kotlin/pom.xml packs bindings/out/jna/): staged here, so the
# documented `gen-bindings.sh` then `mvn install` makes a jar that loads it
# (a new user's `mvn install` after this script alone made one without it).
if [ "$LIBFILE" = libsessiondb_ffi.so ]; then
  rm -rf "$OUT/jna"
  mkdir -p "$OUT/jna/linux-x86-64"
  cp "$OUT/lib/$LIBFILE" "$OUT/jna/linux-x86-64/"
fi
echo "gen-bindings: wrote $(cd "$OUT" && find kotlin swift -type f 2>/dev/null | sort | tr '\n' ' ')" >&2

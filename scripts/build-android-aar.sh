#!/usr/bin/env bash
# build-android-aar.sh — build the Android library (AAR) of the Kotlin bindings:
# libsessiondb_ffi.so for four ABIs with the Android NDK, the generated Kotlin
# (+ suspend variants) compiled into classes.jar, assembled as
# bindings/out/android/sessiondb-<version>.aar with its pom.
#
# NOT RUN IN THIS REPOSITORY'S CI: the CI machine has no Android NDK (and no
# Android SDK or Gradle). The script is written to the NDK's documented layout
# and exits with status 3 and a message when the NDK is absent.
#
# Needs: ANDROID_NDK_HOME (NDK r26 or newer), rustup, a JDK and mvn.
# Environment: ANDROID_API (default 24, Android 7.0: the minSdk of the AAR).
#
# Steps:
#   1. rustup target add aarch64-linux-android armv7-linux-androideabi x86_64-linux-android i686-linux-android
#   2. per target: cargo build -p sessiondb-ffi --release --lib with the NDK's
#      clang as linker (CARGO_TARGET_<TRIPLE>_LINKER) and llvm-ar; llvm-strip
#      removes the symbols; the result goes to jni/<abi>/libsessiondb_ffi.so
#      (arm64-v8a, armeabi-v7a, x86_64, x86).
#   3. scripts/gen-bindings.sh kotlin on the host (library mode: the Kotlin
#      is the same for every target) and `mvn package` of bindings/kotlin for
#      classes.jar (the linux-x86-64 resource is dropped from it).
#   4. the AAR (a zip): AndroidManifest.xml, classes.jar, jni/<abi>/*.so, R.txt,
#      and a pom whose dependencies are net.java.dev.jna:jna:<v>@aar (JNA's
#      Android build, which carries libjnidispatch for each ABI) and
#      kotlinx-coroutines-core.
# On Android the OS keyring is not used: an app passes the key itself or a
# KeyProvider backed by the Android Keystore (see README "Kotlin").
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
NDK="${ANDROID_NDK_HOME:-${ANDROID_NDK_ROOT:-}}"
if [ -z "$NDK" ] || [ ! -d "$NDK/toolchains/llvm/prebuilt" ]; then
  echo "build-android-aar: no Android NDK (set ANDROID_NDK_HOME); this machine cannot build the AAR" >&2
  exit 3
fi
API="${ANDROID_API:-24}"
HOST_TAG="$(ls "$NDK/toolchains/llvm/prebuilt" | head -n1)"
TC="$NDK/toolchains/llvm/prebuilt/$HOST_TAG/bin"
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)"
JNA_VERSION="$(sed -n 's#.*<jna.version>\(.*\)</jna.version>.*#\1#p' bindings/kotlin/pom.xml)"
COROUTINES_VERSION="$(sed -n 's#.*<coroutines.version>\(.*\)</coroutines.version>.*#\1#p' bindings/kotlin/pom.xml)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/bindings/out/android"
STAGE="$OUT/aar"
rm -rf "$OUT"; mkdir -p "$STAGE/jni"

# triple:abi:clang-prefix
for spec in aarch64-linux-android:arm64-v8a:aarch64-linux-android \
            armv7-linux-androideabi:armeabi-v7a:armv7a-linux-androideabi \
            x86_64-linux-android:x86_64:x86_64-linux-android \
            i686-linux-android:x86:i686-linux-android; do
  IFS=: read -r triple abi clang <<<"$spec"
  rustup target add "$triple"
  upper="$(echo "$triple" | tr 'a-z-' 'A-Z_')"
  env "CARGO_TARGET_${upper}_LINKER=$TC/${clang}${API}-clang" \
      "CC_${triple//-/_}=$TC/${clang}${API}-clang" \
      "AR_${triple//-/_}=$TC/llvm-ar" \
      cargo build -p sessiondb-ffi --release --lib --locked --target "$triple"
  mkdir -p "$STAGE/jni/$abi"
  "$TC/llvm-strip" --strip-all -o "$STAGE/jni/$abi/libsessiondb_ffi.so" "$TARGET_DIR/$triple/release/libsessiondb_ffi.so"
done

bash scripts/gen-bindings.sh kotlin
rm -rf bindings/out/jna; mkdir -p bindings/out/jna   # no host library in the Android classes.jar
mvn -B -ntp -q -f bindings/kotlin/pom.xml package
cp "bindings/kotlin/target/sessiondb-$VERSION.jar" "$STAGE/classes.jar"
cat > "$STAGE/AndroidManifest.xml" <<XML
<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="dev.sessiondb">
  <uses-sdk android:minSdkVersion="$API" />
</manifest>
XML
: > "$STAGE/R.txt"
cp LICENSE-MIT LICENSE-APACHE "$STAGE/"
(cd "$STAGE" && rm -f "../sessiondb-$VERSION.aar" && zip -qr "../sessiondb-$VERSION.aar" .)
cat > "$OUT/sessiondb-$VERSION.pom" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.sessiondb</groupId>
  <artifactId>sessiondb-android</artifactId>
  <version>$VERSION</version>
  <packaging>aar</packaging>
  <description>sessiondb Kotlin bindings for Android (arm64-v8a, armeabi-v7a, x86_64, x86)</description>
  <licenses>
    <license><name>MIT</name></license>
    <license><name>Apache-2.0</name></license>
  </licenses>
  <dependencies>
    <dependency><groupId>net.java.dev.jna</groupId><artifactId>jna</artifactId><version>$JNA_VERSION</version><type>aar</type></dependency>
    <dependency><groupId>org.jetbrains.kotlinx</groupId><artifactId>kotlinx-coroutines-core</artifactId><version>$COROUTINES_VERSION</version></dependency>
  </dependencies>
</project>
XML
echo "build-android-aar: $OUT/sessiondb-$VERSION.aar ($(stat -c %s "$OUT/sessiondb-$VERSION.aar") bytes) and its pom"

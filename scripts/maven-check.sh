#!/usr/bin/env bash
# maven-check.sh — check that Maven here resolves and runs the JVM toolchain the
# Kotlin bindings use: kotlin-maven-plugin (Kotlin 2.x), JNA 5.x, JUnit Jupiter 5.x
# with a Surefire that runs JUnit 5. It writes a throwaway Kotlin + JUnit 5 project
# in a temp dir (removed afterwards; KEEP=1 keeps it), whose test calls libc's
# getpid() through JNA, and runs `mvn -B test` on it. Prints the versions used and
# Surefire's result; exit status is Maven's.
#
# Versions (override by environment): KOTLIN_VERSION JNA_VERSION JUNIT_VERSION
# SUREFIRE_VERSION. Defaults were verified here with Maven 3.8.7 and OpenJDK 17.
# Note: Surefire must be pinned: Maven 3.8's default (2.12.4) finds no JUnit 5
# test and still reports BUILD SUCCESS with "Tests run: 0".
set -euo pipefail
KOTLIN_VERSION="${KOTLIN_VERSION:-2.4.21}"
JNA_VERSION="${JNA_VERSION:-5.19.1}"
JUNIT_VERSION="${JUNIT_VERSION:-5.14.4}"
SUREFIRE_VERSION="${SUREFIRE_VERSION:-3.5.4}"

command -v mvn >/dev/null || { echo "maven-check: mvn not found (apt-get install maven)" >&2; exit 1; }
dir="$(mktemp -d "${TMPDIR:-/tmp}/sdb-maven-check.XXXXXX")"
[ "${KEEP:-}" = 1 ] || trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src/main/kotlin" "$dir/src/test/kotlin"

cat > "$dir/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.sessiondb.check</groupId>
  <artifactId>maven-check</artifactId>
  <version>0.0.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <kotlin.version>$KOTLIN_VERSION</kotlin.version>
    <kotlin.compiler.jvmTarget>17</kotlin.compiler.jvmTarget>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.jetbrains.kotlin</groupId>
      <artifactId>kotlin-stdlib</artifactId>
      <version>\${kotlin.version}</version>
    </dependency>
    <dependency>
      <groupId>net.java.dev.jna</groupId>
      <artifactId>jna</artifactId>
      <version>$JNA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>$JUNIT_VERSION</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <sourceDirectory>src/main/kotlin</sourceDirectory>
    <testSourceDirectory>src/test/kotlin</testSourceDirectory>
    <plugins>
      <plugin>
        <groupId>org.jetbrains.kotlin</groupId>
        <artifactId>kotlin-maven-plugin</artifactId>
        <version>\${kotlin.version}</version>
        <executions>
          <execution><id>compile</id><goals><goal>compile</goal></goals></execution>
          <execution><id>test-compile</id><goals><goal>test-compile</goal></goals></execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>$SUREFIRE_VERSION</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF

cat > "$dir/src/main/kotlin/Pid.kt" <<'EOF'
package dev.sessiondb.check

import com.sun.jna.Library
import com.sun.jna.Native

interface CLib : Library {
    fun getpid(): Int
}

object Pid {
    private val c: CLib = Native.load("c", CLib::class.java)
    fun current(): Int = c.getpid()
}
EOF

cat > "$dir/src/test/kotlin/PidTest.kt" <<'EOF'
package dev.sessiondb.check

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test

class PidTest {
    @Test
    fun jnaCallsLibc() = assertEquals(ProcessHandle.current().pid().toInt(), Pid.current())

    @Test
    fun kotlinCompiles() {
        assertEquals(12, listOf(1, 2, 3).sumOf { it * 2 })
        println("maven-check: Kotlin ${KotlinVersion.CURRENT} on Java ${System.getProperty("java.version")}")
    }
}
EOF

echo "maven-check: kotlin-maven-plugin $KOTLIN_VERSION, jna $JNA_VERSION, junit-jupiter $JUNIT_VERSION, surefire $SUREFIRE_VERSION"
rc=0
(cd "$dir" && nice -n 10 mvn -B -ntp test) > "$dir/mvn.log" 2>&1 || rc=$?
grep -E '^maven-check:|Tests run:.*Fail|BUILD|ERROR' "$dir/mvn.log" | grep -v ' -- in ' || true
if [ "$rc" != 0 ]; then echo "maven-check: mvn failed (exit $rc); log tail:"; tail -40 "$dir/mvn.log"; fi
exit "$rc"

#!/usr/bin/env bash
# Temporal's Java test server (the time-skipping server of @temporalio/testing's
# TestWorkflowEnvironment.createTimeSkipping), fetched from Maven Central with Maven instead of the
# SDK's own download (which reaches temporal.download at test time). Installs
# io.temporal:temporal-test-server:$VERSION and its dependencies into the cache dir
# (NEWSFLOW_CACHE_DIR, $XDG_CACHE_HOME/newsflow or ~/.cache/newsflow)/temporal-test-server-<version>/lib,
# and writes the executable wrapper `temporal-test-server` there (`temporal-test-server <port>` runs
# io.temporal.testserver.TestServer on that port; test/helpers/time-skipping.ts starts it).
# Needs Java 17+ and Maven. Idempotent: a second run downloads nothing.
set -euo pipefail
VERSION="${NEWSFLOW_TEST_SERVER_VERSION:-1.38.0}"
CACHE="${NEWSFLOW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/newsflow}/temporal-test-server-$VERSION"
WRAPPER="$CACHE/temporal-test-server"
# the JVM's class-data archive of the server (AppCDS, made once below): it starts in about 0.3 s
# instead of 0.8 s on an idle machine, so on a loaded one it is listening well within the 5 s the
# SDK waits for it (at load 15 the plain JVM missed them: "did not start within 5s")
JSA="$CACHE/test-server.jsa"
if [ -x "$WRAPPER" ] && [ -f "$CACHE/lib/temporal-test-server-$VERSION.jar" ] && [ -f "$JSA" ] && grep -q SharedArchiveFile "$WRAPPER"; then
  echo "install-test-server: $WRAPPER"
  exit 0
fi
# Java and Maven from Debian's packages when missing (as .ci/run installs Chromium and PostgreSQL)
if { ! command -v java >/dev/null || ! command -v mvn >/dev/null; } && command -v apt-get >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless maven
fi
command -v java >/dev/null || { echo "install-test-server: Java 17+ is needed to run the Temporal test server" >&2; exit 1; }
command -v mvn >/dev/null || { echo "install-test-server: Maven (mvn) is needed to fetch io.temporal:temporal-test-server:$VERSION" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>newsflow</groupId>
  <artifactId>temporal-test-server-install</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>$VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
mkdir -p "$CACHE"
if [ ! -f "$CACHE/lib/temporal-test-server-$VERSION.jar" ]; then
  rm -rf "$CACHE/lib.tmp"
  echo "install-test-server: fetching io.temporal:temporal-test-server:$VERSION and its dependencies from Maven Central into $CACHE/lib"
  (cd "$WORK" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$CACHE/lib.tmp")
  rm -rf "$CACHE/lib"
  mv "$CACHE/lib.tmp" "$CACHE/lib"
fi
if [ ! -f "$JSA" ]; then
  # one start of the server with the archive written at its exit: the classes it loads to listen
  PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  java -XX:ArchiveClassesAtExit="$JSA.tmp" -cp "$CACHE/lib/*" io.temporal.testserver.TestServer "$PORT" > "$WORK/cds.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 600); do
    (exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2> /dev/null && break
    sleep 0.1
  done
  sleep 1
  kill "$PID" 2> /dev/null || true
  wait "$PID" || true
  if [ -s "$JSA.tmp" ]; then mv "$JSA.tmp" "$JSA"; else echo "install-test-server: no class-data archive (the server starts without it)"; tail -5 "$WORK/cds.log"; fi
fi
SHARE=""
[ -f "$JSA" ] && SHARE=" -XX:SharedArchiveFile=$JSA -XX:TieredStopAtLevel=1"
cat > "$WRAPPER.tmp" <<EOF
#!/bin/sh
# Temporal's Java test server $VERSION (scripts/install-test-server.sh): temporal-test-server <port>
exec java \${NEWSFLOW_TEST_SERVER_JAVA_OPTS:--Xms64m -Xmx512m$SHARE} -cp "$CACHE/lib/*" io.temporal.testserver.TestServer "\$@"
EOF
chmod +x "$WRAPPER.tmp"
mv "$WRAPPER.tmp" "$WRAPPER"
echo "install-test-server: $WRAPPER"

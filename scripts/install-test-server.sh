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
if [ -x "$WRAPPER" ] && [ -f "$CACHE/lib/temporal-test-server-$VERSION.jar" ]; then
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
rm -rf "$CACHE/lib.tmp"
echo "install-test-server: fetching io.temporal:temporal-test-server:$VERSION and its dependencies from Maven Central into $CACHE/lib"
(cd "$WORK" && mvn -q -B dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$CACHE/lib.tmp")
rm -rf "$CACHE/lib"
mv "$CACHE/lib.tmp" "$CACHE/lib"
cat > "$WRAPPER.tmp" <<EOF
#!/bin/sh
# Temporal's Java test server $VERSION (scripts/install-test-server.sh): temporal-test-server <port>
exec java \${NEWSFLOW_TEST_SERVER_JAVA_OPTS:--Xms64m -Xmx512m} -cp "$CACHE/lib/*" io.temporal.testserver.TestServer "\$@"
EOF
chmod +x "$WRAPPER.tmp"
mv "$WRAPPER.tmp" "$WRAPPER"
echo "install-test-server: $WRAPPER"

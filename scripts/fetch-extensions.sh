#!/usr/bin/env bash
# Fetch DuckDB's official extensions for the embedded DuckDB from their PyPI wheels
# (duckdb-extension-<name>, an ordinary pip download; pip checks every wheel against the pinned
# sha256) and unpack <name>.duckdb_extension under ${1:-.duckdb/extensions}/v<version>/.
# Nothing is downloaded at run time: warehouse/extensions.ts LOADs these files. Idempotent.
set -euo pipefail
DEST="${1:-.duckdb/extensions}"
VERSION=1.5.5   # the DuckDB that @duckdb/node-api embeds (test/warehouse/extensions.test.ts checks it)
PLATFORM=manylinux2014_x86_64
# name sha256-of-the-wheel (py3-none-$PLATFORM)
WHEELS="
ducklake b631ae4dd4bd649b3db35a789dbcc859476fe231ef449b3f03f4fe4e2ef4a946
sqlite-scanner 0af00f8e4e6e0562e0fac1bb22d5c4a29d616a664da4194b51cbd26355b9a0c2
postgres-scanner fea9413d1b5bded7ead650aff91b3d7578c5149d832f666100b362f64404bf18
httpfs 84913dbe172ccb54368de2c4a020c38ca8b0e76f99df548f7fac37934cc7826f
fts 9d452ba4f0d083a183bed76ca2c710feaa823f6731ed57374f64b44e4d10f0a1
vss 4d1b8013134cc1a14810fb2bb962653382fdccd6e1f39f0d383e38c88eb17efa
"
OUT="$DEST/v$VERSION"
STAMP="$OUT/.wheels"
PIN=$(printf '%s' "$WHEELS" | sha256sum | cut -d' ' -f1)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$PIN" ] && [ "$(ls "$OUT"/*.duckdb_extension | wc -l)" = 6 ]; then echo "duckdb extensions present: $OUT"; exit 0; fi
case "$(uname -s)/$(uname -m)" in
  Linux/x86_64) ;;
  *) echo "newsflow: DuckDB extensions are pinned for linux x86_64 only (this is $(uname -s)/$(uname -m)); the warehouse (a DuckLake) needs them: fetch them on a machine that reaches PyPI and point NEWSFLOW_DUCKDB_EXTENSIONS at them" >&2; exit 1 ;;
esac
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
while read -r name sha; do
  [ -n "$name" ] && echo "duckdb-extension-$name==$VERSION --hash=sha256:$sha"
done <<<"$WHEELS" >"$TMP/requirements.txt"
if ! python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --require-hashes -r "$TMP/requirements.txt" -d "$TMP/wheels"; then
  echo "newsflow: could not fetch the DuckDB extension wheels from PyPI (pip download duckdb-extension-<name>==$VERSION); the warehouse (a DuckLake) needs them: fetch them on a machine that reaches PyPI and point NEWSFLOW_DUCKDB_EXTENSIONS at them" >&2
  exit 1
fi
mkdir -p "$OUT"
python3 - "$TMP/wheels" "$OUT" <<'PY'
import sys, zipfile, glob, os, shutil
src, out = sys.argv[1], sys.argv[2]
for whl in sorted(glob.glob(os.path.join(src, "*.whl"))):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            if name.endswith(".duckdb_extension"):
                tmp = os.path.join(out, os.path.basename(name) + ".part")
                with z.open(name) as f, open(tmp, "wb") as g: shutil.copyfileobj(f, g)
                os.replace(tmp, os.path.join(out, os.path.basename(name)))
PY
echo "$PIN" >"$STAMP"
echo "duckdb extensions fetched: $(ls "$OUT" | tr '\n' ' ')"

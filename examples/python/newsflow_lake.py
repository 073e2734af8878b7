"""Open a newsflow warehouse (a DuckLake) read-only from Python, offline.

The DuckLake and SQLite extensions are loaded by path from the newsflow install's extension
files (.duckdb/extensions/v1.5.5/*.duckdb_extension, unpacked from the official PyPI wheels
duckdb-extension-ducklake and duckdb-extension-sqlite-scanner by scripts/fetch-extensions.sh),
so nothing is downloaded: autoinstall and autoload are off. The Python duckdb must be the DuckDB
newsflow embeds (1.5.5: requirements.txt), or the extension files will not load.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

DUCKDB_VERSION = "1.5.5"
HERE = Path(__file__).resolve().parent


def extension_dir() -> Path:
    """NEWSFLOW_DUCKDB_EXTENSIONS (as newsflow reads it), else the install's .duckdb/extensions."""
    base = os.environ.get("NEWSFLOW_DUCKDB_EXTENSIONS") or str(HERE.parent.parent / ".duckdb" / "extensions")
    return Path(base) / f"v{DUCKDB_VERSION}"


def connect(warehouse: str | os.PathLike[str], extensions: str | os.PathLike[str] | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the lake of `warehouse` (a newsflow data dir) attached read-only as `lake` and in use."""
    if duckdb.__version__ != DUCKDB_VERSION:
        raise SystemExit(f"duckdb {duckdb.__version__} is installed; the lake and its extension files are DuckDB {DUCKDB_VERSION}'s: pip install -r {HERE / 'requirements.txt'}")
    wh = Path(warehouse).resolve()
    catalog = wh / "lake.sqlite"
    if not catalog.exists():
        raise SystemExit(f"no warehouse under {wh} ({catalog} is created by the first pipeline run)")
    ext = Path(extensions) if extensions else extension_dir()
    con = duckdb.connect(config={"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"})
    for name in ("ducklake", "sqlite_scanner"):
        f = ext / f"{name}.duckdb_extension"
        if not f.exists():
            raise SystemExit(f"{f} is missing: run `bash scripts/fetch-extensions.sh` in the newsflow install, or set NEWSFLOW_DUCKDB_EXTENSIONS")
        con.execute(f"LOAD '{f.as_posix()}'")
    q = lambda s: "'" + s.replace("'", "''") + "'"  # noqa: E731
    con.execute(f"ATTACH {q('ducklake:sqlite:' + catalog.as_posix())} AS lake (DATA_PATH {q((wh / 'lake').as_posix() + '/')}, READ_ONLY)")
    con.execute("USE lake")
    return con

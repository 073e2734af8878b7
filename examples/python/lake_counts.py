"""The rows of every landed table, and articles per day and language, read from a newsflow lake
with DuckDB and polars, offline (see newsflow_lake.py).

    python3 examples/python/lake_counts.py --warehouse ./data [--json]
"""

from __future__ import annotations

import argparse
import json

import polars as pl

from newsflow_lake import connect


def frame(con, sql: str) -> pl.DataFrame:
    """A query's rows as a polars DataFrame (without pyarrow: rows and column names)."""
    rel = con.sql(sql)
    return pl.DataFrame(rel.fetchall(), schema=rel.columns, orient="row")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--warehouse", default="./data", help="the newsflow data dir (its lake.sqlite and lake/)")
    ap.add_argument("--extensions", help="folder of the DuckDB extension files (default: the install's .duckdb/extensions/v1.5.5)")
    ap.add_argument("--json", action="store_true", help="one JSON object: table -> rows")
    a = ap.parse_args()
    con = connect(a.warehouse, a.extensions)
    tables = [r[0] for r in con.sql("SELECT table_name FROM information_schema.tables WHERE table_catalog = 'lake' AND table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
    counts = {t: con.sql(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    if a.json:
        print(json.dumps(counts))
        return
    with pl.Config(tbl_rows=-1):
        print(pl.DataFrame({"table": list(counts), "rows": list(counts.values())}))
        per_day = frame(con, "SELECT pub_date, language FROM articles")
        if per_day.height:
            print(per_day.group_by(pl.col("pub_date").dt.date().alias("day"), "language").len().sort("day", "len", descending=[False, True]).head(20))


if __name__ == "__main__":
    main()

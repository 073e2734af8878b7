import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DuckDBInstance } from '@duckdb/node-api';
import { DUCKDB_VERSION, EXTENSIONS, ExtensionMissing, extensionFile, loadExtensions } from '../../warehouse/extensions.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nf-ext-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

async function connect() {
  // autoinstall/autoload off: a LOAD that worked came from our file, not from the network
  const db = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  return db.connect();
}

describe('DuckDB extensions unpacked at install', () => {
  it('are pinned for the DuckDB that @duckdb/node-api embeds', async () => {
    const c = await connect();
    const v = (await c.runAndReadAll('SELECT version() AS v')).getRowObjectsJS()[0]!.v;
    expect(v).toBe(`v${DUCKDB_VERSION}`);
  });

  it('every pinned extension file is present and loads from its path', async () => {
    const c = await connect();
    for (const name of EXTENSIONS) expect(fs.existsSync(extensionFile(name)), name).toBe(true);
    await loadExtensions(c, EXTENSIONS);
    const loaded = (await c.runAndReadAll('SELECT extension_name FROM duckdb_extensions() WHERE loaded')).getRowObjectsJS().map((r) => r.extension_name);
    for (const name of EXTENSIONS) expect(loaded).toContain(name);
  });

  it('a DuckLake with a SQLite catalog takes a table and MERGE INTO, and its data are Parquet files', async () => {
    const c = await connect();
    await loadExtensions(c, ['ducklake', 'sqlite_scanner']);
    await c.run(`ATTACH 'ducklake:sqlite:${tmp}/catalog.sqlite' AS lake (DATA_PATH '${tmp}/lake/')`);
    await c.run('CREATE TABLE lake.t (k INTEGER, v VARCHAR)');
    await c.run("INSERT INTO lake.t VALUES (1, 'a'), (2, 'b')");
    await c.run(
      "MERGE INTO lake.t USING (SELECT 2 AS k, 'B' AS v UNION ALL SELECT 3, 'c') s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v)",
    );
    const rows = (await c.runAndReadAll('SELECT k, v FROM lake.t ORDER BY k')).getRowObjectsJS();
    expect(rows).toEqual([
      { k: 1, v: 'a' },
      { k: 2, v: 'B' },
      { k: 3, v: 'c' },
    ]);
    const parquet = fs
      .readdirSync(path.join(tmp, 'lake'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.parquet'));
    expect(parquet.length).toBeGreaterThan(0);
  });

  it('a missing extension file is a clear error naming the fix, not a download', async () => {
    const c = await connect();
    const err = await loadExtensions(c, ['vss'], { NEWSFLOW_DUCKDB_EXTENSIONS: path.join(tmp, 'none') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtensionMissing);
    expect(String((err as Error).message)).toMatch(/fetch-extensions\.sh/);
  });
});

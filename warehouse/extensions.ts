/**
 * DuckDB's official extensions, as `npm ci` unpacked them (scripts/fetch-extensions.sh: the PyPI
 * wheels `duckdb-extension-<name>` for the embedded DuckDB, hash-pinned) under
 * `.duckdb/extensions/v<version>/`. Loaded by path: nothing is downloaded at run time, and
 * DuckDB's own autoinstall stays off.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { packageRoot } from '../lib/package-root.js';

/** The DuckDB version the extensions are pinned for (the one @duckdb/node-api embeds). */
export const DUCKDB_VERSION = '1.5.5';
export const EXTENSIONS = ['ducklake', 'sqlite_scanner', 'postgres_scanner', 'httpfs', 'fts', 'vss'] as const;
export type ExtensionName = (typeof EXTENSIONS)[number];

/** Where the extension files are: `NEWSFLOW_DUCKDB_EXTENSIONS` or `.duckdb/extensions` of the install. */
export function extensionDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.NEWSFLOW_DUCKDB_EXTENSIONS ?? path.join(packageRoot(), '.duckdb', 'extensions'), `v${DUCKDB_VERSION}`);
}

export class ExtensionMissing extends Error {
  constructor(
    readonly extension: string,
    readonly file: string,
  ) {
    super(
      `the DuckDB extension ${extension} is not installed (${file} is missing); run \`bash scripts/fetch-extensions.sh\` (npm ci runs it) on a machine that reaches PyPI`,
    );
  }
}

export function extensionFile(name: ExtensionName, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(extensionDir(env), `${name}.duckdb_extension`);
}

/** LOAD the named extensions into a connection, from their files. */
export async function loadExtensions(conn: DuckDBConnection, names: readonly ExtensionName[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  for (const name of names) {
    const file = extensionFile(name, env);
    if (!fs.existsSync(file)) throw new ExtensionMissing(name, file);
    await conn.run(`LOAD '${file.replaceAll("'", "''")}'`);
  }
}

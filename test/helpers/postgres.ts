/** PostgreSQL for tests: a database made anew (dropped if there) on the server of `pgUrl`, with the psql of the Debian install. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'vitest';
import { pgBinDir } from '../../temporal/index.js';

export function freshDatabase(pgUrl: string, db: string): void {
  const u = new URL(pgUrl);
  const r = spawnSync(
    path.join(pgBinDir(), 'psql'),
    [
      '-h',
      u.hostname,
      '-p',
      u.port,
      '-U',
      decodeURIComponent(u.username || 'postgres'),
      '-d',
      'postgres',
      '-c',
      `DROP DATABASE IF EXISTS ${db}`,
      '-c',
      `CREATE DATABASE ${db}`,
    ],
    { encoding: 'utf8', env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) } },
  );
  expect(r.status, r.stderr).toBe(0);
}

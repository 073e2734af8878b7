/** What several command groups use: the error they report, argument parsers, common options, the store, a text table. */
import { UserError } from '../../lib/errors.js';
import { withoutControls } from '../../lib/text/controls.js';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { currentProject } from '../config/current.js';
import type { Db } from '../../service/index.js';

/** A mistake of the user's: printed as `error: <message>`, exit code 1, no stack trace. */
export class CliError extends UserError {}

export const dataDirOpt = ['--data-dir <dir>', 'data directory (default: $NEWSFLOW_DATA_DIR or ./data)'] as const;
export const verboseOpt = ['--verbose', "the Temporal worker's log on stderr too (always in <data dir>/logs/worker.log)"] as const;
export const warehouseOpt = ['--warehouse <dir>', 'warehouse folder (default: the data dir)'] as const;

/** The data dir of --data-dir, else the project's (NEWSFLOW_DATA_DIR, the project file's warehouse.path, else ./data), as the service takes it. */
export const dataDirOf = (dataDir: string | undefined) => path.resolve(dataDir ?? currentProject()?.dataDir ?? './data');

/** The warehouse folder of --warehouse, else the project's (NEWSFLOW_WAREHOUSE_DIR), else the data dir (as the worker's). */
export const warehouseOf = (o: { warehouse?: string; dataDir?: string }) => path.resolve(o.warehouse ?? currentProject()?.warehouseDir ?? dataDirOf(o.dataDir));

/** the worker's /metrics and /healthz port (over metrics.port of the project file and NEWSFLOW_METRICS_PORT) */
export const metricsPortOpt = [
  '--metrics-port <port>',
  "serve the worker's /metrics (Prometheus text: newsflow's and Temporal's), /healthz and the /status page on this port (0: any free port)",
  (v: string) => intArg('--metrics-port')(v),
] as const;

export const intArg = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`${name} must be an integer 0-65535`);
  return n;
};
export const floatArg = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};
export const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** The service store of the data dir, open for `fn` and closed after. */
export async function withStore<T>(dataDir: string | undefined, fn: (db: Db) => Promise<T>): Promise<T> {
  const { Db, storeFile } = await import('../../service/index.js');
  const db = await Db.open(storeFile(dataDirOf(dataDir)));
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

/** Text from outside (a feed's title, an error a server gave) as printed: no control character, no terminal escape (lib/text/controls.ts). */
export const printable = (s: string): string => withoutControls(s);

/** One JSON line as printed: JSON escapes C0 itself; C1, DEL and bidirectional controls are escaped too (a terminal may act on them). */
export const printableJson = (v: unknown): string =>
  JSON.stringify(v).replace(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

export function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown) => printable(v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join(',') : String(v));
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
}

/**
 * `newsflow usage`: what the pipelines cost against the API, from `_loads` (read-only, safe while
 * pipelines land): per pipeline, its loads, rows, API requests, retries, 429s and credits since a time.
 */
import { openReader } from '../../warehouse/read.js';
import { UserError } from '../../lib/errors.js';

export interface UsageRow {
  pipeline: string;
  kind: string;
  loads: number;
  /** rows inserted and updated; null for lake maintenance, whose loads count data files, not rows */
  rows: number | null;
  api_requests: number;
  retries: number;
  http_429: number;
  credits: number;
  /** loads recorded by a writer that did not count their API usage (before the columns, or outside a worker) */
  uncounted: number;
  last_load: string | null;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `30m`, `12h`, `7d`, `2w` (or an ISO date) as the time it names before `now`; a UserError naming --since otherwise. */
export function sinceTime(text: string, now = Date.now()): Date {
  const m = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  if (m) return new Date(now - Number(m[1]) * UNITS[m[2]!]!);
  const t = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(t)) return new Date(t);
  throw new UserError(`--since "${text}": give a duration (30m, 12h, 7d, 2w) or an ISO date (2026-01-15)`);
}

export async function usageSince(warehouseDir: string, since: Date): Promise<UsageRow[]> {
  const r = await openReader(warehouseDir);
  try {
    const cols = new Set((await r.all("SELECT column_name FROM duckdb_columns() WHERE table_name = '_loads'")).map((c) => String(c.column_name)));
    if (!cols.has('api_requests'))
      throw new UserError(
        `the warehouse under ${warehouseDir} has no API usage columns yet: a worker of this version adds them when it starts (newsflow worker)`,
      );
    const iso = since.toISOString().replace('T', ' ').replace('Z', '');
    const rows = await r.all(`
      SELECT pipeline, coalesce(any_value(kind), pipeline) AS kind, count(*) AS loads, sum(rows_inserted + rows_updated) FILTER (WHERE kind IS DISTINCT FROM 'maintenance') AS rows,
             coalesce(sum(api_requests), 0) AS api_requests, coalesce(sum(retries), 0) AS retries, coalesce(sum(http_429), 0) AS http_429,
             coalesce(sum(credits), 0) AS credits, count(*) FILTER (WHERE api_requests IS NULL) AS uncounted,
             strftime(max(finished_at), '%Y-%m-%dT%H:%M:%SZ') AS last_load
        FROM _loads WHERE finished_at >= TIMESTAMP '${iso}' GROUP BY pipeline ORDER BY credits DESC, api_requests DESC, pipeline`);
    return rows.map((x) => ({
      pipeline: String(x.pipeline),
      kind: String(x.kind),
      loads: Number(x.loads),
      rows: x.rows === null || x.rows === undefined ? null : Number(x.rows),
      api_requests: Number(x.api_requests),
      retries: Number(x.retries),
      http_429: Number(x.http_429),
      credits: Number(x.credits),
      uncounted: Number(x.uncounted),
      last_load: (x.last_load as string | null) ?? null,
    }));
  } finally {
    r.close();
  }
}

/** The table `newsflow usage` prints: a line per pipeline and a total. */
export function usageTable(rows: UsageRow[], since: Date): string {
  const head = ['pipeline', 'kind', 'loads', 'rows', 'requests', 'retries', '429s', 'credits', 'last load'];
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));
  const total = rows.reduce(
    (a, r) => ({
      loads: a.loads + r.loads,
      rows: a.rows + (r.rows ?? 0),
      req: a.req + r.api_requests,
      ret: a.ret + r.retries,
      t: a.t + r.http_429,
      c: a.c + r.credits,
    }),
    { loads: 0, rows: 0, req: 0, ret: 0, t: 0, c: 0 },
  );
  const body = rows.map((r) => [
    r.pipeline,
    r.kind,
    fmt(r.loads),
    r.rows === null ? '-' : fmt(r.rows),
    fmt(r.api_requests),
    fmt(r.retries),
    fmt(r.http_429),
    fmt(r.credits),
    r.last_load ?? '',
  ]);
  body.push(['total', '', fmt(total.loads), fmt(total.rows), fmt(total.req), fmt(total.ret), fmt(total.t), fmt(total.c), '']);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const right = new Set([2, 3, 4, 5, 6, 7]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const uncounted = rows.reduce((a, r) => a + r.uncounted, 0);
  return [
    `API usage since ${since.toISOString()} (from _loads)`,
    line(head),
    ...body.map(line),
    ...(uncounted ? [`${uncounted} load(s) recorded without API usage (before the usage columns, or outside a newsflow worker): counted as 0`] : []),
  ].join('\n');
}

/**
 * The status page (`GET /status` on the worker's metrics port): the table of `newsflow status`
 * (run/status.ts) as one server-rendered HTML page, with each pipeline's freshness badge, a
 * sparkline of rows per load over the last 7 days, and a chart of API requests and 429 answers
 * per 6 hours over the same days, all from `_loads`. Inline CSS and SVG only: nothing is fetched
 * from anywhere, so it works offline and under a strict Content-Security-Policy. Every value from
 * the warehouse or the server is escaped.
 */
import type { Client } from '@temporalio/client';
import type { ScheduleDecl } from '../../temporal/schedules.js';
import { projectStatus, type ReadRows, type StatusReport } from './status.js';

/** One finished load of the last days, as the page draws it. */
export interface LoadPoint {
  pipeline: string;
  at: number;
  rows: number;
  apiRequests: number;
  http429: number;
}

const DAY = 86_400_000;
const BUCKET = 6 * 3_600_000;
export const STATUS_PAGE_DAYS = 7;

const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The finished loads of the last `days` days, oldest first. */
export async function loadPoints(rows: ReadRows, now: number, days = STATUS_PAGE_DAYS): Promise<LoadPoint[]> {
  const since = new Date(now - days * DAY).toISOString().replace('T', ' ').replace('Z', '');
  const got = await rows(
    `SELECT pipeline, epoch_ms(finished_at) AS at, rows_received AS rows, coalesce(api_requests, 0) AS req, coalesce(http_429, 0) AS r429
       FROM _loads WHERE finished_at IS NOT NULL AND finished_at >= TIMESTAMP '${since}' ORDER BY finished_at`,
  ).catch(() => []);
  return got.map((r) => ({ pipeline: String(r.pipeline), at: Number(r.at), rows: Number(r.rows), apiRequests: Number(r.req), http429: Number(r.r429) }));
}

/** A sparkline of `values` (one point each, in order) as an inline SVG; a dash with none. */
export function sparkline(values: number[], w = 160, h = 28): string {
  if (!values.length) return '<span class="none">no loads</span>';
  const max = Math.max(1, ...values);
  const step = values.length > 1 ? w / (values.length - 1) : 0;
  const pts = values.map((v, i) => `${(values.length > 1 ? i * step : w / 2).toFixed(1)},${(h - 2 - (v / max) * (h - 4)).toFixed(1)}`);
  return `<svg class="spark" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="rows per load: ${values.length} loads, at most ${max}"><polyline fill="none" stroke="#2563eb" stroke-width="1.5" points="${pts.join(' ')}"/></svg>`;
}

/** API requests and 429s per 6 hours over the last days, as an inline SVG bar chart. */
export function requestChart(points: LoadPoint[], now: number, days = STATUS_PAGE_DAYS, w = 720, h = 140): string {
  const n = Math.round((days * DAY) / BUCKET);
  const start = now - n * BUCKET;
  const req = new Array<number>(n).fill(0);
  const r429 = new Array<number>(n).fill(0);
  for (const p of points) {
    const i = Math.floor((p.at - start) / BUCKET);
    if (i < 0 || i >= n) continue;
    req[i]! += p.apiRequests;
    r429[i]! += p.http429;
  }
  const max = Math.max(1, ...req);
  const bw = w / n;
  const bars = req
    .map((v, i) => {
      const x = (i * bw).toFixed(1);
      const hr = ((v / max) * (h - 20)).toFixed(1);
      const h4 = ((r429[i]! / max) * (h - 20)).toFixed(1);
      return `<rect class="req" x="${x}" y="${(h - 14 - Number(hr)).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${hr}"/><rect class="r429" x="${x}" y="${(h - 14 - Number(h4)).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${h4}"/>`;
    })
    .join('');
  const total = req.reduce((a, b) => a + b, 0);
  const total429 = r429.reduce((a, b) => a + b, 0);
  return `<svg class="chart" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="API requests per 6 hours: ${total} requests, ${total429} answered 429">${bars}<line x1="0" y1="${h - 14}" x2="${w}" y2="${h - 14}" stroke="#999"/><text x="0" y="${h - 2}">${esc(new Date(start).toISOString().slice(0, 10))}</text><text x="${w}" y="${h - 2}" text-anchor="end">now, at most ${max} requests per 6 h</text></svg>`;
}

const ago = (ms: number | null) =>
  ms === null ? '-' : ms < 120_000 ? `${Math.round(ms / 1000)} s` : ms < 2 * 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 3_600_000).toFixed(1)} h`;

/** The page: the status table with badges and sparklines, then the API chart. */
export function statusPageHtml(report: StatusReport, points: LoadPoint[], now = Date.parse(report.at)): string {
  const byPipeline = new Map<string, number[]>();
  for (const p of points) byPipeline.set(p.pipeline, [...(byPipeline.get(p.pipeline) ?? []), p.rows]);
  const rows = report.pipelines
    .map((p) => {
      const err = p.lastRun?.error;
      const error = err ? (err.code ? `API error ${err.code}: ${err.detail ?? ''}` : err.message) : '';
      return `<tr class="pipeline">
<td>${esc(p.pipeline)}</td><td><span class="badge ${esc(p.health)}">${esc(p.health)}</span></td><td>${esc(p.state)}</td>
<td>${esc(p.lastRun ? `${p.lastRun.status} ${p.lastRun.at ?? ''}` : '-')}</td>
<td>${esc(p.lastLoad ? `${p.lastLoad.rows} rows, ${p.lastLoad.at}` : '-')}</td>
<td>${esc(ago(p.lagMs))}${p.errorAfterMs ? ` <small>(error after ${esc(ago(p.errorAfterMs))})</small>` : ''}</td>
<td>${p.failuresInRow}</td><td>${sparkline(byPipeline.get(p.pipeline) ?? [])}</td><td class="err">${esc(error.slice(0, 300))}</td></tr>`;
    })
    .join('\n');
  const src = report.sources;
  const sources = src
    ? `<p>Feed sources: <span class="badge ${esc(src.health)}">${esc(src.health)}</span> ${esc(
        Object.entries(src.byStatus)
          .map(([k, v]) => `${v} ${k}`)
          .join(', '),
      )} of ${src.total}${src.failingForADay.length ? `; failing for a day: ${esc(src.failingForADay.join(', '))}` : ''}</p>`
    : '';
  const verdict = report.exitCode === 0 ? 'healthy' : report.exitCode === 1 ? 'failing' : 'stale';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>newsflow status: ${verdict}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#111}
h1{font-size:20px;margin:0 0 4px}
table{border-collapse:collapse;margin:12px 0}
th,td{border-bottom:1px solid #ddd;padding:6px 10px;text-align:left;vertical-align:middle}
th{background:#f4f4f5}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-weight:600}
.ok{background:#16a34a}.late{background:#ca8a04}.stale{background:#ea580c}.failing{background:#dc2626}.paused{background:#6b7280}
.err{color:#b91c1c;max-width:360px}
.none{color:#888}
svg.chart rect.req{fill:#93c5fd}svg.chart rect.r429{fill:#dc2626}svg.chart text{font-size:11px;fill:#555}
</style></head><body>
<h1>newsflow status: <span class="badge ${verdict === 'healthy' ? 'ok' : verdict}">${verdict}</span></h1>
<p>At ${esc(report.at)}; the same report as <code>newsflow status</code> (exit ${report.exitCode}).</p>
<table id="pipelines"><thead><tr><th>pipeline</th><th>health</th><th>schedule</th><th>last run</th><th>last load</th><th>lag</th><th>failures in a row</th><th>rows per load, ${STATUS_PAGE_DAYS} days</th><th>last error</th></tr></thead>
<tbody>
${rows}
</tbody></table>
${sources}
<h2>API requests per 6 hours, ${STATUS_PAGE_DAYS} days <small>(blue: requests, red: answered 429)</small></h2>
${requestChart(points, now)}
</body></html>
`;
}

/** The page of the project's schedules `decls`, from the Temporal server of `client` and the warehouse rows of `rows`. */
export function statusPage(client: () => Promise<Client>, decls: ScheduleDecl[]): (rows: ReadRows) => Promise<string> {
  return async (rows) => {
    const now = Date.now();
    const report = await projectStatus(await client(), decls, rows, now);
    return statusPageHtml(report, await loadPoints(rows, now), now);
  };
}

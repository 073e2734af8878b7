/**
 * The worker's Prometheus metrics and health (docs/operations.md lists every metric): with a
 * metrics port set (`metrics: { port }` in the project file, NEWSFLOW_METRICS_PORT or
 * `--metrics-port`), one HTTP server on it answers
 *   GET /metrics  newsflow's metrics (prom-client) followed by the Temporal SDK's own `temporal_*`
 *                 (its Runtime serves them on a loopback port of its own, read on each scrape);
 *   GET /healthz  200 while every Temporal worker of the process runs, else 503 naming them.
 * newsflow's metrics come from the worker's API client (its events: requests, retries) and the
 * warehouse (landings and recorded loads, the sources table): activities know nothing of them.
 */
import http from 'node:http';
import net from 'node:net';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { ROUTES } from '../../spec/index.js';
import type { ClientEvent } from '../../client/index.js';
import type { LoadChecksRecord, LoadCounts, LoadMeta, Warehouse } from '../../warehouse/warehouse.js';

const GROUP_OF = new Map<string, string>(ROUTES.map((r) => [r.operationId, r.limit ?? 'none']));
/** landings of loads not recorded yet, kept per load id until their load is (bounded: a failed load never is) */
const PENDING_LOADS = 1000;
/** the sources gauge is read from the warehouse at most this often (a scrape every 15 s reads it once a minute) */
const SOURCES_TTL_MS = 60_000;

export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly apiRequests: Counter<'group' | 'operation' | 'status'>;
  private readonly apiRetries: Counter<'group' | 'operation' | 'status'>;
  private readonly rowsLanded: Counter<'pipeline' | 'table' | 'count'>;
  private readonly loadRows: Counter<'pipeline' | 'kind' | 'count'>;
  private readonly loads: Counter<'pipeline' | 'kind'>;
  private readonly lastSuccess: Gauge<'pipeline' | 'kind'>;
  private readonly checkFailures: Counter<'pipeline' | 'kind' | 'check'>;
  /** per load id not recorded yet: rows landed per table */
  private readonly pending = new Map<string, Map<string, LoadCounts>>();
  /** per load id recorded by this process: its counts (a load recorded again adds only the difference) */
  private readonly recordedCounts = new Map<string, LoadCounts>();
  private sources: { at: number; byStatus: Map<string, number> } | null = null;
  private warehouse: Warehouse | null = null;

  constructor(opts: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.apiRequests = new Counter({
      name: 'newsflow_api_requests_total',
      help: 'API requests the worker made, by limiter group, operation and HTTP status ("error": no answer, a network error or timeout)',
      labelNames: ['group', 'operation', 'status'],
      registers,
    });
    this.apiRetries = new Counter({
      name: 'newsflow_api_retries_total',
      help: "API requests the worker's client retried, by limiter group, operation and the status that made it retry (429 included)",
      labelNames: ['group', 'operation', 'status'],
      registers,
    });
    this.rowsLanded = new Counter({
      name: 'newsflow_rows_landed_total',
      help: 'rows landed into a table by recorded loads, by pipeline, table and count (received, inserted, updated); counted when the load is recorded in _loads',
      labelNames: ['pipeline', 'table', 'count'],
      registers,
    });
    this.loadRows = new Counter({
      name: 'newsflow_load_rows_total',
      help: "the rows of the loads recorded in _loads, by pipeline, kind and count (received, inserted, updated): sums of _loads' rows_* columns",
      labelNames: ['pipeline', 'kind', 'count'],
      registers,
    });
    this.loads = new Counter({
      name: 'newsflow_loads_total',
      help: 'loads recorded in _loads by this worker, by pipeline and kind',
      labelNames: ['pipeline', 'kind'],
      registers,
    });
    this.lastSuccess = new Gauge({
      name: 'newsflow_pipeline_last_success_timestamp_seconds',
      help: 'when the last load of the pipeline was recorded (Unix seconds; from _loads at start, then as loads are recorded)',
      labelNames: ['pipeline', 'kind'],
      registers,
    });
    this.checkFailures = new Counter({
      name: 'newsflow_check_failures_total',
      help: "loads whose checks (the project file's checks:) failed, by pipeline, kind and check (min_rows, invariants); each failed its run",
      labelNames: ['pipeline', 'kind', 'check'],
      registers,
    });
    const byStatus = () => this.sourcesByStatus();
    new Gauge({
      name: 'newsflow_sources',
      help: 'feed and sitemap sources by status (new, ok, failing, ...), from the sources table (read at most once a minute)',
      labelNames: ['status'],
      registers,
      async collect() {
        const by = await byStatus();
        this.reset();
        for (const [status, n] of by) this.set({ status }, n);
      },
    });
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** The worker client's events (NewsClientOptions.onEvent). */
  clientEvent(e: ClientEvent): void {
    if (e.type === 'response') this.apiRequests.inc({ group: GROUP_OF.get(e.operationId) ?? 'none', operation: e.operationId, status: String(e.status) });
    else if (e.type === 'retry') {
      const labels = { group: GROUP_OF.get(e.operationId) ?? 'none', operation: e.operationId, status: e.status === null ? 'error' : String(e.status) };
      this.apiRetries.inc(labels);
      // a request that got no answer is one request too (an answered one was counted by its response)
      if (e.status === null) this.apiRequests.inc(labels);
    }
  }

  /** Observe `w` (landings, recorded loads, sources) and read each pipeline's last load from `_loads`. */
  async watch(w: Warehouse): Promise<() => void> {
    this.warehouse = w;
    const off = w.observe({ landed: (t, id, c) => this.landed(t, id, c), recorded: (m, c, k) => this.recorded(m, c, k) });
    // (a load whose checks failed is no success: newsflow status does not count it either)
    const last = await w.query<{ pipeline: string; kind: string | null; at: number }>(
      'SELECT pipeline, any_value(kind) AS kind, epoch(max(finished_at)) AS at FROM _loads WHERE check_failed IS NULL GROUP BY pipeline',
    );
    for (const r of last) if (r.at !== null) this.lastSuccess.set({ pipeline: r.pipeline, kind: r.kind ?? r.pipeline }, Number(r.at));
    return off;
  }

  private landed(table: string, loadId: string, c: LoadCounts): void {
    let tables = this.pending.get(loadId);
    if (!tables) {
      if (this.pending.size >= PENDING_LOADS) this.pending.delete(this.pending.keys().next().value!);
      this.pending.set(loadId, (tables = new Map()));
    }
    const had = tables.get(table);
    tables.set(table, had ? { received: had.received + c.received, inserted: had.inserted + c.inserted, updated: had.updated + c.updated } : { ...c });
  }

  private recorded(meta: LoadMeta, c: LoadCounts, checks?: LoadChecksRecord): void {
    const was = this.recordedCounts.get(meta.loadId);
    if (!was && checks?.failed) for (const r of checks.results) if (!r.ok) this.checkFailures.inc({ pipeline: meta.pipeline, kind: meta.kind, check: r.check });
    if (!was) {
      this.loads.inc({ pipeline: meta.pipeline, kind: meta.kind });
      if (this.recordedCounts.size >= PENDING_LOADS) this.recordedCounts.delete(this.recordedCounts.keys().next().value!);
    }
    this.recordedCounts.set(meta.loadId, { ...c });
    for (const k of ['received', 'inserted', 'updated'] as const) {
      const d = c[k] - (was?.[k] ?? 0);
      if (d > 0) this.loadRows.inc({ pipeline: meta.pipeline, kind: meta.kind, count: k }, d);
    }
    if (!checks?.failed) this.lastSuccess.set({ pipeline: meta.pipeline, kind: meta.kind }, Date.now() / 1000);
    const tables = this.pending.get(meta.loadId);
    this.pending.delete(meta.loadId);
    for (const [table, t] of tables ?? [])
      for (const k of ['received', 'inserted', 'updated'] as const) if (t[k] > 0) this.rowsLanded.inc({ pipeline: meta.pipeline, table, count: k }, t[k]);
  }

  private async sourcesByStatus(): Promise<Map<string, number>> {
    if (!this.warehouse) return new Map();
    if (this.sources && Date.now() - this.sources.at < SOURCES_TTL_MS) return this.sources.byStatus;
    const rows = await this.warehouse
      .query<{ status: string; n: bigint | number }>('SELECT status, count(*) AS n FROM sources GROUP BY status')
      .catch(() => []);
    this.sources = { at: Date.now(), byStatus: new Map(rows.map((r) => [r.status, Number(r.n)])) };
    return this.sources.byStatus;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

/** A free TCP port on loopback now (for the Temporal Runtime's own exporter, which needs a fixed one). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * Serve /metrics (ours, then Temporal's from `temporalUrl`), /healthz (`health()`) and /status (`statusPage()`, when given) on
 * host:port (port 0: any free one). A port taken is one line naming it and the setting.
 */
export function serveMetrics(opts: {
  port: number;
  host: string;
  metrics: WorkerMetrics;
  temporalUrl?: string;
  health: () => { ok: boolean; detail: string };
  /** the HTML of GET /status (run/status-page.ts), when the worker has one */
  statusPage?: () => Promise<string>;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    const send = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return send(405, 'application/json', JSON.stringify({ code: 405000, detail: `method ${req.method} is not allowed on ${url}; allowed: GET` }));
    if (url === '/healthz') {
      const h = opts.health();
      return send(h.ok ? 200 : 503, 'application/json', JSON.stringify(h.ok ? { status: 'ok', detail: h.detail } : { code: 503000, detail: h.detail }));
    }
    if (url === '/status' && opts.statusPage) {
      void opts
        .statusPage()
        .then((html) => send(200, 'text/html; charset=utf-8', html))
        .catch((e: Error) => send(503, 'application/json', JSON.stringify({ code: 503000, detail: `status: ${e.message}` })));
      return;
    }
    if (url !== '/metrics')
      return send(
        404,
        'application/json',
        JSON.stringify({ code: 404000, detail: `no route GET ${url}; routes: /metrics, /healthz${opts.statusPage ? ', /status' : ''}` }),
      );
    void (async () => {
      let text = await opts.metrics.text();
      if (opts.temporalUrl) text += await temporalText(opts.temporalUrl);
      send(200, opts.metrics.registry.contentType, text);
    })().catch((e: Error) => send(500, 'application/json', JSON.stringify({ code: 500000, detail: `metrics: ${e.message}` })));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        new Error(
          e.code === 'EADDRINUSE'
            ? `the worker's metrics port ${opts.host}:${opts.port} is in use: set another with metrics.port in the project file, NEWSFLOW_METRICS_PORT or --metrics-port`
            : `the worker's metrics server cannot listen on ${opts.host}:${opts.port}: ${e.message}`,
        ),
      ),
    );
    server.listen(opts.port, opts.host, () => {
      const { port } = server.address() as net.AddressInfo;
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The Temporal Runtime's exposition, or a comment saying why not (a scrape never fails for it). */
async function temporalText(url: string): Promise<string> {
  try {
    const r = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(2000) });
    if (!r.ok) return `# temporal metrics: HTTP ${r.status} from the SDK's exporter\n`;
    const t = await r.text();
    return t.endsWith('\n') ? t : `${t}\n`;
  } catch (e) {
    return `# temporal metrics: ${(e as Error).message}\n`;
  }
}

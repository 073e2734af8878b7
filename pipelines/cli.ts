/**
 * The `newsflow` command line: the service, its admin commands and (later) the pipelines.
 * Errors say what was wrong and how to fix it, and exit non-zero.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { buildOpenApi, PLANS, SCOPES } from '../spec/index.js';
import { Db, StoreLockedError } from '../service/store/db.js';
import { AdminInputError, KeyStore } from '../service/auth/keys.js';
import { serviceConfig, storeFile } from '../service/config.js';
import { openServices, startService } from '../service/server.js';
import { NOT_IMPLEMENTED } from '../service/routes/index.js';
import { progress } from './progress.js';
import { startWorker, temporalClient, temporalEndpoint, warehouseDir } from './runtime.js';
import { TASK_QUEUES } from './worker.js';
import { SCHEDULES, applySchedules, listOurs } from './schedules.js';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { TemporalSetupError } from './temporal.js';
import { WarehouseReadError, exportParquet, formatRows, openSnapshot, type SqlFormat } from '../warehouse/read.js';
import { CorpusError } from '../service/corpus/read.js';
import { Sampling } from '../spec/index.js';
import { canonicalFilters } from '../activities/indexCountSampler.js';

class CliError extends Error {}

/** ../shared/data beside the repository, when it is there. */
function defaultCorpus(): string | undefined {
  const p = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'shared', 'data');
  return fs.existsSync(p) ? p : undefined;
}

const intArg = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(`${name} must be an integer 0-65535`);
  return n;
};
const floatArg = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return n;
};
const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);

async function withKeys<T>(dataDir: string | undefined, fn: (keys: KeyStore) => Promise<T>): Promise<T> {
  const cfg = serviceConfig({ dataDir });
  const db = await Db.open(storeFile(cfg.dataDir));
  try {
    return await fn(new KeyStore(db));
  } finally {
    db.close();
  }
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)';
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown) => (v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join(',') : String(v));
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(width[i]!)).join('  ').trimEnd();
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c]))))].join('\n');
}

export function buildCli(): Command {
  const program = new Command('newsflow')
    .description('newsflow: news-intelligence API service and data-pipeline toolkit')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const dataDirOpt = ['--data-dir <dir>', 'data directory (default: $NEWSFLOW_DATA_DIR or ./data)'] as const;

  program
    .command('serve')
    .description('run the API service')
    .option('--port <port>', 'port (default: $NEWSFLOW_PORT or 8080)', intArg('--port'))
    .option('--host <host>', 'interface to bind (default: $NEWSFLOW_HOST or 127.0.0.1)')
    .option(...dataDirOpt)
    .option('--limits <spec>', 'rate limits, e.g. distribution=0.2:5:2,news=10:20:10 (GROUP=RATE:BURST:CONCURRENCY)')
    .option('--seed <path>', 'load a news corpus first (default: $NEWSFLOW_CORPUS)')
    .option('--rebase-dates', 'shift dates so the newest article of each source is now')
    .option('--replay <speed>', 'release articles in publication order at SPEED x real time', floatArg('--replay'))
    .action(async (o: { port?: number; host?: string; dataDir?: string; limits?: string; seed?: string; rebaseDates?: boolean; replay?: number }) => {
      await serve({ port: o.port, host: o.host, dataDir: o.dataDir, limitsText: o.limits, seed: o.seed ?? process.env.NEWSFLOW_CORPUS, rebaseDates: o.rebaseDates, replay: o.replay });
    });

  program
    .command('seed')
    .description('load a news corpus into the service store (idempotent: unchanged articles are skipped)')
    .option('--corpus <path>', 'corpus directory or file (default: $NEWSFLOW_CORPUS)')
    .option('--rebase-dates', 'shift dates so the newest article of each source is now, keeping spacing')
    .option(...dataDirOpt)
    .option('--json', 'print the result as JSON')
    .action(async (o: { corpus?: string; rebaseDates?: boolean; dataDir?: string; json?: boolean }) => {
      const corpus = o.corpus ?? process.env.NEWSFLOW_CORPUS;
      if (!corpus) throw new CliError('no corpus: pass --corpus PATH (for example ../shared/data) or set NEWSFLOW_CORPUS');
      const cfg = serviceConfig({ dataDir: o.dataDir });
      const services = await openServices(cfg);
      try {
        const bar = progress('seed');
        const r = await services.news!.seed(corpus, { rebaseDates: o.rebaseDates, onProgress: (d, t, ph) => bar.update(d, t, ph) });
        bar.stop();
        console.log(o.json ? JSON.stringify(r) : `read ${r.read}, enriched ${r.enriched} (${r.inserted} new, ${r.updated} updated), unchanged ${r.unchanged}; store holds ${r.total} articles, ${r.indexed} indexed`);
      } finally {
        await services.news?.close();
        services.db.close();
      }
    });

  program
    .command('start')
    .description('the main job: the service (corpus in replay), a Temporal dev server, the worker, the schedules; each pipeline triggered once')
    .option('--port <port>', 'service port', intArg('--port'))
    .option('--corpus <path>', 'news corpus (default: $NEWSFLOW_CORPUS, else ../shared/data beside the repo)')
    .option('--replay <speed>', 'replay speed: corpus time per real time', floatArg('--replay'), 3600)
    .option(...dataDirOpt)
    .action(async (o: { port?: number; dataDir?: string; corpus?: string; replay: number }) => {
      await mainJob(o);
    });

  const orgs = program.command('orgs').description('organizations');
  orgs
    .command('create')
    .description('create an organization owning domains')
    .requiredOption('--name <name>', 'organization name')
    .option('--domains <list>', 'comma-separated domains it owns, e.g. a.com,b.com', list, [])
    .option('--publisher', 'a publisher organization (distribution, news search, article lookup and DeepNews only)')
    .option('--plan <plan>', `plan of its keys: ${PLANS.join(', ')}`, 'enterprise')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { name: string; domains: string[]; publisher?: boolean; plan: string; dataDir?: string; json?: boolean }) => {
      const org = await withKeys(o.dataDir, (k) => k.createOrg({ name: o.name, domains: o.domains, publisher: o.publisher, plan: o.plan }));
      console.log(o.json ? JSON.stringify(org) : `created organization ${org.name} (${org.id}) domains=${org.domains.join(',') || '-'} publisher=${org.publisher}`);
    });
  orgs
    .command('list')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const rows = await withKeys(o.dataDir, (k) => k.listOrgs());
      console.log(o.json ? JSON.stringify(rows) : table(rows.map((r) => ({ id: r.id, name: r.name, domains: r.domains, publisher: r.publisher, plan: r.plan }))));
    });

  const keys = program.command('keys').description('API keys (stored hashed; the key is printed once)');
  keys
    .command('create')
    .description('create an API key')
    .requiredOption('--name <name>', 'a label for the key')
    .option('--org <org>', 'organization name or id (an organization key); without it a personal key')
    .requiredOption('--scopes <list>', `comma-separated scopes: ${SCOPES.join(', ')}`, list)
    .option('--plan <plan>', `plan: ${PLANS.join(', ')} (default: the organization's, else free)`)
    .option('--legacy', 'a key from before the distribution scope existed (never carries it)')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { name: string; org?: string; scopes: string[]; plan?: string; legacy?: boolean; dataDir?: string; json?: boolean }) => {
      const { id, key, row } = await withKeys(o.dataDir, (k) => k.createKey(o));
      if (o.json) {
        console.log(JSON.stringify({ id, key, name: row.name, org: row.org_name, scopes: row.scopes, plan: row.plan, legacy: row.legacy }));
      } else {
        console.log(`created key ${id} (${row.name}) scopes=${row.scopes.join(',')} plan=${row.plan}${row.org_name ? ` org=${row.org_name}` : ' personal'}${row.legacy ? ' legacy' : ''}`);
        console.log(`\n  ${key}\n\nThis is the only time the key is shown: it is stored hashed.`);
      }
    });
  keys
    .command('list')
    .option(...dataDirOpt)
    .option('--json', 'print JSON')
    .action(async (o: { dataDir?: string; json?: boolean }) => {
      const rows = await withKeys(o.dataDir, (k) => k.listKeys());
      const view = rows.map((r) => ({
        id: r.id, name: r.name, prefix: `${r.key_prefix}…`, org: r.org_name, scopes: r.scopes, plan: r.plan,
        legacy: r.legacy, created: r.created_at, revoked: r.revoked_at,
      }));
      console.log(o.json ? JSON.stringify(view) : table(view));
    });
  keys
    .command('revoke <id>')
    .option(...dataDirOpt)
    .action(async (id: string, o: { dataDir?: string }) => {
      const ok = await withKeys(o.dataDir, (k) => k.revokeKey(id));
      if (!ok) throw new CliError(`no key with id ${id}; list them with: newsflow keys list`);
      console.log(`revoked ${id}`);
    });

  program
    .command('simulate <what>')
    .description('write a synthetic hit history (what: hits), marked synthetic in the store: events spread Zipf-like (s = 1.1) over a seeded ordering of the articles; kinds 70% surface, 15% citation, 10% full_text, 5% grounded')
    .option('--months <n>', 'months back from today', intArg('--months'), 6)
    .option('--seed <n>', 'random seed (the same seed writes the same history)', intArg('--seed'), 1)
    .option('--events-per-day <n>', 'events per day', intArg('--events-per-day'), 2000)
    .option(...dataDirOpt)
    .action(async (what: string, o: { months: number; seed: number; eventsPerDay: number; dataDir?: string }) => {
      if (what !== 'hits') throw new CliError(`unknown simulation "${what}"; use: newsflow simulate hits`);
      const { Db } = await import('../service/store/db.js');
      const { DistributionStore } = await import('../service/store/distribution.js');
      const db = await Db.open(storeFile(serviceConfig({ dataDir: o.dataDir }).dataDir));
      try {
        const r = await new DistributionStore(db).simulate({ months: o.months, seed: o.seed, eventsPerDay: o.eventsPerDay, now: new Date() });
        console.log(JSON.stringify(r));
      } catch (e) {
        throw new CliError((e as Error).message);
      } finally {
        db.close();
      }
    });

  program
    .command('worker')
    .description('run the Temporal worker (all workflows and activities); stops cleanly on SIGINT/SIGTERM')
    .option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => {
      const dataDir = serviceConfig({ dataDir: o.dataDir }).dataDir;
      const endpoint = await temporalEndpoint({ dataDir, log: (m) => console.error(m) });
      const w = await startWorker({ endpoint, dataDir });
      console.log(`worker running on ${endpoint.address}${endpoint.uiUrl ? ` (Temporal UI ${endpoint.uiUrl})` : ''}; warehouse ${warehouseDir(dataDir)}`);
      const stop = async () => {
        await w.stop();
        await endpoint.stop();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop());
      process.once('SIGTERM', () => void stop());
      await w.running;
    });

  program
    .command('run <pipeline>')
    .description('run a pipeline once now and wait for it (pipelines: news-ingest, distribution, index-counts, story-tracker)')
    .option('--from <time>', 'window start (ISO date or date-time, UTC); all but story-tracker')
    .option('--to <time>', 'window end (ISO date or date-time, UTC); all but story-tracker')
    .option('--trackers <json>', 'story-tracker: JSON array of trackers, e.g. \'[{"name":"top","strategy":"topstories","stories":20}]\'')
    .option('--query <q>', 'news-ingest: search query (default: every article in the window)', '')
    .option('--domains <list>', 'distribution: comma-separated domains of your organization', list)
    .option('--sampling <s>', 'index-counts: bucket size 5m, 1h, 12h, 1d, 1w or 1m; with --domains one series per domain, else one over every domain', '1d')
    .option('--filters <json>', 'index-counts: index_counts filters as JSON, e.g. \'{"languages":["en"],"time_filter":"crawl_date"}\'')
    .option('--page-size <n>', 'rows per page (news-ingest 1-101, distribution 1-100)', intArg('--page-size'), 100)
    .option(...dataDirOpt)
    .action(async (pipeline: string, o: { from?: string; to?: string; query: string; domains?: string[]; pageSize: number; sampling: string; filters?: string; trackers?: string; dataDir?: string }) => {
      if (!['news-ingest', 'distribution', 'index-counts', 'story-tracker'].includes(pipeline)) throw new CliError(`unknown pipeline "${pipeline}"; pipelines: news-ingest, distribution, index-counts, story-tracker`);
      if (pipeline === 'story-tracker') {
        let trackers: unknown;
        try {
          trackers = o.trackers ? JSON.parse(o.trackers) : undefined;
        } catch (e) {
          throw new CliError(`--trackers is not JSON (${(e as Error).message}); e.g. --trackers '[{"name":"top","strategy":"topstories","stories":20}]'`);
        }
        if (trackers !== undefined && (!Array.isArray(trackers) || !trackers.every((t) => t && typeof t === 'object' && typeof t.name === 'string'))) {
          throw new CliError('--trackers must be a JSON array of objects with a "name", e.g. [{"name":"ukraine","query":"Ukraine war","method":"both"}]');
        }
        await runOnce(o.dataDir, 'storyTracker', TASK_QUEUES.stories, trackers ? { trackers } : {},
          (p: { done: number; trackers: number; stories: number }) => [p.done, p.trackers, `${p.stories} stories`]);
        return;
      }
      if (!o.from || !o.to) throw new CliError(`--from and --to are required for ${pipeline}, e.g. --from 2022-07-01 --to 2022-07-11`);
      const from = Date.parse(o.from);
      const to = Date.parse(o.to);
      if (Number.isNaN(from) || Number.isNaN(to)) throw new CliError('--from and --to must be ISO dates, e.g. 2026-01-15 or 2026-01-15T06:00:00Z');
      if (to < from) throw new CliError(`--from (${o.from}) is after --to (${o.to})`);
      const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
      if (pipeline === 'index-counts') {
        if (!Sampling.safeParse(o.sampling).success) throw new CliError(`unknown --sampling "${o.sampling}"; samplings: ${Sampling.options.join(', ')}`);
        let filters: Record<string, unknown> = {};
        try {
          filters = o.filters ? JSON.parse(o.filters) : {};
          canonicalFilters(filters);
        } catch (e) {
          throw new CliError(`--filters: ${(e as Error).message}; e.g. --filters '{"languages":["en"],"categories":["Politics"]}'`);
        }
        await runOnce(o.dataDir, 'indexCountSampler', TASK_QUEUES.news, { sampling: o.sampling, domains: o.domains, filters, ...window },
          (p: { done: number; domains: number; buckets: number }) => [p.done, p.domains, `${p.buckets} buckets`]);
        return;
      }
      if (pipeline === 'news-ingest') {
        if (o.pageSize < 1 || o.pageSize > 101) throw new CliError('--page-size must be 1..101');
        await runOnce(o.dataDir, 'newsIngest', TASK_QUEUES.news, { query: o.query, ...window, pageSize: o.pageSize },
          (p: { pages: number; received: number }) => [p.received, Math.max(p.received, 1), `${p.pages} pages`]);
      } else {
        if (!o.domains?.length) throw new CliError('--domains is required for distribution, e.g. --domains a.com,b.com');
        if (o.pageSize < 1 || o.pageSize > 100) throw new CliError('--page-size must be 1..100 for distribution');
        await runOnce(o.dataDir, 'distributionPull', TASK_QUEUES.distribution, { domains: o.domains, ...window, pageSize: o.pageSize },
          (p: { windowIndex: number; windows: number; totalPages: number }) => [p.windowIndex, p.windows, `${p.totalPages} pages`]);
      }
    });

  const schedule = program.command('schedule').description('Temporal schedules declared in pipelines/schedules.ts');
  const withTemporal = async <T>(dataDir: string | undefined, fn: (c: Awaited<ReturnType<typeof temporalClient>>) => Promise<T>): Promise<T> => {
    if (!process.env.TEMPORAL_ADDRESS) throw new CliError('set TEMPORAL_ADDRESS to the Temporal server (newsflow start prints it), e.g. TEMPORAL_ADDRESS=127.0.0.1:7233');
    const ep = await temporalEndpoint({ dataDir: serviceConfig({ dataDir }).dataDir });
    return fn(await temporalClient(ep));
  };
  schedule.command('apply').description('make the server\'s schedules match the declaration (idempotent)').option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => console.log(JSON.stringify(await withTemporal(o.dataDir, (c) => applySchedules(c)))));
  schedule.command('list').option(...dataDirOpt).action(async (o: { dataDir?: string }) => {
    const rows = await withTemporal(o.dataDir, async (c) => Promise.all((await listOurs(c)).map(async (s) => {
      const d = await c.schedule.getHandle(s.id).describe();
      return { id: s.id, paused: d.state.paused, next: d.info.nextActionTimes[0] ?? null, recent: d.info.recentActions.length };
    })));
    console.log(table(rows));
  });
  schedule.command('trigger <id>').option(...dataDirOpt).action(async (id: string, o: { dataDir?: string }) => {
    await withTemporal(o.dataDir, (c) => c.schedule.getHandle(id).trigger());
    console.log(`triggered ${id}`);
  });
  schedule.command('backfill <id>').requiredOption('--from <time>').requiredOption('--to <time>').option(...dataDirOpt)
    .action(async (id: string, o: { from: string; to: string; dataDir?: string }) => {
      const start = new Date(o.from);
      const end = new Date(o.to);
      if (Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end < start) throw new CliError('--from and --to must be ISO dates with --from before --to');
      await withTemporal(o.dataDir, (c) => c.schedule.getHandle(id).backfill({ start, end, overlap: ScheduleOverlapPolicy.BUFFER_ALL }));
      console.log(`backfilling ${id} from ${start.toISOString()} to ${end.toISOString()}`);
    });
  schedule.command('delete <id>').option(...dataDirOpt).action(async (id: string, o: { dataDir?: string }) => {
    await withTemporal(o.dataDir, (c) => c.schedule.getHandle(id).delete());
    console.log(`deleted ${id}`);
  });

  const alerts = program.command('alerts').description('the alert runner: one Temporal schedule per active alert, deliveries to its triggers');
  alerts.command('sync').description('make the per-alert schedules match the active alerts now (needs TEMPORAL_ADDRESS)').option(...dataDirOpt)
    .action(async (o: { dataDir?: string }) => {
      if (!process.env.TEMPORAL_ADDRESS) throw new CliError('set TEMPORAL_ADDRESS to the Temporal server the alert schedules live on (newsflow start prints it)');
      const dataDir = serviceConfig({ dataDir: o.dataDir }).dataDir;
      const endpoint = await temporalEndpoint({ dataDir });
      // a worker of our own unless one already runs on this data dir (it holds the warehouse)
      let w: Awaited<ReturnType<typeof startWorker>> | null = null;
      try {
        w = await startWorker({ endpoint, dataDir });
      } catch (e) {
        if (!/lock/i.test((e as Error).message)) throw e;
      }
      const client = await temporalClient(endpoint);
      try {
        const handle = await client.workflow.start('alertSync', { taskQueue: TASK_QUEUES.alerts, workflowId: `alerts-sync-manual-${Date.now()}`, args: [] });
        const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new CliError(
          `no worker picked up the sync within 60 s on task queue ${TASK_QUEUES.alerts}; start one with "newsflow worker" (or "newsflow start")`)), 60_000).unref());
        const r = await Promise.race([handle.result(), timeout]).catch(async (e) => {
          await handle.terminate('no worker').catch(() => undefined);
          throw e;
        });
        console.log(JSON.stringify(r));
      } finally {
        await w?.stop();
        await client.connection.close();
      }
    });
  alerts.command('status').description('alerts with their schedule, last run and deliveries (from the warehouse; schedules when TEMPORAL_ADDRESS is set)')
    .option('--warehouse <dir>', 'warehouse folder (default: the data dir)').option(...dataDirOpt)
    .action(async (o: { warehouse?: string; dataDir?: string }) => {
      const dir = o.warehouse ? path.resolve(o.warehouse) : warehouseDir(serviceConfig({ dataDir: o.dataDir }).dataDir);
      const db = await openSnapshot(dir);
      const rows = await db.all(`
        SELECT a.alert_id::VARCHAR AS alert_id, coalesce(a.title, a.query) AS title, a.cron, a.active, a.deleted,
          (SELECT max(l.created_at) FROM alert_logs l WHERE l.alert_id = a.alert_id) AS last_run,
          (SELECT count(*) FROM alert_logs l WHERE l.alert_id = a.alert_id AND l.alert) AS triggered,
          (SELECT count(*) FROM alert_deliveries d WHERE d.alert_id = a.alert_id AND d.status = 'delivered') AS delivered,
          (SELECT count(*) FROM alert_deliveries d WHERE d.alert_id = a.alert_id AND d.status IN ('pending', 'failed')) AS owed,
          (SELECT count(*) FROM alert_deliveries d WHERE d.alert_id = a.alert_id AND d.status = 'skipped') AS skipped
        FROM alerts a ORDER BY a.deleted, a.created_at`);
      db.close();
      if (process.env.TEMPORAL_ADDRESS) {
        const c = await temporalClient(await temporalEndpoint({ dataDir: serviceConfig({ dataDir: o.dataDir }).dataDir }));
        for (const r of rows) {
          try {
            const d = await c.schedule.getHandle(`alert-${r.alert_id}`).describe();
            r.schedule = `alert-${r.alert_id}`;
            r.next_run = d.info.nextActionTimes[0] ?? null;
          } catch {
            r.schedule = '(none)';
            r.next_run = null;
          }
        }
        await c.connection.close();
      } else {
        for (const r of rows) r.schedule = '(set TEMPORAL_ADDRESS)';
      }
      console.log(table(rows.map((r) => ({ ...r, alert_id: String(r.alert_id).slice(0, 8) }))));
    });

  program
    .command('sql [query]')
    .description('run SQL on the warehouse (a REPL without a query); safe while pipelines are landing')
    .option('--format <f>', 'table, csv, json or arrow', 'table')
    .option('--out <file>', 'write to a file (arrow output needs it unless stdout is redirected)')
    .option('--warehouse <dir>', 'warehouse folder (default: the data dir)')
    .option(...dataDirOpt)
    .action(async (query: string | undefined, o: { format: string; out?: string; warehouse?: string; dataDir?: string }) => {
      if (!['table', 'csv', 'json', 'arrow'].includes(o.format)) throw new CliError(`unknown --format "${o.format}"; use table, csv, json or arrow`);
      const dir = o.warehouse ? path.resolve(o.warehouse) : warehouseDir(serviceConfig({ dataDir: o.dataDir }).dataDir);
      const db = await openSnapshot(dir);
      const runOne = async (q: string) => {
        try {
          const out = formatRows(await db.all(q), o.format as SqlFormat);
          if (o.out) fs.writeFileSync(o.out, out);
          else process.stdout.write(out);
          return true;
        } catch (e) {
          console.error(`error: ${(e as Error).message.split('\n')[0]}`);
          return false;
        }
      };
      try {
        if (query) {
          if (!(await runOne(query))) process.exitCode = 1;
          return;
        }
        const rl = (await import('node:readline')).createInterface({ input: process.stdin, output: process.stdout, prompt: 'newsflow> ' });
        rl.prompt();
        for await (const line of rl) {
          if (line.trim() === '.exit' || line.trim() === '\\q') break;
          if (line.trim()) await runOne(line);
          rl.prompt();
        }
      } finally {
        db.close();
      }
    });

  program
    .command('export')
    .description('export warehouse tables to Parquet, hive-partitioned by month (written atomically)')
    .option('--table <name>', 'one table (default: all)')
    .option('--out <dir>', 'output folder', './export')
    .option('--warehouse <dir>', 'warehouse folder (default: the data dir)')
    .option(...dataDirOpt)
    .action(async (o: { table?: string; out: string; warehouse?: string; dataDir?: string }) => {
      const dir = o.warehouse ? path.resolve(o.warehouse) : warehouseDir(serviceConfig({ dataDir: o.dataDir }).dataDir);
      const counts = await exportParquet(dir, path.resolve(o.out), o.table ? [o.table] : undefined);
      console.log(JSON.stringify(counts));
    });

  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document this service serves (generated from spec/)')
    .option('--out <file>', 'write to a file instead of stdout')
    .action((o: { out?: string }) => {
      const doc = JSON.stringify(buildOpenApi({ notImplemented: NOT_IMPLEMENTED }), null, 2);
      if (o.out) fs.writeFileSync(path.resolve(o.out), doc);
      else console.log(doc);
    });
  return program;
}

/**
 * Run one workflow now and wait for it: our own dev server and worker unless TEMPORAL_ADDRESS
 * is set; progress from the workflow's `progress` query (a bar on a terminal, JSON lines
 * otherwise); the result printed as JSON.
 */
async function runOnce<P>(dataDirOpt: string | undefined, workflowType: string, taskQueue: string, input: Record<string, unknown>, show: (p: P) => [number, number, string]) {
  const dataDir = serviceConfig({ dataDir: dataDirOpt }).dataDir;
  const endpoint = await temporalEndpoint({ dataDir, log: (m) => console.error(m) });
  const w = process.env.TEMPORAL_ADDRESS ? null : await startWorker({ endpoint, dataDir });
  const client = await temporalClient(endpoint);
  const bar = progress(workflowType);
  const handle = await client.workflow.start(workflowType, { taskQueue, workflowId: `${workflowType}-manual-${Date.now()}`, args: [input] });
  const poll = setInterval(() => {
    handle.query<P>('progress').then((p) => bar.update(...show(p)), () => {});
  }, 1000);
  const result = (await handle.result().finally(() => clearInterval(poll))) as Record<string, unknown>;
  bar.update(1, 1, 'done');
  bar.stop();
  console.log(JSON.stringify(result));
  await w?.stop();
  await endpoint.stop();
}

/** `newsflow start`: everything on embedded defaults, or against NEWSFLOW_API_URL/KEY when both are set. */
async function mainJob(o: { port?: number; dataDir?: string; corpus?: string; replay: number }) {
  const dataDir = serviceConfig({ dataDir: o.dataDir }).dataDir;
  let apiUrl = process.env.NEWSFLOW_API_URL;
  let apiKey = process.env.NEWSFLOW_API_KEY;
  let svc: Awaited<ReturnType<typeof startService>> | null = null;
  if (!(apiUrl && apiKey)) {
    const corpus = o.corpus ?? process.env.NEWSFLOW_CORPUS ?? defaultCorpus();
    if (!corpus) throw new CliError('no corpus found: pass --corpus PATH or set NEWSFLOW_CORPUS (the shared data folder, e.g. ../shared/data)');
    svc = await startService({ port: o.port, dataDir });
    const keys = svc.services.keys;
    if ((await keys.listKeys()).length === 0) {
      const org = await keys.createOrg({ name: 'demo', domains: ['reuters.com', 'theguardian.com', 'bbc.co.uk'], plan: 'enterprise' });
      const demo = await keys.createKey({ name: 'demo', org: org.name, scopes: [...SCOPES] });
      console.log(`\nDemo organization key (shown once, stored hashed):\n  export NEWSFLOW_API_KEY=${demo.key}\n  export NEWSFLOW_API_URL=${svc.url}\n`);
    }
    // the worker's own key, rotated on every start
    for (const k of await keys.listKeys()) if (k.name === 'newsflow-worker' && !k.revoked_at) await keys.revokeKey(k.id);
    const demoOrg = (await keys.listOrgs())[0];
    apiKey = (await keys.createKey({ name: 'newsflow-worker', org: demoOrg?.name, scopes: [...SCOPES], plan: 'enterprise' })).key;
    apiUrl = svc.url;
    const bar = progress('seed');
    const r = await svc.services.news!.seed(corpus, { rebaseDates: true, replay: o.replay, onProgress: (d, t, ph) => bar.update(d, t, ph) });
    bar.stop();
    console.log(`service ${svc.url}: ${r.total} articles, replaying at ${o.replay}x (articles arrive with crawl_date = now)`);
  }
  const endpoint = await temporalEndpoint({ dataDir, log: (m) => console.error(m) });
  const worker = await startWorker({ endpoint, dataDir, apiUrl, apiKey });
  const client = await temporalClient(endpoint);
  const applied = await applySchedules(client);
  for (const d of SCHEDULES) await client.schedule.getHandle(d.id).trigger();
  const wh = path.join(warehouseDir(dataDir), 'warehouse.duckdb');
  console.log(`schedules: ${JSON.stringify(applied)}; each triggered once
Temporal UI: ${endpoint.uiUrl ?? `(external server ${endpoint.address})`}
Temporal:    ${endpoint.address}
Warehouse:   ${wh}
Try:
  newsflow sql "SELECT domain_url, count(*) AS articles FROM articles GROUP BY 1 ORDER BY 2 DESC LIMIT 10"
  newsflow sql "SELECT category, count(*) FROM article_classifications GROUP BY 1 ORDER BY 2 DESC"
  newsflow sql "SELECT load_id, rows_received, rows_inserted, finished_at FROM _loads ORDER BY started_at DESC LIMIT 5"
Ctrl-C stops everything.`);
  const stop = async () => {
    await worker.stop();
    await endpoint.stop();
    await svc?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await worker.running;
}

async function serve(o: { port?: number; host?: string; dataDir?: string; limitsText?: string; demoKey?: boolean; seed?: string; rebaseDates?: boolean; replay?: number }) {
  const svc = await startService({ port: o.port, host: o.host, dataDir: o.dataDir, limitsText: o.limitsText });
  const log = svc.app.log;
  if (o.seed) {
    const bar = progress('seed');
    const r = await svc.services.news!.seed(o.seed, { rebaseDates: o.rebaseDates, replay: o.replay, onProgress: (d, t, ph) => bar.update(d, t, ph) });
    bar.stop();
    log.info({ ...r, replay: o.replay ?? null }, 'corpus loaded');
  } else if (o.replay) {
    svc.services.news!.startReplay(o.replay);
  }
  if (o.demoKey && (await svc.services.keys.listKeys()).length === 0) {
    const org = await svc.services.keys.createOrg({ name: 'demo', domains: ['bbc.co.uk', 'reuters.com', 'apnews.com'], plan: 'enterprise' });
    const { key } = await svc.services.keys.createKey({ name: 'demo', org: org.name, scopes: [...SCOPES] });
    console.log(`\nDemo organization key (shown once, stored hashed):\n\n  export NEWSFLOW_API_KEY=${key}\n  export NEWSFLOW_API_URL=${svc.url}\n`);
  }
  console.log(`newsflow service listening on ${svc.url}  (docs: ${svc.url}/docs, OpenAPI: ${svc.url}/openapi.json, data: ${svc.services.config.dataDir})`);
  const stop = async (signal: string) => {
    log.info({ signal }, 'shutting down');
    await svc.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      process.exitCode = e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (e instanceof AdminInputError || e instanceof StoreLockedError || e instanceof CliError || e instanceof CorpusError || e instanceof TemporalSetupError || e instanceof WarehouseReadError) {
      console.error(`error: ${e.message}`);
      process.exitCode = 1;
      return;
    }
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`error: ${(e as Error).message}; choose another --port`);
      process.exitCode = 1;
      return;
    }
    throw e;
  }
}

await main();

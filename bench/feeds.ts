/**
 * The feed poller's throughput: polls per second and CPU per poll against 1,000 loopback feeds
 * built from the 56 real files (`../shared/data/feeds/`, served by test/helpers/feed-server.ts:
 * 18 servers, one host each, 56 files per host; every copy's links point to its own host, so the
 * 1,000 feeds list distinct items), and the number of workers 10,000 sources would need at a
 * 15-minute cadence, computed from the measurement.
 *
 * What runs: the activity code of a worker (activities/feed-poll.ts FeedPoller: due sources,
 * batches by host, `parallel` batches at once as workflows/feed-poll.ts runs them) with a real
 * warehouse (DuckLake, in a temp dir); no Temporal (its scheduling is not the cost measured).
 * The feeds, and index_urls, are served by a child process (so the CPU measured is the poller's):
 * index_urls by a loopback receiver that accepts and counts (the service's indexing of what it is
 * sent is another process's work; bench/extract.ts measures its reading).
 * Politeness delay 0 (see the printed note: the per-host delay bounds a host's polls per second).
 *
 * Rounds: `first` (every feed new, half its items shown: parse, send, land), `unchanged` (every
 * feed answers 304), `changed` (every feed shows the other half: parse, send the new items).
 *
 * `node --import tsx bench/feeds.ts` prints a table and a JSON line; FEEDS=n changes the count.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import readline from 'node:readline';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { NewsClient } from '../client/index.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { FeedPoller, type BatchResult } from '../activities/feed-poll.js';
import { parseFetchAllow } from '../lib/fetch/policy.js';
import { HOST_GATE_DEFAULTS } from '../lib/feeds/host-gate.js';
import { startFeedServer, type FeedServer } from '../test/helpers/feed-server.js';
import { tempDir } from '../test/helpers/service.js';

const FEEDS = Number(process.env.FEEDS ?? 1000);
const PARALLEL = 4;
const CADENCE_S = 15 * 60;
const TARGET_SOURCES = 10_000;

/** An index_urls receiver: accepts every request (as the API's job queue does) and counts the URLs. */
async function receiver(): Promise<{ url: string; urls: () => number; close: () => Promise<void> }> {
  let urls = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method === 'POST' && req.url?.startsWith('/v1/news/index_urls')) {
        urls += (JSON.parse(body) as { urls: unknown[] }).urls.length;
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'queued', job_id: crypto.randomUUID(), message: 'queued', indexed_count: 0 }));
      } else res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":404,"detail":"not found"}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, urls: () => urls, close: () => new Promise((r) => server.close(() => r())) };
}

/** The child: the feed servers and the receiver; prints them as one JSON line, then reads stages from stdin. */
async function serve(n: number): Promise<void> {
  const perHost = 56;
  const servers: FeedServer[] = [];
  while (servers.length * perHost < n) servers.push(await startFeedServer({ stages: 2, pages: 0 }));
  const api = await receiver();
  const feeds = servers.flatMap((s) => s.feeds.map((f) => ({ source: `${s.port}-${f.file.replace(/[/.]/g, '-')}`, url: f.url }))).slice(0, n);
  console.log(JSON.stringify({ api: api.url, hosts: servers.length, feeds }));
  for await (const line of readline.createInterface({ input: process.stdin })) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'reveal') for (const s of servers) s.reveal(Number(arg));
    console.log(JSON.stringify({ ok: cmd, urls: api.urls() }));
  }
  for (const s of servers) await s.close();
  await api.close();
}

export async function benchFeeds() {
  const child = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, '--serve', String(FEEDS)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse(((await lines.next()).value as string) ?? 'null');
  const ask = async (cmd: string) => {
    child.stdin!.write(`${cmd}\n`);
    return (await next()) as { urls: number };
  };
  const served = (await next()) as { api: string; hosts: number; feeds: { source: string; url: string }[] };
  const feeds = served.feeds;
  const dir = tempDir('newsflow-bench-feeds-');
  const warehouse = await Warehouse.open(dir);
  const client = new NewsClient({ baseUrl: served.api, apiKey: 'bench', limits: { news: { rate: 10_000, burst: 1000, concurrency: 16 } } });
  const poller = new FeedPoller({ client, warehouse, delayMs: 0, fetch: { policy: parseFetchAllow('127.0.0.1') } });
  await poller.store.declare(
    feeds.map((f) => ({ ...f, language: null, tags: [], pollIntervalS: null })),
    'file',
    Date.now(),
  );
  const items = { first: 0, changed: 0 };
  const rows: Record<string, unknown>[] = [];
  let at = Date.now();
  const round = async (name: string, stage: number) => {
    const sentBefore = (await ask(`reveal ${stage}`)).urls;
    at += 7 * 3_600_000; // past every source's next poll
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const { batches } = await poller.due({ at, limit: FEEDS });
    const results: BatchResult[] = [];
    let next = 0;
    const lane = async () => {
      while (next < batches.length) {
        const i = next++;
        results.push(await poller.pollBatch({ batchId: `bench/${name}/${i}`, at, sources: batches[i]! }));
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, lane));
    const wall = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const polled = results.reduce((a, r) => a + r.polled, 0);
    const sum = (k: keyof BatchResult) => results.reduce((a, r) => a + r[k], 0);
    const row = {
      round: name,
      polls: polled,
      ok: sum('ok'),
      not_modified: sum('notModified'),
      failed: sum('failed'),
      items_sent: (await ask('count')).urls - sentBefore,
      wall_s: Number(wall.toFixed(1)),
      polls_per_s: Number((polled / wall).toFixed(1)),
      cpu_ms_per_poll: Number(((cpu.user + cpu.system) / 1000 / polled).toFixed(2)),
    };
    if (name !== 'unchanged') items[name as 'first' | 'changed'] = row.items_sent;
    rows.push(row);
    console.log(
      Object.entries(row)
        .map(([k, v]) => `${k} ${v}`)
        .join('  '),
    );
  };
  console.log(
    `${feeds.length} feeds on ${served.hosts} hosts (loopback, served by a child process), ${os.cpus().length} CPUs, politeness delay 0, ${PARALLEL} batches at once`,
  );
  await round('first', 1);
  await round('unchanged', 1);
  await round('changed', 2);
  await poller.close();
  await client.close();
  warehouse.close();
  child.stdin!.end();
  await new Promise((r) => child.once('exit', r));

  // 10,000 sources every 15 minutes: 11.1 polls a second; a worker's share of it from its CPU per poll (one core a worker process)
  const need = TARGET_SOURCES / CADENCE_S;
  const byRound = Object.fromEntries(
    rows.map((r) => {
      const perCore = 1000 / (r.cpu_ms_per_poll as number);
      return [r.round as string, { polls_per_s_per_core: Number(perCore.toFixed(1)), workers: Math.max(1, Math.ceil(need / perCore)) }];
    }),
  );
  console.log(
    `10,000 sources at a 15-minute cadence = ${need.toFixed(1)} polls/s; one worker (one core) polls ${byRound.unchanged!.polls_per_s_per_core}/s of unchanged feeds (304), ${byRound.changed!.polls_per_s_per_core}/s of changed ones, ${byRound.first!.polls_per_s_per_core}/s on a first poll: ${byRound.changed!.workers} worker(s) at the changed rate (${byRound.first!.workers} while every source is new)`,
  );
  console.log(
    `note: a host is polled one request at a time, ${HOST_GATE_DEFAULTS.delayMs / 1000} s apart by default: 10,000 sources of one host could not all be polled in 15 minutes (900 at most), whatever the workers`,
  );
  return {
    bench: 'feeds',
    feeds: feeds.length,
    hosts: served.hosts,
    rounds: rows,
    target: { sources: TARGET_SOURCES, cadence_s: CADENCE_S, polls_per_s: Number(need.toFixed(2)), ...byRound },
    items,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--serve');
  if (i > 0) await serve(Number(process.argv[i + 1]));
  else console.log(JSON.stringify(await benchFeeds()));
}

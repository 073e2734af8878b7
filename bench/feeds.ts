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
 * index_urls is answered by a loopback receiver that accepts and counts (the service's indexing
 * of what it is sent is another process's work; bench/extract.ts measures its reading).
 * Politeness delay 0 (see the printed note: the per-host delay bounds a host's polls per second).
 *
 * Rounds: `first` (every feed new, half its items shown: parse, send, land), `unchanged` (every
 * feed answers 304), `changed` (every feed shows the other half: parse, send the new items).
 *
 * `node --import tsx bench/feeds.ts` prints a table and a JSON line; FEEDS=n changes the count.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { NewsClient } from '../client/index.js';
import { Warehouse } from '../warehouse/warehouse.js';
import { FeedPoller, type BatchResult } from '../activities/feed-poll.js';
import { parseFetchAllow } from '../lib/fetch/policy.js';
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

export async function benchFeeds() {
  const perHost = 56;
  const servers: FeedServer[] = [];
  for (let i = 0; servers.length * perHost < FEEDS; i++) servers.push(await startFeedServer({ stages: 2, pages: 0 }));
  const feeds = servers.flatMap((s) => s.feeds.map((f) => ({ server: s, f }))).slice(0, FEEDS);
  const api = await receiver();
  const dir = tempDir('newsflow-bench-feeds-');
  const warehouse = await Warehouse.open(dir);
  const client = new NewsClient({ baseUrl: api.url, apiKey: 'bench', limits: { news: { rate: 10_000, burst: 1000, concurrency: 16 } } });
  const poller = new FeedPoller({ client, warehouse, delayMs: 0, fetch: { policy: parseFetchAllow('127.0.0.1') } });
  await poller.store.declare(
    feeds.map(({ server, f }) => ({ source: `${server.port}-${f.file.replace(/[/.]/g, '-')}`, url: f.url, language: null, tags: [], pollIntervalS: null })),
    'file',
    Date.now(),
  );
  const items = { first: 0, changed: 0 };
  const rows: Record<string, unknown>[] = [];
  let at = Date.now();
  const round = async (name: string, stage: number) => {
    for (const s of servers) s.reveal(stage);
    at += 7 * 3_600_000; // past every source's next poll
    const sentBefore = api.urls();
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
      items_sent: api.urls() - sentBefore,
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
  console.log(`${feeds.length} feeds on ${servers.length} hosts (loopback), ${os.cpus().length} CPUs, politeness delay 0, ${PARALLEL} batches at once`);
  await round('first', 1);
  await round('unchanged', 1);
  await round('changed', 2);
  await poller.close();
  await client.close();
  warehouse.close();
  await api.close();
  for (const s of servers) await s.close();

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
    `note: a host is polled one request at a time, ${'1 s'} apart by default: 10,000 sources of one host could not all be polled in 15 minutes (900 at most), whatever the workers`,
  );
  return {
    bench: 'feeds',
    feeds: feeds.length,
    hosts: servers.length,
    rounds: rows,
    target: { sources: TARGET_SOURCES, cadence_s: CADENCE_S, polls_per_s: Number(need.toFixed(2)), ...byRound },
    items,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchFeeds()));

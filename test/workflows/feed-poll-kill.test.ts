/**
 * Kill test: a feedPoll round on the real Temporal dev server, its worker a `newsflow worker`
 * process SIGKILLed while the round sends items to index_urls; after a restart the round ends with
 * every item indexed once, no item lost, and no duplicate row in the warehouse.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { Warehouse } from '../../warehouse/warehouse.js';
import { SourceStore } from '../../warehouse/sources.js';
import { openReader } from '../../warehouse/read.js';
import { normaliseUrl } from '../../service/indexing/canonical.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { spawnWorker } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait-until.js';

const NS = 'nf-feeds-kill';
const FILES = [
  'rss2/guardian-us.rss',
  'rss2/reuters-world-news.rss',
  'rss2/nytimes-homepage.xml',
  'rss2/moscow-times.xml',
  'rss2/kc0011-gb2312.rss',
  'rss2/oren-ru-windows-1251.xml',
  'atom/daringfireball.atom',
  'atom/tpm-all-news.atom',
  'rdf/orf-at-news.rdf',
  'jsonfeed/inessential.json',
  'sitemap/xfeed-ca-news-sitemap.xml',
];

let svc: TestService;
let server: FeedServer;
let temporal: Client;
const dir = tempDir('newsflow-feeds-kill-');

beforeAll(async () => {
  // the service fetches the items' pages from the feed server on loopback, like the worker's feeds
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startFeedServer({ files: FILES, stages: 1 });
  svc = await startTestService({
    limitsText: 'news=1000:1000:100',
    // each index_urls call answers a second late: the round is still sending when its worker dies
    configure: (app) =>
      app.addHook('onRequest', async (req) => {
        if (req.method === 'POST' && req.url.startsWith('/v1/news/index_urls')) await new Promise((r) => setTimeout(r, 1000));
      }),
  });
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: NS });
  const wh = await Warehouse.open(dir);
  await new SourceStore(wh).declare(
    server.feeds.map((f) => ({ source: f.file.replace(/[/.]/g, '-'), url: f.url, language: null, tags: [], pollIntervalS: null })),
    'file',
    Date.now(),
  );
  wh.close();
}, 300_000);
afterAll(async () => {
  await temporal?.connection.close();
  await svc?.stop();
  await server?.close();
});

const worker = () =>
  spawnWorker(dir, {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: NS,
    NEWSFLOW_API_URL: svc.url,
    NEWSFLOW_API_KEY: svc.keys.org!,
    NEWSFLOW_LIMITS: 'news=1000:1000:100',
    NEWSFLOW_FETCH_ALLOW: '127.0.0.1',
  });
const jobs = async () => Number((await svc.services.db.all<{ n: bigint }>('SELECT count(*) AS n FROM url_jobs'))[0]!.n);

describe('feedPoll survives SIGKILL', () => {
  it('loses no item and indexes none twice when its worker is killed while it sends items to index_urls', async () => {
    const handle = await temporal.workflow.start('feedPoll', {
      taskQueue: 'newsflow-feeds',
      workflowId: `feeds-kill-${Date.now()}`,
      args: [{ batchSize: 100 }],
    });
    const first = worker();
    await waitUntil(async () => (await jobs()) >= 2, { what: 'two index_urls calls of the round', timeoutMs: 240_000, intervalMs: 20 });
    first.proc.kill('SIGKILL');
    await first.exited;
    const sentBeforeKill = await jobs();
    const second = worker();
    const result = (await handle.result()) as { polled: number; sent: number; calls: number };
    second.proc.kill('SIGTERM');
    await second.exited;
    await waitUntil(
      async () => svc.services.web!.indexer.pending === 0 && (await svc.services.db.all('SELECT 1 FROM url_jobs WHERE finished_at IS NULL')).length === 0,
      {
        what: 'the service indexed what it was sent',
        timeoutMs: 600_000,
        intervalMs: 200,
      },
    );
    console.log(`killed after ${sentBeforeKill} index_urls calls; the round after the restart: ${JSON.stringify(result)}; jobs in all ${await jobs()}`);
    const outcomes = await svc.services.db.all<{ status: string; reason: string | null; n: bigint }>(
      'SELECT status, reason, count(*) AS n FROM url_job_items GROUP BY 1, 2 ORDER BY 3 DESC',
    );
    console.log(`index_urls outcomes: ${outcomes.map((o) => `${o.status}/${o.reason ?? '-'} ${Number(o.n)}`).join(', ')}`);
    expect(result.polled).toBe(FILES.length);

    // every item is indexed, once
    const urls = new Set(server.feeds.flatMap((f) => f.items.filter((i) => i.url && (i.title || server.pages.has(i.url))).map((i) => normaliseUrl(i.url!)!)));
    const rows = await svc.services.db.all<{ u: string; n: bigint }>(`SELECT article_url AS u, count(*) AS n FROM articles WHERE source = 'web' GROUP BY 1`);
    const got = new Map(rows.map((r) => [r.u, Number(r.n)]));
    expect([...urls].filter((u) => !got.has(u))).toEqual([]);
    expect([...got].filter(([, n]) => n > 1)).toEqual([]);
    expect(got.size).toBe(urls.size);
    // what the killed worker sent and did not land was sent again, and skipped as a duplicate
    const resent = await svc.services.db.all<{ n: bigint }>(`SELECT count(*) AS n FROM url_job_items WHERE reason = 'duplicate'`);
    console.log(`URLs sent twice (skipped as duplicates by index_urls): ${Number(resent[0]!.n)}`);

    // no duplicate row in the warehouse: one seen row per item, one poll row per source
    const r = await openReader(dir);
    try {
      const items = await r.all('SELECT source, item_key, count(*) AS n FROM source_items GROUP BY 1, 2 HAVING count(*) > 1');
      expect(items).toEqual([]);
      const seen = Number((await r.all('SELECT count(*) AS n FROM source_items'))[0]!.n);
      expect(seen).toBe(server.feeds.reduce((a, f) => a + f.items.filter((i) => i.url).length, 0));
      const polls = await r.all('SELECT source, count(*) AS n FROM source_polls GROUP BY 1');
      expect(polls.map((p) => Number(p.n))).toEqual(FILES.map(() => 1));
      const states = await r.all("SELECT count(*) AS n FROM sources WHERE status = 'ok' AND next_poll_at IS NOT NULL");
      expect(Number(states[0]!.n)).toBe(FILES.length);
    } finally {
      r.close();
    }
  }, 900_000);
});

/**
 * A feedPoll round on the real Temporal dev server (in-process worker, the real activities, a real
 * service and warehouse) with good sources beside a broken one, a hostile one and one whose batch
 * fails for good: the good sources land, the bad ones are recorded with their reasons, and the
 * round succeeds.
 * - broken: a truncated RSS document (source_polls `failed`, `not_well_formed`);
 * - hostile: a JSON Feed whose items are a 3,000-character link (skipped: invalid against
 *   index_urls' request schema, its reason in source_polls.error), a title of terminal escapes and a
 *   content_text of 100,000 `<` (bounded, escapes dropped, sent), and a plain item (sent);
 * - failing: its own host (`localhost`), so its own batch, whose index_urls call the service answers
 *   403 (an error no retry heals): the batch is recorded on the source (`batch_failed`), the other
 *   batches go on (allSettled semantics).
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, Runtime, DefaultLogger } from '@temporalio/worker';
import { NewsClient } from '../../client/index.js';
import { Warehouse } from '../../warehouse/warehouse.js';
import { createFeedPollActivities } from '../../activities/feed-poll.js';
import type { FeedPollResult } from '../../workflows/feed-poll.js';
import { startTestService, tempDir, type TestService } from '../helpers/service.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';

const require = createRequire(import.meta.url);
const NS = 'nf-feeds-hostile';
const QUEUE = 'feeds-hostile';
const GOOD = ['rss2/guardian-us.rss', 'atom/heise-developer.atom'];

let server: FeedServer;
let svc: TestService;
let warehouse: Warehouse;
let client: NewsClient;
let result: FeedPollResult;

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  Runtime.install({ logger: new DefaultLogger('WARN') });
  server = await startFeedServer({ files: GOOD, stages: 1, pages: 0 });
  const json = (body: unknown) => (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/feed+json' }).end(JSON.stringify(body));
    return true;
  };
  const o = server.origin;
  server.hook.set(
    '/hostile.json',
    json({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'Hostile \u001b]0;owned\u0007feed',
      items: [
        { id: 'long-link', url: `${o}/a/${'x'.repeat(3000)}`, title: 'A link of 3,000 characters' },
        { id: 'escapes', url: `${o}/escapes`, title: 'Red \u001b[31malert\u001b[0m &#27;[2J cleared', content_text: '<'.repeat(100_000) },
        { id: 'plain', url: `${o}/plain-item`, title: 'A plain item of the hostile feed' },
      ],
    }),
  );
  server.hook.set('/broken.xml', (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/rss+xml' }).end('<?xml version="1.0"?><rss version="2.0"><channel><title>Cut</title><item><title>half');
    return true;
  });
  server.hook.set(
    '/failing.json',
    json({
      version: 'https://jsonfeed.org/version/1.1',
      title: 'Failing',
      items: [{ id: 'f', url: `${o.replace('127.0.0.1', 'localhost')}/forbidden-item`, title: 'Refused' }],
    }),
  );
  svc = await startTestService({
    limitsText: 'news=1000:1000:100',
    // the failing source's batch: an answer no retry heals
    configure: (app) =>
      app.addHook('preHandler', async (req, reply) => {
        if (req.method === 'POST' && req.url.startsWith('/v1/news/index_urls') && JSON.stringify(req.body).includes('forbidden-item'))
          return reply.code(403).send({ code: 403000, detail: 'index_urls refused for this test' });
      }),
  });
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
  client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org! });
  const poller = createFeedPollActivities({ client, warehouse, delayMs: 0, fetch: { policy: parseFetchAllow('127.0.0.1') } });
  const { SourceStore } = await import('../../warehouse/sources.js');
  await new SourceStore(warehouse).declare(
    [
      ...server.feeds.map((f) => ({ source: f.file.replace(/[/.]/g, '-'), url: f.url })),
      { source: 'broken', url: `${o}/broken.xml` },
      { source: 'hostile', url: `${o}/hostile.json` },
      { source: 'failing', url: `${o.replace('127.0.0.1', 'localhost')}/failing.json` },
    ].map((d) => ({ ...d, language: null, tags: [], pollIntervalS: null })),
    'file',
    Date.now() - 60_000,
  );
  const address = inject('temporalAddress');
  const connection = await NativeConnection.connect({ address });
  const temporal = new Client({ connection: await Connection.connect({ address }), namespace: NS });
  const worker = await Worker.create({
    connection,
    namespace: NS,
    taskQueue: QUEUE,
    workflowsPath: require.resolve('../../workflows/feed-poll.ts'),
    activities: poller,
  });
  try {
    result = (await worker.runUntil(
      temporal.workflow.execute('feedPoll', { taskQueue: QUEUE, workflowId: `feeds-hostile-${Date.now()}`, args: [{ batchSize: 1 }] }),
    )) as FeedPollResult;
  } finally {
    await temporal.connection.close();
    await connection.close();
  }
}, 600_000);

afterAll(async () => {
  warehouse?.close();
  await client?.close();
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

const polls = async () =>
  new Map(
    (
      await warehouse.query<{ source: string; status: string; reason: string | null; error: string | null }>(
        'SELECT source, status, reason, error FROM source_polls',
      )
    ).map((p) => [p.source, p]),
  );

describe('a poll round with a broken, a hostile and a failing source among good ones', () => {
  it('succeeds: every source polled, the good ones land, the bad ones recorded with reasons', async () => {
    console.log(`round: ${JSON.stringify(result)}`);
    const by = await polls();
    for (const [s, p] of by) console.log(`source_polls ${s}: ${p.status} ${p.reason ?? ''} ${(p.error ?? '').slice(0, 160)}`);
    expect(result.polled).toBe(GOOD.length + 3);
    expect(result.failed).toBe(2);
    expect(result.skipped).toBe(1);
    for (const f of server.feeds) expect(by.get(f.file.replace(/[/.]/g, '-'))?.status).toBe('ok');
    expect(by.get('broken')).toMatchObject({ status: 'failed', reason: 'not_well_formed' });
    expect(by.get('failing')).toMatchObject({ status: 'failed', reason: 'batch_failed' });
    expect(by.get('failing')!.error).toMatch(/403/);
    const hostile = by.get('hostile')!;
    expect(hostile.status).toBe('ok');
    expect(hostile.error).toMatch(/^skipped 1 item: item long-link: url: /);
  });

  it('lands the good items, and the hostile feed bounded and without control characters', async () => {
    const items = await warehouse.query<{ source: string; n: bigint }>('SELECT source, count(*) AS n FROM source_items GROUP BY 1');
    const n = new Map(items.map((i) => [i.source, Number(i.n)]));
    for (const f of server.feeds) expect(n.get(f.file.replace(/[/.]/g, '-')), f.file).toBe(f.items.filter((i) => i.url).length);
    expect(n.get('hostile')).toBe(2);
    expect(n.get('failing') ?? 0).toBe(0);
    const titles = await warehouse.query<{ title: string }>("SELECT title FROM source_items WHERE source = 'hostile' ORDER BY item_key");
    // eslint-disable-next-line no-control-regex -- what must not be there
    for (const t of titles) expect(t.title).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    const [src] = await warehouse.query<{ title: string }>("SELECT title FROM sources WHERE source = 'hostile'");
    expect(src!.title).toBe('Hostile ]0;ownedfeed');
  });

  it('polls every source again later: the failing ones are failing, not dropped', async () => {
    const rows = await warehouse.query<{ source: string; status: string; next: number | null }>(
      'SELECT source, status, epoch_ms(next_poll_at) AS next FROM sources',
    );
    for (const r of rows) expect(r.next, r.source).not.toBeNull();
    expect(rows.find((r) => r.source === 'failing')!.status).toBe('failing');
    expect(rows.find((r) => r.source === 'broken')!.status).toBe('failing');
  });
});

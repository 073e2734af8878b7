/**
 * applyFeedSchedule (pipelines/schedules/feeds.ts) on the real Temporal dev server: the project
 * file's sources land in the warehouse (origin file) and the poller's one schedule exists while
 * there is a source to poll; a shorter list removes the file's dropped sources, never the CLI's;
 * no source at all, no schedule.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { SourceStore } from '../../../warehouse/sources.js';
import { FEED_SCHEDULE_ID, applyFeedSchedule } from '../../../pipelines/schedules/feeds.js';
import { TASK_QUEUES } from '../../../workflows/queues.js';
import { tempDir } from '../../helpers/service.js';

let temporal: Client;
let warehouse: Warehouse;
beforeAll(async () => {
  temporal = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }), namespace: 'nf-feeds' });
  warehouse = await Warehouse.open(tempDir('newsflow-wh-'));
});
afterAll(async () => {
  warehouse?.close();
  await temporal?.connection.close();
});

const schedule = async () => {
  try {
    return await temporal.schedule.getHandle(FEED_SCHEDULE_ID).describe();
  } catch (e) {
    if (e instanceof ScheduleNotFoundError) return null;
    throw e;
  }
};

describe('applyFeedSchedule', () => {
  it('lands the declared sources and keeps one schedule of feedPoll rounds while any source exists', async () => {
    const store = new SourceStore(warehouse);
    const r1 = await applyFeedSchedule(temporal, {
      warehouse,
      sources: [
        { url: 'https://www.theguardian.com/us/rss', name: 'guardian', poll_interval: '15m', language: 'en', tags: ['world'] },
        { url: 'https://www.heise.de/developer/rss/news-atom.xml' },
      ],
    });
    expect(r1.sources.added.sort()).toEqual(['guardian', 'heise.de-developer-news-atom']);
    expect(r1.schedule.created).toEqual([FEED_SCHEDULE_ID]);
    const d = (await schedule())!;
    expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: 'feedPoll', taskQueue: TASK_QUEUES.feeds });
    expect(d.spec.intervals?.[0]?.every).toBe(60_000);
    expect((await store.get(['guardian']))[0]).toMatchObject({ origin: 'file', pollIntervalS: 900, language: 'en', tags: ['world'], status: 'new' });

    // applied again unchanged: nothing moves
    const r2 = await applyFeedSchedule(temporal, {
      warehouse,
      sources: [
        { url: 'https://www.theguardian.com/us/rss', name: 'guardian', poll_interval: '15m', language: 'en', tags: ['world'] },
        { url: 'https://www.heise.de/developer/rss/news-atom.xml' },
      ],
    });
    expect(r2).toMatchObject({ sources: { added: [], updated: [], removed: [] }, schedule: { unchanged: [FEED_SCHEDULE_ID] } });

    // the file drops heise; a source added by `sources add` stays
    await store.declare([{ source: 'by-hand', url: 'https://example.com/feed.xml', language: null, tags: [], pollIntervalS: null }], 'cli', Date.now());
    const r3 = await applyFeedSchedule(temporal, {
      warehouse,
      sources: [{ url: 'https://www.theguardian.com/us/rss', name: 'guardian', poll_interval: '15m', language: 'en', tags: ['world'] }],
    });
    expect(r3.sources.removed).toEqual(['heise.de-developer-news-atom']);
    expect((await store.all()).map((s) => s.source)).toEqual(['by-hand', 'guardian']);

    // no file sources: the CLI's source still needs the schedule; without it, no schedule
    expect((await applyFeedSchedule(temporal, { warehouse, sources: [] })).schedule.unchanged).toEqual([FEED_SCHEDULE_ID]);
    await store.remove('by-hand');
    expect((await applyFeedSchedule(temporal, { warehouse, sources: [] })).schedule.deleted).toEqual([FEED_SCHEDULE_ID]);
    expect(await schedule()).toBeNull();
  });
});

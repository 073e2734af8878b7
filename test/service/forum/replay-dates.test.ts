/**
 * Forum dates under the replay: the demo (`newsflow start`, replay at 3,600x) moves the stored
 * threads' and comments' dates the way it moves news, so forum search with the interface's default
 * parameters (time_filter day, n_threads 5, kw, string) finds the demo's threads. A stored archive
 * outside the replay keeps its own dates and answers the defaults with nothing older than a day.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { forumStoreFile } from '../../helpers/forum.js';
import { moveDate } from '../../../service/forum/index.js';

/** `newsflow start`'s default replay speed (--replay) */
const DEMO_SPEED = 3600;

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await forumStoreFile(), limitsText: 'news=1000:1000:50' });
}, 600_000); // the first run builds the cached forum store: minutes on a busy machine
afterAll(async () => svc?.stop());

const search = (q: Record<string, string>) => api(svc.url, 'GET', `/v1/reddit/search?${new URLSearchParams(q)}`, svc.keys.org);

describe('forum dates and the replay', () => {
  it('a stored archive outside the replay: the default time_filter (day) finds nothing years old; time_filter=all finds it', async () => {
    await svc.services.forum!.retime(null);
    const byDefault = await search({ keywords: 'obama', return_type: 'dicts' });
    expect(byDefault.status).toBe(200);
    expect(byDefault.body.as_dicts).toEqual([]);
    const all = await search({ keywords: 'obama', return_type: 'dicts', time_filter: 'all' });
    expect(all.body.as_dicts.length).toBeGreaterThan(0);
    expect(Date.parse(all.body.as_dicts[0].date)).toBeLessThan(Date.parse('2023-01-01T00:00:00Z'));
  });

  it('the replay moves thread and comment dates like news: forum search with default parameters finds the demo threads', async () => {
    const now = Date.now();
    await svc.services.forum!.retime({ now, speed: DEMO_SPEED });
    const threads = svc.services.forum!.all();
    const dates = threads.map((t) => Date.parse(t.date));
    // the newest thread is now; the 10 months of threads fall in the last 2 hours, in the same order
    expect(Math.max(...dates)).toBe(now);
    expect(Math.min(...dates)).toBeGreaterThan(now - 2 * 3_600_000);
    for (const t of threads) for (const c of t.comments) expect(Date.parse(c.date)).toBeGreaterThanOrEqual(Date.parse(t.date));
    // the interface's defaults: n_threads 5, method kw, time_filter day, sort relevance, return_type string
    const plain = await search({ keywords: 'obama' });
    expect(plain.status).toBe(200);
    console.log(`GET /v1/reddit/search?keywords=obama (defaults), replay at ${DEMO_SPEED}x:\n${plain.body.as_string.slice(0, 400)}…`);
    expect(plain.body.as_string).toContain('I am Barack Obama, President of the United States');
    const dicts = await search({ keywords: 'pizza delivery', return_type: 'dicts' });
    expect(dicts.body.as_dicts.length).toBeGreaterThan(0);
    for (const t of dicts.body.as_dicts) expect(Date.parse(t.date)).toBeGreaterThan(now - 24 * 3_600_000);
  });

  it('moves a date by its distance to the newest thread divided by the speed (speed 1: a shift)', () => {
    const newest = Date.parse('2022-10-27T07:32:00Z');
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(moveDate(newest - 3_600_000, newest, { now, speed: 1 })).toBe(now - 3_600_000);
    expect(moveDate(newest - 3_600_000, newest, { now, speed: 3600 })).toBe(now - 1000);
    expect(moveDate(newest - 3_600_000, newest, null)).toBe(newest - 3_600_000);
  });
});

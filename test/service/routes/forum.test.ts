/** GET /v1/reddit/search and /v1/forum/search: return_type, deep, bad input (422 naming the field), 503 without a store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { qs } from '../../helpers/news.js';
import { forumStoreFile } from '../../helpers/forum.js';
import { RedditThread, ForumSearchResponse } from '../../../spec/index.js';
import { strictValidator } from '../../helpers/strict-schema.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await forumStoreFile(), clock: () => Date.parse('2022-11-01T00:00:00Z'), limitsText: 'news=1000:1000:50' });
}, 600_000); // the first run builds the cached forum store: minutes on a busy machine
afterAll(async () => svc?.stop());

const get = (q: Record<string, unknown>, path = '/v1/reddit/search', key = svc.keys.org) => api(svc.url, 'GET', `${path}?${qs(q as never)}`, key);
const base = { keywords: ['pizza', 'kidnapping'], time_filter: 'all' };

describe('return_type', () => {
  it('string by default: as_string holds one <doc> block per thread, as_dicts null', async () => {
    const r = await get({ ...base, n_threads: 3 });
    expect(r.status).toBe(200);
    expect(r.body.as_dicts).toBeNull();
    const blocks = (r.body.as_string as string).split('\n\n<doc>');
    expect(blocks).toHaveLength(3);
    expect(r.body.as_string).toMatch(/^<doc>\n\[1\]:\nTitle: I \(a pizza guy\) intercepted a kidnapping/);
    for (const k of ['Subreddit: r/', 'Author: ', 'Date: ', 'Upvotes: ', 'Summary: ', 'Top comments:', 'URL: ', '</doc>'])
      expect(r.body.as_string).toContain(k);
  });

  it('dicts: RedditThread dicts valid under the strict schema, as_string null', async () => {
    const r = await get({ ...base, n_threads: 4, return_type: 'dicts' });
    expect(r.status).toBe(200);
    expect(r.body.as_string).toBeNull();
    expect(r.body.as_dicts).toHaveLength(4);
    const strict = strictValidator(RedditThread);
    for (const t of r.body.as_dicts) expect(strict(t)).toEqual([]);
    expect(strictValidator(ForumSearchResponse)(r.body)).toEqual([]);
  });

  it('both: the dicts and the string of the same threads, in the same order', async () => {
    const r = await get({ ...base, n_threads: 2, return_type: 'both' });
    expect(r.body.as_dicts).toHaveLength(2);
    const titles = [...(r.body.as_string as string).matchAll(/^Title: (.*)$/gm)].map((m) => m[1]);
    expect(titles).toEqual(r.body.as_dicts.map((t: { title: string }) => t.title));
  });
});

describe('deep', () => {
  it('deep=true is answered from the store and says so in X-Forum-Deep; deep=false carries no such header', async () => {
    const deep = await get({ ...base, deep: true, return_type: 'dicts' });
    const stored = await get({ ...base, deep: false, return_type: 'dicts' });
    expect(deep.status).toBe(200);
    expect(deep.headers.get('x-forum-deep')).toBe('unavailable; answered from the stored threads');
    expect(stored.headers.get('x-forum-deep')).toBeNull();
    expect(deep.headers.get('x-forum-source')).toBe('store');
    expect(deep.headers.get('x-forum-threads')).toBe('135');
    expect(deep.body).toEqual(stored.body);
  });
});

describe('bad input', () => {
  it('n_threads 0 is a 422 naming n_threads', async () => {
    for (const path of ['/v1/reddit/search', '/v1/forum/search']) {
      const r = await get({ ...base, n_threads: 0 }, path);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe(422000);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'n_threads'] })]);
    }
  });

  it('an unknown sort is a 422 naming sort and its permitted values', async () => {
    const r = await get({ ...base, sort: 'best' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['query', 'sort'], type: 'type_error.enum' })]);
    expect(r.body.detail[0].msg).toContain('"relevance"');
  });

  it('missing keywords, an unknown method, time_filter or return_type, a non-integer n_threads: 422 naming each field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ n_threads: 2 }, 'keywords'],
      [{ ...base, method: 'both' }, 'method'],
      [{ ...base, time_filter: 'decade' }, 'time_filter'],
      [{ ...base, return_type: 'xml' }, 'return_type'],
      [{ ...base, n_threads: 'many' }, 'n_threads'],
      [{ ...base, deep: 'perhaps' }, 'deep'],
    ];
    for (const [q, field] of cases) {
      const r = await get(q);
      expect(r.status, field).toBe(422);
      expect(
        r.body.detail.map((d: { loc: string[] }) => d.loc[1]),
        field,
      ).toContain(field);
    }
  });

  it('hostile keywords answer 200 and never a 500', async () => {
    for (const k of ['"', '\u0000', '((((', '🙂'.repeat(500), 'a'.repeat(5_000), 'SELECT * FROM forum_threads; --']) {
      for (const method of ['kw', 'nl']) {
        const r = await get({ keywords: [k], method, time_filter: 'all' });
        expect(r.status, `${method} ${k.slice(0, 20)}`).toBe(200);
      }
    }
  });

  it('needs the news scope', async () => {
    const r = await get(base, '/v1/reddit/search', svc.keys.legacy);
    expect(r.status).toBe(200);
    const noKey = await api(svc.url, 'GET', `/v1/reddit/search?${qs(base as never)}`);
    expect(noKey.status).toBe(401);
  });

  it('answers 503 when the service runs without a forum store', async () => {
    const forum = svc.services.forum;
    svc.services.forum = undefined;
    try {
      const r = await get(base);
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ code: 503000, detail: expect.stringContaining('forum') });
    } finally {
      svc.services.forum = forum;
    }
  });
});

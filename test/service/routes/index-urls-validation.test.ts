/** Bad input to POST /v1/news/index_urls: 422 naming the field (loc), no job created. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ValidationErrorItem } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'news=1000:1000:100' });
});
afterAll(async () => svc?.stop());

const window = { start_time: '2024-05-01T00:00:00Z', end_time: '2024-05-02T00:00:00Z' };
const post = (body: unknown) => api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, body);
const jobs = async () => Number((await svc.services.db.all<{ n: bigint }>('SELECT count(*) AS n FROM url_jobs'))[0]!.n);

describe('index_urls input', () => {
  it.each([
    ['not a URL', 'not a url'],
    ['a relative path', '/news/a'],
    ['a file: URL', 'file:///etc/passwd'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['an ftp: URL', 'ftp://example.com/a'],
    ['an empty string', ''],
    ['a URL over 2083 characters', `https://example.com/${'a'.repeat(2100)}`],
    ['a URL without a host', 'http://'],
  ])('answers 422 on urls.N.url for %s', async (_what, url) => {
    const r = await post({ ...window, urls: [{ url: 'https://example.com/ok' }, { url }] });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail.map((d: ValidationErrorItem) => d.loc)).toContainEqual(['body', 'urls', 1, 'url']);
  });

  it('answers 422 on urls for an empty list', async () => {
    const r = await post({ ...window, urls: [] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'urls']);
  });

  it('answers 422 on end_time when it is before start_time', async () => {
    const r = await post({ start_time: '2024-05-02 00:00:00', end_time: '2024-05-01 00:00:00+00:00', urls: [{ url: 'https://example.com/a' }] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'end_time']);
  });

  it('answers 422 naming each missing or malformed field', async () => {
    const r = await post({ urls: [{ url: 'https://example.com/a', skip_dedupe: 'maybe', metadata: [1] }] });
    expect(r.status).toBe(422);
    const locs = r.body.detail.map((d: ValidationErrorItem) => d.loc);
    expect(locs).toContainEqual(['body', 'start_time']);
    expect(locs).toContainEqual(['body', 'end_time']);
    expect(locs).toContainEqual(['body', 'urls', 0, 'skip_dedupe']);
    expect(locs).toContainEqual(['body', 'urls', 0, 'metadata']);
  });

  it('answers 422 on urls past 1000 URLs, and 422 for a malformed job id', async () => {
    const r = await post({ ...window, urls: Array.from({ length: 1001 }, (_, i) => ({ url: `https://example.com/${i}` })) });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'urls']);
    const bad = await api(svc.url, 'GET', '/v1/news/index_urls/not-a-uuid', svc.keys.org);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'job_id']);
  });

  it('creates no job for any of them, and accepts the Python SDK body with every key sent as null', async () => {
    expect(await jobs()).toBe(0);
    const r = await post({
      start_time: '2024-05-01 00:00:00',
      end_time: '2024-05-02 00:00:00+00:00',
      urls: [{ url: 'http://10.0.0.1/a', data: null, skip_dedupe: null, metadata: null, enrichments: null }],
    });
    expect(r.status).toBe(200);
    expect(await jobs()).toBe(1);
  });

  it('needs the news scope', async () => {
    const k = await svc.services.keys.createKey({ name: 'chat-only', scopes: ['chat'] });
    const r = await api(svc.url, 'POST', '/v1/news/index_urls', k.key, { ...window, urls: [{ url: 'https://example.com/a' }] });
    expect(r.status).toBe(403);
  });
});

/** NewsClient against the real service: typed errors, auth options, query encoding, SSE framing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NewsClient, ValidationError, ForbiddenError, AuthError, ApiError, sseData, toQueryString } from '../../client/index.js';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc?.stop());

describe('NewsClient', () => {
  it('takes base URL and key from the environment', async () => {
    const c = new NewsClient({ env: { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org } });
    expect((await c.getProfile()).profile.identity_type).toBe('organization');
    expect(await c.ping()).toEqual({ app: 'newsflow', version: '0.32.4' });
    await c.close();
  });
  it('accepts a base URL that ends in /v1', async () => {
    const c = new NewsClient({ baseUrl: `${svc.url}/v1`, apiKey: svc.keys.org });
    expect((await c.getLimits()).groups?.distribution?.request_rate).toBe(0.2);
    await c.close();
  });
  it('refuses to start without credentials, saying how to fix it', () => {
    expect(() => new NewsClient({ env: {} })).toThrow(/NEWSFLOW_API_KEY/);
  });
  it('raises typed errors carrying code and detail', async () => {
    const c = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org });
    const err = await c.searchNews({ n_articles: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).code).toBe(422000);
    expect((err as ValidationError).items[0]!.loc).toEqual(['query', 'n_articles']);
    const legacy = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.legacy });
    const f = await legacy.hitShare({ domain_names: ['acme.com'], start_date: 1767225600, end_date: 1767312000 }).catch((e: unknown) => e);
    expect(f).toBeInstanceOf(ForbiddenError);
    expect((f as ForbiddenError).code).toBe(403000);
    const bad = new NewsClient({ baseUrl: svc.url, apiKey: 'nfk_nope' });
    expect(await bad.getProfile().catch((e: unknown) => e)).toBeInstanceOf(AuthError);
    // 501 is not retried: it would not change (a server built without the wiki handler answers it)
    const partial = await startTestService({ handlers: { search_wiki: undefined } });
    const events: string[] = [];
    const c2 = new NewsClient({ baseUrl: partial.url, apiKey: partial.keys.org, onEvent: (e) => events.push(e.type) });
    const ni = await c2.searchWiki({ query: 'election' }).catch((e: unknown) => e);
    expect((ni as ApiError).code).toBe(501000);
    expect(events.filter((e) => e === 'retry')).toEqual([]);
    await Promise.all([c.close(), legacy.close(), bad.close(), c2.close()]);
    await partial.stop();
  });
  it('authenticates with OAuth2 client credentials', async () => {
    const c = new NewsClient({
      baseUrl: svc.url,
      oauth: { clientId: svc.keyIds.analyst!, clientSecret: svc.keys.analyst!, scopes: ['profile', 'offline', 'openid'] },
    });
    expect((await c.getProfile()).profile).toMatchObject({ identity_type: 'user', subscription: { plan: 'analyst' } });
    await c.close();
  });
  it('sends arrays as repeated keys and skips empty values', () => {
    expect(toQueryString({ domain_names: ['a.com', 'b.com'], limit: 5, x: undefined, y: null, flag: false })).toBe(
      '?domain_names=a.com&domain_names=b.com&limit=5&flag=false',
    );
  });
});

describe('SSE framing', () => {
  async function* chunks(parts: string[]) {
    for (const p of parts) yield p;
  }
  it('joins data lines, skips comments and stops at [DONE]', async () => {
    const out: string[] = [];
    for await (const d of sseData(chunks(['data: {"a":', '1}\n\n: keep-alive\n\ndata: line1\ndata: line2\n\r\n', 'data: [DONE]\n\ndata: {"late":true}\n\n'])))
      out.push(d);
    expect(out).toEqual(['{"a":1}', 'line1\nline2']);
  });
});

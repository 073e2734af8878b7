/** Auth, scope, organization and plan rules on every route of the table (real HTTP on loopback). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, SCOPES, type RouteDef } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { samplePath } from '../../helpers/interface.js';

let svc: TestService;
const keysWithout: Record<string, string> = {};

beforeAll(async () => {
  svc = await startTestService();
  // For each scope, an organization key holding every other scope.
  for (const s of SCOPES) {
    const { key } = await svc.services.keys.createKey({ name: `no-${s}`, org: 'acme', scopes: SCOPES.filter((x) => x !== s) });
    keysWithout[s] = key;
  }
});
afterAll(async () => svc?.stop());

const call = (d: RouteDef, key?: string) => api(svc.url, d.method, samplePath(d.path), key, d.body ? {} : undefined);
const authed = ROUTES.filter((d) => d.scopes !== null);

describe('every route of the table', () => {
  it.each(authed.map((d) => [`${d.method} ${d.path}`, d] as const))('%s: no key gives 401 401000', async (_n, d) => {
    const r = await call(d);
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ code: 401000, detail: expect.any(String) });
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
  });

  it.each(authed.map((d) => [`${d.method} ${d.path}`, d] as const))('%s: a wrong key gives 401', async (_n, d) => {
    const r = await call(d, 'nfk_not-a-real-key');
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(401000);
  });

  const scoped = authed.filter((d) => d.scopes!.length > 0);
  it.each(scoped.map((d) => [`${d.method} ${d.path}`, d] as const))('%s: a key without its scope gives 403 403000', async (_n, d) => {
    const r = await call(d, keysWithout[d.scopes![0]!]);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ code: 403000, detail: expect.stringContaining(d.scopes![0]!) });
  });

  // admin routes refuse every API key, publisher or not (test/service/routes/admin.test.ts)
  const outside = authed.filter((d) => !d.publisher && !d.admin);
  it.each(outside.map((d) => [`${d.method} ${d.path}`, d] as const))('%s: a publisher key gives 403', async (_n, d) => {
    const r = await call(d, svc.keys.publisher);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(403000);
    expect(r.body.detail).toMatch(/publisher/);
  });

  it('ping needs no key', async () => {
    const r = await api(svc.url, 'GET', '/');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ app: 'newsflow', version: '0.32.4' });
  });
});

describe('organization and plan rules', () => {
  const hitShare = '/v1/distribution/stats/hit_share?domain_names=acme.com&start_date=1767225600&end_date=1767312000';
  it('lets publisher keys reach distribution, search, article lookup and DeepNews', async () => {
    for (const [m, p, body] of [
      ['GET', hitShare.replace('acme.com', 'dailypaper.com')],
      ['GET', '/v1/news/search?query=x'],
      ['GET', '/v1/news?article_ids=00000000-0000-4000-8000-000000000001'],
      ['GET', '/v1/news/00000000-0000-4000-8000-000000000001'],
      ['POST', '/v1/chat/deepnews', { messages: [{ role: 'user', content: 'q' }] }],
    ] as const) {
      const r = await api(svc.url, m, p, svc.keys.publisher, body);
      expect(r.status, `${m} ${p}`).not.toBe(403);
      expect(r.status).not.toBe(401);
    }
  });
  it('refuses personal keys on distribution', async () => {
    const { key } = await svc.services.keys.createKey({ name: 'p', scopes: ['news', 'profile'] });
    const r = await api(svc.url, 'GET', hitShare, key);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(403000);
  });
  it('refuses a legacy key on distribution with 403000', async () => {
    const r = await api(svc.url, 'GET', hitShare, svc.keys.legacy);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ code: 403000, detail: expect.stringMatching(/before the distribution scope/) });
    // the same key still searches
    expect((await api(svc.url, 'GET', '/v1/news/search', svc.keys.legacy)).status).not.toBe(403);
  });
  it('gates return_graphs and return_geo on the analyst plan', async () => {
    for (const p of ['return_graphs', 'return_geo']) {
      const free = await api(svc.url, 'GET', `/v1/news/search?${p}=true`, svc.keys.personal);
      expect(free.status).toBe(403);
      expect(free.body.detail).toContain(p);
      const analyst = await api(svc.url, 'GET', `/v1/news/search?${p}=true`, svc.keys.analyst);
      expect(analyst.status).not.toBe(403);
    }
    expect((await api(svc.url, 'GET', '/v1/news/search?return_geo=false', svc.keys.personal)).status).not.toBe(403);
  });
  it('gates reddit in stories on a paid plan and byok on enterprise', async () => {
    expect((await api(svc.url, 'GET', '/v1/stories?reddit=3', svc.keys.personal)).status).toBe(403);
    expect((await api(svc.url, 'GET', '/v1/stories?reddit=3', svc.keys.analyst)).status).not.toBe(403);
    expect((await api(svc.url, 'GET', '/v1/byok/anthropic', svc.keys.analyst)).status).toBe(403);
    expect((await api(svc.url, 'GET', '/v1/byok/anthropic', svc.keys.org)).status).not.toBe(403);
  });
  it('stops a revoked key', async () => {
    const { id, key } = await svc.services.keys.createKey({ name: 'r', scopes: ['profile'] });
    expect((await api(svc.url, 'GET', '/v1/profiles/me', key)).status).toBe(200);
    await svc.services.keys.revokeKey(id);
    expect((await api(svc.url, 'GET', '/v1/profiles/me', key)).status).toBe(401);
  });
});

describe('profile', () => {
  it('answers user and organization profiles', async () => {
    const user = await api(svc.url, 'GET', '/v1/profiles/me', svc.keys.analyst);
    expect(user.body.profile).toMatchObject({ identity_type: 'user', subscription: { plan: 'analyst', status: 'active' }, suspended: false });
    const org = await api(svc.url, 'GET', '/v1/profiles/me', svc.keys.org);
    expect(org.body.profile).toMatchObject({ identity_type: 'organization', subscription: { plan: 'enterprise' } });
  });
});

describe('OAuth2 client credentials', () => {
  const token = (clientId: string, secret: string, form: Record<string, string>) =>
    fetch(`${svc.url}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form),
    });

  it('issues a bearer token that works like the key, narrowed to the asked scopes', async () => {
    // the Python SDK adds offline and openid to what it asks for
    const res = await token(svc.keyIds.analyst!, svc.keys.analyst!, { grant_type: 'client_credentials', scope: 'news profile offline openid' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'news profile' });
    const t = String(body.access_token);
    expect((await api(svc.url, 'GET', '/v1/profiles/me', t)).status).toBe(200);
    const chat = await api(svc.url, 'GET', '/v1/chat/alerts', t);
    expect(chat.status).toBe(403); // chat was not asked for
  });
  it('refuses bad client credentials, grants and scopes', async () => {
    expect((await token(svc.keyIds.analyst!, 'nfk_wrong', { grant_type: 'client_credentials' })).status).toBe(401);
    const grant = await token(svc.keyIds.analyst!, svc.keys.analyst!, { grant_type: 'password' });
    expect(grant.status).toBe(400);
    expect(await grant.json()).toMatchObject({ code: 400000, error: 'unsupported_grant_type' });
    const scope = await token(svc.keyIds.analyst!, svc.keys.analyst!, { grant_type: 'client_credentials', scope: 'distribution' });
    expect(scope.status).toBe(400);
    expect(await scope.json()).toMatchObject({ error: 'invalid_scope' });
    const none = await fetch(`${svc.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(none.status).toBe(401);
  });
});

/**
 * Path ids longer than the router's default 100 characters (a domain name may have 253, a story's
 * url-safe title as many as its title) are looked up like any other id: 200, 404 or 422 with a
 * `{code, detail}` body, never the router's 414 with a body of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';

const LONG_DOMAIN = `${'newsroom-'.repeat(6)}a.${'regional-edition-'.repeat(5)}b.example.com`;
let svc: TestService;
let key: string;
beforeAll(async () => {
  svc = await startTestService();
  await svc.services.keys.createOrg({ name: 'longnames', domains: [LONG_DOMAIN] });
  key = (await svc.services.keys.createKey({ name: 'longnames', org: 'longnames', scopes: ['distribution', 'stories', 'chat'], plan: 'enterprise' })).key;
});
afterAll(async () => svc?.stop());

describe('path ids longer than 100 characters', () => {
  it('a domain name of more than 100 characters is found', async () => {
    expect(LONG_DOMAIN.length).toBeGreaterThan(100);
    const r = await api(svc.url, 'GET', `/v1/distribution/domains/${LONG_DOMAIN}`, key);
    expect(r.status).toBe(200);
    expect(r.body.name).toBe(LONG_DOMAIN);
  });

  it('an unknown story title of 300 characters is 404 404000', async () => {
    const r = await api(svc.url, 'GET', `/v1/stories/${'a-long-story-title-'.repeat(16)}`, key);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 404000, detail: expect.any(String) });
  });

  it('an alert id of 300 characters is 422 with the validation body', async () => {
    const r = await api(svc.url, 'GET', `/v1/chat/alerts/${'x'.repeat(300)}`, key);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail[0].loc).toEqual(['path', 'alert_id']);
  });
});

/**
 * Paths the official clients call that the interface routes elsewhere (../shared/spec/asknews-facts.md §11.3, §12.5):
 * they are in the route table with their scopes, not 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({
    keys: {
      all: { org: 'acme', scopes: ['news', 'stories', 'chat', 'profile'], plan: 'enterprise' },
      newsOnly: { org: 'acme', scopes: ['news'], plan: 'enterprise' },
      chatOnly: { org: 'acme', scopes: ['chat'], plan: 'enterprise' },
    },
  });
});
afterAll(async () => svc?.stop());

describe("the official clients' paths are routed with their scopes", () => {
  const cases = [
    { path: '/v1/reddit/search?keywords=election', scope: 'news', operationId: 'search_reddit' },
    { path: '/v1/openai/models', scope: 'chat', operationId: 'list_models' },
  ];
  it.each(cases)('GET $path is in the route table with scope $scope', ({ path, scope, operationId }) => {
    const d = ROUTES.find((r) => r.method === 'GET' && r.path === path.split('?')[0]);
    expect(d?.operationId).toBe(operationId);
    expect(d?.scopes).toEqual([scope]);
  });
  it.each(cases)('GET $path without a key is 401, with a key lacking $scope 403, never 404', async ({ path, scope }) => {
    expect((await api(svc.url, 'GET', path)).status).toBe(401);
    const other = scope === 'news' ? svc.keys.chatOnly : svc.keys.newsOnly;
    const r = await api(svc.url, 'GET', path, other);
    expect(r.status).toBe(403);
    expect(r.body.detail).toContain(`"${scope}" scope`);
  });
  it.each(cases)('GET $path with the scope reaches its handler: 501 naming the operation until its issue lands', async ({ path, operationId }) => {
    const r = await api(svc.url, 'GET', path, svc.keys.all);
    if (r.status === 501) expect(r.body).toEqual({ code: 501000, detail: expect.stringContaining(operationId) });
    else expect(r.status).toBe(200);
  });
});

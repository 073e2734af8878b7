/** GET /v1/wiki/search over HTTP: the response of the interface, its bounds (422 naming the field), scope, and 503 without a store. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { sharedDir } from '../../helpers/paths.js';
import { WikiSearchResponse } from '../../../spec/index.js';
import { NewsClient } from '../../../client/client.js';

const HERMITIAN = path.join(sharedDir, 'data', 'html', 'readability', 'wikipedia-3');
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ keys: { org: { org: 'acme', scopes: ['news'], plan: 'enterprise' }, chatonly: { scopes: ['chat'], plan: 'enterprise' } } });
  const r = await svc.services.wiki!.load(HERMITIAN);
  expect(r.loaded).toBe(1);
}, 300_000);
afterAll(async () => svc?.stop());

const search = (qs: string, key = svc.keys.org) => api(svc.url, 'GET', `/v1/wiki/search${qs}`, key);

describe('GET /v1/wiki/search', () => {
  it('answers documents of the interface for a question, with cirrus metadata from the page', async () => {
    const r = await search('?query=Are%20the%20eigenvalues%20of%20a%20Hermitian%20matrix%20real%3F&n_documents=1');
    expect(r.status, r.text).toBe(200);
    expect(() => WikiSearchResponse.parse(r.body)).not.toThrow();
    expect(r.body.documents.length).toBeGreaterThan(0);
    const d = r.body.documents[0];
    expect(d).toMatchObject({
      title: 'Hermitian matrix',
      url: 'https://en.wikipedia.org/wiki/Hermitian_matrix',
      timestamp: '2020-02-24T20:33:46.000Z',
      categories: ['Matrices'],
    });
    expect(d.cirrus_metadata).toMatchObject({ create_timestamp: '2003-02-28T21:51:08.000Z', wikibase_item: 'Q652941', version: 942460710 });
    expect(d.content).toMatch(/Hermitian/);
    expect(typeof d.point_id).toBe('string');
  });

  it('repeated string_guarantee parameters all hold; a string no chunk holds gives an empty list', async () => {
    const r = await search('?query=matrix&string_guarantee=Rayleigh&string_guarantee=quotient&neighbor_chunks=0');
    expect(r.status).toBe(200);
    expect(r.body.documents.length).toBeGreaterThan(0);
    for (const d of r.body.documents) {
      expect(d.content).toContain('Rayleigh');
      expect(d.content).toContain('quotient');
    }
    const none = await search('?query=matrix&string_guarantee=zzzz-not-in-any-page');
    expect(none.status).toBe(200);
    expect(none.body).toEqual({ documents: [] });
  });

  it.each([
    ['n_documents', '0'],
    ['n_documents', '21'],
    ['neighbor_chunks', '11'],
    ['diversify', '2'],
  ])('answers 422 naming %s for %s', async (field, value) => {
    const r = await search(`?query=matrix&${field}=${value}`);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail.some((i: { loc: unknown[] }) => i.loc.includes(field))).toBe(true);
  });

  it('the client reads it (searchWiki, string_guarantee as repeated parameters)', async () => {
    const c = new NewsClient({ baseUrl: `${svc.url}/v1`, apiKey: svc.keys.org });
    const r = await c.searchWiki({ query: 'Rayleigh quotient', n_documents: 1, neighbor_chunks: 0, string_guarantee: ['Rayleigh', 'min-max'] });
    expect(r.documents.length).toBeGreaterThan(0);
    expect(r.documents[0]!.title).toBe('Hermitian matrix');
    for (const d of r.documents) expect(d.content).toContain('min-max');
    await c.close();
  });

  it('needs the news scope', async () => {
    expect((await search('?query=matrix', svc.keys.chatonly)).status).toBe(403);
    expect((await api(svc.url, 'GET', '/v1/wiki/search?query=matrix')).status).toBe(401);
  });

  it('answers 503 when the service runs without the encyclopedia store', async () => {
    const wiki = svc.services.wiki;
    svc.services.wiki = undefined;
    try {
      const r = await search('?query=matrix');
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ code: 503000, detail: expect.stringMatching(/encyclopedia/) });
    } finally {
      svc.services.wiki = wiki;
    }
  });
});

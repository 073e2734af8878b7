/**
 * The URLs the service hands out (a graph's triples_url and visualize_url) start with its public
 * base URL: NEWSFLOW_PUBLIC_URL, else the address it listens on; never with the Host or
 * X-Forwarded-* headers of the request, which the caller chooses.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePublicUrl, ServiceConfigError, serviceConfig } from '../../service/config.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore() });
});
afterAll(async () => svc?.stop());

const EVIL = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-for': '203.0.113.7',
  forwarded: 'for=203.0.113.7;host=evil.example;proto=https',
};

/** POST a graph request with the headers a caller chooses; the answer's status and text. */
function buildGraph(headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const u = new URL(svc.url);
  const body = JSON.stringify({ query: 'election', visualize_with: 'html', filter_params: { n_articles: 5, historical: true } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/v1/news/graph',
        headers: { ...headers, authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the URLs the service hands out', () => {
  it('start with the listen address by default; Host: evil.example and X-Forwarded-* appear in no returned URL', async () => {
    const r = await buildGraph(EVIL);
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('evil.example');
    const g = JSON.parse(r.text) as { triples_url: string; visualize_url: string };
    expect(g.triples_url).toMatch(new RegExp(`^${svc.url}/v1/news/graph/[0-9a-f-]{36}/triples$`));
    expect(g.visualize_url).toMatch(new RegExp(`^${svc.url}/v1/news/graph/[0-9a-f-]{36}/view$`));
    // and they work: the capability opens without a key
    expect((await fetch(g.triples_url)).status).toBe(200);
  });

  it('start with NEWSFLOW_PUBLIC_URL when it is set (a path prefix kept, a trailing slash dropped), whatever the request says', async () => {
    const before = svc.services.config.publicUrl;
    svc.services.config.publicUrl = parsePublicUrl('https://news.example.org/api/');
    try {
      const r = await buildGraph(EVIL);
      expect(r.status).toBe(200);
      expect(r.text).not.toContain('evil.example');
      const g = JSON.parse(r.text) as { triples_url: string; visualize_url: string };
      expect(g.triples_url).toMatch(/^https:\/\/news\.example\.org\/api\/v1\/news\/graph\/[0-9a-f-]{36}\/triples$/);
      expect(g.visualize_url).toMatch(/^https:\/\/news\.example\.org\/api\/v1\/news\/graph\/[0-9a-f-]{36}\/view$/);
    } finally {
      svc.services.config.publicUrl = before;
    }
  });

  it('NEWSFLOW_PUBLIC_URL is read from the environment and must be an http(s) URL without credentials, query or fragment', () => {
    expect(serviceConfig({}, { NEWSFLOW_PUBLIC_URL: 'http://news.example.org:8443' }).publicUrl).toBe('http://news.example.org:8443');
    expect(serviceConfig({}, {}).publicUrl).toBeUndefined();
    for (const bad of [
      'news.example.org',
      'ftp://news.example.org',
      'https://u:p@news.example.org',
      'https://news.example.org/?a=1',
      'https://news.example.org/#x',
    ]) {
      expect(() => serviceConfig({}, { NEWSFLOW_PUBLIC_URL: bad }), bad).toThrow(ServiceConfigError);
      expect(() => parsePublicUrl(bad), bad).toThrow(/NEWSFLOW_PUBLIC_URL/);
    }
  });
});

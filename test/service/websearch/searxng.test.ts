/**
 * The SearXNG provider: a local HTTP server speaking SearXNG's JSON API (`/search?format=json`),
 * its results pointing at loopback pages; the service fetches and reads the pages through the
 * SSRF-safe fetcher and distils them. A result that cannot be fetched keeps SearXNG's snippet;
 * a SearXNG that fails is a 502.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { WebSearchResponse } from '../../../spec/index.js';
import type { Answered } from '../../helpers/news.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';
import { expectedMeta, pagesDir, servePages } from '../../helpers/readability-pages.js';

let svc: TestService;
let pages: PageServer;
let searx: PageServer;
let urls: Map<string, string>;
const asked: URLSearchParams[] = [];
let failing = false;

beforeAll(async () => {
  pages = await startPageServer();
  urls = servePages(pages);
  searx = await startPageServer('127.0.0.2');
  searx.routes.set('/search', (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    asked.push(q);
    if (failing) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('boom');
    if (q.get('format') !== 'json') return void res.writeHead(403).end();
    const page = Number(q.get('pageno') ?? 1);
    const names = page === 1 ? ['quanta-1', 'guardian-1', 'bbc-1'] : [];
    const results = names.map((n) => ({
      url: urls.get(n),
      title: `${expectedMeta(n).title} (searx title)`,
      content: `snippet of ${n}`,
      engine: 'test',
      publishedDate: null as string | null,
    }));
    if (page === 1)
      results.push({
        url: `${pages.origin}/gone/`,
        title: 'A page that is gone',
        content: 'the snippet of a page that is gone',
        engine: 'test',
        publishedDate: '2024-05-01T10:00:00',
      });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: q.get('q'), number_of_results: results.length, results }));
  });
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  process.env.NEWSFLOW_SEARXNG_URL = searx.origin;
  svc = await startTestService({ limitsText: 'chat=1000:1000:100' });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await pages?.close();
  await searx?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
  delete process.env.NEWSFLOW_SEARXNG_URL;
});

const search = async (q: string) => {
  const r = await api(svc.url, 'GET', `/v1/chat/websearch?${q}`, svc.keys.org);
  return { ...r, body: r.body as Answered<z.infer<typeof WebSearchResponse>> };
};

describe('web search through SearXNG', () => {
  it('asks SearXNG for JSON, fetches the result pages and distils them', async () => {
    const before = pages.connections;
    const r = await search('queries=chaos%20computing%20pioneers');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(asked[0]!.get('q')).toBe('chaos computing pioneers');
    expect(asked[0]!.get('format')).toBe('json');
    const byUrl = new Map(r.body.as_dicts.map((d) => [d.url, d]));
    const quanta = byUrl.get(urls.get('quanta-1')!)!;
    console.log(r.body.as_string.slice(0, 900));
    // read from the page itself: its own title and text, not SearXNG's
    expect(quanta.title).toBe(expectedMeta('quanta-1').title);
    const source = fs.readFileSync(path.join(pagesDir, 'quanta-1', 'source.html'), 'utf8');
    expect(quanta.raw_text.length).toBeGreaterThan(2000);
    expect(source).toContain(quanta.raw_text.slice(0, 40));
    expect(quanta.key_points.length).toBeGreaterThan(0);
    expect(quanta.key_points.join(' ')).not.toContain('snippet of');
    expect(pages.connections).toBeGreaterThan(before);
  });

  it('keeps the snippet of a result it could not fetch, and its published time', async () => {
    const r = await search('queries=chaos');
    const gone = r.body.as_dicts.find((d) => d.title === 'A page that is gone');
    expect(gone).toMatchObject({
      key_points: ['the snippet of a page that is gone'],
      raw_text: 'the snippet of a page that is gone',
      published: '2024-05-01T10:00:00.000Z',
    });
  });

  it('passes one strict domain as site: and a lookback as time_range, and keeps results to the domain', async () => {
    asked.length = 0;
    const r = await search('queries=chaos&domains=127.0.0.1&strict=true&lookback=24');
    expect(r.status).toBe(200);
    expect(asked[0]!.get('q')).toBe('chaos site:127.0.0.1');
    expect(asked[0]!.get('time_range')).toBe('day');
    // strict with a window: results without a known published time are dropped before fetching
    expect(r.body.as_dicts).toEqual([]);
  });

  it('answers 502 naming the provider when SearXNG fails', async () => {
    failing = true;
    try {
      const r = await search('queries=anything');
      expect(r.status).toBe(502);
      expect(r.body).toEqual({ code: 502000, detail: 'searxng provider failed: HTTP 500' });
    } finally {
      failing = false;
    }
  });

  it("fetches result pages under the fetch policy (the SearXNG server itself is the operator's)", async () => {
    // the pages server is allowed by NEWSFLOW_FETCH_ALLOW=127.0.0.1; a result on 127.0.0.2 (not allowed) keeps its snippet
    searx.routes.set('/search', (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ results: [{ url: `${searx.origin}/private-page`, title: 'private', content: 'private snippet' }] })),
    );
    let pageRequests = 0;
    searx.routes.set('/private-page', (_req, res) => {
      pageRequests++;
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>private</p></body></html>');
    });
    const r = await search('queries=private');
    expect(r.body.as_dicts).toMatchObject([{ title: 'private', key_points: ['private snippet'] }]);
    expect(pageRequests).toBe(0);
  });
});

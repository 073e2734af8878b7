/** SearXNG's time_range comes from the window's own "now", however long after it the request is made. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearxngProvider } from '../../../service/websearch/providers.js';
import { PageFetcher } from '../../../lib/fetch/fetcher.js';

const asked: URLSearchParams[] = [];
let server: http.Server;
let base: string;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    asked.push(new URL(req.url!, 'http://x').searchParams);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

describe('SearXNG time_range', () => {
  it('a 24-hour lookback is "day" even when the clock moved on since the window was computed', async () => {
    let t = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => (t += 5); // every read of the clock is 5 ms later
    const provider = new SearxngProvider(base, new PageFetcher(), clock);
    const now = clock();
    for (const [hours, range] of [
      [24, 'day'],
      [24 * 7, 'week'],
      [24 * 31, 'month'],
    ] as const) {
      asked.length = 0;
      await provider.search({ queries: ['q'], from: now - hours * 3_600_000, to: null, domains: [], strict: false, offset: 0, limit: 10, now });
      expect(asked[0]!.get('time_range'), `${hours} h`).toBe(range);
    }
  });
});

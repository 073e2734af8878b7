/** lib/feeds/robots.ts: robots.txt rules for our agent, cached per origin; 4xx allows all, 5xx disallows all for a while. */
import { describe, expect, it } from 'vitest';
import { FetchRefused } from '../../../lib/fetch/fetcher.js';
import { ROBOTS_DEFAULTS, RobotsCache, robotsRules } from '../../../lib/feeds/robots.js';

describe('robots.txt', () => {
  it('applies the group of our agent: its disallows and its Crawl-delay', () => {
    const r = robotsRules('https://news.example/robots.txt', 'User-agent: *\nDisallow: /\n\nUser-agent: newsflow\nDisallow: /private/\nCrawl-delay: 3\n');
    expect(r.allowed('https://news.example/feeds/all.rss')).toBe(true);
    expect(r.allowed('https://news.example/private/feed.rss')).toBe(false);
    expect(r.crawlDelayMs).toBe(3000);
  });

  it('falls back to the * group, and caps a huge Crawl-delay', () => {
    const r = robotsRules('https://news.example/robots.txt', 'User-agent: *\nDisallow: /drafts/\nCrawl-delay: 3600\n');
    expect(r.allowed('https://news.example/drafts/x.rss')).toBe(false);
    expect(r.crawlDelayMs).toBe(ROBOTS_DEFAULTS.maxCrawlDelayMs);
  });

  it('reads robots.txt once per origin while cached; a 404 allows everything; a 503 disallows everything until asked again', async () => {
    let now = 0;
    const asked: string[] = [];
    const answers: Record<string, () => { status: number; body: string }> = {
      'https://a.example/robots.txt': () => ({ status: 200, body: 'User-agent: newsflow\nDisallow: /x/\n' }),
      'https://b.example/robots.txt': () => {
        throw new FetchRefused('http_status', 'HTTP 404', 'https://b.example/robots.txt', 404);
      },
      'https://c.example/robots.txt': () => {
        throw new FetchRefused('http_status', 'HTTP 503', 'https://c.example/robots.txt', 503);
      },
    };
    const cache = new RobotsCache(
      async (u) => {
        asked.push(u);
        return answers[u]!();
      },
      { now: () => now },
    );
    expect((await cache.rulesFor('https://a.example/x/feed')).allowed('https://a.example/x/feed')).toBe(false);
    expect((await cache.rulesFor('https://a.example/y/feed')).allowed('https://a.example/y/feed')).toBe(true);
    expect((await cache.rulesFor('https://b.example/feed')).allowed('https://b.example/feed')).toBe(true);
    const c = await cache.rulesFor('https://c.example/feed');
    expect(c.kind).toBe('unavailable');
    expect(c.allowed('https://c.example/feed')).toBe(false);
    expect(asked).toEqual(['https://a.example/robots.txt', 'https://b.example/robots.txt', 'https://c.example/robots.txt']);
    now += ROBOTS_DEFAULTS.errorTtlMs + 1;
    await cache.rulesFor('https://c.example/feed');
    await cache.rulesFor('https://a.example/feed');
    expect(asked.slice(3)).toEqual(['https://c.example/robots.txt']);
  });
});

describe('the robots.txt cache is bounded', () => {
  it('keeps at most maxOrigins origins, the least recently used going first', async () => {
    const cache = new RobotsCache(async () => ({ status: 200, body: 'User-agent: *\nAllow: /\n' }), { maxOrigins: 50 });
    await cache.rulesFor('https://keep.example/a');
    for (let i = 0; i < 500; i++) {
      await cache.rulesFor(`https://o${i}.example/x`);
      if (i % 10 === 0) await cache.rulesFor('https://keep.example/a');
    }
    console.log(`origins cached after 501 origins with maxOrigins 50: ${cache.size}`);
    expect(cache.size).toBe(50);
  });
});

/**
 * robots.txt of the hosts feeds are polled from (RFC 9309), read with robots-parser, for our user
 * agent token `newsflow` (the fetcher's User-Agent is `newsflow-fetch/...`; robots groups name the
 * product token). Per origin (scheme, host, port), cached:
 * - 2xx: its rules, for ROBOTS_DEFAULTS.ttlMs (24 h, the RFC's longest cache);
 * - 4xx (404 and the others): no robots.txt, everything allowed, cached as long;
 * - 5xx, or unreachable: everything disallowed (the RFC's "complete disallow"), for
 *   ROBOTS_DEFAULTS.errorTtlMs (15 min), then asked again.
 * `Crawl-delay` (seconds) becomes the host's politeness delay (lib/feeds/host-gate.ts).
 */
import { createRequire } from 'node:module';
import { FetchRefused } from '../fetch/fetcher.js';

// robots-parser is CommonJS whose types declare an ES default export: loaded as the function it exports
const robotsParser = createRequire(import.meta.url)('robots-parser') as typeof import('robots-parser').default;

export const ROBOTS_USER_AGENT = 'newsflow';

export const ROBOTS_DEFAULTS = { ttlMs: 24 * 3_600_000, errorTtlMs: 15 * 60_000, maxCrawlDelayMs: 60_000 } as const;

export interface RobotsRules {
  /** where the rules came from: `rules` (a robots.txt), `none` (4xx: all allowed), `unavailable` (5xx or unreachable: all disallowed) */
  kind: 'rules' | 'none' | 'unavailable';
  allowed(url: string): boolean;
  /** Crawl-delay for our agent (capped at maxCrawlDelayMs), null when none */
  crawlDelayMs: number | null;
  /** why robots.txt is unavailable */
  detail: string | null;
}

/** How robots.txt is read: a GET of the URL, the body as text (the caller's fetcher, politeness and all). */
export type RobotsFetch = (robotsUrl: string) => Promise<{ status: number; body: string }>;

const ALL: RobotsRules = { kind: 'none', allowed: () => true, crawlDelayMs: null, detail: null };
const unavailable = (detail: string): RobotsRules => ({ kind: 'unavailable', allowed: () => false, crawlDelayMs: null, detail });

/** The rules of a robots.txt text, as robots-parser reads them for our agent. */
export function robotsRules(robotsUrl: string, text: string, maxCrawlDelayMs: number = ROBOTS_DEFAULTS.maxCrawlDelayMs): RobotsRules {
  const r = robotsParser(robotsUrl, text);
  const delay = r.getCrawlDelay(ROBOTS_USER_AGENT);
  return {
    kind: 'rules',
    // a URL robots-parser cannot place (another origin) is not ours to refuse
    allowed: (url) => r.isAllowed(url, ROBOTS_USER_AGENT) !== false,
    crawlDelayMs: typeof delay === 'number' && delay > 0 ? Math.min(delay * 1000, maxCrawlDelayMs) : null,
    detail: null,
  };
}

/** Origins whose rules a cache keeps (the least recently used go first): a poller of many feeds does not grow it forever. */
export const ROBOTS_MAX_ORIGINS = 10_000;

export class RobotsCache {
  private readonly cache = new Map<string, { rules: RobotsRules; until: number }>();
  private readonly pending = new Map<string, Promise<RobotsRules>>();

  constructor(
    private readonly fetchRobots: RobotsFetch,
    private readonly opts: { ttlMs?: number; errorTtlMs?: number; maxCrawlDelayMs?: number; now?: () => number; maxOrigins?: number } = {},
  ) {}

  /** Origins cached now. */
  get size(): number {
    return this.cache.size;
  }

  private now = () => (this.opts.now ?? Date.now)();

  /** The rules for the origin of `url` (fetched once per origin at a time, then cached). */
  async rulesFor(url: string): Promise<RobotsRules> {
    const origin = new URL(url).origin;
    const hit = this.cache.get(origin);
    if (hit && hit.until > this.now()) {
      // most recently used last (the Map's order is the eviction order)
      this.cache.delete(origin);
      this.cache.set(origin, hit);
      return hit.rules;
    }
    let p = this.pending.get(origin);
    if (!p) {
      p = this.load(origin).finally(() => this.pending.delete(origin));
      this.pending.set(origin, p);
    }
    return p;
  }

  /** The cached rules for the origin of `url` while fresh, without fetching; undefined when not cached. */
  cached(url: string): RobotsRules | undefined {
    const hit = this.cache.get(new URL(url).origin);
    return hit && hit.until > this.now() ? hit.rules : undefined;
  }

  /** Forget an origin's rules (a test changed them; an operator asked). */
  forget(url: string): void {
    this.cache.delete(new URL(url).origin);
  }

  private async load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    let rules: RobotsRules;
    let ttl = this.opts.ttlMs ?? ROBOTS_DEFAULTS.ttlMs;
    try {
      const r = await this.fetchRobots(robotsUrl);
      rules = r.status >= 200 && r.status < 300 ? robotsRules(robotsUrl, r.body, this.opts.maxCrawlDelayMs) : ALL;
    } catch (e) {
      const status = e instanceof FetchRefused ? e.status : undefined;
      if (status !== undefined && status >= 400 && status < 500) rules = ALL;
      else {
        rules = unavailable(`${robotsUrl}: ${(e as Error).message}`);
        ttl = this.opts.errorTtlMs ?? ROBOTS_DEFAULTS.errorTtlMs;
      }
    }
    this.cache.delete(origin);
    this.cache.set(origin, { rules, until: this.now() + ttl });
    const max = this.opts.maxOrigins ?? ROBOTS_MAX_ORIGINS;
    for (const k of this.cache.keys()) {
      if (this.cache.size <= max) break;
      this.cache.delete(k);
    }
    return rules;
  }
}

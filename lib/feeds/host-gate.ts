/**
 * Politeness per host (host and port, as a URL names them): one request at a time, a delay
 * between the end of one and the start of the next (HOST_GATE_DEFAULTS.delayMs, 1 s; raised to a
 * robots.txt Crawl-delay), and a back-off after 429 or 503 until the time its Retry-After names.
 *
 * One gate per worker process. The poll workflow gives all sources of a host to one activity, so
 * no two processes poll one host at once; the gate keeps the requests of that activity (robots.txt,
 * the feeds, a sitemap index's sitemaps) one at a time and spaced.
 */

export const HOST_GATE_DEFAULTS = { delayMs: 1000 } as const;

/** The host is backed off (429/503 with Retry-After) until `until` (epoch ms). */
export class HostBackedOff extends Error {
  override readonly name = 'HostBackedOff';
  constructor(
    readonly host: string,
    readonly until: number,
  ) {
    super(`${host} asked us to wait until ${new Date(until).toISOString()}`);
  }
}

interface HostState {
  /** the end of the last request, epoch ms (null before the first) */
  lastEnd: number | null;
  /** the requests of this host, chained */
  tail: Promise<unknown>;
  crawlDelayMs: number | null;
  backedOffUntil: number;
}

export const hostOf = (url: string): string => new URL(url).host.toLowerCase();

export class HostGate {
  private readonly hosts = new Map<string, HostState>();

  constructor(private readonly opts: { delayMs?: number; now?: () => number; sleep?: (ms: number) => Promise<void> } = {}) {}

  private now = () => (this.opts.now ?? Date.now)();
  private sleep = (ms: number) => (this.opts.sleep ?? ((t: number) => new Promise<void>((r) => setTimeout(r, t))))(ms);

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) this.hosts.set(host, (s = { lastEnd: null, tail: Promise.resolve(), crawlDelayMs: null, backedOffUntil: 0 }));
    return s;
  }

  /** The delay between two requests to `host`: the default, or the host's Crawl-delay when longer. */
  delayFor(host: string): number {
    return Math.max(this.opts.delayMs ?? HOST_GATE_DEFAULTS.delayMs, this.hosts.get(host)?.crawlDelayMs ?? 0);
  }

  setCrawlDelay(host: string, ms: number | null): void {
    this.state(host).crawlDelayMs = ms;
  }

  /** Back off `host` until `until` (a 429 or 503 with Retry-After): its requests throw HostBackedOff until then. */
  backOff(host: string, until: number): void {
    const s = this.state(host);
    s.backedOffUntil = Math.max(s.backedOffUntil, until);
  }

  /** Until when `host` is backed off, or null. */
  backedOffUntil(host: string): number | null {
    const u = this.hosts.get(host)?.backedOffUntil ?? 0;
    return u > this.now() ? u : null;
  }

  /**
   * Run one request to `host`: after the host's request before it has ended and the delay has
   * passed. Throws HostBackedOff (without running `fn`) while the host is backed off.
   */
  run<T>(host: string, fn: () => Promise<T>): Promise<T> {
    const s = this.state(host);
    const go = async (): Promise<T> => {
      const until = this.backedOffUntil(host);
      if (until) throw new HostBackedOff(host, until);
      const wait = s.lastEnd === null ? 0 : s.lastEnd + this.delayFor(host) - this.now();
      if (wait > 0) await this.sleep(wait);
      try {
        return await fn();
      } finally {
        s.lastEnd = this.now();
      }
    };
    const next = s.tail.then(go, go);
    s.tail = next.catch(() => undefined);
    return next;
  }
}

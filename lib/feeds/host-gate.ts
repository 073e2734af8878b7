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

/** Hosts a gate remembers (the least recently used idle ones go first): a poller of many hosts does not grow it forever. */
export const HOST_GATE_MAX_HOSTS = 10_000;

export class HostGate {
  private readonly hosts = new Map<string, HostState>();
  /** requests queued or running per host: a host with any is never forgotten (its order would be lost) */
  private readonly active = new Map<string, number>();

  constructor(private readonly opts: { delayMs?: number; now?: () => number; sleep?: (ms: number) => Promise<void>; maxHosts?: number } = {}) {}

  /** Hosts remembered now. */
  get size(): number {
    return this.hosts.size;
  }

  /**
   * Forget the least recently used hosts beyond maxHosts that are idle: no request queued or
   * running, not backed off, and their delay since the last request over (forgetting one then
   * loses nothing: its next request may go at once anyway).
   */
  private evict(): void {
    const max = this.opts.maxHosts ?? HOST_GATE_MAX_HOSTS;
    if (this.hosts.size <= max) return;
    const now = this.now();
    for (const [host, s] of this.hosts) {
      if (this.hosts.size <= max) break;
      if (this.active.has(host) || s.backedOffUntil > now) continue;
      if (s.lastEnd !== null && s.lastEnd + this.delayFor(host) > now) continue;
      this.hosts.delete(host);
    }
  }

  private now = () => (this.opts.now ?? Date.now)();
  private sleep = (ms: number) => (this.opts.sleep ?? ((t: number) => new Promise<void>((r) => setTimeout(r, t))))(ms);

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (s) {
      // most recently used last (the Map's order is the eviction order)
      this.hosts.delete(host);
      this.hosts.set(host, s);
    } else {
      this.hosts.set(host, (s = { lastEnd: null, tail: Promise.resolve(), crawlDelayMs: null, backedOffUntil: 0 }));
      this.evict();
    }
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
    this.active.set(host, (this.active.get(host) ?? 0) + 1);
    const done = () => {
      const n = (this.active.get(host) ?? 1) - 1;
      if (n > 0) this.active.set(host, n);
      else this.active.delete(host);
    };
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
    const next = s.tail.then(go, go).finally(done);
    s.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * Which methods a URL allows, from the route table: the path of the table that a URL belongs to
 * is the most specific one that matches it (a static segment beats a parameter, segment by
 * segment, as the router does), so `/v1/news/graph` is POST only although
 * `/v1/news/{article_id}` (GET) matches it too. A method that path does not serve is 405 with
 * `Allow` listing exactly the methods of that path, in table order.
 *
 * HEAD is answered wherever GET is (the router's automatic HEAD routes) and never listed.
 * OPTIONS is not served: it is 405 with the same `Allow` (the header answers what OPTIONS asks;
 * the API has no CORS preflight to serve).
 */
export interface PathMethods {
  /** OpenAPI-style path, e.g. /v1/news/{article_id} */
  path: string;
  methods: string[];
}

interface Compiled extends PathMethods {
  re: RegExp;
  /** per segment: true where the segment is a parameter */
  params: boolean[];
}

const segments = (p: string) => p.split('/').slice(1);

export class AllowTable {
  private readonly paths: Compiled[];

  constructor(routes: { method: string; path: string }[]) {
    const byPath = new Map<string, string[]>();
    for (const r of routes) {
      const ms = byPath.get(r.path) ?? [];
      if (!ms.includes(r.method)) ms.push(r.method);
      byPath.set(r.path, ms);
    }
    this.paths = [...byPath].map(([path, methods]) => ({
      path,
      methods,
      re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
      params: segments(path).map((s) => /^\{[^}]+\}$/.test(s)),
    }));
  }

  /** The table path a URL (path and query) belongs to, or null when none matches. */
  match(url: string): PathMethods | null {
    const path = url.split('?')[0]!;
    let best: Compiled | null = null;
    for (const c of this.paths) {
      if (!c.re.test(path)) continue;
      if (!best || moreSpecific(c, best)) best = c;
    }
    return best && { path: best.path, methods: best.methods };
  }

  /** The methods a URL allows; null when no path of the table matches it. */
  allowed(url: string): string[] | null {
    return this.match(url)?.methods ?? null;
  }

  /** Whether a method may go on to the router (HEAD goes wherever GET does). */
  static permits(methods: string[], method: string): boolean {
    return methods.includes(method) || (method === 'HEAD' && methods.includes('GET'));
  }
}

/** a is more specific than b: at the first segment where they differ, a is static and b a parameter. */
function moreSpecific(a: Compiled, b: Compiled): boolean {
  for (let i = 0; i < Math.min(a.params.length, b.params.length); i++) {
    if (a.params[i] !== b.params[i]) return !a.params[i];
  }
  return false;
}

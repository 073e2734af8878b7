/**
 * The try_cache response cache of GET /v1/news/search: answers by (key, parameters sent), each
 * kept for its `try_cache` TTL. Bounded: at most `max` entries; when full, expired entries go
 * first, then the oldest one.
 */
import crypto from 'node:crypto';
import type { SearchParamsParsed, SearchResponse } from '../../spec/index.js';

export interface CachedSearch {
  /** epoch ms the entry expires at */
  until: number;
  body: SearchResponse;
  /** credits of the search that filled it (a hit costs a share of them) */
  credits: number;
  /** the articles it returned: a hit records their surface hits again */
  articles: { id: string; domain: string }[];
}

export class SearchCache {
  private readonly entries = new Map<string, CachedSearch>();

  constructor(
    private readonly clock: () => number,
    private readonly max = 10_000,
  ) {}

  /** The key of a search: the caller's key id, the parameters parsed (but the TTL) and the names it sent. */
  static keyOf(keyId: string | null | undefined, p: SearchParamsParsed, given: Set<string>): string {
    const { try_cache: _ttl, ...rest } = p;
    return crypto
      .createHash('sha1')
      .update(JSON.stringify([keyId, rest, [...given].sort()]))
      .digest('hex');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The live entry of `key`, if any. */
  get(key: string): CachedSearch | undefined {
    const hit = this.entries.get(key);
    return hit && hit.until > this.clock() ? hit : undefined;
  }

  set(key: string, entry: CachedSearch): void {
    if (this.entries.size >= this.max) {
      const now = this.clock();
      for (const [k, v] of this.entries) if (v.until <= now) this.entries.delete(k);
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(key, entry);
  }
}

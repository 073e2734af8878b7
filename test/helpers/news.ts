/** Helpers for tests on the seeded corpus service. */

import type { z } from 'zod';
import type { ErrorBody, SearchResponse } from '../../spec/index.js';
import { startTestService, type TestService } from './service.js';
import { seededCorpusStore } from './corpus-store.js';

/** The corpus' newest headline is 2022-07-11 04:18 UTC; the clock stands a few hours later. */
export const NOW = Date.parse('2022-07-11T12:00:00Z');

export async function startCorpusService(opts: { limitsText?: string; clock?: () => number } = {}): Promise<TestService> {
  return startTestService({
    corpusStore: await seededCorpusStore(),
    clock: opts.clock ?? (() => NOW),
    limitsText: opts.limitsText ?? 'news=1000:1000:50,distribution=1000:1000:50',
  });
}

export type Query = Record<string, string | number | boolean | (string | number)[] | undefined>;
export function qs(q: Query): string {
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    for (const x of Array.isArray(v) ? v : [v]) sp.append(k, String(x));
  }
  return sp.toString();
}

export interface Dict {
  article_id: string;
  title: string;
  domain_url: string;
  pub_date: string;
  crawl_date: string | null;
  country: string;
  continent: string | null;
  language: string;
  classification: string[];
  sentiment: number;
  provocative: string;
  reporting_voice: string;
  page_rank: number;
  entities: Record<string, string[]>;
  geo_coordinates: Record<string, { latitude: number; longitude: number }> | null;
  entity_relation_graph: { nodes: Record<string, string>[]; edges: Record<string, string>[] } | null;
  [k: string]: unknown;
}

/**
 * A JSON answer's body read as the route's 200 shape `T`; on another status it is the error body
 * `{code, detail}` (spec/errors.ts `ErrorBody`), so a test checks the status before the fields of `T`.
 */
export type Answered<T> = T & Partial<z.infer<typeof ErrorBody>>;

export async function search(
  svc: TestService,
  q: Query,
  key = svc.keys.org!,
): Promise<{ status: number; body: Answered<SearchResponse>; dicts: Dict[]; headers: Headers }> {
  const res = await fetch(`${svc.url}/v1/news/search?${qs(q)}`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await res.json()) as Answered<SearchResponse>;
  return { status: res.status, body, dicts: (body.as_dicts ?? []) as Dict[], headers: res.headers };
}

export const sql = <T = Record<string, unknown>>(svc: TestService, q: string, p?: unknown[]) => svc.services.db.all<T>(q, p as never);

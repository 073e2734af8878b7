import { describe, expect, it } from 'vitest';
import {
  ArticlesQuery,
  CreateAlertRequest,
  HitShareQuery,
  SearchParams,
  SearchResponseDictItem,
  TopNForDomainsQuery,
  cronError,
  sameUtcMonth,
} from '../../spec/index.js';

const utc = (s: string) => Date.parse(`${s}Z`) / 1000;
const ring = (pts: [number, number][]) => pts.map(([lon, lat]) => ({ lon, lat }));
const square = ring([
  [0, 0],
  [10, 0],
  [10, 10],
  [0, 10],
  [0, 0],
]);

describe('search parameter rules', () => {
  it('bounds n_articles to 1..101', () => {
    expect(SearchParams.safeParse({ n_articles: 0 }).success).toBe(false);
    expect(SearchParams.safeParse({ n_articles: 101 }).success).toBe(true);
    expect(SearchParams.safeParse({ n_articles: 102 }).success).toBe(false);
  });
  it('takes offset as an integer or a UUID', () => {
    expect(SearchParams.safeParse({ offset: 20 }).success).toBe(true);
    expect(SearchParams.safeParse({ offset: '5f0c8b8e-8d0e-4a8e-9a39-0f7a3a1f2b3c' }).success).toBe(true);
    expect(SearchParams.safeParse({ offset: 'page-2' }).success).toBe(false);
    expect(SearchParams.safeParse({ offset: -1 }).success).toBe(false);
  });
  it('accepts reporting_voice and domain_url as one value or a list', () => {
    expect(SearchParams.parse({ reporting_voice: 'Objective' }).reporting_voice).toBe('Objective');
    expect(SearchParams.parse({ reporting_voice: ['Objective', 'all'] }).reporting_voice).toEqual(['Objective', 'all']);
    expect(SearchParams.safeParse({ reporting_voice: 'Loud' }).success).toBe(false);
    expect(SearchParams.parse({ domain_url: ['a.com', 'b.com'] }).domain_url).toEqual(['a.com', 'b.com']);
  });
  it('needs geo_lat, geo_lon and geo_radius together', () => {
    expect(SearchParams.safeParse({ geo_lat: 51.5, geo_lon: -0.1, geo_radius: 5000 }).success).toBe(true);
    const r = SearchParams.safeParse({ geo_lat: 51.5 });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path[0]).sort()).toEqual(['geo_lon', 'geo_radius']);
    expect(SearchParams.safeParse({ geo_lat: 95, geo_lon: 0, geo_radius: 1 }).success).toBe(false);
  });
  it('checks geo_polygon JSON: closed rings, optional interiors', () => {
    const ok = (v: unknown) => SearchParams.safeParse({ geo_polygon: JSON.stringify(v) }).success;
    expect(ok({ exterior: square })).toBe(true);
    expect(
      ok({
        exterior: square,
        interiors: [
          ring([
            [2, 2],
            [4, 2],
            [4, 4],
            [2, 2],
          ]),
        ],
      }),
    ).toBe(true);
    expect(ok({ exterior: square.slice(0, 4) })).toBe(false); // open ring
    expect(
      ok({
        exterior: square,
        interiors: [
          ring([
            [2, 2],
            [4, 2],
            [4, 4],
            [2, 3],
          ]),
        ],
      }),
    ).toBe(false);
    expect(ok({ interiors: [] })).toBe(false);
    expect(SearchParams.safeParse({ geo_polygon: '{not json' }).success).toBe(false);
  });
  it('fills the interface defaults', () => {
    const d = SearchParams.parse({});
    expect(d).toMatchObject({
      query: '',
      n_articles: 10,
      time_filter: 'crawl_date',
      return_type: 'dicts',
      historical: false,
      method: 'kw',
      similarity_score_threshold: 0.5,
      offset: 0,
      doc_start_delimiter: '<doc>',
      doc_end_delimiter: '</doc>',
      podcasts: 'include',
      strategy: 'default',
      hours_back: 24,
      string_guarantee_op: 'AND',
      entity_guarantee_op: 'OR',
      return_graphs: false,
      return_geo: false,
      premium: false,
      diversify_sources: false,
    });
  });
  it('checks entity_guarantee items as Type:Value', () => {
    expect(SearchParams.safeParse({ entity_guarantee: ['Location:Paris'] }).success).toBe(true);
    expect(SearchParams.safeParse({ entity_guarantee: ['Paris'] }).success).toBe(false);
  });
});

describe('article lookup and records', () => {
  it('takes at most 100 ids', () => {
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect(ArticlesQuery.safeParse({ article_ids: ids(100) }).success).toBe(true);
    expect(ArticlesQuery.safeParse({ article_ids: ids(101) }).success).toBe(false);
  });
  it('keeps fields the hosted API adds', () => {
    const entities = {};
    const a = {
      article_url: 'https://a.com/x',
      article_id: '00000000-0000-4000-8000-000000000001',
      classification: ['World'],
      country: 'US',
      source_id: 'a',
      page_rank: 3,
      domain_url: 'a.com',
      eng_title: 't',
      entities,
      keywords: [],
      language: 'en',
      pub_date: '2026-01-01T00:00:00Z',
      summary: 's',
      title: 't',
      sentiment: 0,
      centroid_distance: 0,
      cluster_probability: 1,
      as_string_key: 'k',
      brand_new_field: { x: 1 },
    };
    const parsed = SearchResponseDictItem.parse(a) as Record<string, unknown>;
    expect(parsed.brand_new_field).toEqual({ x: 1 });
    expect(parsed.provocative).toBe('unknown');
    expect(parsed.reporting_voice).toBe('Unknown');
    expect((parsed.entities as Record<string, string[]>).Person).toEqual([]);
  });
});

describe('distribution rules', () => {
  const q = (start: string, end: string, extra = {}) => ({ domain_names: ['a.com'], start_date: utc(start), end_date: utc(end), ...extra });
  it('keeps both dates in one UTC month', () => {
    expect(HitShareQuery.safeParse(q('2026-01-01T00:00:00', '2026-01-31T23:59:59')).success).toBe(true);
    expect(HitShareQuery.safeParse(q('2026-01-31T23:59:59', '2026-02-01T00:00:00')).success).toBe(false);
    expect(HitShareQuery.safeParse(q('2025-12-15T00:00:00', '2026-01-02T00:00:00')).success).toBe(false); // Dec -> Jan
    expect(HitShareQuery.safeParse(q('2028-02-01T00:00:00', '2028-02-29T23:00:00')).success).toBe(true); // leap day
    expect(HitShareQuery.safeParse(q('2026-03-10T00:00:00', '2026-03-09T00:00:00')).success).toBe(false); // end before start
    expect(HitShareQuery.safeParse({ domain_names: ['a.com'] }).success).toBe(false); // dates missing
  });
  it('compares months in UTC, not local time', () => {
    expect(sameUtcMonth(utc('2026-04-30T23:30:00'), utc('2026-05-01T00:30:00'))).toBe(false);
    expect(sameUtcMonth(utc('2026-05-01T00:00:00'), utc('2026-05-31T23:59:59'))).toBe(true);
  });
  it('bounds limit to 1..100 and page from 1', () => {
    const base = q('2026-01-01T00:00:00', '2026-01-02T00:00:00');
    expect(TopNForDomainsQuery.safeParse({ ...base, limit: 100 }).success).toBe(true);
    expect(TopNForDomainsQuery.safeParse({ ...base, limit: 101 }).success).toBe(false);
    expect(TopNForDomainsQuery.safeParse({ ...base, limit: 0 }).success).toBe(false);
    expect(TopNForDomainsQuery.safeParse({ ...base, page: 0 }).success).toBe(false);
    expect(TopNForDomainsQuery.parse(base)).toMatchObject({ limit: 10, page: 1, metric: 'surface' });
  });
});

describe('alerts', () => {
  it('validates cron expressions', () => {
    for (const ok of ['*/15 * * * *', '0 9 * * mon-fri', '30 6 1 jan,jul *', '@daily', '0 0 29 2 *']) expect(cronError(ok), ok).toBeNull();
    for (const bad of ['* * * *', '61 * * * *', '* 24 * * *', '*/0 * * * *', '5-1 * * * *', 'every day']) expect(cronError(bad), bad).not.toBeNull();
  });
  it('requires cron and triggers on create', () => {
    expect(CreateAlertRequest.safeParse({ query: 'x' }).success).toBe(false);
    const ok = CreateAlertRequest.parse({ query: 'x', cron: '0 * * * *', triggers: [{ action: 'webhook', params: { url: 'http://127.0.0.1/h' } }] });
    expect(ok).toMatchObject({ active: true, repeat: true, always_trigger: false, model: 'gpt-4o' });
  });
});

/** Bad input on search: every enum parameter (found by walking spec/) refuses a wrong value with a 422 naming it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { SearchParams, filterShape } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'news=1000:1000:50' });
});
afterAll(async () => svc?.stop());

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; entries?: Record<string, string> };
const def = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;
/** Does the schema (through optional/default/nullable/array/union) accept enum values? */
function hasEnum(s: z.ZodType): boolean {
  const d = def(s);
  if (d.type === 'enum') return true;
  if (d.innerType) return hasEnum(d.innerType);
  if (d.element) return hasEnum(d.element);
  if (d.options) return d.options.some(hasEnum);
  return false;
}
const enumParams = Object.entries(filterShape)
  .filter(([, s]) => hasEnum(s as z.ZodType))
  .map(([k]) => k);

describe('bad search input', () => {
  it('finds the enum parameters in spec/', () => {
    expect(enumParams.sort()).toEqual(
      [
        'categories',
        'continents',
        'languages',
        'method',
        'podcasts',
        'provocative',
        'reporting_voice',
        'return_type',
        'sentiment',
        'strategy',
        'string_guarantee_op',
        'entity_guarantee_op',
        'time_filter',
        'try_cache',
      ].sort(),
    );
    expect(SearchParams).toBeDefined();
  });
  it.each(enumParams)('%s with a wrong value is 422 naming it', async (name) => {
    const r = await api(svc.url, 'GET', `/v1/news/search?${name}=no-such-value`, svc.keys.org);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail[0].loc[0]).toBe('query');
    expect(r.body.detail[0].loc[1]).toBe(name);
    expect(r.body.detail[0].msg).toContain(name);
    expect(r.body.detail[0].msg).toContain('no-such-value');
  });
  it('geo_lat without geo_radius is 422', async () => {
    const r = await api(svc.url, 'GET', '/v1/news/search?geo_lat=48.85&geo_lon=2.35', svc.keys.analyst);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ['query', 'geo_radius'], msg: expect.stringContaining('together'), type: 'value_error' }]);
  });
  it('an open polygon ring is 422', async () => {
    const open = {
      exterior: [
        { lon: 0, lat: 0 },
        { lon: 5, lat: 0 },
        { lon: 5, lat: 5 },
        { lon: 0, lat: 5 },
      ],
    };
    const r = await api(svc.url, 'GET', `/v1/news/search?geo_polygon=${encodeURIComponent(JSON.stringify(open))}`, svc.keys.analyst);
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc.slice(0, 3)).toEqual(['query', 'geo_polygon', 'exterior']);
    expect(r.body.detail[0].msg).toMatch(/not closed/);
    const hole = {
      exterior: [...open.exterior, open.exterior[0]],
      interiors: [
        [
          { lon: 1, lat: 1 },
          { lon: 2, lat: 1 },
          { lon: 2, lat: 2 },
          { lon: 1, lat: 2 },
        ],
      ],
    };
    const h = await api(svc.url, 'GET', `/v1/news/search?geo_polygon=${encodeURIComponent(JSON.stringify(hole))}`, svc.keys.analyst);
    expect(h.status).toBe(422);
    expect(h.body.detail[0].loc.slice(0, 3)).toEqual(['query', 'geo_polygon', 'interiors']);
  });
  it('a non-numeric or out-of-range number is 422 naming it', async () => {
    for (const [p, v] of [
      ['page_rank', 'high'],
      ['geo_radius', '-5'],
      ['hours_back', '-1'],
      ['similarity_score_threshold', 'x'],
      ['start_timestamp', 'yesterday'],
    ]) {
      const r = await api(svc.url, 'GET', `/v1/news/search?${p}=${v}&geo_lat=1&geo_lon=1`, svc.keys.analyst);
      expect(r.status, p).toBe(422);
      expect(r.body.detail.map((d: { loc: string[] }) => d.loc[1])).toContain(p);
    }
  });
});

/**
 * The distribution date rule (end not before start, one UTC calendar month) looks only at dates
 * its fields accept: a start or end far outside the Unix-seconds range is a 422 naming that
 * field, not a 500 from a month a JS Date cannot name. Found by the fuzz test
 * (end_date=510538618020432017432818745344, start_date=-3540581541807789056).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { fieldsOf } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'distribution=1000:1000:10' });
});
afterAll(async () => svc?.stop());

const dated = ROUTES.filter((d) => d.group === 'distribution' && fieldsOf(d.query).some(([name]) => name === 'start_date'));
const needs = (path: string) => (/top_n_for_domain_timeseries|stats\/count/.test(path) ? 'domain_name=acme.com' : 'domain_names=acme.com');
const CASES = [
  { name: 'end_date', query: 'start_date=179&end_date=510538618020432017432818745344' },
  { name: 'start_date', query: 'start_date=-3540581541807789056&end_date=1655' },
  { name: 'end_date', query: 'start_date=1700000000&end_date=8640000000001' },
];

describe('distribution dates outside the Unix-seconds range', () => {
  it('finds the dated distribution routes', () => {
    expect(dated.length).toBeGreaterThanOrEqual(9);
  });

  it.each(dated.map((d) => [d.path, d] as const))('%s: 422 naming the date, never 500', async (_p, d) => {
    for (const c of CASES) {
      const r = await api(svc.url, 'GET', `${d.path}?${needs(d.path)}&${c.query}`, svc.keys.org);
      expect(r.status, `${c.query}: ${r.text}`).toBe(422);
      expect(r.body.detail.map((x: { loc: unknown[] }) => x.loc.join('.'))).toContain(`query.${c.name}`);
    }
  });
});

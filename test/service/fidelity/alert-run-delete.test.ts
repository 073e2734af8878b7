/**
 * GET /v1/chat/alerts/{id}/run (and PUT) racing a DELETE of the same alert, on the real corpus:
 * the run answers its result or 404 (a run that finds its alert gone mid-way writes no log),
 * never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AlertResponse } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

const BEFORE = Date.parse('2022-07-10T00:00:00Z');
const LATER = Date.parse('2022-07-11T12:00:00Z');
const TRIES = 30;
let clock = BEFORE;
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    clock: () => clock,
    limitsText: 'chat=1000:1000:50',
    keys: { org: { org: 'acme', scopes: ['chat'], plan: 'enterprise' } },
  });
});
afterAll(async () => svc?.stop());

async function newAlert(): Promise<string> {
  clock = BEFORE;
  const r = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
    query: 'Djokovic wins Wimbledon',
    alert_type: 'AlwaysAlertWhen',
    cron: '*/5 * * * *',
    triggers: [{ action: 'webhook', params: { url: 'https://hooks.example.com/alerts' } }],
  });
  expect(r.status).toBe(201);
  clock = LATER;
  return r.body.id as string;
}

const run = (id: string) => api(svc.url, 'GET', `/v1/chat/alerts/${id}/run`, svc.keys.org);
const del = (id: string) => api(svc.url, 'DELETE', `/v1/chat/alerts/${id}`, svc.keys.org);
const put = (id: string) => api(svc.url, 'PUT', `/v1/chat/alerts/${id}`, svc.keys.org, { title: 'renamed' });
type Res = Awaited<ReturnType<typeof api>>;
/** Both requests in flight at once, `first` sent first; answers in the order [first-named, other]. */
async function race(a: () => Promise<Res>, b: () => Promise<Res>, aFirst: boolean): Promise<[Res, Res]> {
  if (aFirst) return Promise.all([a(), b()]);
  const [y, x] = await Promise.all([b(), a()]);
  return [x, y];
}
/** The logs a (deleted) alert wrote: a deleted alert's own logs are 404, the logs of all alerts keep them. */
const logCount = async (id: string) => {
  const r = await api(svc.url, 'GET', '/v1/chat/alerts/logs?all=true', svc.keys.org);
  expect(r.status).toBe(200);
  return (r.body.items as { alert_id: string }[]).filter((l) => l.alert_id === id).length;
};

describe('run while delete', () => {
  it.each(['run first', 'delete first'] as const)(
    `a run racing a delete of its alert (${TRIES} tries, %s) answers 200 or 404, never 500; a 404 run writes no log`,
    async (order) => {
      for (let i = 0; i < TRIES; i++) {
        const id = await newAlert();
        const [r, d] = await race(
          () => run(id),
          () => del(id),
          order === 'run first',
        );
        expect([200, 404], `try ${i}: run ${r.status} ${r.text}`).toContain(r.status);
        expect(d.status, `try ${i}: delete ${d.text}`).toBe(204);
        if (r.status === 200) {
          expect(AlertResponse.safeParse(r.body).success).toBe(true);
          expect(await logCount(id)).toBe(1);
        } else {
          expect(r.body).toEqual({ code: 404000, detail: expect.stringContaining(id) });
          expect(await logCount(id)).toBe(0);
        }
        expect((await api(svc.url, 'GET', `/v1/chat/alerts/${id}`, svc.keys.org)).status).toBe(404);
      }
    },
  );

  it(`an update racing a delete of its alert (${TRIES} tries, both orders) answers 200 or 404, never 500`, async () => {
    for (let i = 0; i < TRIES; i++) {
      const id = await newAlert();
      const [p, d] = await race(
        () => put(id),
        () => del(id),
        i % 2 === 0,
      );
      expect([200, 404], `try ${i}: put ${p.status} ${p.text}`).toContain(p.status);
      expect(d.status).toBe(204);
      expect((await api(svc.url, 'GET', `/v1/chat/alerts/${id}`, svc.keys.org)).status).toBe(404);
    }
  });
});

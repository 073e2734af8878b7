/**
 * /v1/chat/alerts: CRUD with the facts file's fields, paging, ownership and validation. Runs (the
 * check against the news) are in test/service/alerts/runs.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AlertResponse, AlertsPage } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { ALERT_KEYS, WEBHOOK, createAlert } from '../../helpers/alerts.js';

const clock = Date.parse('2022-07-10T00:00:00Z');
let svc: TestService;

const create = (body: Record<string, unknown>, key = svc.keys.org!) => createAlert(svc, body, key);

beforeAll(async () => {
  svc = await startTestService({
    clock: () => clock,
    limitsText: 'chat=1000:1000:50',
    keys: ALERT_KEYS,
  });
});
afterAll(async () => svc?.stop());

describe('create, read, update, delete', () => {
  it('creates with 201 and the AlertResponse fields; alert_type overrides repeat and always_trigger', async () => {
    const r = await create({
      query: 'Wimbledon final',
      title: 'Tennis',
      alert_type: 'AlertOnceIf',
      repeat: true,
      always_trigger: true,
      share_link: 'https://example.com/s/1',
    });
    expect(r.status).toBe(201);
    AlertResponse.parse(r.body);
    expect(r.body).toMatchObject({
      query: 'Wimbledon final',
      title: 'Tennis',
      cron: '*/5 * * * *',
      active: true,
      repeat: false,
      always_trigger: false,
      model: 'gpt-4o',
      share_link: 'https://example.com/s/1',
    });
    expect(r.body.triggers).toEqual([WEBHOOK]);
    expect(r.body.api_key_id).toBe(svc.keyIds.org);
    const report = await create({ alert_type: 'ReportAbout', report: { prompt: 'weekly brief' } });
    expect(report.body).toMatchObject({ repeat: true, always_trigger: true });
    expect(report.body.report).toMatchObject({ identifier: 'deepnews', prompt: 'weekly brief' });
    const g = await api(svc.url, 'GET', `/v1/chat/alerts/${r.body.id}`, svc.keys.org);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
  });

  it('a bad cron is 422 naming the field; so are a missing trigger list and an unknown action', async () => {
    for (const cron of ['* * *', '61 * * * *', '*/0 * * * *', '5-1 * * * *', 'every minute']) {
      const r = await create({ cron });
      expect(r.status, cron).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'cron']);
      expect(r.body.detail[0].msg).toMatch(/cron/);
    }
    for (const cron of ['@hourly', '0 9 * * mon-fri', '15,45 */2 1-15 jan-jun *']) expect((await create({ cron })).status, cron).toBe(201);
    const noTriggers = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '* * * * *' });
    expect(noTriggers.status).toBe(422);
    expect(noTriggers.body.detail[0].loc).toEqual(['body', 'triggers']);
    const badAction = await create({ triggers: [{ action: 'carrier_pigeon', params: {} }] });
    expect(badAction.status).toBe(422);
    const badUrl = await create({ triggers: [{ action: 'webhook', params: { url: 'not a url' } }] });
    expect(badUrl.status).toBe(422);
  });

  it('PUT changes only what it sends: null clears nullable fields and leaves required ones', async () => {
    const a = (await create({ query: 'Abe', title: 'Japan' })).body;
    const r = await api(svc.url, 'PUT', `/v1/chat/alerts/${a.id}`, svc.keys.org, { cron: '0 * * * *', title: null, active: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.id, cron: '0 * * * *', title: null, query: 'Abe', active: true });
    expect(Date.parse(r.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(a.updated_at));
    const bad = await api(svc.url, 'PUT', `/v1/chat/alerts/${a.id}`, svc.keys.org, { cron: '* * * *' });
    expect(bad.status).toBe(422);
    const typed = await api(svc.url, 'PUT', `/v1/chat/alerts/${a.id}`, svc.keys.org, { alert_type: 'ReportAbout' });
    expect(typed.body).toMatchObject({ alert_type: 'ReportAbout', repeat: true, always_trigger: true });
  });

  it('DELETE is 204 without a body; the alert is then 404 and listed only with include_deleted', async () => {
    const a = (await create({ title: 'to delete' })).body;
    const d = await fetch(`${svc.url}/v1/chat/alerts/${a.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${svc.keys.org}` } });
    expect(d.status).toBe(204);
    expect(await d.text()).toBe('');
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}`, svc.keys.org)).status).toBe(404);
    expect((await api(svc.url, 'DELETE', `/v1/chat/alerts/${a.id}`, svc.keys.org)).status).toBe(404);
    const all = (await api(svc.url, 'GET', '/v1/chat/alerts?all=true', svc.keys.org)).body;
    expect(all.items.map((x: { id: string }) => x.id)).not.toContain(a.id);
    const withDeleted = (await api(svc.url, 'GET', '/v1/chat/alerts?all=true&include_deleted=true', svc.keys.org)).body;
    const gone = withDeleted.items.find((x: { id: string }) => x.id === a.id);
    expect(gone).toMatchObject({ active: false });
    expect(withDeleted.count).toBe(all.count + 1);
  });

  it("a deleted alert is gone for its logs too (404, as Schemathesis' use-after-free check expects); the logs of all alerts keep what it logged", async () => {
    const a = (await create({ query: 'Wimbledon', title: 'logged then deleted' })).body;
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org)).status).toBe(200);
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/logs`, svc.keys.org)).body.count).toBe(1);
    expect((await api(svc.url, 'DELETE', `/v1/chat/alerts/${a.id}`, svc.keys.org)).status).toBe(204);
    for (const p of [`/v1/chat/alerts/${a.id}/logs`, `/v1/chat/alerts/logs?alert_id=${a.id}`, `/v1/chat/alerts/${a.id}/run`]) {
      expect((await api(svc.url, 'GET', p, svc.keys.org)).status, p).toBe(404);
    }
    const all = (await api(svc.url, 'GET', '/v1/chat/alerts/logs?all=true', svc.keys.org)).body;
    expect(all.items.filter((l: { alert_id: string }) => l.alert_id === a.id)).toHaveLength(1);
  });
});

describe('paging and ownership', () => {
  it('pages of per_page with count, next_page and previous_page; all=true returns everything', async () => {
    for (let i = 0; i < 23; i++) expect((await create({ title: `p${i}` }, svc.keys.personal)).status).toBe(201);
    const seen: string[] = [];
    let page: number | null = 1;
    let prev: number | null = null;
    while (page !== null) {
      const r = await api(svc.url, 'GET', `/v1/chat/alerts?page=${page}&per_page=10`, svc.keys.personal);
      AlertsPage.parse(r.body);
      expect(r.body.count).toBe(23);
      expect(r.body.previous_page).toBe(prev);
      seen.push(...r.body.items.map((x: { id: string }) => x.id));
      prev = page;
      page = r.body.next_page;
    }
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    const all = (await api(svc.url, 'GET', '/v1/chat/alerts?all=true', svc.keys.personal)).body;
    expect(all).toMatchObject({ count: 23, next_page: null, previous_page: null });
    expect(all.items.map((x: { id: string }) => x.id)).toEqual(seen);
    expect((await api(svc.url, 'GET', '/v1/chat/alerts?per_page=101', svc.keys.personal)).status).toBe(422);
    expect((await api(svc.url, 'GET', '/v1/chat/alerts?page=0', svc.keys.personal)).status).toBe(422);
  });

  it("a key sees its own and its organization's alerts; any other key gets 404", async () => {
    const a = (await create({ title: 'acme alert' })).body;
    // another key of the same organization sees it
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}`, svc.keys.org2)).status).toBe(200);
    for (const key of [svc.keys.other!, svc.keys.personal!]) {
      expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}`, key)).status).toBe(404);
      expect((await api(svc.url, 'PUT', `/v1/chat/alerts/${a.id}`, key, { title: 'mine now' })).status).toBe(404);
      expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, key)).status).toBe(404);
      expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/logs`, key)).status).toBe(404);
      expect((await api(svc.url, 'GET', `/v1/chat/alerts/logs?alert_id=${a.id}`, key)).status).toBe(404);
      expect((await api(svc.url, 'DELETE', `/v1/chat/alerts/${a.id}`, key)).status).toBe(404);
      const list = (await api(svc.url, 'GET', '/v1/chat/alerts?all=true', key)).body;
      expect(list.items.map((x: { id: string }) => x.id)).not.toContain(a.id);
    }
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}`, svc.keys.org)).body.title).toBe('acme alert');
    // a user_id other than the caller's names nothing it may see
    expect((await api(svc.url, 'GET', `/v1/chat/alerts?user_id=${a.user_id}`, svc.keys.personal)).status).toBe(404);
    expect((await api(svc.url, 'GET', `/v1/chat/alerts?user_id=${a.user_id}`, svc.keys.org2)).status).toBe(200);
    // chat scope required
    expect((await api(svc.url, 'GET', '/v1/chat/alerts', svc.keys.nochat)).status).toBe(403);
    expect((await api(svc.url, 'GET', '/v1/chat/alerts/not-a-uuid', svc.keys.org)).status).toBe(422);
  });
});

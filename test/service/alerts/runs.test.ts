/**
 * Alert runs (service/alerts/check.ts) on the real corpus through POST /v1/chat/alerts/{id}/run:
 * the retrieval check, alert types, logs, test runs, unreachable sources, and the LLM judge
 * through an OpenAI-compatible endpoint. CRUD is in test/service/routes/alerts.test.ts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { AlertLogsPage, AlertResponse } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { ALERT_KEYS, createAlert } from '../../helpers/alerts.js';
import { sql } from '../../helpers/news.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

/** The clock stands where a test puts it: alerts are created "before" the news they catch. */
let clock = Date.parse('2022-07-10T00:00:00Z');
const LATER = Date.parse('2022-07-11T12:00:00Z');
let svc: TestService;

const create = (body: Record<string, unknown>, key = svc.keys.org!) => createAlert(svc, body, key);

beforeAll(async () => {
  svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    clock: () => clock,
    limitsText: 'chat=1000:1000:50',
    keys: ALERT_KEYS,
  });
});
afterAll(async () => svc?.stop());

describe('runs', () => {
  /** Articles indexed in (from, to] whose title mentions `word`, by direct SQL on the store. */
  const indexedWith = async (word: string, from: number, to: number) =>
    (
      await sql<{ id: string }>(
        svc,
        `SELECT article_id::VARCHAR AS id FROM articles WHERE crawl_date > make_timestamp($1::BIGINT * 1000) AND crawl_date <= make_timestamp($2::BIGINT * 1000) AND title ILIKE $3`,
        [from, to, `%${word}%`],
      )
    ).map((r) => r.id);
  const logsOf = async (id: string) => (await api(svc.url, 'GET', `/v1/chat/alerts/${id}/logs?all=true`, svc.keys.org)).body;

  it('fires on articles indexed since the last run that match the query; the next run sees only newer ones', async () => {
    clock = Date.parse('2022-07-10T00:00:00Z');
    const a = (await create({ query: 'Djokovic wins Wimbledon', alert_type: 'AlwaysAlertWhen' })).body;
    clock = LATER;
    const run = await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org);
    expect(run.status).toBe(200);
    AlertResponse.parse(run.body);
    expect(run.body.active).toBe(true);
    const logs = await logsOf(a.id);
    AlertLogsPage.parse(logs);
    expect(logs.count).toBe(1);
    const log = logs.items[0];
    expect(log).toMatchObject({ alert_id: a.id, user_id: a.user_id, alert: true, created_at: new Date(LATER).toISOString() });
    expect(log.reasoning).toMatch(/matched "Djokovic wins Wimbledon"/);
    // every caught article is new in the window, and the window's Wimbledon-Djokovic headlines are caught
    const window = new Set(await indexedWith('', Date.parse('2022-07-10T00:00:00Z'), LATER));
    for (const id of log.article_ids) expect(window.has(id)).toBe(true);
    const djokovic = await indexedWith('Djokovic', Date.parse('2022-07-10T00:00:00Z'), LATER);
    expect(djokovic.length).toBeGreaterThan(0);
    expect(log.article_ids.filter((id: string) => djokovic.includes(id)).length).toBeGreaterThanOrEqual(Math.min(2, djokovic.length));
    const titles = (
      await sql<{ title: string }>(svc, `SELECT title FROM articles WHERE article_id IN (SELECT unnest(string_split($1, ','))::UUID)`, [
        log.article_ids.join(','),
      ])
    ).map((r) => r.title);
    expect(titles.some((t) => /wimbledon/i.test(t))).toBe(true);
    // nothing new since: the second run logs alert=false with no articles
    clock = LATER + 60_000;
    await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org);
    const after = await logsOf(a.id);
    expect(after.count).toBe(2);
    expect(after.items[1]).toMatchObject({ alert: false, article_ids: [] });
  });

  it('an unrelated query does not fire; AlertOnceIf deactivates after firing and later runs write nothing', async () => {
    clock = Date.parse('2022-07-10T00:00:00Z');
    const quiet = (await create({ query: 'volcanic eruption on the moon colony', alert_type: 'AlwaysAlertWhen' })).body;
    const once = (await create({ query: 'Shinzo Abe assassination', alert_type: 'AlertOnceIf' })).body;
    clock = LATER;
    await api(svc.url, 'GET', `/v1/chat/alerts/${quiet.id}/run`, svc.keys.org);
    expect((await logsOf(quiet.id)).items[0]).toMatchObject({ alert: false, article_ids: [] });
    const r = await api(svc.url, 'GET', `/v1/chat/alerts/${once.id}/run`, svc.keys.org);
    expect(r.body.active).toBe(false);
    expect((await logsOf(once.id)).items[0].alert).toBe(true);
    clock = LATER + 3_600_000;
    const again = await api(svc.url, 'GET', `/v1/chat/alerts/${once.id}/run`, svc.keys.org);
    expect(again.body.active).toBe(false);
    expect((await logsOf(once.id)).count).toBe(1);
  });

  it('ReportAbout fires every run with a report; filters of the asknews source apply', async () => {
    clock = Date.parse('2022-07-10T00:00:00Z');
    const a = (
      await create({
        query: 'Wimbledon',
        alert_type: 'ReportAbout',
        report: { prompt: 'tennis' },
        sources: [{ identifier: 'asknews', params: { domain_url: ['nonexistent.example'] } }],
      })
    ).body;
    clock = LATER;
    await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org);
    const log = (await logsOf(a.id)).items[0];
    // the domain filter leaves nothing, yet ReportAbout always triggers
    expect(log).toMatchObject({ alert: true, article_ids: [] });
    expect(log.reasoning).toMatch(/always_trigger/);
    expect(log.report).toMatch(/^# Wimbledon/);
    const domain = (
      await sql<{ d: string }>(
        svc,
        `SELECT domain_url AS d FROM articles WHERE title ILIKE '%Wimbledon%' AND crawl_date > '2022-07-10' AND crawl_date <= '2022-07-11 12:00' LIMIT 1`,
      )
    )[0]!.d;
    clock = Date.parse('2022-07-10T00:00:00Z');
    const b = (
      await create({
        query: 'Wimbledon',
        alert_type: 'ReportAbout',
        report: { prompt: 'tennis' },
        sources: [{ identifier: 'asknews', params: { domain_url: [domain] } }],
      })
    ).body;
    clock = LATER;
    await api(svc.url, 'GET', `/v1/chat/alerts/${b.id}/run`, svc.keys.org);
    const ids = (await logsOf(b.id)).items[0].article_ids as string[];
    expect(ids.length).toBeGreaterThan(0);
    const domains = await sql<{ d: string }>(
      svc,
      `SELECT DISTINCT domain_url AS d FROM articles WHERE article_id IN (SELECT unnest(string_split($1, ','))::UUID)`,
      [ids.join(',')],
    );
    expect(domains.map((x) => x.d)).toEqual([domain]);
  });

  it('an is_test run checks the same window but moves nothing; logs filter by time', async () => {
    clock = Date.parse('2022-07-10T00:00:00Z');
    const a = (await create({ query: 'Abe killing', alert_type: 'AlertOnceIf' })).body;
    clock = LATER;
    const t = await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run?is_test=true`, svc.keys.org);
    expect(t.body.active).toBe(true);
    const first = (await logsOf(a.id)).items[0];
    expect(first.reasoning).toMatch(/^\[test run\]/);
    expect(first.webhook).toEqual({ test: true, delivery: 'none' });
    clock = LATER + 120_000;
    await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org);
    const logs = (await logsOf(a.id)).items;
    expect(logs).toHaveLength(2);
    // the real run saw the same articles: the test run moved no watermark
    expect(logs[1].article_ids).toEqual(first.article_ids);
    const since = (await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/logs?start_timestamp=${(LATER + 60_000) / 1000}`, svc.keys.org)).body;
    expect(since.items.map((x: { id: string }) => x.id)).toEqual([logs[1].id]);
    const until = (await api(svc.url, 'GET', `/v1/chat/alerts/logs?alert_id=${a.id}&end_timestamp=${(LATER + 60_000) / 1000}`, svc.keys.org)).body;
    expect(until.items.map((x: { id: string }) => x.id)).toEqual([first.id]);
  });

  it("sources that cannot be reached offline are stored, and a run answers 409 (the alert's state, not the request) saying which and what to do", async () => {
    const a = await create({
      query: 'x',
      sources: [{ identifier: 'asknews' }, { identifier: 'telegram', params: { channel_name: 'news' } }, { identifier: 'web', params: { queries: ['x'] } }],
    });
    expect(a.status).toBe(201);
    expect(a.body.sources).toHaveLength(3);
    const r = await api(svc.url, 'GET', `/v1/chat/alerts/${a.body.id}/run`, svc.keys.org);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(409000);
    expect(r.body.detail).toMatch(/telegram, web/);
    expect(r.body.detail).toMatch(/PUT \/v1\/chat\/alerts/);
  });

  it('an expired alert is deactivated by its next run and writes no log', async () => {
    clock = Date.parse('2022-07-10T00:00:00Z');
    const a = (await create({ query: 'Wimbledon', expires_at: '2022-07-10T06:00:00Z' })).body;
    clock = LATER;
    const r = await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org);
    expect(r.body.active).toBe(false);
    expect((await logsOf(a.id)).count).toBe(0);
  });

  it('with an OpenAI-compatible model configured, the model decides; a failing model falls back to retrieval', async () => {
    let status = 200;
    const asked: string[] = [];
    const llm = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const msg = JSON.parse(body).messages[1].content as string;
        asked.push(msg);
        // the "model": fires on the first candidate only
        const first = /id=([0-9a-f-]{36})/.exec(msg)![1];
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ choices: [{ message: { content: JSON.stringify({ alert: true, reasoning: 'the final was played', article_ids: [first] }) } }] }),
        );
      });
    });
    await new Promise<void>((r) => llm.listen(0, '127.0.0.1', r));
    svc.services.config.llm = { url: `http://127.0.0.1:${(llm.address() as AddressInfo).port}/v1`, model: 'judge-1' };
    try {
      clock = Date.parse('2022-07-10T00:00:00Z');
      const a = (await create({ query: 'Wimbledon final result' })).body;
      const b = (await create({ query: 'Wimbledon final result' })).body;
      clock = LATER;
      await api(svc.url, 'GET', `/v1/chat/alerts/${a.id}/run`, svc.keys.org);
      const log = (await logsOf(a.id)).items[0];
      expect(asked[0]).toMatch(/Alert condition: Wimbledon final result/);
      expect(log.reasoning).toBe('model judge-1: the final was played');
      expect(log.article_ids).toHaveLength(1);
      status = 500;
      await api(svc.url, 'GET', `/v1/chat/alerts/${b.id}/run`, svc.keys.org);
      const fallback = (await logsOf(b.id)).items[0];
      expect(fallback.reasoning).toMatch(/failed: HTTP 500; decided by retrieval/);
      expect(fallback.article_ids.length).toBeGreaterThan(1);
    } finally {
      svc.services.config.llm = null;
      llm.close();
    }
  });
});

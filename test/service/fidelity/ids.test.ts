/**
 * Ids in paths and queries are checked before any store sees them: a malformed id (36 hyphens,
 * 36 zeros, anything not 8-4-4-4-12 hex) is 422 naming it; a well-formed id that names nothing
 * is 404 (or an empty answer for a list filter). The UUID fields are found by walking spec/.
 * `/v1/stories/{story_id}` also takes a URL-safe title: any text there is a lookup, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestService } from '../../helpers/service.js';
import { qs, startCorpusService } from '../../helpers/news.js';
import { ALL_LIMITS, fillPath, isUuid, routeFields } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const MALFORMED = [
  '-'.repeat(36),
  '0'.repeat(36),
  'z'.repeat(8) + '-0000-0000-0000-000000000000',
  '6f1e2d3c4b5a49688776655443322110ab12',
  '6f1e2d3c-4b5a-4968-8776-65544332211',
];
const UNKNOWN = '6f1e2d3c-4b5a-4968-8776-655443322110';
/** Well-formed ids of any version and variant, as the hosted API's pydantic UUID takes them. */
const WELL_FORMED = [UNKNOWN, '00000000-0000-0000-0000-000000000000', '12345678-1234-1234-1234-123456789012', UNKNOWN.toUpperCase()];
const locsOf = (body: { detail?: unknown }) => (Array.isArray(body?.detail) ? body.detail.map((d: { loc: unknown[] }) => d.loc.join('.')) : []);

// search's offset is an integer or a UUID cursor (36 zeros there is the integer 0): not an id
const uuidFields = routeFields()
  .filter((f) => f.where !== 'body' && isUuid(f.schema) && f.name !== 'offset')
  .map((f) => ({ op: f.route.operationId, method: f.route.method, route: f.route, where: f.where, name: f.name }));
const NEEDS: Record<string, string> = {};
const url = (f: (typeof uuidFields)[number], v: string) =>
  f.where === 'path' ? `${fillPath(f.route, { [f.name]: encodeURIComponent(v) })}?${NEEDS[f.op] ?? ''}` : `${fillPath(f.route)}?${qs({ [f.name]: v })}`;

describe('ids in paths and queries', () => {
  it('finds article_id, article_ids, alert_id (path and query), user_id and uuids in spec/', () => {
    const names = new Set(uuidFields.map((f) => `${f.op}:${f.where}.${f.name}`));
    for (const n of [
      'get_article:path.article_id',
      'get_articles:query.article_ids',
      'get_alert:path.alert_id',
      'delete_alert:path.alert_id',
      'get_all_alert_logs:query.alert_id',
      'get_alerts:query.user_id',
      'get_stories:query.uuids',
    ]) {
      expect(names, n).toContain(n);
    }
  });

  it.each(uuidFields)('$method $op: a malformed $name is 422 naming it', async (f) => {
    for (const v of MALFORMED) {
      const r = await api(svc.url, f.method, url(f, v), svc.keys.org, f.route.body ? { cron: '* * * * *', triggers: [] } : undefined);
      expect(r.status, `${v}: ${r.text}`).toBe(422);
      expect(locsOf(r.body), v).toContain(`${f.where}.${f.name}${f.name === 'article_ids' || f.name === 'uuids' ? '.0' : ''}`);
      expect(r.body.detail[0].type).toBe('value_error.uuid');
    }
  });

  it.each(uuidFields)('$method $op: a well-formed $name of any version is no 422 and no 500', async (f) => {
    for (const v of WELL_FORMED) {
      const r = await api(svc.url, f.method, url(f, v), svc.keys.org, f.route.body ? { cron: '* * * * *', triggers: [] } : undefined);
      expect(r.status, `${v}: ${r.text}`).not.toBe(500);
      expect(locsOf(r.body), `${v}: ${r.text}`).not.toContain(`${f.where}.${f.name}`);
    }
  });

  it('GET /v1/news/{article_id}: 36 hyphens or 36 zeros is 422 on article_id; an unknown UUID is 404; a known one in capitals is found', async () => {
    for (const v of ['-'.repeat(36), '0'.repeat(36)]) {
      const r = await api(svc.url, 'GET', `/v1/news/${v}`, svc.keys.org);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['path', 'article_id']);
    }
    const unknown = await api(svc.url, 'GET', `/v1/news/${UNKNOWN}`, svc.keys.org);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe(404000);
    const hit = await api(svc.url, 'GET', '/v1/news/search?query=Iran&n_articles=1', svc.keys.org);
    const id = hit.body.as_dicts[0].article_id as string;
    const found = await api(svc.url, 'GET', `/v1/news/${id.toUpperCase()}`, svc.keys.org);
    expect(found.status).toBe(200);
    expect(found.body.article_id).toBe(id);
  });

  it('GET /v1/news?article_ids=<unknown> is an empty list; 36 zeros among them is 422 naming the item', async () => {
    const r = await api(svc.url, 'GET', `/v1/news?article_ids=${UNKNOWN}`, svc.keys.org);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([]);
    const bad = await api(svc.url, 'GET', `/v1/news?article_ids=${UNKNOWN}&article_ids=${'0'.repeat(36)}`, svc.keys.org);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'article_ids', 1]);
  });

  it('alert ids: an unknown well-formed id is 404 on get, update, delete, run and logs', async () => {
    for (const [m, p] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/run'],
      ['GET', '/logs'],
    ] as const) {
      const r = await api(svc.url, m, `/v1/chat/alerts/${UNKNOWN}${p}`, svc.keys.org);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    expect((await api(svc.url, 'PUT', `/v1/chat/alerts/${UNKNOWN}`, svc.keys.org, { title: 't' })).status).toBe(404);
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/logs?alert_id=${UNKNOWN}`, svc.keys.org)).status).toBe(404);
  });

  it('GET /v1/stories/{story_id}: 36 hyphens, 36 zeros or any title that names nothing is 404; a story, update or URL-safe title is found', async () => {
    for (const v of ['-'.repeat(36), '0'.repeat(36), UNKNOWN, 'no-such-story-title', 'x'.repeat(90), "'; DROP TABLE stories; --"]) {
      const r = await api(svc.url, 'GET', `/v1/stories/${encodeURIComponent(v)}`, svc.keys.org);
      expect(r.status, v.slice(0, 40)).toBe(404);
      expect(r.body.code).toBe(404000);
    }
    // a long title is a lookup too (the router takes path ids up to 16 KiB): 404
    const long = await api(svc.url, 'GET', `/v1/stories/${'x'.repeat(2000)}`, svc.keys.org);
    expect(long.status).toBe(404);
    expect(long.body.code).toBe(404000);
    const list = await api(svc.url, 'GET', '/v1/stories?limit=1', svc.keys.org);
    const story = list.body.stories[0];
    const update = story.updates[0];
    for (const id of [story.uuid, update.uuid, update.url_safe_title]) {
      const r = await api(svc.url, 'GET', `/v1/stories/${encodeURIComponent(id)}`, svc.keys.org);
      expect(r.status, id).toBe(200);
      expect(r.body.uuid).toBe(story.uuid);
    }
  });
});

/**
 * An empty body sent with `Content-Type: application/json` (as several HTTP clients send every
 * request) is no body: a route that takes none answers as without it; a route that needs one
 * answers 422 `field required` at loc ["body"].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../spec/index.js';
import { api, credentialFor, startTestService, type TestService } from '../../helpers/service.js';
import { ALL_LIMITS, fillPath } from '../../helpers/schema-walk.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: ALL_LIMITS });
});
afterAll(async () => svc?.stop());

const send = (method: string, path: string, body = '', admin = false) =>
  fetch(`${svc.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${credentialFor(svc, { admin })}`, 'content-type': 'application/json' },
    body: method === 'GET' ? undefined : body,
  }).then(async (r) => ({ status: r.status, text: await r.text() }));

describe('an empty JSON body', () => {
  it('DELETE /v1/chat/alerts/{id} with Content-Type: application/json and no body deletes the alert (204)', async () => {
    const created = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, {
      cron: '*/5 * * * *',
      triggers: [{ action: 'webhook', params: { url: 'https://hooks.example.com/a' } }],
    });
    expect(created.status).toBe(201);
    const del = await send('DELETE', `/v1/chat/alerts/${created.body.id}`);
    expect(del.status, del.text).toBe(204);
    expect((await api(svc.url, 'GET', `/v1/chat/alerts/${created.body.id}`, svc.keys.org)).status).toBe(404);
  });
  it('whitespace only is no body either', async () => {
    const created = await api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { cron: '*/5 * * * *', triggers: [] });
    const del = await send('DELETE', `/v1/chat/alerts/${created.body.id}`, ' \r\n');
    expect(del.status, del.text).toBe(204);
  });
  const noBody = ROUTES.filter((d) => !d.body && d.method !== 'GET').map((d) => ({ method: d.method, path: fillPath(d), admin: !!d.admin }));
  it.each(noBody)('$method $path (takes no body) is never 400 for an empty JSON body', async ({ method, path, admin }) => {
    const r = await send(method, path, '', admin);
    expect(r.status, r.text).not.toBe(400);
    expect(r.status).not.toBe(500);
  });
  const required = ROUTES.filter((d) => d.body && d.bodyRequired).map((d) => ({ method: d.method, path: fillPath(d), admin: !!d.admin }));
  it.each(required)('$method $path (needs a body) answers 422 field required at loc ["body"]', async ({ method, path, admin }) => {
    const r = await send(method, path, '', admin);
    expect(r.status, r.text).toBe(422);
    expect(JSON.parse(r.text)).toEqual({ code: 422000, detail: [{ loc: ['body'], msg: 'field required', type: 'value_error.missing' }] });
  });
  it('a body that is not JSON is still 400 with {code, detail}', async () => {
    const r = await send('POST', '/v1/chat/alerts', '{"cron":');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toMatchObject({ code: 400000, detail: expect.any(String) });
  });
});

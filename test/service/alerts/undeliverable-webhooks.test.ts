/**
 * An alert whose webhook can never be delivered is refused when it is created or updated: a 422
 * naming `triggers.N.params.url` for a loopback, private or metadata address literal (or
 * localhost), unless NEWSFLOW_FETCH_ALLOW lists it; a header the delivery cannot send is a 422 on
 * the header. Nothing is sent to the listener the refused URL names.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { startPageServer, type PageServer } from '../../helpers/page-server.js';

let svc: TestService;
let listener: PageServer;

beforeAll(async () => {
  delete process.env.NEWSFLOW_FETCH_ALLOW;
  svc = await startTestService({ limitsText: 'chat=1000:1000:50' });
  listener = await startPageServer('127.0.0.1');
});
afterAll(async () => {
  await svc?.stop();
  await listener?.close();
});
afterEach(() => {
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

const hook = (url: string, headers?: Record<string, string>) => ({ action: 'webhook', params: { url, ...(headers ? { headers } : {}) } });
const create = (triggers: unknown[]) => api(svc.url, 'POST', '/v1/chat/alerts', svc.keys.org, { query: 'floods', cron: '@hourly', triggers });

describe('webhook URLs that can never be delivered', () => {
  it.each([
    ['loopback with the listener port', () => `http://127.0.0.1:${listener.port}/hook`, 'loopback'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['IPv6 loopback', () => 'http://[::1]:8080/', 'loopback'],
    ['a private address', () => 'https://10.0.0.5/hook', 'private'],
    ['localhost', () => `http://localhost:${listener.port}/hook`, 'loopback'],
    ['loopback as one decimal number', () => 'http://2130706433/', 'loopback'],
  ])('refuses %s at creation with a 422 naming triggers.N.params.url', async (_name, url, kind) => {
    const before = listener.connections;
    const r = await create([hook('https://hooks.example.com/ok'), hook(url())]);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      { loc: ['body', 'triggers', 1, 'params', 'url'], msg: expect.stringContaining(`${kind} address`), type: 'value_error.url.host' },
    ]);
    expect(listener.connections).toBe(before);
    expect(listener.requests).toBe(0);
  });

  it('refuses the same URL on update, and the alert keeps its triggers', async () => {
    const made = await create([hook('https://hooks.example.com/ok')]);
    expect(made.status).toBe(201);
    const r = await api(svc.url, 'PUT', `/v1/chat/alerts/${made.body.id}`, svc.keys.org, { triggers: [hook('http://169.254.169.254/')] });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'triggers', 0, 'params', 'url']);
    const now = await api(svc.url, 'GET', `/v1/chat/alerts/${made.body.id}`, svc.keys.org);
    expect(now.body.triggers).toEqual([hook('https://hooks.example.com/ok')]);
  });

  it('accepts a loopback URL the server allows (NEWSFLOW_FETCH_ALLOW), and a host name (judged at delivery)', async () => {
    process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
    expect((await create([hook(`http://127.0.0.1:${listener.port}/hook`)])).status).toBe(201);
    expect((await create([hook('http://169.254.169.254/')])).status).toBe(422);
    delete process.env.NEWSFLOW_FETCH_ALLOW;
    expect((await create([hook('https://receiver.example.org/hook')])).status).toBe(201);
    expect(listener.requests).toBe(0);
  });

  it('refuses a header with CR/LF in its value or a name that is no HTTP token, naming the header', async () => {
    const crlf = await create([hook('https://hooks.example.com/ok', { 'x-team': 'a\r\nX-Injected: 1' })]);
    expect(crlf.status).toBe(422);
    expect(crlf.body.detail[0].loc).toEqual(['body', 'triggers', 0, 'params', 'headers', 'x-team']);
    const name = await create([hook('https://hooks.example.com/ok', { 'bad name': 'x' })]);
    expect(name.status).toBe(422);
    expect(name.body.detail[0].loc.slice(0, 5)).toEqual(['body', 'triggers', 0, 'params', 'headers']);
  });
});

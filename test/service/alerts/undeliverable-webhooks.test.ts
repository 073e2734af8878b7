/**
 * An alert whose webhook can never be delivered is refused when it is created or updated: a 422
 * naming `triggers.N.params.url` for a loopback, private or metadata address literal (or
 * localhost), unless NEWSFLOW_FETCH_ALLOW lists it, exactly as the served OpenAPI document's
 * `refused-hosts` rule lists them; a header the delivery cannot send is a 422 on the header.
 * Nothing is sent to the listener the refused URL names.
 */
import { isIPv4 } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { X_RULES, type CrossFieldRule } from '../../../spec/index.js';
import { PUBLIC_ONLY, refusedNetworks } from '../../../lib/fetch/policy.js';
import { refusedWebhookUrls } from '../../../service/alerts/webhooks.js';
import { ServiceConfigError, serviceConfig } from '../../../service/config.js';
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
    ['loopback as IPv4-mapped IPv6', () => 'http://[::ffff:7f00:1]/', 'loopback'],
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

  it("refuses loopback as one number (or hex, or octal) at creation with a 422 naming triggers.N.params.url: a host form the document's pattern does not take", async () => {
    const before = listener.connections;
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/']) {
      const r = await create([hook('https://hooks.example.com/ok'), hook(url)]);
      expect(r.status, url).toBe(422);
      // the URL pattern (spec/patterns.ts HTTP_URL) takes names, dotted quads and bracketed IPv6 only, so the address check is never reached
      expect(r.body.detail, url).toEqual([
        { loc: ['body', 'triggers', 1, 'params', 'url'], msg: expect.stringContaining('dotted-quad IPv4'), type: 'value_error.str.regex' },
      ]);
    }
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

  it('accepts a loopback URL a server allows (NEWSFLOW_FETCH_ALLOW, read once into its config), and a host name (judged at delivery)', async () => {
    const allowing = await startTestService({ limitsText: 'chat=1000:1000:50', fetchAllow: '127.0.0.1' });
    try {
      const on = (url: string) => api(allowing.url, 'POST', '/v1/chat/alerts', allowing.keys.org, { query: 'floods', cron: '@hourly', triggers: [hook(url)] });
      expect((await on(`http://127.0.0.1:${listener.port}/hook`)).status).toBe(201);
      expect((await on('http://169.254.169.254/')).status).toBe(422);
      // the setting is the server's, fixed at its start: the other server still refuses loopback
      expect((await create([hook(`http://127.0.0.1:${listener.port}/hook`)])).status).toBe(422);
    } finally {
      await allowing.stop();
    }
    expect((await create([hook('https://receiver.example.org/hook')])).status).toBe(201);
    expect(listener.requests).toBe(0);
    // an entry that is no host, address or network stops the start, naming it
    expect(() => serviceConfig({}, { NEWSFLOW_FETCH_ALLOW: '127.0.0.1,not a host!' })).toThrow(ServiceConfigError);
    expect(() => serviceConfig({}, { NEWSFLOW_FETCH_ALLOW: '127.0.0.1,not a host!' })).toThrow(/^NEWSFLOW_FETCH_ALLOW: "not a host!" is neither/);
  });

  it('refuses a header with CR/LF in its value or a name that is no HTTP token, naming the header', async () => {
    const crlf = await create([hook('https://hooks.example.com/ok', { 'x-team': 'a\r\nX-Injected: 1' })]);
    expect(crlf.status).toBe(422);
    expect(crlf.body.detail[0].loc).toEqual(['body', 'triggers', 0, 'params', 'headers', 'x-team']);
    const name = await create([hook('https://hooks.example.com/ok', { 'bad name': 'x' })]);
    expect(name.status).toBe(422);
    expect(name.body.detail[0].loc.slice(0, 5)).toEqual(['body', 'triggers', 0, 'params', 'headers']);
  });

  it('refuses what the OpenAPI document it serves lists, and only that: every listed network at both ends, localhost names; the addresses just outside them pass', async () => {
    const doc = (await api(svc.url, 'GET', '/openapi.json')).body;
    const rules = doc.components.schemas.AlertTrigger.oneOf[0].properties.params[X_RULES] as CrossFieldRule[];
    const rule = rules.find((r) => r.rule === 'refused-hosts')!;
    // one list: the document's networks are the fetch policy's
    expect(rule.hosts).toEqual(refusedNetworks());
    // membership as a reader of the document computes it (Python's ipaddress, the fuzz hooks): an address of one family in a network of that family
    const listed = rule.hosts!.map((n) => {
      const [net, bits] = n.split('/');
      const width = isIPv4(net!) ? 32 : 128;
      const first = toBig(net!);
      return { v4: width === 32, first, last: first + (1n << BigInt(width - Number(bits))) - 1n };
    });
    const refused = (host: string) => refusedWebhookUrls([hook(`http://${host}/hook`)], PUBLIC_ONLY).length === 1;
    const inList = (ip: string) => listed.some((n) => n.v4 === isIPv4(ip) && n.first <= toBig(ip) && toBig(ip) <= n.last);
    const disagree: string[] = [];
    for (const n of rule.hosts!) {
      const [net, bits] = n.split('/');
      const width = isIPv4(net!) ? 32 : 128;
      const first = toBig(net!);
      const last = first + (1n << BigInt(width - Number(bits))) - 1n;
      for (const [v, expected] of [
        [first, true],
        [last, true],
        [first - 1n, null],
        [last + 1n, null],
      ] as const) {
        if (v < 0n || v >= 1n << BigInt(width)) continue;
        const ip = fromBig(v, width);
        const want = expected ?? inList(ip);
        if (refused(width === 32 ? ip : `[${ip}]`) !== want) disagree.push(`${n}: ${ip} ${want ? 'listed, not refused' : 'refused, not listed'}`);
      }
    }
    // and addresses of every kind, refused or public, in every form that carries an IPv4 address
    for (const ip of [
      '8.8.8.8',
      '100.64.0.1',
      '224.0.0.1',
      '198.51.100.7',
      '::ffff:7f00:1',
      '::ffff:808:808',
      '64:ff9b::a00:1',
      '64:ff9b::808:808',
      '2002:c0a8:101::1',
      '2002:808:808::1',
      'fd00:ec2::254',
      '2606:4700::1111',
      'ff02::1',
    ]) {
      if (refused(isIPv4(ip) ? ip : `[${ip}]`) !== inList(ip)) disagree.push(`${ip}: ${inList(ip) ? 'listed, not refused' : 'refused, not listed'}`);
    }
    expect(disagree).toEqual([]);
    expect(rule.names).toEqual(['localhost', '*.localhost']);
    for (const name of ['localhost', 'api.localhost']) expect(refused(name), name).toBe(true);
    for (const name of ['localhost.example.com', 'hooks.example.com']) expect(refused(name), name).toBe(false);
    // the route answers as the check does: the first address of each listed network is a 422 on the URL
    for (const n of rule.hosts!) {
      const [net] = n.split('/');
      const r = await create([hook(`http://${isIPv4(net!) ? net : `[${net}]`}/hook`)]);
      expect(r.status, n).toBe(422);
      expect(r.body.detail[0].loc, n).toEqual(['body', 'triggers', 0, 'params', 'url']);
    }
    expect(listener.requests).toBe(0);
  });
});

/** An IPv4 or IPv6 address as a number. */
function toBig(ip: string): bigint {
  if (isIPv4(ip)) return ip.split('.').reduce((a, o) => (a << 8n) + BigInt(o), 0n);
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((a, g) => (a << 16n) + BigInt(parseInt(g, 16)), 0n);
}

/** A number as an IPv4 address (width 32) or a full IPv6 address (width 128). */
function fromBig(v: bigint, width: number): string {
  if (width === 32) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
}

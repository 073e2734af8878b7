import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { ROUTES, buildOpenApi } from '../../../spec/index.js';

let svc: TestService;
let token: string;
beforeAll(async () => {
  svc = await startTestService();
  token = fs.readFileSync(path.join(svc.dataDir, 'admin.token'), 'utf8').trim();
});
afterAll(() => svc.stop());

describe('admin routes of a running service', () => {
  it('the admin token is a file of the data dir only its owner can read', () => {
    const mode = fs.statSync(path.join(svc.dataDir, 'admin.token')).mode & 0o777;
    expect(mode).toBe(0o600);
    expect(token.length).toBeGreaterThanOrEqual(43);
  });

  it('the service records where it listens in the data dir', () => {
    const rec = JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'service.json'), 'utf8'));
    expect(rec).toMatchObject({ url: svc.url, pid: process.pid });
  });

  it('creates an organization and a key with the admin token, and the key works at once', async () => {
    const org = await api(svc.url, 'POST', '/v1/admin/orgs', token, { name: 'newco', domains: ['NewCo.com'] });
    expect(org.status).toBe(201);
    expect(org.body).toMatchObject({ name: 'newco', domains: ['newco.com'], publisher: false, plan: 'enterprise' });
    const k = await api(svc.url, 'POST', '/v1/admin/keys', token, { name: 'ci', org: 'newco', scopes: ['profile'] });
    expect(k.status).toBe(201);
    expect(k.body.key).toMatch(/^nfk_/);
    expect(k.body).toMatchObject({ name: 'ci', org_name: 'newco', scopes: ['profile'], plan: 'enterprise', revoked_at: null });
    const me = await api(svc.url, 'GET', '/v1/profiles/me', k.body.key);
    expect(me.status).toBe(200);
    const listed = await api(svc.url, 'GET', '/v1/admin/keys', token);
    expect(listed.body.keys.map((r: { id: string }) => r.id)).toContain(k.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(k.body.key); // keys are stored hashed: never listed
    const orgs = await api(svc.url, 'GET', '/v1/admin/orgs', token);
    expect(orgs.body.orgs.map((o: { name: string }) => o.name)).toEqual(expect.arrayContaining(['acme', 'dailypaper', 'newco']));

    const revoked = await api(svc.url, 'DELETE', `/v1/admin/keys/${k.body.id}`, token);
    expect(revoked.status).toBe(204);
    expect((await api(svc.url, 'GET', '/v1/profiles/me', k.body.key)).status).toBe(401);
    expect((await api(svc.url, 'DELETE', '/v1/admin/keys/key_nope', token)).status).toBe(404);
  });

  it('an ordinary API key is 403 on every admin route, whatever its scopes', async () => {
    for (const d of ROUTES.filter((r) => r.admin)) {
      const p = d.path.replace('{key_id}', svc.keyIds.org!);
      const r = await api(svc.url, d.method, p, svc.keys.org, d.body ? {} : undefined);
      expect(r.status, `${d.method} ${p}`).toBe(403);
      expect(r.body.detail).toMatch(/administration route/);
    }
    // and nothing was revoked by the attempt
    expect((await api(svc.url, 'GET', '/v1/profiles/me', svc.keys.org)).status).toBe(200);
  });

  it('a wrong or missing admin token is 401', async () => {
    const wrong = await api(svc.url, 'GET', '/v1/admin/keys', `${token.slice(0, -2)}xx`);
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    expect((await api(svc.url, 'GET', '/v1/admin/keys')).status).toBe(401);
  });

  it('bad input is 422 naming the field: unknown organization, malformed domain, unknown scope, unknown field', async () => {
    const cases: [string, unknown, string][] = [
      ['/v1/admin/keys', { name: 'x', org: 'nope', scopes: ['news'] }, 'org'],
      ['/v1/admin/keys', { name: 'x', scopes: ['root'] }, 'scopes'],
      ['/v1/admin/orgs', { name: 'bad', domains: ['not a domain'] }, 'domains'],
      ['/v1/admin/orgs', { name: 'acme' }, 'name'],
      ['/v1/admin/orgs', { name: 'x', owner: 'me' }, 'owner'],
    ];
    for (const [p, body, field] of cases) {
      const r = await api(svc.url, 'POST', p, token, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(
        r.body.detail.some((d: { loc: string[]; msg: string }) => d.loc.includes(field) || d.msg.includes(field)),
        JSON.stringify(r.body),
      ).toBe(true);
    }
  });

  it('the admin routes are in the OpenAPI document with the admin token as their only security', () => {
    const doc = buildOpenApi() as { paths: Record<string, Record<string, { security: unknown; responses: Record<string, unknown> }>> };
    const op = doc.paths['/v1/admin/keys']!.post!;
    expect(op.security).toEqual([{ AdminToken: [] }]);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '422']));
  });
});

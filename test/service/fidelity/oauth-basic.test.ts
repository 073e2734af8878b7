/**
 * POST /oauth2/token with HTTP Basic client credentials (../shared/spec/asknews-facts.md §1.2): the Python SDK URL-quotes
 * each part, PHP does not; credentials that are not valid percent-encoding are a 401
 * invalid_client with the endpoint's error body, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ keys: { analyst: { scopes: ['news', 'profile'], plan: 'analyst' } } });
});
afterAll(async () => svc?.stop());

const basic = (raw: string) => `Basic ${Buffer.from(raw).toString('base64')}`;
async function token(authorization: string | undefined, form = 'grant_type=client_credentials') {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (authorization) headers.authorization = authorization;
  const res = await fetch(`${svc.url}/oauth2/token`, { method: 'POST', headers, body: form });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as Record<string, unknown> };
}

describe('OAuth Basic credentials with bad percent-encoding', () => {
  it.each(['%zz:%zz', '%:%', 'abc%E0%A4%A:secret', 'client:%zz', '%zz:secret'])(
    'Basic %s is 401 invalid_client with {code, detail, error, error_description}',
    async (raw) => {
      const r = await token(basic(raw));
      expect(r.status).toBe(401);
      expect(r.type).toMatch(/^application\/json/);
      expect(r.body).toEqual({ code: 401000, detail: expect.any(String), error: 'invalid_client', error_description: expect.any(String) });
      expect(r.body.error_description).toBe(r.body.detail);
    },
  );
  it('a real key id with a secret that is not valid percent-encoding is 401 invalid_client', async () => {
    const r = await token(basic(`${svc.keyIds.analyst}:${svc.keys.analyst}%zz`));
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 401000, error: 'invalid_client' });
  });
  it('credentials quoted (Python SDK) and unquoted (PHP) both still get a token', async () => {
    const quoted = await token(basic(`${encodeURIComponent(svc.keyIds.analyst!)}:${encodeURIComponent(svc.keys.analyst!)}`));
    expect(quoted.status).toBe(200);
    expect(quoted.body).toMatchObject({ token_type: 'bearer', access_token: expect.any(String) });
    const plain = await token(basic(`${svc.keyIds.analyst}:${svc.keys.analyst}`));
    expect(plain.status).toBe(200);
  });
  it('form credentials with bad percent-encoding are 401 invalid_client too', async () => {
    const r = await token(undefined, 'grant_type=client_credentials&client_id=%zz&client_secret=%zz');
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ code: 401000, error: 'invalid_client' });
  });
});

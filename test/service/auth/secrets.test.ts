/**
 * Sealed secrets (service/auth/secrets.ts): the GCM tag is 16 bytes, sealed and required; a v1
 * value (not bound to its row) opens only when the caller allows it.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secrets, SecretsError, byokContext } from '../../../service/auth/secrets.js';
import { sealV1 } from '../../helpers/legacy-secrets.js';

describe('sealed secrets', () => {
  const s = new Secrets(crypto.randomBytes(32));
  const ctx = byokContext('org:1', 'openai');

  it('opens what it sealed, for its row only', () => {
    const sealed = s.seal('sk-secret', ctx);
    expect(s.open(sealed, ctx)).toBe('sk-secret');
    expect(() => s.open(sealed, byokContext('org:2', 'openai'))).toThrow(SecretsError);
  });

  it('refuses a value whose tag was cut short (a truncated tag would open with GCM left to its default)', () => {
    const sealed = s.seal('sk-secret', ctx);
    const [v, kid, b64] = sealed.split(':');
    const raw = Buffer.from(b64!, 'base64');
    // iv | the first 4 bytes of the tag | ciphertext: what a forger with a short tag sends
    const short = Buffer.concat([raw.subarray(0, 12), raw.subarray(12, 16), raw.subarray(28)]);
    expect(() => s.open(`${v}:${kid}:${short.toString('base64')}`, ctx)).toThrow(SecretsError);
    expect(() => s.open(`${v}:${kid}:${raw.subarray(0, 20).toString('base64')}`, ctx)).toThrow(/too short/);
  });

  it('opens a v1 value only when allowed, and then for any row (it carries no row)', () => {
    const key = crypto.randomBytes(32);
    const k = new Secrets(key);
    const old = sealV1(key, 'sk-old-format');
    expect(() => k.open(old, ctx)).toThrow(
      /^a secret sealed by master key [0-9a-f]{8} is in the v1 format \(not bound to its row\), which is not accepted here$/,
    );
    expect(k.open(old, ctx, { v1: true })).toBe('sk-old-format');
    expect(k.open(old, byokContext('org:2', 'google'), { v1: true })).toBe('sk-old-format');
  });
});

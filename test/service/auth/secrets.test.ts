/** Sealed secrets (service/auth/secrets.ts): the GCM tag is 16 bytes, sealed and required. */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Secrets, SecretsError, byokContext } from '../../../service/auth/secrets.js';

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
});

/**
 * Gzip bodies (a `.xml.gz` sitemap, served as the file it is: the fetcher asks for
 * `Accept-Encoding: identity`, so this is the resource's own encoding, not a transfer one),
 * inflated as a stream with a cap on the OUTPUT: a gzip bomb (200 MB of zeros is ~200 KB
 * compressed) is refused once the cap is passed, never inflated further.
 */
import { createGunzip } from 'node:zlib';

/** The gzip magic bytes (RFC 1952: ID1 ID2). */
export const isGzip = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

export class GunzipRefused extends Error {
  override readonly name = 'GunzipRefused';
  constructor(
    /** `too_large`: it inflates past the cap; `gzip`: not a valid gzip stream */
    readonly reason: 'too_large' | 'gzip',
    message: string,
    /** bytes inflated when it stopped */
    readonly inflated: number,
  ) {
    super(message);
  }
}

/** Inflate `bytes` (gzip) as a stream, stopping as soon as the output passes `maxBytes`. */
export function gunzipCapped(bytes: Uint8Array, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const z = createGunzip();
    const chunks: Buffer[] = [];
    let out = 0;
    let done = false;
    const fail = (e: GunzipRefused) => {
      if (done) return;
      done = true;
      z.destroy();
      reject(e);
    };
    z.on('data', (c: Buffer) => {
      if (done) return;
      out += c.length;
      if (out > maxBytes) {
        fail(new GunzipRefused('too_large', `gzip body inflates past the cap of ${maxBytes} bytes (stopped after ${out})`, out));
        return;
      }
      chunks.push(c);
    });
    z.on('error', (e) => fail(new GunzipRefused('gzip', `not a valid gzip stream: ${e.message}`, out)));
    z.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks, out));
    });
    z.end(bytes);
  });
}

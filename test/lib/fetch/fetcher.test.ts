import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchRefused, fetchPage, type FetchOptions } from '../../../lib/fetch/fetcher.js';
import { parseFetchAllow } from '../../../lib/fetch/policy.js';
import { html, redirect, startPageServer, type PageServer } from '../../helpers/page-server.js';

/** The refusal a fetch ends with (fails the test when the fetch succeeds or throws anything else). */
async function refusedWith(url: string, opts: FetchOptions): Promise<FetchRefused> {
  const err = await fetchPage(url, opts).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(FetchRefused);
  return err as FetchRefused;
}

const PAGE = '<!doctype html><html><head><title>Hello</title></head><body><p>Hello, loopback.</p></body></html>';

let server: PageServer;
/** a second server on another loopback address, outside the allow list */
let outside: PageServer;
const allowServer = () => ({ policy: parseFetchAllow('127.0.0.1/32') });

beforeAll(async () => {
  server = await startPageServer('127.0.0.1');
  outside = await startPageServer('127.0.0.2');
  outside.routes.set('/', html(PAGE));
  server.routes.set('/page', html(PAGE));
});
afterAll(async () => {
  await server.close();
  await outside.close();
});

describe('fetchPage', () => {
  it('fetches an HTML page from a server the allow list covers', async () => {
    const page = await fetchPage(`${server.origin}/page`, allowServer());
    expect(page.status).toBe(200);
    expect(page.html).toBe(PAGE);
    expect(page.contentType).toBe('text/html');
    expect(page.charset).toBe('utf-8');
    expect(page.redirects).toEqual([]);
  });

  it('refuses loopback without an allow entry, before connecting', async () => {
    const before = server.connections;
    const err = await refusedWith(`${server.origin}/page`, { policy: parseFetchAllow('') });
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toMatch(/loopback/);
    expect(server.connections).toBe(before);
  });

  it('refuses a redirect from an allowed server to a loopback address outside the allow list', async () => {
    server.routes.set('/to-outside', redirect(`${outside.origin}/`));
    const before = outside.connections;
    const err = await refusedWith(`${server.origin}/to-outside`, allowServer());
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toContain('127.0.0.2');
    expect(outside.connections).toBe(before);
    // the same page is fetched when the allow list covers it: the refusal came from the policy
    const page = await fetchPage(`${server.origin}/to-outside`, { policy: parseFetchAllow('127.0.0.0/8') });
    expect(page.url).toBe(`${outside.origin}/`);
    expect(page.redirects).toEqual([`${server.origin}/to-outside`]);
  });

  it('refuses a redirect from an allowed host name to another name resolving to the same address', async () => {
    const lookup = async () => [{ address: '127.0.0.1', family: 4 }];
    server.routes.set('/to-other-name', redirect(`http://other.test:${server.port}/page`));
    const ok = await fetchPage(`http://news.test:${server.port}/page`, { policy: parseFetchAllow('news.test'), lookup });
    expect(ok.html).toBe(PAGE);
    const err = await refusedWith(`http://news.test:${server.port}/to-other-name`, { policy: parseFetchAllow('news.test'), lookup });
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toContain('other.test');
  });

  it('refuses a redirect to an IPv6 loopback address and to an odd IPv4 literal', async () => {
    server.routes.set('/to-v6', redirect(`http://[::1]:${server.port}/page`));
    server.routes.set('/to-hex', redirect(`http://0x7f.0.0.3:${server.port}/page`));
    expect((await refusedWith(`${server.origin}/to-v6`, allowServer())).reason).toBe('forbidden_address');
    const hex = await refusedWith(`${server.origin}/to-hex`, allowServer());
    expect(hex.reason).toBe('forbidden_address');
    expect(hex.message).toContain('127.0.0.3');
  });

  it.each([
    ['169.254.169.254', 'metadata'],
    ['10.0.0.1', 'private'],
    ['100.64.0.9', 'cgnat'],
  ])('refuses a host name that resolves to %s (%s) without connecting', async (address, kind) => {
    const err = await refusedWith('http://rebind.example/', {
      policy: parseFetchAllow(''),
      lookup: async () => [{ address, family: 4 }],
      connectTimeoutMs: 5_000, // a connection attempt would end as timeout or network, not forbidden_address
    });
    expect(err.reason).toBe('forbidden_address');
    expect(err.message).toContain(`${address} (${kind})`);
  });

  it('refuses a host name resolving to the test server when the name is not allowed, and the server sees no connection', async () => {
    const before = server.connections;
    const err = await refusedWith(`http://evil.example:${server.port}/page`, {
      policy: parseFetchAllow(''),
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(err.reason).toBe('forbidden_address');
    expect(server.connections).toBe(before);
  });

  it('connects only to the allowed address when DNS answers a forbidden and an allowed one', async () => {
    const page = await fetchPage(`http://mixed.test:${server.port}/page`, {
      policy: parseFetchAllow('127.0.0.1'),
      lookup: async () => [
        { address: '169.254.169.254', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
      connectTimeoutMs: 5_000, // a connection attempt would end as timeout or network, not forbidden_address
    });
    expect(page.html).toBe(PAGE);
  });

  it('follows 5 redirects and refuses the 6th as too_many_redirects', async () => {
    for (let i = 1; i <= 6; i++) server.routes.set(`/hop${i}`, redirect(i === 6 ? '/page' : `hop${i + 1}`, 301));
    server.routes.set('/hop0', redirect('/hop1', 307));
    const five = await fetchPage(`${server.origin}/hop2`, allowServer());
    expect(five.redirects).toHaveLength(5);
    expect(five.url).toBe(`${server.origin}/page`);
    const err = await refusedWith(`${server.origin}/hop1`, allowServer());
    expect(err.reason).toBe('too_many_redirects');
  });

  it('stops reading a body that streams past the size cap', async () => {
    server.routes.set('/forever', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(16 * 1024, 'a');
      const write = () => {
        while (res.write(chunk));
        res.once('drain', write);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      write();
    });
    const err = await refusedWith(`${server.origin}/forever`, { ...allowServer(), maxBytes: 256 * 1024 });
    expect(err.reason).toBe('too_large');
  });

  it('refuses a Content-Length over the cap without reading the body', async () => {
    server.routes.set('/big', (_req, res) => res.writeHead(200, { 'content-type': 'text/html', 'content-length': 2048 }).end(Buffer.alloc(2048, 'b')));
    const err = await refusedWith(`${server.origin}/big`, { ...allowServer(), maxBytes: 1024 });
    expect(err.reason).toBe('too_large');
    expect(err.message).toMatch(/Content-Length 2048/);
  });

  it('ends with a timeout when the server never answers', async () => {
    server.routes.set('/hang', () => undefined);
    const err = await refusedWith(`${server.origin}/hang`, { ...allowServer(), headersTimeoutMs: 300 });
    expect(err.reason).toBe('timeout');
  });

  it('ends with a timeout when the body stalls', async () => {
    server.routes.set('/stall', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body>');
    });
    const err = await refusedWith(`${server.origin}/stall`, { ...allowServer(), bodyTimeoutMs: 300 });
    expect(err.reason).toBe('timeout');
  });

  it('ends with a timeout when a body trickles past the total time', async () => {
    server.routes.set('/trickle', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const timer = setInterval(() => res.write('<p>.</p>'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const err = await refusedWith(`${server.origin}/trickle`, { ...allowServer(), totalTimeoutMs: 500 });
    expect(err.reason).toBe('timeout');
    expect(err.message).toMatch(/total time/);
  });

  it('sniffs a response without Content-Type: HTML is read, anything else is not_html', async () => {
    const bare = (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
      res.removeHeader('content-type');
      res.writeHead(200).end(body);
    };
    server.routes.set('/bare-html', bare(PAGE));
    server.routes.set('/bare-text', bare('just some text'));
    expect((await fetchPage(`${server.origin}/bare-html`, allowServer())).html).toBe(PAGE);
    expect((await refusedWith(`${server.origin}/bare-text`, allowServer())).reason).toBe('not_html');
  });

  it('refuses application/pdf as not_html', async () => {
    server.routes.set('/doc.pdf', html('%PDF-1.4', 'application/pdf'));
    const err = await refusedWith(`${server.origin}/doc.pdf`, allowServer());
    expect(err.reason).toBe('not_html');
    expect(err.message).toContain('application/pdf');
  });

  it('accepts application/xhtml+xml', async () => {
    server.routes.set('/x', html(PAGE, 'application/xhtml+xml'));
    expect((await fetchPage(`${server.origin}/x`, allowServer())).html).toBe(PAGE);
  });

  it.each(['ftp://example.com/file.html', 'file:///etc/passwd', 'gopher://example.com/', 'javascript:alert(1)'])('refuses the scheme of %s', async (url) => {
    expect((await refusedWith(url, allowServer())).reason).toBe('scheme');
  });

  it('refuses a redirect to a file: URL by its scheme', async () => {
    server.routes.set('/to-file', redirect('file:///etc/passwd'));
    expect((await refusedWith(`${server.origin}/to-file`, allowServer())).reason).toBe('scheme');
  });

  it('reports an error status as http_status with the status', async () => {
    const err = await refusedWith(`${server.origin}/missing`, allowServer());
    expect(err.reason).toBe('http_status');
    expect(err.status).toBe(404);
  });

  it('reports a host that does not resolve as dns', async () => {
    const err = await refusedWith('http://nowhere.invalid/', {
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
      },
    });
    expect(err.reason).toBe('dns');
  });

  it('decodes a windows-1252 page by the charset of its Content-Type header', async () => {
    // “Café” — 10 €
    const bytes = Buffer.from([0x93, 0x43, 0x61, 0x66, 0xe9, 0x94, 0x20, 0x97, 0x20, 0x31, 0x30, 0x20, 0x80]);
    server.routes.set(
      '/cp1252',
      html(Buffer.concat([Buffer.from('<html><body><p>'), bytes, Buffer.from('</p></body></html>')]), 'text/html; charset=windows-1252'),
    );
    const page = await fetchPage(`${server.origin}/cp1252`, allowServer());
    expect(page.charset).toBe('windows-1252');
    expect(page.charsetSource).toBe('header');
    expect(page.html).toContain('<p>“Café” — 10 €</p>');
  });

  it('decodes an ISO-8859-1 page by its <meta charset>', async () => {
    const body = Buffer.concat([
      Buffer.from('<!doctype html><html><head><meta charset="ISO-8859-1"><title>'),
      Buffer.from([0x4e, 0x61, 0xef, 0x76, 0x65, 0x20, 0x66, 0x61, 0xe7, 0x61, 0x64, 0x65]), // Naïve façade
      Buffer.from('</title></head><body></body></html>'),
    ]);
    server.routes.set('/latin1', html(body, 'text/html'));
    const page = await fetchPage(`${server.origin}/latin1`, allowServer());
    expect(page.charsetSource).toBe('meta');
    expect(page.html).toContain('<title>Naïve façade</title>');
  });

  it('decodes by the byte-order mark before the Content-Type charset', async () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<html><body>Łódź</body></html>')]);
    server.routes.set('/bom', html(body, 'text/html; charset=iso-8859-1'));
    const page = await fetchPage(`${server.origin}/bom`, allowServer());
    expect(page.charsetSource).toBe('bom');
    expect(page.html).toBe('<html><body>Łódź</body></html>');
  });

  it('decodes by <meta http-equiv="Content-Type"> and defaults to UTF-8', async () => {
    const body = Buffer.concat([
      Buffer.from('<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-15"></head><body>'),
      Buffer.from([0xa4]), // € in ISO-8859-15
      Buffer.from('</body></html>'),
    ]);
    server.routes.set('/latin9', html(body, 'text/html'));
    expect((await fetchPage(`${server.origin}/latin9`, allowServer())).html).toContain('<body>€</body>');
    server.routes.set('/utf8', html(Buffer.from('<html><body>Żółw</body></html>'), 'text/html'));
    const utf8 = await fetchPage(`${server.origin}/utf8`, allowServer());
    expect(utf8.charsetSource).toBe('default');
    expect(utf8.html).toContain('Żółw');
  });
});

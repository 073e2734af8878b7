/**
 * Decoding a page checks the declared charset against the bytes: UTF-8 bytes declared as another
 * charset are read as UTF-8, and a text that decodes into replacement or private-use characters
 * is re-detected (chardet). The pages are real: gmw (a Chinese page of the shared Readability
 * set) and lemonde-1, re-encoded and re-declared as misconfigured servers send them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHtml } from '../../../lib/fetch/charset.js';
import { fetchPage } from '../../../lib/fetch/fetcher.js';
import { parseFetchAllow } from '../../../lib/fetch/policy.js';
import { html, startPageServer, type PageServer } from '../../helpers/page-server.js';
import { pagesDir } from '../../helpers/readability-pages.js';

const GMW_TITLE = '宇航员在太空中喝酒会怎么样？后果很严重 _探索者 _光明网';
const gmw = fs.readFileSync(path.join(pagesDir, 'gmw', 'source.html'), 'utf8');
/** gmw with every charset declaration saying gb2312, its bytes still UTF-8 */
const gmwDeclaredGb2312 = Buffer.from(gmw.replaceAll('charset=utf-8', 'charset=gb2312'));
const titleOf = (text: string) => /<title>([^<]*)<\/title>/.exec(text)?.[1]?.trim();

/** Bytes of a text in a legacy double-byte encoding, from the inverse of Node's decoder. */
function encodeLegacy(text: string, encoding: string): Buffer {
  const decoder = new TextDecoder(encoding, { fatal: true });
  const table = new Map<string, number[]>();
  for (let a = 0x81; a <= 0xfe; a++)
    for (let b = 0x40; b <= 0xfe; b++) {
      try {
        const c = decoder.decode(new Uint8Array([a, b]));
        if (c.length === 1 && !table.has(c)) table.set(c, [a, b]);
      } catch {
        // not a character of this encoding
      }
    }
  const out: number[] = [];
  for (const c of text) {
    if (c.charCodeAt(0) < 0x80) out.push(c.charCodeAt(0));
    else {
      const bytes = table.get(c);
      if (!bytes) throw new Error(`${c} has no ${encoding} bytes`);
      out.push(...bytes);
    }
  }
  return Buffer.from(out);
}

describe('decodeHtml', () => {
  it('reads UTF-8 bytes declared gb2312 by <meta> as UTF-8, with the real title', () => {
    // read as declared, the title is mojibake with private-use characters
    expect(titleOf(new TextDecoder('gb18030').decode(gmwDeclaredGb2312))).not.toBe(GMW_TITLE);
    const page = decodeHtml(gmwDeclaredGb2312);
    expect(page).toMatchObject({ charset: 'utf-8', source: 'detected' });
    expect(titleOf(page.text)).toBe(GMW_TITLE);
    expect(page.text).not.toMatch(/[\ufffd\ue000-\uf8ff]/);
  });

  it('reads UTF-8 bytes as UTF-8 when the Content-Type header declares ISO-8859-1', () => {
    const page = decodeHtml(Buffer.from('<html><body><p>Żółta łódź płynie po Wiśle.</p></body></html>'), 'text/html; charset=iso-8859-1');
    expect(page).toMatchObject({ charset: 'utf-8', source: 'detected' });
    expect(page.text).toContain('Żółta łódź płynie po Wiśle.');
  });

  it('re-detects GBK bytes served as UTF-8 (replacement characters) as GB18030', () => {
    const text = '光明网讯 宇航员在太空中喝酒会怎么样？国际空间站上的宇航员不能喝酒，因为酒精会影响判断，在失重环境下后果很严重。'.repeat(4);
    const bytes = Buffer.concat([
      Buffer.from('<html><head><title>'),
      encodeLegacy(text.slice(0, 20), 'gbk'),
      Buffer.from('</title></head><body><p>'),
      encodeLegacy(text, 'gbk'),
      Buffer.from('</p></body></html>'),
    ]);
    const page = decodeHtml(bytes, 'text/html; charset=utf-8');
    expect(page).toMatchObject({ charset: 'gb18030', source: 'detected' });
    expect(page.text).toContain(text);
  });

  it('re-detects Shift_JIS bytes given no charset as Shift_JIS', () => {
    const text = '東京オリンピックの開会式が行われ、日本の選手団が入場しました。多くの観客が拍手で迎えました。'.repeat(4);
    const page = decodeHtml(Buffer.concat([Buffer.from('<html><body><p>'), encodeLegacy(text, 'shift_jis'), Buffer.from('</p></body></html>')]));
    expect(page).toMatchObject({ charset: 'shift_jis', source: 'detected' });
    expect(page.text).toContain(text);
  });

  it('keeps a declared legacy charset whose text decodes cleanly (lemonde-1 in windows-1252)', () => {
    const lemonde = fs.readFileSync(path.join(pagesDir, 'lemonde-1', 'source.html'), 'utf8');
    const bytes = Buffer.from(
      lemonde.replace(/[^\t-\u00ff\u20ac\u2018\u2019\u201c\u201d\u2013\u2014\u2026]/g, '?').replace(/[\u20ac\u2018\u2019\u201c\u201d\u2013\u2014\u2026]/g, "'"),
      'latin1',
    );
    const page = decodeHtml(bytes, 'text/html; charset=windows-1252');
    expect(page).toMatchObject({ charset: 'windows-1252', source: 'header' });
    expect(page.text).toContain('é');
  });

  it('keeps valid UTF-8 with private-use characters (an icon font) as UTF-8', () => {
    const page = decodeHtml(Buffer.from(`<html><body><p>\ue001 \ue002 \ue003 \ue004 \ue005 \ue006 Menu — Café</p></body></html>`), 'text/html; charset=utf-8');
    expect(page).toMatchObject({ charset: 'utf-8', source: 'header' });
    expect(page.text).toContain('Menu — Café');
  });
});

describe('fetchPage decoding', () => {
  let server: PageServer;
  beforeAll(async () => {
    server = await startPageServer();
    server.routes.set('/gmw', html(gmwDeclaredGb2312, 'text/html'));
  });
  afterAll(async () => {
    await server.close();
  });

  it('fetches gmw served with no header charset and declared gb2312 as UTF-8, with its real title', async () => {
    const page = await fetchPage(`${server.origin}/gmw`, { policy: parseFetchAllow('127.0.0.1') });
    expect(page).toMatchObject({ charset: 'utf-8', charsetSource: 'detected' });
    expect(titleOf(page.html)).toBe(GMW_TITLE);
  });
});

/**
 * The text of an HTML page from its bytes, in the order the HTML standard decides the encoding:
 * a byte-order mark, else the `charset` of the Content-Type header, else a `<meta charset>` or
 * `<meta http-equiv="Content-Type" content="...; charset=...">` in the head (its first 64 KiB: a
 * browser that meets a later `<meta charset>` re-reads the page with it), else
 * UTF-8 (`decodeHtml`); an XML document (a feed, a sitemap) the same way with its XML declaration in
 * place of `<meta>` (`decodeXml`). Labels are WHATWG encoding labels (`latin1`, `iso-8859-1` and `ascii` mean
 * windows-1252); an unknown label falls back to UTF-8.
 *
 * A declared charset is checked against the bytes (pages lie: a CMS template says gb2312 over
 * UTF-8 bytes, and reading them as declared gives mojibake with private-use characters):
 * - bytes that are valid UTF-8 with multi-byte sequences, declared as another charset, are UTF-8;
 * - a text that decodes into replacement (U+FFFD) or private-use characters is re-detected from
 *   its bytes with `chardet` (measured against jschardet on 20 real pages transcoded into 14
 *   legacy encodings, CJK, Cyrillic-free European, Arabic, Thai: chardet 20/20 on the markup-free
 *   bytes, jschardet 17/20), and the detected charset is kept when it decodes with fewer of them.
 */
import chardet from 'chardet';
import { collapseSpace, stripTags } from './tags.js';

/** windows-1252 0x80..0x9F (Node 20's TextDecoder decodes these bytes as ISO-8859-1 C1 controls) */
const CP1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

const PRESCAN_BYTES = 65_536;

function decoderFor(label: string | undefined): TextDecoder | null {
  if (!label) return null;
  let l = label.trim().toLowerCase();
  // the standard: a page that declares UTF-16 in ASCII-compatible bytes is not UTF-16
  if (l.startsWith('utf-16')) l = 'utf-8';
  if (l === 'x-user-defined') l = 'windows-1252';
  try {
    return new TextDecoder(l);
  } catch {
    return null;
  }
}

function bomEncoding(b: Uint8Array): string | null {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  return null;
}

/** The charset parameter of a Content-Type header value. */
export function headerCharset(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '');
  return m?.[1];
}

/**
 * The charset a `<meta>` declares in the first bytes of a page: one scan of the head (comments
 * skipped, stopping at `</head>` or `<body`), each `<meta ...>` tag read on its own (a bounded
 * text): linear in the 64 KiB read, whatever the bytes (no pattern runs over the whole head).
 */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES)).toString('latin1');
  const lowerHead = head.toLowerCase();
  let noCommentEnd = false;
  for (let i = lowerHead.indexOf('<'); i >= 0; i = lowerHead.indexOf('<', i + 1)) {
    if (lowerHead.startsWith('<!--', i)) {
      if (noCommentEnd) continue;
      const end = lowerHead.indexOf('-->', i + 4);
      if (end < 0) noCommentEnd = true;
      else i = end + 2;
      continue;
    }
    if (lowerHead.startsWith('</head', i) || (lowerHead.startsWith('<body', i) && /[\s>]/.test(lowerHead[i + 5] ?? ''))) return undefined;
    if (lowerHead.startsWith('<meta', i) && !/[a-z0-9-]/.test(lowerHead[i + 5] ?? '')) {
      const end = lowerHead.indexOf('>', i);
      // no `>` after it: no later tag ends either
      if (end < 0) return undefined;
      const tag = head.slice(i, end + 1);
      const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag.length > 4096 ? tag.slice(0, 4096) : tag);
      if (direct) return direct[1];
      i = end;
    }
  }
  return undefined;
}

export interface DecodedPage {
  text: string;
  /** the WHATWG name of the encoding used (e.g. `utf-8`, `windows-1252`) */
  charset: string;
  /** where the encoding came from: `detected` when the bytes overruled the declared charset */
  source: 'bom' | 'header' | 'meta' | 'default' | 'detected';
}

const decode = (bytes: Uint8Array, decoder: TextDecoder): string => {
  const text = decoder.decode(bytes);
  return decoder.encoding === 'windows-1252' ? text.replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!) : text;
};

/** Whether the bytes hold a multi-byte UTF-8 sequence and nothing that is not UTF-8. */
export function isMultiByteUtf8(bytes: Uint8Array): boolean {
  let nonAscii = false;
  for (const b of bytes) {
    if (b >= 0x80) {
      nonAscii = true;
      break;
    }
  }
  if (!nonAscii) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Replacement and private-use characters: the marks of a text decoded with the wrong charset. */
export function badChars(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/[\ufffd\ue000-\uf8ff]/g)) if (m) n++;
  return n;
}

/**
 * The charset the bytes look like, from their text outside tags (at most 64 KiB of it; the tags
 * are taken out by one linear scan, lib/fetch/tags.ts, which stops once it has that much text).
 */
export function detectCharset(bytes: Uint8Array): string | null {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  const text = collapseSpace(stripTags(raw, { replaceWith: ' ', dropScripts: true, maxOutput: 4 * 65_536 })).slice(0, 65_536);
  return chardet.detect(Buffer.from(text, 'latin1'));
}

/**
 * Decode with the first encoding the BOM, the header or the document declares (`declared`), then
 * check it against the bytes (see the top of this file).
 */
function decodeChecked(bytes: Uint8Array, contentType: string | undefined, declared: (b: Uint8Array) => string | undefined): DecodedPage {
  const bom = bomEncoding(bytes);
  let decoder: TextDecoder | null = null;
  let source: DecodedPage['source'] = 'default';
  if (bom) [decoder, source] = [new TextDecoder(bom), 'bom'];
  if (!decoder && (decoder = decoderFor(headerCharset(contentType)))) source = 'header';
  if (!decoder && (decoder = decoderFor(declared(bytes)))) source = 'meta';
  decoder ??= new TextDecoder('utf-8');
  // declared as something else, but the bytes are UTF-8
  if (decoder.encoding !== 'utf-8' && source !== 'bom' && isMultiByteUtf8(bytes))
    return { text: decode(bytes, new TextDecoder('utf-8')), charset: 'utf-8', source: 'detected' };
  const text = decode(bytes, decoder);
  // valid UTF-8 is never re-detected (its private-use characters are an icon font's, not mojibake)
  if (decoder.encoding === 'utf-8' && !text.includes('\ufffd')) return { text, charset: decoder.encoding, source };
  // a text with replacement or private-use characters (1 in 2,000 characters, or 5): detect
  const bad = badChars(text);
  if (bad >= 5 || (bad > 0 && bad * 2000 >= text.length)) {
    const other = decoderFor(detectCharset(bytes) ?? undefined);
    if (other && other.encoding !== decoder.encoding) {
      const retry = decode(bytes, other);
      if (badChars(retry) < bad) return { text: retry, charset: other.encoding, source: 'detected' };
    }
  }
  return { text, charset: decoder.encoding, source };
}

export function decodeHtml(bytes: Uint8Array, contentType?: string): DecodedPage {
  return decodeChecked(bytes, contentType, metaCharset);
}

/** The `encoding` of an XML declaration (`<?xml version="1.0" encoding="..."?>`) at the start of the bytes (blank lines before it allowed). */
export function xmlDeclCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1');
  return /^(?:\ufeff|\xef\xbb\xbf)?\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1];
}

/**
 * The text of an XML document (a feed, a sitemap) from its bytes, in the order XML decides the
 * encoding (the Extensible Markup Language 1.0, appendix F; RFC 7303 for the header): a
 * byte-order mark, else the `charset` of the Content-Type header, else the `encoding` of the XML
 * declaration, else UTF-8; checked against the bytes as pages are (UTF-8 bytes declared as
 * ISO-8859-1 are UTF-8; undeclared Latin-1 bytes, which are not UTF-8, are re-detected). `source`
 * `meta` means the XML declaration. The text keeps its declaration: a parser reads the string.
 */
export function decodeXml(bytes: Uint8Array, contentType?: string): DecodedPage {
  return decodeChecked(bytes, contentType, xmlDeclCharset);
}

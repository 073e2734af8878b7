/**
 * The text of an HTML page from its bytes, in the order the HTML standard decides the encoding:
 * a byte-order mark, else the `charset` of the Content-Type header, else a `<meta charset>` or
 * `<meta http-equiv="Content-Type" content="...; charset=...">` in the first 4096 bytes, else
 * UTF-8. Labels are WHATWG encoding labels (`latin1`, `iso-8859-1` and `ascii` mean
 * windows-1252); an unknown label falls back to UTF-8.
 */

/** windows-1252 0x80..0x9F (Node 20's TextDecoder decodes these bytes as ISO-8859-1 C1 controls) */
const CP1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

const PRESCAN_BYTES = 4096;

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

/** The charset a `<meta>` declares in the first bytes of a page. */
export function metaCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PRESCAN_BYTES))
    .toString('latin1')
    .replace(/<!--[\s\S]*?-->/g, '');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return undefined;
}

export interface DecodedPage {
  text: string;
  /** the WHATWG name of the encoding used (e.g. `utf-8`, `windows-1252`) */
  charset: string;
  /** where the encoding came from */
  source: 'bom' | 'header' | 'meta' | 'default';
}

export function decodeHtml(bytes: Uint8Array, contentType?: string): DecodedPage {
  const bom = bomEncoding(bytes);
  let decoder: TextDecoder | null = null;
  let source: DecodedPage['source'] = 'default';
  if (bom) [decoder, source] = [new TextDecoder(bom), 'bom'];
  if (!decoder && (decoder = decoderFor(headerCharset(contentType)))) source = 'header';
  if (!decoder && (decoder = decoderFor(metaCharset(bytes)))) source = 'meta';
  decoder ??= new TextDecoder('utf-8');
  let text = decoder.decode(bytes);
  if (decoder.encoding === 'windows-1252') text = text.replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!);
  return { text, charset: decoder.encoding, source };
}

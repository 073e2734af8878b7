/**
 * Regular expressions that are both the server's rule and the OpenAPI document's `pattern`: one
 * source, so what the document calls valid is what the server takes, and nothing else.
 *
 * They are written in the subset that ECMA-262 (the server, JSON Schema) and Python's `re` (the
 * fuzzer's generator) read alike: ASCII classes only (`[0-9]`, never `\d`, which Python reads as
 * any Unicode digit; explicit whitespace lists, never `\s` or `.`), no lookaround, no flags.
 */

import { z } from 'zod';

/** `^...$` of a pattern body. */
const whole = (body: string) => new RegExp(`^(?:${body})$`);

const HEX4 = '[0-9A-Fa-f]{1,4}';
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
/** Dotted-quad IPv4, no leading zeros (WHATWG URL reads `010` as octal). */
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
/** IPv6 in full or with one `::` (no zone id, no embedded IPv4). */
const IPV6 = [
  `(?:${HEX4}:){7}${HEX4}`,
  `(?:${HEX4}:){1,7}:`,
  `(?:${HEX4}:){1,6}:${HEX4}`,
  `(?:${HEX4}:){1,5}(?::${HEX4}){1,2}`,
  `(?:${HEX4}:){1,4}(?::${HEX4}){1,3}`,
  `(?:${HEX4}:){1,3}(?::${HEX4}){1,4}`,
  `(?:${HEX4}:){1,2}(?::${HEX4}){1,5}`,
  `${HEX4}:(?::${HEX4}){1,6}`,
  `:(?:(?::${HEX4}){1,7}|:)`,
].join('|');
/**
 * A host name: ASCII labels of letters and digits with single hyphens inside (so no `xn--`
 * label, which a URL parser must decode), the last one starting with a letter (a last label of
 * digits or `0x...` makes a URL parser read the host as an IPv4 number).
 */
const LABEL = '[A-Za-z0-9](?:-?[A-Za-z0-9])*';
const HOSTNAME = `(?:${LABEL}\\.)*[A-Za-z](?:-?[A-Za-z0-9])*`;
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})';
const USERINFO = "[A-Za-z0-9._~!$&'()*+,;=:%-]*@";
/** What may follow the authority: a path, query or fragment, without spaces or control characters. */
const TAIL = '(?:[/?#][^\\x00-\\x20\\x7f]*)?';
const SCHEME = '[Hh][Tt][Tt][Pp][Ss]?://';

/**
 * An absolute http(s) URL that every WHATWG URL parser takes, host included: a name, a
 * dotted-quad IPv4 or a bracketed IPv6, an optional user and port. What the service itself
 * calls (alert webhooks) is held to it.
 */
export const HTTP_URL = whole(`${SCHEME}(?:${USERINFO})?(?:${HOSTNAME}|${IPV4}|\\[(?:${IPV6})\\])(?::${PORT})?${TAIL}`);
/**
 * An http(s) URL as a request may name a page to index: the scheme, a non-empty authority,
 * then a path, query or fragment; no spaces or control characters. A URL a parser cannot read
 * (a host that is not a valid name) is taken by the request and refused in its job
 * (`invalid_url`), like a page the fetch policy refuses.
 */
export const PAGE_URL = whole(`${SCHEME}[^\\x00-\\x20\\x7f/?#]+${TAIL}`);

/** White space as JavaScript's `String.prototype.trim` removes it. */
const TRIMMED = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
/** A text with at least one character that is not white space. */
export const NOT_BLANK = new RegExp(`[^${TRIMMED}]`);

/** A token a provider's HTTP header can carry: printable ASCII without spaces (no CR, LF or other control characters). */
export const HEADER_TOKEN = /^[!-~]+$/;

/** `<entity_type>:<entity_value>`, the value without line terminators (what JavaScript's `.` matches). */
export const ENTITY_GUARANTEE = /^[^:]+:[^\n\r\u2028\u2029]+$/;

/**
 * An email address as zod's `z.email()` checks it, as a pattern alone: the JSON Schema `format:
 * email` of other validators takes other addresses, so the document states this pattern only.
 */
export const EMAIL = z.regexes.email;

/** An unsigned decimal of 1 to 9 digits (the web search cursor). */
export const DIGITS_CURSOR = /^[0-9]{1,9}$/;

const YEAR = '(?:000[1-9]|00[1-9][0-9]|0[1-9][0-9]{2}|[1-9][0-9]{3})';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';
const MONTH_DAY = '(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)';
/** A real UTC minute `YYYY-MM-DD-HH:MM`, years 0001 to 9999 (leap days in leap years only). */
export const CUTOFF_DATE = whole(`(?:${YEAR}-${MONTH_DAY}|${LEAP_YEAR}-02-29)-(?:[01][0-9]|2[0-3]):[0-5][0-9]`);

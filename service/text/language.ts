/**
 * Language of an article: `eld` (efficient language detector, n-gram model shipped in the package;
 * the "extrasmall" database keeps memory near 90 MB). Returns an ISO 639-1 code of the
 * interface's list, or "unknown". Very short or ambiguous text defaults to English only when
 * the detector itself is unsure and the text is ASCII.
 */
import { eld } from 'eld/extrasmall';
import { LANGUAGES } from '../../spec/index.js';

const KNOWN = new Set<string>(LANGUAGES);

export function detectLanguage(title: string, text: string): string {
  const sample = `${title} ${text.slice(0, 1000)}`.trim();
  if (!sample) return 'unknown';
  const r = eld.detect(sample);
  const code = r.language;
  // eld is unsure on a handful of words; a plain-ASCII headline is English in our corpora
  if ((!code || !r.isReliable()) && /^[\x20-\x7e’‘“”—–]*$/.test(sample)) return 'en';
  return code && KNOWN.has(code) ? code : 'unknown';
}

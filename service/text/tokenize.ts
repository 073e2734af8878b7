/**
 * Text to index terms: Unicode-aware lowercase words, diacritics folded, stopwords dropped per
 * language (the `stopword` lists, ~60 languages), Porter-stemmed when the language is English
 * (the `stemmer` package; other languages are indexed unstemmed).
 *
 * Chinese and Japanese are written without spaces: a run of Han, Hiragana or Katakana is indexed
 * as its overlapping character bigrams (`深度学习` -> `深度 度学 学习`, as Lucene's CJK analyzer
 * does), whatever the language the text is said to be in, so that a title typed as a query finds
 * its article without a dictionary. Korean (Hangul) has spaces and stays whole words.
 */
import * as sw from 'stopword';
import { stemmer } from 'stemmer';

/** ISO 639-1 (the interface's codes) -> the stopword package's ISO 639-3 list names. */
const STOPWORD_LISTS: Record<string, string> = {
  af: 'afr',
  ar: 'ara',
  bn: 'ben',
  br: 'bre',
  bg: 'bul',
  ca: 'cat',
  cs: 'ces',
  da: 'dan',
  de: 'deu',
  el: 'ell',
  en: 'eng',
  eo: 'epo',
  et: 'est',
  eu: 'eus',
  fa: 'fas',
  fi: 'fin',
  fr: 'fra',
  ga: 'gle',
  gl: 'glg',
  gu: 'guj',
  ha: 'hau',
  he: 'heb',
  hi: 'hin',
  hr: 'hrv',
  hu: 'hun',
  hy: 'hye',
  id: 'ind',
  it: 'ita',
  ja: 'jpn',
  ko: 'kor',
  ku: 'kur',
  la: 'lat',
  lv: 'lav',
  lt: 'lit',
  mr: 'mar',
  ms: 'msa',
  my: 'mya',
  nl: 'nld',
  no: 'nob',
  pa: 'panGu',
  pl: 'pol',
  pt: 'por',
  ro: 'ron',
  ru: 'rus',
  sk: 'slk',
  sl: 'slv',
  so: 'som',
  st: 'sot',
  es: 'spa',
  sw: 'swa',
  sv: 'swe',
  tl: 'tgl',
  th: 'tha',
  tr: 'tur',
  uk: 'ukr',
  ur: 'urd',
  vi: 'vie',
  yo: 'yor',
  zh: 'zho',
  zu: 'zul',
};
const stopSets = new Map<string, Set<string>>();
export function stopwords(lang: string): Set<string> {
  let s = stopSets.get(lang);
  if (!s) {
    const list = (sw as unknown as Record<string, string[] | undefined>)[STOPWORD_LISTS[lang] ?? 'eng'] ?? [];
    s = new Set(list.map((w) => fold(w)));
    stopSets.set(lang, s);
  }
  return s;
}

export const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Words as they appear (folded), before stopwords and stemming. */
export function words(text: string): string[] {
  return (
    fold(text)
      .match(WORD)
      ?.map((w) => w.replace(/['’]s$/, '').replace(/['’]/g, '')) ?? []
  );
}

const stemCache = new Map<string, string>();
function stem(w: string): string {
  let s = stemCache.get(w);
  if (s === undefined) {
    s = stemmer(w);
    if (stemCache.size < 500_000) stemCache.set(w, s);
  }
  return s;
}

/** A run of Han ideographs, kana or the prolonged sound mark (folded text: voiced kana lose their mark). */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc\u3005]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** The overlapping bigrams of a CJK run (a lone character is itself). */
function bigrams(run: string, out: string[]): void {
  const cs = [...run];
  if (cs.length === 1) out.push(cs[0]!);
  for (let i = 0; i + 1 < cs.length; i++) out.push(cs[i]! + cs[i + 1]!);
}

/** Index terms of a text in a language. */
export function terms(text: string, lang = 'en'): string[] {
  const stop = stopwords(lang);
  const out: string[] = [];
  for (const w of words(text)) {
    if (HAS_CJK.test(w)) {
      // a word that mixes scripts ("deepmind新电脑"): the other parts as words, the CJK runs as bigrams
      let last = 0;
      for (const m of w.matchAll(CJK_RUN)) {
        const before = w.slice(last, m.index);
        if (before.length >= 2 || /\d/.test(before)) out.push(lang === 'en' ? stem(before) : before);
        bigrams(m[0], out);
        last = m.index + m[0].length;
      }
      const after = w.slice(last);
      if (after.length >= 2 || /\d/.test(after)) out.push(lang === 'en' ? stem(after) : after);
      continue;
    }
    if (stop.has(w)) continue;
    if (w.length < 2 && !/\d/.test(w)) continue;
    out.push(lang === 'en' ? stem(w) : w);
  }
  return out;
}

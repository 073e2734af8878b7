/**
 * Extractive summary, key points and keywords.
 *
 * Sentences are scored by the mean corpus weight (tf-idf) of their terms, plus a lede bonus
 * (news puts the essentials first: +50% for the first sentence, +25% for the second). The
 * summary is the best two sentences in text order; key points the best four. A headline-only
 * article summarises to its headline. Keywords: the eight terms with the highest tf-idf, shown
 * in their most frequent surface form.
 */
import { stopwords, terms, words } from '../text/tokenize.js';

export interface DocFreq {
  df: Map<string, number>;
  n: number;
}

export function sentences(text: string): string[] {
  return text
    .split(/\n+/)
    .flatMap((p) => p.split(/(?<=[.!?]["”’)]?)\s+(?=["“‘(]?[A-Z0-9])/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const idf = (t: string, d: DocFreq) => Math.log(1 + d.n / (1 + (d.df.get(t) ?? 0)));

export function summarize(title: string, text: string, lang: string, d: DocFreq): { summary: string; keyPoints: string[] } {
  const sents = sentences(text).filter((s) => s.length >= 20);
  if (sents.length === 0) return { summary: title, keyPoints: [title] };
  const scored = sents.map((s, i) => {
    const ts = terms(s, lang);
    const w = ts.reduce((acc, t) => acc + idf(t, d), 0) / Math.max(4, ts.length);
    const lede = i === 0 ? 1.5 : i === 1 ? 1.25 : 1;
    return { s, i, score: w * lede };
  });
  const best = [...scored].sort((a, b) => b.score - a.score || a.i - b.i);
  const inOrder = (k: number) =>
    best
      .slice(0, k)
      .sort((a, b) => a.i - b.i)
      .map((x) => x.s);
  return { summary: inOrder(2).join(' '), keyPoints: inOrder(Math.min(4, sents.length)) };
}

export function keywords(title: string, text: string, lang: string, d: DocFreq, k = 8): string[] {
  const stop = stopwords(lang);
  const surface = new Map<string, Map<string, number>>();
  const tf = new Map<string, number>();
  const all = `${title} ${title} ${text}`;
  for (const w of words(all)) {
    if (stop.has(w) || w.length < 3 || /^\d+$/.test(w)) continue;
    const [t] = terms(w, lang);
    if (!t) continue;
    tf.set(t, (tf.get(t) ?? 0) + 1);
    const forms = surface.get(t) ?? new Map<string, number>();
    forms.set(w, (forms.get(w) ?? 0) + 1);
    surface.set(t, forms);
  }
  return [...tf.entries()]
    .map(([t, f]) => ({ t, s: (1 + Math.log(f)) * idf(t, d) }))
    .sort((a, b) => b.s - a.s || a.t.localeCompare(b.t))
    .slice(0, k)
    .map(({ t }) => [...surface.get(t)!.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0]);
}

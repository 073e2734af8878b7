/**
 * From a page to a WebSearchResult: extractive key points (the sentences of the page that
 * answer the query) and the string form, laid out like news search's string return
 * (service/search/format.ts).
 */
import type { z } from 'zod';
import type { WebSearchResult as WebSearchResultSchema } from '../../spec/index.js';

export type WebSearchResult = z.output<typeof WebSearchResultSchema>;
import { sentences } from '../enrich/summarize.js';
import { queryTerms } from '../indexing/web-index.js';
import { terms } from '../text/tokenize.js';

/** Key points per result; sentences cut at this many characters; raw_text cut at this many. */
export const DISTILL = { keyPoints: 5, sentenceChars: 400, rawTextChars: 20_000, minSentenceChars: 25 } as const;

const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1).trimEnd()}…`);

/**
 * The best DISTILL.keyPoints sentences of `text` for the queries, in text order: a sentence
 * scores the number of distinct query terms it holds (rarer terms in the page count more) plus a
 * small lead bonus; sentences with no query term are taken only when none has one (then the lead).
 */
export function keyPoints(text: string, queries: string[], lang: string | null): string[] {
  const sents = sentences(text).filter((s) => s.length >= DISTILL.minSentenceChars);
  if (sents.length === 0) return text.trim() ? [cut(text.trim().replace(/\s+/g, ' '), DISTILL.sentenceChars)] : [];
  const q = new Set(queries.flatMap((x) => queryTerms(x)));
  const lg = lang === 'en' ? 'en' : (lang ?? 'en');
  const sentTerms = sents.map((s) => new Set([...terms(s, lg), ...terms(s, 'und')]));
  const df = new Map<string, number>();
  for (const ts of sentTerms) for (const t of ts) if (q.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
  const scored = sents.map((s, i) => {
    let score = 0;
    for (const t of sentTerms[i]!) if (q.has(t)) score += Math.log(1 + sents.length / df.get(t)!);
    return { s, i, score, lead: i === 0 ? 0.3 : i === 1 ? 0.15 : 0 };
  });
  const hits = scored.filter((x) => x.score > 0);
  const pool = hits.length ? hits : scored;
  const best = [...pool].sort((a, b) => b.score + b.lead - (a.score + a.lead) || a.i - b.i).slice(0, DISTILL.keyPoints);
  return best.sort((a, b) => a.i - b.i).map((x) => cut(x.s, DISTILL.sentenceChars));
}

/** The prompt-ready string form: one `<doc>` block per result. */
export function toWebStringBlock(r: WebSearchResult, i: number, start = '<doc>', end = '</doc>'): string {
  return [
    start,
    `[${i + 1}]:`,
    `Title: ${r.title}`,
    'Key points:',
    ...r.key_points.map((k) => `- ${k}`),
    `Source: ${r.source}`,
    `Published: ${r.published || 'unknown'}`,
    `URL: ${r.url}`,
    end,
  ].join('\n');
}

export const rawText = (text: string) => cut(text, DISTILL.rawTextChars);

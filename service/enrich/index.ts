/**
 * Enrichment: raw article -> every Article field we can fill, deterministically.
 * See each module for its method: language.ts, entities.ts, sentiment.ts, summarize.ts,
 * classify.ts, publishers.ts, geo.ts.
 */
import crypto from 'node:crypto';
import type { RawArticle } from '../corpus/read.js';
import type { LoadedArticle, NewsArticle } from '../article/model.js';
import { terms } from '../text/tokenize.js';
import { detectLanguage } from '../text/language.js';
import { extractEntities } from './entities.js';
import { sentimentScore } from '../text/sentiment.js';
import { keywords, summarize, type DocFreq } from './summarize.js';
import { bias, classify, contentType, provocative, reportingVoice } from './classify.js';
import { continentOf, isPodcast, isPremium, publisherCountry, sourceIdOf } from './publishers.js';
import { gazetteer } from './geo.js';

/**
 * What changes the enrichment output: the hash decides whether a reload re-enriches. Dates are
 * not part of it (a rebased reload only moves dates; see NewsService.seed).
 */
export const ENRICHMENT_VERSION = 1;
export function contentHash(r: RawArticle): string {
  return crypto
    .createHash('sha1')
    .update(JSON.stringify([ENRICHMENT_VERSION, r.url, r.title, r.text, [...r.sourceCategories].sort(), ...(r.feedSummary ? [r.feedSummary] : [])]))
    .digest('hex');
}

/** Text the BM25 index sees: the title twice (a cheap field boost), then the body. */
export function indexText(title: string, summary: string, text: string): string {
  return `${title}\n${title}\n${text || summary}`;
}

export function docFreqOf(raws: RawArticle[]): DocFreq {
  const df = new Map<string, number>();
  for (const r of raws) for (const t of new Set(terms(`${r.title} ${r.text}`))) df.set(t, (df.get(t) ?? 0) + 1);
  return { df, n: raws.length };
}

export function enrich(r: RawArticle, d: DocFreq, opts: { pageRank: (domain: string) => number; crawlDate: Date | null }): LoadedArticle {
  // an article whose page was not read is enriched from its feed's summary (its full_text stays null)
  const text = r.text || r.feedSummary || '';
  // a page's declared language (<html lang>) wins over detection
  const language = r.language && /^[a-z]{2,3}$/.test(r.language) ? r.language : detectLanguage(r.title, text);
  const entities = extractEntities(r.title, text);
  const sentiment = sentimentScore(r.title, text);
  const { summary, keyPoints } = summarize(r.title, text, language, d);
  const voice = reportingVoice(r.title, text, r.sourceCategories);
  const provoc = provocative(r.title, sentiment);
  const { country } = publisherCountry(r.domain);
  const podcast = isPodcast(r.domain, r.url, r.title);
  const geo = gazetteer().coordinates(entities.Location);
  const indexTerms = terms(indexText(r.title, summary, text), language === 'unknown' ? 'en' : language);
  const article: NewsArticle = {
    articleId: r.articleId,
    source: r.source,
    sourceKey: r.sourceKey,
    url: r.url,
    domain: r.domain,
    title: r.title,
    // no translation model ships offline: non-English titles are kept as they are
    engTitle: r.title,
    summary,
    keyPoints,
    keywords: keywords(r.title, text, language, d),
    fullText: r.text || null,
    language,
    pubDate: r.pubDate,
    crawlDate: opts.crawlDate,
    classification: classify(r.title, text, r.sourceCategories),
    sentiment,
    provocative: provoc,
    reportingVoice: voice,
    contentType: contentType(r.title, r.url),
    bias: bias(r.title, voice, provoc),
    country,
    continent: continentOf(country),
    pageRank: opts.pageRank(r.domain),
    sourceId: sourceIdOf(r.domain),
    authors: r.authors?.length ? r.authors.map((name) => ({ name, email: null, url: null })) : null,
    imageUrl: r.imageUrl ?? null,
    owner: r.owner ?? null,
    isPodcast: podcast,
    isPremium: isPremium(r.domain),
    // set by story clustering; 0 until an article joins a story
    centroidDistance: 0,
    clusterProbability: 0,
    entities,
    geo,
    nTerms: indexTerms.length,
    urlDerived: r.urlDerived,
    dateDerived: r.dateDerived,
    contentHash: contentHash(r),
  };
  return { article, terms: indexTerms, embedding: null };
}

/** The text an article is embedded from. */
export function embeddingText(a: NewsArticle): string {
  return a.fullText ? `${a.title}. ${a.summary}` : a.title;
}

/** The service's article record: what enrichment produces, the store keeps and search indexes. */
import type { EntityType } from '../../spec/index.js';

export interface GeoPoint {
  latitude: number;
  longitude: number;
  metadata: Record<string, unknown>;
}

export interface NewsArticle {
  articleId: string;
  source: string;
  sourceKey: string;
  url: string;
  domain: string;
  title: string;
  engTitle: string;
  summary: string;
  keyPoints: string[];
  keywords: string[];
  /** kept in the store only; loaded for full_text lookups */
  fullText: string | null;
  language: string;
  pubDate: Date;
  /** when the article was indexed; null while a replay holds it back */
  crawlDate: Date | null;
  classification: string[];
  sentiment: number;
  provocative: string;
  reportingVoice: string;
  contentType: string;
  bias: string;
  country: string;
  continent: string | null;
  pageRank: number;
  sourceId: string;
  authors: { name: string | null; email: string | null; url: string | null }[] | null;
  /** og:image of a fetched page; null for the corpus */
  imageUrl?: string | null;
  /**
   * null (or absent): the shared corpus, seen by every key; else only the keys of this owner
   * (`org:<id>` / `user:<id>`) see it: a page URL indexing fetched for them (service/indexing)
   */
  owner?: string | null;
  isPodcast: boolean;
  isPremium: boolean;
  centroidDistance: number;
  clusterProbability: number;
  entities: Record<EntityType, string[]>;
  geo: Record<string, GeoPoint> | null;
  nTerms: number;
  urlDerived: boolean;
  dateDerived: boolean;
  contentHash: string;
}

/** Index terms and embedding travel beside the record while loading. */
export interface LoadedArticle {
  article: NewsArticle;
  terms: string[];
  embedding: Float32Array | null;
}

/** Article records to the interface's shapes: dicts (SearchResponseDictItem) and the string form. */
import type { SearchResponseDictItem } from '../../spec/index.js';
import type { NewsArticle } from '../article/model.js';

export interface FormatOptions {
  graphs: boolean;
  geo: boolean;
  fullText: boolean;
}

/** Entity relation graph: entities as nodes; entities named in the same sentence are linked. */
export function entityGraph(a: NewsArticle): { nodes: Record<string, string>[]; edges: Record<string, string>[] } {
  const nodes: Record<string, string>[] = [];
  const seen = new Set<string>();
  for (const [type, values] of Object.entries(a.entities)) {
    for (const v of values) {
      if (seen.has(v)) continue;
      seen.add(v);
      nodes.push({ id: v, type, detailed_type: type, ner_type: type });
    }
  }
  const edges: Record<string, string>[] = [];
  const linked = new Set<string>();
  for (const sentence of [a.title, ...a.keyPoints]) {
    const present = nodes.filter((n) => sentence.includes(n.id!)).map((n) => n.id!);
    for (let i = 0; i < present.length; i++) {
      for (let j = i + 1; j < present.length; j++) {
        const k = `${present[i]}\u0000${present[j]}`;
        if (linked.has(k)) continue;
        linked.add(k);
        edges.push({ from: present[i]!, to: present[j]!, label: 'mentioned_with' });
      }
    }
  }
  return { nodes, edges };
}

export function toDict(a: NewsArticle, o: FormatOptions): SearchResponseDictItem {
  return {
    article_url: a.url,
    article_id: a.articleId,
    classification: a.classification,
    country: a.country,
    source_id: a.sourceId,
    page_rank: a.pageRank,
    domain_url: a.domain,
    eng_title: a.engTitle,
    entities: a.entities,
    image_url: a.imageUrl ?? null,
    keywords: a.keywords,
    language: a.language,
    pub_date: a.pubDate.toISOString(),
    summary: a.summary,
    key_points: a.keyPoints,
    title: a.title,
    sentiment: a.sentiment,
    centroid_distance: a.centroidDistance,
    cluster_probability: a.clusterProbability,
    markdown_citation: `[${a.title.replace(/[[\]]/g, '')}](${a.url})`,
    provocative: a.provocative as SearchResponseDictItem['provocative'],
    reporting_voice: a.reportingVoice,
    entity_relation_graph: o.graphs ? entityGraph(a) : null,
    geo_coordinates: o.geo ? (a.geo ?? {}) : null,
    continent: a.continent as SearchResponseDictItem['continent'],
    assets: null,
    social_embeds: null,
    bias: a.bias as SearchResponseDictItem['bias'],
    authors: a.authors,
    full_text: o.fullText ? a.fullText : null,
    original_language_summary: a.language === 'en' ? null : a.summary,
    image_description: null,
    crawl_date: a.crawlDate ? a.crawlDate.toISOString() : null,
    content_type: a.contentType as SearchResponseDictItem['content_type'],
    as_string_key: a.articleId,
  };
}

/** The prompt-ready string form: one delimited block per article. */
export function toStringBlock(a: NewsArticle, i: number, start: string, end: string): string {
  const lines = [
    start,
    `[${i + 1}]:`,
    `Title: ${a.title}`,
    `Summary: ${a.summary}`,
    `Source: ${a.domain} (${a.country})`,
    `Published: ${a.pubDate.toISOString().replace('.000Z', 'Z')}`,
    `Classification: ${a.classification.join(', ')}`,
    `Sentiment: ${a.sentiment}`,
    `URL: ${a.url}`,
    end,
  ];
  return lines.join('\n');
}

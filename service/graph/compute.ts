/**
 * The CPU part of a graph request, as one pure function of plain data (run in the graph thread,
 * ./thread.ts): the uploads' entities, extracted from what the graph reads of each (its first
 * sentences, each at most MAX_SENTENCE_CHARS: a 100,000-character upload with no sentence break
 * costs one bounded sentence), then the graph of the found articles and the uploads.
 */
import type { EntityType } from '../../spec/index.js';
import { extractEntities } from '../enrich/entities.js';
import { buildGraph, sentencesOf, type BuildOptions, type BuiltGraph } from './builder.js';
import type { GraphSource } from './mentions.js';

export interface GraphJob {
  /** the found articles, as sources */
  sources: GraphSource[];
  /** the uploaded documents, in order */
  uploads: { id: string; title: string; text: string }[];
  opts: BuildOptions;
}

export interface GraphJobResult {
  built: BuiltGraph;
  /** each upload's entities, in the uploads' order */
  uploadEntities: Partial<Record<EntityType, string[]>>[];
}

export function computeGraph(job: GraphJob): GraphJobResult {
  const sources = [...job.sources];
  const uploadEntities = job.uploads.map((d) => {
    const text = sentencesOf({ id: d.id, kind: 'document', title: '', text: d.text, entities: {} }).join('\n');
    const entities = extractEntities(d.title, text);
    sources.push({ id: d.id, kind: 'document', title: d.title, text, entities });
    return entities;
  });
  return { built: buildGraph(sources, job.opts), uploadEntities };
}

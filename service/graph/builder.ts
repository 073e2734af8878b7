/**
 * The knowledge graph of a set of sources (articles a search found, uploaded documents):
 * - nodes: the disambiguated entities (./disambiguation.ts) of the types in GRAPH_TYPES, with
 *   how many mentions and sources name them and the spellings merged into them;
 * - edges: two entities named in one sentence are joined; the label is the verb phrase between
 *   them (verbs found with compromise's lexicon; the phrase runs from the first verb to the next
 *   entity, at most 4 words: "warns", "hold talks with"), else `co-occurs` (undirected). An edge's weight
 *   is its support: the number of sources with a sentence that joins the two that way.
 * Deterministic: the same sources and options give the same graph.
 */
import nlp from 'compromise';
import { gazetteer } from '../enrich/geo.js';
import { collectForms, type GraphSource, type GraphType } from './mentions.js';
import { resolve, type Constraint, type Disambiguation } from './disambiguation.js';

export interface GraphNode {
  id: string;
  type: GraphType;
  detailed_type: string;
  ner_type: string;
  mentions: number;
  sources: number;
  aliases: string[];
  latitude?: number;
  longitude?: number;
  country?: string;
}
export interface GraphEdge {
  from: string;
  to: string;
  label: string;
  weight: number;
  /** ids of the supporting sources (the first 20) */
  sources: string[];
}
export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
}
export interface BuildOptions {
  minClusterProbability: number;
  /** places get coordinates */
  geo: boolean;
  constraints: Constraint[];
}
export interface BuiltGraph {
  graph: Graph;
  disambiguations: Disambiguation[];
  /** per source: the node ids it names */
  entitiesOf: Map<string, string[]>;
}

export const CO_OCCURS = 'co-occurs';
const NER_TYPE: Record<GraphType, string> = {
  Person: 'PER',
  Organization: 'ORG',
  Location: 'LOC',
  Event: 'EVENT',
  Law: 'LAW',
  Arms: 'MISC',
  Politics: 'MISC',
};
const MAX_SENTENCES = 40;
const MAX_LABEL_WORDS = 4;
const MAX_GAP_WORDS = 10;
const MAX_EDGE_SOURCES = 20;

/**
 * Characters of one sentence the graph reads (a longer one is cut there): the pairs of a sentence
 * are scored against each other, so a sentence with no break is bounded, not its whole text.
 */
export const MAX_SENTENCE_CHARS = 1000;
/** Entity hits of one sentence paired with each other (the first ones in the sentence). */
export const MAX_HITS_PER_SENTENCE = 24;

/**
 * Sentences of a source: title, then its text (duplicates dropped: a headline's summary is its
 * title). Whitespace runs are collapsed first (one linear pass: a run holding a line break is a
 * break), so the split never backtracks over a long run; each sentence is at most MAX_SENTENCE_CHARS.
 */
export function sentencesOf(src: GraphSource): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const text = src.text.replace(/\s+/g, (ws) => (ws.includes('\n') ? '\n' : ' '));
  const lines = text.split('\n');
  const parts = [src.title, ...lines.flatMap((l) => l.split(/(?<=[.!?]) (?=[A-Z"“‘'])/))];
  for (const p of parts) {
    const t = p.trim();
    const s = t.length > MAX_SENTENCE_CHARS ? t.slice(0, MAX_SENTENCE_CHARS) : t;
    if (s.length < 3 || seen.has(s)) continue;
    seen.add(s);
    out.push(s);
    if (out.length >= MAX_SENTENCES) break;
  }
  return out;
}

interface Hit {
  start: number;
  end: number;
  node: string;
}

const isWordChar = (c: string | undefined) => !!c && /[\p{L}\p{N}]/u.test(c);

/** Where the source's spellings occur in a sentence; overlaps go to the longer spelling. */
function findHits(sentence: string, spellings: [string, string][]): Hit[] {
  const hits: Hit[] = [];
  for (const [spelling, node] of spellings) {
    let i = sentence.indexOf(spelling);
    while (i >= 0) {
      const end = i + spelling.length;
      if (!isWordChar(sentence[i - 1]) && !isWordChar(sentence[end])) hits.push({ start: i, end, node });
      i = sentence.indexOf(spelling, i + 1);
    }
  }
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Hit[] = [];
  for (const h of hits) {
    if (out.length >= MAX_HITS_PER_SENTENCE) break;
    if (!out.length || h.start >= out[out.length - 1]!.end) out.push(h);
  }
  return out;
}

interface Term {
  text: string;
  start: number;
  end: number;
}

/**
 * compromise's lexicon (its conjugations expanded): word -> tags. The sentence is not run through
 * compromise's tagger (a millisecond or more per sentence: seconds for 50 full texts); a word is a
 * verb when the lexicon says so, or when a noun-or-verb form ("holds", "hold") stands where a verb
 * does: right after the subject, or after "to", "will", "would"...
 */
const LEXICON = (nlp.model() as { one: { lexicon: Record<string, string | string[]> } }).one.lexicon;
const VERB_TAGS = new Set(['Verb', 'PresentTense', 'PastTense', 'Infinitive', 'Gerund', 'Participle', 'PerfectTense', 'Imperative', 'PhrasalVerb']);
const NOT_VERB_TAGS = new Set(['Copula', 'Auxiliary', 'Modal', 'Preposition', 'Conjunction', 'Determiner', 'Pronoun']);
const BEFORE_VERB = new Set([
  'to',
  'will',
  'would',
  'could',
  'can',
  'may',
  'might',
  'must',
  'should',
  'shall',
  'did',
  'does',
  'do',
  'not',
  "won't",
  "can't",
  'also',
  'now',
  'then',
  'again',
  'reportedly',
]);

function isVerb(word: string, prev: string | undefined, index: number): boolean {
  const raw = LEXICON[word];
  const tags = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (tags.some((t) => NOT_VERB_TAGS.has(t))) return false;
  if (tags.some((t) => VERB_TAGS.has(t))) return true;
  const nounOrUnknown = tags.length === 0 || tags.includes('Singular') || tags.includes('Plural') || tags.includes('Noun');
  if (nounOrUnknown && prev !== undefined && BEFORE_VERB.has(prev)) return true;
  if (index === 0 && tags.includes('Plural') && /[^s]s$/.test(word)) return true;
  return tags.length === 0 && /[a-z]{3}ed$/.test(word);
}

/** Words of the sentence with their offsets. */
function termsOf(sentence: string): Term[] {
  const out: Term[] = [];
  for (const m of sentence.matchAll(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)) {
    out.push({ text: m[0].toLowerCase().replace(/’/g, "'"), start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/**
 * The verb phrase joining two hits, or null: the words between them (at most MAX_GAP_WORDS) from
 * the first verb, stopping at another entity. Another entity between them only when it modifies
 * the second ("warns Russia's Vladimir Putin"); else the phrase is the middle entity's.
 */
function labelBetween(terms: Term[], a: Hit, b: Hit, hits: Hit[], sentence: string): string | null {
  const middle = hits.filter((h) => h.start >= a.end && h.end <= b.start);
  for (const m of middle) {
    const rest = sentence.slice(m.end, b.start);
    if (!/^(?:[’']s)?\s*(?:,|and)?\s*$/i.test(rest) && !middle.some((x) => x.start >= m.end && /^\s*(?:[’']s)?\s*$/.test(sentence.slice(m.end, x.start))))
      return null;
  }
  const overlaps = (t: Term) => hits.some((h) => t.start < h.end && t.end > h.start);
  const inside = terms.filter((t) => t.start >= a.end && t.end <= b.start + 2);
  const words = inside.filter((t) => !overlaps(t));
  if (!words.length || words.length > MAX_GAP_WORDS) return null;
  const v = inside.findIndex((t, i) => !overlaps(t) && isVerb(t.text, inside[i - 1]?.text, i));
  if (v < 0) return null;
  const phrase: string[] = [];
  for (const t of inside.slice(v)) {
    if (overlaps(t) || phrase.length >= MAX_LABEL_WORDS) break;
    const w = t.text.replace(/[^\p{L}\p{N}'-]/gu, '');
    if (w) phrase.push(w);
  }
  return phrase.length ? phrase.join(' ') : null;
}

export function buildGraph(sources: GraphSource[], opts: BuildOptions): BuiltGraph {
  const { forms, bySource } = collectForms(sources);
  const r = resolve(forms, { minClusterProbability: opts.minClusterProbability, constraints: opts.constraints });

  // nodes
  const nodes = new Map<string, GraphNode>();
  const nodeSources = new Map<string, Set<string>>();
  for (const f of forms.values()) {
    const id = r.nodeOf.get(f.fid)!;
    const type = r.typeOf.get(id)!;
    let n = nodes.get(id);
    if (!n) {
      const place = type === 'Location' ? (r.placeOf.get(id) ?? gazetteer().lookup(id)) : undefined;
      n = {
        id,
        type,
        detailed_type: place ? (place.kind === 'country' ? 'Country' : 'City') : type,
        ner_type: NER_TYPE[type],
        mentions: 0,
        sources: 0,
        aliases: [],
      };
      if (opts.geo && place) Object.assign(n, { latitude: place.lat, longitude: place.lon, country: place.country });
      nodes.set(id, n);
      nodeSources.set(id, new Set());
    }
    n.mentions += [...f.spellings.values()].reduce((a, b) => a + b, 0);
    for (const s of f.sources) nodeSources.get(id)!.add(s);
    for (const s of f.spellings.keys()) if (s !== id && !n.aliases.includes(s)) n.aliases.push(s);
  }
  for (const [id, set] of nodeSources) nodes.get(id)!.sources = set.size;

  // edges
  const edges = new Map<string, { from: string; to: string; label: string; sources: Set<string> }>();
  const entitiesOf = new Map<string, string[]>();
  for (const src of sources) {
    const spellings = [...(bySource.get(src.id) ?? new Map()).entries()].map(([s, fid]) => [s, r.nodeOf.get(fid)!] as [string, string]);
    entitiesOf.set(src.id, [...new Set(spellings.map(([, n]) => n))]);
    if (spellings.length < 2) continue;
    for (const sentence of sentencesOf(src)) {
      const hits = findHits(sentence, spellings);
      if (new Set(hits.map((h) => h.node)).size < 2) continue;
      const terms = termsOf(sentence);
      for (let i = 0; i < hits.length; i++) {
        for (let j = i + 1; j < hits.length; j++) {
          const a = hits[i]!;
          const b = hits[j]!;
          if (a.node === b.node) continue;
          const label = labelBetween(terms, a, b, hits, sentence);
          const [from, to] = label ? [a.node, b.node] : [a.node, b.node].sort();
          const k = `${from}\u0000${to}\u0000${label ?? CO_OCCURS}`;
          let e = edges.get(k);
          if (!e) edges.set(k, (e = { from: from!, to: to!, label: label ?? CO_OCCURS, sources: new Set() }));
          e.sources.add(src.id);
        }
      }
    }
  }

  const nodeList = [...nodes.values()].sort((a, b) => b.sources - a.sources || b.mentions - a.mentions || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const n of nodeList) n.aliases.sort();
  const edgeList = [...edges.values()]
    .map((e) => ({ from: e.from, to: e.to, label: e.label, weight: e.sources.size, sources: [...e.sources].slice(0, MAX_EDGE_SOURCES) }))
    .sort((a, b) => b.weight - a.weight || cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.label, b.label));
  return { graph: { nodes: nodeList, edges: edgeList }, disambiguations: r.disambiguations, entitiesOf };
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

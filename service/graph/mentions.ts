/**
 * Entity mentions of the graph's sources: the entities enrichment extracted (service/enrich/
 * entities.ts), cleaned of what headline NER drags along ("With Putin", "Ukraine -",
 * "Ukraine—Moscow"), and grouped into forms: the mentions of one type that are spelt the same up
 * to case, dots and diacritics ("NATO" / "Nato", "U.S." / "US").
 */
import type { EntityType } from '../../spec/index.js';
import { gazetteer } from '../enrich/geo.js';

/** The entity types that become nodes. */
export const GRAPH_TYPES = ['Person', 'Organization', 'Location', 'Event', 'Law', 'Arms', 'Politics'] as const satisfies readonly EntityType[];
export type GraphType = (typeof GRAPH_TYPES)[number];

/** A document the graph is built from: a found article or an uploaded document. */
export interface GraphSource {
  id: string;
  kind: 'article' | 'document';
  title: string;
  /** text beyond the title: summary, key points, full text */
  text: string;
  entities: Partial<Record<EntityType, string[]>>;
}

export interface Form {
  /** `${type}|${key}` */
  fid: string;
  type: GraphType;
  key: string;
  /** the spelling most mentions use */
  display: string;
  /** every spelling seen, with its count */
  spellings: Map<string, number>;
  /** mentions (one per source that names it) */
  mentions: number;
  sources: Set<string>;
}

/** Words headline NER keeps in front of a name: prepositions, titles. */
const LEADING = new Set([
  'with',
  'against',
  'by',
  'from',
  'to',
  'for',
  'of',
  'and',
  'as',
  'at',
  'on',
  'in',
  'after',
  'before',
  'over',
  'under',
  'says',
  'said',
  'president',
  'presidents',
  'prime',
  'minister',
  'pm',
  'vice',
  'admiral',
  'general',
  'gen',
  'mr',
  'mrs',
  'ms',
  'dr',
  'sir',
  'chancellor',
  'king',
  'queen',
  'prince',
  'princess',
  'pope',
  'senator',
  'sen',
  'rep',
  'secretary',
  'governor',
  'gov',
  'leader',
  'premier',
  'foreign',
  'defence',
  'defense',
  'spokesman',
  'spokeswoman',
  'envoy',
  'ambassador',
  'former',
  'ex',
  'top',
  'russian',
  'ukrainian',
  'us',
  'u.s.',
]);
const DASHES = /\s*[—–]\s*|\s+-\s*|(?<=[a-z])-(?=[A-Z])|\s*,\s*|\s+(?:&|and)\s+/;

/** Lower case, no diacritics, no dots, single spaces: two spellings with one key are one form. */
export function formKey(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[.’']/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A mention as NER gave it -> the names it stands for (none when it is noise). */
const NOT_NAMES = new Set([
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'today',
  'breaking',
  'update',
  'live',
  'watch',
  'video',
  'opinion',
]);

export function cleanMention(raw: string, type: GraphType): string[] {
  // "January: Ukraine", "Breaking: Putin": the name is after the colon
  let s = raw.includes(':') ? raw.slice(raw.lastIndexOf(':') + 1) : raw;
  s = s
    .replace(/[’']s$/i, '')
    .replace(/^[\s"'“‘(|]+|[\s"'”’).,:;!?|–—-]+$/g, '')
    .trim();
  if (type === 'Person') {
    const words = s.split(/\s+/);
    while (words.length > 1 && LEADING.has(words[0]!.toLowerCase())) words.shift();
    s = words.join(' ');
  }
  if (type === 'Location' || type === 'Organization') {
    // "Ukraine-Russia", "Ukraine—Moscow", "Russia, Belarus", "Georgia & Moldova": several places when every part is one
    const parts = s
      .split(DASHES)
      .map((p) => p.trim())
      .filter(Boolean);
    if (parts.length > 1 && parts.every((p) => gazetteer().lookup(p))) return parts;
  }
  if (NOT_NAMES.has(s.toLowerCase())) return [];
  if (s.length < 2 || !/[A-Za-z\u00C0-\u024F\u0400-\u04FF]/.test(s)) return [];
  if (/^[a-z]/.test(s) && type !== 'Event') return [];
  return [s];
}

/**
 * A name NER typed as an organization or a person that is a country in the gazetteer ("U.S",
 * "Russia") is a place.
 */
function retype(name: string, type: GraphType): GraphType {
  if (type !== 'Organization' && type !== 'Person') return type;
  const p = gazetteer().lookup(name);
  return p && p.kind === 'country' ? 'Location' : type;
}

/** The forms of the sources' mentions, by fid; per source, the spellings it uses of each form. */
export function collectForms(sources: GraphSource[]): { forms: Map<string, Form>; bySource: Map<string, Map<string, string>> } {
  const forms = new Map<string, Form>();
  const bySource = new Map<string, Map<string, string>>();
  for (const src of sources) {
    const spellings = new Map<string, string>(); // spelling -> fid
    for (const t of GRAPH_TYPES) {
      for (const raw of src.entities[t] ?? []) {
        for (const name of cleanMention(raw, t)) {
          const type = retype(name, t);
          const key = formKey(name);
          if (!key) continue;
          const fid = `${type}|${key}`;
          let f = forms.get(fid);
          if (!f) forms.set(fid, (f = { fid, type, key, display: name, spellings: new Map(), mentions: 0, sources: new Set() }));
          f.spellings.set(name, (f.spellings.get(name) ?? 0) + 1);
          if (!f.sources.has(src.id)) {
            f.sources.add(src.id);
            f.mentions++;
          }
          if (!spellings.has(name)) spellings.set(name, fid);
        }
      }
    }
    bySource.set(src.id, spellings);
  }
  for (const f of forms.values()) {
    // the most used spelling; ties: the one with capitals in it (NATO over Nato), then the first
    f.display = [...f.spellings.entries()].sort((a, b) => b[1] - a[1] || caps(b[0]) - caps(a[0]))[0]![0];
  }
  return { forms, bySource };
}
const caps = (s: string) => s.replace(/[^A-Z]/g, '').length;

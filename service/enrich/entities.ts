/**
 * Entities into the 24 entity types of the interface:
 * - Person, Organization, Location, Nationality: compromise (a rule-based English NER), taught the
 *   names of our lexicon it misses in short headlines;
 * - Date, Time, Money, Quantity, Number: patterns;
 * - the rest (Event, Law, Sports, Politics, Title, Arms, Product, Media, Transportation, Religion,
 *   Technology, Space, Medicine, Language, Science): lexicons (./lexicons.ts).
 * Values keep their surface form; duplicates (case-insensitive) are dropped.
 */
import nlp from 'compromise';
import { ENTITY_TYPES, type EntityType } from '../../spec/index.js';
import { LEXICON_TYPES, NER_WORDS, NOT_PEOPLE } from './lexicons.js';

nlp.addWords(NER_WORDS);

export type EntityMap = Record<EntityType, string[]>;
export const emptyEntities = (): EntityMap => Object.fromEntries(ENTITY_TYPES.map((t) => [t, [] as string[]])) as EntityMap;

const clean = (s: string) =>
  s
    .replace(/[’']s$/i, '')
    .replace(/^[\s"'“‘(]+|[\s"'”’).,:;!?]+$/g, '')
    .trim();

const MONTH = '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const PATTERNS: [EntityType, RegExp][] = [
  [
    'Date',
    new RegExp(
      `\\b(?:${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?|\\d{1,2}(?:st|nd|rd|th)? ${MONTH}(?: \\d{4})?|${MONTH} \\d{4}|(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)|(?:last|next|this) (?:week|month|year)|(?:19|20)\\d{2}s?)\\b`,
      'g',
    ),
  ],
  ['Time', /\b(?:\d{1,2}(?::\d{2})?\s?(?:am|pm|a\.m\.|p\.m\.)|\d{1,2}:\d{2}(?:\s?(?:GMT|BST|ET|EST|PT|UTC))?|midnight|noon)\b/gi],
  [
    'Money',
    /(?:[$£€¥]\s?\d[\d,.]*(?:\s?(?:bn|m|k|billion|million|trillion|thousand))?\b|\b\d[\d,.]*\s?(?:dollars|pounds|euros|yen|yuan|rupees|roubles|rubles)\b)/gi,
  ],
  [
    'Quantity',
    /\b\d[\d,.]*\s?(?:%|per ?cent|percent|km|kilometres|kilometers|miles?|kg|kilograms?|tonnes?|tons?|pounds|lbs|degrees|°[CF]?|acres|barrels|mph|feet|ft|metres|meters|gallons|litres|liters|hectares)(?![\w])/gi,
  ],
  ['Number', /\b\d{1,3}(?:,\d{3})+\b|\b\d+(?:\.\d+)?\s?(?:million|billion|thousand|hundred)\b|\b\d{2,}\b/gi],
];

const esc = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** One alternation per type, longest phrases first. */
const LEXICON_RES: [EntityType, RegExp][] = Object.entries(LEXICON_TYPES).map(([type, phrases]) => [
  type as EntityType,
  new RegExp(
    `(?<![\\w-])(?:${[...phrases]
      .sort((a, b) => b.length - a.length)
      .map(esc)
      .join('|')})(?![\\w-])`,
    'gi',
  ),
]);

export function extractEntities(title: string, text: string): EntityMap {
  // no title (an uploaded document without one): the text alone, not `.\n` + text (". Vladimir Putin" was a person)
  const body = text ? (title ? `${title}.\n${text.slice(0, 3000)}` : text.slice(0, 3000)) : title;
  const e = emptyEntities();
  const seen = new Set<string>();
  const add = (t: EntityType, v: string) => {
    const c = clean(v);
    if (c.length < 2) return;
    const k = `${t}:${c.toLowerCase()}`;
    if (seen.has(k)) return;
    seen.add(k);
    e[t].push(c);
  };
  const doc = nlp(body);
  for (const p of doc.people().out('array') as string[]) if (!NOT_PEOPLE.has(clean(p).toLowerCase())) add('Person', p);
  for (const o of doc.organizations().out('array') as string[]) add('Organization', o);
  for (const l of doc.places().out('array') as string[]) add('Location', l);
  for (const n of doc.match('#Demonym').out('array') as string[]) add('Nationality', n);
  for (const [type, re] of PATTERNS) {
    for (const m of body.matchAll(re)) {
      const v = m[0];
      if (type === 'Number' && (e.Money.some((x) => x.includes(v)) || e.Quantity.some((x) => x.includes(v)) || e.Date.some((x) => x.includes(v)))) continue;
      add(type, v);
    }
  }
  for (const [type, re] of LEXICON_RES) for (const m of body.matchAll(re)) add(type, m[0]);
  return e;
}

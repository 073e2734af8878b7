/**
 * Key people of a forecast's evidence: the people the articles name (the Person entities that
 * enrichment found with compromise, service/enrich/entities.ts), each with the role the text
 * gives them, found in the articles' sentences in one of two forms:
 * - a title before the name: "Prime Minister Fumio Kishida", "former U.S. President Donald Trump";
 * - an apposition after it: "Tetsuya Yamagami, a former member of the navy, ...".
 * People are ranked by the number of articles naming them; a person whose role no sentence
 * states is listed after those with one, with the role "named in N of the sources (no role stated)".
 */
import type { NewsArticle } from '../article/model.js';
import nlp from 'compromise';
import { sentences } from '../llm/extractive.js';

/** Words that make a phrase a role (titles, offices, occupations). */
const ROLE_WORDS = [
  'president',
  'prime minister',
  'minister',
  'chancellor',
  'premier',
  'senator',
  'sen',
  'representative',
  'rep',
  'congressman',
  'congresswoman',
  'governor',
  'gov',
  'mayor',
  'king',
  'queen',
  'prince',
  'princess',
  'emperor',
  'pope',
  'archbishop',
  'bishop',
  'secretary',
  'ambassador',
  'envoy',
  'spokesman',
  'spokeswoman',
  'spokesperson',
  'leader',
  'chief',
  'head',
  'director',
  'chairman',
  'chairwoman',
  'chair',
  'ceo',
  'founder',
  'co-founder',
  'executive',
  'officer',
  'general',
  'gen',
  'admiral',
  'commander',
  'colonel',
  'judge',
  'justice',
  'prosecutor',
  'attorney',
  'lawyer',
  'coach',
  'manager',
  'captain',
  'player',
  'striker',
  'goalkeeper',
  'champion',
  'candidate',
  'lawmaker',
  'mp',
  'politician',
  'diplomat',
  'economist',
  'analyst',
  'professor',
  'scientist',
  'researcher',
  'author',
  'journalist',
  'reporter',
  'editor',
  'actor',
  'actress',
  'singer',
  'star',
  'suspect',
  'victim',
  'witness',
  'official',
  'commissioner',
  'inspector',
  'police',
  'member',
  'speaker',
  'deputy',
  'vice',
  'pm',
  'dr',
  'doctor',
  'activist',
  'investor',
  'owner',
  'partner',
  'adviser',
  'advisor',
  'aide',
  'cardinal',
  'rabbi',
  'imam',
];
const ROLE_RE = new RegExp(`\\b(?:${ROLE_WORDS.map((w) => w.replace(/[.-]/g, '\\$&')).join('|')})\\b`, 'i');
const esc = (p: string) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface KeyPerson {
  name: string;
  role: string;
}

/** A title right before the name: up to five words ending in a role word ("former U.S. President"). */
function titleBefore(sentence: string, name: string): string | null {
  const re = new RegExp(`((?:[A-Za-z.'-]+\\s){0,5}?)(${ROLE_WORDS.map(esc).join('|')})\\.?\\s+${esc(name)}\\b`, 'i');
  const m = re.exec(sentence);
  if (!m) return null;
  // keep the words of the title that are capitalised or role-ish ("former", "U.S."), from the role word back
  const words = (m[1] ?? '').trim().split(/\s+/).filter(Boolean);
  const kept: string[] = [];
  for (let i = words.length - 1; i >= 0; i--) {
    const w = words[i]!;
    if (/^(?:former|late|then|acting|deputy|vice|interim|incoming|outgoing|new)$/i.test(w) || /^[A-Z][\w.'-]*$/.test(w)) kept.unshift(w);
    else break;
  }
  // a sentence-initial "The"/"A" is not part of the title
  while (kept.length && /^(?:the|a|an|and|but|as|by|of|with|when|after|said|says)$/i.test(kept[0]!)) kept.shift();
  return [...kept, m[2]!].join(' ');
}

/** An apposition after the name: "Name, the/a ... <role word> ...," (a short phrase, no verb). */
function appositionAfter(sentence: string, name: string): string | null {
  const re = new RegExp(`${esc(name)}(?:'s)?,\\s+((?:the|a|an|who is|who was)\\s+[^,;:.()"“”]{3,90}?|[a-z][^,;:.()"“”]{3,90}?)(?:,|\\.|;|$)`);
  const m = re.exec(sentence);
  if (!m) return null;
  const phrase = m[1]!.replace(/^(?:who is|who was)\s+/, '').trim();
  if (!ROLE_RE.test(phrase)) return null;
  if (/\b(?:said|says|told|added|warned|was|were|has|had|is|are|will)\b/.test(phrase)) return null;
  return phrase;
}

/** The people of the articles with their roles, best first (at most `max`). */
export function keyPeople(articles: NewsArticle[], fullTexts: Map<string, string | null>, max = 10): KeyPerson[] {
  const count = new Map<string, number>();
  const canonical = new Map<string, string>();
  for (const a of articles) {
    const seen = new Set<string>();
    for (const p of a.entities.Person ?? []) {
      const name = p.trim();
      // one-word names ("Biden") are kept only when no fuller name of the same person is named
      if (name.length < 3 || seen.has(name.toLowerCase())) continue;
      seen.add(name.toLowerCase());
      canonical.set(name.toLowerCase(), canonical.get(name.toLowerCase()) ?? name);
      count.set(name.toLowerCase(), (count.get(name.toLowerCase()) ?? 0) + 1);
    }
  }
  const texts = articles.map((a) => sentences([a.title, a.summary, ...a.keyPoints, fullTexts.get(a.articleId) ?? ''].join('\n')));
  // title-case headlines make NER take "Abe Killing" for a name: a word the texts also use in
  // lower case ("killing", "shooter") is not part of a name
  const lowerWords = new Set(
    texts
      .flat()
      .join(' ')
      .split(/[^\p{L}'-]+/u)
      .filter((w) => w && w === w.toLowerCase()),
  );
  // ... nor a word compromise reads as a verb, adjective or adverb ("Misidentified", "Killing")
  const notNameWord = (w: string) => {
    const tags = new Set<string>((nlp(w.toLowerCase()).json() as { terms: { tags: string[] }[] }[])[0]?.terms[0]?.tags ?? []);
    return !tags.has('Person') && (tags.has('Verb') || tags.has('Adjective') || tags.has('Adverb'));
  };
  const nameLike = (k: string) =>
    canonical
      .get(k)!
      .split(/\s+/)
      .every((w) => /^\p{Lu}/u.test(w) && !lowerWords.has(w.toLowerCase()) && !notNameWord(w));
  // people the NER missed but a title names: "Japan PM Kishida", "President Xi Jinping"
  const cased = ROLE_WORDS.flatMap((w) => [w, w[0]!.toUpperCase() + w.slice(1), w.toUpperCase()]).map(esc);
  const titled = new RegExp(`\\b(?:${cased.join('|')})\\.?\\s+(\\p{Lu}[\\p{L}'’-]+(?:\\s\\p{Lu}[\\p{L}'’-]+){0,2})`, 'gu');
  texts.forEach((sents, i) => {
    const seen = new Set((articles[i]!.entities.Person ?? []).map((p) => p.trim().toLowerCase()));
    for (const s of sents) {
      for (const m of s.matchAll(titled)) {
        const words = m[1]!.split(/\s+/).map((w) => w.replace(/['’]s$/, ''));
        while (words.length && notNameWord(words[words.length - 1]!)) words.pop();
        const name = words.join(' ');
        const k = name.toLowerCase();
        if (name.length < 2 || seen.has(k) || ROLE_RE.test(name)) continue;
        seen.add(k);
        canonical.set(k, canonical.get(k) ?? name);
        count.set(k, (count.get(k) ?? 0) + 1);
      }
    }
  });
  const names = [...count.keys()]
    .filter(nameLike)
    .filter((k) => k.includes(' ') || ![...count.keys()].filter(nameLike).some((o) => o !== k && o.split(' ').includes(k)));
  const roles = new Map<string, Map<string, number>>();
  for (const k of names) {
    const name = canonical.get(k)!;
    const found = new Map<string, number>();
    for (const sents of texts) {
      for (const s of sents) {
        if (!s.includes(name)) continue;
        const role = titleBefore(s, name) ?? appositionAfter(s, name);
        if (role) found.set(role, (found.get(role) ?? 0) + 1);
      }
    }
    roles.set(k, found);
  }
  const best = (k: string): string | null => {
    const r = [...(roles.get(k) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
    return r[0]?.[0] ?? null;
  };
  const n = articles.length;
  return names
    .map((k) => ({ k, role: best(k), c: count.get(k)! }))
    .sort((a, b) => Number(b.role !== null) - Number(a.role !== null) || b.c - a.c || a.k.localeCompare(b.k))
    .slice(0, max)
    .map(({ k, role, c }) => ({ name: canonical.get(k)!, role: role ?? `named in ${c} of the ${n} sources (no role stated)` }));
}

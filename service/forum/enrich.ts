/**
 * Thread enrichment, deterministic and extractive, with the news enrichment's modules:
 * - summary and key_takeaways: service/enrich/summarize.ts over the post body (its first sentences
 *   get the lede bonus) followed by the five most upvoted comments; a thread without a body (a
 *   question) is summarised from its comments; a thread with neither summarises to its title;
 * - main_speculation: the sentence of the body or the ten most upvoted comments with the most
 *   speculation cues (might, could, maybe, probably, I think, theory, ...), weighted by tf-idf;
 *   '' when no sentence has a cue;
 * - entities: service/enrich/entities.ts mapped to the RedditEntities keys: PERSON <- Person,
 *   ORG <- Organization, GPE <- Location, NORP <- Nationality, DATE <- Date, EVENT <- Event,
 *   CARDINAL <- Number;
 * - keywords: the eight tf-idf terms (summarize.ts), sentiment: AFINN (sentiment.ts, -10..10) of
 *   the title and body (the top comments when there is no body);
 * - classification: the categories the subreddit names (SUBREDDIT_CATEGORIES) and those the text
 *   earns in classify.ts (two lexicon hits); `World` only when the text earns it; at least one
 *   (`General` when nothing applies);
 * - topic: the three best keywords, joined.
 * Document frequencies come from the batch being enriched (DocFreq).
 */
import { classify } from '../enrich/classify.js';
import { extractEntities } from '../enrich/entities.js';
import { detectLanguage } from '../text/language.js';
import { sentimentScore } from '../text/sentiment.js';
import { keywords, sentences, summarize, type DocFreq } from '../enrich/summarize.js';
import { terms } from '../text/tokenize.js';

/** Bumped when the output changes: threads enriched by an older version are enriched again on the next load. */
export const FORUM_ENRICHMENT_VERSION = 1;

export const REDDIT_ENTITY_KEYS = ['DATE', 'EVENT', 'GPE', 'ORG', 'PERSON', 'NORP', 'CARDINAL'] as const;
export type RedditEntities = Record<(typeof REDDIT_ENTITY_KEYS)[number], string[]>;

/** Subreddits whose subject names a category outright (lowercase names). */
export const SUBREDDIT_CATEGORIES: Record<string, string[]> = {
  askreddit: ['Culture'],
  fantheories: ['Entertainment'],
  iama: ['Culture'],
  idontworkherelady: ['Culture'],
  letsnotmeet: ['Crime'],
  explainlikeimfive: ['Science'],
  talesfromtechsupport: ['Technology'],
  tifu: ['Culture'],
  todayilearned: ['Culture'],
  worldnews: ['World'],
  news: [],
  politics: ['Politics'],
  technology: ['Technology'],
  science: ['Science'],
  sports: ['Sports'],
  television: ['Entertainment'],
  movies: ['Entertainment'],
  music: ['Entertainment'],
  economics: ['Economy'],
  economy: ['Economy'],
  finance: ['Finance'],
  stocks: ['Finance'],
  investing: ['Finance'],
  wallstreetbets: ['Finance'],
  cryptocurrency: ['Finance'],
  bitcoin: ['Finance'],
  health: ['Health'],
  medicine: ['Health'],
  climate: ['Climate'],
  environment: ['Environment'],
  business: ['Business'],
  ukraine: ['World', 'Military'],
};

export interface ThreadText {
  title: string;
  body: string;
  subreddit: string;
  /** comments, most upvoted first */
  comments: string[];
}

export interface ThreadEnrichment {
  summary: string;
  keyTakeaways: string[];
  mainSpeculation: string;
  keywords: string[];
  entities: RedditEntities;
  sentiment: number;
  classification: string[];
  topic: string;
  language: string;
}

const hasBody = (body: string) => body.replace(/\s+/g, ' ').trim().length >= 40;

/** The text a thread is summarised from. */
export function threadText(t: ThreadText): string {
  const top = t.comments.slice(0, 5).join('\n');
  return hasBody(t.body) ? `${t.body}\n${top}` : top;
}

export function docFreqOfThreads(ts: ThreadText[]): DocFreq {
  const df = new Map<string, number>();
  for (const t of ts) for (const x of new Set(terms(`${t.title} ${threadText(t)}`))) df.set(x, (df.get(x) ?? 0) + 1);
  return { df, n: ts.length };
}

const SPECULATION =
  /\b(might|may|could|maybe|perhaps|probably|possibly|likely|unlikely|suspect|guess|theory|theorize|theorise|speculat\w*|predict\w*|wonder|would|i think|i believe|i bet|what if|chances are|my guess)\b/gi;

export function mainSpeculation(t: ThreadText, d: DocFreq, lang: string): string {
  const pool = [...sentences(t.body), ...t.comments.slice(0, 10).flatMap((c) => sentences(c))].filter((s) => s.length >= 25 && s.length <= 600);
  let best = '';
  let bestScore = 0;
  for (const [i, s] of pool.entries()) {
    const cues = s.match(SPECULATION)?.length ?? 0;
    if (cues === 0) continue;
    const ts = terms(s, lang);
    const w = ts.reduce((acc, x) => acc + Math.log(1 + d.n / (1 + (d.df.get(x) ?? 0))), 0) / Math.max(6, ts.length);
    const score = (1 + Math.log(cues)) * w * (i === 0 ? 1.1 : 1);
    if (score > bestScore) {
      bestScore = score;
      best = s;
    }
  }
  return best;
}

export function classifyThread(t: ThreadText): string[] {
  const text = `${t.body}\n${t.comments.slice(0, 5).join('\n')}`;
  const own = SUBREDDIT_CATEGORIES[t.subreddit.toLowerCase()] ?? [];
  // classify() falls back to World; it is kept only when the text earns it (it stays beside a named section)
  const earned = classify(t.title, text, []);
  const worldEarned = classify(t.title, text, ['technology']).includes('World');
  const out = [...new Set([...own, ...earned.filter((c) => c !== 'World' || worldEarned)])];
  return out.length ? out : ['General'];
}

export function enrichThread(t: ThreadText, d: DocFreq): ThreadEnrichment {
  const detected = detectLanguage(t.title, hasBody(t.body) ? t.body : t.comments.slice(0, 3).join(' '));
  const lang = detected === 'unknown' ? 'en' : detected;
  const text = threadText(t);
  const { summary, keyPoints } = text ? summarize(t.title, text, lang, d) : { summary: t.title, keyPoints: [t.title] };
  const kws = keywords(t.title, text, lang, d);
  const e = extractEntities(t.title, text);
  const entities: RedditEntities = {
    DATE: e.Date,
    EVENT: e.Event,
    GPE: e.Location,
    ORG: e.Organization,
    PERSON: e.Person,
    NORP: e.Nationality,
    CARDINAL: e.Number,
  };
  return {
    summary,
    keyTakeaways: keyPoints,
    mainSpeculation: mainSpeculation(t, d, lang),
    keywords: kws,
    entities,
    sentiment: sentimentScore(t.title, hasBody(t.body) ? t.body : t.comments.slice(0, 5).join('\n')),
    classification: classifyThread(t),
    topic: kws.slice(0, 3).join(', ') || t.title,
    language: detected,
  };
}

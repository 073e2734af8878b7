/**
 * Words that name a filter value: categories, sentiment, reporting voice, provocative level,
 * languages, continents, country demonyms and well-known publishers. Matching is
 * case-insensitive on whole words unless a comment says otherwise.
 */
import { createRequire } from 'node:module';
import type { Continent } from '../../spec/index.js';

const require = createRequire(import.meta.url);

/** Words that say "news of this category" (a word used as a topic stays in the query too). */
export const CATEGORY_WORDS: Record<string, string[]> = {
  Politics: ['politics', 'political', 'election', 'elections', 'electoral'],
  Sports: ['sport', 'sports', 'sporting', 'football', 'soccer', 'basketball', 'baseball', 'tennis', 'golf', 'cricket', 'rugby', 'hockey', 'nba', 'nfl'],
  Technology: ['tech', 'technology', 'technological', 'gadgets', 'cybersecurity'],
  Business: ['business', 'businesses', 'corporate'],
  Economy: ['economy', 'economic', 'economics', 'inflation', 'recession', 'unemployment'],
  Finance: ['finance', 'financial', 'stocks', 'stock market', 'stock markets', 'investing'],
  Science: ['science', 'scientific'],
  Health: ['health', 'healthcare', 'medical', 'medicine', 'public health'],
  Crime: ['crime', 'crimes', 'criminal'],
  Military: ['military', 'defense', 'defence', 'armed forces', 'warfare'],
  Entertainment: ['entertainment', 'celebrity', 'celebrities', 'showbiz', 'hollywood', 'movies', 'films', 'tv shows'],
  Culture: ['culture', 'cultural', 'arts'],
  Climate: ['climate'],
  Environment: ['environment', 'environmental', 'pollution', 'wildlife', 'conservation'],
  World: ['world news', 'international news', 'global news', 'foreign news', 'world affairs'],
};

/** Category words that name a section rather than a topic: they leave the query when read as one. */
export const SECTION_WORDS = new Set([
  'politics',
  'political',
  'sport',
  'sports',
  'sporting',
  'tech',
  'technology',
  'technological',
  'business',
  'businesses',
  'corporate',
  'economy',
  'economic',
  'economics',
  'finance',
  'financial',
  'science',
  'scientific',
  'health',
  'healthcare',
  'medical',
  'crime',
  'criminal',
  'military',
  'defense',
  'defence',
  'entertainment',
  'showbiz',
  'culture',
  'cultural',
  'arts',
  'climate',
  'environment',
  'environmental',
  'world news',
  'international news',
  'global news',
  'foreign news',
  'world affairs',
  'celebrity',
]);

export const SENTIMENT_WORDS: Record<'positive' | 'negative' | 'neutral', string[]> = {
  positive: ['positive', 'good news', 'uplifting', 'optimistic', 'upbeat', 'hopeful', 'feel-good', 'feel good', 'heartwarming', 'encouraging', 'cheerful'],
  negative: ['negative', 'bad news', 'pessimistic', 'gloomy', 'grim', 'alarming', 'worrying', 'depressing', 'bleak'],
  neutral: ['neutral', 'neutral-toned', 'neutral tone'],
};

export const VOICE_WORDS: Record<string, string[]> = {
  Objective: ['objective', 'factual', 'straight news', 'unbiased', 'impartial'],
  Subjective: ['subjective', 'opinion', 'opinions', 'op-ed', 'op-eds', 'editorial', 'editorials', 'commentary'],
  Investigative: ['investigative', 'investigations', 'investigative reporting', 'investigative journalism'],
  Narrative: ['narrative', 'storytelling', 'feature stories', 'long-form', 'longform'],
  Analytical: ['analytical', 'analysis', 'analyses', 'in-depth analysis'],
  Advocacy: ['advocacy', 'activist'],
  Conversational: ['conversational', 'chatty'],
  Satirical: ['satirical', 'satire', 'parody'],
  Emotive: ['emotive', 'emotional'],
  Explanatory: ['explanatory', 'explainer', 'explainers'],
  Persuasive: ['persuasive'],
  Sensational: ['sensational', 'sensationalist', 'sensationalised', 'sensationalized', 'tabloid'],
};

/** Checked in this order: a negated or moderated cue before the plain one. */
export const PROVOCATIVE_WORDS: [RegExp, 'low' | 'medium' | 'high'][] = [
  [/\b(?:not|non|un|less|least)[- ]?(?:provocative|inflammatory|sensational|clickbait)\b|\b(?:calm|measured|sober|level-headed|restrained)\b/i, 'low'],
  [/\b(?:moderately|somewhat|mildly|slightly) (?:provocative|inflammatory)\b/i, 'medium'],
  [/\b(?:provocative|inflammatory|incendiary|clickbait|rage-bait|ragebait|outrage|outrageous|highly provocative)\b/i, 'high'],
];

/** Language names (and a few other names of them) of the interface's language codes. */
export const LANGUAGE_NAMES: Record<string, string> = {
  albanian: 'sq',
  arabic: 'ar',
  azerbaijani: 'az',
  catalan: 'ca',
  chinese: 'zh',
  mandarin: 'zh',
  croatian: 'hr',
  czech: 'cs',
  danish: 'da',
  dutch: 'nl',
  english: 'en',
  esperanto: 'eo',
  finnish: 'fi',
  french: 'fr',
  galician: 'gl',
  german: 'de',
  greek: 'el',
  hebrew: 'he',
  hindi: 'hi',
  hungarian: 'hu',
  icelandic: 'is',
  indonesian: 'id',
  interlingua: 'ia',
  italian: 'it',
  japanese: 'ja',
  kazakh: 'kk',
  khmer: 'km',
  korean: 'ko',
  kyrgyz: 'ky',
  malay: 'ms',
  maltese: 'mt',
  mari: 'mhr',
  mongolian: 'mn',
  norwegian: 'no',
  odia: 'or',
  oriya: 'or',
  polish: 'pl',
  portuguese: 'pt',
  punjabi: 'pa',
  romanian: 'ro',
  russian: 'ru',
  serbian: 'sr',
  slovak: 'sk',
  slovenian: 'sl',
  spanish: 'es',
  swedish: 'sv',
  tamil: 'ta',
  telugu: 'te',
  thai: 'th',
  turkish: 'tr',
  ukrainian: 'uk',
  vietnamese: 'vi',
};

/** Continent names and adjectives. */
export const CONTINENT_WORDS: Record<string, Continent> = {
  africa: 'Africa',
  african: 'Africa',
  asia: 'Asia',
  asian: 'Asia',
  europe: 'Europe',
  european: 'Europe',
  'middle east': 'Middle East',
  'middle eastern': 'Middle East',
  mideast: 'Middle East',
  'north america': 'North America',
  'north american': 'North America',
  'south america': 'South America',
  'south american': 'South America',
  'latin america': 'South America',
  'latin american': 'South America',
  oceania: 'Oceania',
  oceanian: 'Oceania',
  australasia: 'Oceania',
  australasian: 'Oceania',
};

/** Nouns that make a preceding place or demonym the publisher's ("British media", "from French outlets"). */
export const SOURCE_NOUNS =
  'media|press|outlets?|sources?|newspapers?|papers|publishers?|publications?|news ?sites|websites|sites|broadcasters?|news ?outlets|journalists|reporters|news ?agencies|tabloids';

/** Publishers by the names people use; each name's domains (subdomains match too). */
export const PUBLISHERS: Record<string, string[]> = {
  reuters: ['reuters.com'],
  bbc: ['bbc.com', 'bbc.co.uk'],
  'bbc news': ['bbc.com', 'bbc.co.uk'],
  cnn: ['cnn.com'],
  'the guardian': ['theguardian.com'],
  guardian: ['theguardian.com'],
  'associated press': ['apnews.com'],
  ap: ['apnews.com'],
  'nbc news': ['nbcnews.com'],
  nbc: ['nbcnews.com'],
  'the new york times': ['nytimes.com'],
  'new york times': ['nytimes.com'],
  nyt: ['nytimes.com'],
  'the washington post': ['washingtonpost.com'],
  'washington post': ['washingtonpost.com'],
  'al jazeera': ['aljazeera.com'],
  bloomberg: ['bloomberg.com'],
  cnbc: ['cnbc.com'],
  'business insider': ['businessinsider.com'],
  newsweek: ['newsweek.com'],
  'the hill': ['thehill.com'],
  variety: ['variety.com'],
  deadline: ['deadline.com'],
  'sky news': ['news.sky.com'],
  'the independent': ['independent.co.uk'],
  npr: ['npr.org'],
  politico: ['politico.com'],
  axios: ['axios.com'],
  'the verge': ['theverge.com'],
  'ars technica': ['arstechnica.com'],
  'france 24': ['france24.com'],
  france24: ['france24.com'],
  euronews: ['euronews.com'],
  'daily mail': ['dailymail.co.uk'],
  'fox news': ['foxnews.com'],
  'cbs news': ['cbsnews.com'],
  'abc news': ['abcnews.go.com'],
  huffpost: ['huffpost.com'],
  'huffington post': ['huffpost.com'],
  'financial times': ['ft.com'],
  'wall street journal': ['wsj.com'],
  'the wall street journal': ['wsj.com'],
  wsj: ['wsj.com'],
  'the economist': ['economist.com'],
  'rolling stone': ['rollingstone.com'],
  'hollywood reporter': ['hollywoodreporter.com'],
  'the hollywood reporter': ['hollywoodreporter.com'],
  'daily beast': ['thedailybeast.com'],
  'the daily beast': ['thedailybeast.com'],
  techcrunch: ['techcrunch.com'],
  msnbc: ['msnbc.com'],
  'deutsche welle': ['dw.com'],
  'south china morning post': ['scmp.com'],
  'times of india': ['timesofindia.indiatimes.com'],
  'kyiv independent': ['kyivindependent.com'],
  'the kyiv independent': ['kyivindependent.com'],
  'moscow times': ['themoscowtimes.com'],
  'the moscow times': ['themoscowtimes.com'],
  'times of israel': ['timesofisrael.com'],
  'the times of israel': ['timesofisrael.com'],
};
/** Names that are ordinary words too: a publisher only with a capital letter. */
export const PUBLISHER_CASED = new Set(['ap', 'variety', 'deadline', 'guardian', 'the hill', 'axios', 'politico']);

interface Country {
  cca2: string;
  unMember: boolean;
  demonyms?: { eng?: { m: string; f: string } };
}
let demonyms: Map<string, string> | null = null;
/** Demonym (lowercase) -> ISO 3166 alpha-2; UN members win a shared demonym ("American" is the US). */
export function demonymCountries(): Map<string, string> {
  if (demonyms) return demonyms;
  const m = new Map<string, string>();
  const countries = (require('world-countries') as Country[]).slice().sort((a, b) => Number(b.unMember) - Number(a.unMember));
  for (const c of countries) {
    for (const d of [c.demonyms?.eng?.m, c.demonyms?.eng?.f]) {
      if (d && !m.has(d.toLowerCase())) m.set(d.toLowerCase(), c.cca2);
    }
  }
  m.set('uk', 'GB');
  m.set('us', 'US');
  m.set('u.s.', 'US');
  m.set('english', 'GB');
  demonyms = m;
  return m;
}

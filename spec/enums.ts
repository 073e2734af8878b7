/**
 * Every enum of the interface (v0.32.4), written once. Values are copied from
 * the interface text; where the facts file adds or disagrees, the comment says so.
 */
import { PLANS, SCOPES } from './constants.js';
import { z } from 'zod';

export const ENTITY_TYPES = [
  'Person',
  'Organization',
  'Location',
  'Nationality',
  'Date',
  'Event',
  'Money',
  'Law',
  'Quantity',
  'Time',
  'Sports',
  'Politics',
  'Title',
  'Number',
  'Arms',
  'Product',
  'Media',
  'Transportation',
  'Religion',
  'Technology',
  'Space',
  'Medicine',
  'Language',
  'Science',
] as const;
export const EntityType = z.enum(ENTITY_TYPES);
export type EntityType = z.infer<typeof EntityType>;

export const BIAS_VALUES = [
  'Political',
  'Gender',
  'Cultural',
  'Age',
  'Religious',
  'Statement',
  'Illogical Claims',
  'Slant',
  'Source Selection',
  'Omission of Source Attribution',
  'Spin',
  'Sensationalism',
  'Negativity',
  'Subjective Adjectives',
  'Ad Hominem',
  'Mind Reading',
  'Opinion-as-Fact',
  'None',
  'Unknown',
] as const;
export const Bias = z.enum(BIAS_VALUES);

export const CONTINENTS = ['Africa', 'Asia', 'Europe', 'Middle East', 'North America', 'South America', 'Oceania'] as const;
export const Continent = z.enum(CONTINENTS);
export type Continent = z.infer<typeof Continent>;

export const CONTENT_TYPES = [
  'news',
  'opinion',
  'analysis',
  'review',
  'listicle',
  'guide',
  'interview',
  'profile',
  'forum',
  'liveblog',
  'fact-check',
  'press_release',
  'obituary',
  'data_journalism',
] as const;
export const ContentType = z.enum(CONTENT_TYPES);

export const PROVOCATIVE_LEVELS = ['unknown', 'low', 'medium', 'high'] as const;
export const Provocative = z.enum(PROVOCATIVE_LEVELS);
export const ProvocativeFilter = z.enum([...PROVOCATIVE_LEVELS, 'all']);

export const REPORTING_VOICES = [
  'Objective',
  'Subjective',
  'Investigative',
  'Narrative',
  'Analytical',
  'Advocacy',
  'Conversational',
  'Satirical',
  'Emotive',
  'Explanatory',
  'Persuasive',
  'Sensational',
  'Unknown',
] as const;
export const ReportingVoice = z.enum(REPORTING_VOICES);
export const ReportingVoiceFilter = z.enum([...REPORTING_VOICES, 'all']);

/** Search categories. `Economy` exists on the search parameter only (../shared/spec/asknews-facts.md §3.1). */
export const SEARCH_CATEGORIES = [
  'All',
  'Business',
  'Economy',
  'Crime',
  'Politics',
  'Science',
  'Sports',
  'Technology',
  'Military',
  'Health',
  'Entertainment',
  'Finance',
  'Culture',
  'Climate',
  'Environment',
  'World',
] as const;
export const SearchCategory = z.enum(SEARCH_CATEGORIES);
export const INDEX_COUNT_CATEGORIES = SEARCH_CATEGORIES.filter((c) => c !== 'Economy') as Exclude<(typeof SEARCH_CATEGORIES)[number], 'Economy'>[];
export const IndexCountCategory = z.enum(INDEX_COUNT_CATEGORIES as [string, ...string[]]);
/** Story categories (../shared/spec/asknews-facts.md §8.1). */
export const STORY_CATEGORIES = [
  'Politics',
  'Economy',
  'Finance',
  'Science',
  'Technology',
  'Sports',
  'Climate',
  'Environment',
  'Culture',
  'Entertainment',
  'Business',
  'Health',
  'International',
] as const;
export const StoryCategory = z.enum(STORY_CATEGORIES);

export const LANGUAGES = [
  'sq',
  'ar',
  'az',
  'ca',
  'zh',
  'hr',
  'cs',
  'da',
  'nl',
  'en',
  'eo',
  'fi',
  'fr',
  'gl',
  'de',
  'el',
  'he',
  'hi',
  'hu',
  'is',
  'id',
  'ia',
  'it',
  'ja',
  'kk',
  'km',
  'ko',
  'ky',
  'ms',
  'mt',
  'mhr',
  'mn',
  'no',
  'or',
  'pl',
  'pt',
  'pa',
  'ro',
  'ru',
  'sr',
  'sk',
  'sl',
  'es',
  'sv',
  'ta',
  'te',
  'th',
  'tr',
  'uk',
  'vi',
  'unknown',
] as const;
export const Language = z.enum(LANGUAGES);

export const TimeFilter = z.enum(['crawl_date', 'pub_date']);
export const ReturnType = z.enum(['string', 'dicts', 'both']);
export const SearchMethod = z.enum(['nl', 'kw', 'both']);
export const Podcasts = z.enum(['include', 'only', 'none']);
export const SearchStrategy = z.enum(['latest news', 'news knowledge', 'default']);
export const StringOp = z.enum(['AND', 'OR']);
export const SentimentFilter = z.enum(['negative', 'neutral', 'positive']);
export const TRY_CACHE_TTLS = { '1h': 3600, '6h': 21600, '12h': 43200, '24h': 86400, '3d': 259200, '7d': 604800 } as const;
export const TryCache = z.enum(['1h', '6h', '12h', '24h', '3d', '7d']);
export const Sampling = z.enum(['5m', '1h', '12h', '1d', '1w', '1m']);

export const StoriesSortBy = z.enum(['published', 'coverage', 'sentiment', 'relevance', 'confidence']);
export const SortType = z.enum(['asc', 'desc']);
export const StoriesStrategy = z.enum(['default', 'topstories', 'topstories_categories', 'topstories_continents']);
export const CitationMethod = z.enum(['brackets', 'urls', 'none']);
export const StoryObjType = z.enum(['story', 'story_update']);

export const InlineCitations = z.enum(['numbered', 'markdown_link', 'none']);
export const DeepNewsEngine = z.enum(['v1', 'v1.5', 'v2.0']);
export const DEEPNEWS_SOURCES = ['asknews', 'google', 'graph', 'wiki', 'x', 'reddit', 'charts', 'email', 'full_text_discovery', 'podcasts'] as const;
export const DeepNewsSource = z.enum(DEEPNEWS_SOURCES);
export type DeepNewsSource = z.infer<typeof DeepNewsSource>;
export const DEEPNEWS_MODELS = [
  'o1-mini',
  'o1',
  'o3-mini',
  'o3',
  'gpt-4o-mini',
  'gpt-4o',
  'gpt-4.1-2025-04-14',
  'gpt-5-mini',
  'gpt-5',
  'command-nightly',
  'claude-3-5-sonnet-20240620',
  'claude-3-5-sonnet-latest',
  'claude-3-7-sonnet-latest',
  'claude-3-7-sonnet-20250219',
  'claude-3-7-sonnet-nothinking',
  'claude-sonnet-4-20250514',
  'claude-opus-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-5-20251101',
  'claude-sonnet-4-6',
  'claude-sonnet-5',
  'claude-opus-4-8',
  'claude-opus-5',
  'claude-opus-5-5',
  'claude-opus-4-6',
  'claude-fable-5',
  'claude-fable-5-1',
  'gpt-5.6-terra',
  'gpt-5.6-sol',
  'gpt-6-sol',
  'gpt-6-astra',
  'deepseek',
  'deepseek-basic',
  'deepseek-r1-0528',
  'meta-llama/Meta-Llama-3-8B-Instruct',
  'meta-llama/Meta-Llama-3.1-405B-Instruct',
  'meta-llama/Meta-Llama-3.3-70B-Instruct',
  'meta-llama/Llama-4-Maverick-17B-128E-Instruct',
  'gemini-2.5-flash',
  'gemini-2.5-pro',
  'gemini-2.5-pro-preview-03-25',
  'gemini-3-pro',
  'gemini-3.1-pro',
  'gemini-3-flash',
  'gemini-3.5-flash',
  'gemini-3.6-flash',
  'open-source-best',
  'kimi-k2p5',
  // added by the 0.32.3 production contract (../shared/spec/asknews-facts.md §11.4)
  'claude-sonnet-5-5',
  'gpt-6.1-sol',
  'kimi-k3',
] as const;
export const DeepNewsModel = z.enum(DEEPNEWS_MODELS);
export const DEFAULT_DEEPNEWS_MODEL = 'claude-sonnet-5';
export const DEFAULT_CHAT_MODEL = 'gpt-4o-mini';
export const DeepNewsModelType = z.enum(['standard', 'lite', 'advanced']);

export const AlertType = z.enum(['AlwaysAlertWhen', 'AlertOnceIf', 'ReportAbout']);
export const ALERT_CHECK_MODELS = [
  'meta-llama/Meta-Llama-3.1-8B-Instruct',
  'gpt-4o-mini',
  'gpt-5-mini',
  'gpt-5-nano',
  'gpt-4o',
  'o3-mini',
  'meta-llama/Meta-Llama-3.3-70B-Instruct',
  'gpt-4.1-2025-04-14',
  'gpt-4.1-nano-2025-04-14',
  'gpt-4.1-mini-2025-04-14',
  'claude-sonnet-5',
] as const;
export const AlertCheckModel = z.enum(ALERT_CHECK_MODELS);
export const LEGACY_REPORT_MODELS = [
  'gpt-5',
  'gpt-4o',
  'gpt-4.1-2025-04-14',
  'gpt-4.1-mini-2025-04-14',
  'gpt-4o-mini',
  'o3-mini',
  'claude-3-5-sonnet-latest',
  'claude-sonnet-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-5-20251101',
  'claude-opus-4-6',
  'claude-fable-5',
  'claude-fable-5-1',
  'claude-sonnet-4-6',
  'claude-sonnet-5',
  'claude-opus-4-8',
  'claude-opus-5',
  'gpt-5.6-terra',
  'gpt-5.6-sol',
  'gpt-6-astra',
  'meta-llama/Meta-Llama-3.1-405B-Instruct',
  'meta-llama/Meta-Llama-3.3-70B-Instruct',
] as const;

export const FORECAST_MODELS = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4.1-2025-04-14',
  'claude-3-5-sonnet-latest',
  'claude-3-5-sonnet-20240620',
  'claude-sonnet-4-20250514',
  'claude-opus-4-20250514',
  'claude-sonnet-4-5-20250929',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-sonnet-5',
  'o1-mini',
  'o3-mini',
  'o3',
] as const;

export const DistributionMetric = z.enum(['surface', 'citation', 'grounded']);
/** Hit event kinds counted by stats/metrics (../shared/spec/asknews-facts.md §10). */
export const HIT_EVENT_KINDS = ['surface', 'citation', 'full_text', 'grounded'] as const;
export const HitEventKind = z.enum(HIT_EVENT_KINDS);

export const ByokProvider = z.enum(['anthropic', 'google']);

export { SCOPES, PLANS } from './constants.js';
export const Scope = z.enum(SCOPES);
export type Scope = z.infer<typeof Scope>;

export const Plan = z.enum(PLANS);
export type Plan = z.infer<typeof Plan>;
export function planAtLeast(plan: Plan, min: Plan): boolean {
  return PLANS.indexOf(plan) >= PLANS.indexOf(min);
}

export const RedditTimeFilter = z.enum(['hour', 'day', 'week', 'month', 'year', 'all']);
export const RedditSort = z.enum(['relevance', 'hot', 'top', 'new', 'comments']);

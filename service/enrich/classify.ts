/**
 * Rule-based labels: topic classification into the interface's categories, reporting voice,
 * provocative level, content type and bias. Deterministic: the same text gives the same labels.
 */
import { words } from '../text/tokenize.js';

/** Source sections (subreddits, BBC sections) that name a category outright. */
const SECTION: Record<string, string[]> = {
  worldnews: ['World'],
  politics: ['Politics'],
  technology: ['Technology'],
  science: ['Science'],
  sports: ['Sports'],
  television: ['Entertainment'],
  ukraine: ['World', 'Military'],
  florida: ['Politics'],
  miami: [],
  flgovernment: ['Politics'],
  upliftingnews: ['Culture'],
  nottheonion: [],
  news: [],
  business: ['Business'],
  entertainment: ['Entertainment'],
  sport: ['Sports'],
  tech: ['Technology'],
};

/** Keyword lexicons per category (stemless lowercase words; a word match adds the category). */
const LEXICON: Record<string, string[]> = {
  Business: [
    'company',
    'companies',
    'firm',
    'ceo',
    'shares',
    'profit',
    'profits',
    'revenue',
    'merger',
    'acquisition',
    'startup',
    'retailer',
    'sales',
    'earnings',
    'corporate',
    'amazon',
    'tesla',
    'apple',
    'walmart',
    'uber',
    'boeing',
    'layoffs',
  ],
  Economy: [
    'economy',
    'economic',
    'inflation',
    'recession',
    'gdp',
    'unemployment',
    'jobs',
    'interest',
    'rates',
    'fed',
    'prices',
    'wages',
    'growth',
    'deficit',
    'tariffs',
    'trade',
  ],
  Finance: [
    'stocks',
    'stock',
    'market',
    'markets',
    'bank',
    'banks',
    'investors',
    'bond',
    'bonds',
    'crypto',
    'bitcoin',
    'dollar',
    'euro',
    'nasdaq',
    'dow',
    'shares',
    'fund',
    'ipo',
  ],
  Crime: [
    'police',
    'murder',
    'shooting',
    'shot',
    'killed',
    'arrested',
    'arrest',
    'charged',
    'court',
    'trial',
    'judge',
    'jury',
    'prison',
    'sentenced',
    'fraud',
    'crime',
    'gunman',
    'suspect',
    'robbery',
    'lawsuit',
    'convicted',
  ],
  Politics: [
    'president',
    'senate',
    'congress',
    'election',
    'elections',
    'vote',
    'voters',
    'minister',
    'parliament',
    'governor',
    'democrats',
    'republicans',
    'gop',
    'labour',
    'tory',
    'tories',
    'biden',
    'trump',
    'campaign',
    'policy',
    'legislation',
    'bill',
    'mp',
    'mps',
    'government',
    'desantis',
  ],
  Science: [
    'scientists',
    'study',
    'research',
    'researchers',
    'nasa',
    'space',
    'physics',
    'species',
    'fossil',
    'telescope',
    'discovery',
    'astronomers',
    'genome',
    'planet',
  ],
  Sports: [
    'football',
    'soccer',
    'nba',
    'nfl',
    'mlb',
    'nhl',
    'tennis',
    'golf',
    'olympic',
    'olympics',
    'cup',
    'league',
    'match',
    'championship',
    'coach',
    'player',
    'players',
    'team',
    'wimbledon',
    'rugby',
    'cricket',
    'season',
    'goal',
  ],
  Technology: [
    'tech',
    'software',
    'internet',
    'google',
    'microsoft',
    'facebook',
    'meta',
    'twitter',
    'ai',
    'app',
    'apps',
    'smartphone',
    'iphone',
    'computer',
    'cyber',
    'hackers',
    'data',
    'chip',
    'chips',
    'robot',
    'online',
    'broadband',
    'digital',
  ],
  Military: [
    'military',
    'army',
    'troops',
    'war',
    'missile',
    'missiles',
    'nato',
    'soldiers',
    'invasion',
    'forces',
    'weapons',
    'drone',
    'drones',
    'pentagon',
    'navy',
    'artillery',
    'airstrike',
    'defense',
    'defence',
  ],
  Health: [
    'covid',
    'vaccine',
    'vaccines',
    'virus',
    'hospital',
    'health',
    'doctors',
    'patients',
    'disease',
    'cancer',
    'pandemic',
    'abortion',
    'medical',
    'drug',
    'drugs',
    'monkeypox',
    'outbreak',
    'nhs',
  ],
  Entertainment: [
    'film',
    'movie',
    'movies',
    'actor',
    'actress',
    'music',
    'album',
    'singer',
    'show',
    'series',
    'netflix',
    'hbo',
    'oscar',
    'oscars',
    'star',
    'tv',
    'television',
    'celebrity',
    'concert',
    'festival',
    'box',
  ],
  Culture: ['art', 'museum', 'book', 'books', 'culture', 'heritage', 'religion', 'church', 'language', 'history', 'community', 'fashion', 'food'],
  Climate: ['climate', 'emissions', 'warming', 'carbon', 'heatwave', 'drought', 'wildfire', 'wildfires', 'floods', 'flooding', 'renewable', 'solar'],
  Environment: ['environment', 'environmental', 'pollution', 'wildlife', 'forest', 'ocean', 'oil', 'spill', 'plastic', 'conservation', 'endangered', 'species'],
  World: [
    'ukraine',
    'russia',
    'china',
    'israel',
    'iran',
    'afghanistan',
    'taliban',
    'syria',
    'india',
    'pakistan',
    'un',
    'europe',
    'eu',
    'africa',
    'korea',
    'putin',
    'zelensky',
    'kyiv',
    'moscow',
    'beijing',
    'international',
  ],
};
const WORD_CATS = new Map<string, string[]>();
for (const [cat, ws] of Object.entries(LEXICON)) for (const w of ws) WORD_CATS.set(w, [...(WORD_CATS.get(w) ?? []), cat]);

/** Categories in a fixed order; at least one (falls back to World). */
export function classify(title: string, text: string, sections: string[]): string[] {
  const cats = new Set<string>();
  for (const s of sections) for (const c of SECTION[s.toLowerCase()] ?? []) cats.add(c);
  const counts = new Map<string, number>();
  const ws = words(`${title} ${title} ${text.slice(0, 3000)}`);
  for (const w of ws) for (const c of WORD_CATS.get(w) ?? []) counts.set(c, (counts.get(c) ?? 0) + 1);
  // a category needs two hits (one for a headline-only article)
  const need = text ? 2 : 1;
  for (const [c, n] of counts) if (n >= need) cats.add(c);
  if (cats.size === 0) cats.add('World');
  const ORDER = Object.keys(LEXICON);
  return [...cats].sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
}

const SUBJECTIVE = new Set(['i', 'we', 'my', 'our', 'me', 'us']);
const ADVOCACY = ['must', 'should', 'need to', 'demand', 'urge', 'call on', 'calls on'];
const ANALYSIS = /\b(analysis|explainer|explained|why|how|what we know|what to know)\b/i;
/** Reporting voice from surface cues; Objective unless a cue says otherwise. */
export function reportingVoice(title: string, text: string, sections: string[]): string {
  const t = title.toLowerCase();
  const ws = words(title);
  if (sections.includes('nottheonion') && /!|\?/.test(title)) return 'Sensational';
  if (/^(opinion|comment|editorial)\b|\|\s*opinion/i.test(title)) return 'Persuasive';
  if (ws.some((w) => SUBJECTIVE.has(w))) return /\?$/.test(title) ? 'Conversational' : 'Subjective';
  if (/!/.test(title)) return 'Emotive';
  if (ADVOCACY.some((a) => t.includes(a))) return 'Advocacy';
  if (ANALYSIS.test(title)) return /^(how|why|what)\b/i.test(title) ? 'Explanatory' : 'Analytical';
  if (/\binvestigation\b|\brevealed?\b|\bleaked?\b|\bdocuments show\b/i.test(title)) return 'Investigative';
  if (text && /\b(i|we)\b/i.test(text.slice(0, 400)) && /"/.test(text.slice(0, 400)) === false) return 'Narrative';
  return 'Objective';
}

const PROVOCATIVE_WORDS = new Set([
  'slams',
  'blasts',
  'outrage',
  'furious',
  'shocking',
  'horrific',
  'brutal',
  'massacre',
  'slaughter',
  'destroys',
  'rips',
  'lashes',
  'fury',
  'disgusting',
  'explosive',
  'bombshell',
  'war',
  'terror',
  'terrorist',
  'nazi',
  'genocide',
  'traitor',
  'rage',
  'insane',
  'chaos',
]);
/** low / medium / high by loaded words and the size of the sentiment. */
export function provocative(title: string, sentiment: number): 'low' | 'medium' | 'high' {
  const hits = words(title).filter((w) => PROVOCATIVE_WORDS.has(w)).length + (/!/.test(title) ? 1 : 0);
  const score = hits * 2 + Math.min(3, Math.floor(Math.abs(sentiment) / 3));
  return score >= 4 ? 'high' : score >= 2 ? 'medium' : 'low';
}

/** content_type from title and URL cues; news otherwise. */
export function contentType(title: string, url: string): string {
  const t = title.toLowerCase();
  const u = url.toLowerCase();
  if (/\bfact[- ]?check/.test(t) || /fact-?check/.test(u)) return 'fact-check';
  if (/\blive( updates| blog|:)/.test(t) || /\/live(blog)?\//.test(u)) return 'liveblog';
  if (/^(opinion|comment|editorial)\b|\|\s*opinion/.test(t) || /\/(opinion|commentisfree|comment)\//.test(u)) return 'opinion';
  if (/\b(analysis|explainer)\b/.test(t) || /\/analysis\//.test(u)) return 'analysis';
  if (/\breview\b/.test(t) || /\/reviews?\//.test(u)) return 'review';
  if (/^\d+ (things|ways|reasons|of|best)\b/.test(t)) return 'listicle';
  if (/^how to\b|\bguide\b/.test(t)) return 'guide';
  if (/\binterview\b|\bq&a\b/.test(t)) return 'interview';
  if (/\b(dies|dead) at \d+|\bobituary\b/.test(t)) return 'obituary';
  if (/\bpress release\b/.test(t) || /prnewswire|businesswire|globenewswire/.test(u)) return 'press_release';
  if (/reddit\.com|twitter\.com/.test(u)) return 'forum';
  return 'news';
}

/** Bias labels we can detect from the text; Unknown when nothing is detected. */
export function bias(title: string, voice: string, provoc: string): string {
  if (provoc === 'high' && /!|\b(shocking|outrage|bombshell)\b/i.test(title)) return 'Sensationalism';
  if (voice === 'Persuasive') return 'Opinion-as-Fact';
  if (/\b(idiot|moron|clown|liar|crook)s?\b/i.test(title)) return 'Ad Hominem';
  return 'Unknown';
}

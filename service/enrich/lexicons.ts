/**
 * Lexicons for the entity types a general NER library does not tag, and names it misses in
 * short headlines. Matching is case-insensitive on whole words; longest phrases first.
 */
export const LEXICON_TYPES = {
  Event: ['world cup', 'olympics', 'olympic games', 'super bowl', 'wimbledon', 'champions league', 'eurovision', 'grammys', 'oscars', 'emmys', 'g7 summit', 'g20 summit', 'g7', 'g20', 'cop26', 'cop27', 'brexit', 'election', 'elections', 'midterms', 'general election', 'referendum', 'january 6', 'jan. 6', 'pride month', 'black friday', 'christmas', 'thanksgiving', 'ramadan', 'coronation', 'queen\'s jubilee', 'platinum jubilee', 'tour de france', 'world series', 'stanley cup', 'six nations', 'ashes', 'davos', 'commonwealth games'],
  Law: ['roe v. wade', 'roe v wade', 'second amendment', 'first amendment', 'gdpr', 'patriot act', 'affordable care act', 'obamacare', 'dmca', 'section 230', 'geneva convention', 'human rights act', 'constitution', 'filibuster'],
  Sports: ['football', 'soccer', 'basketball', 'baseball', 'tennis', 'golf', 'cricket', 'rugby', 'hockey', 'boxing', 'formula one', 'formula 1', 'f1', 'nba', 'nfl', 'mlb', 'nhl', 'premier league', 'la liga', 'fifa', 'uefa', 'athletics', 'marathon', 'cycling', 'swimming'],
  Politics: ['democrats', 'republicans', 'democratic party', 'republican party', 'gop', 'labour', 'conservatives', 'tories', 'liberal democrats', 'snp', 'green party', 'white house', 'kremlin', 'downing street', 'congress', 'senate', 'house of representatives', 'parliament', 'supreme court', 'european commission', 'european parliament', 'state department'],
  Title: ['president', 'prime minister', 'chancellor', 'secretary of state', 'senator', 'governor', 'mayor', 'ceo', 'chief executive', 'chairman', 'minister', 'foreign minister', 'defence secretary', 'defense secretary', 'king', 'queen', 'prince', 'princess', 'pope', 'general', 'ambassador', 'speaker', 'attorney general', 'judge', 'sheriff'],
  Arms: ['missile', 'missiles', 'tank', 'tanks', 'drone', 'drones', 'rifle', 'rifles', 'ar-15', 'himars', 'javelin', 'stinger', 'nuclear weapon', 'nuclear weapons', 'warhead', 'artillery', 'howitzer', 'fighter jet', 'fighter jets', 'f-16', 'f-35', 'bomb', 'bombs', 'grenade', 'ammunition', 'cluster munitions'],
  Product: ['iphone', 'ipad', 'macbook', 'android', 'windows', 'playstation', 'xbox', 'nintendo switch', 'tesla model 3', 'model y', 'chatgpt', 'kindle', 'alexa', 'pixel', 'galaxy', 'airpods', 'game boy', 'ipod'],
  Media: ['bbc', 'cnn', 'fox news', 'reuters', 'associated press', 'the guardian', 'new york times', 'washington post', 'wall street journal', 'netflix', 'hbo', 'disney+', 'youtube', 'tiktok', 'twitter', 'facebook', 'instagram', 'spotify', 'msnbc', 'nbc', 'cbs', 'abc news', 'sky news', 'al jazeera', 'itv', 'channel 4'],
  Transportation: ['airline', 'airlines', 'airport', 'airports', 'train', 'trains', 'railway', 'subway', 'metro', 'bus', 'buses', 'ferry', 'flight', 'flights', 'boeing 737', 'airbus', 'electric vehicle', 'electric vehicles', 'ev', 'evs', 'truck', 'trucks', 'highway', 'tube'],
  Religion: ['christian', 'christians', 'christianity', 'muslim', 'muslims', 'islam', 'islamic', 'jewish', 'jews', 'judaism', 'hindu', 'hindus', 'buddhist', 'catholic', 'catholics', 'church', 'mosque', 'synagogue', 'vatican', 'evangelical', 'sikh'],
  Technology: ['artificial intelligence', 'ai', 'machine learning', 'blockchain', 'bitcoin', 'cryptocurrency', 'crypto', 'nft', 'nfts', '5g', 'broadband', 'semiconductor', 'semiconductors', 'chips', 'cloud computing', 'quantum computing', 'software', 'internet', 'wi-fi', 'metaverse', 'encryption', 'ransomware', 'spyware', 'social media', 'search engine', 'robotics'],
  Space: ['nasa', 'spacex', 'esa', 'moon', 'mars', 'international space station', 'iss', 'james webb', 'webb telescope', 'hubble', 'asteroid', 'comet', 'rocket', 'orbit', 'satellite', 'satellites', 'astronaut', 'astronauts', 'galaxy', 'black hole', 'artemis'],
  Medicine: ['covid', 'covid-19', 'coronavirus', 'vaccine', 'vaccines', 'pfizer', 'moderna', 'monkeypox', 'cancer', 'diabetes', 'alzheimer\'s', 'hiv', 'aids', 'malaria', 'ebola', 'flu', 'influenza', 'omicron', 'antibiotics', 'insulin', 'opioid', 'opioids', 'fentanyl', 'abortion pill', 'mifepristone', 'chemotherapy', 'polio'],
  // language names double as nationalities ("Russian troops"): only unambiguous phrases here
  Language: ['english language', 'spanish language', 'french language', 'german language', 'russian language', 'ukrainian language', 'mandarin', 'cantonese', 'arabic language', 'hindi', 'esperanto', 'gaelic', 'sign language', 'welsh language', 'hebrew language', 'latin language', 'native language', 'second language'],
  Science: ['climate change', 'global warming', 'physics', 'chemistry', 'biology', 'genetics', 'dna', 'evolution', 'fossil', 'fossils', 'dinosaur', 'dinosaurs', 'neuroscience', 'particle', 'crispr', 'gene editing', 'stem cells', 'greenhouse gas', 'carbon dioxide', 'paleontology', 'archaeology', 'archaeologists'],
} as const;

/** Names compromise misses in headlines (checked against the corpus). */
export const NER_WORDS: Record<string, string> = {
  zelensky: 'Person', zelenskyy: 'Person', biden: 'Person', trump: 'Person', putin: 'Person', musk: 'LastName', elon: 'FirstName',
  sunak: 'LastName', rishi: 'FirstName', johnson: 'LastName', macron: 'LastName', scholz: 'LastName', xi: 'FirstName', jinping: 'LastName',
  desantis: 'LastName', pelosi: 'LastName', mcconnell: 'LastName', manchin: 'LastName', kamala: 'FirstName', harris: 'LastName',
  obama: 'LastName', modi: 'LastName', erdogan: 'LastName', netanyahu: 'LastName', bezos: 'LastName', zuckerberg: 'LastName',
  blair: 'LastName', brown: 'LastName', howard: 'LastName', kennedy: 'LastName',
  tesla: 'Organization', twitter: 'Organization', google: 'Organization', microsoft: 'Organization', amazon: 'Organization',
  apple: 'Organization', meta: 'Organization', facebook: 'Organization', nato: 'Organization', fbi: 'Organization', cia: 'Organization',
  pentagon: 'Organization', opec: 'Organization', uber: 'Organization', netflix: 'Organization', disney: 'Organization',
  'european union': 'Organization', 'united nations': 'Organization', who: 'Organization', imf: 'Organization',
  ukraine: 'Country', russia: 'Country', kyiv: 'City', kiev: 'City', moscow: 'City', 'gaza': 'Place',
};

/** Titles compromise sometimes returns as people. */
export const NOT_PEOPLE = new Set(['president', 'prime minister', 'king', 'queen', 'pope', 'labour', 'tory', 'tories', 'minister', 'governor', 'senator']);

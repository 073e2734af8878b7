/** `npm run bench`: runs every benchmark and prints one JSON line each (ratios measured in one run). */
import { benchAuth } from './auth.js';
import { benchSearch } from './search.js';
import { benchChat } from './chat.js';
import { benchGraph } from './graph.js';
import { benchExtract } from './extract.js';
import { benchStories } from './stories.js';
import { benchDeepNews } from './deepnews.js';
import { benchAutofilter } from './autofilter.js';
import { benchForum } from './forum.js';
import { benchWiki } from './wiki.js';
import { benchLanding } from './landing.js';
import { benchColdStart } from './coldstart.js';
import { benchWalk } from './walk.js';
import { benchHttp } from './http.js';
import { benchMix } from './mix.js';

const benches = [
  benchAuth,
  benchSearch,
  benchChat,
  benchGraph,
  benchExtract,
  benchStories,
  benchDeepNews,
  benchAutofilter,
  benchForum,
  benchWiki,
  benchLanding,
  benchColdStart,
  benchWalk,
  benchHttp,
  benchMix,
];
for (const b of benches) console.log(JSON.stringify(await b()));

/** `npm run bench`: runs every benchmark and prints one JSON line each (ratios measured in one run). */
import { benchAuth } from './auth.js';
import { benchSearch } from './search.js';
import { benchChat } from './chat.js';
import { benchGraph } from './graph.js';

const benches = [benchAuth, benchSearch, benchChat, benchGraph];
for (const b of benches) console.log(JSON.stringify(await b()));

/** `npm run bench`: runs every benchmark and prints one JSON line each (ratios measured in one run). */
import { benchAuth } from './auth.js';
import { benchSearch } from './search.js';
import { benchChat } from './chat.js';
import { benchForum } from './forum.js';

const benches = [benchAuth, benchSearch, benchChat, benchForum];
for (const b of benches) console.log(JSON.stringify(await b()));

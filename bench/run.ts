/** `npm run bench`: runs every benchmark and prints one JSON line each (ratios measured in one run). */
import { benchAuth } from './auth.js';

const benches = [benchAuth];
for (const b of benches) console.log(JSON.stringify(await b()));

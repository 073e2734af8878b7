/**
 * The stores the test services start from, built before the tests (.ci/run's "seeded stores"
 * phase): the enriched corpus on every core, then the seeded store and the forum store. A file of
 * its own, not `node -e`: the enrichment's worker threads inherit the parent's flags, and
 * `--input-type` is refused for a file.
 */
import { buildStores } from './cached-stores.js';

await buildStores();

// A page reader thread of service/indexing/reader-pool.ts: decodes and reads the pages (read-job.ts) sent to it.
// Plain JS so it starts the same under node, tsx and vitest; it loads the module beside it built, or its TypeScript through tsx.
import { importSibling } from '../../lib/import-sibling.mjs';
import { serveJobs } from '../../lib/threads/serve.mjs';
const { readJob } = await importSibling(import.meta.url, 'read-job');
serveJobs(readJob);

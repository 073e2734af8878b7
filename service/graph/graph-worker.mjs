// The graph thread of service/graph/thread.ts: builds the graphs (compute.ts) sent to it.
// Plain JS so it starts the same under node, tsx and vitest; it loads the module beside it built, or its TypeScript through tsx.
import { importSibling } from '../../lib/import-sibling.mjs';
import { serveJobs } from '../../lib/threads/serve.mjs';
const { computeGraph } = await importSibling(import.meta.url, 'compute');
serveJobs(computeGraph);

// A page reader thread of service/indexing/reader-pool.ts: reads pages (page.ts) sent to it.
// Plain JS so it starts the same under node, tsx and vitest; it loads the module beside it built, or its TypeScript through tsx.
import { parentPort } from 'node:worker_threads';
import { importSibling } from '../../lib/import-sibling.mjs';
const { readPage } = await importSibling(import.meta.url, 'page');
parentPort.on('message', ({ id, html, url }) => {
  try {
    parentPort.postMessage({ id, page: readPage(html, url) });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e instanceof Error ? e.message : e) });
  }
});
parentPort.postMessage({ ready: true });

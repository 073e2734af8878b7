// A page reader thread of service/indexing/reader-pool.ts: reads pages (page.ts) sent to it.
// Plain JS so it starts the same under node, tsx and vitest; it loads the TypeScript through tsx.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { readPage } = await import('./page.ts');
parentPort.on('message', ({ id, html, url }) => {
  try {
    parentPort.postMessage({ id, page: readPage(html, url) });
  } catch (e) {
    parentPort.postMessage({ id, error: String(e instanceof Error ? e.message : e) });
  }
});
parentPort.postMessage({ ready: true });

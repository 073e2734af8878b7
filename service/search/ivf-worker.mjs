// The IVF thread of service/search/ivf-thread.ts: k-means and list assignment (ivf.ts) off the
// service's event loop. Plain JS so it starts the same under node, tsx and vitest; it loads the
// TypeScript through tsx.
import { parentPort } from 'node:worker_threads';
import { importSibling } from '../../lib/import-sibling.mjs';

const { kmeans, assignAll } = await importSibling(import.meta.url, 'ivf');
parentPort.on('message', (m) => {
  try {
    if (m.type === 'train') {
      const c = kmeans(m.sample, m.dim, m.k, m.iterations);
      parentPort.postMessage({ id: m.id, centroids: c }, [c.buffer]);
    } else {
      const lists = assignAll(m.vectors, m.dim, m.centroids);
      parentPort.postMessage({ id: m.id, lists }, [lists.buffer]);
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String(e instanceof Error ? e.message : e) });
  }
});
parentPort.postMessage({ ready: true });

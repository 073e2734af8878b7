// A thread of test/helpers/enriched-corpus.ts: enriches and embeds the groups of the corpus it is
// sent, as NewsService.seed would (enrich with the whole corpus' document frequencies, then MiniLM
// on the group's embedding texts). Plain JS so that it starts the same under node, tsx and vitest;
// it loads the TypeScript through tsx.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { readCorpus } = await import('../../service/corpus/read.ts');
const { docFreqOf, embeddingText, enrich } = await import('../../service/enrich/index.ts');
const { MiniLmEmbedder } = await import('../../service/search/minilm-embedder.ts');

const raws = readCorpus(workerData.corpusPath);
const df = docFreqOf(raws);
const embedder = workerData.embed ? await MiniLmEmbedder.load(undefined, workerData.opThreads) : null;

parentPort.on('message', async ({ group, from, to }) => {
  try {
    // page rank and crawl date are the seed's to set (a cache hit gets them from the seed)
    const loaded = raws.slice(from, to).map((r) => enrich(r, df, { pageRank: () => 0, crawlDate: r.pubDate }));
    if (embedder) {
      const vs = await embedder.embed(loaded.map((l) => embeddingText(l.article)));
      loaded.forEach((l, i) => (l.embedding = vs[i]));
    }
    parentPort.postMessage({ group, loaded });
  } catch (e) {
    parentPort.postMessage({ group, error: String(e instanceof Error ? (e.stack ?? e.message) : e) });
  }
});
parentPort.postMessage({ ready: true });

/** `newsflow wiki load`: load encyclopedia content into the service store of a data dir (no service running). */
import { Db, StoreLockedError } from '../service/store/db.js';
import { serviceConfig, storeFile } from '../service/config.js';
import { makeEmbedder } from '../service/server.js';
import { WikiRepo } from '../service/wiki/store.js';
import { loadWiki, type LoadReport } from '../service/wiki/load.js';

export class WikiStoreBusyError extends Error {}

/** Load PATH (a dump, a saved page or a folder) with the service's embedding model; the load's counts. */
export async function loadWikiStore(o: { path: string; dataDir?: string; onProgress?: (r: LoadReport, file: string) => void }): Promise<LoadReport> {
  const config = serviceConfig({ dataDir: o.dataDir });
  let db: Db;
  try {
    db = await Db.open(storeFile(config.dataDir));
  } catch (e) {
    if (e instanceof StoreLockedError) {
      throw new WikiStoreBusyError(`the store of ${config.dataDir} is in use by a running service (DuckDB allows one writer): stop the service, run "newsflow wiki load" again, then start it (it reads the encyclopedia when it starts)`);
    }
    throw e;
  }
  try {
    const embedder = await makeEmbedder(config);
    return await loadWiki(new WikiRepo(db), o.path, { embedder, onProgress: o.onProgress });
  } finally {
    db.close();
  }
}

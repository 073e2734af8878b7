/**
 * `newsflow wiki load`: through the running service of the data dir when one runs (its admin
 * routes: the service loads, so its index has the articles at once; this follows its progress),
 * else into the store of the data dir directly.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN_FILE, runningService } from '../admin/token.js';
import { Db, StoreLockedError } from '../store/db.js';
import { serviceConfig, storeFile } from '../config.js';
import { WikiRepo } from './store.js';
import type { LoadReport } from './load.js';
import type { WikiLoadJob } from './service.js';

export class WikiLoadError extends Error {}

interface Opts {
  path: string;
  dataDir?: string;
  onProgress?: (r: LoadReport) => void;
  /** how often the service's progress is read (ms) */
  pollMs?: number;
}

/** Load PATH (a dump, a saved page or a folder) with the service's embedding model; the load's counts and where it ran. */
export async function loadWikiStore(o: Opts): Promise<LoadReport & { via: string }> {
  const config = serviceConfig({ dataDir: o.dataDir });
  const svc = runningService(config.dataDir);
  const tokenFile = path.join(config.dataDir, ADMIN_TOKEN_FILE);
  if (svc && fs.existsSync(tokenFile)) {
    try {
      return { ...(await viaService(svc.url, fs.readFileSync(tokenFile, 'utf8').trim(), path.resolve(o.path), o)), via: `the running service at ${svc.url}` };
    } catch (e) {
      // a record left by a service that died: the store is free then
      if ((e as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED') throw e;
    }
  }
  let db: Db;
  try {
    db = await Db.open(storeFile(config.dataDir));
  } catch (e) {
    if (e instanceof StoreLockedError) {
      throw new WikiLoadError(
        `the store of ${config.dataDir} is in use by another process that is not a newsflow service recorded on this data dir (DuckDB allows one writer): stop it and run "newsflow wiki load" again`,
      );
    }
    throw e;
  }
  try {
    // the model and the parsers load only for a load into the store (seconds)
    const [{ makeEmbedder }, { loadWiki }] = await Promise.all([import('../server.js'), import('./load.js')]);
    const embedder = await makeEmbedder(config);
    return { ...(await loadWiki(new WikiRepo(db), o.path, { embedder, onProgress: o.onProgress })), via: `the store ${storeFile(config.dataDir)}` };
  } finally {
    db.close();
  }
}

async function viaService(url: string, token: string, target: string, o: Opts): Promise<LoadReport> {
  const call = async (method: string, body?: unknown): Promise<WikiLoadJob> => {
    const res = await fetch(`${url}/v1/admin/wiki/load`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(30_000),
    });
    const json = (await res.json().catch(() => null)) as (WikiLoadJob & { detail?: unknown }) | null;
    if (res.status >= 400) {
      const d = json?.detail;
      throw new WikiLoadError(
        `the service at ${url} refused the load: ${Array.isArray(d) ? d.map((x: { msg?: string }) => x.msg).join('; ') : String(d ?? res.status)}`,
      );
    }
    return json!;
  };
  let job = await call('POST', { path: target });
  const started = job.started_at;
  while (job.state === 'running') {
    if (job.report) o.onProgress?.(job.report);
    await new Promise((r) => setTimeout(r, o.pollMs ?? 1000));
    job = await call('GET');
    if (job.started_at !== started) throw new WikiLoadError('another load replaced this one on the service');
  }
  if (job.state === 'failed' || !job.report) throw new WikiLoadError(`the service's load failed: ${job.error ?? 'no report'}`);
  return job.report;
}

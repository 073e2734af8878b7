/**
 * The service at scale: a store grown from the real corpus (the seeded corpus store, every article
 * replicated with new ids and matching rows in every per-article table: entities, postings,
 * embeddings, stories, updates and their members, written by DuckDB INSERT ... SELECT, no JS
 * loop) to each size of NEWSFLOW_BENCH_SCALE_SIZES (default 100k, 300k, 1M; the first point is the
 * corpus itself), then started as the service in a process of its own, and for each size:
 * data dir size, seconds until it answers and until ready, RSS after start and peak, the first nl
 * search after start, kw and nl p50/p99 (200 sequential searches each, loopback HTTP), and the
 * ingest rate (corpus articles given new ids through NewsService.addArticles: enrich, embed,
 * store, index, stories; searchable when it returns). Copies k = 1, 2, ... move back in time by
 * k times the corpus span, so the recent window holds what it holds on the corpus and the
 * archive grows. Grown stores live under os.tmpdir() and are deleted after their point.
 *
 * Each point starts the service twice: the first start builds the news index from the store and
 * saves it (service/search/index-file.ts), the second (`restart`) loads the saved index and
 * catches up what the first start's ingest added.
 *
 * NEWSFLOW_BENCH_STORE: grow this store instead of the seeded corpus store.
 * * NEWSFLOW_BENCH_SCALE_TIMEOUT: seconds a start or the first nl search may take (default 300).
 * NEWSFLOW_BENCH_SCALE_INGEST: articles the ingest figure is measured on (default 100, batches of 50).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';

const SIZES = (process.env.NEWSFLOW_BENCH_SCALE_SIZES ?? '12000,100000,300000,1000000').split(',').map((s) => Number(s.trim()));
const TIMEOUT_S = Number(process.env.NEWSFLOW_BENCH_SCALE_TIMEOUT ?? 300);
const SEARCHES = 200;
const INGEST = Number(process.env.NEWSFLOW_BENCH_SCALE_INGEST ?? 100);

const du = (dir: string): number => {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    n += e.isDirectory() ? du(p) : fs.statSync(p).size;
  }
  return n;
};

/** Copy `base` into `dir` and grow it to about `target` articles (whole copies of the corpus). */
export async function growStore(base: string, dir: string, target: number): Promise<{ articles: number; seconds: number }> {
  const t0 = Date.now();
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'service.duckdb');
  fs.copyFileSync(base, file);
  const inst = await DuckDBInstance.create(file);
  const conn = await inst.connect();
  const one = async (sql: string) => Number((await conn.runAndReadAll(sql)).getRowObjectsJS()[0]!.n);
  const n0 = await one('SELECT count(*) AS n FROM articles');
  const copies = Math.max(1, Math.round(target / n0));
  if (copies > 1) {
    // the corpus span in microseconds (copies tile back in time)
    const span = await one('SELECT (epoch_us(max(pub_date)) - epoch_us(min(pub_date)) + 3600000000) AS n FROM articles');
    await conn.run(`CREATE TEMP TABLE k AS SELECT range AS k FROM range(1, ${copies})`);
    // a new id for (copy, old id): deterministic, so every table maps an article to the same copy
    const nid = (col: string) => `md5('scale:' || k.k || ':' || ${col}::VARCHAR)::UUID`;
    const shift = (col: string) => `${col} - to_microseconds(k.k * ${span})`;
    await conn.run('BEGIN TRANSACTION');
    await conn.run(`INSERT INTO articles SELECT articles.* REPLACE (${nid('article_id')} AS article_id, article_url || '#copy-' || k.k AS article_url,
      ${shift('pub_date')} AS pub_date, ${shift('crawl_date')} AS crawl_date) FROM articles, k`);
    await conn.run(`INSERT INTO article_entities SELECT article_entities.* REPLACE (${nid('article_id')} AS article_id) FROM article_entities, k`);
    await conn.run(`INSERT INTO postings SELECT postings.* REPLACE (${nid('article_id')} AS article_id) FROM postings, k`);
    await conn.run(`INSERT INTO embeddings SELECT embeddings.* REPLACE (${nid('article_id')} AS article_id) FROM embeddings, k`);
    await conn.run(`INSERT INTO stories SELECT stories.* REPLACE (${nid('story_id')} AS story_id, ${nid('founding_article_id')} AS founding_article_id,
      ${shift('created_at')} AS created_at) FROM stories, k`);
    await conn.run(`INSERT INTO story_updates SELECT story_updates.* REPLACE (${nid('update_id')} AS update_id, ${nid('story_id')} AS story_id,
      ${shift('created_at')} AS created_at) FROM story_updates, k`);
    await conn.run(`INSERT INTO story_update_articles SELECT story_update_articles.* REPLACE (${nid('article_id')} AS article_id, ${nid('story_id')} AS story_id,
      ${nid('update_id')} AS update_id, seq + k.k * 100000000 AS seq) FROM story_update_articles, k`);
    await conn.run('COMMIT');
    await conn.run('CHECKPOINT');
  }
  const articles = await one('SELECT count(*) AS n FROM articles');
  conn.closeSync();
  inst.closeSync();
  return { articles, seconds: (Date.now() - t0) / 1000 };
}

interface ChildEvent {
  event: string;
  [k: string]: unknown;
}

const mem = (pid: number) => {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0);
    return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
  } catch {
    return { rss: 0, peak: 0 };
  }
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Number(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!.toFixed(1)) : null;
};

const gb = (b: number) => Number((b / 1e9).toFixed(2));

async function timed(url: string, key: string): Promise<{ ms: number; ok: boolean }> {
  const t = performance.now();
  const r = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(TIMEOUT_S * 1000) }).catch(() => null);
  if (r) await r.arrayBuffer();
  return { ms: performance.now() - t, ok: !!r?.ok };
}

/** One point: start the service on `dir`, measure, stop it. */
async function point(dir: string): Promise<Record<string, unknown>> {
  const dataBytes = du(dir);
  const t0 = Date.now();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir], {
    env: { ...process.env, NEWSFLOW_LOG_LEVEL: 'silent' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const events = new Map<string, { at: number; e: ChildEvent }>();
  const waiters: { name: string; resolve: (e: ChildEvent) => void }[] = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const e = JSON.parse(line) as ChildEvent;
    events.set(e.event, { at: Date.now(), e });
    for (const w of waiters.filter((x) => x.name === e.event)) w.resolve(e);
  });
  let exited: number | null = null;
  child.once('exit', (code, sig) => (exited = code ?? (sig ? 128 : 1)));
  const wait = (name: string, seconds: number) =>
    new Promise<ChildEvent | null>((resolve) => {
      const got = events.get(name);
      if (got) return resolve(got.e);
      const timer = setTimeout(() => resolve(null), seconds * 1000);
      const poll = setInterval(() => exited !== null && (clearInterval(poll), clearTimeout(timer), resolve(null)), 200);
      waiters.push({
        name,
        resolve: (e) => {
          clearTimeout(timer);
          clearInterval(poll);
          resolve(e);
        },
      });
    });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, mem(child.pid!).peak)), 500);
  const out: Record<string, unknown> = { data_dir_gb: gb(dataBytes) };
  try {
    const listening = await wait('listening', TIMEOUT_S);
    if (!listening) {
      out.answer_s = null;
      out.exit = exited;
      out.note = exited !== null ? `exited ${exited} before answering` : `no answer in ${TIMEOUT_S} s`;
      return out;
    }
    out.answer_s = Number(((events.get('listening')!.at - t0) / 1000).toFixed(1));
    const { url, key, queries } = listening as unknown as { url: string; key: string; queries: string[] };
    const ready = await wait('ready', TIMEOUT_S);
    out.ready_s = ready ? Number(((events.get('ready')!.at - t0) / 1000).toFixed(1)) : null;
    out.articles = ready?.articles ?? null;
    out.loaded_from = ready?.loadedFrom ?? null;
    out.rss_after_start_gb = gb(mem(child.pid!).rss);
    const search = (q: string, method: string) =>
      `${url}/v1/news/search?${new URLSearchParams({ query: q, method, historical: 'true', n_articles: '10', return_type: 'dicts' })}`;
    const first = await timed(search(queries[0]!, 'nl'), key);
    out.first_nl_ms = first.ok ? Number(first.ms.toFixed(0)) : null;
    if (!first.ok) out.note = `first nl search: no answer in ${TIMEOUT_S} s`;
    const run = async (method: string) => {
      const ms: number[] = [];
      for (let i = 0; i < SEARCHES; i++) {
        const r = await timed(search(queries[(i + 1) % queries.length]!, method), key);
        if (!r.ok) return null;
        ms.push(r.ms);
      }
      return { p50: pct(ms, 50), p99: pct(ms, 99) };
    };
    out.kw_ms = await run('kw');
    out.nl_ms = first.ok ? await run('nl') : null;
    child.stdin!.write('ingest\n');
    const ing = await wait('ingested', TIMEOUT_S);
    out.ingest_per_s = ing?.perSecond ?? null;
    out.rss_gb = gb(mem(child.pid!).rss);
    peak = Math.max(peak, mem(child.pid!).peak);
    out.peak_rss_gb = gb(peak);
    const tStop = Date.now();
    child.kill('SIGTERM');
    await new Promise<void>((r) => {
      const t = setInterval(() => exited !== null && (clearInterval(t), r()), 100);
      setTimeout(() => (clearInterval(t), r()), 60_000);
    });
    out.sigterm_s = exited !== null ? Number(((Date.now() - tStop) / 1000).toFixed(1)) : null;
    return out;
  } finally {
    clearInterval(sampler);
    if (exited === null) child.kill('SIGKILL');
  }
}

export async function benchScale(): Promise<Record<string, unknown>> {
  const { seededCorpusStore } = await import('../test/helpers/corpus-store.js');
  const base = process.env.NEWSFLOW_BENCH_STORE || (await seededCorpusStore(() => undefined));
  const points: Record<string, unknown>[] = [];
  for (const size of SIZES) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-scale-'));
    try {
      const g = await growStore(base, dir, size);
      const p = await point(dir);
      const restart = await point(dir);
      points.push({ size, articles: g.articles, grow_s: Number(g.seconds.toFixed(1)), ...p, restart });
      console.error(`bench/scale: ${JSON.stringify(points.at(-1))}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return {
    bench: 'scale: the service on a store grown from the corpus (start, memory, loopback HTTP search ms, ingest articles/s)',
    points,
    goals_at_1m: { answer_s: 10, ready_s: 60, rss_gb: 4, kw_p99_ms: 50, nl_p99_ms: 150, first_nl_ms: 1000 },
    cores: os.cpus().length,
    loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
  };
}

/** The service of one point, in this process: prints `listening` and `ready` lines, ingests on `ingest`. */
async function child(dir: string): Promise<void> {
  const { SCOPES } = await import('../spec/index.js');
  const { serviceConfig } = await import('../service/config.js');
  const { openServices, startService } = await import('../service/server.js');
  const { readCorpus } = await import('../service/corpus/read.js');
  const { sharedDir } = await import('../test/helpers/paths.js');
  const emit = (e: ChildEvent) => console.log(JSON.stringify(e));
  const config = serviceConfig({ dataDir: dir, port: 0, host: '127.0.0.1', logLevel: 'silent', limitsText: 'news=1000000:1000000:1000' });
  // the news index loads behind the listening service where the service can (NewsService.open `background`)
  const services = await openServices(config, undefined, { background: true } as never);
  // a restart finds the org of the first start
  await services.keys.createOrg({ name: 'bench', domains: ['bench.example'] }).catch(() => undefined);
  const { key } = await services.keys.createKey({ name: `bench-${Date.now()}`, org: 'bench', scopes: [...SCOPES], plan: 'enterprise' });
  const svc = await startService({ services, logger: false });
  const raws = readCorpus(path.join(sharedDir, 'data'));
  const queries = Array.from({ length: 500 }, (_, i) => raws[(i * 7919) % raws.length]!.title.split(/\s+/).slice(0, 5).join(' '));
  emit({ event: 'listening', url: svc.url, key, queries });
  const news = services.news!;
  const loaded = (news as unknown as { loaded?: Promise<unknown> }).loaded;
  await loaded;
  emit({ event: 'ready', articles: news.index.size, loadedFrom: news.loadedFrom });
  const stop = async () => {
    await svc.close();
    await news.close();
    services.db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  readline.createInterface({ input: process.stdin }).on('line', (l) => {
    if (l.trim() !== 'ingest') return;
    void (async () => {
      const batch = raws
        .filter((r) => r.text)
        .slice(0, INGEST)
        .map((r) => ({ ...r, articleId: crypto.randomUUID(), url: `${r.url}#ingest-${Date.now()}`, source: 'web' as const }));
      const t = performance.now();
      for (let i = 0; i < batch.length; i += 50) await news.addArticles(batch.slice(i, i + 50));
      emit({ event: 'ingested', perSecond: Number((batch.length / ((performance.now() - t) / 1000)).toFixed(1)) });
    })();
  });
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') await child(argv[1]!);
else if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) console.log(JSON.stringify(await benchScale()));

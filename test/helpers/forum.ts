/** Forum test data: the shared threads in a cached store, and a Pushshift NDJSON sample written by the test. */
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, sharedDir } from './paths.js';
import { buildOnce } from './cache-lock.js';

export const forumDataDir = path.join(sharedDir, 'data', 'forum');

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Key of what shapes the loaded forum store: the forum data, the forum, enrichment, search and store code, the spec. */
function forumKey(): string {
  const h = crypto.createHash('sha1');
  for (const f of filesUnder(forumDataDir).sort()) h.update(`${path.relative(forumDataDir, f)}:${fs.statSync(f).size}`);
  for (const dir of ['service/forum', 'service/enrich', 'service/search', 'service/store', 'spec']) {
    for (const f of filesUnder(path.join(repoRoot, dir)).sort()) h.update(fs.readFileSync(f));
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * A service store holding the 135 shared threads, enriched and embedded (no news): loaded once per
 * content key and cached in the OS temp dir; test services start from a copy (`corpusStore`).
 */
export async function forumStoreFile(): Promise<string> {
  const dir = path.join(os.tmpdir(), 'newsflow-test-cache', `forum-${forumKey()}`);
  const file = path.join(dir, 'service.duckdb');
  if (fs.existsSync(path.join(dir, 'done'))) return file;
  // one test file builds it, the others wait for it (a build takes minutes on a busy machine)
  await buildOnce(dir, () => build(dir));
  return file;
}

async function build(dir: string): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-forum-build-'));
  const { serviceConfig } = await import('../../service/config.js');
  const { openServices } = await import('../../service/server.js');
  const services = await openServices(serviceConfig({ dataDir: work, logLevel: 'silent' }));
  const r = await services.forum!.load(forumDataDir);
  await services.news?.close();
  await services.db.checkpoint();
  services.db.close();
  fs.writeFileSync(path.join(work, 'done'), JSON.stringify(r));
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  try {
    fs.renameSync(work, dir);
  } catch {
    fs.rmSync(work, { recursive: true, force: true });
    throw new Error(`cannot move the forum test store into ${dir}`);
  }
}

export interface SampleThread {
  id: string;
  title: string;
  selftext: string;
  author: string;
  score: number;
  created_utc: number;
  num_comments: number;
  subreddit: string;
  comments: { id: string; author: string; body: string; score: number; created_utc: number }[];
}

/** Three submissions with their comments, as Pushshift writes them (submissions then comments; one comment precedes its thread). */
export const SAMPLE: SampleThread[] = [
  {
    id: 'zq1abc',
    title: 'Lighthouse keepers of Nantucket: what did they do all winter?',
    subreddit: 'AskHistorians',
    author: 'keeper_of_lamps',
    selftext: 'The Nantucket lighthouse keepers lived alone for months. I think they might have spent winters repairing the Fresnel lens and logging ships.',
    score: 4321,
    created_utc: 1651400000,
    num_comments: 3,
    comments: [
      {
        id: 'c1',
        author: 'fresnel_fan',
        body: 'Keepers polished the Fresnel lens every single morning and trimmed the wicks.',
        score: 250,
        created_utc: 1651401000,
      },
      { id: 'c2', author: 'tidewatcher', body: 'Winter logs show they counted passing whaling ships.', score: 90, created_utc: 1651402000 },
    ],
  },
  {
    id: 'zq2def',
    title: 'My sourdough starter survived a power outage in the freezer',
    subreddit: 'Breadit',
    author: 'crumbshot',
    selftext: 'Left the sourdough starter frozen for three weeks after the outage; it bubbled again after two feedings of rye flour.',
    score: 77,
    created_utc: 1652000000,
    num_comments: 2,
    comments: [{ id: 'c3', author: 'ryeguy', body: 'Rye flour wakes a sleepy starter faster than anything.', score: 12, created_utc: 1652000500 }],
  },
  {
    id: 'zq3ghi',
    title: 'Velociraptor feathers: what the Gobi fossils show',
    subreddit: 'Paleontology',
    author: 'quill_knobs',
    selftext: 'Quill knobs on the ulna of Velociraptor fossils from the Gobi desert are evidence of feathers.',
    score: -3,
    created_utc: 1652600000,
    num_comments: 1,
    comments: [{ id: 'c4', author: 'dino_dan', body: 'Quill knobs are where feathers anchor on modern birds too.', score: 8, created_utc: 1652600900 }],
  },
];

/** The sample as NDJSON lines: the first thread's second comment first (before its submission). */
export function sampleLines(sample = SAMPLE): string[] {
  const subs = sample.map((t) =>
    JSON.stringify({
      id: t.id,
      name: `t3_${t.id}`,
      title: t.title,
      selftext: t.selftext,
      author: t.author,
      score: t.score,
      created_utc: t.created_utc,
      num_comments: t.num_comments,
      subreddit: t.subreddit,
      permalink: `/r/${t.subreddit}/comments/${t.id}/x/`,
      over_18: false,
    }),
  );
  const coms = sample.flatMap((t) =>
    t.comments.map((c) =>
      JSON.stringify({
        id: c.id,
        link_id: `t3_${t.id}`,
        parent_id: `t3_${t.id}`,
        author: c.author,
        body: c.body,
        score: c.score,
        created_utc: String(c.created_utc),
        subreddit: t.subreddit,
      }),
    ),
  );
  return [coms[1]!, ...subs, coms[0]!, ...coms.slice(2)];
}

export function writeNdjson(dir: string, name: string, lines: string[]): string {
  const f = path.join(dir, name);
  fs.writeFileSync(f, `${lines.join('\n')}\n`);
  return f;
}

/**
 * `file`.zst with the Debian `zstd` binary, else python3's zstandard module; null when neither is
 * installed (the caller says so).
 */
export function zstdCompress(file: string): { file: string; tool: string } | null {
  const out = `${file}.zst`;
  const z = spawnSync('zstd', ['-q', '-f', '-o', out, file]);
  if (z.status === 0) return { file: out, tool: 'zstd' };
  const py = spawnSync('python3', [
    '-c',
    'import sys, zstandard; open(sys.argv[2], "wb").write(zstandard.ZstdCompressor().compress(open(sys.argv[1], "rb").read()))',
    file,
    out,
  ]);
  if (py.status === 0) return { file: out, tool: 'python3 zstandard' };
  return null;
}

/**
 * A copy of `storeFile` (the seeded corpus store, say) with the 135 shared forum threads of the
 * cached forum store copied in (threads, comments, embeddings): a service started from it has
 * news and forum. Returns the new file, in a temp dir of its own (the caller removes it).
 */
export async function withForumThreads(storeFile: string): Promise<string> {
  const forum = await forumStoreFile();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-forum-merge-'));
  const file = path.join(dir, 'service.duckdb');
  fs.copyFileSync(storeFile, file);
  const { Db } = await import('../../service/store/db.js');
  const db = await Db.open(file);
  try {
    await db.run(`ATTACH '${forum.replace(/'/g, "''")}' AS forum_src (READ_ONLY)`);
    for (const t of ['forum_threads', 'forum_comments', 'forum_embeddings']) await db.run(`INSERT INTO ${t} BY NAME SELECT * FROM forum_src.${t}`);
    await db.run('DETACH forum_src');
    await db.checkpoint();
  } finally {
    db.close();
  }
  return file;
}

/** Loading forum threads: the 135 shared threads with every field, idempotent reloads, Pushshift NDJSON (plain and zstd). */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedditThread } from '../../../spec/index.js';
import { decodeBytesLiteral, threadIdOf } from '../../../service/forum/read.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { strictValidator } from '../../helpers/strict-schema.js';
import { forumDataDir, forumStoreFile, SAMPLE, sampleLines, writeNdjson, zstdCompress } from '../../helpers/forum.js';

const NOW = Date.parse('2022-11-01T00:00:00Z');
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await forumStoreFile(), clock: () => NOW });
}, 600_000); // the first run builds the cached forum store: minutes on a busy machine
afterAll(async () => svc?.stop());

describe('the shared reddit-post-comment threads', () => {
  it('all 135 threads load with every RedditThread field, valid under the strict schema', async () => {
    const all = svc.services.forum!.all();
    expect(all).toHaveLength(135);
    const strict = strictValidator(RedditThread);
    const invalid = all.map((t) => strict(t)).filter((e) => e.length);
    expect(invalid).toEqual([]);
    const fields = Object.keys(RedditThread.shape).filter((k) => k !== 'derived_fields');
    for (const t of all) {
      for (const f of fields) expect(t, `${t.title}: ${f}`).toHaveProperty(f);
      expect(t.summary.length).toBeGreaterThan(0);
      expect(t.key_takeaways.length).toBeGreaterThan(0);
      expect(t.keywords.length).toBeGreaterThan(0);
      expect(t.classification.length).toBeGreaterThan(0);
      expect(Object.keys(t.entities).sort()).toEqual(['CARDINAL', 'DATE', 'EVENT', 'GPE', 'NORP', 'ORG', 'PERSON']);
      expect(t.date).toMatch(/Z$/);
      expect(t.subreddit_url).toBe(`https://www.reddit.com/r/${t.subreddit_name}/`);
    }
    const comments = all.reduce((s, t) => s + t.comments.length, 0);
    const speculating = all.filter((t) => t.main_speculation !== '').length;
    const withEntities = all.filter((t) => Object.values(t.entities).some((v) => v.length > 0)).length;
    console.log(
      `forum load: 135 threads, ${comments} comments shown, main_speculation in ${speculating}, entities in ${withEntities}, subreddits ${new Set(all.map((t) => t.subreddit_name)).size}`,
    );
    expect(comments).toBe(1997); // no thread has more than the 25 shown
    expect(new Set(all.map((t) => t.subreddit_name)).size).toBe(9);
    expect(speculating).toBeGreaterThan(60);
    expect(withEntities).toBeGreaterThan(120);
  });

  it('flags the authors, dates and scores the dataset lacks as derived', () => {
    for (const t of svc.services.forum!.all()) {
      expect(t.derived_fields).toEqual(
        expect.arrayContaining([
          'author',
          'date',
          'upvotes',
          'author_link_karma',
          'author_comment_karma',
          'comments.author',
          'comments.date',
          'comments.upvotes',
        ]),
      );
      expect(t.author).toBe('[unknown]');
      // the file lists comments in the order shown: upvotes n..1, seven minutes apart after the post
      const n = t.comments.length;
      expect(t.comments.map((c) => c.upvotes)).toEqual(Array.from({ length: n }, (_, i) => n - i));
      if (n) expect(Date.parse(t.comments[0]!.date) - Date.parse(t.date)).toBe(7 * 60_000);
      expect(Date.parse(t.date)).toBeGreaterThanOrEqual(Date.parse('2022-01-01T00:00:00Z'));
      expect(Date.parse(t.date)).toBeLessThan(Date.parse('2022-11-01T00:00:00Z'));
    }
  });

  it('decodes the Python bytes literals and the Windows-1252 titles', () => {
    const all = svc.services.forum!.all();
    const text = JSON.stringify(all);
    expect(text).not.toContain('\uFFFD');
    expect(text).not.toMatch(/[\u0080-\u009F]/); // C1 controls: Windows-1252 bytes read as Latin-1
    expect(all.some((t) => /^b['"]/.test(t.body) || /\\x[0-9a-f]{2}/.test(t.body))).toBe(false);
    expect(all.find((t) => t.title.startsWith('I’m Bill Gates'))).toBeDefined(); // 0x92 in the file
    const tifu = all.find((t) => t.title.includes('girlfriend of two years'))!;
    expect(tifu.body).toContain('I don’t understand why'); // \xe2\x80\x99 in the literal
    expect(tifu.body).toContain('\n\n');
    expect(decodeBytesLiteral(String.raw`b'It\'s \xe2\x80\x9cfine\xe2\x80\x9d\n'`)).toBe("It's “fine”\n");
    expect(decodeBytesLiteral(String.raw`b"a \"b\" \\ c"`)).toBe('a "b" \\ c');
    expect(decodeBytesLiteral("b''")).toBe('');
  });

  it('loading the shared threads again changes nothing', async () => {
    const before = await svc.services.db.all<{ n: bigint; h: string }>(
      "SELECT count(*) AS n, md5(string_agg(thread_id::VARCHAR || enriched_hash || CAST(loaded_at AS VARCHAR), ',' ORDER BY thread_id)) AS h FROM forum_threads",
    );
    const r = await svc.services.forum!.load(forumDataDir);
    expect(r.threads).toEqual({ read: 135, inserted: 0, updated: 0, unchanged: 135 });
    expect(r.comments).toEqual({ read: 1997, inserted: 0, updated: 0, unchanged: 1997 });
    expect(r.enriched).toBe(0);
    expect(r.problems).toEqual([]);
    const after = await svc.services.db.all<{ n: bigint; h: string }>(
      "SELECT count(*) AS n, md5(string_agg(thread_id::VARCHAR || enriched_hash || CAST(loaded_at AS VARCHAR), ',' ORDER BY thread_id)) AS h FROM forum_threads",
    );
    expect(after).toEqual(before);
    expect(svc.services.forum!.size).toBe(135);
  });
});

describe('Pushshift NDJSON', () => {
  let fresh: TestService;
  let dir: string;
  beforeAll(async () => {
    fresh = await startTestService({ clock: () => NOW });
    dir = tempDir('newsflow-forum-ndjson-');
  });
  afterAll(async () => {
    await fresh?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function expectSampleKept(threads: RedditThread[]) {
    for (const s of SAMPLE) {
      const t = threads.find((x) => x.id === threadIdOf(`reddit:${s.id}`))!;
      expect(t, s.title).toBeDefined();
      expect(t.title).toBe(s.title);
      expect(t.body).toBe(s.selftext);
      expect(t.author).toBe(s.author);
      expect(t.upvotes).toBe(s.score);
      expect(t.date).toBe(new Date(s.created_utc * 1000).toISOString());
      expect(t.comments_count).toBe(s.num_comments);
      expect(t.subreddit_name).toBe(s.subreddit);
      expect(t.url).toBe(`https://www.reddit.com/r/${s.subreddit}/comments/${s.id}/x/`);
      const want = [...s.comments].sort((a, b) => b.score - a.score);
      expect(t.comments).toEqual(want.map((c) => ({ author: c.author, body: c.body, date: new Date(c.created_utc * 1000).toISOString(), upvotes: c.score })));
      expect(t.derived_fields).toEqual(['author_comment_karma', 'author_link_karma']);
      // karma derived from the store: the author's thread upvotes
      expect(t.author_link_karma).toBe(s.score);
    }
  }

  it('loads submissions with their comments (one comment before its submission), keeping authors, scores and dates', async () => {
    const f = writeNdjson(dir, 'RS_sample.ndjson', sampleLines());
    const r = await fresh.services.forum!.load(f);
    expect(r.problems).toEqual([]);
    expect(r.threads).toEqual({ read: 3, inserted: 3, updated: 0, unchanged: 0 });
    expect(r.comments).toEqual({ read: 4, inserted: 4, updated: 0, unchanged: 0 });
    expect(r.enriched).toBe(3);
    expectSampleKept(fresh.services.forum!.all());
    const strict = strictValidator(RedditThread);
    for (const t of fresh.services.forum!.all()) expect(strict(t)).toEqual([]);
    const again = await fresh.services.forum!.load(f);
    expect(again.threads).toEqual({ read: 3, inserted: 0, updated: 0, unchanged: 3 });
    expect(again.comments).toEqual({ read: 4, inserted: 0, updated: 0, unchanged: 4 });
    expect(again.enriched).toBe(0);
  });

  it('reads the same sample zstd-compressed', async () => {
    const plain = writeNdjson(dir, 'RC_zst_sample.ndjson', sampleLines());
    const z = zstdCompress(plain);
    if (!z) {
      console.log('forum zstd: neither the zstd binary nor python3 zstandard is installed; only the plain sample was loaded');
      return;
    }
    console.log(`forum zstd: sample compressed with ${z.tool} (${fs.statSync(z.file).size} bytes from ${fs.statSync(plain).size})`);
    fs.rmSync(plain);
    const other = await startTestService({ clock: () => NOW });
    try {
      const r = await other.services.forum!.load(z.file);
      expect(r.problems).toEqual([]);
      expect(r.threads.inserted).toBe(3);
      expect(r.comments.inserted).toBe(4);
      expectSampleKept(other.services.forum!.all());
      expect(other.services.forum!.all().map((t) => t.summary)).toEqual(fresh.services.forum!.all().map((t) => t.summary));
    } finally {
      await other.stop();
    }
  });

  it('a changed submission updates its thread and re-enriches only it; a corrupt line is named and skipped', async () => {
    const lines = sampleLines();
    const i = lines.findIndex((l) => l.includes('zq2def') && l.includes('"title"'));
    const edited = JSON.parse(lines[i]!);
    edited.score = 80;
    lines[i] = JSON.stringify(edited);
    lines.splice(2, 0, '{"id": "broken", "title": ');
    const f = writeNdjson(dir, 'RS_edited.ndjson', lines);
    const r = await fresh.services.forum!.load(f);
    expect(r.problems).toEqual([{ file: f, line: 3, message: expect.stringContaining('not JSON') }]);
    expect(r.threads).toEqual({ read: 3, inserted: 0, updated: 1, unchanged: 2 });
    expect(r.enriched).toBe(1);
    expect(fresh.services.forum!.get(threadIdOf('reddit:zq2def'))!.upvotes).toBe(80);
  });
});

describe('the store on disk', () => {
  it('keeps threads, comments and embeddings in the service store (migration 9)', async () => {
    const [n] = await svc.services.db.all<{ t: bigint; c: bigint; e: bigint }>(
      'SELECT (SELECT count(*) FROM forum_threads) AS t, (SELECT count(*) FROM forum_comments) AS c, (SELECT count(*) FROM forum_embeddings) AS e',
    );
    expect(Number(n!.t)).toBe(135);
    expect(Number(n!.c)).toBe(1997);
    expect(Number(n!.e)).toBe(135);
    expect(fs.existsSync(path.join(svc.dataDir, 'service.duckdb'))).toBe(true);
  });
});

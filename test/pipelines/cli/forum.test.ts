/** `newsflow forum load`: Pushshift NDJSON and the shared folder into the store; a corrupt line named, the rest loaded, exit 1; through a running service that holds the store. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestService, tempDir } from '../../helpers/service.js';
import { forumDataDir, sampleLines, writeNdjson, zstdCompress } from '../../helpers/forum.js';
import { Db } from '../../../service/store/db.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('newsflow-forum-cli-');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const counts = async (dataDir: string) => {
  const db = await Db.open(path.join(dataDir, 'service.duckdb'));
  try {
    const [n] = await db.all<{ t: bigint; c: bigint; a: string[] }>(
      'SELECT (SELECT count(*) FROM forum_threads) AS t, (SELECT count(*) FROM forum_comments) AS c, (SELECT list(author ORDER BY author) FROM forum_threads) AS a',
    );
    return { threads: Number(n!.t), comments: Number(n!.c), authors: n!.a };
  } finally {
    db.close();
  }
};

describe('newsflow forum load', () => {
  it('a corrupt NDJSON line: the CLI names file and line, loads the rest and exits non-zero', async () => {
    const lines = sampleLines();
    lines.splice(3, 0, '{"id": "zz9", "title": "cut off');
    const f = writeNdjson(dir, 'RS_corrupt.ndjson', lines);
    const data = path.join(dir, 'd1');
    const r = await runCli(['forum', 'load', f, '--data-dir', data, '--json']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${f}:4: not JSON`);
    expect(r.err).toMatch(/error: 1 line\(s\) or file\(s\) could not be read/);
    const out = JSON.parse(r.out);
    expect(out.threads).toMatchObject({ read: 3, inserted: 3 });
    expect(out.comments).toMatchObject({ read: 4, inserted: 4 });
    expect(await counts(data)).toEqual({ threads: 3, comments: 4, authors: ['crumbshot', 'keeper_of_lamps', 'quill_knobs'] });
  }, 240_000);

  it('loads plain and zstd Pushshift files; loading twice changes nothing (exit 0)', async () => {
    const data = path.join(dir, 'd2');
    const plain = writeNdjson(dir, 'RS_plain.ndjson', sampleLines());
    const first = await runCli(['forum', 'load', plain, '--data-dir', data]);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain('threads: 3 read, 3 new, 0 updated, 0 unchanged');
    const z = zstdCompress(writeNdjson(dir, 'RS_z.ndjson', sampleLines()));
    if (z) {
      const again = await runCli(['forum', 'load', z.file, '--data-dir', data, '--json']);
      expect(again.code, again.err).toBe(0);
      const o = JSON.parse(again.out);
      expect(o.threads).toEqual({ read: 3, inserted: 0, updated: 0, unchanged: 3 });
      expect(o.comments).toEqual({ read: 4, inserted: 0, updated: 0, unchanged: 4 });
      expect(o.enriched).toBe(0);
    } else {
      console.log('forum cli: no zstd tool installed; the zstd file was not tested');
    }
    const third = await runCli(['forum', 'load', plain, '--data-dir', data]);
    expect(third.out).toContain('threads: 3 read, 0 new, 0 updated, 3 unchanged');
    expect(await counts(data)).toMatchObject({ threads: 3, comments: 4 });
  }, 240_000);

  it('loads the shared reddit-post-comment folder: 135 threads, 1997 comments', async () => {
    const data = path.join(dir, 'd3');
    const r = await runCli(['forum', 'load', forumDataDir, '--data-dir', data, '--json']);
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out);
    expect(o).toMatchObject({
      files: 135,
      threads: { inserted: 135 },
      comments: { inserted: 1997 },
      enriched: 135,
      stored: { threads: 135, comments: 1997 },
      problems: [],
    });
  }, 240_000);

  it('a path that does not exist: a clear message, exit 1; a store held by a running service: loaded through it', async () => {
    const missing = await runCli(['forum', 'load', path.join(dir, 'nope.ndjson'), '--data-dir', path.join(dir, 'd4')]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/error: forum load failed: .*nope\.ndjson: no such file or directory/);
    const svc = await startTestService();
    try {
      // the service holds the store: the load goes through it (its admin route) and its forum has the threads at once
      const held = await runCli(['forum', 'load', writeNdjson(dir, 'RS_held.ndjson', sampleLines()), '--data-dir', svc.dataDir]);
      expect(held.code, held.err).toBe(0);
      expect(held.out).toContain('threads: 3 read, 3 new');
      expect(svc.services.forum?.size).toBe(3);
    } finally {
      await svc.stop();
    }
  }, 240_000);
});

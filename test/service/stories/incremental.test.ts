/**
 * Stories are clustered incrementally: a restart keeps every story and update id and clusters
 * nothing again; articles released by a replay join existing stories as new updates.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { STORIES_LIMITS } from '../../../spec/index.js';
import { serviceConfig } from '../../../service/config.js';
import { openServices } from '../../../service/server.js';
import type { Services } from '../../../service/context.js';
import { tempDir, type TestService } from '../../helpers/service.js';
import { sql } from '../../helpers/news.js';
import { HOUR, NOW, startStoriesService, stories, story } from '../../helpers/stories.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';
import { waitUntil } from '../../helpers/wait-until.js';

let svc: TestService | undefined;
let corpusStore = '';
beforeAll(async () => {
  corpusStore = await seededCorpusStore();
});
let open: Services[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await svc?.stop();
  svc = undefined;
  for (const s of open) {
    await s.news?.close();
    s.db.close();
  }
  open = [];
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function openAt(dir: string): Promise<Services> {
  const s = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent' }), undefined, { clock: () => NOW });
  open.push(s);
  return s;
}
async function closeLast(): Promise<void> {
  const s = open.pop()!;
  await s.news?.close();
  s.db.close();
}
const snapshot = (s: Services) => ({
  stories: [...s.stories!.stories.keys()].sort(),
  updates: [...s.stories!.updates.keys()].sort(),
  members: [...s.stories!.members.entries()].map(([a, m]) => `${a}:${m.storyId}:${m.updateId}:${m.seq}`).sort(),
});

/** A story still active at the end of the corpus, with at least 3 articles (its updates expanded). */
async function recentStory(svc: TestService) {
  const list = (
    await stories(svc, {
      sort_by: 'published',
      limit: 20,
      expand_updates: true,
      max_updates: STORIES_LIMITS.listUpdates,
      max_articles: STORIES_LIMITS.listArticles,
    })
  ).list;
  return list.find((s) => s.n_articles.reduce((a, b) => a + b, 0) >= 3)!;
}

describe('incremental stories', () => {
  it('a restart keeps every story, update and membership and clusters nothing again', async () => {
    const dir = tempDir();
    dirs.push(dir);
    fs.copyFileSync(corpusStore, path.join(dir, 'service.duckdb'));
    const first = await openAt(dir);
    const before = snapshot(first);
    expect(before.stories.length).toBeGreaterThan(1000);
    expect(await first.stories!.ingest()).toBe(0);
    await closeLast();
    const again = await openAt(dir);
    expect(snapshot(again)).toEqual(before);
    expect(await again.stories!.ingest()).toBe(0);
    const rows = await again.db.all<{ n: bigint }>('SELECT count(*) AS n FROM story_update_articles');
    expect(Number(rows[0]!.n)).toBe(before.members.length);
  });

  it('articles the store holds without a story (e.g. clustered by an older version) are clustered at start, the rest untouched', async () => {
    const dir = tempDir();
    dirs.push(dir);
    fs.copyFileSync(corpusStore, path.join(dir, 'service.duckdb'));
    const first = await openAt(dir);
    const ordered = [...first.stories!.members.entries()].sort((a, b) => a[1].seq - b[1].seq);
    // forget the newest 50 memberships (and stories/updates nothing else refers to)
    await first.db.run(`DELETE FROM story_update_articles WHERE seq >= (SELECT max(seq) - 49 FROM story_update_articles)`);
    await first.db.run('DELETE FROM story_updates WHERE update_id NOT IN (SELECT update_id FROM story_update_articles)');
    await first.db.run('DELETE FROM stories WHERE story_id NOT IN (SELECT story_id FROM story_update_articles)');
    await closeLast();
    const again = await openAt(dir);
    const st = again.stories!;
    const forgotten = ordered.slice(-50);
    const kept = ordered.slice(0, -50);
    // what the store held is untouched: every kept article in its story and update, at its seq
    for (const [id, m] of kept) expect(st.members.get(id)).toEqual(m);
    // the forgotten articles are clustered at start, after the rest
    const lastKept = kept[kept.length - 1]![1].seq;
    for (const [id] of forgotten) expect(st.members.get(id)?.seq).toBeGreaterThan(lastKept);
    // most come back to the story they had: clustered with the rest, a few reached their story
    // through a piece founded in the same batch, which they now meet merged (see cluster.ts)
    const back = forgotten.filter(([id, m]) => st.members.get(id)!.storyId === m.storyId).length;
    console.log(`forgotten memberships: ${forgotten.length}, back in the same story: ${back}`);
    expect(back).toBeGreaterThanOrEqual(40);
    // every story with a kept article keeps its id
    for (const [, m] of kept) expect(st.stories.has(m.storyId)).toBe(true);
  });

  it('articles released by a replay join their story as a new update', async () => {
    // replay needs a clock that moves: the corpus clock, running from now on
    const t0 = Date.now();
    svc = await startStoriesService({ clock: () => NOW + (Date.now() - t0) });
    const seeder = svc.services.seeder!;
    const st = svc.services.stories!;
    // a story still active at the end of the corpus, and headlines of it published 13-15 hours after its last one
    const target = await recentStory(svc);
    const arts = target.updates.flatMap((u) => u.cluster_articles);
    const last = Math.max(...arts.map((a) => Date.parse(a.pub_date)));
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'headlines-replay.json');
    const rows = arts.slice(0, 3).map((a, i) => ({
      title: a.title,
      domain: 'replay.example.org',
      link: `https://replay.example.org/story/${i}`,
      category: 'news',
      timestamp: Math.floor((last + (13 + i) * HOUR) / 1000),
      sentiment: 0,
      published: '',
    }));
    rows.push({
      title: 'Llama sanctuary on the far side of the Moon opens its gift shop',
      domain: 'replay.example.org',
      link: 'https://replay.example.org/other',
      category: 'news',
      timestamp: Math.floor((last + 14 * HOUR) / 1000),
      sentiment: 0,
      published: '',
    });
    fs.writeFileSync(file, JSON.stringify(rows));
    const updatesBefore = target.update_uuids.length;
    const storiesBefore = st.stories.size;
    // two hours of news at 36,000x: released within a fraction of a second, in publication order
    await seeder.seed(file, { replay: 36_000 });
    const now = await waitUntil(
      async () => {
        const body = (await story(svc!, target.uuid, { condense_auxillary_updates: false, max_updates: 1000, max_articles: 1000 })).body;
        return seeder.pendingCount === 0 && body.n_articles.reduce((a, b) => a + b, 0) >= arts.length + 3 && body;
      },
      { what: 'the replayed articles in the story', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(seeder.pendingCount).toBe(0);
    expect(now.uuid).toBe(target.uuid);
    expect(now.update_uuids.slice(0, updatesBefore)).toEqual(target.update_uuids);
    expect(now.update_uuids.length).toBeGreaterThan(updatesBefore);
    const fresh = now.updates.filter((u) => !target.update_uuids.includes(u.uuid));
    const joined = fresh.flatMap((u) => u.cluster_articles.map((a) => a.article_url));
    expect(joined.sort()).toEqual(
      rows
        .slice(0, 3)
        .map((r: { link: string }) => r.link)
        .sort(),
    );
    expect(now.current_update_uuid).toBe(fresh[0]!.uuid);
    // the unrelated headline founded a story of its own, which is not surfaced
    expect(st.stories.size).toBe(storiesBefore + 1);
    const other = await sql<{ s: string }>(
      svc,
      `SELECT m.story_id::VARCHAR AS s FROM story_update_articles m JOIN articles a USING (article_id) WHERE a.article_url = 'https://replay.example.org/other'`,
    );
    expect(other).toHaveLength(1);
    expect((await story(svc, other[0]!.s)).status).toBe(404);
    // and it is all in the store
    const stored = await sql<{ n: bigint }>(
      svc,
      `SELECT count(*) AS n FROM story_update_articles m JOIN articles a USING (article_id) WHERE a.domain_url = 'replay.example.org'`,
    );
    expect(Number(stored[0]!.n)).toBe(4);
  });

  it('a story whose founding article left the index (past a retention) still takes new articles, as later updates', async () => {
    const t0 = Date.now();
    svc = await startStoriesService({ clock: () => NOW + (Date.now() - t0) });
    const st = svc.services.stories!;
    const news = svc.services.news!;
    const target = await recentStory(svc);
    expect(target).toBeDefined();
    const rec = st.stories.get(target.uuid)!;
    // the founding article is not in the index, as after a restart past the retention (a saved
    // index keeps live documents only, and a load skips articles past it): a sweep marks it gone,
    // and the index's id map no longer knows it
    expect(news.index.remove(rec.foundingId)).toBe(true);
    (news.index as unknown as { byId: Map<string, number> }).byId.delete(rec.foundingId);
    expect(news.index.get(rec.foundingId)).toBeUndefined();
    const arts = target.updates.flatMap((u) => u.cluster_articles);
    const last = Math.max(...arts.map((a) => Date.parse(a.pub_date)));
    const dir = tempDir();
    dirs.push(dir);
    const file = path.join(dir, 'headlines-after-retention.json');
    const rows = arts.slice(0, 2).map((a, i) => ({
      title: a.title,
      domain: 'later.example.org',
      link: `https://later.example.org/story/${i}`,
      category: 'news',
      timestamp: Math.floor((last + (25 + i) * HOUR) / 1000),
      sentiment: 0,
      published: '',
    }));
    fs.writeFileSync(file, JSON.stringify(rows));
    const windowsBefore = Math.max(...rec.updates.keys());
    // the stored id of a replayed row, once it is in the index
    const idOfUrl = (url: string) => news.index.views.find((v) => !v.gone && v.a.url === url)?.a.articleId ?? '';
    await svc.services.seeder!.seed(file, { replay: 36_000 });
    await waitUntil(() => svc!.services.seeder!.pendingCount === 0 && rows.every((r) => st.members.has(idOfUrl(r.link))), {
      what: 'the new articles in a story',
      timeoutMs: 20_000,
      intervalMs: 100,
    });
    for (const r of rows) {
      const m = st.members.get(idOfUrl(r.link))!;
      expect(m.storyId).toBe(target.uuid);
      // published a day after the story's last article: a later window than any it had
      expect(st.updates.get(m.updateId)!.windowIndex).toBeGreaterThan(windowsBefore);
    }
  });
});

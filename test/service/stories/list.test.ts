/** GET /v1/stories: every query parameter of spec/stories.ts `StoriesQuery` checked against the stories' own data. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORIES_LIMITS, STORY_CATEGORIES, ValidationErrorModel } from '../../../spec/index.js';
import type { TestService } from '../../helpers/service.js';
import { allStories, HOUR, NOW, requestedOf, startStoriesService, stories, type Story, type StoryUpdate } from '../../helpers/stories.js';

let svc: TestService;
/** every surfaced story with all its updates and articles (as many as the list's bounds give: the test stories have fewer) */
let full: Story[];
beforeAll(async () => {
  svc = await startStoriesService();
  full = await allStories(svc, { expand_updates: true, max_updates: STORIES_LIMITS.listUpdates, max_articles: STORIES_LIMITS.listArticles });
});
afterAll(async () => svc?.stop());

const ids = (list: Story[]) => list.map((s) => s.uuid);
const sorted = (xs: string[]) => [...xs].sort();
const articlesOf = (s: Story) => s.updates.flatMap((u) => u.cluster_articles);
const tsOf = (s: Story) => requestedOf(s).story_update_ts;
const growth = (s: Story) => articlesOf(s).filter((a) => Date.parse(a.pub_date) > NOW - 24 * HOUR && Date.parse(a.pub_date) <= NOW).length;

describe('GET /v1/stories', () => {
  it('lists every story of 2+ articles once, newest first, with its newest update', async () => {
    expect(full.length).toBe(svc.services.stories!.surfaced().length);
    expect(new Set(ids(full)).size).toBe(full.length);
    for (const s of full) {
      expect(s.n_articles.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThanOrEqual(2);
      expect(s.updates.length).toBe(s.n_updates);
      expect(s.updates.map((u) => u.uuid)).toEqual([...s.update_uuids].reverse());
      expect(articlesOf(s).length).toBe(s.n_articles.reduce((a: number, b: number) => a + b, 0));
    }
    const r = await stories(svc);
    expect(r.status).toBe(200);
    expect(r.list).toHaveLength(10);
    expect(r.body.offset).toBe(10);
    for (const s of r.list) {
      expect(s.updates).toHaveLength(1);
      expect(s.requested_update_uuid).toBe(s.current_update_uuid);
      expect(s.updates[0]!.cluster_articles.length).toBeLessThanOrEqual(5);
    }
    const times = r.list.map(tsOf);
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(ids(r.list)).toEqual(ids(full).slice(0, 10));
  });

  it('limit and offset: pages never overlap and join into the full ranking; a uuid offset continues after that story', async () => {
    const seen: string[] = [];
    let offset: number | string = 0;
    for (let page = 0; page < 5; page++) {
      const r = await stories(svc, { limit: 7, offset });
      expect(r.list).toHaveLength(7);
      for (const id of ids(r.list)) expect(seen).not.toContain(id);
      seen.push(...ids(r.list));
      expect(r.body.offset).toBe((page + 1) * 7);
      offset = r.body.offset;
    }
    expect(seen).toEqual(ids(full).slice(0, 35));
    const after = await stories(svc, { limit: 7, offset: seen[6]! });
    expect(ids(after.list)).toEqual(seen.slice(7, 14));
    expect(after.body.offset).toBe(14);
    const tail = await stories(svc, { limit: 100, offset: full.length - 3 });
    expect(tail.list).toHaveLength(3);
    expect(tail.body.offset).toBe(full.length);
  });

  it('query with method kw returns exactly the stories whose articles use the word, best first', async () => {
    const hits = await allStories(svc, { query: 'omicron', method: 'kw' });
    const expected = full.filter((s) => articlesOf(s).some((a) => /omicron/i.test(`${a.title} ${a.summary}`)));
    expect(expected.length).toBeGreaterThan(5);
    expect(sorted(ids(hits))).toEqual(sorted(ids(expected)));
    // the requested update is one that matches
    for (const s of (await stories(svc, { query: 'omicron', method: 'kw', limit: 20, max_articles: STORIES_LIMITS.listArticles })).list) {
      expect(requestedOf(s).cluster_articles.some((a) => /omicron/i.test(`${a.title} ${a.summary}`))).toBe(true);
    }
    // relevance order differs from recency: the default sort with a query is relevance
    const first = (await stories(svc, { query: 'omicron', method: 'kw', limit: 5 })).list;
    const rel = (await stories(svc, { query: 'omicron', method: 'kw', limit: 5, sort_by: 'relevance' })).list;
    expect(ids(first)).toEqual(ids(rel));
  });

  it('query with method nl matches by meaning; similarity_score_threshold only removes stories', async () => {
    const q = { query: 'new coronavirus variant detected in southern Africa', method: 'nl' };
    const loose = await allStories(svc, { ...q, similarity_score_threshold: 0.6 });
    const strict = await allStories(svc, {
      ...q,
      similarity_score_threshold: 0.72,
      expand_updates: true,
      max_updates: STORIES_LIMITS.listUpdates,
      max_articles: STORIES_LIMITS.listArticles,
    });
    expect(loose.length).toBeGreaterThan(strict.length);
    expect(strict.length).toBeGreaterThan(0);
    for (const id of ids(strict)) expect(ids(loose)).toContain(id);
    expect((await stories(svc, { ...q, similarity_score_threshold: 0.999 })).list).toHaveLength(0);
    // what the strict threshold keeps is about the variant
    for (const s of strict) expect(articlesOf(s).some((a) => /omicron|variant/i.test(a.title))).toBe(true);
  });

  it('method both fuses kw and nl: its stories come from either list and include the head of each', async () => {
    const q = { query: 'truckers blockade border crossing', similarity_score_threshold: 0.6 };
    const kw = await allStories(svc, { ...q, method: 'kw' });
    const nl = await allStories(svc, { ...q, method: 'nl' });
    const both = await allStories(svc, { ...q, method: 'both' });
    expect(kw.length).toBeGreaterThan(0);
    expect(nl.length).toBeGreaterThan(0);
    const either = new Set([...ids(kw), ...ids(nl)]);
    expect(both.length).toBe(either.size);
    for (const id of ids(both)) expect(either.has(id)).toBe(true);
    // reciprocal rank fusion (k = 60) of the two rankings, ties by uuid
    const fused = new Map<string, number>();
    for (const list of [kw, nl]) ids(list).forEach((id, i) => fused.set(id, (fused.get(id) ?? 0) + 1 / (60 + i + 1)));
    const expected = [...fused.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id]) => id);
    expect(ids(both)).toEqual(expected);
  });

  it.each(['Sports', 'Health', 'Technology'])('categories=%s returns exactly the stories of that category', async (cat) => {
    const got = await allStories(svc, { categories: cat });
    expect(got.length).toBeGreaterThan(0);
    for (const s of got) expect(s.categories).toContain(cat);
    expect(sorted(ids(got))).toEqual(sorted(ids(full.filter((s) => s.categories.includes(cat)))));
  });

  it('uuids returns just those stories', async () => {
    const pick = [full[3]!.uuid, full[50]!.uuid, full[400]!.uuid];
    const r = await stories(svc, { uuids: pick });
    expect(sorted(ids(r.list))).toEqual(sorted(pick));
  });

  it('start_timestamp / end_timestamp select stories by their updates; the requested update is the newest in range', async () => {
    const start = Date.parse('2022-06-24T00:00:00Z') / 1000;
    const end = Date.parse('2022-06-26T00:00:00Z') / 1000;
    const got = await allStories(svc, { start_timestamp: start, end_timestamp: end });
    const inRange = (u: StoryUpdate) => u.story_update_ts >= start && u.story_update_ts <= end;
    const expected = full.filter((s) => s.updates.some(inRange));
    expect(expected.length).toBeGreaterThan(10);
    expect(sorted(ids(got))).toEqual(sorted(ids(expected)));
    const byId = new Map(full.map((s) => [s.uuid, s]));
    for (const s of got) {
      expect(inRange(requestedOf(s))).toBe(true);
      const newest = byId.get(s.uuid)!.updates.filter(inRange)[0]!;
      expect(s.requested_update_uuid).toBe(newest.uuid);
    }
    const onlyStart = await allStories(svc, { start_timestamp: Date.parse('2022-07-10T00:00:00Z') / 1000 });
    for (const s of onlyStart) expect(tsOf(s)).toBeGreaterThanOrEqual(Date.parse('2022-07-10T00:00:00Z') / 1000);
  });

  const keyOf: Record<string, (s: Story) => number> = {
    published: tsOf,
    coverage: (s) => s.n_articles.reduce((a: number, b: number) => a + b, 0),
    sentiment: (s) => s.sentiment[s.update_uuids.indexOf(s.requested_update_uuid)]!,
    confidence: (s) => requestedOf(s).confidence,
  };
  it.each(
    Object.keys(keyOf).flatMap((k) => [
      [k, 'desc'],
      [k, 'asc'],
    ]),
  )('sort_by=%s sort_type=%s orders the stories by that value (ties by uuid)', async (by, dir) => {
    const page = (await stories(svc, { sort_by: by, sort_type: dir, limit: 100 })).list;
    const page2 = (await stories(svc, { sort_by: by, sort_type: dir, limit: 100, offset: 100 })).list;
    const all = [...page, ...page2];
    expect(all).toHaveLength(200);
    const k = keyOf[by]!;
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [k(all[i - 1]!), k(all[i]!)];
      if (dir === 'desc') expect(a).toBeGreaterThanOrEqual(b);
      else expect(a).toBeLessThanOrEqual(b);
      if (a === b) expect(all[i - 1]!.uuid < all[i]!.uuid).toBe(true);
    }
  });
  it('sort_by=relevance without a query falls back to published', async () => {
    const a = await stories(svc, { sort_by: 'relevance', limit: 20 });
    const b = await stories(svc, { sort_by: 'published', limit: 20 });
    expect(ids(a.list)).toEqual(ids(b.list));
  });

  it('continent (one or a list) selects stories by the continent of their updates', async () => {
    const asia = await allStories(svc, { continent: 'Asia' });
    expect(asia.length).toBeGreaterThan(0);
    for (const s of asia) expect(requestedOf(s).continent).toBe('Asia');
    expect(sorted(ids(asia))).toEqual(sorted(ids(full.filter((s) => s.updates.some((u) => u.continent === 'Asia')))));
    const two = await allStories(svc, { continent: ['Africa', 'Oceania'] });
    expect(two.length).toBeGreaterThan(0);
    for (const s of two) expect(['Africa', 'Oceania']).toContain(requestedOf(s).continent);
    expect(sorted(ids(two))).toEqual(sorted(ids(full.filter((s) => s.updates.some((u) => ['Africa', 'Oceania'].includes(u.continent))))));
  });

  it('provocative selects stories by the provocative level of their updates; all is no filter', async () => {
    const medium = await allStories(svc, { provocative: 'medium' });
    expect(medium.length).toBeGreaterThan(0);
    for (const s of medium) expect(requestedOf(s).provocative).toBe('medium');
    expect(sorted(ids(medium))).toEqual(sorted(ids(full.filter((s) => s.updates.some((u) => u.provocative === 'medium')))));
    expect((await allStories(svc, { provocative: 'all' })).length).toBe(full.length);
  });

  it('expand_updates, max_updates and max_articles shape each story', async () => {
    const big = full
      .filter((s) => s.n_updates >= 4)
      .slice(0, 5)
      .map((s) => s.uuid);
    const r = await stories(svc, { uuids: big, expand_updates: true, max_updates: 3, max_articles: 2 });
    for (const s of r.list) {
      expect(s.updates).toHaveLength(3);
      expect(s.updates.map((u) => u.uuid)).toEqual([...s.update_uuids].reverse().slice(0, 3));
      for (const u of s.updates) {
        expect(u.cluster_articles.length).toBe(Math.min(2, u.n_articles));
        expect(u.prompt_articles.length).toBeLessThanOrEqual(2);
      }
    }
    const flat = await stories(svc, { uuids: big, expand_updates: false, max_updates: 3, max_articles: 0 });
    for (const s of flat.list) {
      expect(s.updates).toHaveLength(1);
      expect(s.updates[0]!.cluster_articles).toEqual([]);
    }
  });

  it('obj_type story_update returns one result per matching update, each its own requested update', async () => {
    const start = Date.parse('2022-07-08T00:00:00Z') / 1000;
    const end = Date.parse('2022-07-09T00:00:00Z') / 1000;
    const got = await allStories(svc, { obj_type: 'story_update', start_timestamp: start, end_timestamp: end });
    const expected = full.flatMap((s) => s.updates.filter((u) => u.story_update_ts >= start && u.story_update_ts <= end).map((u) => u.uuid));
    expect(got.length).toBe(expected.length);
    expect(sorted(got.map((s) => s.requested_update_uuid))).toEqual(sorted(expected));
    for (const s of got) {
      expect(s.updates[0]!.uuid).toBe(s.requested_update_uuid);
      expect(s.updates[0]!.story_uuid).toBe(s.uuid);
    }
    expect(new Set(got.map((s) => s.uuid)).size).toBeLessThan(got.length); // stories with several updates that day
    // a uuid offset for update results continues after that update
    const firstPage = (await stories(svc, { obj_type: 'story_update', start_timestamp: start, end_timestamp: end, limit: 5 })).list;
    const next = await stories(svc, {
      obj_type: 'story_update',
      start_timestamp: start,
      end_timestamp: end,
      limit: 5,
      offset: firstPage[4]!.requested_update_uuid,
    });
    expect(next.list.map((s) => s.requested_update_uuid)).toEqual(got.slice(5, 10).map((s) => s.requested_update_uuid));
  });

  it('reddit threads need a paid plan; the service has no forum data, so threads are empty', async () => {
    const free = await stories(svc, { reddit: 2 }, svc.keys.personal);
    expect(free.status).toBe(403);
    expect(free.body.code).toBe(403000);
    expect((await stories(svc, { reddit: 0 }, svc.keys.personal)).status).toBe(200);
    const paid = await stories(svc, { reddit: 2, limit: 3 }, svc.keys.analyst);
    expect(paid.status).toBe(200);
    for (const s of paid.list) {
      expect(s.updates[0]!.reddit_threads).toEqual([]);
      expect(s.reddit_sentiment).toEqual([]);
    }
  });

  it('citation_method: brackets, urls or none in the story text and markdown_citations', async () => {
    const q = { uuids: full.slice(0, 5).map((s) => s.uuid) };
    const br = (await stories(svc, { ...q, citation_method: 'brackets' })).list;
    for (const s of br) {
      const u = s.updates[0]!;
      expect(u.story).toMatch(/\[1\]/);
      expect(u.markdown_citations.length).toBeGreaterThan(0);
      u.markdown_citations.forEach((c: string, i: number) => expect(c.startsWith(`[${i + 1}]: [`)).toBe(true));
      const urls = u.cluster_articles.map((a) => a.article_url);
      for (const c of u.markdown_citations) expect(urls.some((x: string) => c.endsWith(`(${x})`)) || u.n_articles > u.cluster_articles.length).toBe(true);
    }
    for (const s of (await stories(svc, { ...q, citation_method: 'urls' })).list) {
      expect(s.updates[0]!.story).toMatch(/\]\(https?:\/\//);
      expect(s.updates[0]!.story).not.toMatch(/\[\d+\]/);
      for (const c of s.updates[0]!.markdown_citations) expect(c).toMatch(/^\[.*\]\(https?:\/\/.*\)$/);
    }
    for (const s of (await stories(svc, { ...q, citation_method: 'none' })).list) {
      expect(s.updates[0]!.story).not.toMatch(/\[\d+\]|\]\(http/);
      expect(s.updates[0]!.markdown_citations).toEqual([]);
      expect(s.updates[0]!.story.length).toBeGreaterThan(0);
    }
  });

  it('strategy topstories: stories that grew in the last 24 hours, fastest first', async () => {
    const top = await allStories(svc, { strategy: 'topstories' });
    const growing = full.filter((s) => growth(s) > 0);
    expect(growing.length).toBeGreaterThan(5);
    expect(sorted(ids(top))).toEqual(sorted(ids(growing)));
    const byId = new Map(full.map((s) => [s.uuid, s]));
    const g = top.map((s) => growth(byId.get(s.uuid)!));
    expect(g).toEqual([...g].sort((a, b) => b - a));
  });

  it('strategy topstories_categories / topstories_continents: the fastest-growing story of each group', async () => {
    const byId = new Map(full.map((s) => [s.uuid, s]));
    const cats = (await stories(svc, { strategy: 'topstories_categories', limit: 100 })).list;
    expect(cats.length).toBeGreaterThan(0);
    expect(cats.length).toBeLessThanOrEqual(STORY_CATEGORIES.length);
    expect(new Set(ids(cats)).size).toBe(cats.length);
    for (const c of STORY_CATEGORIES) {
      const grew = full.some((s) => s.categories.includes(c) && growth(s) > 0);
      expect(cats.some((s) => s.categories.includes(c))).toBe(grew);
    }
    for (const s of cats) expect(growth(byId.get(s.uuid)!)).toBeGreaterThan(0);
    const conts = (await stories(svc, { strategy: 'topstories_continents', limit: 100 })).list;
    expect(conts.length).toBeGreaterThan(0);
    const seen = conts.map((s) => requestedOf(s).continent);
    expect(new Set(seen).size).toBe(conts.length);
    // each one is the fastest-growing story of its continent
    for (const s of conts) {
      const rivals = full.filter((x) => requestedOf(x).continent === requestedOf(s).continent);
      expect(growth(byId.get(s.uuid)!)).toBe(Math.max(...rivals.map(growth)));
    }
  });

  it.each([
    ['sort_by', 'newest'],
    ['sort_type', 'up'],
    ['method', 'semantic'],
    ['obj_type', 'article'],
    ['strategy', 'viral'],
    ['citation_method', 'footnotes'],
    ['provocative', 'extreme'],
    ['continent', 'Atlantis'],
    ['categories', 'Gossip'],
    ['limit', '0'],
    ['limit', '101'],
    ['uuids', 'not-a-uuid'],
    ['expand_updates', 'maybe'],
  ])('%s=%s is a 422 naming the parameter', async (name, value) => {
    const r = await stories(svc, { [name]: value });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(ValidationErrorModel.parse(r.body).detail[0]!.loc.slice(0, 2)).toEqual(['query', name]);
  });
});

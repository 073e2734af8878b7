/** GET /v1/stories/{story_id}: by story uuid, update uuid or url-safe title, and its query parameters (spec/stories.ts `StoryQuery`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoryResponse } from '../../../spec/index.js';
import type { TestService } from '../../helpers/service.js';
import { allStories, requestedOf, startStoriesService, stories, story, type Story, type StoryArticle } from '../../helpers/stories.js';

let svc: TestService;
/** a story with several updates, some of them of a single article */
let many: Story;
beforeAll(async () => {
  svc = await startStoriesService();
  const list = await allStories(svc, { sort_by: 'coverage' });
  const found = list.find((s) => s.n_updates >= 5 && s.n_articles.some((n) => n === 1) && s.n_articles.some((n) => n >= 2));
  if (!found) throw new Error('no story of 5+ updates with updates of one and of several articles in the seeded corpus');
  many = found;
});
afterAll(async () => svc?.stop());

const total = (s: Story) => s.n_articles.reduce((a, b) => a + b, 0);

describe('GET /v1/stories/{story_id}', () => {
  it('the same story by its uuid, by an update uuid and by a url-safe title', async () => {
    const plain = { condense_auxillary_updates: false };
    const byId = await story(svc, many.uuid, plain);
    expect(byId.status).toBe(200);
    expect(StoryResponse.safeParse(byId.body).success).toBe(true);
    expect(byId.body.requested_update_uuid).toBe(byId.body.current_update_uuid);
    const middle = byId.body.update_uuids[2]!;
    const byUpdate = await story(svc, middle, plain);
    expect(byUpdate.status).toBe(200);
    expect(byUpdate.body.uuid).toBe(many.uuid);
    expect(byUpdate.body.update_uuids).toEqual(byId.body.update_uuids);
    expect(byUpdate.body.requested_update_uuid).toBe(middle);
    const slug = requestedOf(byUpdate.body).url_safe_title;
    expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    const bySlug = await story(svc, slug, plain);
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.uuid).toBe(many.uuid);
    expect(bySlug.body.requested_update_uuid).toBe(middle);
    expect(bySlug.body.update_uuids).toEqual(byId.body.update_uuids);
    // case does not matter for ids
    expect((await story(svc, many.uuid.toUpperCase(), plain)).body.uuid).toBe(many.uuid);
  });

  it('url-safe titles are unique across stories and updates', async () => {
    const all = await allStories(svc, { expand_updates: true, max_updates: 10_000, max_articles: 0 });
    const slugs = all.flatMap((s) => s.updates.map((u) => u.url_safe_title));
    expect(new Set(slugs).size).toBe(slugs.length);
  });

  it('an unknown id, update or title is a 404 with the error body; so is a story of one article', async () => {
    for (const id of ['00000000-0000-5000-8000-000000000000', 'no-such-story-title-1234abcd']) {
      const r = await story(svc, id);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe(404000);
      expect(r.body.detail).toContain(id);
    }
    const single = [...svc.services.stories!.stories.values()].find((s) => s.articleIds.length === 1)!;
    expect((await story(svc, single.id)).status).toBe(404);
  });

  it('defaults: updates expanded (10 newest), 25 articles each, auxiliary updates condensed', async () => {
    const r = await story(svc, many.uuid);
    expect(r.body.updates.length).toBe(Math.min(10, r.body.n_updates));
    expect(r.body.updates.map((u) => u.uuid)).toEqual([...r.body.update_uuids].reverse().slice(0, 10));
    for (const u of r.body.updates) expect(u.cluster_articles.length).toBe(Math.min(25, u.n_articles));
  });

  it('condense_auxillary_updates merges updates of one article into a neighbour, keeping every article', async () => {
    const raw = (await story(svc, many.uuid, { condense_auxillary_updates: false, max_updates: 1000, max_articles: 1000 })).body;
    const dense = (await story(svc, many.uuid, { condense_auxillary_updates: true, max_updates: 1000, max_articles: 1000 })).body;
    expect(raw.n_articles.some((n) => n === 1)).toBe(true);
    expect(dense.n_articles.every((n) => n >= 2)).toBe(true);
    expect(dense.n_updates).toBeLessThan(raw.n_updates);
    expect(total(dense)).toBe(total(raw));
    const ids = (s: Story) => s.updates.flatMap((u) => u.article_ids).sort();
    expect(ids(dense)).toEqual(ids(raw));
    // merged updates keep the uuid of an original update; each original maps into exactly one
    for (const id of dense.update_uuids) expect(raw.update_uuids).toContain(id);
    // asking for a merged-away update resolves to the update that holds its articles
    const gone = raw.updates.find((u) => !dense.update_uuids.includes(u.uuid))!;
    const via = (await story(svc, gone.uuid)).body;
    expect(requestedOf(via).article_ids).toEqual(expect.arrayContaining(gone.article_ids));
  });

  it('expand_updates false shows only the requested update; max_updates and max_articles cap', async () => {
    const one = (await story(svc, many.uuid, { expand_updates: false })).body;
    expect(one.updates).toHaveLength(1);
    expect(one.updates[0]!.uuid).toBe(one.requested_update_uuid);
    const capped = (await story(svc, many.uuid, { max_updates: 2, max_articles: 1, condense_auxillary_updates: false })).body;
    expect(capped.updates).toHaveLength(2);
    for (const u of capped.updates) expect(u.cluster_articles).toHaveLength(1);
    // an older requested update is kept among the shown ones
    const old = capped.update_uuids[0]!;
    const withOld = (await story(svc, old, { max_updates: 2, condense_auxillary_updates: false })).body;
    expect(withOld.updates.map((u) => u.uuid)).toContain(old);
    expect(withOld.updates).toHaveLength(2);
  });

  it('citation_method and reddit as in the list', async () => {
    const none = (await story(svc, many.uuid, { citation_method: 'none' })).body;
    for (const u of none.updates) expect(u.markdown_citations).toEqual([]);
    const br = (await story(svc, many.uuid, { citation_method: 'brackets' })).body;
    for (const u of br.updates) expect(u.story).toContain('[1]');
    expect((await story(svc, many.uuid, { reddit: 1 }, svc.keys.personal)).status).toBe(403);
    expect((await story(svc, many.uuid, { reddit: 1 }, svc.keys.analyst)).status).toBe(200);
    expect((await story(svc, many.uuid, { max_updates: -1 })).status).toBe(422);
  });

  it('a story response describes its articles', async () => {
    const s = (await story(svc, many.uuid, { max_updates: 1000, max_articles: 1000, condense_auxillary_updates: false })).body;
    const arts = s.updates.flatMap((u) => u.cluster_articles);
    const count = (f: (a: StoryArticle) => string) => arts.reduce((m: Record<string, number>, a) => ({ ...m, [f(a)]: (m[f(a)] ?? 0) + 1 }), {});
    expect(s.sources_urls).toEqual(count((a) => a.domain_url));
    expect(s.countries).toEqual(count((a) => a.country));
    expect(s.languages).toEqual(count((a) => a.language));
    expect(Object.values(s.countries_pct).reduce((a, b) => a + b, 0)).toBeCloseTo(100, 0);
    expect(s.sentiment_timestamps).toEqual([...s.updates].reverse().map((u) => u.story_update_ts));
    expect(s.updated_ts).toBe(Math.max(...s.sentiment_timestamps));
    for (const u of s.updates) {
      const times = u.cluster_articles.map((a) => Date.parse(a.pub_date) / 1000);
      expect(u.story_update_ts).toBe(Math.floor(Math.max(...times)));
      expect(s.sentiment[s.update_uuids.indexOf(u.uuid)]).toBe(Math.round(u.cluster_articles.reduce((a, x) => a + x.sentiment, 0) / u.n_articles) || 0);
      expect(u.headline).toBe(u.cluster_articles[0]!.title);
      expect(new URL(u.image_url).protocol).toBe('https:');
      expect(u.article_ids).toEqual(u.cluster_articles.map((a) => a.article_id));
      for (const id of u.article_ids) expect(u.intra_cluster_statistics.cluster_probabilities[id]).toBeGreaterThan(0);
      for (const e of u.relationships.edges) {
        const ids = u.relationships.nodes.map((n) => n.id);
        expect(ids).toContain(e.from);
        expect(ids).toContain(e.to);
      }
      expect(u.mermaid.startsWith('graph LR')).toBe(true);
      expect(u.story_uuid).toBe(s.uuid);
    }
    // the same story through the list
    const listed = (await stories(svc, { uuids: [s.uuid] })).list[0]!;
    expect(listed.update_uuids).toEqual(s.update_uuids);
  });
});

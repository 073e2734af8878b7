/**
 * Real stories of the seeded corpus as a strict client sees them: no key the spec does not name;
 * story graph nodes are {id, type, detailed_type} (spec/stories.ts `StoryRelationships`), the article graph keeps ner_type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoriesResponse } from '../../../spec/index.js';
import type { TestService } from '../../helpers/service.js';
import { allStories, startStoriesService, stories, type Story } from '../../helpers/stories.js';
import { search } from '../../helpers/news.js';
import { strictValidator } from '../../helpers/strict-schema.js';
import { STORIES_LIMITS } from '../../../spec/index.js';

let svc: TestService;
let all: Story[];
beforeAll(async () => {
  svc = await startStoriesService();
  all = await allStories(svc, { expand_updates: true, max_updates: STORIES_LIMITS.listUpdates, max_articles: 2 });
});
afterAll(async () => svc?.stop());

describe('story graphs over the seeded corpus', () => {
  it('every story update graph node has exactly the keys id, type and detailed_type (no ner_type)', () => {
    const nodes = all.flatMap((s) => s.updates.flatMap((u) => u.relationships.nodes));
    expect(nodes.length).toBeGreaterThan(50);
    for (const n of nodes) expect(Object.keys(n).sort()).toEqual(['detailed_type', 'id', 'type']);
  });
  it("every page of stories passes a strict client's schema of StoriesResponse (no extra keys anywhere)", async () => {
    const validate = strictValidator(StoriesResponse);
    for (let offset = 0; offset < all.length; offset += 100) {
      const r = await stories(svc, { expand_updates: true, max_updates: STORIES_LIMITS.listUpdates, max_articles: 2, limit: 100, offset });
      expect(r.status).toBe(200);
      expect(validate(r.body)).toEqual([]);
    }
  });
  it('the article entity relation graph still carries ner_type on its nodes', async () => {
    const r = await search(svc, { query: 'Zelensky Kyiv', historical: true, n_articles: 5, return_graphs: true }, svc.keys.analyst);
    expect(r.status).toBe(200);
    const nodes = r.dicts.flatMap((d) => d.entity_relation_graph?.nodes ?? []);
    expect(nodes.length).toBeGreaterThan(0);
    for (const n of nodes) expect(Object.keys(n).sort()).toEqual(['detailed_type', 'id', 'ner_type', 'type']);
  });
});

/** Stories' `reddit` parameter returns the forum threads about an update, for plans that have it. */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStoriesService, stories, story } from '../../helpers/stories.js';
import { tempDir, type TestService } from '../../helpers/service.js';
import { writeNdjson } from '../../helpers/forum.js';
import { threadIdOf } from '../../../service/forum/read.js';

let svc: TestService;
let dir: string;
let storyId: string;
let headline: string;
beforeAll(async () => {
  svc = await startStoriesService();
  dir = tempDir('newsflow-forum-stories-');
  const list = await stories(svc, { limit: 1, sort_by: 'coverage', sort_type: 'desc' });
  storyId = list.list[0]!.uuid;
  headline = (await story(svc, storyId)).body.updates[0]!.headline;
  // one thread about the story (its headline as title), one about nothing in the news
  const lines = [
    {
      id: 'st1',
      title: headline,
      selftext: `Discussion thread: ${headline}. What do you all think will happen next?`,
      author: 'newsjunkie',
      score: 512,
      created_utc: 1657000000,
      num_comments: 1,
      subreddit: 'worldnews',
    },
    {
      id: 'st2',
      title: 'Best way to descale an espresso machine',
      selftext: 'Citric acid or vinegar for the boiler?',
      author: 'barista',
      score: 9,
      created_utc: 1657000000,
      num_comments: 0,
      subreddit: 'espresso',
    },
    { id: 'stc1', link_id: 't3_st1', author: 'skeptic', body: 'I doubt it changes much.', score: 40, created_utc: 1657000300 },
  ].map((o) => JSON.stringify(o));
  const r = await svc.services.forum!.load(writeNdjson(dir, 'RS_stories.ndjson', lines));
  expect(r.threads.inserted).toBe(2);
});
afterAll(async () => {
  await svc?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('stories reddit', () => {
  it('GET /v1/stories/{id}?reddit=2 returns the matching thread on a paid plan, with its perspective and sentiment series', async () => {
    const r = await story(svc, storyId, { reddit: 2 }, svc.keys.analyst);
    expect(r.status).toBe(200);
    const u = r.body.updates[0]!;
    expect(u.headline).toBe(headline);
    const ids = u.reddit_threads.map((t: { id: string }) => t.id);
    console.log(
      `stories reddit: "${headline}" -> ${u.reddit_threads.length} thread(s): ${u.reddit_threads.map((t: { title: string }) => t.title).join(' | ')}`,
    );
    expect(ids[0]).toBe(threadIdOf('reddit:st1'));
    expect(ids).not.toContain(threadIdOf('reddit:st2'));
    expect(u.reddit_threads[0]).toMatchObject({ author: 'newsjunkie', upvotes: 512, comments: [{ author: 'skeptic', upvotes: 40 }] });
    expect(u.reddit_perspective).toEqual({ sentiment: expect.any(Number), relevant: true, summary: u.reddit_threads[0]!.summary });
    expect(r.body.reddit_sentiment.length).toBeGreaterThan(0);
    expect(r.body.reddit_sentiment_timestamps).toContain(u.story_update_ts);
  });

  it('GET /v1/stories?reddit=1 fills reddit_threads of the listed stories; reddit=0 leaves them empty', async () => {
    const r = await stories(svc, { limit: 1, sort_by: 'coverage', sort_type: 'desc', reddit: 1 }, svc.keys.analyst);
    expect(r.status).toBe(200);
    expect(r.list[0]!.uuid).toBe(storyId);
    const shown = r.list[0]!.updates.find((x: { headline: string }) => x.headline === headline);
    expect(shown).toBeDefined();
    expect(shown!.reddit_threads.map((t: { id: string }) => t.id)).toEqual([threadIdOf('reddit:st1')]);
    const none = await stories(svc, { limit: 1, sort_by: 'coverage', sort_type: 'desc' }, svc.keys.analyst);
    expect(none.list[0]!.updates[0]!.reddit_threads).toEqual([]);
    expect(none.list[0]!.reddit_sentiment).toEqual([]);
  });

  it('a free plan asking for reddit threads gets 403', async () => {
    expect((await story(svc, storyId, { reddit: 2 }, svc.keys.personal)).status).toBe(403);
  });
});

/**
 * GET /v1/stories and GET /v1/stories/{story_id} (spec/stories.ts). Selection and ranking live in
 * service/stories/query.ts, the response shapes in service/stories/build.ts.
 *
 * Updates shown: with expand_updates false only the requested update; with true the newest
 * max_updates updates, newest first, always including the requested one. max_articles caps each
 * update's cluster_articles (prompt_articles are its three most central, within that cap).
 * `reddit` (paid plans) asks for up to that many forum threads per update: the threads of the
 * forum store about the update's headline and keywords (service/forum/store.ts `related`).
 */
import type { GroupHandlers, RequestCtx } from '../context.js';
import { notFound } from '../errors/index.js';
import { storyDict, type BuildOptions, type CitationMethod } from '../stories/build.js';
import { listStories, UpdateTextIndex } from '../stories/query.js';
import type { StoryService } from '../stories/service.js';
import { ranked, type UpdateSummary } from '../stories/summary.js';
import type { ForumService } from '../forum/service.js';
import type { RedditThread } from '../../spec/index.js';

const textIndexes = new WeakMap<StoryService, UpdateTextIndex>();
function textIndex(s: StoryService): UpdateTextIndex {
  let t = textIndexes.get(s);
  if (!t) textIndexes.set(s, (t = new UpdateTextIndex(s)));
  return t;
}

const storiesOf = (ctx: RequestCtx) => ctx.services.stories!;

/** The forum threads of each update, looked up once per response. */
function redditOf(forum: ForumService | undefined, n: number): BuildOptions['reddit'] {
  if (!forum || n <= 0) return undefined;
  const seen = new Map<string, RedditThread[]>();
  return (u) => {
    let t = seen.get(u.id);
    if (!t)
      seen.set(
        u.id,
        (t = forum.related(
          u.headline,
          ranked(
            u.articles.map((a) => a.keywords),
            8,
          ),
          n,
        )),
      );
    return t;
  };
}

function buildOptions(s: StoryService, maxArticles: number, citation: CitationMethod, reddit?: BuildOptions['reddit']): BuildOptions {
  return { maxArticles, citation, df: s.df, windowStats: (from, to) => s.windowStats(from, to), reddit };
}

/** The updates a response shows, newest first (see the file comment). */
function shownUpdates(all: UpdateSummary[], requested: UpdateSummary, expand: boolean, max: number): UpdateSummary[] {
  if (!expand) return [requested];
  const newestFirst = [...all].reverse();
  const shown = newestFirst.slice(0, max);
  if (max > 0 && !shown.includes(requested)) {
    shown[shown.length - 1] = requested;
    shown.sort((a, b) => newestFirst.indexOf(a) - newestFirst.indexOf(b));
  }
  return shown;
}

export const storiesHandlers: GroupHandlers = {
  get_stories: async (ctx) => {
    const p = ctx.query;
    const s = storiesOf(ctx);
    const { hits, next, updateLevel } = await listStories(s, textIndex(s), p, ctx.services.news!.clock());
    const o = buildOptions(s, p.max_articles, p.citation_method, redditOf(ctx.services.forum, p.reddit));
    const stories = hits.map((h) => {
      // ["story", "story_update"]: the story's matching updates are the ones shown
      const pool = !updateLevel && p.obj_type.includes('story_update') ? h.matching : h.story.updates;
      return storyDict(
        h.story,
        h.update,
        shownUpdates(pool, h.update, p.expand_updates || (!updateLevel && p.obj_type.includes('story_update')), p.max_updates),
        o,
      );
    });
    return { stories, offset: next };
  },

  get_story: (ctx) => {
    const { story_id } = ctx.params;
    const q = ctx.query;
    const s = storiesOf(ctx);
    const found = s.resolve(story_id);
    if (!found) throw notFound(`no story, story update or url-safe title ${JSON.stringify(story_id)}`);
    let story = found.story;
    let requestedId = found.requested ?? story.updates[story.updates.length - 1]!.id;
    if (q.condense_auxillary_updates) {
      const c = s.condensed(story);
      story = c.story;
      requestedId = c.mapping.get(requestedId) ?? requestedId;
    }
    const requested = story.updates.find((u) => u.id === requestedId)!;
    return storyDict(
      story,
      requested,
      shownUpdates(story.updates, requested, q.expand_updates, q.max_updates),
      buildOptions(s, q.max_articles, q.citation_method, redditOf(ctx.services.forum, q.reddit)),
    );
  },
};

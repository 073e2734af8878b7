/** Helpers for the stories endpoints on the seeded corpus service. */
import type { StoriesResponse, StoryResponse } from '../../spec/index.js';
import { api, type TestService } from './service.js';
import { NOW, qs, startCorpusService, type Answered, type Query } from './news.js';

export { NOW };
export const HOUR = 3_600_000;

/** A story as the stories routes answer it (spec/stories.ts `StoryResponse`), its updates and their articles. */
export type Story = StoryResponse;
export type StoryUpdate = Story['updates'][number];
export type StoryArticle = StoryUpdate['cluster_articles'][number];

export function startStoriesService(opts: { clock?: () => number } = {}): Promise<TestService> {
  return startCorpusService({ ...opts, limitsText: 'news=1000:1000:50,stories=1000:1000:50' });
}

export async function stories(
  svc: TestService,
  q: Query = {},
  key = svc.keys.org!,
): Promise<{ status: number; body: Answered<StoriesResponse>; list: Story[] }> {
  const r = await api(svc.url, 'GET', `/v1/stories?${qs(q)}`, key);
  const body = r.body as Answered<StoriesResponse>;
  return { status: r.status, body, list: body?.stories ?? [] };
}

export async function story(svc: TestService, id: string, q: Query = {}, key = svc.keys.org!): Promise<{ status: number; body: Answered<Story> }> {
  const r = await api(svc.url, 'GET', `/v1/stories/${encodeURIComponent(id)}?${qs(q)}`, key);
  return { status: r.status, body: r.body as Answered<Story> };
}

/** Every result of a query, walking offset pages of 100. */
export async function allStories(svc: TestService, q: Query = {}): Promise<Story[]> {
  const out: Story[] = [];
  for (let offset = 0; ; ) {
    const r = await stories(svc, { ...q, limit: 100, offset });
    if (r.status !== 200) throw new Error(`GET /v1/stories answered ${r.status}: ${JSON.stringify(r.body)}`);
    out.push(...r.list);
    if (r.list.length < 100) return out;
    if (typeof r.body.offset !== 'number') throw new Error(`GET /v1/stories answered offset ${JSON.stringify(r.body.offset)} to a numeric offset`);
    offset = r.body.offset;
  }
}

/** The update a story result was selected for; a story that does not show it is an error. */
export function requestedOf(s: Story): StoryUpdate {
  const u = s.updates.find((x) => x.uuid === s.requested_update_uuid);
  if (!u) throw new Error(`story ${s.uuid} does not show its requested update ${s.requested_update_uuid}`);
  return u;
}

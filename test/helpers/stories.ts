/** Helpers for the stories endpoints on the seeded corpus service. */
import { api, type TestService } from './service.js';
import { NOW, qs, startCorpusService, type Query } from './news.js';

export { NOW };
export const HOUR = 3_600_000;

export function startStoriesService(opts: { clock?: () => number } = {}): Promise<TestService> {
  return startCorpusService({ ...opts, limitsText: 'news=1000:1000:50,stories=1000:1000:50' });
}

export async function stories(svc: TestService, q: Query = {}, key = svc.keys.org!): Promise<{ status: number; body: any; list: any[] }> {
  const r = await api(svc.url, 'GET', `/v1/stories?${qs(q)}`, key);
  return { status: r.status, body: r.body, list: r.body?.stories ?? [] };
}

export async function story(svc: TestService, id: string, q: Query = {}, key = svc.keys.org!): Promise<{ status: number; body: any }> {
  const r = await api(svc.url, 'GET', `/v1/stories/${encodeURIComponent(id)}?${qs(q)}`, key);
  return { status: r.status, body: r.body };
}

/** Every result of a query, walking offset pages of 100. */
export async function allStories(svc: TestService, q: Query = {}): Promise<any[]> {
  const out: any[] = [];
  for (let offset = 0; ; ) {
    const r = await stories(svc, { ...q, limit: 100, offset });
    if (r.status !== 200) throw new Error(`GET /v1/stories answered ${r.status}: ${JSON.stringify(r.body)}`);
    out.push(...r.list);
    if (r.list.length < 100) return out;
    offset = r.body.offset;
  }
}

/** The update a story result was selected for. */
export const requestedOf = (s: any) => s.updates.find((u: any) => u.uuid === s.requested_update_uuid);

/**
 * The seeded corpus service whose search answers carry a field the interface does not have (`foo`,
 * a string per article, when `foo` is on), and a log of the requests each key made: what the
 * schema-change and reprocess tests run against.
 */
import type { FastifyInstance } from 'fastify';
import { seededCorpusStore } from './corpus-store.js';
import { NOW } from './news.js';
import { startTestService, type TestService } from './service.js';

export interface FooService extends TestService {
  /** add `foo` to every article of a search answer */
  foo: { on: boolean };
  /** requests per Authorization header value (`Bearer <key>`) */
  requests: Map<string, number>;
  /** requests made with key `name` (svc.keys) */
  requestsOf: (name: string) => number;
}

export const fooOf = (articleId: string) => `foo-${articleId.slice(0, 8)}`;

export async function startFooService(): Promise<FooService> {
  const foo = { on: false };
  const requests = new Map<string, number>();
  const configure = (app: FastifyInstance) => {
    app.addHook('onRequest', async (req) => {
      const k = String(req.headers.authorization ?? '');
      requests.set(k, (requests.get(k) ?? 0) + 1);
    });
    app.addHook('onSend', async (req, _reply, payload) => {
      if (!foo.on || !req.url.startsWith('/v1/news/search') || typeof payload !== 'string') return payload;
      const body = JSON.parse(payload) as { as_dicts?: { article_id: string; foo?: string }[] };
      for (const a of body.as_dicts ?? []) a.foo = fooOf(a.article_id);
      return JSON.stringify(body);
    });
  };
  const svc = await startTestService({
    corpusStore: await seededCorpusStore(),
    clock: () => NOW,
    limitsText: 'news=1000:1000:50',
    configure,
    // the answers carry a field the interface does not have: the service's own check would refuse them
    validateResponses: false,
  });
  return Object.assign(svc, { foo, requests, requestsOf: (name: string) => requests.get(`Bearer ${svc.keys[name]}`) ?? 0 });
}

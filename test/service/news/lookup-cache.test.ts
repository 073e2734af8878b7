/**
 * Article lookups kept in memory (NewsStore.byIds without full text) never outlive a write:
 * every way the store writes the articles table (a statement, a transaction, the connection
 * used directly) is seen by the next lookup, through the store and through GET /v1/news/{id}
 * and GET /v1/news; an unknown id stays unknown until the table changes, then is found;
 * concurrent lookups (read together in one statement) each get their own article.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCorpusService } from '../../helpers/news.js';
import type { TestService } from '../../helpers/service.js';
import { api } from '../../helpers/service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => svc?.stop());

const title = async (id: string) => (await api(svc.url, 'GET', `/v1/news/${id}`, svc.keys.org)).body.title as string;

describe('article lookups kept in memory', () => {
  it('see every kind of write to the articles table at once', async () => {
    const store = svc.services.news!.store;
    const db = svc.services.db;
    const [a, b] = svc.services.news!.index.views.slice(0, 2).map((v) => v.a.articleId);
    const before = await title(a!);
    expect(before.length).toBeGreaterThan(0);
    expect(await title(a!)).toBe(before); // read twice: kept

    await db.run(`UPDATE articles SET title = 'by a statement' WHERE article_id = $1::UUID`, [a!]);
    expect(await title(a!)).toBe('by a statement');

    await db.tx(async (q) => q.run(`UPDATE articles SET title = 'in a transaction' WHERE article_id = $1::UUID`, [a!]));
    expect(await title(a!)).toBe('in a transaction');
    expect((await store.byIds([a!], false))[0]!.title).toBe('in a transaction');

    await db.withConnection((conn) => conn.run(`UPDATE articles SET title = 'on the connection' WHERE article_id = '${a}'::UUID`));
    expect(await title(a!)).toBe('on the connection');

    // the batch route too, in request order, an upper-case id included
    const many = await api(svc.url, 'GET', `/v1/news?article_ids=${b}&article_ids=${a!.toUpperCase()}&article_ids=${a}`, svc.keys.org);
    expect(many.status).toBe(200);
    expect(many.body.map((x: { article_id: string }) => x.article_id)).toEqual([b, a]);
    expect(many.body[1].title).toBe('on the connection');
  });

  it('an unknown id is 404 until the table holds it', async () => {
    const db = svc.services.db;
    const a = svc.services.news!.index.views[5]!.a.articleId;
    const ghost = '00000000-0000-4000-8000-00000000abcd';
    expect((await api(svc.url, 'GET', `/v1/news/${ghost}`, svc.keys.org)).status).toBe(404);
    expect((await api(svc.url, 'GET', `/v1/news/${ghost}`, svc.keys.org)).status).toBe(404);
    await db.run(`INSERT INTO articles SELECT * REPLACE ('${ghost}'::UUID AS article_id, 'risen' AS title) FROM articles WHERE article_id = $1::UUID`, [a]);
    const r = await api(svc.url, 'GET', `/v1/news/${ghost}`, svc.keys.org);
    expect(r.status).toBe(200);
    expect(r.body.title).toBe('risen');
  });

  it('concurrent lookups, read together, each get their own article (and an unknown id its 404)', async () => {
    const views = svc.services.news!.index.views;
    const ids = views.slice(100, 130).map((v) => v.a.articleId);
    const titles = new Map(views.slice(100, 130).map((v) => [v.a.articleId, v.a.title]));
    // a key of its own: the requests come at once (the test limits allow a burst of 50)
    const { key } = await svc.services.keys.createKey({ name: 'lookups', org: 'acme', scopes: ['news'] });
    const ghost = '00000000-0000-4000-8000-0000000dead0';
    const asked = [...ids, ghost, ...ids.slice(0, 5)];
    const got = await Promise.all(asked.map((id) => api(svc.url, 'GET', `/v1/news/${id}`, key)));
    got.forEach((r, i) => {
      if (asked[i] === ghost) return expect(r.status).toBe(404);
      expect(r.status).toBe(200);
      expect(r.body.article_id).toBe(asked[i]);
      expect(r.body.title).toBe(titles.get(asked[i]!));
    });
    // and through the store, in the order asked
    const direct = await Promise.all([ids.slice(0, 5), ids.slice(5, 9), [ghost, ids[20]!]].map((xs) => svc.services.news!.store.byIds(xs, false)));
    expect(direct.map((xs) => xs.map((a) => a.articleId))).toEqual([ids.slice(0, 5), ids.slice(5, 9), [ids[20]]]);
  });
});

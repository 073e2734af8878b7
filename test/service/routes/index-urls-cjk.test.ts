/**
 * POST /v1/news/index_urls on CJK pages a misconfigured server sends: gmw (a Chinese page of the
 * shared Readability set) served with no charset in its Content-Type and a `<meta charset>` first
 * in its head (and every other <meta>) declaring gb2312 while its bytes are UTF-8, and a Japanese article. Each is indexed with its real title,
 * and a kw search for part of that title finds it (the BM25 index reads CJK as bigrams).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { html, startPageServer, type PageServer } from '../../helpers/page-server.js';
import { pagesDir, waitForJob } from '../../helpers/readability-pages.js';

const GMW_TITLE = '宇航员在太空中喝酒会怎么样？后果很严重 _探索者 _光明网';
const JA_TITLE = '東京五輪の聖火リレー、福島から出発';
const jaPage = `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>${JA_TITLE}</title></head><body>
<header><a href="/">トップ</a></header><article><h1>${JA_TITLE}</h1>
${[
  '東京五輪の聖火リレーが二十五日、福島県のサッカー施設から出発した。',
  '最初の走者は、二〇一一年のワールドカップで優勝した女子日本代表のメンバーが務めた。',
  '新型コロナウイルスの感染対策のため、沿道での密集を避けるよう呼びかけられた。',
  'リレーは百二十一日間をかけて全国四十七都道府県を巡り、七月の開会式で国立競技場に到着する予定だ。',
  '組織委員会は、観客の人数を制限し、応援は拍手で行うよう求めている。',
  '地元の住民からは、震災からの復興を世界に伝える機会になるとの声が上がった。',
]
  .map((p) => `<p>${p}</p>`)
  .join('\n')}</article></body></html>`;

let svc: TestService;
let server: PageServer;
interface JobItem {
  url: string;
  status: string;
  article_id: string | null;
}
interface Article {
  article_id: string;
  title: string;
  full_text: string;
}
let job: { status: string; urls: JobItem[] };
const articles = new Map<string, Article>();

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  const gmw = fs
    .readFileSync(path.join(pagesDir, 'gmw', 'source.html'), 'utf8')
    .replaceAll('charset=utf-8', 'charset=gb2312')
    .replace('<head>', '<head><meta charset="gb2312">');
  server.routes.set('/gmw/', html(Buffer.from(gmw), 'text/html'));
  server.routes.set('/ja/', html(Buffer.from(jaPage), 'text/html'));
  svc = await startTestService();
  const r = await api(svc.url, 'POST', '/v1/news/index_urls', svc.keys.org, {
    start_time: '2000-01-01 00:00:00',
    end_time: `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19).replace('T', ' ')}+00:00`,
    urls: [{ url: `${server.origin}/gmw/` }, { url: `${server.origin}/ja/` }],
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  job = await waitForJob(() => api(svc.url, 'GET', `/v1/news/index_urls/${r.body.job_id}`, svc.keys.org!));
  for (const item of job.urls.filter((u) => u.status === 'indexed')) {
    const a = await api(svc.url, 'GET', `/v1/news/${item.article_id}?full_text=true`, svc.keys.org);
    expect(a.status).toBe(200);
    articles.set(new URL(item.url).pathname, a.body as Article);
  }
}, 300_000);

afterAll(async () => {
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

const kwFinds = async (query: string, articleId: string) => {
  const r = await api(svc.url, 'GET', `/v1/news/search?query=${encodeURIComponent(query)}&method=kw&n_articles=10`, svc.keys.org);
  expect(r.status).toBe(200);
  return (r.body.as_dicts as { article_id: string }[]).some((d) => d.article_id === articleId);
};

describe('index_urls on CJK pages', () => {
  it('indexes gmw, declared gb2312 over UTF-8 bytes with no header charset, with its real title and text', () => {
    expect(job.status, JSON.stringify(job.urls)).toBe('completed');
    const a = articles.get('/gmw/')!;
    expect(a.title).toBe(GMW_TITLE);
    expect(a.full_text).toContain('宇航员');
    expect(`${a.title}${a.full_text}`).not.toMatch(/[\ufffd\ue000-\uf8ff]/);
  });

  it('finds gmw by a kw search for its Chinese title, and for part of it', async () => {
    const id = articles.get('/gmw/')!.article_id;
    expect(await kwFinds(GMW_TITLE, id)).toBe(true);
    expect(await kwFinds('宇航员在太空中喝酒', id)).toBe(true);
  });

  it('indexes a Japanese article and finds it by part of its title', async () => {
    const a = articles.get('/ja/')!;
    expect(a.title).toBe(JA_TITLE);
    expect(await kwFinds('聖火リレー', a.article_id)).toBe(true);
    expect(await kwFinds('東京五輪 福島', a.article_id)).toBe(true);
  });
});

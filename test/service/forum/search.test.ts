/** Forum search over the 135 shared threads: keyword sets written by reading the threads find them first (kw and nl); sorts; time filters. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { qs } from '../../helpers/news.js';
import { forumStoreFile } from '../../helpers/forum.js';
import { hotRank } from '../../../service/forum/search.js';

const NOW = Date.parse('2022-11-01T00:00:00Z');
let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await forumStoreFile(), clock: () => NOW, limitsText: 'news=1000:1000:50' });
}, 600_000); // the first run builds the cached forum store: minutes on a busy machine
afterAll(async () => svc?.stop());

async function search(q: Record<string, string | number | boolean | string[]>) {
  const r = await api(svc.url, 'GET', `/v1/reddit/search?${qs({ return_type: 'dicts', time_filter: 'all', ...q })}`, svc.keys.org);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.as_dicts as { id: string; title: string; url: string; date: string; upvotes: number; comments_count: number }[];
}

/**
 * Each case: the thread (its file in the dataset), keywords for kw written from words of its body,
 * and a question in other words for nl.
 */
const CASES: { file: string; kw: string[]; nl: string }[] = [
  { file: 'LetsNotMeet/post_3.txt', kw: ['pizza', 'delivery', 'kidnapping'], nl: 'delivery driver stops an abduction' },
  { file: 'todayilearned/post_10.txt', kw: ['costco', 'hot dog', 'price'], nl: 'warehouse store kept its cheap frankfurter meal at the same cost for decades' },
  { file: 'FanTheories/post_8.txt', kw: ['hagrid', 'death eater'], nl: 'Harry Potter groundskeeper secretly serves Voldemort' },
  {
    file: 'IAmA/post_14.txt',
    kw: ['monopoly man', 'equifax', 'photobombed'],
    nl: 'activist in a top hat and monocle trolled a credit bureau CEO at a Senate hearing',
  },
  {
    file: 'talesfromtechsupport/post_3.txt',
    kw: ['text messages', 'consent', 'repair'],
    nl: "customer asked a repair shop to help read someone else's phone messages",
  },
  { file: 'explainlikeimfive/post_11.txt', kw: ['diamonds', 'lab', 'moissanite'], nl: 'why are natural gemstones worth more than synthetic ones' },
  { file: 'tifu/post_2.txt', kw: ['halogen', 'bulb', 'fan', 'bedroom'], nl: 'lived for years with a broken ceiling light' },
  { file: 'IDontWorkHereLady/post_13.txt', kw: ['doggie daycare', 'office', 'dogs'], nl: 'woman mistook our office for a place that looks after pets' },
  { file: 'todayilearned/post_14.txt', kw: ['microsoft', 'japan', 'workweek'], nl: 'four day work week trial raised productivity' },
  { file: 'IAmA/post_0.txt', kw: ['obama', 'president', 'ama'], nl: 'the US president answers questions from redditors' },
];

describe('forum search relevance', () => {
  it('10 keyword sets written by reading the threads find the intended thread first, kw and nl', async () => {
    const rows: string[] = [];
    const ranks: Record<'kw' | 'nl' | 'paraphrase', number[]> = { kw: [], nl: [], paraphrase: [] };
    for (const c of CASES) {
      for (const [kind, method, keywords] of [
        ['kw', 'kw', c.kw],
        ['nl', 'nl', c.kw],
        ['paraphrase', 'nl', [c.nl]],
      ] as const) {
        const got = await search({ keywords: [...keywords], method, n_threads: 10 });
        const rank = got.findIndex((t) => t.url.endsWith(`/data/${c.file}`)) + 1;
        ranks[kind].push(rank);
        rows.push(`${kind} ${c.file}: rank ${rank || 'not in top 10'} (${JSON.stringify(keywords)})`);
      }
    }
    const firsts = (m: keyof typeof ranks) => ranks[m].filter((r) => r === 1).length;
    const top3 = ranks.paraphrase.filter((r) => r >= 1 && r <= 3).length;
    console.log(
      `forum relevance: keyword sets first: kw ${firsts('kw')}/10, nl ${firsts('nl')}/10; nl paraphrases first ${firsts('paraphrase')}/10, top 3 ${top3}/10\n${rows.join('\n')}`,
    );
    expect(ranks.kw).toEqual(Array(10).fill(1));
    expect(ranks.nl).toEqual(Array(10).fill(1));
    // questions in other words than the thread's: most in the top 3 (figures printed above)
    expect(top3).toBeGreaterThanOrEqual(8);
  });

  it('the two paths answer the same', async () => {
    const q = qs({ keywords: ['pizza', 'kidnapping'], return_type: 'both', time_filter: 'all' });
    const a = await api(svc.url, 'GET', `/v1/reddit/search?${q}`, svc.keys.org);
    const b = await api(svc.url, 'GET', `/v1/forum/search?${q}`, svc.keys.org);
    expect(a.status).toBe(200);
    expect(b.body).toEqual(a.body);
  });
});

describe('sort and time_filter', () => {
  it('sort orders the matching threads by upvotes, date, comments and hot rank', async () => {
    const keywords = ['people'];
    const rel = await search({ keywords, n_threads: 200 });
    expect(rel.length).toBeGreaterThan(10);
    expect(rel.length).toBeLessThan(135);
    const top = await search({ keywords, n_threads: 200, sort: 'top' });
    const neu = await search({ keywords, n_threads: 200, sort: 'new' });
    const com = await search({ keywords, n_threads: 200, sort: 'comments' });
    const hot = await search({ keywords, n_threads: 200, sort: 'hot' });
    for (const list of [top, neu, com, hot]) expect(new Set(list.map((t) => t.id))).toEqual(new Set(rel.map((t) => t.id)));
    const desc = (xs: number[]) => xs.every((x, i) => i === 0 || xs[i - 1]! >= x);
    expect(desc(top.map((t) => t.upvotes))).toBe(true);
    expect(desc(neu.map((t) => Date.parse(t.date)))).toBe(true);
    expect(desc(com.map((t) => t.comments_count))).toBe(true);
    expect(desc(hot.map((t) => hotRank(t.upvotes, Date.parse(t.date))))).toBe(true);
    expect(neu.map((t) => t.id)).not.toEqual(rel.map((t) => t.id));
  });

  it('time_filter keeps threads dated within the span before the service clock; the default is day', async () => {
    const all = await search({ keywords: ['the'], n_threads: 200, method: 'nl' });
    expect(all).toHaveLength(135);
    for (const [tf, span] of [
      ['week', 7],
      ['month', 30],
      ['year', 365],
    ] as const) {
      const got = await search({ keywords: ['the'], n_threads: 200, method: 'nl', time_filter: tf });
      const want = all.filter((t) => Date.parse(t.date) >= NOW - span * 86_400_000);
      expect(got.map((t) => t.id).sort(), tf).toEqual(want.map((t) => t.id).sort());
      if (tf === 'month') expect(got.length).toBeLessThan(135);
    }
    const def = await api(svc.url, 'GET', `/v1/reddit/search?${qs({ keywords: ['the'], method: 'nl', return_type: 'dicts', n_threads: 200 })}`, svc.keys.org);
    const day = all.filter((t) => Date.parse(t.date) >= NOW - 86_400_000);
    expect(def.body.as_dicts.map((t: { id: string }) => t.id).sort()).toEqual(day.map((t) => t.id).sort());
  });

  it('n_threads caps the answer', async () => {
    expect(await search({ keywords: ['people'], n_threads: 3 })).toHaveLength(3);
    expect(await search({ keywords: ['people'] })).toHaveLength(5);
  });
});

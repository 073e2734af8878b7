/**
 * POST /v1/news/graph on the seeded corpus, its capability URLs (the page drawn by a real headless
 * Chromium, the CSV of triples) and its refusals; the build runs in a graph thread, and a build
 * past its time budget answers 503 with {code, detail}, its thread replaced.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCorpusService } from '../../helpers/news.js';
import { api, tempDir, type TestService } from '../../helpers/service.js';
import { repoRoot } from '../../helpers/paths.js';
import { countColour, readPng } from '../../helpers/png.js';
import { chromium } from '../../helpers/chromium.js';
import { graphThreads } from '../../../service/graph/thread.js';

interface Node {
  id: string;
  type: string;
  detailed_type: string;
  ner_type: string;
  aliases: string[];
  sources: number;
  latitude?: number;
  longitude?: number;
}
interface Edge {
  from: string;
  to: string;
  label: string;
  weight: number;
  sources: string[];
}
interface Dis {
  canonical: string;
  aliases: string[];
  method: string;
  probability: number;
  applied: boolean;
  reason?: string;
  evidence: Record<string, unknown>;
}

let svc: TestService;
beforeAll(async () => {
  svc = await startCorpusService();
});
afterAll(async () => {
  await svc?.stop();
});

/** Before the invasion, when the corpus' headlines are about talks, warnings and troop build-ups. */
const WINDOW = { start_timestamp: Date.parse('2021-11-15T00:00:00Z') / 1000, end_timestamp: Date.parse('2022-02-24T00:00:00Z') / 1000 };
const graph = (body: Record<string, unknown>, key = svc.keys.org) => api(svc.url, 'POST', '/v1/news/graph', key, body);
const talks = (extra: Record<string, unknown> = {}) => graph({ query: 'Ukraine Russia talks', filter_params: WINDOW, ...extra });
const nodesOf = (b: { full_graph: { nodes: Node[] } }) => new Map(b.full_graph.nodes.map((n) => [n.id, n]));

describe('POST /v1/news/graph', () => {
  it('builds the graph of "Ukraine Russia talks": the people and countries named, "Putin" merged into "Vladimir Putin", edges labelled by verbs', async () => {
    const r = await talks({ return_articles: true });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const nodes = nodesOf(r.body);
    for (const country of ['Ukraine', 'Russia', 'United States', 'Belarus']) {
      expect(nodes.get(country), country).toMatchObject({ type: 'Location', detailed_type: 'Country', ner_type: 'LOC' });
    }
    expect(nodes.get('Vladimir Putin')).toMatchObject({ type: 'Person', ner_type: 'PER' });
    expect(nodes.get('Vladimir Putin')!.aliases).toContain('Putin');
    expect(nodes.has('Putin')).toBe(false);
    expect([...nodes.values()].filter((n) => n.type === 'Person').map((n) => n.id)).toEqual(expect.arrayContaining(['Vladimir Putin', 'Biden', 'Macron']));
    expect(nodes.get('NATO')).toMatchObject({ type: 'Organization' });
    // "US" and "United States" are one place (gazetteer), "Nato" and "NATO" one spelling
    expect(nodes.get('United States')!.aliases).toContain('US');
    const dis = r.body.disambiguations as Dis[];
    const putin = dis.find((d) => d.canonical === 'Vladimir Putin' && d.aliases.includes('Putin'))!;
    expect(putin).toMatchObject({ method: 'alias', applied: true });
    expect(putin.probability).toBeGreaterThanOrEqual(0.9);
    expect(putin.evidence.full_name_sources).toBeGreaterThanOrEqual(1);
    expect(dis.find((d) => d.canonical === 'United States')).toMatchObject({ method: 'gazetteer', applied: true });

    const edges = r.body.full_graph.edges as Edge[];
    for (const e of edges) expect(nodes.has(e.from) && nodes.has(e.to), `${e.from} -> ${e.to}`).toBe(true);
    const labelled = edges.filter((e) => e.label !== 'co-occurs');
    expect(labelled.length).toBeGreaterThan(10);
    expect(edges.find((e) => e.from === 'Biden' && e.to === 'Vladimir Putin' && /hold talks|warn/.test(e.label))).toBeTruthy();
    expect(edges.find((e) => e.from === 'Russia' && e.to === 'Ukraine' && /invade/.test(e.label))).toBeTruthy();
    const ru = edges.find((e) => e.label === 'co-occurs' && [e.from, e.to].sort().join() === 'Russia,Ukraine')!;
    expect(ru.weight).toBeGreaterThanOrEqual(10);
    expect(ru.weight).toBeGreaterThanOrEqual(edges[edges.length - 1]!.weight);

    const articles = r.body.articles as { article_id: string; pub_date: string }[];
    expect(articles).toHaveLength(50);
    for (const a of articles) expect(Date.parse(a.pub_date) / 1000).toBeGreaterThanOrEqual(WINDOW.start_timestamp);
    const ids = new Set(articles.map((a) => a.article_id));
    expect(ru.sources.every((s) => ids.has(s))).toBe(true);
    expect(r.body.query).toBe('Ukraine Russia talks');
    expect(r.body.triples_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/news\/graph\/[0-9a-f-]{36}\/triples$/);
    expect(r.body.visualize_url).toBeNull();
    expect((await talks()).body.articles).toBeNull();
  });

  it('honours constrained_disambiguations: a split keeps "Putin" and "Vladimir Putin" apart, a merge joins "Kremlin" into "Russia"', async () => {
    const r = await talks({
      constrained_disambiguations: [
        { action: 'split', entities: ['Putin', 'Vladimir Putin'] },
        { action: 'merge', entities: ['Kremlin', 'Russia'], canonical: 'Russia', type: 'Location' },
      ],
    });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const nodes = nodesOf(r.body);
    expect(nodes.get('Putin')).toMatchObject({ type: 'Person' });
    expect(nodes.get('Vladimir Putin')).toMatchObject({ type: 'Person' });
    expect(nodes.get('Vladimir Putin')!.aliases).not.toContain('Putin');
    expect(nodes.has('Kremlin')).toBe(false);
    expect(nodes.get('Russia')!.aliases).toContain('Kremlin');
    const dis = r.body.disambiguations as Dis[];
    expect(dis.find((d) => d.canonical === 'Vladimir Putin' && d.aliases.includes('Putin'))).toMatchObject({
      applied: false,
      reason: 'split by constrained_disambiguations',
    });
    expect(dis.find((d) => d.method === 'constrained')).toMatchObject({ canonical: 'Russia', applied: true, probability: 1 });
    // the edges follow the nodes
    expect((r.body.full_graph.edges as Edge[]).some((e) => e.from === 'Putin' || e.to === 'Putin')).toBe(true);
  });

  it('min_cluster_probability drops the weaker merges: at 1 no alias is merged, and each is listed with its reason', async () => {
    const r = await talks({ min_cluster_probability: 1 });
    expect(r.status).toBe(200);
    const nodes = nodesOf(r.body);
    expect(nodes.has('Putin')).toBe(true);
    const putin = (r.body.disambiguations as Dis[]).find((d) => d.canonical === 'Vladimir Putin' && d.aliases.includes('Putin'))!;
    expect(putin.applied).toBe(false);
    expect(putin.reason).toMatch(/below min_cluster_probability 1/);
  });

  it('geo_disambiguation gives places the gazetteer coordinates', async () => {
    const plain = nodesOf((await talks()).body);
    expect(plain.get('Ukraine')!.latitude).toBeUndefined();
    const geo = nodesOf((await talks({ geo_disambiguation: true })).body);
    expect(geo.get('Ukraine')!.latitude).toBeCloseTo(49, 0);
    expect(geo.get('Ukraine')!.longitude).toBeCloseTo(32, 0);
    expect(geo.get('Russia')!.latitude).toBeCloseTo(60, 0);
  });

  it('docs_upload documents join the graph as sources', async () => {
    const text = 'Volodymyr Zelensky met Emmanuel Macron in Kyiv on Monday. Zelensky thanked France for its support against Russia.';
    const r = await talks({ docs_upload: [{ id: 'memo-1', title: 'Zelensky meets Macron', text }] });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    const nodes = nodesOf(r.body);
    expect(nodes.get('Volodymyr Zelensky')).toMatchObject({ type: 'Person' });
    expect(nodes.get('Emmanuel Macron')!.aliases).toContain('Macron');
    const edges = r.body.full_graph.edges as Edge[];
    expect(edges.some((e) => e.sources.includes('memo-1') && e.from === 'Volodymyr Zelensky' && e.to === 'Emmanuel Macron' && e.label === 'met')).toBe(true);
    expect(r.body.docs_enhanced).toEqual([
      expect.objectContaining({
        id: 'memo-1',
        title: 'Zelensky meets Macron',
        entities: expect.arrayContaining(['Volodymyr Zelensky', 'Emmanuel Macron', 'Kyiv']),
      }),
    ]);
  });

  it('visualize_url serves a page that headless Chromium draws with cytoscape, without a key (screenshot in .tmp/graph/)', async () => {
    const r = await talks({ visualize_with: 'html' });
    expect(r.status).toBe(200);
    const url = r.body.visualize_url as string;
    expect(url).toMatch(/\/v1\/news\/graph\/[0-9a-f-]{36}\/view$/);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'nonce-/);
    const html = await page.text();
    expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"' ]*\.js/); // no CDN
    const script = await fetch(new URL('/v1/news/graph/assets/cytoscape.min.js', url));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);

    const nNodes = r.body.full_graph.nodes.length as number;
    const outDir = path.join(repoRoot, '.tmp', 'graph');
    fs.mkdirSync(outDir, { recursive: true });
    const png = path.join(outDir, 'ukraine-russia-talks.png');
    fs.rmSync(png, { force: true });
    const profile = tempDir('newsflow-chromium-');
    // asynchronous: the service answering Chromium runs in this process
    const draw = (extra: string[]) => chromium(url, ['--virtual-time-budget=20000', ...extra], { profile, windowSize: '1400,900' });
    try {
      const dom = await draw(['--dump-dom']);
      expect(dom.status, dom.stderr.slice(-500)).toBe(0);
      // one drawn edge per pair of entities
      const pairs = new Set((r.body.full_graph.edges as Edge[]).map((e) => [e.from, e.to].sort().join('|'))).size;
      expect(dom.stdout).toContain(`<title>graph drawn: ${nNodes} nodes, ${pairs} edges</title>`);
      expect(dom.stdout).toMatch(new RegExp(`data-drawn="${nNodes}"`));
      expect(dom.stdout).toMatch(/<canvas/);
      const shot = await draw([`--screenshot=${png}`]);
      expect(shot.status, shot.stderr.slice(-500)).toBe(0);
    } finally {
      fs.rmSync(profile, { recursive: true, force: true });
    }
    const img = readPng(fs.readFileSync(png));
    expect([img.width, img.height]).toEqual([1400, 900]);
    // below the header: the nodes in their type colours (Location blue, Person red), not a blank page
    expect(countColour(img, [0x3b, 0x5b, 0xdb], 12, 40)).toBeGreaterThan(2000);
    expect(countColour(img, [0xe4, 0x57, 0x2e], 12, 40)).toBeGreaterThan(300);
  }, 180_000);

  it('triples_url serves the edges as CSV, without a key', async () => {
    const r = await talks();
    const res = await fetch(r.body.triples_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('from,label,to,weight,from_type,to_type,sources');
    const edges = r.body.full_graph.edges as Edge[];
    expect(lines).toHaveLength(edges.length + 1);
    const [from, label, to, weight, fromType, toType] = lines[1]!.split(',');
    expect({ from, label, to, weight: Number(weight), fromType, toType }).toEqual({
      from: edges[0]!.from,
      label: edges[0]!.label,
      to: edges[0]!.to,
      weight: edges[0]!.weight,
      fromType: 'Location',
      toType: 'Location',
    });
    expect(lines.some((l) => l.startsWith('Biden,') && l.includes(',Vladimir Putin,'))).toBe(true);
  });

  it('an unknown or expired graph id is 404 on both capability URLs; a malformed one is 422', async () => {
    for (const kind of ['view', 'triples']) {
      const unknown = await api(svc.url, 'GET', `/v1/news/graph/${crypto.randomUUID()}/${kind}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ code: 404000 });
      expect((await api(svc.url, 'GET', `/v1/news/graph/not-a-graph/${kind}`)).status).toBe(422);
    }
    const expired = await svc.services.graph!.store.save({ nodes: [], edges: [] }, { query: 'old', keyId: null, ttlMs: -1 });
    expect((await api(svc.url, 'GET', `/v1/news/graph/${expired.graphId}/triples`)).status).toBe(404);
    expect((await api(svc.url, 'GET', `/v1/news/graph/${expired.graphId}/view`)).status).toBe(404);
    const live = await svc.services.graph!.store.save({ nodes: [], edges: [] }, { query: 'new', keyId: null });
    expect((await api(svc.url, 'GET', `/v1/news/graph/${live.graphId}/triples`)).status).toBe(200);
    expect((await api(svc.url, 'GET', '/v1/news/graph/assets/other.js')).status).toBe(422);
  });

  it('refuses unknown fields, min_cluster_probability outside 0..1 and other bad input with a 422 naming the field', async () => {
    const unknown = await graph({ query: 'x', min_cluster_probabilty: 0.5 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body'], type: 'value_error.extra' });
    expect(unknown.body.detail[0].msg).toContain('min_cluster_probabilty');
    for (const v of [1.5, -0.1]) {
      const r = await graph({ min_cluster_probability: v });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(['body', 'min_cluster_probability']);
    }
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ min_cluster_probability: 'high' }, ['body', 'min_cluster_probability']],
      [{ visualize_with: 'svg' }, ['body', 'visualize_with']],
      [{ constrained_disambiguations: [{ action: 'merge' }] }, ['body', 'constrained_disambiguations', 0, 'entities']],
      [{ constrained_disambiguations: [{ action: 'join', entities: ['a'] }] }, ['body', 'constrained_disambiguations', 0, 'action']],
      [{ docs_upload: [{ title: 'no text' }] }, ['body', 'docs_upload', 0, 'text']],
      [{ filter_params: { n_articles: 1000 } }, ['body', 'filter_params', 'n_articles']],
      [{ filter_params: { languages: ['xx'] } }, ['body', 'filter_params', 'languages', 0]],
    ];
    for (const [body, loc] of cases) {
      const r = await graph(body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.code).toBe(422000);
      expect(
        r.body.detail.map((d: { loc: unknown[] }) => d.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
    }
    expect((await api(svc.url, 'POST', '/v1/news/graph', undefined, {})).status).toBe(401);
  });
});

describe('POST /v1/news/graph builds in a graph thread, within a time budget', () => {
  const names = 'Vladimir Putin met Joe Biden, Xi Jinping and Emmanuel Macron.';
  const long = `${names}${' and Vladimir Putin with Joe Biden'.repeat(3000)}`.slice(0, 100_000);

  it('the graph comes from a graph thread, not from the event loop', async () => {
    const r = await talks({ docs_upload: [{ id: 'memo-1', text: names }] });
    expect(r.status, r.text.slice(0, 500)).toBe(200);
    expect(graphThreads().threads.length).toBeGreaterThan(0);
    expect(nodesOf(r.body).get('Xi Jinping')).toMatchObject({ type: 'Person' });
  });

  it('past its budget: 503 {code, detail} naming the budget and what to send, the thread terminated and replaced; the next build answers 200', async () => {
    const budget = svc.services.graph!.budget;
    const before = budget.buildTimeoutMs;
    // a thread ready first, so the budget (from when a thread takes the build) is spent on the build
    await talks({ docs_upload: [{ text: names }] });
    const threads = graphThreads().threads;
    budget.buildTimeoutMs = 1;
    let over: Awaited<ReturnType<typeof graph>>;
    try {
      over = await talks({ docs_upload: [{ text: long }] });
    } finally {
      budget.buildTimeoutMs = before;
    }
    console.log(`a build over a budget of 1 ms: ${over.status} ${over.text}`);
    expect(over.status).toBe(503);
    expect(over.body).toEqual({
      code: 503000,
      detail:
        "building the graph took longer than its budget of 1 ms (this server's NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS) and was stopped: send fewer or shorter docs_upload, or fewer articles (filter_params.n_articles)",
    });
    // the thread that held it is gone
    expect(graphThreads().threads.filter((t) => threads.includes(t)).length).toBeLessThan(threads.length);
    const again = await talks({ docs_upload: [{ id: 'memo-2', text: names }] });
    expect(again.status, again.text.slice(0, 500)).toBe(200);
    expect(again.body.docs_enhanced[0].entities).toEqual(expect.arrayContaining(['Vladimir Putin', 'Joe Biden']));
    // an upload without a title: its people as named (it once read ". Vladimir Putin", the title's empty sentence before it)
    expect(again.body.docs_enhanced[0].entity_types.Person).toEqual(['Vladimir Putin', 'Joe Biden', 'Xi Jinping', 'Emmanuel Macron']);
  });
});

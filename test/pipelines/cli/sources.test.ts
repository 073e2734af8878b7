/**
 * `newsflow sources add|list|remove|test` as a user runs them (the CLI in a child process): `test`
 * on each of the 56 shared feed files served on loopback prints its items and exits 0, and exits 1
 * naming a broken feed; `add`/`remove` manage run-time sources in the warehouse; `list` shows their
 * health after a poll.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NewsClient } from '../../../client/index.js';
import { Warehouse } from '../../../warehouse/warehouse.js';
import { SourceStore } from '../../../warehouse/sources.js';
import { FeedPoller } from '../../../activities/feed-poll.js';
import { runCli } from '../../helpers/cli.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { startFeedServer, type FeedServer } from '../../helpers/feed-server.js';
import { parseFetchAllow } from '../../../lib/fetch/policy.js';

let server: FeedServer;
const env = { NEWSFLOW_FETCH_ALLOW: '127.0.0.1' };

beforeAll(async () => {
  server = await startFeedServer({ extras: true, stages: 1 });
}, 120_000);
afterAll(async () => server?.close());

describe('newsflow sources test', () => {
  it('prints what it would index from each of the 56 shared feed files, and exits 0', async () => {
    const r = await runCli(['sources', 'test', '--delay', '0', ...server.feeds.map((f) => f.url)], env);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const heads = r.out.split('\n').filter((l) => l.startsWith('http'));
    expect(heads).toHaveLength(56);
    const index = server.feed('sitemap/washingtonpost-news-sitemap-index.xml');
    for (const f of server.feeds) {
      const head = heads.find((h) => h.startsWith(`${f.url}: `))!;
      expect(head, f.file).toBeDefined();
      if (f === index) {
        expect(head).toMatch(/^\S+: sitemapindex, utf-8 \(default\), HTTP 200, \d+ bytes; would index \d+ items$/);
        continue;
      }
      expect(head, f.file).toMatch(new RegExp(`would index ${f.items.length} items?$`));
      // each item: its date, title and link
      for (const i of f.items) expect(r.out, `${f.file}: ${i.url}`).toContain(`${i.title || '(no title)'}  ${i.url}`);
    }
    // the characters of non-UTF-8 feeds come out right
    expect(r.out).toContain('В Бузулуке главные стройплощадки – детсад и Ледовый дворец');
    expect(r.out).toContain('建国35周年纪念，华表，和平鸽');
  }, 300_000);

  it('exits 1 naming each broken feed and why, and still prints the good ones', async () => {
    const good = server.feed('rss2/guardian-us.rss').url;
    const r = await runCli(['sources', 'test', '--delay', '0', server.extras.truncated!, good, server.extras.utf16!, server.extras.private!], env);
    expect(r.code).toBe(1);
    const errors = r.err.trim().split('\n');
    expect(errors[0]).toMatch(new RegExp(`^error: ${server.extras.truncated}: failed \\(not_well_formed\\): not well-formed XML at line \\d+, column \\d+`));
    expect(errors[1]).toMatch(new RegExp(`^error: ${server.extras.utf16}: failed \\(not_well_formed\\)`));
    expect(errors[2]).toMatch(new RegExp(`^error: ${server.extras.private}: disallowed \\(robots\\)`));
    expect(errors.at(-1)).toBe(`error: 3 of 4 feeds cannot be read: ${server.extras.truncated}, ${server.extras.utf16}, ${server.extras.private}`);
    expect(r.out).toMatch(new RegExp(`^${good}: rss "The Guardian"`, 'm'));
  }, 120_000);
});

describe('newsflow sources test on a hostile feed', () => {
  it('prints no terminal escape (raw or as &#27;), and reads 100,000 `<` of content_text in linear time', async () => {
    server.hook.set('/hostile-escapes.json', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/feed+json' }).end(
        JSON.stringify({
          version: 'https://jsonfeed.org/version/1.1',
          title: 'Esc \u001b[2J\u001b]0;owned\u0007 &#27;[31mfeed \u009b31m',
          items: [
            { id: '1', url: `${server.origin}/esc-item`, title: 'Item \u001b[5mblink&#x1b;[0m', content_text: '<'.repeat(100_000) },
            { id: '2', url: `${server.origin}/lt-item`, content_text: '<'.repeat(100_000) },
          ],
        }),
      );
      return true;
    });
    const t0 = Date.now();
    const r = await runCli(['sources', 'test', '--delay', '0', `${server.origin}/hostile-escapes.json`], env);
    console.log(`sources test on the hostile feed: exit ${r.code} in ${Date.now() - t0} ms:\n${r.out}`);
    expect(r.code).toBe(0);
    // eslint-disable-next-line no-control-regex -- what must not be printed
    expect(r.out + r.err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.out).toContain('"Esc [2J]0;owned [31mfeed 31m"');
    expect(r.out).toContain('Item [5mblink[0m');
  }, 120_000);
});

describe('newsflow sources add, list, remove', () => {
  let svc: TestService;
  const dir = tempDir('newsflow-sources-');
  beforeAll(async () => {
    svc = await startTestService({ limitsText: 'news=1000:1000:100' });
  }, 120_000);
  afterAll(async () => svc?.stop());

  it('adds sources, shows their health after a poll, and removes the ones it added', async () => {
    const guardian = server.feed('rss2/guardian-us.rss').url;
    const a = await runCli(['sources', 'add', guardian, '--name', 'guardian', '--every', '15m', '--tag', 'world', 'uk', '--warehouse', dir], env);
    expect(a).toMatchObject({ code: 0, out: `added source guardian: ${guardian}\n` });
    const b = await runCli(['sources', 'add', server.extras.truncated!, '--warehouse', dir], env);
    expect(b.code).toBe(0);
    const name = /added source (\S+):/.exec(b.out)![1]!;
    expect(name).toBe('127.0.0.1-broken-truncated');
    // a file-declared source is the project file's to change
    const wh = await Warehouse.open(dir);
    await new SourceStore(wh).declare(
      [{ source: 'from-file', url: server.feed('atom/heise-developer.atom').url, language: null, tags: [], pollIntervalS: null }],
      'file',
      Date.now(),
    );
    // one poll of all three, through a service
    const client = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org! });
    process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
    const poller = new FeedPoller({ client, warehouse: wh, delayMs: 0, fetch: { policy: parseFetchAllow('127.0.0.1') } });
    const { batches } = await poller.due({ at: Date.now() });
    for (const [i, s] of batches.entries()) await poller.pollBatch({ batchId: `cli-test/${i}`, at: Date.now(), sources: s });
    await poller.close();
    await client.close();
    wh.close();
    delete process.env.NEWSFLOW_FETCH_ALLOW;

    const list = await runCli(['sources', 'list', '--json', '--warehouse', dir], env);
    expect(list.code).toBe(0);
    const rows = list.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const by = Object.fromEntries(rows.map((r) => [r.source, r]));
    expect(by.guardian).toMatchObject({
      status: 'ok',
      kind: 'rss',
      origin: 'cli',
      fails: 0,
      seen: server.feed('rss2/guardian-us.rss').items.length,
      every: '15m',
    });
    expect(by[name]).toMatchObject({ status: 'failing', origin: 'cli', fails: 1 });
    expect(String(by[name]!.last_error)).toMatch(/^not_well_formed: not well-formed XML/);
    expect(by['from-file']).toMatchObject({ status: 'ok', kind: 'atom', origin: 'file' });
    const text = await runCli(['sources', 'list', '--warehouse', dir], env);
    expect(text.out.split('\n')[0]).toMatch(/^source\s+status\s+kind\s+origin\s+last_success\s+fails\s+per_day\s+seen\s+every\s+next_poll\s+url\s+last_error$/);

    const refused = await runCli(['sources', 'remove', 'from-file', '--warehouse', dir], env);
    expect(refused).toMatchObject({ code: 1, err: 'error: source "from-file" is declared in the project file; remove it there\n' });
    expect(await runCli(['sources', 'remove', 'guardian', '--warehouse', dir], env)).toMatchObject({ code: 0, out: 'removed source guardian\n' });
    expect(await runCli(['sources', 'remove', 'guardian', '--warehouse', dir], env)).toMatchObject({
      code: 1,
      err: 'error: no source "guardian" (newsflow sources list shows them)\n',
    });
    const after = await runCli(['sources', 'list', '--json', '--warehouse', dir], env);
    expect(
      after.out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).source)
        .sort(),
    ).toEqual([name, 'from-file'].sort());
  }, 300_000);

  it('refuses a bad source in one line', async () => {
    expect(await runCli(['sources', 'add', 'ftp://example.com/feed', '--warehouse', dir], env)).toMatchObject({
      code: 1,
      err: 'error: url: not an absolute http(s) URL\n',
    });
    expect(await runCli(['sources', 'add', 'https://example.com/feed', '--every', '10', '--warehouse', dir], env)).toMatchObject({
      code: 1,
      err: 'error: poll_interval: a duration from 1m to 1d, e.g. 90s, 15m, 2h\n',
    });
    expect(await runCli(['sources', 'add', 'https://example.com/feed', '--name', 'Bad Name', '--warehouse', dir], env)).toMatchObject({ code: 1 });
  }, 120_000);
});

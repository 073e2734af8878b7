/** `newsflow crawl URL...` against a running service: the job through the client, each URL's status printed. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { html, startPageServer, type PageServer } from '../../helpers/page-server.js';
import { pagesDir } from '../../helpers/readability-pages.js';

let svc: TestService;
let server: PageServer;

beforeAll(async () => {
  process.env.NEWSFLOW_FETCH_ALLOW = '127.0.0.1';
  server = await startPageServer();
  server.routes.set('/article', html(fs.readFileSync(path.join(pagesDir, 'ars-1', 'source.html'))));
  // a front page of headlines only (yahoo-2's front page carries a whole story and is read as one)
  const headlines = Array.from({ length: 30 }, (_, i) => `<li><a href="/story/${i}">Headline number ${i} of the day</a></li>`).join('');
  server.routes.set('/front', html(`<html><head><title>Latest</title></head><body><ul>${headlines}</ul></body></html>`));
  svc = await startTestService();
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await server?.close();
  delete process.env.NEWSFLOW_FETCH_ALLOW;
});

it('crawls URLs through the running service and prints each URL with its status and reason', async () => {
  const r = await runCli(['crawl', `${server.origin}/article`, `${server.origin}/front`, `${server.origin}/missing`, 'http://10.0.0.1/'], {
    NEWSFLOW_API_URL: svc.url,
    NEWSFLOW_API_KEY: svc.keys.org!,
  });
  console.log(r.out);
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  expect(r.out).toMatch(new RegExp(`indexed +${server.origin}/article  .+\\(article [0-9a-f-]{36}\\)`));
  expect(r.out).toMatch(new RegExp(`skipped +${server.origin}/front  not_article: not an article`));
  expect(r.out).toMatch(new RegExp(`failed +${server.origin}/missing  http_status: HTTP 404\n`));
  expect(r.out).toMatch(/refused +http:\/\/10\.0\.0\.1\/ {2}forbidden_address: the fetch policy does not allow the address of this host\n/);
  expect(r.out).not.toMatch(/(\w+): \1:/); // the category is printed once, not once by the CLI and again in the detail
  expect(r.out).toMatch(/job [0-9a-f-]{36}: partial; 4 URLs: 1 indexed, 1 skipped, 1 refused, 1 failed/);
});

it('says what is wrong with its options, exit 1', async () => {
  const r = await runCli(['crawl', 'http://example.com/', '--start', 'yesterday'], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org! });
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/--start must be an ISO date/);
  const bad = await runCli(['crawl', 'not a url'], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org! });
  expect(bad.code).toBe(1);
  expect(bad.err).toMatch(/urls.*0.*url|not an absolute http\(s\) URL/);
});

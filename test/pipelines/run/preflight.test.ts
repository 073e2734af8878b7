/**
 * The preflight of the pipeline commands, as a user meets it: a real service (or none), real CLI
 * processes. Each failure is one line saying what is wrong and how to fix it, the command exits 1
 * (the time it took is printed, not asserted: speed lives in bench/), and nothing is started (no Temporal dev server under the data dir).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../temporal/index.js';
import { DEFAULT_KEYS, startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { bin, runCli, waitForOutput } from '../../helpers/cli.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ keys: { ...DEFAULT_KEYS, storiesOnly: { scopes: ['stories', 'profile'] } } });
}, 120_000);
afterAll(async () => svc?.stop());

/** A pipeline command that must fail its preflight: exit code, stderr, seconds, and whether a dev server was started. */
async function refused(args: string[], env: Record<string, string>) {
  const dir = tempDir('newsflow-preflight-');
  const t0 = Date.now();
  const r = await runCli([...args, '--data-dir', dir], { TEMPORAL_ADDRESS: '', NEWSFLOW_LOG_LEVEL: 'warn', ...env });
  const seconds = (Date.now() - t0) / 1000;
  const startedTemporal = fs.existsSync(path.join(dir, 'temporal'));
  fs.rmSync(dir, { recursive: true, force: true });
  const lines = r.err.trim().split('\n');
  console.log(`${args.slice(0, 2).join(' ')}: exit ${r.code} in ${seconds.toFixed(1)} s: ${lines.join(' | ')}`);
  return { ...r, seconds, lines, startedTemporal };
}

const ingest = ['run', 'news', '--from', '2022-07-08', '--to', '2022-07-09'];

describe('preflight of newsflow run', () => {
  it('API down: one line naming the URL and the refused connection, exit 1, no dev server started', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await refused(ingest, { NEWSFLOW_API_URL: url, NEWSFLOW_API_KEY: 'x' });
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toBe(`error: cannot reach the API at ${url} (ECONNREFUSED): start it (newsflow serve) or set NEWSFLOW_API_URL to its address`);
    expect(r.startedTemporal).toBe(false);
  }, 60_000);

  it('bad key: the API refuses it (401 with its code and detail), exit 1', async () => {
    const r = await refused(ingest, { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: 'nfk_not_a_key' });
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      new RegExp(
        `^error: the API at ${svc.url} refused the key, HTTP 401 \\(code 401\\d{3}\\): invalid, expired or revoked API key: set NEWSFLOW_API_KEY to a valid key of this API$`,
      ),
    );
    expect(r.startedTemporal).toBe(false);
  }, 60_000);

  it('missing scope: the route the pipeline calls answers 403; the line names the scope it needs, exit 1', async () => {
    const r = await refused(ingest, { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.storiesOnly! });
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /^error: the key cannot run news: GET \/v1\/news\/search answered HTTP 403 \(code 403\d{3}\): this key lacks the "news" scope needed by GET \/v1\/news\/search; use a key with the news scope \(self-hosted: newsflow keys create --name NAME --scopes news\)$/,
    );
    expect(r.startedTemporal).toBe(false);
  }, 60_000);

  it("domains not owned: distribution names the domains the key's organization does not own, exit 1", async () => {
    // acme owns acme.com and acme-news.co.uk: one of two requested is not its own
    const r = await refused(['run', 'distribution', '--from', '2022-06-01', '--to', '2022-07-01', '--domains', 'acme.com,reuters.com'], {
      NEWSFLOW_API_URL: svc.url,
      NEWSFLOW_API_KEY: svc.keys.org!,
    });
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /^error: the organization of this key does not own reuters\.com \(HTTP 403 \(code 403\d{3}\): none of the requested domains \(reuters\.com\) belongs to your organization\): ask only for its domains \(--domains\), or use a key of the organization that owns them$/,
    );
    expect(r.startedTemporal).toBe(false);
  }, 60_000);

  it("a personal key cannot run distribution: the API's detail and the fix (an organization key with the scope), exit 1", async () => {
    const r = await refused(['run', 'distribution', '--from', '2022-06-01', '--to', '2022-07-01', '--domains', 'acme.com'], {
      NEWSFLOW_API_URL: svc.url,
      NEWSFLOW_API_KEY: svc.keys.personal!,
    });
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(
      /^error: the key cannot run distribution: GET \/v1\/distribution\/stats\/hit_share answered HTTP 403 .*lacks the "distribution" scope.*; use a key with the profile, distribution scopes of an organization that owns the domains \(self-hosted: newsflow keys create --name NAME --org ORG --scopes profile,distribution\)$/,
    );
  }, 60_000);

  it('an API URL that is not http(s): one line saying what to set, exit 1', async () => {
    const r = await refused(ingest, { NEWSFLOW_API_URL: 'localhost:8080', NEWSFLOW_API_KEY: 'x' });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual(['error: NEWSFLOW_API_URL "localhost:8080" is not an http(s) URL: set it to the API\'s address, e.g. http://127.0.0.1:8080']);
  }, 60_000);

  it('no NEWSFLOW_API_KEY: index-counts says to set it (was a stack trace), exit 1', async () => {
    const r = await refused(['run', 'index-counts', '--from', '2022-07-08', '--to', '2022-07-09'], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: '' });
    expect(r.code).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toBe(
      `error: no API key: set NEWSFLOW_API_KEY to a key of the API at ${svc.url} with the news scope (self-hosted: newsflow keys create --name NAME --scopes news)`,
    );
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.startedTemporal).toBe(false);
  }, 60_000);
});

describe('preflight of the other pipeline commands', () => {
  it('worker with a bad key exits 1 with the one line, before any dev server', async () => {
    const r = await refused(['worker'], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: 'nfk_not_a_key' });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([expect.stringMatching(/^error: the API at .* refused the key, HTTP 401 .*set NEWSFLOW_API_KEY/)]);
    expect(r.startedTemporal).toBe(false);
  }, 60_000);

  it('alerts sync with a key without the chat scope exits 1 naming the scope', async () => {
    const r = await refused(['alerts', 'sync'], { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.storiesOnly!, TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([
      expect.stringMatching(/^error: the key cannot run alerts: GET \/v1\/chat\/alerts answered HTTP 403 .*"chat" scope.*use a key with the chat scope/),
    ]);
  }, 60_000);

  it('start against an API that is down exits 1 with the one line', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await refused(['start'], { NEWSFLOW_API_URL: url, NEWSFLOW_API_KEY: 'x' });
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([`error: cannot reach the API at ${url} (ECONNREFUSED): start it (newsflow serve) or set NEWSFLOW_API_URL to its address`]);
    expect(r.startedTemporal).toBe(false);
  }, 60_000);

  it('worker with a key that cannot run some scheduled pipelines warns one line for each, then runs; SIGTERM stops it (exit 0)', async () => {
    const dir = tempDir('newsflow-preflight-');
    const child = spawn(process.execPath, [bin, 'worker', '--data-dir', dir], {
      env: { ...process.env, NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.storiesOnly!, TEMPORAL_ADDRESS: '', NEWSFLOW_LOG_LEVEL: 'warn' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    await waitForOutput(child, () => out + err, /worker running/, 150_000).catch((e) => {
      child.kill('SIGKILL');
      throw e;
    });
    const warnings = err.split('\n').filter((l) => l.startsWith('warning: '));
    console.log(`worker: ${out.trim()}\n${warnings.join('\n')}`);
    child.kill('SIGTERM');
    const code = await exited;
    fs.rmSync(dir, { recursive: true, force: true });
    expect(out).toMatch(/worker running on 127\.0\.0\.1:\d+/);
    // stories and profile: the story tracker can run; news, index counts and the alert runner cannot
    expect(warnings).toHaveLength(3);
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^warning: the key cannot run news: GET \/v1\/news\/search answered HTTP 403 .*; its runs will fail on this worker \(to leave it out: remove its news pipelines from newsflow\.yaml\)$/,
      ),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^warning: the key cannot run index-counts: .*lacks the "news" scope.*\(to leave it out: remove its index-counts pipelines from newsflow\.yaml, or NEWSFLOW_INDEX_COUNT_SAMPLINGS=""\)$/,
      ),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(
        /^warning: the key cannot run alerts: .*lacks the "chat" scope.*\(to leave it out: set sync: false on its alerts pipeline in newsflow\.yaml, or NEWSFLOW_ALERTS=0\)$/,
      ),
    );
    expect(code).toBe(0);
  }, 200_000);
});

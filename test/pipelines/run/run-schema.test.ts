/**
 * `newsflow run news --schema freeze` when the API's articles carry a field the interface does not
 * have (`foo`): the run fails after one attempt with one line naming articles.foo, exit 1; the
 * change is in `newsflow schema changes`. Real service, real Temporal dev server, real processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';
import { startFooService, type FooService } from '../../helpers/foo-service.js';

let svc: FooService;
beforeAll(async () => {
  svc = await startFooService();
  svc.foo.on = true;
}, 120_000);
afterAll(async () => svc?.stop());

describe('newsflow run under a schema contract', () => {
  it('freeze: one line naming articles.foo, exit 1, not retried; schema changes lists it as refused', async () => {
    const dir = tempDir('newsflow-runschema-');
    const env = { NEWSFLOW_API_URL: svc.url, NEWSFLOW_API_KEY: svc.keys.org!, TEMPORAL_ADDRESS: '' };
    const r = await runCli(['run', 'news', '--from', '2022-07-09', '--to', '2022-07-10', '--page-size', '20', '--schema', 'freeze', '--data-dir', dir], env);
    const last = r.err.trim().split('\n').pop();
    console.log(`exit ${r.code}; last stderr line: ${last}`);
    expect(r.code).toBe(1);
    expect(last, r.err.slice(-2000)).toBe(
      'error: news failed: schema contract freeze: articles.foo is new (string); set schema: evolve (or discard) on the pipeline to accept it',
    );
    expect(r.err).not.toMatch(/^retry /m);
    const c = await runCli(['schema', 'changes', '--data-dir', dir]);
    console.log(`$ newsflow schema changes\n${c.out}`);
    expect(c.code, c.err).toBe(0);
    expect(c.out).toMatch(/^articles\s+foo\s+new\s+string\s+\S+\s+.*freeze\s+refused$/m);
  }, 240_000);
});

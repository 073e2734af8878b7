/**
 * The project cache (pipelines/config/cached.ts) holds no secret at rest: the API key from the
 * environment and any `${VAR}` of the file are cached as references to their variables, put back
 * from the environment on a hit; entries are 0600 under a 0700 folder, at most CACHE_ENTRIES.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHE_ENTRIES, loadProjectCached, sealForCache, unsealFromCache } from '../../../pipelines/config/cached.js';
import { setConfigFlag } from '../../../pipelines/config/current.js';
import { tempDir } from '../../helpers/service.js';

const SECRET = 'nf-secret-key-0123456789abcdef';
const saved = { ...process.env };
let cwd: string;

beforeEach(() => {
  cwd = process.cwd();
});
afterEach(() => {
  process.chdir(cwd);
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
});

describe('the project cache', () => {
  it('writes no resolved secret, 0600 under 0700, and reads the key back from the environment', async () => {
    const cache = tempDir('newsflow-cache-');
    const project = tempDir('newsflow-project-');
    fs.writeFileSync(path.join(project, 'newsflow.yaml'), 'api:\n  url: http://127.0.0.1:9\n  key: ${NEWSFLOW_API_KEY}\n');
    process.env.NEWSFLOW_CACHE_DIR = cache;
    process.env.NEWSFLOW_API_KEY = SECRET;
    process.chdir(project);
    setConfigFlag(undefined);
    const first = await loadProjectCached();
    expect(first.api.key).toBe(SECRET);
    const dir = path.join(cache, 'projects');
    const files = fs.readdirSync(dir);
    expect(files).toHaveLength(1);
    const text = fs.readFileSync(path.join(dir, files[0]!), 'utf8');
    console.log(
      `cached entry: mode ${(fs.statSync(path.join(dir, files[0]!)).mode & 0o777).toString(8)}, folder ${(fs.statSync(dir).mode & 0o777).toString(8)}, holds the key: ${text.includes(SECRET)}; api.key as cached: ${JSON.stringify(JSON.parse(text).project.api.key)}`,
    );
    expect(text).not.toContain(SECRET);
    expect(fs.statSync(path.join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    // a hit: the same project, its key from the environment
    setConfigFlag('x');
    setConfigFlag(undefined);
    const again = await loadProjectCached();
    expect(again.api.key).toBe(SECRET);
  });

  it('seals every string holding an environment value, and a hit with the variable unset is a miss', () => {
    const env = { A_TOKEN: 'abcdefgh12345678', SHORT: 'on', URL_PASS: 'hunter2hunter2' };
    const sealed = sealForCache({ a: 'abcdefgh12345678', b: ['postgres://u:hunter2hunter2@h/db'], c: 'on', d: 3 }, env);
    expect(JSON.stringify(sealed)).not.toMatch(/abcdefgh12345678|hunter2hunter2/);
    expect((sealed as { c: string }).c).toBe('on');
    expect(unsealFromCache(sealed, env)).toEqual({ a: 'abcdefgh12345678', b: ['postgres://u:hunter2hunter2@h/db'], c: 'on', d: 3 });
    expect(unsealFromCache(sealed, { SHORT: 'on' })).toBeNull();
  });

  it('prunes the folder to CACHE_ENTRIES entries', async () => {
    const cache = tempDir('newsflow-cache-');
    const dir = path.join(cache, 'projects');
    fs.mkdirSync(dir, { recursive: true });
    for (let i = 0; i < CACHE_ENTRIES + 10; i++) {
      const f = path.join(dir, `old-${i}.json`);
      fs.writeFileSync(f, '{}');
      fs.utimesSync(f, new Date(Date.now() - (i + 60) * 60_000), new Date(Date.now() - (i + 60) * 60_000));
    }
    process.env.NEWSFLOW_CACHE_DIR = cache;
    process.chdir(tempDir('newsflow-project-'));
    setConfigFlag('y');
    setConfigFlag(undefined);
    await loadProjectCached();
    const left = fs.readdirSync(dir);
    expect(left).toHaveLength(CACHE_ENTRIES);
    // the newest (this one) kept, the oldest gone
    expect(left).not.toContain(`old-${CACHE_ENTRIES + 9}.json`);
  });
});

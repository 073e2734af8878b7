/**
 * `newsflow init` and `newsflow config check` as a user runs them, and a bad project file stopping
 * `start`, `worker` and `schedule apply` with the same one line per problem, exit 1, before
 * anything starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/service.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const made = () => {
  const d = tempDir('newsflow-project-');
  dirs.push(d);
  return d;
};
// no variable of the test's environment reaches the project
const clean = { NEWSFLOW_API_URL: '', NEWSFLOW_API_KEY: '', NEWSFLOW_DATA_DIR: '', TEMPORAL_ADDRESS: '', NEWSFLOW_CONFIG: '' };

describe('newsflow init', () => {
  it('writes the commented starter into an empty folder, which config check accepts', async () => {
    const dir = made();
    const init = await runCli(['init'], clean, { cwd: dir });
    expect(init.code, init.err).toBe(0);
    expect(init.out).toMatch(/^wrote newsflow\.yaml\nnext: npx newsflow config check, then npx newsflow start/);
    const text = fs.readFileSync(path.join(dir, 'newsflow.yaml'), 'utf8');
    expect(text).toMatch(/^# newsflow project file/);
    const check = await runCli(['config', 'check'], clean, { cwd: dir });
    expect(check.code, check.err).toBe(0);
    expect(check.out.split('\n')[0]).toBe('newsflow.yaml: ok, 6 pipeline(s), 7 schedule(s), 0 source(s)');
    expect(check.out).toContain('  ukraine: ukraine (news): "Ukraine" over the 1h before each run, every 15m');
  });

  it('refuses a folder with a project file or other files in it (one line, exit 1)', async () => {
    const dir = made();
    fs.writeFileSync(path.join(dir, 'newsflow.yaml'), 'pipelines: []\n');
    const again = await runCli(['init'], clean, { cwd: dir });
    expect([again.code, again.err.trim()]).toEqual([1, 'error: newsflow.yaml exists already; edit it, or run newsflow init in an empty folder']);
    const other = made();
    fs.writeFileSync(path.join(other, 'notes.txt'), 'x');
    const busy = await runCli(['init'], clean, { cwd: other });
    expect(busy.code).toBe(1);
    expect(busy.err).toMatch(/^error: .* is not empty \(notes\.txt\); run it in an empty folder, or add --force\n$/);
  });
});

describe('a bad project file', () => {
  const BAD = 'pipelines:\n  - name: chips\n    kind: news\n    schedule: { cron: "every day" }\n  - { name: chips, kind: alerts }\n';
  const LINES = [
    'error: newsflow.yaml:4:23: pipelines[0].schedule.cron: a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 6 * * *"',
    'newsflow.yaml:5:13: pipelines[1].name: "chips" is also the name of pipelines[0]',
  ];
  it.each([['config', 'check'], ['start'], ['worker'], ['schedule', 'apply', '--dry-run'], ['sql', 'select 1']])(
    '%s %s stops with one line per problem, exit 1',
    async (...args) => {
      const dir = made();
      fs.writeFileSync(path.join(dir, 'newsflow.yaml'), BAD);
      const r = await runCli(args.filter(Boolean) as string[], clean, { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.err.trimEnd().split('\n')).toEqual(LINES);
      expect(r.out).toBe('');
      // nothing was started or written beside the file
      expect(fs.readdirSync(dir)).toEqual(['newsflow.yaml']);
    },
  );
  it('--config names the file; a missing one is one line', async () => {
    const dir = made();
    fs.mkdirSync(path.join(dir, 'conf'));
    fs.writeFileSync(path.join(dir, 'conf', 'team.yaml'), 'workers: 0\n');
    const r = await runCli(['--config', 'conf/team.yaml', 'config', 'check'], clean, { cwd: dir });
    expect([r.code, r.err.trim()]).toEqual([1, 'error: conf/team.yaml:1:10: workers: takes a number >= 1']);
    const missing = await runCli(['config', 'check', '--config', 'nope.yaml'], clean, { cwd: dir });
    expect([missing.code, missing.err.trim()]).toEqual([1, 'error: nope.yaml: no such file (--config names the project file; newsflow init writes one)']);
  });
});

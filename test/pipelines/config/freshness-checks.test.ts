/**
 * A pipeline's `freshness:` and `checks:` in the project file: their defaults (freshness from the
 * schedule, invariants recorded), what reaches the schedules (checks in the run's argument, the
 * bounds on the declaration) and a bad value as one line at its file:line:col.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseProjectFile } from '../../../pipelines/config/index.js';
import { declareSchedules } from '../../../pipelines/schedules/index.js';
import { freshnessOf, periodOf } from '../../../pipelines/run/status.js';

const file = path.join(process.cwd(), 'newsflow.yaml');
const errorsOf = (yaml: string): string[] => {
  try {
    parseProjectFile(yaml, file, {});
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).lines;
  }
  return [];
};
const H = 3_600_000;
const M = 60_000;

describe('freshness and checks: defaults', () => {
  it('none given: no checks in the run, bounds from the schedule (warn 2, error 3 periods; at least 5 and 10 minutes)', () => {
    const f = parseProjectFile(
      'pipelines:\n  - { name: a, kind: news, schedule: { every: 1h } }\n  - { name: b, kind: alerts }\n  - { name: c, kind: stories }\n',
      file,
      {},
    );
    const [a, b, c] = declareSchedules(f.pipelines);
    expect(a!.args[0]).not.toHaveProperty('checks');
    expect(a!.freshness).toBeUndefined();
    expect(freshnessOf(periodOf(a!), a!.freshness)).toEqual({ warn: 2 * H, error: 3 * H });
    // alerts every minute: the floors
    expect(freshnessOf(periodOf(b!), b!.freshness)).toEqual({ warn: 5 * M, error: 10 * M });
    // stories at minute 5 of every hour (cron): its period is the gap between two runs
    expect(freshnessOf(periodOf(c!), c!.freshness)).toEqual({ warn: 2 * H, error: 3 * H });
  });

  it('given: the checks go to the run (invariants default to record), the bounds to the declaration; one bound alone moves the other', () => {
    const f = parseProjectFile(
      [
        'pipelines:',
        '  - name: a',
        '    kind: news',
        '    schedule: { every: 15m }',
        '    freshness: { warn_after: 1h, error_after: 1d }',
        '    checks: { min_rows: 1 }',
        '  - { name: b, kind: news, schedule: { every: 15m }, freshness: { warn_after: 2h }, checks: { invariants: enforce } }',
        '  - { name: c, kind: news, schedule: { every: 15m }, freshness: { error_after: 20m } }',
        '',
      ].join('\n'),
      file,
      {},
    );
    expect((f.pipelines[0] as { checks?: unknown }).checks).toEqual({ min_rows: 1, invariants: 'record' });
    const [a, b, c] = declareSchedules(f.pipelines);
    expect(a!.args[0]).toMatchObject({ pipeline: 'a', checks: { min_rows: 1, invariants: 'record' } });
    expect(b!.args[0]).toMatchObject({ pipeline: 'b', checks: { invariants: 'enforce' } });
    expect(a!.freshness).toEqual({ warnAfterMs: H, errorAfterMs: 24 * H });
    expect(freshnessOf(periodOf(a!), a!.freshness)).toEqual({ warn: H, error: 24 * H });
    // warn 2h alone: the default error (45m) would come before it, so error is 2h too
    expect(freshnessOf(periodOf(b!), b!.freshness)).toEqual({ warn: 2 * H, error: 2 * H });
    // error 20m alone: the default warn (30m) would come after it, so warn is 20m too
    expect(freshnessOf(periodOf(c!), c!.freshness)).toEqual({ warn: 20 * M, error: 20 * M });
  });

  it('the checks change the schedule (its argument), freshness does not', () => {
    const decl = (extra: string) => declareSchedules(parseProjectFile(`pipelines:\n  - { name: a, kind: news${extra} }\n`, file, {}).pipelines)[0]!;
    expect(decl(', freshness: { error_after: 1d }').args).toEqual(decl('').args);
    expect(decl(', checks: { min_rows: 5 }').args).not.toEqual(decl('').args);
  });
});

describe('freshness and checks: a bad value is one line at its line and column', () => {
  const cases: [string, string, string][] = [
    [
      'a duration in words',
      'pipelines:\n  - name: a\n    kind: news\n    freshness: { warn_after: 2 hours }\n',
      'newsflow.yaml:4:30: pipelines[0].freshness.warn_after: takes a duration: a whole number and one of s, m, h, d, w, e.g. 15m, 1h, 2d',
    ],
    [
      'warn after error',
      'pipelines:\n  - name: a\n    kind: news\n    freshness: { warn_after: 2h, error_after: 1h }\n',
      'newsflow.yaml:4:30: pipelines[0].freshness.warn_after: warn_after (2h) must be shorter than error_after (1h): a pipeline is late before it is stale',
    ],
    [
      'an unknown freshness key',
      'pipelines:\n  - name: a\n    kind: news\n    freshness: { warn: 1h }\n',
      'newsflow.yaml:4:18: pipelines[0].freshness.warn: unknown key; keys here: warn_after, error_after',
    ],
    [
      'a negative min_rows',
      'pipelines:\n  - name: a\n    kind: news\n    checks:\n      min_rows: -1\n',
      'newsflow.yaml:5:17: pipelines[0].checks.min_rows: takes a number >= 0',
    ],
    [
      'a misspelt check',
      'pipelines:\n  - name: a\n    kind: news\n    checks: { min_row: 1 }\n',
      'newsflow.yaml:4:15: pipelines[0].checks.min_row: unknown key (did you mean "min_rows"?); keys here: min_rows, invariants',
    ],
    [
      'invariants neither enforce nor record',
      'pipelines:\n  - name: a\n    kind: news\n    checks: { invariants: maybe }\n',
      'newsflow.yaml:4:27: pipelines[0].checks.invariants: takes one of: "enforce", "record"',
    ],
    [
      'checks on a kind that lands no load',
      'pipelines:\n  - name: a\n    kind: alerts\n    checks: { min_rows: 1 }\n',
      'newsflow.yaml:4:5: pipelines[0].checks: kind alerts takes no checks (the kinds whose loads are checked: news, stories, index-counts, graph); remove checks:',
    ],
    [
      'invariants enforced on a kind that records none',
      'pipelines:\n  - name: a\n    kind: stories\n    checks: { invariants: enforce }\n',
      'newsflow.yaml:4:15: pipelines[0].checks.invariants: kind stories records no boolean invariants to enforce (news, index-counts do); use min_rows, or remove it',
    ],
  ];
  it.each(cases)('%s', (_, yaml, line) => {
    expect(errorsOf(yaml)).toEqual([line]);
  });
});

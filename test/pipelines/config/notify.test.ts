/**
 * The project file's `notify:` (docs/operations.md, Notices): its defaults, the notices' schedule
 * it declares (the watched pipelines and their error_after in the argument; where notices go stays
 * out of it) and a bad value as one line at its file:line:col.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseProjectFile } from '../../../pipelines/config/index.js';
import { NOTICES_SCHEDULE_ID, noticesSchedules } from '../../../pipelines/run/notices.js';
import { declareSchedules } from '../../../pipelines/schedules/index.js';

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
const PIPELINES = [
  'pipelines:',
  '  - { name: ukraine, kind: news, schedule: { every: 15m }, freshness: { error_after: 2h } }',
  '  - { name: chips, kind: news, schedule: { every: 1h } }',
  '  - { name: held, kind: news, schedule: { every: 1h, paused: true } }',
].join('\n');

describe('notify: in the project file', () => {
  it('unset: no notices schedule', () => {
    const f = parseProjectFile(`${PIPELINES}\n`, file, {});
    expect(f.notify).toBeUndefined();
    expect(noticesSchedules(declareSchedules(f.pipelines), f.notify)).toEqual([]);
  });

  it('set: one schedule every minute (default) watching every pipeline not paused, with its error_after; the webhook and addresses are not in its argument', () => {
    const f = parseProjectFile(
      `${PIPELINES}\nnotify:\n  webhook: { url: "https://hooks.slack.com/services/T/B/X", format: slack, headers: { Authorization: "Bearer s3cret" } }\n  email: { to: [ops@example.com] }\n`,
      file,
      {},
    );
    expect(f.notify).toEqual({
      webhook: { url: 'https://hooks.slack.com/services/T/B/X', format: 'slack', headers: { Authorization: 'Bearer s3cret' } },
      email: { to: ['ops@example.com'] },
      every: '1m',
    });
    const [d, ...more] = noticesSchedules(declareSchedules(f.pipelines), f.notify);
    expect(more).toEqual([]);
    expect(d).toMatchObject({
      id: NOTICES_SCHEDULE_ID,
      workflowType: 'pipelineNotices',
      spec: { intervals: [{ every: 60_000 }] },
      args: [
        {
          pipelines: [
            { name: 'ukraine', errorAfterMs: 2 * H },
            { name: 'chips', errorAfterMs: 3 * H },
          ],
        },
      ],
    });
    expect(d!.description).toBe(
      'notices: failed runs, pipelines past error_after, sources failing for a day, and recoveries, to webhook (slack) and email to 1, every 1m',
    );
    expect(JSON.stringify(d!.args)).not.toMatch(/s3cret|hooks\.slack|example\.com/);
  });

  it('the webhook format defaults to json', () => {
    const f = parseProjectFile('notify:\n  webhook: { url: "https://example.com/hook" }\n  every: 5m\n', file, {});
    expect(f.notify).toEqual({ webhook: { url: 'https://example.com/hook', format: 'json' }, every: '5m' });
  });

  const cases: [string, string, string][] = [
    ['neither webhook nor email', 'notify:\n  every: 5m\n', 'newsflow.yaml:2:3: notify: give webhook, email or both'],
    [
      'a format neither json nor slack',
      'notify:\n  webhook: { url: "https://example.com/h", format: teams }\n',
      'newsflow.yaml:2:52: notify.webhook.format: takes one of: "json", "slack"',
    ],
    [
      'a URL that is not http(s)',
      'notify:\n  webhook: { url: "ftp://example.com/h" }\n',
      'newsflow.yaml:2:19: notify.webhook.url: takes an http(s) URL, e.g. https://api.example.com',
    ],
    ['an address that is not one', 'notify:\n  email: { to: [ops] }\n', 'newsflow.yaml:2:17: notify.email.to[0]: takes an email address, e.g. ops@example.com'],
    [
      'a misspelt key (and nothing more said)',
      'notify:\n  webhok: { url: "https://example.com/h" }\n',
      'newsflow.yaml:2:3: notify.webhok: unknown key (did you mean "webhook"?); keys here: webhook, email, every',
    ],
  ];
  it.each(cases)('%s: one line at file:line:col', (_, yaml, line) => {
    const errors = errorsOf(yaml);
    expect(errors).toHaveLength(1);
    expect(errors).toEqual([line]);
  });
});

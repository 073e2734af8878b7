/**
 * The project file: every error is one line naming file:line:column, the field and what it takes;
 * the starter file is valid (by the zod schema and by its generated JSON Schema, checked with ajv);
 * environment variables override the file with the documented precedence; the older JSON-in-env
 * pipeline variables still work for one release, with a warning.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseProjectFile, resolveProject, STARTER_FILE } from '../../../pipelines/config/index.js';
import { configurationReference, projectJsonSchema, SCHEMA_FILE } from '../../../pipelines/config/reference.js';
import { fetchPolicyOf } from '../../../pipelines/config/current.js';
import { repoRoot } from '../../helpers/paths.js';

const errorsOf = (yaml: string, env: NodeJS.ProcessEnv = {}): string[] => {
  try {
    parseProjectFile(yaml, path.join(process.cwd(), 'newsflow.yaml'), env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).lines;
  }
  return [];
};

describe('a broken project file: one line per problem, at its line and column', () => {
  // [what, file, the one line it gives]
  const cases: [string, string, string][] = [
    ['bad YAML', 'api:\n  url: [\n', 'newsflow.yaml:3:1: Flow sequence in block collection must be sufficiently indented and end with a ]'],
    ['tab indentation', 'api:\n\turl: x\n', 'newsflow.yaml:2:1: Tabs are not allowed as indentation'],
    ['a key twice', 'api: {}\napi: {}\n', 'newsflow.yaml:2:1: Map keys must be unique'],
    ['unknown key', 'api:\n  ulr: http://x\n', 'newsflow.yaml:2:3: api.ulr: unknown key (did you mean "url"?); keys here: url, key'],
    ['wrong type', 'workers: many\n', 'newsflow.yaml:1:10: workers: takes a number, got string'],
    [
      'bad cron',
      'pipelines:\n  - name: a\n    kind: news\n    schedule: { cron: "61 * * * *" }\n',
      'newsflow.yaml:4:23: pipelines[0].schedule.cron: a valid cron expression (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *"',
    ],
    [
      'cron of four fields',
      'pipelines:\n  - { name: a, kind: research, question: q, schedule: { cron: "0 6 * *" } }\n',
      'newsflow.yaml:2:63: pipelines[0].schedule.cron: a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 6 * * *"',
    ],
    [
      'unknown kind',
      'pipelines:\n  - name: a\n    kind: newz\n',
      'newsflow.yaml:3:11: pipelines[0].kind: unknown kind; takes one of: news, distribution, stories, index-counts, research, graph, alerts, maintenance, workflow',
    ],
    [
      'no kind',
      'pipelines:\n  - { name: a }\n',
      'newsflow.yaml:2:5: pipelines[0].kind: is required, one of: news, distribution, stories, index-counts, research, graph, alerts, maintenance, workflow',
    ],
    ['missing ${ENV}', 'api:\n  key: ${NOPE_KEY}\n', 'newsflow.yaml:2:8: api.key: ${NOPE_KEY} is not set: export NOPE_KEY=... (or write ${NOPE_KEY:-default})'],
    [
      'duplicate names',
      'pipelines:\n  - { name: a, kind: alerts }\n  - { name: a, kind: news }\n',
      'newsflow.yaml:3:13: pipelines[1].name: "a" is also the name of pipelines[0]',
    ],
    [
      'a secret in the file',
      'api:\n  key: sk-12345\n',
      'newsflow.yaml:2:8: api.key: write the key as ${ENV_VAR} (e.g. ${NEWSFLOW_API_KEY}); secrets never sit in the file',
    ],
    [
      'a retention that is no number of days',
      'service:\n  retention: 3 months\n',
      'newsflow.yaml:2:14: service.retention: takes a number of days such as 90d, or keep-all',
    ],
    ['prototype-named key', 'api:\n  __proto__: {x: 1}\n', 'newsflow.yaml:2:3: api.__proto__: "__proto__" is not a field of the project file'],
    [
      'bad pipeline name',
      'pipelines:\n  - { name: A_B, kind: alerts }\n',
      'newsflow.yaml:2:13: pipelines[0].name: takes a name of lower-case letters, digits and dashes (at most 63), e.g. chips-export-controls',
    ],
    [
      'every and cron',
      'pipelines:\n  - { name: a, kind: alerts, schedule: { every: 1m, cron: "* * * * *" } }\n',
      'newsflow.yaml:2:40: pipelines[0].schedule: give exactly one of every or cron',
    ],
    [
      'a misspelt filter',
      'pipelines:\n  - name: a\n    kind: news\n    filters: { languges: [en] }\n',
      expect.stringMatching(
        /^newsflow\.yaml:4:16: pipelines\[0\]\.filters\.languges: unknown key \(did you mean "languages"\?\); keys here: time_filter, /,
      ) as unknown as string,
    ],
    [
      'a duration in words',
      'pipelines:\n  - { name: a, kind: news, window: 1 hour }\n',
      'newsflow.yaml:2:36: pipelines[0].window: takes a duration: a whole number and one of s, m, h, d, w, e.g. 15m, 1h, 2d',
    ],
    ['not a mapping', '- a\n- b\n', 'newsflow.yaml:1:1: the project file must be a mapping of keys (api, warehouse, temporal, limits, pipelines, ...)'],
    ['an URL that is not http', 'api: { url: "ftp://x" }\n', 'newsflow.yaml:1:13: api.url: takes an http(s) URL, e.g. https://api.example.com'],
    [
      'unknown sampling',
      'pipelines:\n  - { name: a, kind: index-counts, samplings: [2h] }\n',
      'newsflow.yaml:2:48: pipelines[0].samplings[0]: takes one of: "5m", "1h", "12h", "1d", "1w", "1m"',
    ],
    ['an empty section', 'warehouse:\n', 'newsflow.yaml:1:11: warehouse: takes an object, got nothing (an empty key: give its fields or remove it)'],
    [
      'page size out of range',
      'pipelines:\n  - { name: a, kind: news, page_size: 500 }\n',
      'newsflow.yaml:2:39: pipelines[0].page_size: takes a number <= 101',
    ],
    [
      'distribution without domains',
      'pipelines:\n  - { name: a, kind: distribution }\n',
      'newsflow.yaml:2:5: pipelines[0].domains: is required (takes an array)',
    ],
  ];
  it.each(cases)('%s', (_, yaml, line) => {
    expect(errorsOf(yaml)).toEqual([line]);
  });

  it('several problems: one line each, in the order of the file', () => {
    expect(errorsOf('workers: 0\npipelines:\n  - { name: a, kind: news, window: x }\n  - { name: b, kind: graph }\n')).toEqual([
      'newsflow.yaml:1:10: workers: takes a number >= 1',
      'newsflow.yaml:3:36: pipelines[0].window: takes a duration: a whole number and one of s, m, h, d, w, e.g. 15m, 1h, 2d',
      'newsflow.yaml:4:5: pipelines[1].query: is required (takes a string)',
    ]);
  });

  it('hostile files: a huge one and a billion-laughs alias bomb are refused with one line, fast', () => {
    expect(errorsOf(`pipelines: []\n#${'x'.repeat(2 << 20)}\n`)).toEqual(['newsflow.yaml:1:1: the file is over 1 MB; a project file is a few KB']);
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...'bcdefghi'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`),
    ].join('\n');
    const lines = errorsOf(bomb);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^newsflow\.yaml:1:1: .*(alias|Excessive)/i);
  });
});

describe('the starter file', () => {
  it('is valid: two named news pipelines, stories, index counts, the alert sync and the daily lake maintenance', () => {
    const f = parseProjectFile(STARTER_FILE, 'newsflow.yaml', {});
    expect(f.pipelines.map((p) => [p.name, p.kind])).toEqual([
      ['ukraine', 'news'],
      ['covid', 'news'],
      ['top-stories', 'stories'],
      ['counts', 'index-counts'],
      ['alerts', 'alerts'],
      ['maintenance', 'maintenance'],
    ]);
  });

  it('its JSON Schema, generated from the zod schema, validates the starter and rejects a wrong file (ajv)', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(projectJsonSchema());
    expect(validate(parseYaml(STARTER_FILE)), JSON.stringify(validate.errors)).toBe(true);
    const wrong = parseYaml('pipelines:\n  - { name: a, kind: news, page_size: many, colour: blue }\nworkers: 0\n');
    expect(validate(wrong)).toBe(false);
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`);
    expect(problems).toEqual(expect.arrayContaining(['/workers minimum']));
    expect(problems.some((p) => p.startsWith('/pipelines/0'))).toBe(true);
  });

  it('the shipped JSON Schema and docs/configuration.md are the ones the schema generates (npm run generate)', () => {
    expect(JSON.parse(fs.readFileSync(path.join(repoRoot, SCHEMA_FILE), 'utf8'))).toEqual(projectJsonSchema());
    expect(fs.readFileSync(path.join(repoRoot, 'docs', 'configuration.md'), 'utf8')).toBe(configurationReference());
  });
});

describe('environment overrides', () => {
  const file = parseProjectFile(
    `
api: { url: "https://api.example.com", key: "\${TEAM_KEY:-none}" }
warehouse: { path: ./lake-here, catalog: catalog.sqlite }
temporal: { server: "temporal.internal:7233", namespace: news }
limits: { news: { rate: 2, burst: 4, concurrency: 2 } }
pipelines:
  - { name: chips, kind: news, query: semiconductor export controls }
  - { name: mine, kind: distribution, domains: [a.com] }
  - { name: counts, kind: index-counts }
  - { name: alerts, kind: alerts }
`,
    'newsflow.yaml',
    {},
  );

  it('the file alone: its values, relative paths against its folder', () => {
    const p = resolveProject(file, '/proj/newsflow.yaml', '/proj', {});
    expect(p.api).toEqual({ url: 'https://api.example.com', key: 'none' });
    expect(p.dataDir).toBe(path.resolve('/proj/lake-here'));
    expect(p.lake.catalog).toBe(path.resolve('/proj/catalog.sqlite'));
    expect(p.temporal).toEqual({ server: 'temporal.internal:7233', namespace: 'news' });
    expect(p.limits.news).toEqual({ rate: 2, burst: 4, concurrency: 2 });
    expect(p.limits.chat.rate).toBeGreaterThan(0);
    expect(p.warnings).toEqual([]);
  });

  it('environment variables win over the file', () => {
    const p = resolveProject(file, '/proj/newsflow.yaml', '/proj', {
      NEWSFLOW_API_URL: 'http://127.0.0.1:9',
      NEWSFLOW_API_KEY: 'k',
      NEWSFLOW_DATA_DIR: '/elsewhere',
      TEMPORAL_ADDRESS: '10.0.0.1:7233',
      NEWSFLOW_LIMITS: 'news=9:9:9',
      NEWSFLOW_WORKERS: '3',
      NEWSFLOW_DISTRIBUTION_DOMAINS: 'b.com, c.com',
      NEWSFLOW_ALERTS: '0',
      NEWSFLOW_INDEX_COUNT_SAMPLINGS: '5m',
      NEWSFLOW_INDEX_COUNT_DOMAINS: 'x.com',
    });
    expect(p.api).toEqual({ url: 'http://127.0.0.1:9', key: 'k' });
    expect(p.dataDir).toBe(path.resolve('/elsewhere'));
    expect(p.temporal.server).toBe('10.0.0.1:7233');
    expect(p.limits.news).toEqual({ rate: 9, burst: 9, concurrency: 9 });
    expect(p.workers).toBe(3);
    const by = Object.fromEntries(p.pipelines.map((x) => [x.name, x]));
    expect(by.mine).toMatchObject({ domains: ['b.com', 'c.com'] });
    expect(by.alerts).toMatchObject({ sync: false });
    expect(by.counts).toMatchObject({ samplings: ['5m'], domains: ['x.com'] });
    expect(by.chips).toMatchObject({ query: 'semiconductor export controls' });
  });

  it('NEWSFLOW_STORY_TRACKERS and NEWSFLOW_RESEARCH (JSON) still declare pipelines, with a warning each; a bad value is one line naming it', () => {
    const p = resolveProject(file, null, '/proj', {
      NEWSFLOW_STORY_TRACKERS: '[{"name":"ukraine","query":"Ukraine war","method":"both","maxArticles":5}]',
      NEWSFLOW_RESEARCH: '[{"name":"weekly","question":"What changed?","depth":2,"cron":"0 6 * * 1"}]',
    });
    expect(p.pipelines.find((x) => x.kind === 'stories')).toMatchObject({
      name: 'stories',
      trackers: [{ name: 'ukraine', query: 'Ukraine war', method: 'both', max_articles: 5 }],
    });
    expect(p.pipelines.find((x) => x.kind === 'research')).toMatchObject({
      name: 'weekly',
      question: 'What changed?',
      depth: 2,
      schedule: { cron: '0 6 * * 1' },
    });
    expect(p.warnings).toEqual([expect.stringMatching(/^NEWSFLOW_STORY_TRACKERS is deprecated/), expect.stringMatching(/^NEWSFLOW_RESEARCH is deprecated/)]);
    expect(() => resolveProject(file, null, '/proj', { NEWSFLOW_RESEARCH: '{nope' })).toThrow(/^NEWSFLOW_RESEARCH: not JSON/);
    expect(() => resolveProject(file, null, '/proj', { NEWSFLOW_STORY_TRACKERS: '[{"query":"no name"}]' })).toThrow(/^NEWSFLOW_STORY_TRACKERS: .*name/);
    expect(() => resolveProject(file, null, '/proj', { NEWSFLOW_WORKERS: 'two' })).toThrow(/^NEWSFLOW_WORKERS: takes a positive integer/);
    expect(() => resolveProject(file, null, '/proj', { NEWSFLOW_INDEX_COUNT_SAMPLINGS: '2d' })).toThrow(/unknown sampling 2d/);
    expect(() => resolveProject(file, null, '/proj', { NEWSFLOW_FETCH_ALLOW: '127.0.0.1, 10.0.0.0/33' })).toThrow(
      /^NEWSFLOW_FETCH_ALLOW: "10.0.0.0\/33" is not a CIDR network .*; entries are host names, addresses or CIDR networks/,
    );
  });

  it("the embedded service's retention: the file's service: key, NEWSFLOW_RETENTION and NEWSFLOW_ARCHIVE over it", () => {
    expect(resolveProject(file, null, '/proj', {}).service).toEqual({ retention: 'keep-all', archive: false });
    const kept = parseProjectFile('service:\n  retention: 90d\n  archive: true\n', 'newsflow.yaml', {});
    expect(resolveProject(kept, null, '/proj', {}).service).toEqual({ retention: '90d', archive: true });
    expect(resolveProject(kept, null, '/proj', { NEWSFLOW_RETENTION: '30d', NEWSFLOW_ARCHIVE: '0' }).service).toEqual({ retention: '30d', archive: false });
    expect(() => resolveProject(kept, null, '/proj', { NEWSFLOW_RETENTION: '0d' })).toThrow(
      /^NEWSFLOW_RETENTION: takes a number of days such as 90d, or keep-all, got "0d"/,
    );
    expect(() => resolveProject(kept, null, '/proj', { NEWSFLOW_ARCHIVE: 'yes' })).toThrow(/^NEWSFLOW_ARCHIVE: takes 1 or 0/);
  });

  it('NEWSFLOW_FETCH_ALLOW is read once, into the project: its entries as text (the cache keeps them), the policy made from them', () => {
    const p = resolveProject(file, null, '/proj', { NEWSFLOW_FETCH_ALLOW: ' 127.0.0.1 ,feeds.internal, fd00::/8' });
    expect(p.fetchAllow).toEqual(['127.0.0.1', 'feeds.internal', 'fd00::/8']);
    expect(JSON.parse(JSON.stringify(p)).fetchAllow).toEqual(p.fetchAllow);
    const policy = fetchPolicyOf(p);
    expect(policy.networks.check('127.0.0.1', 'ipv4')).toBe(true);
    expect(policy.networks.check('127.0.0.2', 'ipv4')).toBe(false);
    expect(policy.networks.check('fd00::5', 'ipv6')).toBe(true);
    expect([...policy.hosts]).toEqual(['feeds.internal']);
    expect(resolveProject(file, null, '/proj', {}).fetchAllow).toEqual([]);
  });
});

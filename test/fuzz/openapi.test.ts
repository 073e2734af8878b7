/**
 * The fuzz test: Schemathesis against a started service (a copy of the seeded corpus store, a key
 * with every scope on the enterprise plan of an organization owning news domains of the corpus,
 * limits raised so the rate limiter does not dominate), every operation of /openapi.json, every
 * check Schemathesis has (`--checks all`: server errors, statuses, content types, headers and
 * bodies as documented, schema-violating requests refused, schema-valid requests accepted,
 * missing required headers, unsupported methods, the Allow header, use after free, resources
 * available once created, ignored auth, response time), real ids and domains in three cases of
 * four. Generated valid requests keep the rules the document publishes as x-newsflow-rules
 * (test/fuzz/hooks.py). Two runs, not one failure allowed in either:
 * - the fixed budget: derandomized coverage and fuzzing phases, then the stateful phase on the
 *   alerts and index jobs (the same cases on every run), which follows the document's links from
 *   an alert to its get, update, run, logs and delete, and from an index_urls job to its status;
 * - a second, random seed every run: fuzzing (a few cases an operation) and stateful phases (every link).
 *   The seed is printed; NEWSFLOW_FUZZ_SEED=<n> replays it.
 * Reports: .tmp/fuzz/{fixed,stateful,seeded}.{json,junit.xml} (and stateful.ndjson, every case).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/service.js';
import {
  answeredRequests,
  CHECKS,
  INSTALL_HINT,
  OPERATION_COUNT,
  PINNED_VERSION,
  formatSummary,
  phaseReach,
  runSchemathesis,
  schemathesisConfig,
  schemathesisVersion,
  summarize,
  type FuzzRun,
} from '../helpers/fuzz.js';
import { repoRoot } from '../helpers/paths.js';
import { NOT_IMPLEMENTED } from '../../service/routes/index.js';
import { LIMIT_GROUPS, ROUTES, SCOPES } from '../../spec/index.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';

/** Cases per operation in the fuzzing phase of the fixed run (the coverage phase adds its own, about 15,000 in all). */
const MAX_EXAMPLES = Number(process.env.NEWSFLOW_FUZZ_EXAMPLES ?? 5);
/** The second run's seed: random, printed; NEWSFLOW_FUZZ_SEED=<n> replays a run. */
const SEED = process.env.NEWSFLOW_FUZZ_SEED ? Number(process.env.NEWSFLOW_FUZZ_SEED) : crypto.randomInt(2 ** 31);
/**
 * Cases per operation of the seeded run's fuzzing phase. A count, not a time: a run bounded by
 * seconds (it was 20) reached 12 of the operations and skipped the stateful phase on a CI machine
 * at load 14, so what it tested depended on the machine.
 */
const SEEDED_EXAMPLES = Number(process.env.NEWSFLOW_FUZZ_SEEDED_EXAMPLES ?? 2);
/**
 * Against a hang, a run that the service stops answering for 3 minutes is stopped and fails
 * (`answeredRequests`); the caps below only bound a run that keeps being answered. They are wide:
 * CI runs the other test projects beside this one, and at load 14 the fixed run had made 4,253
 * cases in its former 5-minute cap.
 */
const STALL_MS = 3 * 60_000;
const FIXED_BUDGET_MS = 25 * 60_000;
const STATEFUL_BUDGET_MS = 10 * 60_000;
const SEEDED_BUDGET_MS = 10 * 60_000;
const OUT_DIR = path.join(repoRoot, '.tmp', 'fuzz');
/**
 * Operations whose coverage-phase cases are the negative ones only: each valid request of them
 * runs a whole chat, research, graph or chart (tens of milliseconds to seconds), and the coverage
 * phase makes hundreds; their valid requests come from the fuzzing and stateful phases. put_alert
 * takes the fields create_alert's coverage covers.
 */
const COVERAGE_NEGATIVE_ONLY = ['get_chat_completions', 'deep_news', 'build_graph', 'create_charts_endpoint', 'put_alert'];
/**
 * What the stateful phase must reach through the links: an answer about a live resource of each,
 * a 2xx (or, running an alert, the 409 of an alert whose generated sources this server cannot run).
 */
const STATEFUL_TARGETS = [
  'POST /v1/chat/alerts',
  'GET /v1/chat/alerts/{alert_id}',
  'PUT /v1/chat/alerts/{alert_id}',
  'GET /v1/chat/alerts/{alert_id}/run',
  'GET /v1/chat/alerts/{alert_id}/logs',
  'DELETE /v1/chat/alerts/{alert_id}',
  'POST /v1/news/index_urls',
  'GET /v1/news/index_urls/{job_id}',
];

/** No failure of any check, no error; every operation tested (the stateful phase: those its links join). */
function expectClean(title: string, run: FuzzRun, budgetMs: number, everyOperation = true): void {
  expect(run.stalled, `the service answered no request of schemathesis for ${STALL_MS / 60_000} minutes`).toBe(false);
  expect(run.timedOut, `schemathesis ran past ${budgetMs / 60_000} minutes`).toBe(false);
  expect(run.report, `no JSON report; schemathesis printed:\n${run.stdout.slice(-4000)}`).not.toBeNull();
  const s = summarize(run.report!);
  console.log(formatSummary(title, s));
  if (everyOperation) expect(s.operations).toBe(OPERATION_COUNT);
  const failing = Object.fromEntries(CHECKS.map((c) => [c, s.failures[c]]));
  expect(failing, `failures (details: ${path.relative(repoRoot, run.junitPath)}):\n${run.stdout.slice(-6000)}`).toEqual(
    Object.fromEntries(CHECKS.map((c) => [c, 0])),
  );
  expect(s.other, run.stdout.slice(-4000)).toBe(0);
  expect(s.errors, run.stdout.slice(-4000)).toBe(0);
  expect(run.exitCode).toBe(0);
}

describe('OpenAPI fuzzing (schemathesis)', () => {
  let svc: TestService;
  let configFile: string;
  beforeAll(async () => {
    svc = await startTestService({
      corpusStore: await seededCorpusStore(),
      keys: { scout: { org: 'acme', scopes: ['news', 'stories'], plan: 'enterprise' } },
      limitsText: LIMIT_GROUPS.map((g) => `${g}=10000:10000:100`).join(','),
    });
    // real things for the fuzzer to find: articles, stories, an organization owning news domains
    // of the corpus, one alert, the current month (hit events are recorded now)
    const found = await api(svc.url, 'GET', '/v1/news/search?query=election&n_articles=10&historical=true&return_type=dicts&method=kw', svc.keys.scout);
    const articles = found.body.as_dicts as { article_id: string; domain_url: string }[];
    const domains = [...new Set(articles.map((a) => a.domain_url))].slice(0, 3);
    await svc.services.keys.createOrg({ name: 'newsroom', domains });
    const created = await svc.services.keys.createKey({ name: 'fuzz', org: 'newsroom', scopes: [...SCOPES], plan: 'enterprise' });
    const stories = (await api(svc.url, 'GET', '/v1/stories?limit=5', created.key)).body.stories as { uuid: string; current_update_uuid: string }[];
    const alert = await api(svc.url, 'POST', '/v1/chat/alerts', created.key, {
      query: 'election',
      cron: '0 * * * *',
      triggers: [{ action: 'webhook', params: { url: 'https://hooks.example.com/fuzz' } }],
    });
    const now = new Date();
    const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1) / 1000;
    const known = {
      'path.article_id': articles.map((a) => a.article_id),
      'query.article_ids': articles.map((a) => a.article_id),
      'path.story_id': stories.flatMap((x) => [x.uuid, x.current_update_uuid]),
      'path.alert_id': [alert.body.id],
      'query.alert_id': [alert.body.id],
      'path.name': domains,
      'query.domain_names': domains,
      'query.domain_name': domains,
      'query.names': domains,
      'query.start_date': [monthStart],
      'query.end_date': [Math.floor(now.getTime() / 1000)],
      'query.year': [now.getUTCFullYear()],
      'query.month': [now.getUTCMonth() + 1],
    };
    expect(articles.length).toBeGreaterThan(0);
    expect(stories.length).toBeGreaterThan(0);
    expect(alert.status).toBe(201);

    fs.mkdirSync(OUT_DIR, { recursive: true });
    configFile = path.join(OUT_DIR, 'schemathesis.toml');
    fs.writeFileSync(
      configFile,
      schemathesisConfig({
        bearer: created.key,
        clientId: created.id,
        notImplemented: NOT_IMPLEMENTED,
        modelProvider: ROUTES.filter((d) => d.modelProvider).map((d) => d.operationId),
        coverageNegativeOnly: COVERAGE_NEGATIVE_ONLY,
        known,
      }),
    );
    const version = schemathesisVersion();
    expect(version, INSTALL_HINT).not.toBeNull();
    if (version !== PINNED_VERSION) console.warn(`schemathesis ${version} installed; CI pins ${PINNED_VERSION}: the cases differ`);
  });
  afterAll(async () => svc?.stop());

  it(
    'the fixed budget, derandomized coverage and fuzzing phases, every check: 0 failures',
    async () => {
      const run = await runSchemathesis({
        baseUrl: svc.url,
        configFile,
        outDir: OUT_DIR,
        name: 'fixed',
        phases: ['coverage', 'fuzzing'],
        maxExamples: MAX_EXAMPLES,
        budgetMs: FIXED_BUDGET_MS,
        progress: () => answeredRequests(svc.url),
        stallMs: STALL_MS,
      });
      expectClean('schemathesis, fixed budget (coverage, fuzzing)', run, FIXED_BUDGET_MS);
      expect(run.report!.test_cases.generated).toBeGreaterThan(OPERATION_COUNT * MAX_EXAMPLES);
      expect(summarize(run.report!).phases).toMatchObject({ coverage: 'success', fuzzing: 'success' });
    },
    FIXED_BUDGET_MS + 60_000,
  );

  it(
    'the fixed budget, derandomized stateful phase, every check: 0 failures, following the links to alert get/put/run/logs/delete and index job status',
    async () => {
      const run = await runSchemathesis({
        baseUrl: svc.url,
        configFile,
        outDir: OUT_DIR,
        name: 'stateful',
        phases: ['stateful'],
        maxExamples: MAX_EXAMPLES,
        budgetMs: STATEFUL_BUDGET_MS,
        progress: () => answeredRequests(svc.url),
        stallMs: STALL_MS,
        ndjson: true,
        // the alerts and index jobs, so every scenario works on them (the seeded run walks every link)
        extraArgs: ['--include-tag-regex', '^(alerts|index-urls)$'],
      });
      expectClean('schemathesis, fixed budget (stateful)', run, STATEFUL_BUDGET_MS, false);
      expect(summarize(run.report!).phases).toMatchObject({ stateful: 'success' });
      const reach = phaseReach(run.ndjsonPath!, 'stateful');
      const live = (op: string) =>
        [...(reach.get(op) ?? new Map<number, number>())]
          .filter(([status]) => status < 300 || (status === 409 && op.endsWith('/run')))
          .reduce((n, [, c]) => n + c, 0);
      console.log(`stateful phase, answers about a live resource: ${STATEFUL_TARGETS.map((op) => `${op} ${live(op)}`).join('; ')}`);
      for (const op of STATEFUL_TARGETS) expect(live(op), `the stateful phase reached ${op} on a live resource`).toBeGreaterThan(0);
    },
    STATEFUL_BUDGET_MS + 60_000,
  );

  it(
    `a second, random seed (printed; NEWSFLOW_FUZZ_SEED replays it): fuzzing (${SEEDED_EXAMPLES} cases an operation) and stateful phases, every check: 0 failures`,
    async () => {
      console.log(`schemathesis seeded run: seed ${SEED} (replay: NEWSFLOW_FUZZ_SEED=${SEED})`);
      const run = await runSchemathesis({
        baseUrl: svc.url,
        configFile,
        outDir: OUT_DIR,
        name: 'seeded',
        phases: ['fuzzing', 'stateful'],
        maxExamples: SEEDED_EXAMPLES,
        seed: SEED,
        budgetMs: SEEDED_BUDGET_MS,
        progress: () => answeredRequests(svc.url),
        stallMs: STALL_MS,
      });
      expectClean(`schemathesis, seed ${SEED}`, run, SEEDED_BUDGET_MS);
      expect(run.report!.seed).toBe(SEED);
      expect(summarize(run.report!).phases).toMatchObject({ fuzzing: 'success', stateful: 'success' });
    },
    SEEDED_BUDGET_MS + 60_000,
  );
});

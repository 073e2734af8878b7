/**
 * Schemathesis against a started service: its configuration (derived from the route table), the
 * run (a child process with a bounded budget) and a summary of its JSON report.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../../spec/index.js';
import { repoRoot } from './paths.js';

export const REQUIREMENTS = 'test/fuzz/requirements.txt';
export const INSTALL_HINT = `schemathesis is not installed: python3 -m pip install -r ${REQUIREMENTS} (CI: .ci/run installs it)`;
/** The pinned version, read from test/fuzz/requirements.txt. */
export const PINNED_VERSION = /^schemathesis==(\S+)$/m.exec(fs.readFileSync(path.join(repoRoot, REQUIREMENTS), 'utf8'))![1]!;
/** The hooks that keep generated valid requests within the document's x-newsflow-rules (spec/rules.ts). */
export const HOOKS = 'test/fuzz/hooks.py';

/**
 * Every check of Schemathesis for OpenAPI (`--checks all`), and the failure codes each one
 * reports (`st explain <code>`). The fuzz test allows none of them.
 */
const CODES = {
  not_a_server_error: ['ST101', 'ST102'],
  status_code_conformance: ['ST103'],
  content_type_conformance: ['ST104', 'ST105', 'ST106'],
  response_headers_conformance: ['ST107'],
  response_schema_conformance: ['ST108', 'ST109', 'ST110', 'ST111'],
  max_response_time: ['ST112'],
  negative_data_rejection: ['ST201'],
  positive_data_acceptance: ['ST202'],
  missing_required_header: ['ST203'],
  unsupported_method: ['ST204'],
  allow_header_conformance: ['ST205'],
  use_after_free: ['ST301'],
  ensure_resource_availability: ['ST302'],
  ignored_auth: ['ST401'],
  object_level_authorization: ['ST402'],
} as const;
export type Check = keyof typeof CODES;
export const CHECKS = Object.keys(CODES) as Check[];
const CODE_CHECK: Record<string, Check> = Object.fromEntries(CHECKS.flatMap((c) => CODES[c].map((code) => [code, c])));

/** `python3 -m schemathesis.cli` (the pip install, whatever is on PATH); null when missing. */
export function schemathesisVersion(): string | null {
  const r = spawnSync('python3', ['-m', 'schemathesis.cli', '--version'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return /version (\S+)/.exec(r.stdout)?.[1] ?? null;
}

const toml = (v: unknown): string => JSON.stringify(v);

/**
 * schemathesis.toml for a run:
 * - the hooks of test/fuzz/hooks.py (generated valid requests keep the document's x-newsflow-rules);
 * - operations without a handler may answer their documented 501 (not a server error there, and
 *   only there), operations written by a model provider their documented 502;
 * - `coverageNegativeOnly`: operations whose coverage-phase positive cases are left to the
 *   fuzzing and stateful phases (each valid one does a whole research or chat: the time of a run);
 * - the stateful phase walks links up to `statefulSteps` deep, `statefulExamples` scenarios;
 * - the token endpoint gets HTTP Basic client credentials instead of the bearer key so its 200 is
 *   reachable; parameters naming real things (ids, owned domains, a month with hits) take real
 *   values three times in four, so the cases reach past the lookups into the handlers.
 */
export function schemathesisConfig(opts: {
  bearer: string;
  clientId: string;
  notImplemented: string[];
  /**
   * operations written by a model provider (RouteDef.modelProvider): their documented 502 when the
   * provider fails is not a server error (a BYOK key the fuzzer stored sends chat to a provider
   * this machine cannot reach); a 500 there still is
   */
  modelProvider?: string[];
  coverageNegativeOnly?: string[];
  statefulSteps?: number;
  statefulExamples?: number;
  maxResponseSeconds?: number;
  /** real values per parameter (`path.story_id`, `query.domain_names`), used in three cases of four */
  known?: Record<string, (string | number)[]>;
}): string {
  const lines = [
    // no state carried between runs (the same cases every time, nothing written to the repo)
    'cache = { enabled = false }',
    `hooks = ${toml(HOOKS)}`,
    `headers = { Authorization = ${toml(`Bearer ${opts.bearer}`)} }`,
    // seconds a response may take (--checks all turns the check on at 10 s): wide, as CI machines are shared
    `checks.max_response_time = ${opts.maxResponseSeconds ?? 30}`,
    '',
    '[phases.stateful]',
    `max-steps = ${opts.statefulSteps ?? 12}`,
    `generation.max-examples = ${opts.statefulExamples ?? 80}`,
    '',
  ];
  const known = Object.entries(opts.known ?? {}).filter(([, v]) => v.length > 0);
  if (known.length) {
    lines.push('[parameters]');
    known.forEach(([param], i) => lines.push(`${toml(param)} = { dictionary = "known${i}", probability = 0.75 }`));
    lines.push('');
    known.forEach(([, values], i) => lines.push(`[dictionaries.known${i}]`, `values = ${toml(values)}`, ''));
  }
  // one entry per operation (Schemathesis applies the first entry that matches an operation)
  const ops = new Map<string, string[]>();
  const add = (id: string, line: string) => ops.set(id, [...(ops.get(id) ?? []), line]);
  for (const id of opts.notImplemented) add(id, `checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]`);
  for (const id of opts.modelProvider ?? []) add(id, `checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "502"]`);
  for (const id of opts.coverageNegativeOnly ?? []) add(id, 'phases.coverage.generation.mode = "negative"');
  const basic = Buffer.from(`${encodeURIComponent(opts.clientId)}:${encodeURIComponent(opts.bearer)}`).toString('base64');
  add('oauth2_token', `headers = { Authorization = ${toml(`Basic ${basic}`)} }`);
  for (const [id, settings] of ops) lines.push('[[operations]]', `include-operation-id = ${toml(id)}`, ...settings, '');
  return lines.join('\n');
}

export interface FuzzRun {
  /** process exit code (1 when failures were found) */
  exitCode: number | null;
  /** true when the budget ran out and the process was stopped */
  timedOut: boolean;
  /** true when `progress` stood still for `stallMs` and the process was stopped */
  stalled: boolean;
  report: SchemathesisReport | null;
  stdout: string;
  reportPath: string;
  junitPath: string;
  ndjsonPath: string | null;
}

export interface SchemathesisReport {
  schemathesis_version: string;
  seed: number | null;
  running_time: number;
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number };
  phases: Record<string, { status: string; skip_reason: string | null }>;
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: { type: string; code: string; title: string; count: number; operations: string[] }[];
  errors: unknown[];
}

export type Phase = 'coverage' | 'fuzzing' | 'stateful';

/** Run schemathesis against `baseUrl`, every operation, every check; reports under `outDir` (`name`.json, `name`.junit.xml). */
export async function runSchemathesis(opts: {
  baseUrl: string;
  configFile: string;
  outDir: string;
  /** report file names */
  name?: string;
  phases: Phase[];
  maxExamples: number;
  /** hard cap of the run (ms): the process is stopped after it */
  budgetMs: number;
  /**
   * A hang guard that does not depend on the machine's speed: a number that grows while the run
   * makes progress (the service's answered requests), read every 5 s; when it has not grown for
   * `stallMs` (default 3 minutes), the process is stopped (`stalled`).
   */
  progress?: () => Promise<number>;
  stallMs?: number;
  workers?: number;
  /** a random seed instead of the derandomized cases */
  seed?: number;
  /** seconds the fuzzing and stateful phases repeat for (Schemathesis' --max-time) */
  maxTimeSeconds?: number;
  /** also write every case and interaction (`name`.ndjson; statefulReach reads it) */
  ndjson?: boolean;
  extraArgs?: string[];
  onOutput?: (chunk: string) => void;
}): Promise<FuzzRun> {
  fs.mkdirSync(opts.outDir, { recursive: true });
  const name = opts.name ?? 'schemathesis';
  const reportPath = path.join(opts.outDir, `${name}.json`);
  const junitPath = path.join(opts.outDir, `${name}.junit.xml`);
  const ndjsonPath = path.join(opts.outDir, `${name}.ndjson`);
  for (const f of [reportPath, junitPath, ndjsonPath]) fs.rmSync(f, { force: true });
  const args = [
    '-m',
    'schemathesis.cli',
    '--config-file',
    opts.configFile,
    '--no-color',
    'run',
    `${opts.baseUrl}/openapi.json`,
    '--checks',
    'all',
    '--phases',
    opts.phases.join(','),
    '--max-examples',
    String(opts.maxExamples),
    // the same cases on every run (deterministic mode also keeps no example database)
    ...(opts.seed === undefined ? ['--generation-deterministic'] : ['--seed', String(opts.seed)]),
    ...(opts.maxTimeSeconds === undefined ? [] : ['--max-time', String(opts.maxTimeSeconds)]),
    // one worker: with two, the coverage phase of the alert bodies ends in hypothesis'
    // 'Inconsistent results' runtime error (schemathesis 4.32.5), and a run is barely faster
    '--workers',
    String(opts.workers ?? 1),
    '--report',
    opts.ndjson ? 'json,junit,ndjson' : 'json,junit',
    '--report-json-path',
    reportPath,
    '--report-junit-path',
    junitPath,
    ...(opts.ndjson ? ['--report-ndjson-path', ndjsonPath] : []),
    '--warnings',
    'off',
    ...(opts.extraArgs ?? []),
  ];
  const child = spawn('python3', args, { cwd: repoRoot, env: { ...process.env, PYTHONUNBUFFERED: '1' } });
  let stdout = '';
  const take = (b: Buffer) => {
    const s = b.toString('utf8');
    stdout += s;
    opts.onOutput?.(s);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  let timedOut = false;
  let stalled = false;
  const stop = () => {
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, opts.budgetMs);
  let last = { n: -1, at: Date.now() };
  const watch = opts.progress
    ? setInterval(() => {
        void opts.progress!().then(
          (n) => {
            if (n !== last.n) last = { n, at: Date.now() };
            else if (Date.now() - last.at > (opts.stallMs ?? 180_000) && !stalled) {
              stalled = true;
              stop();
            }
          },
          () => undefined,
        );
      }, 5000)
    : undefined;
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  if (watch) clearInterval(watch);
  const report = fs.existsSync(reportPath) ? (JSON.parse(fs.readFileSync(reportPath, 'utf8')) as SchemathesisReport) : null;
  return { exitCode, timedOut, stalled, report, stdout, reportPath, junitPath, ndjsonPath: opts.ndjson ? ndjsonPath : null };
}

/** The requests a service answered (its GET /metrics' newsflow_http_requests_total, summed): `progress` of a run against it. */
export async function answeredRequests(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let n = 0;
  for (const line of text.split('\n')) if (line.startsWith('newsflow_http_requests_total{')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

/**
 * What one phase of a run sent, from its NDJSON report: per operation (`PUT /v1/chat/alerts/{alert_id}`),
 * the statuses it answered and how often.
 */
export function phaseReach(ndjsonPath: string, phase: Phase): Map<string, Map<number, number>> {
  const out = new Map<string, Map<number, number>>();
  for (const line of fs.readFileSync(ndjsonPath, 'utf8').split('\n')) {
    if (!line.includes('"ScenarioFinished"')) continue;
    const s = (JSON.parse(line) as { ScenarioFinished: ScenarioFinished }).ScenarioFinished;
    if (s.phase !== phase) continue;
    for (const [id, c] of Object.entries(s.recorder.cases ?? {})) {
      const status = s.recorder.interactions?.[id]?.response?.status_code;
      if (status === undefined) continue;
      const op = `${c.value.method} ${c.value.path}`;
      const counts = out.get(op) ?? new Map<number, number>();
      counts.set(status, (counts.get(status) ?? 0) + 1);
      out.set(op, counts);
    }
  }
  return out;
}
interface ScenarioFinished {
  phase: string;
  recorder: {
    cases?: Record<string, { value: { method: string; path: string } }>;
    interactions?: Record<string, { response?: { status_code: number } | null }>;
  };
}

export interface FuzzSummary {
  operations: number;
  cases: number;
  /** each phase's status (success, failure, error, skip) */
  phases: Record<string, string>;
  failures: Record<Check, number>;
  /** failures of codes no check above reports */
  other: number;
  /** failing operations per check */
  where: Record<Check, string[]>;
  errors: number;
  seconds: number;
  seed: number | null;
}

export function summarize(r: SchemathesisReport): FuzzSummary {
  const failures = Object.fromEntries(CHECKS.map((c) => [c, 0])) as Record<Check, number>;
  const where = Object.fromEntries(CHECKS.map((c) => [c, [] as string[]])) as Record<Check, string[]>;
  let other = 0;
  for (const f of r.failures) {
    const check = CODE_CHECK[f.code];
    if (!check) {
      other += f.count;
      continue;
    }
    failures[check] += f.count;
    where[check].push(...f.operations.map((o) => `${o} (${f.code})`));
  }
  return {
    operations: r.operations.tested,
    cases: r.test_cases.generated,
    phases: Object.fromEntries(Object.entries(r.phases).map(([k, v]) => [k, v.status])),
    failures,
    other,
    where,
    errors: r.errors.length,
    seconds: Math.round(r.running_time),
    seed: r.seed,
  };
}

export function formatSummary(title: string, s: FuzzSummary): string {
  const phases = Object.entries(s.phases)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const lines = [`${title}: ${s.operations} operations, ${s.cases} cases, ${s.seconds} s; phases: ${phases}`];
  for (const c of CHECKS) lines.push(`  ${c}: ${s.failures[c]} failures${s.where[c].length ? ` (${s.where[c].join(', ')})` : ''}`);
  if (s.other) lines.push(`  other checks: ${s.other} failures`);
  if (s.errors) lines.push(`  errors: ${s.errors}`);
  return lines.join('\n');
}

/** Operations of the route table plus the token endpoint. */
export const OPERATION_COUNT = ROUTES.length + 1;

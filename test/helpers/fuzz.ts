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

/** The checks the fuzz test asserts, and the failure codes each one reports (`st explain <code>`). */
export const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'] as const;
export type Check = (typeof CHECKS)[number];
const CODE_CHECK: Record<string, Check> = {
  ST101: 'not_a_server_error',
  ST102: 'not_a_server_error',
  ST103: 'status_code_conformance',
  ST104: 'content_type_conformance',
  ST105: 'content_type_conformance',
  ST106: 'content_type_conformance',
  ST108: 'response_schema_conformance',
  ST109: 'response_schema_conformance',
  ST110: 'response_schema_conformance',
  ST111: 'response_schema_conformance',
};

/** `python3 -m schemathesis.cli` (the pip install, whatever is on PATH); null when missing. */
export function schemathesisVersion(): string | null {
  const r = spawnSync('python3', ['-m', 'schemathesis.cli', '--version'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  return /version (\S+)/.exec(r.stdout)?.[1] ?? null;
}

const toml = (v: unknown): string => JSON.stringify(v);

/**
 * schemathesis.toml for a run: operations without a handler may answer their documented 501
 * (not a server error there, and only there), operations written by a model provider their
 * documented 502; the token endpoint gets HTTP Basic client
 * credentials instead of the bearer key so its 200 is reachable; parameters naming real things
 * (ids, owned domains, a month with hits) take real values half of the time, so the cases reach
 * past the lookups and validation into the handlers.
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
  /** real values per parameter (`path.story_id`, `query.domain_names`), used in three cases of four */
  known?: Record<string, (string | number)[]>;
}): string {
  const lines = [
    // no state carried between runs (the same cases every time, nothing written to the repo)
    'cache = { enabled = false }',
    `headers = { Authorization = ${toml(`Bearer ${opts.bearer}`)} }`,
    '',
  ];
  const known = Object.entries(opts.known ?? {}).filter(([, v]) => v.length > 0);
  if (known.length) {
    lines.push('[parameters]');
    known.forEach(([param], i) => lines.push(`${toml(param)} = { dictionary = "known${i}", probability = 0.75 }`));
    lines.push('');
    known.forEach(([, values], i) => lines.push(`[dictionaries.known${i}]`, `values = ${toml(values)}`, ''));
  }
  for (const id of opts.notImplemented) {
    lines.push('[[operations]]', `include-operation-id = ${toml(id)}`, `checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "501"]`, '');
  }
  for (const id of opts.modelProvider ?? []) {
    lines.push('[[operations]]', `include-operation-id = ${toml(id)}`, `checks.not_a_server_error.expected-statuses = ["2xx", "3xx", "4xx", "502"]`, '');
  }
  const basic = Buffer.from(`${encodeURIComponent(opts.clientId)}:${encodeURIComponent(opts.bearer)}`).toString('base64');
  lines.push('[[operations]]', 'include-operation-id = "oauth2_token"', `headers = { Authorization = ${toml(`Basic ${basic}`)} }`, '');
  return lines.join('\n');
}

export interface FuzzRun {
  /** process exit code (1 when failures were found) */
  exitCode: number | null;
  /** true when the budget ran out and the process was stopped */
  timedOut: boolean;
  report: SchemathesisReport | null;
  stdout: string;
  reportPath: string;
  junitPath: string;
}

export interface SchemathesisReport {
  schemathesis_version: string;
  running_time: number;
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: { type: string; code: string; title: string; count: number; operations: string[] }[];
  errors: unknown[];
}

/** Run schemathesis against `baseUrl`, every operation, the four checks; reports under `outDir`. */
export async function runSchemathesis(opts: {
  baseUrl: string;
  configFile: string;
  outDir: string;
  maxExamples: number;
  /** hard cap of the run (ms): the process is stopped after it */
  budgetMs: number;
  workers?: number;
  /** a random seed instead of the derandomized cases (exploration by hand) */
  seed?: number;
  extraArgs?: string[];
  onOutput?: (chunk: string) => void;
}): Promise<FuzzRun> {
  fs.mkdirSync(opts.outDir, { recursive: true });
  const reportPath = path.join(opts.outDir, 'schemathesis.json');
  const junitPath = path.join(opts.outDir, 'schemathesis.junit.xml');
  fs.rmSync(reportPath, { force: true });
  fs.rmSync(junitPath, { force: true });
  const args = [
    '-m',
    'schemathesis.cli',
    '--config-file',
    opts.configFile,
    '--no-color',
    'run',
    `${opts.baseUrl}/openapi.json`,
    '--checks',
    CHECKS.join(','),
    '--max-examples',
    String(opts.maxExamples),
    // the same cases on every run (deterministic mode also keeps no example database)
    ...(opts.seed === undefined ? ['--generation-deterministic'] : ['--seed', String(opts.seed)]),
    // one worker: with two, hypothesis' lambda-source cache races between the threads and the
    // coverage phase of some body schemas ends in an 'Inconsistent results' runtime error
    '--workers',
    String(opts.workers ?? 1),
    '--report',
    'json,junit',
    '--report-json-path',
    reportPath,
    '--report-junit-path',
    junitPath,
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
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGINT');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  }, opts.budgetMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);
  const report = fs.existsSync(reportPath) ? (JSON.parse(fs.readFileSync(reportPath, 'utf8')) as SchemathesisReport) : null;
  return { exitCode, timedOut, report, stdout, reportPath, junitPath };
}

export interface FuzzSummary {
  operations: number;
  cases: number;
  failures: Record<Check, number>;
  /** failures reported by checks other than the four (none are run) */
  other: number;
  /** failing operations per check */
  where: Record<Check, string[]>;
  errors: number;
  seconds: number;
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
    failures,
    other,
    where,
    errors: r.errors.length,
    seconds: Math.round(r.running_time),
  };
}

export function formatSummary(s: FuzzSummary): string {
  const lines = [`schemathesis: ${s.operations} operations, ${s.cases} cases, ${s.seconds} s`];
  for (const c of CHECKS) lines.push(`  ${c}: ${s.failures[c]} failures${s.where[c].length ? ` (${s.where[c].join(', ')})` : ''}`);
  if (s.other) lines.push(`  other checks: ${s.other} failures`);
  if (s.errors) lines.push(`  errors: ${s.errors}`);
  return lines.join('\n');
}

/** Operations of the route table plus the token endpoint. */
export const OPERATION_COUNT = ROUTES.length + 1;

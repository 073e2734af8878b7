/**
 * The project as commands use it: the project file (or the starter's defaults when there is
 * none) with the environment's overrides on top. Precedence, highest first:
 *
 *   1. command-line flags (e.g. `--data-dir`), applied by the command;
 *   2. environment variables (the `env` column of docs/configuration.md);
 *   3. the project file;
 *   4. the defaults of the schema (schema.ts).
 *
 * Older pipeline variables still work: NEWSFLOW_DISTRIBUTION_DOMAINS, NEWSFLOW_ALERTS=0,
 * NEWSFLOW_INDEX_COUNT_SAMPLINGS / _DOMAINS override the matching pipelines (or add one when the
 * file has none of that kind); NEWSFLOW_STORY_TRACKERS and NEWSFLOW_RESEARCH (JSON) are read as
 * before for one release, with a warning, when the file declares no pipeline of their kind.
 */
import path from 'node:path';
import { DEFAULT_LIMITS, parseLimits, Sampling, type LimitsConfig } from '../../spec/index.js';
import { ConfigError, findProjectFile, loadProjectFile, parseProjectFile } from './load.js';
import { registeredSchemas, StoryTracker, type Pipeline, type ProjectFile, type ResearchPipeline } from './schema.js';
import { STARTER_FILE } from './starter.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';
import type { z } from 'zod';

export interface Project {
  /** the project file read, or null (the starter's defaults) */
  file: string | null;
  /** relative paths of the file resolve against this folder */
  dir: string;
  api: { url?: string; key?: string };
  dataDir: string;
  lake: { catalog?: string; data?: string };
  /** the Temporal server (dev, postgres or host:port) and namespace; the dev server's UI port (NEWSFLOW_TEMPORAL_UI_PORT) and the PostgreSQL of the Temporal server on PostgreSQL (NEWSFLOW_PG_URL), when given */
  temporal: { server: string; namespace: string; uiPort?: string; pgUrl?: string };
  /** the warehouse folder when it is not the data dir (NEWSFLOW_WAREHOUSE_DIR) */
  warehouseDir?: string;
  /** where email triggers go out (NEWSFLOW_SMTP_URL; unset: recorded as skipped) */
  smtpUrl: string | null;
  /** the news corpus the embedded service loads (NEWSFLOW_CORPUS) */
  corpus?: string;
  /** the embedded service's retention (`<n>d` or keep-all; NEWSFLOW_RETENTION over the file's `service.retention`) and archive (NEWSFLOW_ARCHIVE=1) */
  service: { retention: string; archive: boolean };
  limits: LimitsConfig;
  /**
   * What the fetch policy allows beyond public addresses (NEWSFLOW_FETCH_ALLOW's entries, checked):
   * the feeds the poller and `sources test` fetch, the webhooks of alerts and notices. As text, for
   * the project's cache; `fetchPolicyOf` (current.ts) makes the policy.
   */
  fetchAllow: string[];
  workers: number;
  /** the worker's /metrics and /healthz (port unset: not served) */
  metrics: { port?: number; host: string };
  pipelines: Pipeline[];
  /** where notices of incidents go (unset: none are sent) */
  notify?: ProjectFile['notify'];
  sources: ProjectFile['sources'];
  /** absolute path of the user's workflows module, if any */
  workflows?: string;
  /** what the environment overrode, and deprecated ways still honoured: one line each */
  warnings: string[];
}

/** The project of `cwd` (or of `--config`), with the environment on top. */
export function loadProject(opts: { cwd?: string; config?: string; env?: NodeJS.ProcessEnv } = {}): Project {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  const file = findProjectFile(cwd, opts.config ?? (env.NEWSFLOW_CONFIG || undefined));
  const parsed = file ? loadProjectFile(file, env) : parseProjectFile(STARTER_FILE, '(defaults)', env);
  return resolveProject(parsed, file, file ? path.dirname(file) : cwd, env);
}

export function resolveProject(f: ProjectFile, file: string | null, dir: string, env: NodeJS.ProcessEnv = process.env): Project {
  const warnings: string[] = [];
  const set = (v: string | undefined) => (v === undefined || v === '' ? undefined : v);
  const abs = (p: string) => path.resolve(dir, p);
  const envVar = (name: string) => {
    const v = set(env[name]);
    return v;
  };
  const limits = f.limits ? ({ ...DEFAULT_LIMITS, ...Object.fromEntries(Object.entries(f.limits).filter(([, v]) => v)) } as LimitsConfig) : DEFAULT_LIMITS;
  let parsedLimits: LimitsConfig;
  try {
    parsedLimits = parseLimits(envVar('NEWSFLOW_LIMITS'), limits);
  } catch (e) {
    throw new ConfigError([`NEWSFLOW_LIMITS: ${(e as Error).message}`]);
  }
  let fetchAllow: string[];
  try {
    fetchAllow = [...parseFetchAllow(envVar('NEWSFLOW_FETCH_ALLOW')).entries];
  } catch (e) {
    throw new ConfigError([`${(e as Error).message}; entries are host names, addresses or CIDR networks, comma-separated`]);
  }
  const retention = envVar('NEWSFLOW_RETENTION')?.trim();
  if (retention !== undefined && !/^([1-9]\d*d|keep-all)$/.test(retention))
    throw new ConfigError([`NEWSFLOW_RETENTION: takes a number of days such as 90d, or keep-all, got ${JSON.stringify(retention)}`]);
  const archive = envVar('NEWSFLOW_ARCHIVE');
  if (archive !== undefined && archive !== '0' && archive !== '1') throw new ConfigError([`NEWSFLOW_ARCHIVE: takes 1 or 0, got ${JSON.stringify(archive)}`]);
  const workers = envVar('NEWSFLOW_WORKERS');
  if (workers !== undefined && !(Number.isInteger(Number(workers)) && Number(workers) >= 1))
    throw new ConfigError([`NEWSFLOW_WORKERS: takes a positive integer (the number of workers sharing one API key), got ${JSON.stringify(workers)}`]);
  const metricsPort = envVar('NEWSFLOW_METRICS_PORT');
  if (metricsPort !== undefined && !(/^\d{1,5}$/.test(metricsPort) && Number(metricsPort) <= 65535))
    throw new ConfigError([`NEWSFLOW_METRICS_PORT: takes a port number (0-65535; 0 any free port), got ${JSON.stringify(metricsPort)}`]);
  const temporalMode = envVar('NEWSFLOW_TEMPORAL');
  if (temporalMode !== undefined && temporalMode !== 'dev' && temporalMode !== 'postgres')
    throw new ConfigError([
      `NEWSFLOW_TEMPORAL: takes dev or postgres (for a running server set TEMPORAL_ADDRESS=host:port), got ${JSON.stringify(temporalMode)}`,
    ]);
  const catalog = envVar('NEWSFLOW_LAKE_CATALOG') ?? f.warehouse.catalog;
  const data = envVar('NEWSFLOW_LAKE_DATA') ?? f.warehouse.data;
  const workflows = f.workflows ? abs(f.workflows) : undefined;
  return {
    file,
    dir,
    api: { url: envVar('NEWSFLOW_API_URL') ?? f.api.url, key: envVar('NEWSFLOW_API_KEY') ?? f.api.key },
    dataDir: envVar('NEWSFLOW_DATA_DIR') ? path.resolve(env.NEWSFLOW_DATA_DIR!) : abs(f.warehouse.path),
    lake: {
      catalog: catalog && !/^[a-z]+:/i.test(catalog) && !/\b(dbname|host)=/.test(catalog) ? abs(catalog) : catalog,
      data: data && !/^[a-z][a-z0-9+.-]*:\/\//i.test(data) ? abs(data) : data,
    },
    temporal: {
      server: envVar('TEMPORAL_ADDRESS') ?? temporalMode ?? f.temporal.server,
      namespace: envVar('TEMPORAL_NAMESPACE') ?? f.temporal.namespace,
      ...(envVar('NEWSFLOW_TEMPORAL_UI_PORT') ? { uiPort: envVar('NEWSFLOW_TEMPORAL_UI_PORT') } : {}),
      ...(envVar('NEWSFLOW_PG_URL') ? { pgUrl: envVar('NEWSFLOW_PG_URL') } : {}),
    },
    ...(envVar('NEWSFLOW_WAREHOUSE_DIR') ? { warehouseDir: path.resolve(envVar('NEWSFLOW_WAREHOUSE_DIR')!) } : {}),
    smtpUrl: envVar('NEWSFLOW_SMTP_URL') ?? null,
    ...(envVar('NEWSFLOW_CORPUS') ? { corpus: envVar('NEWSFLOW_CORPUS') } : {}),
    service: { retention: retention ?? f.service.retention, archive: archive !== undefined ? archive === '1' : f.service.archive },
    limits: parsedLimits,
    fetchAllow,
    workers: workers !== undefined ? Number(workers) : f.workers,
    metrics: { port: metricsPort !== undefined ? Number(metricsPort) : f.metrics.port, host: f.metrics.host },
    pipelines: pipelinesWithEnv(f.pipelines, env, warnings),
    ...(f.notify ? { notify: f.notify } : {}),
    sources: f.sources,
    workflows,
    warnings,
  };
}

const split = (v: string) =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/** The file's pipelines with the older pipeline variables applied. */
export function pipelinesWithEnv(list: Pipeline[], env: NodeJS.ProcessEnv, warnings: string[]): Pipeline[] {
  let out = structuredClone(list);
  const has = (kind: Pipeline['kind']) => out.some((p) => p.kind === kind);
  const parse = (name: string, value: unknown): Pipeline => {
    const r = registeredSchemas().pipeline.safeParse(value);
    if (!r.success) throw new ConfigError([`${name}: ${r.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`).join('; ')}`]);
    return r.data;
  };

  const domains = env.NEWSFLOW_DISTRIBUTION_DOMAINS;
  if (domains !== undefined && split(domains).length) {
    if (has('distribution')) out = out.map((p) => (p.kind === 'distribution' ? { ...p, domains: split(domains) } : p));
    else out.push(parse('NEWSFLOW_DISTRIBUTION_DOMAINS', { name: 'distribution', kind: 'distribution', domains: split(domains) }));
  }
  if (env.NEWSFLOW_ALERTS === '0') out = out.map((p) => (p.kind === 'alerts' ? { ...p, sync: false } : p));

  const samplings = env.NEWSFLOW_INDEX_COUNT_SAMPLINGS;
  const countDomains = env.NEWSFLOW_INDEX_COUNT_DOMAINS;
  if (samplings !== undefined || countDomains !== undefined) {
    const wanted = samplings === undefined ? undefined : split(samplings);
    const bad = (wanted ?? []).filter((x) => !Sampling.safeParse(x).success);
    if (bad.length) throw new ConfigError([`NEWSFLOW_INDEX_COUNT_SAMPLINGS: unknown sampling ${bad.join(', ')}; samplings: ${Sampling.options.join(', ')}`]);
    const patch = (p: Pipeline): Pipeline | null => {
      if (p.kind !== 'index-counts') return p;
      if (wanted && !wanted.length) return null; // empty: none
      return {
        ...p,
        ...(wanted ? { samplings: wanted as z.infer<typeof Sampling>[] } : {}),
        ...(countDomains !== undefined ? { domains: split(countDomains).length ? split(countDomains) : undefined } : {}),
      };
    };
    if (has('index-counts')) out = out.map(patch).filter((p): p is Pipeline => p !== null);
    else if (!wanted || wanted.length)
      out.push(
        parse('NEWSFLOW_INDEX_COUNT_SAMPLINGS', {
          name: 'index-counts',
          kind: 'index-counts',
          ...(wanted ? { samplings: wanted } : {}),
          ...(countDomains ? { domains: split(countDomains) } : {}),
        }),
      );
  }

  const trackers = env.NEWSFLOW_STORY_TRACKERS?.trim();
  if (trackers === '0') out = out.filter((p) => p.kind !== 'stories');
  else if (trackers) {
    warnings.push(
      'NEWSFLOW_STORY_TRACKERS is deprecated and read for this release only: declare a pipeline of kind stories in newsflow.yaml (docs/configuration.md)',
    );
    let list: unknown;
    try {
      list = JSON.parse(trackers);
    } catch (e) {
      throw new ConfigError([`NEWSFLOW_STORY_TRACKERS: not JSON (${(e as Error).message}); e.g. [{"name":"top","strategy":"topstories","stories":20}]`]);
    }
    const parsed = (Array.isArray(list) ? list : [list]).map((t) => {
      const { maxUpdates, maxArticles, ...rest } = (t ?? {}) as Record<string, unknown>;
      const r = StoryTracker.safeParse({ ...rest, max_updates: maxUpdates, max_articles: maxArticles });
      if (!r.success)
        throw new ConfigError([
          `NEWSFLOW_STORY_TRACKERS: ${JSON.stringify(t)?.slice(0, 80)}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        ]);
      return r.data;
    });
    if (!has('stories')) out.push(parse('NEWSFLOW_STORY_TRACKERS', { name: 'stories', kind: 'stories', trackers: parsed }));
    else warnings.push('NEWSFLOW_STORY_TRACKERS is ignored: newsflow.yaml declares a stories pipeline');
  }

  const research = env.NEWSFLOW_RESEARCH?.trim();
  if (research) {
    warnings.push(
      'NEWSFLOW_RESEARCH is deprecated and read for this release only: declare pipelines of kind research in newsflow.yaml (docs/configuration.md)',
    );
    if (has('research')) warnings.push('NEWSFLOW_RESEARCH is ignored: newsflow.yaml declares research pipelines');
    else {
      let list: unknown;
      try {
        list = JSON.parse(research);
      } catch (e) {
        throw new ConfigError([
          `NEWSFLOW_RESEARCH: not JSON (${(e as Error).message}); e.g. [{"name":"ukraine","question":"What changed in the war in Ukraine?","depth":3}]`,
        ]);
      }
      if (!Array.isArray(list)) throw new ConfigError(['NEWSFLOW_RESEARCH: takes a JSON array of {name, question, depth?, sources?, model?, filters?, cron?}']);
      for (const q of list as Record<string, unknown>[]) {
        const { cron, ...rest } = q ?? {};
        const entry = { ...rest, kind: 'research', ...(cron ? { schedule: { cron } } : {}) } as z.input<typeof ResearchPipeline>;
        out.push(parse('NEWSFLOW_RESEARCH', entry));
      }
    }
  }
  const seen = new Set<string>();
  for (const p of out) {
    if (seen.has(p.name))
      throw new ConfigError([`two pipelines are named "${p.name}" once the environment's pipeline variables are applied; rename one in newsflow.yaml`]);
    seen.add(p.name);
  }
  return out;
}

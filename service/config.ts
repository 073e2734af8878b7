/** Service configuration: options win over environment variables, which win over defaults. */
import { UserError } from '../lib/errors.js';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_LIMITS, parseLimits, type LimitsConfig } from './limits.js';
import { defaultKeyFile } from './auth/secrets.js';
import { parseFetchAllow, type FetchPolicy } from '../lib/fetch/policy.js';

/** A setting of the environment the service cannot start with (the message names the variable). */
export class ServiceConfigError extends UserError {}

export interface ServiceConfig {
  dataDir: string;
  host: string;
  port: number;
  limits: LimitsConfig;
  logLevel: string;
  /** Check every response against spec/ before sending (on in tests). */
  validateResponses: boolean;
  /** 'local' (the packaged model), 'none', or an OpenAI-compatible base URL */
  embeddings: string;
  embeddingsModel: string;
  embeddingsKey?: string;
  /** OpenAI-compatible chat model that judges alert runs (NEWSFLOW_LLM_URL); null: retrieval decides */
  llm: { url: string; model: string; key?: string } | null;
  /** wait for a model provider's response headers, then the longest idle gap in its stream; NEWSFLOW_LLM_TIMEOUT_MS */
  llmTimeoutMs: number;
  /** the time budget of one graph's build in its thread (POST /v1/news/graph, service/graph/thread.ts); NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS */
  graphBuildTimeoutMs: number;
  /** Anthropic Messages API base (BYOK); NEWSFLOW_ANTHROPIC_URL */
  anthropicUrl: string;
  /** Gemini API base (BYOK); NEWSFLOW_GEMINI_URL */
  geminiUrl: string;
  /** master key for secrets at rest (BYOK keys), 32 bytes as hex or base64; NEWSFLOW_SECRET_KEY */
  secretKey?: string;
  /** else the master key file, outside the data dir: $XDG_CONFIG_HOME/newsflow/secret.key, else ~/.config/newsflow/secret.key (auth/secrets.ts) */
  secretKeyFile: string;
  /**
   * The service's public base URL (NEWSFLOW_PUBLIC_URL: scheme, host, optional port and path
   * prefix): the URLs the service hands out (a graph's triples_url and visualize_url) start with
   * it, never with a request's Host or X-Forwarded-* headers. Unset: the listen address, filled in
   * once the service listens (publicBase).
   */
  publicUrl?: string;
  /**
   * The folder of the local model's files (NEWSFLOW_EMBEDDINGS_MODEL_DIR: MiniLM's model.onnx and
   * tokenizer.json, or USE-lite's model.json and vocab.json); unset: the packaged model.
   */
  embeddingsModelDir?: string;
  /** the cosine from which an OpenAI-compatible model's hits count as relevant; NEWSFLOW_EMBEDDINGS_RELEVANT_COSINE (default 0.3) */
  embeddingsRelevantCosine: number;
  /** the page readers' threads and per-page time budget (`readerCount`, `readTimeoutMs`): service/indexing/reader-pool.ts */
  pageReaders: { size: number; timeoutMs: number };
  /** where MiniLM runs (`embedSettings`): NEWSFLOW_EMBED_THREAD and NEWSFLOW_EMBED_OP_THREADS, read when embeddings are local */
  embedThreads: EmbedSettings;
  /** the query-vector cache's size (llm/query-vectors.ts), 0: off; NEWSFLOW_QUERY_CACHE (default 4,096) */
  queryCache: number;
  /** the web capability's variables, as set (websearch/service.ts `webConfig` checks them when the service opens) */
  webVars: Partial<Record<WebVariable, string>>;
  /**
   * Days after publication an article stays in the news search index (NEWSFLOW_RETENTION, e.g.
   * `90d`; null, `keep-all`: every article, the default). The store keeps older articles unless
   * `archive`.
   */
  retentionDays: number | null;
  /** past the retention, articles are exported to Parquet under <data dir>/archive/news and leave the store (`newsflow serve --archive`, NEWSFLOW_ARCHIVE=1) */
  archive: boolean;
  /** what the fetch policy allows beyond public addresses (NEWSFLOW_FETCH_ALLOW): the pages, feeds and webhooks of the service */
  fetchPolicy: FetchPolicy;
}

/** A retention: `<n>d` (days, n >= 1) or `keep-all` (null); else a start-up error naming where it came from. */
export function parseRetention(raw: string | undefined, where = 'NEWSFLOW_RETENTION'): number | null {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'keep-all') return null;
  const m = /^(\d+)d$/.exec(raw.trim());
  if (!m || Number(m[1]) < 1) throw new ServiceConfigError(`${where} must be a number of days such as 90d, or keep-all; got ${JSON.stringify(raw)}`);
  return Number(m[1]);
}

/** The variables of the web capability (websearch/service.ts documents each). */
export const WEB_VARIABLES = [
  'NEWSFLOW_WEBSEARCH_PROVIDER',
  'NEWSFLOW_SEARXNG_URL',
  'NEWSFLOW_FETCH_TIMEOUT_MS',
  'NEWSFLOW_INDEX_CONCURRENCY',
  'NEWSFLOW_INDEX_MAX_JOBS',
  'NEWSFLOW_INDEX_MAX_URLS',
  'NEWSFLOW_INDEX_URLS_SHARED',
] as const;
export type WebVariable = (typeof WEB_VARIABLES)[number];

type Env = Readonly<Record<string, string | undefined>>;

export interface EmbedSettings {
  thread: boolean;
  opThreads: number | null;
}

/**
 * Where MiniLM runs: NEWSFLOW_EMBED_THREAD (1: its embedding thread; unset, empty or 0: the
 * service's thread) and onnxruntime's intra-op threads for queries, NEWSFLOW_EMBED_OP_THREADS
 * (1-16; unset or empty: null, the default). A value outside these is a start-up error naming
 * the variable, not a setting silently ignored.
 */
export function embedSettings(env: Env): EmbedSettings {
  const t = env.NEWSFLOW_EMBED_THREAD?.trim() ?? '';
  if (!['', '0', '1'].includes(t))
    throw new ServiceConfigError(`NEWSFLOW_EMBED_THREAD must be 1 (MiniLM in its embedding thread) or 0 (in the service's thread), not "${t}"`);
  const o = env.NEWSFLOW_EMBED_OP_THREADS?.trim() ?? '';
  if (o !== '' && !(/^\d+$/.test(o) && Number(o) >= 1 && Number(o) <= 16)) {
    throw new ServiceConfigError(`NEWSFLOW_EMBED_OP_THREADS must be a whole number of onnxruntime threads from 1 to 16, not "${o}"`);
  }
  return { thread: t === '1', opThreads: o === '' ? null : Number(o) };
}

/** The page readers: NEWSFLOW_PAGE_READERS (a whole number >= 0, at most 8), else one per core (at most 8). */
export function readerCount(env: Env = process.env): number {
  const n = Number(env.NEWSFLOW_PAGE_READERS);
  if (Number.isInteger(n) && n >= 0) return Math.min(n, 8);
  return defaultReaderCount();
}

/** One page reader per core, at most 8. */
export const defaultReaderCount = (): number => Math.min(8, Math.max(1, os.availableParallelism?.() ?? os.cpus().length));

export const READ_DEFAULTS = { timeoutMs: 20_000 } as const;

/** The per-page budget: `NEWSFLOW_PAGE_READ_TIMEOUT_MS` (a positive integer of ms), else READ_DEFAULTS.timeoutMs. */
export function readTimeoutMs(env: Env = process.env): number {
  const n = Number(env.NEWSFLOW_PAGE_READ_TIMEOUT_MS);
  return Number.isInteger(n) && n > 0 ? n : READ_DEFAULTS.timeoutMs;
}

/** NEWSFLOW_QUERY_CACHE: unset or empty 4,096; else a whole number >= 0, or a start-up error naming it. */
export const queryCacheSize = (env: Env): number => {
  const v = env.NEWSFLOW_QUERY_CACHE?.trim();
  if (v === undefined || v === '') return 4096;
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n)) {
    throw new ServiceConfigError(`NEWSFLOW_QUERY_CACHE must be a whole number of query vectors (0 turns the cache off), not "${v}"`);
  }
  return n;
};

/** A variable of milliseconds: a positive integer, else a start-up error naming it; unset or empty: `fallback`. */
function positiveMs(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new ServiceConfigError(`${name} must be a positive whole number of milliseconds, not ${JSON.stringify(raw)}`);
  return n;
}

/** NEWSFLOW_PUBLIC_URL as a base (no trailing slash), or a start-up error naming the variable. */
export function parsePublicUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new ServiceConfigError(`NEWSFLOW_PUBLIC_URL must be an absolute http(s) URL, not ${JSON.stringify(raw)}`);
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username || u.password) {
    throw new ServiceConfigError(`NEWSFLOW_PUBLIC_URL must be an http(s) URL without credentials, query or fragment, not ${JSON.stringify(raw)}`);
  }
  return `${u.origin}${u.pathname}`.replace(/\/+$/, '');
}

/** The base of the URLs the service hands out: NEWSFLOW_PUBLIC_URL, else the address it listens on. */
export function publicBase(config: ServiceConfig): string {
  if (config.publicUrl) return config.publicUrl;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

export function serviceConfig(opts: Partial<ServiceConfig> & { limitsText?: string } = {}, env: Env = process.env): ServiceConfig {
  const embeddings = opts.embeddings ?? env.NEWSFLOW_EMBEDDINGS_URL ?? env.NEWSFLOW_EMBEDDINGS ?? 'local';
  return {
    dataDir: path.resolve(opts.dataDir ?? env.NEWSFLOW_DATA_DIR ?? './data'),
    host: opts.host ?? env.NEWSFLOW_HOST ?? '127.0.0.1',
    port: opts.port ?? Number(env.NEWSFLOW_PORT ?? 8080),
    limits: opts.limits ?? parseLimits(opts.limitsText ?? env.NEWSFLOW_LIMITS, DEFAULT_LIMITS),
    logLevel: opts.logLevel ?? env.NEWSFLOW_LOG_LEVEL ?? 'info',
    validateResponses: opts.validateResponses ?? env.NEWSFLOW_VALIDATE_RESPONSES === '1',
    embeddings,
    embeddingsModel: opts.embeddingsModel ?? env.NEWSFLOW_EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
    embeddingsKey: opts.embeddingsKey ?? env.NEWSFLOW_EMBEDDINGS_KEY,
    llm:
      opts.llm !== undefined
        ? opts.llm
        : env.NEWSFLOW_LLM_URL
          ? { url: env.NEWSFLOW_LLM_URL, model: env.NEWSFLOW_LLM_MODEL ?? 'gpt-4o-mini', key: env.NEWSFLOW_LLM_KEY }
          : null,
    llmTimeoutMs: opts.llmTimeoutMs ?? Number(env.NEWSFLOW_LLM_TIMEOUT_MS ?? 60_000),
    graphBuildTimeoutMs: opts.graphBuildTimeoutMs ?? positiveMs('NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS', env.NEWSFLOW_GRAPH_BUILD_TIMEOUT_MS, 30_000),
    anthropicUrl: opts.anthropicUrl ?? env.NEWSFLOW_ANTHROPIC_URL ?? 'https://api.anthropic.com',
    geminiUrl: opts.geminiUrl ?? env.NEWSFLOW_GEMINI_URL ?? 'https://generativelanguage.googleapis.com',
    secretKey: opts.secretKey ?? env.NEWSFLOW_SECRET_KEY,
    secretKeyFile: opts.secretKeyFile ?? defaultKeyFile(env),
    publicUrl: opts.publicUrl ? parsePublicUrl(opts.publicUrl) : env.NEWSFLOW_PUBLIC_URL ? parsePublicUrl(env.NEWSFLOW_PUBLIC_URL) : undefined,
    embeddingsModelDir: opts.embeddingsModelDir ?? (env.NEWSFLOW_EMBEDDINGS_MODEL_DIR || undefined),
    embeddingsRelevantCosine: opts.embeddingsRelevantCosine ?? Number(env.NEWSFLOW_EMBEDDINGS_RELEVANT_COSINE ?? 0.3),
    // the embedding settings are start-up errors, before any model loads (read only when the model is local, as before)
    embedThreads: opts.embedThreads ?? (embeddings === 'local' ? embedSettings(env) : { thread: false, opThreads: null }),
    queryCache: opts.queryCache ?? queryCacheSize(env),
    pageReaders: opts.pageReaders ?? { size: readerCount(env), timeoutMs: readTimeoutMs(env) },
    webVars: opts.webVars ?? Object.fromEntries(WEB_VARIABLES.flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]]]))),
    retentionDays: opts.retentionDays !== undefined ? opts.retentionDays : parseRetention(env.NEWSFLOW_RETENTION),
    archive: opts.archive ?? env.NEWSFLOW_ARCHIVE === '1',
    fetchPolicy: opts.fetchPolicy ?? fetchAllow(env.NEWSFLOW_FETCH_ALLOW),
  };
}

/** NEWSFLOW_FETCH_ALLOW as a policy, or a start-up error naming the entry. */
function fetchAllow(raw: string | undefined): FetchPolicy {
  try {
    return parseFetchAllow(raw);
  } catch (e) {
    throw new ServiceConfigError((e as Error).message);
  }
}

export const storeFile = (dataDir: string) => path.join(dataDir, 'service.duckdb');

/** A real service on a loopback port with its own store in a temporary data dir. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceConfig } from '../../service/config.js';
import { parseFetchAllow } from '../../lib/fetch/policy.js';
import { openServices, startService, type RunningService } from '../../service/server.js';
import type { GroupHandlers } from '../../service/context.js';
import { SCOPES, type Scope } from '../../spec/index.js';

export interface TestService extends RunningService {
  dataDir: string;
  /** the master key file of secrets at rest: in a folder of its own, outside the data dir (as $XDG_CONFIG_HOME/newsflow/secret.key is) */
  secretKeyFile: string;
  keys: Record<string, string>;
  /** the admin token of the data dir (admin routes) */
  adminToken: string;
  keyIds: Record<string, string>;
  stop(): Promise<void>;
}

export function tempDir(prefix = 'newsflow-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface KeySpec {
  org?: string;
  scopes: Scope[];
  plan?: string;
  legacy?: boolean;
}

/** Default cast: an owning org, a publisher org, personal keys of each plan, a legacy key. */
export const DEFAULT_KEYS: Record<string, KeySpec> = {
  org: { org: 'acme', scopes: [...SCOPES], plan: 'enterprise' },
  publisher: { org: 'dailypaper', scopes: [...SCOPES], plan: 'enterprise' },
  personal: { scopes: ['news', 'stories', 'chat', 'profile'], plan: 'free' },
  analyst: { scopes: ['news', 'stories', 'chat', 'profile'], plan: 'analyst' },
  legacy: { org: 'acme', scopes: ['news', 'distribution', 'profile'], plan: 'enterprise', legacy: true },
};

export async function startTestService(
  opts: {
    limitsText?: string;
    handlers?: GroupHandlers;
    keys?: Record<string, KeySpec>;
    validateResponses?: boolean;
    configure?: (app: import('fastify').FastifyInstance) => void;
    /** start from a copy of the seeded corpus store (seededCorpusStore()) */
    corpusStore?: string;
    /** the service clock (ms); fixed clocks make "the last 48 hours" deterministic */
    clock?: () => number;
    /** Fastify's logger options (a level and a stream to read the lines); default none */
    logger?: object;
    /** what the service's fetch policy allows beyond public addresses (NEWSFLOW_FETCH_ALLOW's form); default: the environment's */
    fetchAllow?: string;
  } = {},
): Promise<TestService> {
  const dataDir = tempDir();
  const configDir = tempDir('newsflow-config-');
  if (opts.corpusStore) fs.copyFileSync(opts.corpusStore, path.join(dataDir, 'service.duckdb'));
  const config = serviceConfig({
    dataDir,
    port: 0,
    host: '127.0.0.1',
    limitsText: opts.limitsText,
    logLevel: 'silent',
    validateResponses: opts.validateResponses ?? true,
    secretKeyFile: path.join(configDir, 'newsflow', 'secret.key'),
    ...(opts.fetchAllow !== undefined ? { fetchPolicy: parseFetchAllow(opts.fetchAllow) } : {}),
  });
  const services = await openServices(config, undefined, { clock: opts.clock });
  await services.keys.createOrg({ name: 'acme', domains: ['acme.com', 'acme-news.co.uk'] });
  await services.keys.createOrg({ name: 'dailypaper', domains: ['dailypaper.com'], publisher: true });
  const keys: Record<string, string> = {};
  const keyIds: Record<string, string> = {};
  for (const [name, spec] of Object.entries(opts.keys ?? DEFAULT_KEYS)) {
    const { id, key } = await services.keys.createKey({ name, ...spec });
    keys[name] = key;
    keyIds[name] = id;
  }
  const svc = await startService({ services, handlers: opts.handlers, configure: opts.configure, logger: opts.logger ?? false });
  return {
    ...svc,
    dataDir,
    secretKeyFile: config.secretKeyFile,
    keys,
    keyIds,
    adminToken: fs.readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim(),
    async stop() {
      await svc.close();
      await services.news?.close();
      services.db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(configDir, { recursive: true, force: true });
    },
  };
}

/** The credential a route takes in tests: the admin token on admin routes, else the owning organization's key. */
export const credentialFor = (svc: TestService, d: { admin?: boolean }) => (d.admin ? svc.adminToken : svc.keys.org!);

/** fetch with a bearer key; returns status, headers and parsed JSON. */
export async function api(
  base: string,
  method: string,
  pathAndQuery: string,
  key?: string,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any; headers: Headers; text: string }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${pathAndQuery}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers, text };
}

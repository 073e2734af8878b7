/**
 * The project, loaded the way a command starts: from a cache of resolved projects when the file,
 * the environment and the schema are what they were at the last successful check, else read,
 * validated (yaml, zod) and cached. A file with problems is never cached, so it stops every
 * command with its lines. Saves the schema's load (most of a small command's start-up).
 *
 * No secret at rest: every string of the resolved project that holds the value of an environment
 * variable (an API key from NEWSFLOW_API_KEY, a `${VAR}` of the file) is cached with a reference to
 * the variable in its place, put back from the environment when read (the cache key hashes the
 * environment, so a hit sees the same values). Entries are 0600 in a 0700 folder, at most
 * CACHE_ENTRIES of them (the oldest pruned on each write).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from '../../lib/cache-dir.js';
import { SOURCE_EXT } from '../../lib/package-root.js';
import { configFlag, currentProject, setCurrentProject } from './current.js';
import { findProjectFile } from './find.js';
import type { Project } from './project.js';

/** The environment a project depends on: its overrides and any `${VAR}` the file may use. */
const envKey = (env: NodeJS.ProcessEnv) =>
  Object.keys(env)
    .filter((k) => /^(NEWSFLOW_|TEMPORAL_)/.test(k) || !/^(npm_|_|PWD$|OLDPWD$|SHLVL$|TERM)/.test(k))
    .sort()
    .map((k) => `${k}=${env[k]}`)
    .join('\n');

function key(file: string | null): string {
  const h = crypto.createHash('sha1');
  // the schema: schema.ts, the fields it shares and the kinds' entries; project.ts, the shape of what is cached
  const kindsDir = fileURLToPath(new URL('./kinds/', import.meta.url));
  const files = [`./schema${SOURCE_EXT}`, `./fields${SOURCE_EXT}`, `./project${SOURCE_EXT}`].map((f) => fileURLToPath(new URL(f, import.meta.url)));
  for (const f of fs.readdirSync(kindsDir).sort()) files.push(path.join(kindsDir, f));
  for (const f of files) {
    const st = fs.statSync(f);
    h.update(`${f}:${st.size}:${st.mtimeMs}\n`);
  }
  h.update(`${process.cwd()}\n${configFlag() ?? ''}\n`);
  h.update(file ? `${file}\n${fs.readFileSync(file)}` : '(defaults)');
  h.update(envKey(process.env));
  return h.digest('hex').slice(0, 32);
}

/** Entries kept in the projects folder (one per project file and environment). */
export const CACHE_ENTRIES = 32;
/** Values shorter than this are not taken for secrets (`1`, `true`, a port). */
const SECRET_MIN_CHARS = 8;
/** `\u0000env:NAME\u0000`: an environment variable's value in a cached string (no environment value holds a NUL) */
const ref = (name: string) => `\u0000env:${name}\u0000`;
// eslint-disable-next-line no-control-regex -- NUL is the reference's delimiter
const REF = /\u0000env:([^\u0000]+)\u0000/g;

/** The environment's values that may be secrets, longest first (a value inside another is replaced after it). */
function envValues(env: NodeJS.ProcessEnv): [string, string][] {
  return Object.entries(env)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length >= SECRET_MIN_CHARS)
    .sort((a, b) => b[1].length - a[1].length || (a[0] < b[0] ? -1 : 1));
}

function mapStrings(v: unknown, f: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, mapStrings(x, f)]));
  return v;
}

/** The project as cached: each environment value in its strings replaced by a reference to its variable. */
export function sealForCache(value: unknown, env: NodeJS.ProcessEnv = process.env): unknown {
  const values = envValues(env);
  return mapStrings(value, (s) => {
    let out = s;
    for (const [name, v] of values) if (out.includes(v)) out = out.split(v).join(ref(name));
    return out;
  });
}

/** The cached project with its references to environment variables resolved (null when one is unset: a miss). */
export function unsealFromCache<T>(value: T, env: NodeJS.ProcessEnv = process.env): T | null {
  let missing = false;
  const out = mapStrings(value, (s) =>
    s.includes('\u0000')
      ? s.replace(REF, (_m, name: string) => {
          const v = env[name];
          if (v === undefined) missing = true;
          return v ?? '';
        })
      : s,
  ) as T;
  return missing ? null : out;
}

/** The folder 0700 and its entries 0600; beyond CACHE_ENTRIES, the least recently written removed. */
function prune(dir: string): void {
  const entries = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => {
      const p = path.join(dir, f);
      try {
        return { p, t: fs.statSync(p).mtimeMs };
      } catch {
        return null;
      }
    })
    .filter((e): e is { p: string; t: number } => e !== null)
    .sort((a, b) => b.t - a.t);
  for (const e of entries.slice(CACHE_ENTRIES)) fs.rmSync(e.p, { force: true });
  for (const e of entries.slice(0, CACHE_ENTRIES)) fs.chmodSync(e.p, 0o600);
}

export async function loadProjectCached(): Promise<Project> {
  const known = currentProject();
  if (known) return known;
  const file = findProjectFile(process.cwd(), configFlag() ?? (process.env.NEWSFLOW_CONFIG || undefined));
  const dir = path.join(cacheDir(), 'projects');
  const entry = path.join(dir, `${key(file)}.json`);
  try {
    const p = unsealFromCache(JSON.parse(fs.readFileSync(entry, 'utf8')) as { project: Project; defaultLimits: Project['limits'] });
    if (p) {
      setCurrentProject(p.project, p.defaultLimits);
      return p.project;
    }
  } catch {
    /* not cached (or unreadable): validate */
  }
  const { useProject } = await import('./index.js');
  const { DEFAULT_LIMITS } = await import('../../spec/index.js');
  const project = useProject();
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
    fs.writeFileSync(`${entry}.${process.pid}`, JSON.stringify(sealForCache({ project, defaultLimits: DEFAULT_LIMITS })), { mode: 0o600 });
    fs.renameSync(`${entry}.${process.pid}`, entry);
    prune(dir);
  } catch {
    /* a cache we cannot write: the next command validates again */
  }
  return project;
}

/**
 * The project, loaded the way a command starts: from a cache of resolved projects when the file,
 * the environment and the schema are what they were at the last successful check, else read,
 * validated (yaml, zod) and cached. A file with problems is never cached, so it stops every
 * command with its lines. Saves the schema's load (most of a small command's start-up).
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
  // the schema: schema.ts, the fields it shares and the kinds' entries
  const kindsDir = fileURLToPath(new URL('./kinds/', import.meta.url));
  const files = [`./schema${SOURCE_EXT}`, `./fields${SOURCE_EXT}`].map((f) => fileURLToPath(new URL(f, import.meta.url)));
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

export async function loadProjectCached(): Promise<Project> {
  const known = currentProject();
  if (known) return known;
  const file = findProjectFile(process.cwd(), configFlag() ?? (process.env.NEWSFLOW_CONFIG || undefined));
  const dir = path.join(cacheDir(), 'projects');
  const entry = path.join(dir, `${key(file)}.json`);
  try {
    const p = JSON.parse(fs.readFileSync(entry, 'utf8')) as { project: Project; defaultLimits: Project['limits'] };
    setCurrentProject(p.project, p.defaultLimits);
    return p.project;
  } catch {
    /* not cached (or unreadable): validate */
  }
  const { useProject } = await import('./index.js');
  const { DEFAULT_LIMITS } = await import('../../spec/index.js');
  const project = useProject();
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(`${entry}.${process.pid}`, JSON.stringify({ project, defaultLimits: DEFAULT_LIMITS }));
    fs.renameSync(`${entry}.${process.pid}`, entry);
  } catch {
    /* a cache we cannot write: the next command validates again */
  }
  return project;
}

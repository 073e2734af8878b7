/** Where the project file is: `--config` (or NEWSFLOW_CONFIG), else `newsflow.yaml`/`newsflow.yml` in the working directory. */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../../lib/errors.js';

export const PROJECT_FILE_NAMES = ['newsflow.yaml', 'newsflow.yml'] as const;

/** What is wrong with a project file: one line per problem, each naming file:line:col and the field. */
export class ConfigError extends UserError {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
  }
}

/** The project file to use: `explicit` (must exist), else one in `cwd`, else null (defaults). */
export function findProjectFile(cwd: string, explicit?: string): string | null {
  if (explicit) {
    const file = path.resolve(cwd, explicit);
    if (!fs.existsSync(file)) throw new ConfigError([`${explicit}: no such file (--config names the project file; newsflow init writes one)`]);
    return file;
  }
  for (const name of PROJECT_FILE_NAMES) {
    const file = path.join(cwd, name);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

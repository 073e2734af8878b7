import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The shared reference folder beside the repo (override with NEWSFLOW_SHARED_DIR). */
export const sharedDir = path.resolve(process.env.NEWSFLOW_SHARED_DIR ?? path.join(repoRoot, '..', 'shared'));

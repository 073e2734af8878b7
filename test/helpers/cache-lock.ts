/** A test cache entry built once: the first process builds it under a lock, the others wait for its `done` file. */
import fs from 'node:fs';
import path from 'node:path';
import { waitUntil } from './wait-until.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Build `dir` (which `build` finishes by writing `dir/done`) unless it is done; one builder at a
 * time across processes (a lock dir beside it holding the builder's pid). A lock whose builder
 * died is taken over.
 */
export async function buildOnce(dir: string, build: () => Promise<void>): Promise<void> {
  const done = () => fs.existsSync(path.join(dir, 'done'));
  if (done()) return;
  const lock = `${dir}.lock`;
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  let failed: unknown = null;
  const taken = await waitUntil(
    () => {
      try {
        fs.mkdirSync(lock);
        fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
        return 'taken';
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
          failed = e;
          return 'failed';
        }
        if (done()) return 'done';
        const pid = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
        if (pid > 0 && !alive(pid)) fs.rmSync(lock, { recursive: true, force: true }); // its builder died: take it over
        return false;
      }
    },
    // another process builds it: minutes on a busy machine
    { what: `the build of ${dir} by another process`, timeoutMs: 3_600_000, intervalMs: 1000 },
  );
  if (taken === 'failed') throw failed;
  if (taken === 'done') return;
  try {
    if (!done()) await build();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

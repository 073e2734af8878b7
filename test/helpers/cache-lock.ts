/** A test cache entry built once: the first process builds it under a lock, the others wait for its `done` file. */
import fs from 'node:fs';
import path from 'node:path';

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
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (done()) return;
      const pid = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0);
      let alive = pid > 0;
      try {
        if (pid > 0) process.kill(pid, 0);
      } catch {
        alive = false;
      }
      if (!alive && pid > 0)
        fs.rmSync(lock, { recursive: true, force: true }); // its builder died
      else await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    if (!done()) await build();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

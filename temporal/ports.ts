/** Local ports: any free one, or a preferred one when free. */
import net from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `preferred` when it is free on 127.0.0.1, else the next free one of the `tries` after it, else any
 * free port (the Temporal UI on 8233, the CLI's default; PostgreSQL on 5432).
 */
export async function preferredPort(preferred: number, tries = 10): Promise<number> {
  for (let p = preferred; p < preferred + tries; p++) {
    const free = await new Promise<boolean>((resolve) => {
      const s = net.createServer();
      s.once('error', () => resolve(false));
      s.listen(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
    if (free) return p;
  }
  return freePort();
}

/**
 * The Temporal dev server newsflow starts: one that exits while starting (it lost a port to
 * another process between our check and its bind, as when many start at once) is started again
 * on other ports; one that keeps failing ends in one clear error with its log's last lines. And a
 * worker that cannot reach its server says so in a CliError-like one-liner. Real Temporal CLI.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { afterEach, describe, expect, it } from 'vitest';
import { findTemporalCli, startDevServer, TemporalSetupError, type TemporalEndpoint } from '../../temporal/index.js';
import { tempDir } from '../helpers/service.js';

const dirs: string[] = [];
const servers: TemporalEndpoint[] = [];
const saved = process.env.TEMPORAL_CLI_PATH;
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  if (saved === undefined) delete process.env.TEMPORAL_CLI_PATH;
  else process.env.TEMPORAL_CLI_PATH = saved;
});

/** A `temporal` that fails its first `failures` starts the way a lost port race does, then is the real CLI. */
function flakyCli(dir: string, failures: number): string {
  const real = findTemporalCli({ install: false });
  const script = path.join(dir, 'temporal');
  fs.writeFileSync(
    script,
    `#!/bin/sh
n=$(cat "${dir}/starts" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "${dir}/starts"
if [ $n -le ${failures} ]; then echo "listen tcp 127.0.0.1: bind: address already in use" >&2; exit 1; fi
exec "${real}" "$@"
`,
    { mode: 0o755 },
  );
  return script;
}

/** The server at `address` answers a gRPC call (GetSystemInfo). */
async function expectAnswers(address: string): Promise<void> {
  const conn = await Connection.connect({ address });
  try {
    expect((await conn.workflowService.getSystemInfo({})).capabilities).toBeTruthy();
  } finally {
    await conn.close();
  }
}

describe('the Temporal dev server newsflow starts', () => {
  it('exits while starting once: started again on other ports, and it answers', async () => {
    const dir = tempDir('newsflow-devstart-');
    dirs.push(dir);
    process.env.TEMPORAL_CLI_PATH = flakyCli(dir, 1);
    const said: string[] = [];
    const ep = await startDevServer({ dataDir: path.join(dir, 'data'), log: (m) => said.push(m) });
    servers.push(ep);
    console.log(`starts: ${fs.readFileSync(path.join(dir, 'starts'), 'utf8').trim()}; said: ${said.join(' / ')}`);
    expect(fs.readFileSync(path.join(dir, 'starts'), 'utf8').trim()).toBe('2');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^the Temporal dev server on port \d+ exited while starting \(listen tcp 127\.0\.0\.1: bind: address already in use\); starting it again on other ports$/,
    );
    await expectAnswers(ep.address);
  }, 60_000);

  it('keeps exiting: three starts, then one error that quotes its log', async () => {
    const dir = tempDir('newsflow-devstart-');
    dirs.push(dir);
    process.env.TEMPORAL_CLI_PATH = flakyCli(dir, 99);
    const err = await startDevServer({ dataDir: path.join(dir, 'data') }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(TemporalSetupError);
    expect((err as Error).message).toMatch(/exited while starting \(listen tcp 127\.0\.0\.1: bind: address already in use\)$/);
    expect(fs.readFileSync(path.join(dir, 'starts'), 'utf8').trim()).toBe('3');
  }, 60_000);

  it('headless (a one-off run): no Web UI and no UI port, and it answers', async () => {
    const dir = tempDir('newsflow-devstart-');
    dirs.push(dir);
    const ep = await startDevServer({ dataDir: dir, headless: true });
    servers.push(ep);
    expect(ep.uiUrl).toBeNull();
    const args = fs.readFileSync(`/proc/${ep.pid}/cmdline`, 'utf8').split('\0');
    expect(args).toContain('--headless');
    expect(args).not.toContain('--ui-port');
    await expectAnswers(ep.address);
  }, 60_000);

  it('a port that answers is not enough: a slow server that then fails to bind it is an error, not an endpoint', async () => {
    // Under load a dev server can take seconds to start; meanwhile another process may listen on
    // the port we chose for it. The start must wait for the server to say it started.
    const dir = tempDir('newsflow-devstart-');
    dirs.push(dir);
    const other = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    const port = (other.address() as net.AddressInfo).port;
    const real = findTemporalCli({ install: false });
    const script = path.join(dir, 'temporal');
    fs.writeFileSync(script, `#!/bin/sh\nsleep 1.5\nexec "${real}" "$@"\n`, { mode: 0o755 });
    process.env.TEMPORAL_CLI_PATH = script;
    try {
      const got = await startDevServer({ dataDir: path.join(dir, 'data'), port, headless: true }).catch((e: Error) => e);
      if (!(got instanceof Error)) servers.push(got);
      expect(got).toBeInstanceOf(TemporalSetupError);
      expect((got as Error).message).toMatch(new RegExp(`port ${port} exited while starting .*address already in use`));
    } finally {
      await new Promise((r) => other.close(r));
    }
  }, 60_000);

  it("given ports are not changed behind the caller's back: one start, one error", async () => {
    const dir = tempDir('newsflow-devstart-');
    dirs.push(dir);
    process.env.TEMPORAL_CLI_PATH = flakyCli(dir, 99);
    const err = await startDevServer({ dataDir: path.join(dir, 'data'), uiPort: 18233 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(TemporalSetupError);
    expect(fs.readFileSync(path.join(dir, 'starts'), 'utf8').trim()).toBe('1');
  }, 60_000);
});

/** Headless Chromium (Debian's /usr/bin/chromium, installed by .ci/run) on one URL, asynchronously: the server it reads may run in this process. */
import { spawn } from 'node:child_process';

export function chromium(
  url: string,
  extra: string[],
  o: { profile: string; windowSize: string; timeoutMs?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/chromium', [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      '--no-first-run',
      `--user-data-dir=${o.profile}`,
      `--window-size=${o.windowSize}`,
      ...extra,
      url,
    ]);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), o.timeoutMs ?? 120_000);
    p.on('error', reject);
    p.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

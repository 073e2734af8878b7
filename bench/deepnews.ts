/**
 * DeepNews latency over HTTP on loopback, offline (deterministic planner, extractive writer):
 * the 15 research questions of test/fixtures/deepnews/questions.json at search_depth 2, sources
 * asknews, non-streamed; total time per report, p50/p95, measured in one run on this machine.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceConfig } from '../service/config.js';
import { openServices, startService } from '../service/server.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';
import { p50p95 } from './stats.js';

export async function benchDeepNews(): Promise<Record<string, unknown>> {
  const loadBefore = Number(os.loadavg()[0]!.toFixed(2));
  const store = await seededCorpusStore();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-'));
  fs.copyFileSync(store, path.join(dir, 'service.duckdb'));
  const services = await openServices(
    serviceConfig({ dataDir: dir, logLevel: 'silent', port: 0, host: '127.0.0.1', limitsText: 'deepnews=100000:100000:100' }),
  );
  await services.keys.createOrg({ name: 'bench', domains: ['bench.example'] });
  const { key } = await services.keys.createKey({ name: 'bench', org: 'bench', scopes: ['chat'], plan: 'enterprise' });
  const running = await startService({ services, logger: false });
  const questions = (JSON.parse(fs.readFileSync(new URL('../test/fixtures/deepnews/questions.json', import.meta.url), 'utf8')) as { question: string }[]).map(
    (q) => q.question,
  );
  const warm = ['What is the news today?', 'Tell me about the economy.'];
  const total: number[] = [];
  const calls: number[] = [];
  for (const [i, q] of [...warm, ...questions].entries()) {
    const t0 = performance.now();
    const res = await fetch(`${running.url}/v1/chat/deepnews`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: q }], search_depth: 2 }),
    });
    const body = (await res.json()) as { usage?: { tool_usage?: Record<string, number> } };
    const t1 = performance.now();
    if (res.status !== 200) throw new Error(`deepnews answered ${res.status} for "${q}"`);
    if (i >= warm.length) {
      total.push(t1 - t0);
      calls.push(Object.values(body.usage?.tool_usage ?? {}).reduce((s, n) => s + n, 0));
    }
  }
  await running.close();
  await services.news?.close();
  services.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'DeepNews, offline (deterministic planner, extractive writer), search_depth 2, over loopback (ms)',
    questions: questions.length,
    tool_calls_mean: Number((calls.reduce((s, n) => s + n, 0) / calls.length).toFixed(1)),
    total: p50p95(total, 1),
    goal: { total_ms: 1500 },
    loadavg_1m: { before: loadBefore, after: Number(os.loadavg()[0]!.toFixed(2)) },
  };
}

// `node --import tsx bench/deepnews.ts` runs this one alone
if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchDeepNews()));

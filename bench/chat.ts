/**
 * Grounded chat latency over HTTP on loopback: the extractive writer answering the 30 corpus
 * questions of test/fixtures/chat/questions.json, 10 retrieved articles each, streamed (SSE):
 * time to the first content chunk and to `[DONE]`, p50/p95, measured in one run on this machine.
 * Sentence vectors are cached per process (a sentence is embedded once); the questions are distinct,
 * so most sentences of a run are embedded on the request that first meets them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceConfig } from '../service/config.js';
import { openServices, startService } from '../service/server.js';
import { seededCorpusStore } from '../test/helpers/corpus-store.js';
import { p50p95 } from './stats.js';

export async function benchChat(): Promise<Record<string, unknown>> {
  // the machine's 1-minute load average, before and after, so the figures say what they ran beside
  const loadBefore = Number(os.loadavg()[0]!.toFixed(2));
  const store = await seededCorpusStore();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'newsflow-bench-'));
  fs.copyFileSync(store, path.join(dir, 'service.duckdb'));
  const services = await openServices(serviceConfig({ dataDir: dir, logLevel: 'silent', port: 0, host: '127.0.0.1', limitsText: 'chat=100000:100000:100' }));
  await services.keys.createOrg({ name: 'bench', domains: ['bench.example'] });
  const { key } = await services.keys.createKey({ name: 'bench', org: 'bench', scopes: ['chat'], plan: 'enterprise' });
  const running = await startService({ services, logger: false });
  const questions = (JSON.parse(fs.readFileSync(new URL('../test/fixtures/chat/questions.json', import.meta.url), 'utf8')) as { question: string }[]).map(
    (q) => q.question,
  );
  const warm = ['What is the news today?', 'Tell me about the economy.', 'What happened in sport?'];
  const first: number[] = [];
  const total: number[] = [];
  for (const [i, q] of [...warm, ...questions].entries()) {
    const t0 = performance.now();
    const res = await fetch(`${running.url}/v1/openai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: q }], stream: true, filter_params: { n_articles: 10 } }),
    });
    let t1 = 0;
    const dec = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buf += dec.decode(chunk, { stream: true });
      if (!t1 && /"content":"[^"]/.test(buf)) t1 = performance.now();
    }
    const t2 = performance.now();
    if (!buf.includes('data: [DONE]')) throw new Error(`no [DONE] for "${q}"`);
    if (i >= warm.length) {
      first.push(t1 - t0);
      total.push(t2 - t0);
    }
  }
  await running.close();
  services.db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return {
    bench: 'grounded chat, extractive, 10 articles, SSE over loopback (ms)',
    questions: questions.length,
    first_token: p50p95(first, 1),
    total: p50p95(total, 1),
    goal: { first_token_ms: 150, total_ms: 400 },
    loadavg_1m: { before: loadBefore, after: Number(os.loadavg()[0]!.toFixed(2)) },
  };
}

// `node --import tsx bench/chat.ts` runs this one alone
if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await benchChat()));

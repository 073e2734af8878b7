/** `newsflow ask`: the answer printed as it streams, then its references; bad input says what was wrong. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { runCli } from '../../helpers/cli.js';
import { ask } from '../../../pipelines/api/ask.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'chat=100000:100000:100' });
});
afterAll(async () => svc?.stop());

describe('newsflow ask', () => {
  it('streams the answer to stdout piece by piece, then the references; --filters narrows retrieval', async () => {
    const pieces: string[] = [];
    const r = await ask(
      { question: 'What is happening in Ukraine?', stream: true, filters: { domain_url: ['aljazeera.com'] }, baseUrl: svc.url, apiKey: svc.keys.org },
      (s) => pieces.push(s),
    );
    expect(pieces.length).toBeGreaterThan(3);
    const out = pieces.join('');
    expect(out).toMatch(/ \[1\]/);
    const refs = out.split('\n\nReferences:\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(refs.length).toBeGreaterThan(0);
    for (const line of refs) expect(line).toMatch(/^\[\d+\] .*aljazeera\.com/);
    expect(r.threadId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.model).toBe('newsflow-extractive');
  });

  it('runs as a command: prints the answer and references, the thread on stderr; exit 0', async () => {
    const r = await runCli(['ask', 'Who won the Wimbledon final between Djokovic and Kyrgios?', '--stream', '--url', svc.url], {
      NEWSFLOW_API_KEY: svc.keys.org!,
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/Wimbledon/);
    expect(r.out).toMatch(/\n\nReferences:\n\[1\] /);
    expect(r.err).toMatch(/continue with --thread [0-9a-f-]{36}/);
  });

  it('bad --filters JSON and a bad filter value exit 1 with an error naming the problem', async () => {
    const bad = await runCli(['ask', 'x', '--filters', '{not json', '--url', svc.url], { NEWSFLOW_API_KEY: svc.keys.org! });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--filters must be a JSON object/);
    const wrong = await runCli(['ask', 'x', '--filters', '{"n_articles":"many"}', '--url', svc.url], { NEWSFLOW_API_KEY: svc.keys.org! });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/422.*filter_params/);
  });
});

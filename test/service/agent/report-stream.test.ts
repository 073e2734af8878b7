/**
 * The report streams from the provider as it is written: against a local model server that sends
 * its report 200 ms a token, the client reads the first text delta while the provider has not yet
 * sent its last token (causality, not a wall-clock bound); a client that goes away aborts the
 * provider's request. Engine v2.0 and v1.5 alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SseDecoder } from '../../../lib/sse.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startToolLlm, type ToolLlm } from '../../helpers/tool-llm.js';
import { waitUntil } from '../../helpers/wait-until.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

const Q = 'Who shot Shinzo Abe and what happened to him?';
const REPORT = ['Abe was shot ', 'at a campaign ', 'event in Nara ', '[1]. ', 'The gunman ', 'was arrested ', 'at the scene ', '[2].'];

let svc: TestService;
let llm: ToolLlm;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'deepnews=100000:100000:100' });
  llm = await startToolLlm('openai');
  svc.services.config.llm = { url: llm.url, model: 'gpt-test' };
  svc.services.config.llmTimeoutMs = 5000;
  llm.plan = (_b, turn) =>
    turn === 0 ? { text: '', calls: [{ id: 'a', name: 'search_news', input: { query: 'Shinzo Abe shot Nara' } }] } : { text: 'Done.', calls: [] };
  llm.report = REPORT;
  llm.reportGapMs = 200;
});
afterAll(async () => {
  await llm?.close();
  await svc?.stop();
});

/**
 * POST a streamed DeepNews request; `onText` sees each report delta as it is read (the engine's own
 * framing). Returns when the writing phase began (the "Writing the report" thinking was read), for printing.
 */
async function streamReport(engine: 'v1.5' | 'v2.0', onText: (text: string) => boolean | void, signal?: AbortSignal): Promise<number> {
  const res = await fetch(`${svc.url}/v1/chat/deepnews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: Q }], model: 'gpt-4o', stream: true, engine, inline_citations: 'numbered' }),
    signal,
  });
  expect(res.status).toBe(200);
  const sse = new SseDecoder();
  const bytes = new TextDecoder();
  let thinking = false;
  let writing = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    for (const data of sse.push(bytes.decode(chunk, { stream: true }))) {
      if (data === '[DONE]') return writing;
      if (!writing && data.includes('Writing the report')) writing = performance.now();
      const ev = JSON.parse(data);
      const d = ev.choices?.[0]?.delta;
      if (!d) continue;
      let text = '';
      if (engine === 'v2.0') text = d.type === 'content_block_delta' && d.delta.type === 'text_delta' ? d.delta.text : '';
      else if (typeof d.content === 'string') {
        // v1.5: thinking between <think> and </think>, each tool call inside its own tags, the report's text outside them
        const c = d.content as string;
        if (c.startsWith('<think>')) thinking = true;
        else if (c === '</think>\n') thinking = false;
        else if (!thinking && !/^<(\w+)>[^]*<\/\1>\n$/.test(c)) text = c;
      }
      if (text && onText(text) === true) return writing;
    }
  }
  return writing;
}

describe('a report streamed as the provider writes it', () => {
  it.each(['v2.0', 'v1.5'] as const)('engine %s: the first report delta reaches the client before the provider has sent its last token', async (engine) => {
    let atFirst: ToolLlm['streamed'] | null = null;
    let firstAt = 0;
    let text = '';
    const writing = await streamReport(engine, (t) => {
      if (!atFirst) [atFirst, firstAt] = [{ ...llm.streamed }, performance.now()];
      text += t;
    });
    expect(atFirst).not.toBeNull();
    // printed, not asserted: from the writing phase's start to the first report delta on the client
    console.log(
      `engine ${engine}: the provider had sent ${atFirst!.sent} of ${REPORT.length} tokens when the first delta was read, ${Math.round(firstAt - writing)} ms after the writing phase began`,
    );
    expect(atFirst!.finished).toBe(false);
    expect(atFirst!.sent).toBeLessThan(REPORT.length);
    // the whole report came through, citations numbered
    expect(llm.streamed.finished).toBe(true);
    expect(text).toMatch(/^Abe was shot at a campaign event in Nara \[1\]\. The gunman was arrested at the scene \[2\]\.\n\nResearch: /);
  });

  it("a client that goes away mid-report aborts the provider's request: its stream is closed before the last token", async () => {
    const ac = new AbortController();
    await streamReport(
      'v2.0',
      () => {
        ac.abort();
        return true;
      },
      ac.signal,
    ).catch((e) => {
      if ((e as Error).name !== 'AbortError') throw e;
    });
    const closed = await waitUntil(() => (llm.streamed.aborted ? { ...llm.streamed } : null), { what: "the provider's report stream closed by the service" });
    expect(closed.finished).toBe(false);
    expect(closed.sent).toBeLessThan(REPORT.length);
  });
});

/** The client's DeepNews methods against a real service: plain, streamed (chunks and sources, parsed by spec), the models list. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NewsClient } from '../../client/index.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { seededCorpusStore } from '../helpers/corpus-store.js';

let svc: TestService;
let c: NewsClient;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'deepnews=100000:100000:100' });
  c = new NewsClient({ baseUrl: svc.url, apiKey: svc.keys.org });
});
afterAll(async () => svc?.stop());

const messages = [{ role: 'user' as const, content: 'What did the James Webb Space Telescope reveal in its first images?' }];

describe('client DeepNews', () => {
  it('deepNews returns the parsed report with sources; streamDeepNews yields the same text and the same sources', async () => {
    const r = await c.deepNews({ messages, search_depth: 1 });
    expect(r.model).toBe('newsflow-extractive');
    expect(r.sources.news!.length).toBeGreaterThan(0);
    let text = '';
    const ids: string[] = [];
    for await (const ev of c.streamDeepNews({ messages, search_depth: 1, engine: 'v2.0' })) {
      if (ev.object === 'chat.completion.source') {
        if (ev.source.kind === 'news') ids.push(ev.source.data.article_id);
      } else {
        const d = ev.choices[0]!.delta as { type?: string; delta?: { type: string; text?: string } };
        if (d.type === 'content_block_delta' && d.delta?.type === 'text_delta') text += d.delta.text;
      }
    }
    expect(text).toBe(r.choices[0]!.message.content);
    expect(ids).toEqual(r.sources.news!.map((a) => a.article_id));
  });

  it('listDeepNewsModels returns the typed list', async () => {
    const m = await c.listDeepNewsModels();
    expect(m.models.find((x) => x.model === 'claude-sonnet-5')?.type).toBe('standard');
  });
});

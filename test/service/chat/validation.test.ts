/** Bad chat input is 422 {code, detail} naming the field; what the official SDKs send is accepted. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.js';
import { chat } from '../../helpers/chat.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ limitsText: 'chat=100000:100000:100' });
});
afterAll(async () => svc?.stop());

const user = [{ role: 'user', content: 'What is happening in Ukraine?' }];

describe('chat completions input validation', () => {
  const cases: [string, unknown, (string | number)[]][] = [
    ['missing messages', { model: 'gpt-4o-mini' }, ['body', 'messages']],
    ['empty messages', { messages: [] }, ['body', 'messages']],
    ['a role other than system/user/assistant', { messages: [{ role: 'tool', content: 'x' }] }, ['body', 'messages', 0, 'role']],
    ['a message without content', { messages: [{ role: 'user' }] }, ['body', 'messages', 0, 'content']],
    ['n = 0', { messages: user, n: 0 }, ['body', 'n']],
    ['n over the maximum (8)', { messages: user, n: 9 }, ['body', 'n']],
    ['messages of the wrong type', { messages: 'hello' }, ['body', 'messages']],
    ['temperature of the wrong type', { messages: user, temperature: 'hot' }, ['body', 'temperature']],
    ['max_tokens of the wrong type', { messages: user, max_tokens: 1.5 }, ['body', 'max_tokens']],
    ['stream of the wrong type', { messages: user, stream: 'yes' }, ['body', 'stream']],
    ['an unknown inline_citations', { messages: user, inline_citations: 'footnotes' }, ['body', 'inline_citations']],
    ['a bad search parameter inside filter_params', { messages: user, filter_params: { n_articles: 'many' } }, ['body', 'filter_params', 'n_articles']],
  ];
  it.each(cases)('%s: 422 {code, detail} naming the field', async (_name, body, loc) => {
    const r = await chat(svc, svc.keys.org!, body as Record<string, unknown>);
    expect(r.status).toBe(422);
    expect(r.body.code).toBe(422000);
    expect(r.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, msg: expect.any(String), type: expect.any(String) })]));
  });

  it('a search rule broken inside filter_params (n_articles over the maximum) is 422 located in filter_params', async () => {
    const r = await chat(svc, svc.keys.org!, { messages: user, filter_params: { n_articles: 100000 } });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc.slice(0, 2)).toEqual(['body', 'filter_params']);
  });

  it('accepts the body the official SDKs send: optional keys as null', async () => {
    const r = await chat(svc, svc.keys.org!, {
      messages: [{ role: 'user', content: 'hello', name: null, function_call: null }],
      model: 'gpt-4o-mini',
      stop: null,
      user: null,
      thread_id: null,
      filter_params: null,
      stream: false,
    });
    expect(r.status).toBe(200);
    // offline: the extractive writer answers, and says it is the one that did
    expect(r.body.model).toBe('newsflow-extractive');
  });

  it('bad JSON is a 400 {code, detail}, not a 500', async () => {
    const res = await fetch(`${svc.url}/v1/openai/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
      body: '{"messages": [',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe(400000);
  });
});

/**
 * DeepNews planned by a model: local servers speak OpenAI tool calling and Anthropic tool use;
 * the model's tool calls are executed against the real archive, their results go back to it,
 * and the report is the model's (citations resolved against what its tools found).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepNewsResponse } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { startToolLlm, type ToolLlm } from '../../helpers/tool-llm.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
let openai: ToolLlm;
let anthropic: ToolLlm;
const ANTHROPIC_KEY = 'sk-ant-byok-test-0001';
const Q = 'Who shot Shinzo Abe and what happened to him?';

beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'deepnews=100000:100000:100' });
  openai = await startToolLlm('openai');
  anthropic = await startToolLlm('anthropic');
  svc.services.config.anthropicUrl = anthropic.url;
  svc.services.config.llmTimeoutMs = 5000;
  await api(svc.url, 'PUT', '/v1/byok/anthropic', svc.keys.org, { api_key: ANTHROPIC_KEY });
});
afterAll(async () => {
  await openai?.close();
  await anthropic?.close();
  await svc?.stop();
});

const deepnews = (extra: Record<string, unknown>) =>
  api(svc.url, 'POST', '/v1/chat/deepnews', svc.keys.org!, { messages: [{ role: 'user', content: Q }], ...extra });

/** First turn: two searches; second turn: done. */
const twoSearches = (_body: unknown, turn: number) =>
  turn === 0
    ? {
        text: 'I will search the archive.',
        calls: [
          { id: 'call_a', name: 'search_news', input: { query: 'Shinzo Abe shot Nara', method: 'kw' } },
          { id: 'call_b', name: 'search_stories', input: { query: 'Abe assassination' } },
        ],
      }
    : { text: 'Enough material.', calls: [] };

describe('a model plans and writes', () => {
  it("OpenAI-compatible: the model's tool calls run, their results go back as tool messages, and the report is the model's", async () => {
    svc.services.config.llm = { url: openai.url, model: 'gpt-test' };
    openai.requests.length = 0;
    openai.plan = twoSearches;
    openai.report = ['Abe was shot ', 'in Nara [1]. ', 'Police admitted failures [2].'];
    const r = await deepnews({ model: 'gpt-4o', inline_citations: 'numbered' });
    expect(r.status).toBe(200);
    const body = DeepNewsResponse.parse(r.body);
    expect(body.model).toBe('gpt-test');
    expect(body.usage.tool_usage).toEqual({ search_news: 1, search_stories: 1 });
    const content = body.choices[0]!.message.content;
    expect(content).toMatch(/^Abe was shot in Nara \[1\]\. Police admitted failures \[2\]\.\n\nResearch: 1 round\(s\), 2 tool call\(s\)/);
    expect(body.sources.news).toHaveLength(2);
    // turn 1 offered the tools; turn 2 carried the results back; the third request wrote the report
    const [t1, t2, writer] = openai.requests.map((x) => x.body);
    expect(t1.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['search_news', 'search_stories']);
    const toolMsgs = t2.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMsgs.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(['call_a', 'call_b']);
    expect(toolMsgs[0].content).toMatch(/^\[[0-9a-f-]{36}\] .*Abe/i);
    expect(t2.messages.find((m: { role: string; tool_calls?: unknown[] }) => m.role === 'assistant' && m.tool_calls)?.tool_calls).toHaveLength(2);
    expect(writer.tools).toBeUndefined();
    expect(writer.messages[0].content).toMatch(/News articles:\n\n\[1\] .*Abe/);
    expect(openai.requests).toHaveLength(3);
  });

  it("Anthropic tool use (BYOK): tool_use blocks run, tool_result blocks go back, the report is Claude's", async () => {
    anthropic.requests.length = 0;
    anthropic.plan = twoSearches;
    anthropic.report = ['Claude: Abe was killed [1].'];
    const r = await deepnews({ model: 'claude-sonnet-5', stream: false });
    expect(r.status).toBe(200);
    expect(r.body.model).toBe('claude-sonnet-5');
    expect(r.body.usage.tool_usage).toEqual({ search_news: 1, search_stories: 1 });
    expect(r.body.choices[0].message.content).toMatch(/^Claude: Abe was killed \[\[1\]\(http/);
    const [t1, t2] = anthropic.requests;
    expect(t1!.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    expect(t1!.body.tools.map((t: { name: string }) => t.name)).toEqual(['search_news', 'search_stories']);
    expect(t1!.body.tools[0].input_schema.type).toBe('object');
    const assistant = t2!.body.messages.find((m: { role: string }) => m.role === 'assistant');
    expect(assistant.content.filter((b: { type: string }) => b.type === 'tool_use').map((b: { id: string }) => b.id)).toEqual(['call_a', 'call_b']);
    const results = t2!.body.messages[t2!.body.messages.length - 1];
    expect(results.role).toBe('user');
    expect(results.content.map((b: { type: string; tool_use_id: string }) => [b.type, b.tool_use_id])).toEqual([
      ['tool_result', 'call_a'],
      ['tool_result', 'call_b'],
    ]);
  });

  it("max_depth caps the model's rounds; an unknown tool name is answered, not run; a cutoff reaches the planner's instructions", async () => {
    svc.services.config.llm = { url: openai.url, model: 'gpt-test' };
    openai.requests.length = 0;
    openai.plan = (_b, turn) => ({
      text: '',
      calls: [{ id: `c${turn}`, name: turn === 0 ? 'hack_the_planet' : 'search_news', input: { query: `Abe ${turn}` } }],
    });
    const r = await deepnews({ model: 'gpt-4o', max_depth: 3, cutoff_datetime: '2022-07-09T00:00:00Z' });
    expect(r.status).toBe(200);
    const tools = openai.requests.filter((x) => Array.isArray(x.body.tools));
    expect(tools).toHaveLength(3);
    expect(r.body.usage.tool_usage).toEqual({ search_news: 2 });
    expect(tools[1]!.body.messages.find((m: { role: string }) => m.role === 'tool').content).toBe('unknown tool hack_the_planet');
    expect(tools[0]!.body.messages[0].content).toContain('2022-07-09T00:00:00.000Z');
    for (const a of r.body.sources.news) expect(Date.parse(a.pub_date)).toBeLessThanOrEqual(Date.parse('2022-07-09T00:00:00Z'));
  });

  it('a failing model provider is a 502 naming it', async () => {
    svc.services.config.llm = { url: 'http://127.0.0.1:9', model: 'gpt-test' };
    const r = await deepnews({ model: 'gpt-4o' });
    expect(r.status).toBe(502);
    expect(r.body.code).toBe(502000);
    expect(r.body.detail).toMatch(/^openai provider failed/);
    // streamed: the research has begun (thinking sent), so the failure is an in-stream error event (spec/chat.ts `StreamError`)
    const s = await deepnews({ model: 'gpt-4o', stream: true });
    expect(s.status).toBe(200);
    const events = s.text
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(JSON.parse(events[events.length - 1]!)).toEqual({ error: { message: expect.stringMatching(/^openai provider failed/), code: 502000 } });
    expect(events).not.toContain('[DONE]');
    svc.services.config.llm = null;
  });

  it('journalist_mode true frames sentences with their publisher; false gives them as written', async () => {
    // no OpenAI-compatible server and a model without a BYOK key: the extractive writer
    svc.services.config.llm = null;
    const on = await deepnews({ model: 'gpt-4o', search_depth: 1, append_references: false, asknews_watermark: false });
    const off = await deepnews({ model: 'gpt-4o', search_depth: 1, append_references: false, asknews_watermark: false, journalist_mode: false });
    expect(on.body.model).toBe('newsflow-extractive');
    expect(on.body.choices[0].message.content).toMatch(/, [A-Z][\w ]* reported \[\[1\]/);
    expect(off.body.choices[0].message.content).not.toMatch(/ reported \[\[\d+\]/);
  });
});

/**
 * POST /v1/chat/deepnews with stream true: engine v1.5 (inline <think> and tool-named tags) and
 * engine v2.0 (typed block events), source events, usage on every chunk, [DONE] last; the
 * report's text equals the non-streamed content.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeepNewsStreamChunk, DeepNewsStreamSource, SearchResponseDictItem } from '../../../spec/index.js';
import { api, startTestService, type TestService } from '../../helpers/service.js';
import { sseEvents } from '../../helpers/chat.js';
import { seededCorpusStore } from '../../helpers/corpus-store.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ corpusStore: await seededCorpusStore(), limitsText: 'deepnews=100000:100000:100' });
});
afterAll(async () => svc?.stop());

const Q = 'What happened in the battle for Mariupol and the Azovstal steel plant?';
const BODY = { messages: [{ role: 'user', content: Q }], sources: ['asknews', 'full_text_discovery', 'podcasts', 'wiki', 'x'], search_depth: 2 };

async function stream(extra: Record<string, unknown>) {
  const res = await fetch(`${svc.url}/v1/chat/deepnews`, {
    method: 'POST',
    headers: { authorization: `Bearer ${svc.keys.org}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...BODY, stream: true, ...extra }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const events = sseEvents(await res.text());
  expect(events[events.length - 1]).toBe('[DONE]');
  return events.slice(0, -1).map((e) => JSON.parse(e));
}

async function plain(extra: Record<string, unknown> = {}) {
  const r = await api(svc.url, 'POST', '/v1/chat/deepnews', svc.keys.org, { ...BODY, ...extra });
  expect(r.status).toBe(200);
  return r.body;
}

/** Tags of a text in order: balanced means every opening tag is closed before its parent closes. */
function balanced(text: string): { ok: boolean; tags: string[] } {
  const stack: string[] = [];
  const tags: string[] = [];
  for (const m of text.matchAll(
    /<(\/?)(think|search_news|search_stories|read_full_text|search_podcasts|search_wiki|search_web|search_forum|make_chart|build_graph)>/g,
  )) {
    if (!m[1]) {
      stack.push(m[2]!);
      tags.push(m[2]!);
    } else if (stack.pop() !== m[2]) return { ok: false, tags };
  }
  return { ok: stack.length === 0, tags };
}

describe('engine v1.5 stream', () => {
  it('think and tool tags are balanced; without them the text is the non-stream content; usage on every chunk; sources parse', async () => {
    const events = await stream({ engine: 'v1.5' });
    const chunks = events.filter((e) => e.object === 'chat.completion.chunk');
    for (const c of chunks) {
      DeepNewsStreamChunk.parse(c);
      expect(c.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    }
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    const b = balanced(text);
    expect(b.ok).toBe(true);
    expect(b.tags.filter((t) => t === 'think').length).toBeGreaterThanOrEqual(1);
    expect(b.tags).toContain('search_news');
    expect(b.tags).toContain('read_full_text');
    expect(b.tags).toContain('search_podcasts');
    // the thinking says what was skipped (x: no data); wiki is a capability of this service: its tool runs
    expect(text).toMatch(/<think>[^]*Source x: no data on this service, skipped/);
    expect(b.tags).toContain('search_wiki');
    expect(text).not.toMatch(/is unavailable/);
    const report = text.replace(/<think>[^]*?<\/think>\n/g, '').replace(/<(search_\w+|read_full_text|make_chart|build_graph)>[^]*?<\/\1>\n/g, '');
    const body = await plain();
    expect(report).toBe(body.choices[0].message.content);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    expect(chunks[chunks.length - 1].usage.tool_usage).toEqual(body.usage.tool_usage);
    const sources = events.filter((e) => e.object === 'chat.completion.source');
    expect(sources.length).toBe(body.sources.news.length);
    for (const s of sources) {
      DeepNewsStreamSource.parse(s);
      expect(s.source.kind).toBe('news');
      SearchResponseDictItem.parse(s.source.data);
    }
    expect(sources.map((s) => s.source.data.article_id)).toEqual(body.sources.news.map((a: { article_id: string }) => a.article_id));
  });
});

describe('engine v2.0 stream', () => {
  it('every block starts before its deltas and stops once, indices are consistent, the text deltas equal the non-stream content', async () => {
    const events = await stream({ engine: 'v2.0' });
    const chunks = events.filter((e) => e.object === 'chat.completion.chunk');
    for (const c of chunks) DeepNewsStreamChunk.parse(c);
    const deltas = chunks.map((c) => c.choices[0].delta);
    expect(deltas[0]).toEqual({ type: 'message_start', role: 'assistant' });
    expect(deltas[deltas.length - 1]).toEqual({ type: 'message_stop' });
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    const kinds = new Map<number, string>();
    const stopped = new Set<number>();
    let last = -1;
    let text = '';
    const tools: string[] = [];
    for (const d of deltas.slice(1, -1)) {
      if (d.type === 'content_block_start') {
        expect(kinds.has(d.index)).toBe(false);
        expect(d.index).toBe(last + 1); // blocks numbered 0, 1, 2, ... in order
        // the previous block is closed before the next starts
        if (last >= 0) expect(stopped.has(last)).toBe(true);
        last = d.index;
        kinds.set(d.index, d.content_block.type);
        if (d.content_block.type === 'tool_use') {
          expect(d.content_block.id).toMatch(/^toolu_/);
          tools.push(d.content_block.name);
        }
      } else if (d.type === 'content_block_delta') {
        expect(kinds.has(d.index)).toBe(true);
        expect(stopped.has(d.index)).toBe(false);
        const want = { text: 'text_delta', thinking: 'thinking_delta', tool_use: 'input_json_delta' }[kinds.get(d.index)!];
        expect(d.delta.type).toBe(want);
        if (d.delta.type === 'text_delta') text += d.delta.text;
        if (d.delta.type === 'input_json_delta') expect(() => JSON.parse(d.delta.partial_json)).not.toThrow();
      } else if (d.type === 'content_block_stop') {
        expect(kinds.has(d.index)).toBe(true);
        expect(stopped.has(d.index)).toBe(false);
        stopped.add(d.index);
      } else throw new Error(`unexpected delta ${JSON.stringify(d)}`);
    }
    expect([...kinds.keys()].every((i) => stopped.has(i))).toBe(true);
    expect(new Set(kinds.values())).toEqual(new Set(['thinking', 'tool_use', 'text']));
    expect(tools).toContain('search_news');
    const body = await plain();
    expect(text).toBe(body.choices[0].message.content);
    const sources = events.filter((e) => e.object === 'chat.completion.source');
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) SearchResponseDictItem.parse(DeepNewsStreamSource.parse(s).source.data);
  });

  it('return_sources false sends no source event', async () => {
    const events = await stream({ engine: 'v2.0', return_sources: false });
    expect(events.some((e) => e.object === 'chat.completion.source')).toBe(false);
  });
});

/**
 * POST /v1/chat/deepnews (plain or SSE, framed as spec/chat.ts `SSE` says) and GET /v1/chat/deepnews-models.
 *
 * Streams (`stream: true`), one SSE `data:` event per chunk, `usage` on every chunk, `data: [DONE]` last:
 * - engine v1 / v1.5: `chat.completion.chunk` with `delta.content` text; the thinking is inline
 *   between `<think>` and `</think>`, each tool call between tags named after the tool
 *   (`<search_news>{input}\nresult</search_news>`), then the report's text.
 * - engine v2.0: typed deltas: `message_start`; per block `content_block_start` (thinking /
 *   tool_use with id, name, input / text), its `content_block_delta`s (thinking_delta /
 *   input_json_delta / text_delta), `content_block_stop`; `message_stop` with the finish_reason.
 * - then, with return_sources, one `chat.completion.source` event per source (kind news / web /
 *   chart / graph).
 * The report's text in a stream equals the non-streamed `choices[].message.content`.
 */
import { DEEPNEWS_MODELS } from '../../spec/index.js';
import { sseFrame as frame } from '../../lib/sse.js';
import type { GroupHandlers } from '../context.js';
import { publicBase } from '../config.js';
import { rawFilterParams, replyRun } from '../chat/respond.js';
import { startDeepNews, type AgentEvent, type DeepNewsRun } from '../agent/run.js';
import { deepNewsModels } from '../agent/models.js';
import { byokAllowed, ownerOf } from '../byok/store.js';

function chunk(run: DeepNewsRun, index: number, delta: Record<string, unknown>, finish: string | null = null) {
  return {
    id: run.id,
    created: run.created,
    object: 'chat.completion.chunk',
    model: run.model,
    usage: { ...run.usage, tool_usage: { ...run.usage.tool_usage } },
    choices: [{ index, delta, finish_reason: finish }],
  };
}
const sourceEvent = (run: DeepNewsRun, source: unknown) => ({ id: run.id, created: run.created, object: 'chat.completion.source', source });

/** Engine v1 / v1.5: everything as text; thinking inside <think>, tool calls inside tool-named tags. */
function v15(run: DeepNewsRun) {
  let thinking = false;
  const text = (index: number, content: string) => frame(chunk(run, index, { role: 'assistant', content }));
  return (e: AgentEvent): string[] => {
    const out: string[] = [];
    if (e.type !== 'thinking' && thinking) {
      out.push(text(0, '</think>\n'));
      thinking = false;
    }
    if (e.type === 'thinking') {
      out.push(text(0, thinking ? e.text : `<think>${e.text}`));
      thinking = true;
    } else if (e.type === 'tool') out.push(text(0, `<${e.name}>${JSON.stringify(e.input)}\n${e.result}</${e.name}>\n`));
    else if (e.type === 'text') out.push(text(e.index, e.text));
    else if (e.type === 'finish') out.push(frame(chunk(run, e.index, { role: 'assistant', content: '' }, e.reason)));
    else out.push(frame(sourceEvent(run, e.source)));
    return out;
  };
}

/** Engine v2.0: typed block events. */
function v2(run: DeepNewsRun) {
  let block = -1;
  let open: 'thinking' | 'text' | null = null;
  let started = false;
  const ev = (delta: Record<string, unknown>, index = 0, finish: string | null = null) => frame(chunk(run, index, delta, finish));
  return (e: AgentEvent): string[] => {
    const out: string[] = [];
    if (!started) {
      out.push(ev({ type: 'message_start', role: 'assistant' }));
      started = true;
    }
    const close = () => {
      if (open) out.push(ev({ type: 'content_block_stop', index: block }));
      open = null;
    };
    const openBlock = (kind: 'thinking' | 'text') => {
      if (open === kind) return;
      close();
      block++;
      open = kind;
      out.push(
        ev({ type: 'content_block_start', index: block, content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '' } }),
      );
    };
    if (e.type === 'thinking') {
      openBlock('thinking');
      out.push(ev({ type: 'content_block_delta', index: block, delta: { type: 'thinking_delta', thinking: e.text } }));
    } else if (e.type === 'tool') {
      close();
      block++;
      out.push(ev({ type: 'content_block_start', index: block, content_block: { type: 'tool_use', id: e.id, name: e.name, input: {} } }));
      out.push(ev({ type: 'content_block_delta', index: block, delta: { type: 'input_json_delta', partial_json: JSON.stringify(e.input) } }));
      out.push(ev({ type: 'content_block_stop', index: block }));
      openBlock('thinking');
      out.push(ev({ type: 'content_block_delta', index: block, delta: { type: 'thinking_delta', thinking: `${e.name}: ${e.result}\n` } }));
    } else if (e.type === 'text') {
      openBlock('text');
      out.push(ev({ type: 'content_block_delta', index: block, delta: { type: 'text_delta', text: e.text } }, e.index));
    } else if (e.type === 'finish') {
      close();
      out.push(ev({ type: 'message_stop' }, e.index, e.reason));
    } else {
      close();
      out.push(frame(sourceEvent(run, e.source)));
    }
    return out;
  };
}

export const deepnewsHandlers: GroupHandlers = {
  deep_news: async (ctx) => {
    const body = ctx.body;
    // the graph pages and chart counts it cites are absolute URLs under the public base URL, never the request's Host
    const origin = publicBase(ctx.services.config);
    const run = await startDeepNews(
      ctx.services,
      ctx.principal!,
      { ...body, filter_params: rawFilterParams(ctx.req) },
      { log: ctx.req.log, origin, signal: ctx.signal },
    );
    return replyRun(ctx, run, {
      stream: body.stream,
      n: body.n,
      render: body.engine === 'v2.0' ? v2(run) : v15(run),
      doing: { what: 'deepnews', while: 'researching' },
      extra: () => ({ sources: run.sources }),
    });
  },

  list_deepnews_models: async (ctx) => {
    const keys: Record<string, string> = {};
    const p = ctx.principal;
    if (p && byokAllowed(p)) {
      try {
        Object.assign(keys, await ctx.services.byok.keys(ownerOf(p)));
      } catch {
        /* keys that cannot be opened count as absent */
      }
    }
    return { models: deepNewsModels(ctx.services.llm, DEEPNEWS_MODELS, keys) };
  },
};

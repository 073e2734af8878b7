/** POST /v1/openai/chat/completions (plain or SSE, framed as spec/chat.ts `SSE` says) and GET /v1/openai/models. */
import { sseFrame } from '../../lib/sse.js';
import type { GroupHandlers } from '../context.js';
import { BYOK_PROVIDERS, byokAllowed, ownerOf } from '../byok/store.js';
import { startChat, type ChatRun } from '../chat/completion.js';
import { rawFilterParams, replyRun } from '../chat/respond.js';

function chunk(run: ChatRun, index: number, content: string, finish: string | null) {
  return {
    id: run.id,
    created: run.created,
    object: 'chat.completion.chunk',
    model: run.model,
    usage: { ...run.usage },
    choices: [{ index, delta: { role: 'assistant', content }, finish_reason: finish }],
    thread_id: run.threadId,
  };
}

export const chatHandlers: GroupHandlers = {
  /** SSE: one chunk per delta, a closing chunk per choice with its finish_reason, `data: [DONE]` last; a failure is an error event. */
  get_chat_completions: async (ctx) => {
    const body = ctx.body;
    const run = await startChat(ctx.services, ctx.principal!, { ...body, filter_params: rawFilterParams(ctx.req) }, ctx.req.log, ctx.signal);
    return replyRun(ctx, run, {
      stream: body.stream,
      n: body.n,
      render: (e) => [sseFrame(e.type === 'text' ? chunk(run, e.index, e.text, null) : chunk(run, e.index, '', e.reason))],
      doing: { what: 'chat', while: 'streaming the answer' },
    });
  },

  list_models: async (ctx) => {
    const owner = ownerOf(ctx.principal!);
    const keys: Record<string, string> = {};
    // a key below the BYOK plan neither uses nor sees its organization's stored keys
    if (byokAllowed(ctx.principal!)) for (const p of BYOK_PROVIDERS) if ((await ctx.services.byok.hint(owner, p)) !== null) keys[p] = 'stored';
    const created = Math.floor(Date.now() / 1000);
    return { object: 'list', data: ctx.services.llm.models(keys).map((m) => ({ id: m.id, object: 'model', created, owned_by: m.owned_by })) };
  },
};

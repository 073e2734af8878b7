/** POST /v1/openai/chat/completions (plain or SSE, facts §11.1-11.2) and GET /v1/openai/models (§11.3). */
import { Readable } from 'node:stream';
import { SSE } from '../../spec/index.js';
import type { GroupHandlers } from '../context.js';
import { ProviderError } from '../llm/index.js';
import { BYOK_PROVIDERS, byokAllowed, ownerOf } from '../byok/store.js';
import { startChat, type ChatBody, type ChatEvent, type ChatLog, type ChatRun } from '../chat/completion.js';
import { frame, gateway, rawFilterParams, sseFrames } from '../chat/respond.js';

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

/** SSE: one chunk per delta, a closing chunk per choice with its finish_reason, `data: [DONE]` last; a failure is an error event. */
function sse(run: ChatRun, first: IteratorResult<ChatEvent>, it: AsyncGenerator<ChatEvent>, log: ChatLog, signal: AbortSignal): AsyncGenerator<string> {
  return sseFrames(first, it, (e) => [frame(e.type === 'delta' ? chunk(run, e.index, e.text, null) : chunk(run, e.index, '', e.reason))], log, {
    what: 'chat',
    while: 'streaming the answer',
    signal,
  });
}

export const chatHandlers: GroupHandlers = {
  get_chat_completions: async (ctx) => {
    const body = ctx.body as ChatBody;
    const run = await startChat(ctx.services, ctx.principal!, { ...body, filter_params: rawFilterParams(ctx.req) }, ctx.req.log, ctx.signal);
    const it = run.events();
    ctx.reply.header('x-thread-id', run.threadId);
    try {
      if (body.stream) {
        // the first event decides between an error response (502) and a stream
        const first = await it.next();
        ctx.reply.header('content-type', SSE.contentType).header('cache-control', 'no-cache').header('x-accel-buffering', 'no');
        return ctx.reply.code(200).send(Readable.from(sse(run, first, it, ctx.req.log, ctx.signal)));
      }
      const texts: string[] = Array(body.n).fill('');
      const reasons: (string | null)[] = Array(body.n).fill(null);
      for await (const e of it) {
        if (e.type === 'delta') texts[e.index] += e.text;
        else reasons[e.index] = e.reason;
      }
      return {
        id: run.id,
        created: run.created,
        object: 'chat.completion',
        model: run.model,
        usage: run.usage,
        choices: texts.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: reasons[index] })),
        thread_id: run.threadId,
      };
    } catch (e) {
      // no answer started: a new thread was not stored, so its id is not announced
      ctx.reply.removeHeader('x-thread-id');
      // the client left: its work stopped, nothing to report
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (e instanceof ProviderError) throw gateway(e, ctx.req.log);
      throw e;
    }
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

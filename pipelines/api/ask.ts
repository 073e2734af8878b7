/**
 * `newsflow ask`: one grounded chat question to the API (NEWSFLOW_API_URL / NEWSFLOW_API_KEY),
 * the answer written as it streams, then its references (the API appends them).
 */
import { NewsClient, ApiError } from '../../client/index.js';

export interface AskOptions {
  question: string;
  stream?: boolean;
  filters?: Record<string, unknown> | null;
  model?: string;
  citations?: 'numbered' | 'markdown_link' | 'none';
  threadId?: string;
  baseUrl?: string;
  apiKey?: string;
}

export class AskError extends Error {}

/** Writes the answer to `out`; returns the thread id to continue with (--thread). */
export async function ask(
  o: AskOptions,
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<{ threadId: string | null; model: string | null }> {
  const client = new NewsClient({ baseUrl: o.baseUrl, apiKey: o.apiKey, validate: 'off' });
  const body = {
    messages: [{ role: 'user' as const, content: o.question }],
    model: o.model,
    inline_citations: o.citations ?? 'numbered',
    append_references: true,
    filter_params: o.filters ?? undefined,
    thread_id: o.threadId,
  };
  try {
    if (o.stream) {
      let threadId: string | null = null;
      let model: string | null = null;
      for await (const c of client.streamChatCompletions(body)) {
        threadId ??= (c as { thread_id?: string }).thread_id ?? null;
        model ??= c.model;
        for (const ch of c.choices) if (ch.index === 0 && ch.delta.content) out(ch.delta.content);
      }
      out('\n');
      return { threadId, model };
    }
    const r = await client.chatCompletions(body);
    out(`${r.choices[0]?.message.content ?? ''}\n`);
    return { threadId: (r as { thread_id?: string }).thread_id ?? null, model: r.model };
  } catch (e) {
    if (e instanceof ApiError) throw new AskError(e.message);
    throw e;
  } finally {
    await client.close();
  }
}

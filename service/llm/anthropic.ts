/**
 * Anthropic Messages API: `POST {url}/v1/messages` with `x-api-key` (the caller's BYOK key) and
 * `anthropic-version`; system messages go to `system`, consecutive turns of one role are merged
 * (the API wants user/assistant alternating, user first). Streams `content_block_delta` events.
 */
import { ProviderError, type LlmMessage, type LlmProvider, type LlmRequest } from './types.js';
import { eventJson, guarded, json, post } from './http.js';
import { sseData } from './sse.js';

export interface AnthropicConfig {
  url: string;
  key: string;
  model: string;
  timeoutMs: number;
}

/** Anthropic requires max_tokens; the interface's default (9999) is capped to this. */
const MAX_OUTPUT = 8192;

export function alternating(messages: LlmMessage[]): { role: 'user' | 'assistant'; content: string }[] {
  const out: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const last = out[out.length - 1];
    if (last && last.role === m.role) last.content += `\n\n${m.content}`;
    else out.push({ role: m.role, content: m.content });
  }
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: '(conversation continues)' });
  return out;
}

export class AnthropicProvider implements LlmProvider {
  readonly name = 'anthropic';
  constructor(private readonly cfg: AnthropicConfig) {}
  get model(): string {
    return this.cfg.model;
  }

  async *stream(req: LlmRequest): AsyncIterable<string> {
    const url = `${this.cfg.url.replace(/\/+$/, '')}/v1/messages`;
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const body = {
      model: this.cfg.model,
      max_tokens: Math.min(req.max_tokens ?? MAX_OUTPUT, MAX_OUTPUT),
      ...(system ? { system } : {}),
      messages: alternating(req.messages),
      // Anthropic's temperature range is [0, 1]
      ...(req.temperature !== undefined ? { temperature: Math.min(1, Math.max(0, req.temperature)) } : {}),
      ...(req.top_p !== undefined && req.top_p < 1 ? { top_p: req.top_p } : {}),
      ...(req.stop?.length ? { stop_sequences: req.stop } : {}),
      ...(req.user ? { metadata: { user_id: req.user } } : {}),
      stream: !!req.stream,
    };
    const headers = { 'x-api-key': this.cfg.key, 'anthropic-version': '2023-06-01' };
    const res = await post(this.name, url, headers, body, this.cfg.timeoutMs, req.signal);
    if (!req.stream) {
      const b = await json<{ content?: { type: string; text?: string }[] }>(this.name, res, url, this.cfg.timeoutMs);
      if (!Array.isArray(b.content)) throw new ProviderError(this.name, 'bad JSON', `${url} answered without content`);
      yield b.content.filter((c) => c.type === 'text').map((c) => c.text ?? '').join('');
      return;
    }
    for await (const data of guarded(this.name, url, this.cfg.timeoutMs, sseData(res.body!))) {
      const ev = eventJson<{ type?: string; delta?: { type?: string; text?: string }; error?: { message?: string } }>(this.name, data);
      if (ev.type === 'error') throw new ProviderError(this.name, 'stream broke', `in-stream error: ${ev.error?.message ?? data}`);
      if (ev.type === 'content_block_delta' && ev.delta?.type === 'text_delta' && ev.delta.text) yield ev.delta.text;
      if (ev.type === 'message_stop') return;
    }
  }
}

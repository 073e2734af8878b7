/**
 * Anthropic Messages API: `POST {url}/v1/messages` with `x-api-key` (the caller's BYOK key) and
 * `anthropic-version`; system messages go to `system`, consecutive turns of one role are merged
 * (the API wants user/assistant alternating, user first). Streams `content_block_delta` events.
 */
import { ProviderError, type LlmMessage, type LlmProvider, type LlmRequest } from './types.js';
import { eventJson, events, guarded, json, post } from './http.js';
import type { AgentMessage, ToolTurn, ToolTurnRequest } from './tools.js';

export interface AnthropicConfig {
  url: string;
  key: string;
  model: string;
  timeoutMs: number;
}

/** Anthropic requires max_tokens; the interface's default (9999) is capped to this. */
const MAX_OUTPUT = 8192;

/** The system messages, joined: Anthropic takes them apart from the turns. */
const systemOf = (messages: { role: string; content: string }[]) =>
  messages
    .filter((m) => m.role === 'system')
    .map((m) => m.content)
    .join('\n\n');

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

  private get url(): string {
    return `${this.cfg.url.replace(/\/+$/, '')}/v1/messages`;
  }

  /** What every Messages request carries: the model, max_tokens, the system messages, sampling it takes (no penalties, no n), the user. */
  private common(req: Pick<LlmRequest, 'messages' | 'max_tokens' | 'temperature' | 'top_p' | 'user'> | ToolTurnRequest) {
    const system = systemOf(req.messages);
    return {
      model: this.cfg.model,
      max_tokens: Math.min(req.max_tokens ?? MAX_OUTPUT, MAX_OUTPUT),
      ...(system ? { system } : {}),
      // Anthropic's temperature range is [0, 1]; top_p only when it narrows
      ...(req.temperature !== undefined ? { temperature: Math.min(1, Math.max(0, req.temperature)) } : {}),
      ...(req.top_p !== undefined && req.top_p < 1 ? { top_p: req.top_p } : {}),
      ...(req.user ? { metadata: { user_id: req.user } } : {}),
    };
  }

  async *stream(req: LlmRequest): AsyncIterable<string> {
    const url = this.url;
    const body = {
      ...this.common(req),
      messages: alternating(req.messages),
      ...(req.stop?.length ? { stop_sequences: req.stop } : {}),
      stream: !!req.stream,
    };
    const headers = { 'x-api-key': this.cfg.key, 'anthropic-version': '2023-06-01' };
    const res = await post(this.name, url, headers, body, this.cfg.timeoutMs, req.signal);
    if (!req.stream) {
      const b = await json<{ content?: { type: string; text?: string }[] }>(this.name, res, url, this.cfg.timeoutMs);
      if (!Array.isArray(b.content)) throw new ProviderError(this.name, 'bad JSON', `${url} answered without content`);
      yield b.content
        .filter((c) => c.type === 'text')
        .map((c) => c.text ?? '')
        .join('');
      return;
    }
    for await (const data of guarded(this.name, url, this.cfg.timeoutMs, events(res))) {
      const ev = eventJson<{ type?: string; delta?: { type?: string; text?: string }; error?: { message?: string } }>(this.name, data);
      if (ev.type === 'error') throw new ProviderError(this.name, 'stream broke', `in-stream error: ${ev.error?.message ?? data}`);
      if (ev.type === 'content_block_delta' && ev.delta?.type === 'text_delta' && ev.delta.text) yield ev.delta.text;
      if (ev.type === 'message_stop') return;
    }
  }

  /** One tool-use turn (`tools`); the answer's text blocks and its `tool_use` blocks. */
  async toolTurn(req: ToolTurnRequest): Promise<ToolTurn> {
    const url = this.url;
    const body = {
      ...this.common(req),
      messages: anthropicTurns(req.messages),
      tools: req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
      ...(req.parallel !== undefined && req.parallel <= 1 ? { tool_choice: { type: 'auto', disable_parallel_tool_use: true } } : {}),
    };
    const headers = { 'x-api-key': this.cfg.key, 'anthropic-version': '2023-06-01' };
    const res = await post(this.name, url, headers, body, this.cfg.timeoutMs, req.signal);
    type Block = { type?: string; text?: string; id?: string; name?: string; input?: unknown };
    const b = await json<{ content?: Block[] }>(this.name, res, url, this.cfg.timeoutMs);
    if (!Array.isArray(b.content)) throw new ProviderError(this.name, 'bad JSON', `${url} answered without content`);
    const text = b.content
      .filter((c) => c?.type === 'text')
      .map((c) => c.text ?? '')
      .join('');
    const toolCalls = b.content
      .filter((c) => c?.type === 'tool_use' && typeof c.name === 'string')
      .map((c, i) => ({
        id: typeof c.id === 'string' && c.id ? c.id : `toolu_${i}`,
        name: c.name!,
        input: c.input && typeof c.input === 'object' && !Array.isArray(c.input) ? (c.input as Record<string, unknown>) : {},
      }));
    return { text, toolCalls };
  }
}

type AnthropicBlock = Record<string, unknown>;
/** Agent messages as Anthropic turns: tool calls as `tool_use` blocks, results as `tool_result` blocks of a user turn; same-role turns merged. */
export function anthropicTurns(messages: AgentMessage[]): { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] {
  const out: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks: AnthropicBlock[] = [];
    if (m.role === 'tool') blocks.push({ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content });
    else {
      if (m.content) blocks.push({ type: 'text', text: m.content });
      if (m.role === 'assistant') for (const c of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: c.input });
    }
    if (!blocks.length) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: [{ type: 'text', text: '(conversation continues)' }] });
  return out;
}

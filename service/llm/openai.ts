/**
 * OpenAI-compatible `POST {url}/chat/completions` (OpenAI, vLLM, Ollama, llama.cpp server, ...),
 * plain or streamed (SSE `data:` chunks with choices[].delta.content, `[DONE]` last). Sampling is
 * passed as given (temperature, top_p, presence/frequency penalties, stop, max_tokens, user); `n`
 * answers come from one call (`n`), their chunks told apart by `choices[].index`.
 */
import { ProviderError, type ChoiceEvent, type LlmProvider, type LlmRequest } from './types.js';
import { eventJson, events, guarded, json, post } from './http.js';
import { argsObject, type AgentMessage, type ToolTurn, type ToolTurnRequest } from './tools.js';

export interface OpenAiConfig {
  url: string;
  /** the model sent (the request's model when listed in `models`, else this) */
  model: string;
  key?: string;
  timeoutMs: number;
}

type Choice = { index?: number; message?: { content?: string | null }; delta?: { content?: string | null }; finish_reason?: string | null };

export class OpenAiProvider implements LlmProvider {
  readonly name = 'openai';
  constructor(private readonly cfg: OpenAiConfig) {}
  get model(): string {
    return this.cfg.model;
  }

  async *stream(req: LlmRequest): AsyncIterable<string> {
    for await (const e of this.streamChoices(req, 1)) if ('text' in e) yield e.text;
  }

  /** `n` answers from one call (`n`); streamed, each chunk's `choices[].delta.content` by its index; plain, `choices[].message.content`. */
  async *streamChoices(req: LlmRequest, n: number): AsyncIterable<ChoiceEvent> {
    const url = `${this.cfg.url.replace(/\/+$/, '')}/chat/completions`;
    const body: Record<string, unknown> = {
      model: this.cfg.model,
      messages: req.messages,
      temperature: req.temperature,
      top_p: req.top_p,
      ...(n > 1 ? { n } : {}),
      stop: req.stop?.length ? req.stop : undefined,
      max_tokens: req.max_tokens,
      presence_penalty: req.presence_penalty,
      frequency_penalty: req.frequency_penalty,
      user: req.user ?? undefined,
      stream: !!req.stream,
      ...(req.json ? { response_format: { type: 'json_object' } } : {}),
    };
    const headers: Record<string, string> = this.cfg.key ? { authorization: `Bearer ${this.cfg.key}` } : {};
    const res = await post(this.name, url, headers, body, this.cfg.timeoutMs, req.signal);
    if (!req.stream) {
      const b = await json<{ choices?: Choice[]; error?: { message?: string } }>(this.name, res, url, this.cfg.timeoutMs);
      const first = b.choices?.[0]?.message?.content;
      if (typeof first !== 'string')
        throw new ProviderError(this.name, 'bad JSON', `${url} answered without choices[0].message.content${b.error?.message ? `: ${b.error.message}` : ''}`);
      for (const [i, c] of (b.choices ?? []).entries()) {
        const index = typeof c.index === 'number' ? c.index : i;
        if (index >= n || typeof c.message?.content !== 'string') continue;
        yield { index, text: c.message.content };
        yield { index, end: true };
      }
      return;
    }
    for await (const data of guarded(this.name, url, this.cfg.timeoutMs, events(res))) {
      const ev = eventJson<{ choices?: Choice[]; error?: { message?: string } }>(this.name, data);
      if (ev.error) throw new ProviderError(this.name, 'stream broke', `in-stream error: ${ev.error.message ?? JSON.stringify(ev.error)}`);
      for (const [i, c] of (ev.choices ?? []).entries()) {
        const index = typeof c.index === 'number' ? c.index : i;
        if (index >= n) continue;
        if (c.delta?.content) yield { index, text: c.delta.content };
        if (c.finish_reason) yield { index, end: true };
      }
    }
  }

  /** One tool-calling turn (`tools`, `tool_choice: auto`); the answer's text and its `tool_calls`. */
  async toolTurn(req: ToolTurnRequest): Promise<ToolTurn> {
    const url = `${this.cfg.url.replace(/\/+$/, '')}/chat/completions`;
    const body: Record<string, unknown> = {
      model: this.cfg.model,
      messages: req.messages.map(openAiMessage),
      tools: req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
      tool_choice: 'auto',
      ...(req.parallel !== undefined ? { parallel_tool_calls: req.parallel > 1 } : {}),
      temperature: req.temperature,
      top_p: req.top_p,
      presence_penalty: req.presence_penalty,
      frequency_penalty: req.frequency_penalty,
      max_tokens: req.max_tokens,
      user: req.user ?? undefined,
      stream: false,
    };
    const headers: Record<string, string> = this.cfg.key ? { authorization: `Bearer ${this.cfg.key}` } : {};
    const res = await post(this.name, url, headers, body, this.cfg.timeoutMs, req.signal);
    type Msg = { content?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[] };
    const b = await json<{ choices?: { message?: Msg }[] }>(this.name, res, url, this.cfg.timeoutMs);
    const m = b.choices?.[0]?.message;
    if (!m || typeof m !== 'object') throw new ProviderError(this.name, 'bad JSON', `${url} answered without choices[0].message`);
    const calls = (Array.isArray(m.tool_calls) ? m.tool_calls : [])
      .filter((c) => typeof c?.function?.name === 'string')
      .map((c, i) => ({ id: typeof c.id === 'string' && c.id ? c.id : `call_${i}`, name: c.function!.name!, input: argsObject(c.function!.arguments) }));
    return { text: typeof m.content === 'string' ? m.content : '', toolCalls: calls };
  }
}

function openAiMessage(m: AgentMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  if (m.role === 'assistant' && m.toolCalls?.length) {
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })),
    };
  }
  return { role: m.role, content: m.content };
}

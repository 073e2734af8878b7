/**
 * Gemini API: `POST {url}/v1beta/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`)
 * with `x-goog-api-key` (the caller's BYOK key). System messages become `systemInstruction`,
 * assistant turns role `model`.
 */
import { ProviderError, type LlmProvider, type LlmRequest } from './types.js';
import { eventJson, events, guarded, json, post } from './http.js';

export interface GeminiConfig {
  url: string;
  key: string;
  model: string;
  timeoutMs: number;
}

type Candidate = { content?: { parts?: { text?: string }[] } };
type GenResponse = { candidates?: Candidate[]; error?: { message?: string } };

const textOf = (r: GenResponse) => (r.candidates?.[0]?.content?.parts ?? []).map((p) => p.text ?? '').join('');

export class GeminiProvider implements LlmProvider {
  readonly name = 'google';
  constructor(private readonly cfg: GeminiConfig) {}
  get model(): string {
    return this.cfg.model;
  }

  async *stream(req: LlmRequest): AsyncIterable<string> {
    const base = `${this.cfg.url.replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(this.cfg.model)}`;
    const url = req.stream ? `${base}:streamGenerateContent?alt=sse` : `${base}:generateContent`;
    const system = req.messages
      .filter((m) => m.role === 'system')
      .map((m) => m.content)
      .join('\n\n');
    const body = {
      contents: req.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
      ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
      generationConfig: {
        temperature: req.temperature,
        topP: req.top_p,
        maxOutputTokens: req.max_tokens,
        ...(req.stop?.length ? { stopSequences: req.stop.slice(0, 5) } : {}),
        ...(req.presence_penalty ? { presencePenalty: req.presence_penalty } : {}),
        ...(req.frequency_penalty ? { frequencyPenalty: req.frequency_penalty } : {}),
        ...(req.json ? { responseMimeType: 'application/json' } : {}),
      },
    };
    const res = await post(this.name, url, { 'x-goog-api-key': this.cfg.key }, body, this.cfg.timeoutMs, req.signal);
    if (!req.stream) {
      const b = await json<GenResponse>(this.name, res, url, this.cfg.timeoutMs);
      if (!Array.isArray(b.candidates))
        throw new ProviderError(this.name, 'bad JSON', `${url} answered without candidates${b.error?.message ? `: ${b.error.message}` : ''}`);
      yield textOf(b);
      return;
    }
    for await (const data of guarded(this.name, url, this.cfg.timeoutMs, events(res))) {
      const ev = eventJson<GenResponse>(this.name, data);
      if (ev.error) throw new ProviderError(this.name, 'stream broke', `in-stream error: ${ev.error.message ?? data}`);
      const t = textOf(ev);
      if (t) yield t;
    }
  }
}

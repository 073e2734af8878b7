/**
 * Which provider answers a request: chosen by the request's `model` and the caller's keys.
 *
 * | model            | provider                        | key                                  |
 * |------------------|---------------------------------|--------------------------------------|
 * | `claude-*`       | anthropic (Messages API)        | the caller's BYOK `anthropic` key    |
 * | `gemini-*`       | google (Gemini generateContent) | the caller's BYOK `google` key       |
 * | `newsflow-extractive`, `extractive` | extractive   | none                                 |
 * | anything else    | openai-compatible at NEWSFLOW_LLM_URL (the model if listed in NEWSFLOW_LLM_MODEL, else its first) | NEWSFLOW_LLM_KEY |
 * | anything else, no NEWSFLOW_LLM_URL | extractive    | none                                 |
 *
 * `claude-*` / `gemini-*` without a stored key, or from a key below the BYOK plan (enterprise), fall
 * through to the last two rows. The response
 * names the model that really wrote the answer.
 */
import type { Embedder } from '../text/embedder.js';
import { AnthropicProvider } from './anthropic.js';
import { EXTRACTIVE_MODEL, ExtractiveProvider } from './extractive.js';
import { GeminiProvider } from './gemini.js';
import { OpenAiProvider } from './openai.js';
import type { LlmProvider } from './types.js';

export * from './types.js';
export * from './tools.js';
export { EXTRACTIVE_MODEL } from './extractive.js';

export type ByokKeys = Partial<Record<'anthropic' | 'google', string>>;

/** Models listed for a BYOK key (any model of the family is accepted). */
export const BYOK_MODELS = {
  anthropic: ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'],
  google: ['gemini-2.5-flash', 'gemini-2.5-pro'],
} as const;

/** The model settings of the service (ServiceConfig's, service/config.ts: NEWSFLOW_LLM_*, NEWSFLOW_ANTHROPIC_URL, NEWSFLOW_GEMINI_URL). */
export interface ModelConfig {
  llm: { url: string; model: string; key?: string } | null;
  llmTimeoutMs: number;
  anthropicUrl: string;
  geminiUrl: string;
}

export class ModelLayer {
  readonly extractive: ExtractiveProvider;
  constructor(
    private readonly config: ModelConfig,
    embedder: Embedder | null,
  ) {
    this.extractive = new ExtractiveProvider(embedder);
  }

  /** The configured OpenAI-compatible models (NEWSFLOW_LLM_MODEL, comma-separated; the first is the default). */
  get openAiModels(): string[] {
    return this.config.llm
      ? this.config.llm.model
          .split(',')
          .map((m) => m.trim())
          .filter(Boolean)
      : [];
  }

  /** The provider for a model and the caller's BYOK keys. */
  provider(model: string, keys: ByokKeys = {}): LlmProvider {
    const timeoutMs = this.config.llmTimeoutMs;
    if (/^claude-/i.test(model) && keys.anthropic) {
      return new AnthropicProvider({ url: this.config.anthropicUrl, key: keys.anthropic, model, timeoutMs });
    }
    if (/^gemini-/i.test(model) && keys.google) {
      return new GeminiProvider({ url: this.config.geminiUrl, key: keys.google, model, timeoutMs });
    }
    if (model === EXTRACTIVE_MODEL || model === 'extractive') return this.extractive;
    return this.openAi(model) ?? this.extractive;
  }

  /** The OpenAI-compatible provider (alert judge, chat), or null when NEWSFLOW_LLM_URL is unset. */
  openAi(model?: string): OpenAiProvider | null {
    const llm = this.config.llm;
    if (!llm) return null;
    const models = this.openAiModels;
    const use = model && models.includes(model) ? model : (models[0] ?? model ?? 'gpt-4o-mini');
    return new OpenAiProvider({ url: llm.url, model: use, key: llm.key, timeoutMs: this.config.llmTimeoutMs });
  }

  /** The models a caller can be answered by now. */
  models(keys: ByokKeys = {}): { id: string; owned_by: string }[] {
    const out = [{ id: EXTRACTIVE_MODEL, owned_by: 'newsflow' }];
    for (const m of this.openAiModels) out.push({ id: m, owned_by: 'openai-compatible' });
    if (keys.anthropic) for (const m of BYOK_MODELS.anthropic) out.push({ id: m, owned_by: 'anthropic' });
    if (keys.google) for (const m of BYOK_MODELS.google) out.push({ id: m, owned_by: 'google' });
    return out;
  }
}

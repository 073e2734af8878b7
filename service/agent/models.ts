/**
 * GET /v1/chat/deepnews-models: every DeepNews model of the interface with its public type, and
 * (extension fields) whether a real model of that name can run here and which model would write:
 * `claude-*` / `gemini-*` with the caller's BYOK key, any other name through the configured
 * OpenAI-compatible server (NEWSFLOW_LLM_URL), else the offline `newsflow-extractive` writer.
 *
 * Types: `advanced` for the largest reasoning models (opus, o1/o3, gpt-5/6 without mini, gemini
 * pro, fable, 405B), `lite` for the small ones (mini, flash, nothinking, basic, 8B), `standard`
 * for the rest.
 */
import type { ModelLayer } from '../llm/index.js';

export type DeepNewsModelType = 'standard' | 'lite' | 'advanced';

export function modelType(model: string): DeepNewsModelType {
  const m = model.toLowerCase();
  if (/mini|flash|nothinking|basic|8b-|haiku/.test(m)) return 'lite';
  if (/opus|^o1$|^o3$|gpt-5(\.\d+-\w+)?$|gpt-6|-pro|fable|405b|r1/.test(m)) return 'advanced';
  return 'standard';
}

export function deepNewsModels(llm: ModelLayer, models: readonly string[], keys: Record<string, string>) {
  return models.map((model) => {
    const served = llm.provider(model, keys);
    const runs = served.name !== 'extractive';
    return { model, type: modelType(model), available: runs, served_by: served.model };
  });
}

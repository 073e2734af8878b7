/**
 * The judgement of a forecast: a model (the model layer's OpenAI-compatible provider, or a BYOK
 * Anthropic/Gemini key for claude-* models) reads the evidence (timeline, numbered articles,
 * forum threads, web results, additional context) and answers one JSON object:
 * `{forecast, reasoning, probability (0-100), likelihood, confidence (0-1), llm_confidence (0-100),
 *   choice, resolution_criteria, opposite_request}`.
 * Values out of range are clamped; a missing likelihood is named from the probability. An answer
 * without that JSON object is a failure of the provider (502 "bad JSON"), never a guessed verdict.
 */
import { ProviderError, complete, type LlmProvider } from '../llm/index.js';
import type { Evidence } from './evidence.js';

export interface Judgement {
  forecast: string;
  reasoning: string;
  probability: number;
  likelihood: string;
  confidence: number;
  llm_confidence: number;
  choice: boolean | string;
  resolution_criteria: string;
  opposite_request: string;
}

/** Names of probability bands, as the likelihood when the model gives none. */
export function likelihoodOf(p: number): string {
  if (p < 10) return 'very unlikely';
  if (p < 35) return 'unlikely';
  if (p <= 65) return 'uncertain';
  if (p <= 90) return 'likely';
  return 'very likely';
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

export function judgementPrompt(q: { query: string; additional_context?: string; expert: string }, ev: Evidence, extra: string[]): string {
  const docs = ev.docs
    .map(
      (d) =>
        `[${d.n}] ${d.article.pubDate.toISOString().slice(0, 16)} ${d.article.domain} | ${d.article.title}\n${d.article.summary}\n${d.article.keyPoints.map((k) => `- ${k}`).join('\n')}`,
    )
    .join('\n\n');
  return [
    `Question to forecast: ${q.query}`,
    `Evidence window: ${new Date(ev.window.from).toISOString()} to ${new Date(ev.window.to).toISOString()} (treat the end as "now").`,
    q.additional_context ? `Additional context from the requester: ${q.additional_context}` : '',
    `Timeline:\n${ev.timeline.join('\n') || '(no dated events)'}`,
    `Key people:\n${ev.keyPeople.map((p) => `- ${p.name}: ${p.role}`).join('\n') || '(none)'}`,
    `Articles:\n${docs || '(none found)'}`,
    ...extra,
  ]
    .filter(Boolean)
    .join('\n\n');
}

export async function judge(
  provider: LlmProvider,
  q: { query: string; additional_context?: string; expert: string },
  ev: Evidence,
  extra: string[],
): Promise<Judgement> {
  const system =
    `You are an expert ${q.expert === 'sports' ? 'sports ' : ''}forecaster. Judge the question from the evidence only, citing articles as [n]. ` +
    'Answer with one JSON object only: {"forecast": string (your answer in one or two sentences), "reasoning": string, ' +
    '"probability": integer 0-100 (percent that the event happens / the answer is yes), "likelihood": string, ' +
    '"confidence": number 0-1, "llm_confidence": integer 0-100, "choice": boolean or string, ' +
    '"resolution_criteria": string, "opposite_request": string (the question negated)}.';
  const text = await complete(provider, {
    model: provider.model,
    temperature: 0,
    json: true,
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: judgementPrompt(q, ev, extra) },
    ],
  });
  const m = /\{[\s\S]*\}/.exec(text);
  let v: Record<string, unknown>;
  try {
    if (!m) throw new Error('no JSON object');
    v = JSON.parse(m[0]) as Record<string, unknown>;
  } catch {
    throw new ProviderError(provider.name, 'bad JSON', `forecast judgement without a JSON object: ${text.slice(0, 200)}`);
  }
  const num = (x: unknown) =>
    typeof x === 'number' && Number.isFinite(x) ? x : typeof x === 'string' && x.trim() && Number.isFinite(Number(x)) ? Number(x) : null;
  const p = num(v.probability);
  if (p === null || typeof v.forecast !== 'string') {
    throw new ProviderError(provider.name, 'bad JSON', `forecast judgement lacks forecast/probability: ${text.slice(0, 200)}`);
  }
  const probability = Math.round(clamp(p <= 1 && p > 0 && !Number.isInteger(p) ? p * 100 : p, 0, 100));
  const conf = num(v.confidence);
  const confidence = conf === null ? probability / 100 : clamp(conf > 1 ? conf / 100 : conf, 0, 1);
  const llmConf = num(v.llm_confidence);
  const str = (x: unknown) => (typeof x === 'string' ? x : '');
  return {
    forecast: v.forecast,
    reasoning: str(v.reasoning),
    probability,
    likelihood: str(v.likelihood).trim() || likelihoodOf(probability),
    confidence,
    llm_confidence: llmConf === null ? Math.round(confidence * 100) : Math.round(clamp(llmConf, 0, 100)),
    choice: typeof v.choice === 'boolean' || typeof v.choice === 'string' ? v.choice : probability >= 50,
    resolution_criteria: str(v.resolution_criteria),
    opposite_request: str(v.opposite_request),
  };
}

/** Service configuration: options win over environment variables, which win over defaults. */
import { UserError } from '../lib/errors.js';
import path from 'node:path';
import { DEFAULT_LIMITS, parseLimits, type LimitsConfig } from './limits.js';
import { defaultKeyFile } from './auth/secrets.js';

/** A setting of the environment the service cannot start with (the message names the variable). */
export class ServiceConfigError extends UserError {}

export interface ServiceConfig {
  dataDir: string;
  host: string;
  port: number;
  limits: LimitsConfig;
  logLevel: string;
  /** Check every response against spec/ before sending (on in tests). */
  validateResponses: boolean;
  /** 'local' (the packaged model), 'none', or an OpenAI-compatible base URL */
  embeddings: string;
  embeddingsModel: string;
  embeddingsKey?: string;
  /** OpenAI-compatible chat model that judges alert runs (NEWSFLOW_LLM_URL); null: retrieval decides */
  llm: { url: string; model: string; key?: string } | null;
  /** wait for a model provider's response headers, then the longest idle gap in its stream; NEWSFLOW_LLM_TIMEOUT_MS */
  llmTimeoutMs: number;
  /** Anthropic Messages API base (BYOK); NEWSFLOW_ANTHROPIC_URL */
  anthropicUrl: string;
  /** Gemini API base (BYOK); NEWSFLOW_GEMINI_URL */
  geminiUrl: string;
  /** master key for secrets at rest (BYOK keys), 32 bytes as hex or base64; NEWSFLOW_SECRET_KEY */
  secretKey?: string;
  /** else the master key file, outside the data dir: $XDG_CONFIG_HOME/newsflow/secret.key, else ~/.config/newsflow/secret.key (auth/secrets.ts) */
  secretKeyFile: string;
}

export function serviceConfig(opts: Partial<ServiceConfig> & { limitsText?: string } = {}, env = process.env): ServiceConfig {
  return {
    dataDir: path.resolve(opts.dataDir ?? env.NEWSFLOW_DATA_DIR ?? './data'),
    host: opts.host ?? env.NEWSFLOW_HOST ?? '127.0.0.1',
    port: opts.port ?? Number(env.NEWSFLOW_PORT ?? 8080),
    limits: opts.limits ?? parseLimits(opts.limitsText ?? env.NEWSFLOW_LIMITS, DEFAULT_LIMITS),
    logLevel: opts.logLevel ?? env.NEWSFLOW_LOG_LEVEL ?? 'info',
    validateResponses: opts.validateResponses ?? env.NEWSFLOW_VALIDATE_RESPONSES === '1',
    embeddings: opts.embeddings ?? env.NEWSFLOW_EMBEDDINGS_URL ?? env.NEWSFLOW_EMBEDDINGS ?? 'local',
    embeddingsModel: opts.embeddingsModel ?? env.NEWSFLOW_EMBEDDINGS_MODEL ?? 'text-embedding-3-small',
    embeddingsKey: opts.embeddingsKey ?? env.NEWSFLOW_EMBEDDINGS_KEY,
    llm:
      opts.llm !== undefined
        ? opts.llm
        : env.NEWSFLOW_LLM_URL
          ? { url: env.NEWSFLOW_LLM_URL, model: env.NEWSFLOW_LLM_MODEL ?? 'gpt-4o-mini', key: env.NEWSFLOW_LLM_KEY }
          : null,
    llmTimeoutMs: opts.llmTimeoutMs ?? Number(env.NEWSFLOW_LLM_TIMEOUT_MS ?? 60_000),
    anthropicUrl: opts.anthropicUrl ?? env.NEWSFLOW_ANTHROPIC_URL ?? 'https://api.anthropic.com',
    geminiUrl: opts.geminiUrl ?? env.NEWSFLOW_GEMINI_URL ?? 'https://generativelanguage.googleapis.com',
    secretKey: opts.secretKey ?? env.NEWSFLOW_SECRET_KEY,
    secretKeyFile: opts.secretKeyFile ?? defaultKeyFile(env),
  };
}

export const storeFile = (dataDir: string) => path.join(dataDir, 'service.duckdb');

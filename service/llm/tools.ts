/**
 * Tool calling: one turn of a model that may ask for tools (OpenAI `tools` / `tool_calls`,
 * Anthropic `tools` / `tool_use` blocks). Not streamed: a planner turn is short, and the
 * agent reports the calls it makes in its own stream. Used by the DeepNews planner.
 */
import type { LlmProvider } from './types.js';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the tool's input object */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export type AgentMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolTurnRequest {
  messages: AgentMessage[];
  tools: ToolSpec[];
  temperature?: number;
  top_p?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  max_tokens?: number;
  user?: string | null;
  /** most tool calls the model may ask for in one turn (OpenAI parallel_tool_calls when 1 is false) */
  parallel?: number;
  signal?: AbortSignal;
}

export interface ToolTurn {
  text: string;
  toolCalls: ToolCall[];
}

export interface ToolCaller {
  toolTurn(req: ToolTurnRequest): Promise<ToolTurn>;
}

/** The provider's tool-calling side, or null when it has none (extractive, Gemini). */
export function toolCaller(p: LlmProvider): ToolCaller | null {
  const t = (p as Partial<ToolCaller>).toolTurn;
  return typeof t === 'function' ? (p as unknown as ToolCaller) : null;
}

/** A tool call's arguments as an object (a model may send a JSON string, or something that is not an object). */
export function argsObject(raw: unknown): Record<string, unknown> {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return {};
    }
  }
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

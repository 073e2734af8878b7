/** Token counting with a real BPE tokenizer (gpt-tokenizer, o200k_base; encodings ship in the package). */
import { decode, encode } from 'gpt-tokenizer';
import type { LlmMessage } from './types.js';

/** Characters handed to the tokenizer so far (tests check that a stream's counting stays linear). */
export const tokenizerWork = { chars: 0 };

export const countTokens = (text: string): number => {
  tokenizerWork.chars += text.length;
  return text ? encode(text).length : 0;
};

/** Prompt tokens of a chat: each message's content plus the chat format's 4 tokens per message, 3 to prime the reply. */
export const promptTokens = (messages: LlmMessage[]): number => messages.reduce((s, m) => s + countTokens(m.content) + 4, 3);

/** The longest prefix of `text` that is at most `max` tokens. */
export function truncateTokens(text: string, max: number): string {
  tokenizerWork.chars += text.length;
  const t = encode(text);
  return t.length <= max ? text : decode(t.slice(0, Math.max(0, max)));
}

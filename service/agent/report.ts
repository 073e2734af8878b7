/**
 * The report: the writer (the model layer's provider, or the extractive writer when no model
 * serves the request) over every source the research gathered (the best articles, then web
 * pages, encyclopedia passages, forum threads, graph facts and chart series, numbered on: see
 * ./sources.ts), streamed as the provider writes it through the answer writer chat uses
 * (chat/answer.ts: stop sequences, inline citations numbered from start_citation_number by first
 * appearance, max_tokens), then the agent's own closing lines (a research note, the knowledge
 * cutoff, sources not searched), the "Cited Articles" section and the watermark.
 */
import type { Embedder } from '../search/embedder.js';
import { ExtractiveProvider } from '../llm/extractive.js';
import type { LlmMessage, LlmRequest, SourceDoc } from '../llm/index.js';
import { WATERMARK, referenceLines } from '../chat/citations.js';
import { groundedMessages } from '../chat/completion.js';

/** The extractive writer of a report: more sentences than a chat answer, one per source. */
const writers = new WeakMap<object, ExtractiveProvider>();
export function reportWriter(embedder: Embedder | null): ExtractiveProvider {
  const key = embedder ?? writers;
  let w = writers.get(key);
  if (!w) writers.set(key, (w = new ExtractiveProvider(embedder, { sentences: 8, perArticle: 1, embedded: 16 })));
  return w;
}

/** The messages the writer receives (the cutoff, when set, is part of the instructions). */
export function writerMessages(o: { conversation: LlmMessage[]; docs: SourceDoc[]; journalist: boolean; cutoff: string | null }): LlmMessage[] {
  const msgs = groundedMessages(o.conversation, o.docs, o.journalist);
  const note =
    'Write a research report: a lead paragraph that answers the question, then the findings that support it. ' +
    'Use every kind of source that helps (news articles, encyclopedia passages, web pages, forum threads, graph facts, chart figures) and cite each by its number. ' +
    (o.cutoff ? `Your knowledge ends at ${o.cutoff}: nothing after it exists.` : '');
  return [{ role: 'system', content: `${msgs[0]!.content}\n\n${note}` }, ...msgs.slice(1)];
}

/** The writer's request: the sources as context, sampling as the caller sent it, streamed. */
export function reportRequest(
  o: { model: string; messages: LlmMessage[]; docs: SourceDoc[]; question: string; journalist: boolean; stops: string[]; maxTokens: number },
  sampling: Pick<LlmRequest, 'temperature' | 'top_p' | 'presence_penalty' | 'frequency_penalty' | 'user' | 'signal'>,
): LlmRequest {
  return {
    model: o.model,
    messages: o.messages,
    ...sampling,
    stop: o.stops,
    max_tokens: o.maxTokens,
    stream: true,
    context: o.docs,
    question: o.question,
    journalistMode: o.journalist,
  };
}

/** What follows the report's body (unless a stop sequence ended it): the notes, "Cited Articles" numbered from `start`, the watermark. */
export function reportTail(o: { notes: string; appendReferences: boolean; watermark: boolean; start: number }, cited: SourceDoc[]): string {
  let tail = o.notes ? `\n\n${o.notes}` : '';
  if (o.appendReferences && cited.length) tail += `\n\nCited Articles:\n${referenceLines(cited, o.start).join('\n')}`;
  if (o.watermark) tail += WATERMARK;
  return tail;
}

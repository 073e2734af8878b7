/**
 * The report: the writer (the model layer's provider, or the extractive writer when no model
 * serves the request) over the best articles found, then the agent's own closing lines (a
 * research note, the knowledge cutoff, sources not searched), inline citations numbered from
 * start_citation_number by first appearance, the "Cited Articles" section and the watermark.
 */
import type { Embedder } from '../search/embedder.js';
import { ExtractiveProvider } from '../llm/extractive.js';
import type { ContextDoc, LlmMessage, LlmProvider, LlmRequest } from '../llm/index.js';
import { countTokens, truncateTokens } from '../llm/tokens.js';
import { CitationWriter, WATERMARK, type InlineCitations } from '../chat/citations.js';
import { groundedMessages } from '../chat/completion.js';

/** The extractive writer of a report: more sentences than a chat answer, one per article. */
const writers = new WeakMap<object, ExtractiveProvider>();
export function reportWriter(embedder: Embedder | null): ExtractiveProvider {
  const key = embedder ?? writers;
  let w = writers.get(key);
  if (!w) writers.set(key, (w = new ExtractiveProvider(embedder, { sentences: 8, perArticle: 1, embedded: 12 })));
  return w;
}

export interface ReportOptions {
  provider: LlmProvider;
  conversation: LlmMessage[];
  question: string;
  docs: ContextDoc[];
  journalist: boolean;
  style: InlineCitations;
  start: number;
  appendReferences: boolean;
  watermark: boolean;
  /** the agent's closing paragraph (research note, cutoff, skipped sources) */
  notes: string;
  cutoff: string | null;
  stop: string[];
  maxTokens: number;
  sampling: Pick<LlmRequest, 'temperature' | 'top_p' | 'presence_penalty' | 'frequency_penalty' | 'user' | 'signal'>;
}

export interface Report {
  text: string;
  reason: 'stop' | 'length';
  /** cited context docs, in citation order */
  cited: ContextDoc[];
  promptTokens: number;
}

/** The messages the writer receives (the cutoff, when set, is part of the instructions). */
export function writerMessages(o: Pick<ReportOptions, 'conversation' | 'docs' | 'journalist' | 'cutoff'>): LlmMessage[] {
  const msgs = groundedMessages(o.conversation, o.docs, o.journalist);
  const note =
    'Write a research report: a lead paragraph that answers the question, then the findings that support it. ' +
    (o.cutoff ? `Your knowledge ends at ${o.cutoff}: nothing after it exists.` : '');
  return [{ role: 'system', content: `${msgs[0]!.content}\n\n${note}` }, ...msgs.slice(1)];
}

export function citedArticles(cited: ContextDoc[], start: number): string {
  if (!cited.length) return '';
  const lines = cited.map(
    (d, i) => `[${start + i}] ${d.article.title} (${d.article.domain}, ${d.article.pubDate.toISOString().slice(0, 10)}) ${d.article.url}`,
  );
  return `\n\nCited Articles:\n${lines.join('\n')}`;
}

export async function writeReport(o: ReportOptions): Promise<Report> {
  const messages = writerMessages(o);
  const req: LlmRequest = {
    model: o.provider.model,
    messages,
    ...o.sampling,
    stop: o.stop,
    max_tokens: o.maxTokens,
    stream: true,
    context: o.docs,
    question: o.question,
    journalistMode: o.journalist,
  };
  let raw = '';
  for await (const d of o.provider.stream(req)) raw += d;
  // the stop sequences end the output: nothing is appended after one
  let stopped = false;
  for (const s of o.stop) {
    const i = raw.indexOf(s);
    if (s && i >= 0) {
      raw = raw.slice(0, i);
      stopped = true;
    }
  }
  const cites = new CitationWriter(o.docs, o.style, o.start);
  let text = (cites.push(raw.trim()) + cites.end()).trim();
  if (!stopped) {
    if (o.notes) text += `\n\n${o.notes}`;
    if (o.appendReferences) text += citedArticles(cites.citedDocs(), o.start);
    if (o.watermark) text += WATERMARK;
  }
  let reason: Report['reason'] = 'stop';
  if (countTokens(text) > o.maxTokens) {
    text = truncateTokens(text, o.maxTokens);
    reason = 'length';
  }
  return { text, reason, cited: cites.citedDocs(), promptTokens: messages.reduce((s, m) => s + countTokens(m.content) + 4, 3) };
}

/** A report cut into stream deltas (sentences and lines, whitespace kept): joined they are the text. */
export function deltas(text: string): string[] {
  return text.match(/[^\n.!?]*(?:[.!?]+["”’)\]]*|\n+|$)\s*/g)?.filter(Boolean) ?? [text];
}

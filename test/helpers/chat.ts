/** Reading chat answers: the body, its inline citations, its references, SSE events. */
import type { TestService } from './service.js';
import { sseEventsOf } from '../../lib/sse.js';

export const WATERMARK_RE = /— Answer grounded in news retrieved by newsflow/;

export interface Parsed {
  body: string;
  refs: { n: number; title: string; url: string }[];
  /** citation numbers in order of appearance */
  cites: number[];
}

export function parseAnswer(content: string): Parsed {
  const [head, tail = ''] = content.split('\n\nReferences:\n');
  const body = head!.split('\n\n— ')[0]!;
  const refs = tail
    .split('\n\n— ')[0]!
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const m = /^\[(\d+)\] (.*) \([^()]*, \d{4}-\d{2}-\d{2}\) (\S+)$/.exec(l);
      if (!m) throw new Error(`not a reference line: ${l}`);
      return { n: Number(m[1]), title: m[2]!, url: m[3]! };
    });
  const cites = [...body.matchAll(/\[\[?(\d+)\]/g)].map((m) => Number(m[1]));
  return { body, refs, cites };
}

/** Sentences of an extractive body with the citation number each carries. */
export function citedSentences(body: string): { text: string; n: number }[] {
  return [...body.matchAll(/(.+?) \[\[?(\d+)\](?:\([^)]*\)\])?\.?(?: |$)/g)].map((m) => ({ text: m[1]!.trim(), n: Number(m[2]) }));
}

export const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

export async function chat(svc: TestService, key: string, body: Record<string, unknown>) {
  const res = await fetch(`${svc.url}/v1/openai/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = JSON.parse(text);
  } catch {
    /* SSE or not JSON */
  }
  return { status: res.status, headers: res.headers, text, body: json };
}

/** The `data:` payloads of an SSE body, in order (`[DONE]` included). */
export const sseEvents = (text: string): string[] => sseEventsOf(text);

/** The text an article offers the extractive writer: title, summary, key points, full text. */
export async function articleTexts(svc: TestService, ids: string[]): Promise<Map<string, string>> {
  const rows = await svc.services.news!.store.byIds(ids, true);
  return new Map(rows.map((a) => [a.articleId, norm([a.title, a.summary, ...a.keyPoints, a.fullText ?? ''].join('\n'))]));
}

/** url -> article id of the indexed articles. */
export function idsByUrl(svc: TestService): Map<string, string> {
  return new Map(svc.services.news!.index.views.map((v) => [v.a.url, v.a.articleId]));
}

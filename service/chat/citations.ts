/**
 * Citations of an answer (chat and DeepNews alike): the model writes `[n]` (n = the source's
 * number in its context: a news article, or in DeepNews a web page, an encyclopedia passage, a
 * forum thread, a knowledge graph or a chart series); the writer renumbers them by first
 * appearance (start, start + 1, ... one number per cited source) and
 * renders them as `numbered` ([1]), `markdown_link` ([[1](url)]) or `none` (removed with the space
 * before them). It works on a stream: a piece that may be the start of a marker is held back
 * until it is complete, so the same text gives the same output however it is cut into deltas.
 */
import { citeView, type SourceDoc } from '../llm/index.js';

export type InlineCitations = 'numbered' | 'markdown_link' | 'none';

/** `[n]`, `[n, m]`: starts with `[` and its spaces are bounded, so a scan for it is linear in the text */
const MARKER = /\[(\d{1,3}(?:\s{0,8},\s{0,8}\d{1,3}){0,32})\]/g;
/** a tail that might still become a marker */
const OPEN = /\[[\d,\s]{0,24}$/;

export class CitationWriter {
  /** context number -> citation number, in order of first citation */
  readonly cited = new Map<number, number>();
  private held = '';
  constructor(
    private readonly docs: SourceDoc[],
    private readonly style: InlineCitations,
    /** the first citation number (DeepNews start_citation_number) */
    private readonly start = 1,
  ) {}

  private render(nums: number[]): string {
    const out: string[] = [];
    for (const n of nums) {
      const doc = this.docs.find((d) => d.n === n);
      if (!doc) continue; // a number the context does not have: dropped
      if (!this.cited.has(n)) this.cited.set(n, this.start + this.cited.size);
      const k = this.cited.get(n)!;
      if (this.style === 'numbered') out.push(`[${k}]`);
      else if (this.style === 'markdown_link') out.push(`[[${k}](${citeView(doc).url})]`);
    }
    return out.join('');
  }

  private rewrite(text: string): string {
    const re = new RegExp(MARKER.source, 'g');
    if (this.style !== 'none') return text.replace(re, (_m, g: string) => this.render(g.split(',').map(Number)));
    // style none: the marker goes with the whitespace before it (trimmed off the text before the
    // marker, not matched by a leading \s*, which would rescan a long run of spaces at each of its characters)
    let out = '';
    let last = 0;
    for (const m of text.matchAll(re)) {
      out += text.slice(last, m.index).trimEnd();
      this.render(m[1]!.split(',').map(Number));
      last = m.index + m[0].length;
    }
    return out + text.slice(last);
  }

  /** Feed a delta; returns what can be emitted now. */
  push(delta: string): string {
    let text = this.held + delta;
    this.held = '';
    const open = OPEN.exec(text);
    if (open) {
      this.held = text.slice(open.index);
      text = text.slice(0, open.index);
    }
    // whitespace that may precede a marker is held too (style none removes it with the marker)
    const kept = this.style === 'none' ? text.trimEnd().length : text.length;
    if (kept < text.length) {
      this.held = text.slice(kept) + this.held;
      text = text.slice(0, kept);
    }
    return this.rewrite(text);
  }

  /** The rest, at the end of the answer. */
  end(): string {
    const rest = this.rewrite(this.held);
    this.held = '';
    return rest;
  }

  /** Cited sources in citation order. */
  citedDocs(): SourceDoc[] {
    return [...this.cited.entries()].sort((a, b) => a[1] - b[1]).map(([n]) => this.docs.find((d) => d.n === n)!);
  }
}

/** One line per cited source, numbered as cited from `start`: `[k] title (publisher, yyyy-mm-dd) url`. */
export function referenceLines(cited: SourceDoc[], start = 1): string[] {
  return cited.map((d, i) => {
    const v = citeView(d);
    return `[${start + i}] ${v.title} (${v.publisher}${v.published ? `, ${v.published.toISOString().slice(0, 10)}` : ''}) ${v.url}`;
  });
}

/** The references block of a chat answer. */
export function references(cited: SourceDoc[]): string {
  return cited.length ? `\n\nReferences:\n${referenceLines(cited).join('\n')}` : '';
}

export const WATERMARK = '\n\n— Answer grounded in news retrieved by newsflow (AskNews-compatible API).';

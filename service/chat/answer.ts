/**
 * One answer as it is written, for chat and DeepNews alike: the provider's deltas in, the
 * answer's deltas out. In order: stop sequences (the answer ends before the first one; what could
 * be the start of one is held back), citations in the requested style (./citations.ts), with
 * `trim` no whitespace before the body or after it, then, unless a stop sequence ended the
 * answer, its closing tail (references, notes, watermark); all of it within max_tokens (counted
 * with the real tokenizer; the answer is cut there and its reason is `length`). The same text
 * gives the same answer however it is cut into deltas.
 */
import { countTokens, truncateTokens } from '../llm/tokens.js';
import { choices, type LlmProvider, type LlmRequest, type SourceDoc } from '../llm/index.js';
import { CitationWriter, type InlineCitations } from './citations.js';

/** A piece of answer `index`, or its end with the reason it ended. */
export type AnswerEvent = { type: 'text'; index: number; text: string } | { type: 'finish'; index: number; reason: 'stop' | 'length' };

/**
 * The answers of a provider to one request, one per writer (`n` = writers.length, see
 * `choices`), each through its own writer, as events in the order the provider writes them:
 * a writer's text as soon as it has some, its finish when its answer ends.
 */
export async function* answers(provider: LlmProvider, req: LlmRequest, writers: AnswerWriter[]): AsyncGenerator<AnswerEvent> {
  const done = new Set<number>();
  for await (const e of choices(provider, req, writers.length, done)) {
    const w = writers[e.index]!;
    const text = 'end' in e ? w.end() : w.push(e.text);
    if (w.done) done.add(e.index);
    if (text) yield { type: 'text', index: e.index, text };
    if ('end' in e) yield { type: 'finish', index: e.index, reason: w.reason };
  }
}

export interface AnswerOptions {
  docs: SourceDoc[];
  style: InlineCitations;
  /** the first citation number (DeepNews start_citation_number) */
  start?: number;
  stops: string[];
  maxTokens: number;
  /** no whitespace before the body or after it (DeepNews: its tail follows the body directly) */
  trim?: boolean;
  /** what follows the body unless a stop sequence ended it, given the cited sources in citation order */
  tail(cited: SourceDoc[]): string;
}

export class AnswerWriter {
  /** the answer so far */
  text = '';
  reason: 'stop' | 'length' = 'stop';
  private readonly stopper: StopCutter;
  private readonly cites: CitationWriter;
  private readonly budget: TokenBudget;
  private stopped = false;
  private full = false;
  private started = false;
  private space = '';

  constructor(private readonly o: AnswerOptions) {
    this.stopper = new StopCutter(o.stops);
    this.cites = new CitationWriter(o.docs, o.style, o.start ?? 1);
    this.budget = new TokenBudget(o.maxTokens);
  }

  /** true once a stop sequence or max_tokens ended the answer: further deltas are dropped */
  get done(): boolean {
    return this.stopped || this.full;
  }

  /** tokens of the answer so far (exact at pretokenizer boundaries; exact once ended) */
  get tokens(): number {
    return this.budget.tokens;
  }

  /** the sources cited so far, in citation order */
  get cited(): SourceDoc[] {
    return this.cites.citedDocs();
  }

  /** Feed a provider delta; returns what the answer gains now (maybe nothing). */
  push(delta: string): string {
    if (this.done) return '';
    const [raw, hit] = this.stopper.push(delta);
    if (hit) this.stopped = true;
    return this.emit(this.trimmed(this.cites.push(raw)));
  }

  /** The end of the provider's answer: what is held back, then the tail. */
  end(): string {
    if (this.full) return '';
    let out = this.emit(this.trimmed(this.cites.push(this.stopped ? '' : this.stopper.end()) + this.cites.end()));
    this.space = '';
    if (!this.full && !this.stopped) {
      const tail = this.o.tail(this.cited);
      if (tail) out += this.emit(tail);
    }
    this.budget.settleAll();
    return out;
  }

  private emit(text: string): string {
    if (!text || this.full) return '';
    const [out, full] = this.budget.take(text);
    this.text += out;
    if (full) {
      this.full = true;
      this.reason = 'length';
    }
    return out;
  }

  private trimmed(text: string): string {
    if (!this.o.trim || !text) return text;
    let t = this.space + text;
    if (!this.started) {
      t = t.replace(/^\s+/, '');
      if (!t) return (this.space = '');
      this.started = true;
    }
    const ws = /\s+$/.exec(t);
    this.space = ws ? ws[0] : '';
    return ws ? t.slice(0, ws.index) : t;
  }
}

/** Cuts a text stream at the first stop sequence; holds back what could be the start of one. */
class StopCutter {
  private buf = '';
  private readonly hold: number;
  constructor(private readonly stops: string[]) {
    this.hold = Math.max(0, ...stops.map((s) => s.length - 1));
  }
  /** [text to pass on, stopped?] */
  push(d: string): [string, boolean] {
    this.buf += d;
    let at = -1;
    for (const s of this.stops) {
      const i = this.buf.indexOf(s);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at >= 0) {
      const out = this.buf.slice(0, at);
      this.buf = '';
      return [out, true];
    }
    const cut = Math.max(0, this.buf.length - this.hold);
    const out = this.buf.slice(0, cut);
    this.buf = this.buf.slice(cut);
    return [out, false];
  }
  end(): string {
    const out = this.buf;
    this.buf = '';
    return out;
  }
}

/**
 * At most `max` tokens of completion, counted as the text grows without re-encoding all of it:
 * the text before `at` is settled (its token count kept), only the rest is encoded per delta.
 * `at` moves to a pretokenizer boundary (a space after a non-space, before a letter), where
 * o200k's BPE never merges across, so the running count is the full encode's. Near the budget
 * the whole text is encoded to cut exactly.
 */
class TokenBudget {
  text = '';
  /** tokens of `text` */
  tokens = 0;
  private at = 0;
  private settled = 0;
  constructor(private readonly max: number) {}
  /** [text to emit, budget exhausted?] */
  take(d: string): [string, boolean] {
    if (!d) return ['', false];
    const next = this.text + d;
    let n = this.settled + countTokens(next.slice(this.at));
    if (n > this.max - NEAR_BUDGET) n = countTokens(next);
    if (n <= this.max) {
      this.text = next;
      this.tokens = n;
      this.settle();
      return [d, false];
    }
    const cut = truncateTokens(next, this.max);
    const out = cut.startsWith(this.text) ? cut.slice(this.text.length) : '';
    this.text += out;
    this.tokens = countTokens(this.text);
    return [out, true];
  }
  /** The exact count of the whole text (once, at the end). */
  settleAll(): void {
    this.tokens = countTokens(this.text);
  }
  private settle(): void {
    const open = this.text.slice(this.at);
    if (open.length < SETTLE_CHARS) return;
    let b = -1;
    for (const m of open.matchAll(/(?<=[^\s]) (?=\p{L})/gu)) b = m.index;
    if (b <= 0) return;
    this.settled += countTokens(open.slice(0, b));
    this.at += b;
  }
}
/** how much unsettled text a delta re-encodes at most (about) before the boundary moves */
const SETTLE_CHARS = 64;
/** within this many tokens of max_tokens, count on the whole text */
const NEAR_BUDGET = 16;

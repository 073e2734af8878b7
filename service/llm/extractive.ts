/**
 * The offline default writer, `newsflow-extractive`: no generative model. It writes only
 * sentences taken from its sources: the retrieved articles (summary, key points, full text) and,
 * in DeepNews, the other sources the research gathered (web pages, encyclopedia passages, forum
 * threads, graph facts, chart series: their text). Sentences are picked by relevance to the
 * question (MiniLM cosine blended with BM25 over the candidate sentences; a source's rank counts
 * among the sources of its kind, so the best encyclopedia passage stands level with the best
 * article and wins when it answers better, as for a definitional question), near-duplicates
 * removed, at most two per source, and ordered as a wire brief: the lead (the best sentence),
 * then context, then reactions (quotes, "said", "according to"). Every sentence carries its
 * source's citation marker `[n]`. In journalist mode a sentence is framed with its attribution
 * (`<sentence>, <publisher> reported [n].`, `<sentence>, according to Wikipedia [n].`);
 * otherwise it is given as written. Deterministic: the same request and index give the same answer.
 */
import type { Embedder } from '../text/embedder.js';
import { terms } from '../text/tokenize.js';
import { isPassage, type LlmProvider, type LlmRequest, type PassageDoc, type SourceDoc } from './types.js';

export const EXTRACTIVE_MODEL = 'newsflow-extractive';

export interface ExtractiveOptions {
  /** sentences in an answer */
  sentences: number;
  /** sentences from one article */
  perArticle: number;
  /** candidate sentences embedded for the cosine (the best by BM25 and position) */
  embedded: number;
}
const DEFAULTS: ExtractiveOptions = { sentences: 6, perArticle: 2, embedded: 10 };

interface Candidate {
  doc: SourceDoc;
  /** the source's rank among the sources of its kind, 0 (best) to 1 */
  rank: number;
  text: string;
  /** position class: 0 summary, 1 key point, 2 full text */
  part: number;
  pos: number;
  terms: string[];
  bm25: number;
  cos: number;
  vec: Float32Array | null;
  score: number;
}

/** page furniture, not reporting ("enable JavaScript", not every sentence that names JavaScript: an encyclopedia passage about it is content) */
/** A sentence sharing no term with the question and scoring below this share of the lead's score is off-topic ("spider" is not "SpiderMonkey"). */
const RELATIVE = 0.5;
const BOILERPLATE =
  /cookie|subscribe|newsletter|sign up|click here|all rights reserved|©|(enable|turn on|requires?|disabled?)\W+(your\W+)?javascript|javascript\W+(is\W+)?(disabled|required|enabled)|advertisement/i;
const REACTION = /["“”]|\b(said|says|told|according to|stated|warned|added|argued|claimed|insisted)\b/i;

/** Sentences of a text: split after . ! ? (and closing quotes) before a capital, digit or quote. */
export function sentences(text: string): string[] {
  // lines first: a headline or paragraph without a final period ends at its line break
  return text
    .split(/\n+/)
    .flatMap((line) => line.replace(/\s+/g, ' ').split(/(?<=[.!?]["”’)]?)\s+(?=["“‘(]?[A-Z0-9])/))
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A quote opened and not closed (or the reverse) means the sentence was cut out of a longer quote. */
const unbalanced = (s: string) => (s.match(/"/g)?.length ?? 0) % 2 === 1 || (s.match(/“/g)?.length ?? 0) !== (s.match(/”/g)?.length ?? 0);

/** A publisher's name as attribution: `reuters.com` -> `Reuters`, `bbc.co.uk` -> `BBC`. */
export function publisherName(domain: string): string {
  const d = domain.replace(/^(www\d*|amp|edition|m|mobile)\./, '').toLowerCase();
  const known: Record<string, string> = {
    'news.sky.com': 'Sky News',
    'thedailybeast.com': 'The Daily Beast',
    'nhk.or.jp': 'NHK',
    'theverge.com': 'The Verge',
    'thehill.com': 'The Hill',
    'bloomberg.com': 'Bloomberg',
    'axios.com': 'Axios',
    'cnbc.com': 'CNBC',
    'espn.com': 'ESPN',
    'twitter.com': 'Twitter',
    'reddit.com': 'a post on Reddit',
    'youtube.com': 'a YouTube video',
    'bbc.co.uk': 'BBC',
    'bbc.com': 'BBC',
    'cnn.com': 'CNN',
    'nytimes.com': 'The New York Times',
    'theguardian.com': 'The Guardian',
    'reuters.com': 'Reuters',
    'apnews.com': 'AP',
    'washingtonpost.com': 'The Washington Post',
    'aljazeera.com': 'Al Jazeera',
    'npr.org': 'NPR',
    'nbcnews.com': 'NBC News',
    'cbsnews.com': 'CBS News',
    'abcnews.go.com': 'ABC News',
    'foxnews.com': 'Fox News',
  };
  if (known[d]) return known[d];
  const labels = d.split('.');
  // the registrable label: the one before the public suffix (bbc.co.uk -> bbc, news.yahoo.com -> yahoo)
  const suffix = labels.length > 2 && ['co', 'com', 'org', 'net', 'ac', 'gov', 'or', 'ne'].includes(labels[labels.length - 2]!) ? 2 : 1;
  const label = labels[labels.length - 1 - suffix] ?? d;
  return label.length <= 4 ? label.toUpperCase() : label.charAt(0).toUpperCase() + label.slice(1);
}

/** One sentence of a news article as the answer writes it (without its citation marker). */
export function frame(text: string, domain: string, journalist: boolean): string {
  if (!journalist) return text;
  const who = publisherName(domain);
  // "<sentence without its final period>, <publisher> reported"
  // the final punctuation trimmed by a scan from the end (a `[.;:,]+$` pattern rescans a long run at each of its characters)
  let end = text.length;
  while (end > 0 && '.;:,'.includes(text[end - 1]!)) end--;
  const core = text.slice(0, end);
  return /[?!"”’]$/.test(core) ? `${who} reported: ${core}` : `${core}, ${who} reported`;
}

/** Who a sentence of another kind of source is attributed to ("..., according to Wikipedia"). */
function passageAttribution(d: PassageDoc): string {
  if (d.kind === 'forum') return `a thread on ${d.publisher} said`;
  if (d.kind === 'graph') return 'according to the knowledge graph of the articles found';
  if (d.kind === 'chart') return 'according to the news index counts';
  return `according to ${d.publisher}`;
}

/** One sentence of any source as the answer writes it (without its citation marker). */
export function frameSource(text: string, doc: SourceDoc, journalist: boolean): string {
  if (!isPassage(doc)) return frame(text, doc.article.domain, journalist);
  if (!journalist) return text;
  // the final punctuation trimmed by a scan from the end (a `[.;:,]+$` pattern rescans a long run at each of its characters)
  let end = text.length;
  while (end > 0 && '.;:,'.includes(text[end - 1]!)) end--;
  const core = text.slice(0, end);
  return /[?!"”’]$/.test(core) ? `${core} (${passageAttribution(doc)})` : `${core}, ${passageAttribution(doc)}`;
}

const cos = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

function jaccard(a: string[], b: string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  let n = 0;
  for (const x of A) if (B.has(x)) n++;
  return n / (A.size + B.size - n || 1);
}

export class ExtractiveProvider implements LlmProvider {
  readonly name = 'extractive';
  readonly model = EXTRACTIVE_MODEL;
  private readonly opts: ExtractiveOptions;
  /** sentence vectors by text (a sentence is embedded once per process; bounded) */
  private readonly vecs = new Map<string, Float32Array>();
  constructor(
    private readonly embedder: Embedder | null,
    opts: Partial<ExtractiveOptions> = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
  }

  async *stream(req: LlmRequest): AsyncIterable<string> {
    const picked = await this.pick(req);
    if (picked.length === 0) {
      yield 'No retrieved article speaks to this question, so there is nothing to report from the news index (this answer is extractive: it only quotes retrieved articles).';
      return;
    }
    const journalist = req.journalistMode ?? true;
    for (let i = 0; i < picked.length; i++) {
      const c = picked[i]!;
      const body = frameSource(c.text, c.doc, journalist);
      const end = /[.!?"”’]$/.test(body) ? '' : '.';
      // the marker goes before the final punctuation of a plain sentence: "... [1]."
      const sentence = end ? `${body} [${c.doc.n}]${end}` : `${body} [${c.doc.n}]`;
      yield (i ? ' ' : '') + sentence;
    }
  }

  /** The sentences of the answer, in wire-brief order. */
  async pick(req: LlmRequest): Promise<Candidate[]> {
    const docs = req.context ?? [];
    if (!docs.length) return [];
    const question = req.question ?? [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const q = new Set(terms(question));
    const cands = this.candidates(docs);
    if (!cands.length) return [];
    // BM25 over the candidate sentences (idf from them)
    const df = new Map<string, number>();
    for (const c of cands) for (const t of new Set(c.terms)) df.set(t, (df.get(t) ?? 0) + 1);
    const N = cands.length;
    const avg = cands.reduce((s, c) => s + c.terms.length, 0) / N;
    for (const c of cands) {
      const tf = new Map<string, number>();
      for (const t of c.terms) if (q.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
      let s = 0;
      for (const [t, f] of tf) {
        const idf = Math.log(1 + (N - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + 0.75 * (c.terms.length / avg)));
      }
      c.bm25 = s;
    }
    const maxBm = Math.max(...cands.map((c) => c.bm25)) || 1;
    for (const c of cands) c.bm25 /= maxBm;
    // cosine for the best candidates by BM25, position and retrieval rank
    const prior = (c: Candidate) => c.bm25 + (c.part === 0 && c.pos === 0 ? 0.3 : 0) + 0.2 * (1 - c.rank);
    const head = [...cands].sort((a, b) => prior(b) - prior(a) || a.doc.n - b.doc.n || a.pos - b.pos).slice(0, this.opts.embedded);
    if (this.embedder && question.trim()) {
      // the question alone (search embedded the same text a moment ago: the shared embedder remembers it)
      const [qv] = await this.embedder.embed([question]);
      const todo = [...new Set(head.map((c) => c.text).filter((t) => !this.vecs.has(t)))];
      const vs = todo.length ? await this.embedder.embed(todo) : [];
      if (this.vecs.size + todo.length > 50_000) this.vecs.clear();
      todo.forEach((t, i) => this.vecs.set(t, vs[i]!));
      for (const c of head) {
        c.vec = this.vecs.get(c.text)!;
        c.cos = cos(qv!, c.vec);
      }
    }
    for (const c of head) {
      c.score = (this.embedder ? 0.65 * c.cos + 0.35 * c.bm25 : c.bm25) + (c.part === 0 ? 0.04 : 0) + 0.05 * (1 - c.rank);
    }
    head.sort((a, b) => b.score - a.score || a.doc.n - b.doc.n || a.part - b.part || a.pos - b.pos);
    const chosen: Candidate[] = [];
    const perDoc = new Map<number, number>();
    for (const c of head) {
      if (chosen.length >= this.opts.sentences) break;
      if ((perDoc.get(c.doc.n) ?? 0) >= this.opts.perArticle) continue;
      // off-topic: no term of the question and neither a close meaning nor near the lead (the lead is always kept)
      if (chosen.length && c.bm25 === 0 && (c.cos < 0.35 || c.score < RELATIVE * chosen[0]!.score)) continue;
      const dup = chosen.some((o) => jaccard(o.terms, c.terms) >= 0.5 || (o.vec && c.vec && cos(o.vec, c.vec) >= 0.85));
      if (dup) continue;
      chosen.push(c);
      perDoc.set(c.doc.n, (perDoc.get(c.doc.n) ?? 0) + 1);
    }
    const [lead, ...rest] = chosen;
    if (!lead) return [];
    return [lead, ...rest.filter((c) => !REACTION.test(c.text)), ...rest.filter((c) => REACTION.test(c.text))];
  }

  private candidates(docs: SourceDoc[]): Candidate[] {
    const out: Candidate[] = [];
    // rank among the sources of the same kind (articles, wiki passages, forum threads, ...)
    const kindOf = (d: SourceDoc) => (isPassage(d) ? d.kind : 'news');
    const ofKind = new Map<string, SourceDoc[]>();
    for (const d of docs) ofKind.set(kindOf(d), [...(ofKind.get(kindOf(d)) ?? []), d]);
    for (const doc of docs) {
      const same = ofKind.get(kindOf(doc))!;
      const rank = same.length > 1 ? same.indexOf(doc) / same.length : 0;
      const seen = new Set<string>();
      let parts: [number, string[]][];
      if (isPassage(doc)) {
        // a heading line ("## Software > Components") is not a sentence to quote
        const all = sentences(doc.text)
          .filter((t) => !t.startsWith('#'))
          .slice(0, 60);
        parts = [
          [0, all.slice(0, 1)],
          [2, all.slice(1)],
        ];
      } else {
        parts = [
          [0, sentences(doc.article.summary)],
          [1, doc.article.keyPoints.flatMap(sentences)],
          [2, sentences(doc.fullText ?? '').slice(0, 60)],
        ];
      }
      for (const [part, list] of parts) {
        list.forEach((text, pos) => {
          if (seen.has(text) || text.length < 25 || text.length > 400 || BOILERPLATE.test(text) || unbalanced(text)) return;
          const ts = terms(text);
          if (ts.length < 3) return;
          seen.add(text);
          out.push({ doc, rank, text, part, pos, terms: ts, bm25: 0, cos: 0, vec: null, score: 0 });
        });
      }
    }
    return out;
  }
}

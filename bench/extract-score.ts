/**
 * The article-extraction-benchmark's score (scrapinghub, evaluate.py), and Readability alone as
 * the benchmark runs it: shared by bench/extract.ts and the extraction tests.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { htmlText } from './extract-pages.js';

const TOKEN = /[\p{L}\p{N}_]+/gu;

function shingles(text: string): Map<string, number> {
  const t = text.match(TOKEN) ?? [];
  const out = new Map<string, number>();
  for (let i = 0; i < Math.max(1, t.length - 3); i++) {
    const s = t.slice(i, i + 4).join(' ');
    if (s) out.set(s, (out.get(s) ?? 0) + 1);
  }
  return out;
}

export interface PageScore {
  tp: number;
  fp: number;
  fn: number;
}

/** tp/fp/fn of 4-token shingles, normalised to sum 1 (evaluate.py, string_shingle_matching). */
export function shingleScore(reference: string, predicted: string): PageScore {
  const a = shingles(reference);
  const b = shingles(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const t = a.get(k) ?? 0;
    const p = b.get(k) ?? 0;
    tp += Math.min(t, p);
    fp += Math.max(0, p - t);
    fn += Math.max(0, t - p);
  }
  const s = tp + fp + fn;
  return s > 0 ? { tp: tp / s, fp: fp / s, fn: fn / s } : { tp, fp, fn };
}

const precisionOf = ({ tp, fp, fn }: PageScore) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp));
const recallOf = ({ tp, fp, fn }: PageScore) => (fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn));
export const pageF1 = (s: PageScore) => {
  const p = precisionOf(s);
  const r = recallOf(s);
  return p + r ? (2 * p * r) / (p + r) : 0;
};

/** Mean precision, mean recall, and their F1 over pages (evaluate.py, metrics_from_tp_fp_fns). */
export function meanScores(scores: PageScore[]): { f1: number; precision: number; recall: number } {
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const precision = mean(scores.filter((s) => s.tp + s.fp > 0).map(precisionOf));
  const recall = mean(scores.filter((s) => s.tp + s.fn > 0).map(recallOf));
  return { f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0, precision, recall };
}

export interface SnippetScore {
  tp: number;
  fn: number;
  fp: number;
  tn: number;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** trafilatura's evaluation of one page (tests/comparison.py, evaluate_result): which snippets the text holds. */
export function snippetScore(snippets: { with: string[]; without: string[] }, text: string): SnippetScore {
  const t = collapse(text);
  const s: SnippetScore = { tp: 0, fn: 0, fp: 0, tn: 0 };
  for (const w of snippets.with) {
    if (t.includes(collapse(w))) s.tp++;
    else s.fn++;
  }
  for (const w of snippets.without) {
    if (t.includes(collapse(w))) s.fp++;
    else s.tn++;
  }
  return s;
}

/** Counts summed over pages, then precision, recall and F1 (tests/comparison.py, calculate_scores). */
export function sumSnippets(scores: SnippetScore[]): SnippetScore & { precision: number; recall: number; f1: number } {
  const s = scores.reduce((a, b) => ({ tp: a.tp + b.tp, fn: a.fn + b.fn, fp: a.fp + b.fp, tn: a.tn + b.tn }), { tp: 0, fn: 0, fp: 0, tn: 0 });
  const precision = s.tp / (s.tp + s.fp);
  const recall = s.tp / (s.tp + s.fn);
  return { ...s, precision, recall, f1: (2 * precision * recall) / (precision + recall) };
}

/** Readability alone (no readerable check), its content read to text. */
export function readabilityAlone(html: string, url: string): string {
  try {
    const { document } = parseHTML(html);
    Object.defineProperty(document, 'baseURI', { value: url, configurable: true });
    Object.defineProperty(document, 'documentURI', { value: url, configurable: true });
    const a = new Readability(document as unknown as Document).parse();
    return a?.content ? htmlText(a.content) : '';
  } catch {
    return ''; // a document Readability cannot walk (no <html>)
  }
}

/**
 * Articles to chunks: one or more chunks per section, split at paragraph (then sentence)
 * boundaries to at most CHUNK_CHARS characters, so a chunk fits the embedding model's window
 * (MiniLM reads 256 word pieces). A chunk keeps its section's heading path as metadata.
 */
import crypto from 'node:crypto';
import type { WikiArticle } from './model.js';

export const CHUNK_CHARS = 900;

export interface WikiChunk {
  /** stable id: hash of (url, position, content); the same text loaded twice gets the same id */
  pointId: string;
  url: string;
  /** position in the article, from 0 */
  seq: number;
  /** heading path ("" for the lead) */
  section: string;
  /** 0 for the lead, else the heading level */
  level: number;
  content: string;
}

function pieces(text: string, max: number): string[] {
  const out: string[] = [];
  let cur = '';
  const push = () => {
    if (cur.trim()) out.push(cur.trim());
    cur = '';
  };
  for (const para of text.split(/\n+/)) {
    const units = para.length > max ? (para.match(/[^.!?]+(?:[.!?]+["')\]]*\s*|$)/g) ?? [para]) : [para];
    for (let u of units) {
      while (u.length > max) {
        push();
        out.push(u.slice(0, max));
        u = u.slice(max);
      }
      const sep = units.length > 1 && cur && !cur.endsWith('\n') ? '' : cur ? '\n' : '';
      if (cur.length + sep.length + u.length > max) push();
      cur += (cur ? sep : '') + u;
    }
    if (cur) cur += '\n';
  }
  push();
  return out;
}

export const pointIdOf = (url: string, seq: number, content: string) => {
  const h = crypto.createHash('sha1').update(`${url}\0${seq}\0${content}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export function chunkArticle(a: WikiArticle, max = CHUNK_CHARS): WikiChunk[] {
  const out: WikiChunk[] = [];
  for (const s of a.sections) {
    for (const content of pieces(s.text, max)) {
      const seq = out.length;
      out.push({ pointId: pointIdOf(a.url, seq, content), url: a.url, seq, section: s.path, level: s.level, content });
    }
  }
  return out;
}

/** What the embedding model reads for a chunk: title and heading path give the passage its context. */
export const embeddingText = (title: string, c: Pick<WikiChunk, 'section' | 'content'>) => `${title}${c.section ? ` — ${c.section}` : ''}: ${c.content}`;

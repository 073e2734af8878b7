/**
 * Forum sources -> thread and comment rows. Nothing here is enriched.
 *
 * - Pushshift NDJSON (the standard archive of Reddit data: RS_* submissions, RC_* comments; one
 *   JSON object per line, `.ndjson`/`.jsonl`/`.json`, or the same compressed `.zst`), streamed
 *   line by line. A submission has `title`; a comment has `link_id` (`t3_<thread id>`). Values
 *   the record lacks are derived and named in `derived` (score 0, author `[unknown]`); author
 *   karma is read when the record has it (`author_link_karma`, `author_comment_karma`), else
 *   derived from the store when the thread is read (the author's upvotes there).
 * - The shared reddit-post-comment dataset (`<subreddit>/post_<n>.txt`: `# r/<sub>`, `## <title>`,
 *   `#### <body>`, `###### <comment>` lines; body and comments as Python bytes literals). It has
 *   no authors, dates, scores or ids: author `[unknown]`; the date spread deterministically over
 *   2022-01-01..2022-11-01 from the path (the source's commit is of 2022-11-12), comments 7 minutes
 *   apart after it; comment upvotes by their order in the file (first = most: n - i); thread
 *   upvotes = its comments in the file; url = the file in the source repository. All flagged.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { Readable, Transform } from 'node:stream';
import { Decompress } from 'fzstd';
import { stableUuid } from '../corpus/read.js';

export interface ThreadRow {
  threadId: string;
  threadKey: string;
  source: 'pushshift' | 'reddit-post-comment';
  subreddit: string;
  title: string;
  body: string;
  author: string;
  authorLinkKarma: number | null;
  authorCommentKarma: number | null;
  date: Date;
  upvotes: number;
  url: string;
  commentsCount: number | null;
  derived: string[];
}

export interface CommentRow {
  commentKey: string;
  threadKey: string;
  /** order within the source (ties of upvotes keep it) */
  seq: number;
  author: string;
  body: string;
  date: Date;
  upvotes: number;
  derived: string[];
}

export type ForumRecord = { kind: 'thread'; row: ThreadRow } | { kind: 'comment'; row: CommentRow };
/** A line (or file) that could not be read: the rest of the source is still loaded. */
export interface ReadProblem {
  file: string;
  line: number | null;
  message: string;
}

export const UNKNOWN_AUTHOR = '[unknown]';
export const threadIdOf = (threadKey: string) => stableUuid(`forum:${threadKey}`);
export const subredditUrl = (sub: string) => `https://www.reddit.com/r/${sub}/`;

export function rowHash(v: unknown): string {
  return crypto.createHash('sha1').update(JSON.stringify(v)).digest('hex');
}

// ---- Python bytes literals

/** `b'...'` / `b"..."` (escapes \n \t \r \\ \' \" \xNN \ooo) -> the UTF-8 text they hold. */
export function decodeBytesLiteral(lit: string): string {
  const s = lit.trim();
  const m = /^[bB]([rR]?)(['"])([\s\S]*)\2$/.exec(s);
  if (!m) return s;
  const raw = m[1] !== '';
  const inner = m[3]!;
  const bytes: number[] = [];
  const pushText = (t: string) => bytes.push(...Buffer.from(t, 'utf8'));
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c !== '\\' || raw) {
      pushText(c);
      continue;
    }
    const n = inner[i + 1];
    i++;
    switch (n) {
      case 'n':
        bytes.push(10);
        break;
      case 't':
        bytes.push(9);
        break;
      case 'r':
        bytes.push(13);
        break;
      case 'a':
        bytes.push(7);
        break;
      case 'b':
        bytes.push(8);
        break;
      case 'f':
        bytes.push(12);
        break;
      case 'v':
        bytes.push(11);
        break;
      case '\\':
        bytes.push(92);
        break;
      case "'":
        bytes.push(39);
        break;
      case '"':
        bytes.push(34);
        break;
      case '\n':
        break;
      case 'x': {
        const h = inner.slice(i + 1, i + 3);
        if (/^[0-9a-fA-F]{2}$/.test(h)) {
          bytes.push(parseInt(h, 16));
          i += 2;
        } else pushText('\\x');
        break;
      }
      default:
        if (n !== undefined && /[0-7]/.test(n)) {
          const o = /^[0-7]{1,3}/.exec(inner.slice(i))![0];
          bytes.push(parseInt(o, 8) & 0xff);
          i += o.length - 1;
        } else pushText(`\\${n ?? ''}`);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Reddit's HTML escapes in markdown text (&amp; &lt; &gt; &quot; &#39; &#x200B;), zero-width spaces dropped. */
export function unescapeHtml(s: string): string {
  return s
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h: string) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/[\u200B\uFEFF]/g, '');
}

const cleanText = (s: string) => unescapeHtml(s).replace(/\r\n?/g, '\n').trim();

// ---- the shared reddit-post-comment dataset

const RPC_REPO = 'https://github.com/ishandandekar/Reddit-Post-Comment-Dataset/blob/bb1df6b521895f0decb9f069a2cedf07cbdd1456/data';
const RPC_FROM = Date.parse('2022-01-01T00:00:00Z');
const RPC_TO = Date.parse('2022-11-01T00:00:00Z');
const COMMENT_GAP_MS = 7 * 60_000;

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Windows-1252 0x80-0x9F (the rest is Latin-1); Node's TextDecoder('windows-1252') reads these as C1 controls. */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';
/** A line of a thread file (read as latin1 bytes): UTF-8, else Windows-1252 (13 of the 135 files have such titles). */
function lineText(bytes: string): string {
  try {
    return utf8.decode(Buffer.from(bytes, 'latin1'));
  } catch {
    return bytes.replace(/[\u0080-\u009F]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]!);
  }
}

/** Is this file a thread of the shared dataset (first line `# r/<sub>`)? */
export function isPostCommentFile(file: string): boolean {
  if (!/post_\d+\.txt$/.test(file)) return false;
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    fs.readSync(fd, buf, 0, 4, 0);
    return buf.toString('utf8') === '# r/';
  } finally {
    fs.closeSync(fd);
  }
}

/** One thread file of the shared dataset -> its records (thread first). */
export function readPostCommentFile(file: string): ForumRecord[] {
  const lines = fs.readFileSync(file).toString('latin1').split('\n').map(lineText);
  const sub = /^# r\/(\S+)/.exec(lines[0] ?? '')?.[1];
  if (!sub) throw new Error('not a thread file: the first line is not "# r/<subreddit>"');
  const name = path.basename(file, '.txt');
  const key = `rpc:${sub}/${name}`;
  let title = '';
  let body = '';
  const comments: string[] = [];
  for (const l of lines.slice(1)) {
    if (l.startsWith('###### ')) comments.push(cleanText(decodeBytesLiteral(l.slice(7))));
    else if (l.startsWith('#### ')) body = cleanText(decodeBytesLiteral(l.slice(5)));
    else if (l.startsWith('## ')) title = cleanText(l.slice(3));
  }
  if (!title) throw new Error('no "## <title>" line');
  const h = crypto.createHash('sha1').update(key).digest();
  const date = new Date(RPC_FROM + Math.floor(((h.readUInt32BE(0) / 2 ** 32) * (RPC_TO - RPC_FROM)) / 60_000) * 60_000);
  const kept = comments.filter((c) => c.length > 0);
  const thread: ThreadRow = {
    threadId: threadIdOf(key),
    threadKey: key,
    source: 'reddit-post-comment',
    subreddit: sub,
    title,
    body,
    author: UNKNOWN_AUTHOR,
    authorLinkKarma: null,
    authorCommentKarma: null,
    date,
    upvotes: kept.length,
    url: `${RPC_REPO}/${sub}/${name}.txt`,
    commentsCount: kept.length,
    derived: [
      'author',
      'author_comment_karma',
      'author_link_karma',
      'date',
      'upvotes',
      'url',
      'comments_count',
      'comments.author',
      'comments.date',
      'comments.upvotes',
    ],
  };
  return [
    { kind: 'thread', row: thread },
    ...kept.map(
      (c, i): ForumRecord => ({
        kind: 'comment',
        row: {
          commentKey: `${key}#${i}`,
          threadKey: key,
          seq: i,
          author: UNKNOWN_AUTHOR,
          body: c,
          date: new Date(date.getTime() + (i + 1) * COMMENT_GAP_MS),
          upvotes: kept.length - i,
          derived: ['author', 'date', 'upvotes'],
        },
      }),
    ),
  ];
}

// ---- Pushshift NDJSON

const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
const int = (v: unknown) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? Math.max(-2_147_483_648, Math.min(2_147_483_647, Math.round(n))) : null;
};
/** created_utc: Unix seconds (number or digits), or an ISO date. */
function dateOf(v: unknown): Date | null {
  if (typeof v === 'number' || (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v))) {
    const d = new Date(Number(v) * 1000);
    return Number.isNaN(d.getTime()) || d.getUTCFullYear() > 9999 ? null : d;
  }
  if (typeof v === 'string') {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}
const authorOf = (v: unknown) => str(v)?.trim() || null;
const baseId = (v: string) => v.replace(/^t\d_/, '');

/** One parsed Pushshift object -> a record; throws with a reason when it is neither. */
export function pushshiftRecord(o: unknown, seq: number): ForumRecord {
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error('not a JSON object');
  const r = o as Record<string, unknown>;
  const id = str(r.id) ?? (str(r.name) ? baseId(str(r.name)!) : null);
  if (!id) throw new Error('no "id"');
  const derived: string[] = [];
  const created = dateOf(r.created_utc ?? r.created);
  if (!created) derived.push('date');
  const author = authorOf(r.author);
  if (!author) derived.push('author');
  const score = int(r.score ?? r.ups);
  if (score === null) derived.push('upvotes');
  if (typeof r.title === 'string') {
    const sub = str(r.subreddit)?.trim() || 'unknown';
    const key = `reddit:${baseId(id)}`;
    const permalink = str(r.permalink);
    const linkKarma = int(r.author_link_karma);
    const commentKarma = int(r.author_comment_karma);
    if (linkKarma === null) derived.push('author_link_karma');
    if (commentKarma === null) derived.push('author_comment_karma');
    const numComments = int(r.num_comments);
    if (numComments === null) derived.push('comments_count');
    return {
      kind: 'thread',
      row: {
        threadId: threadIdOf(key),
        threadKey: key,
        source: 'pushshift',
        subreddit: sub,
        title: cleanText(r.title),
        body: cleanText(str(r.selftext) ?? ''),
        author: author ?? UNKNOWN_AUTHOR,
        authorLinkKarma: linkKarma,
        authorCommentKarma: commentKarma,
        date: created ?? new Date(0),
        upvotes: score ?? 0,
        url: permalink
          ? `https://www.reddit.com${permalink.startsWith('/') ? '' : '/'}${permalink}`
          : `https://www.reddit.com/r/${sub}/comments/${baseId(id)}/`,
        commentsCount: numComments,
        derived,
      },
    };
  }
  const link = str(r.link_id);
  if (link && typeof r.body === 'string') {
    return {
      kind: 'comment',
      row: {
        commentKey: `reddit:c:${baseId(id)}`,
        threadKey: `reddit:${baseId(link)}`,
        seq,
        author: author ?? UNKNOWN_AUTHOR,
        body: cleanText(r.body),
        date: created ?? new Date(0),
        upvotes: score ?? 0,
        derived,
      },
    };
  }
  throw new Error('neither a submission (no "title") nor a comment (no "link_id" and "body")');
}

/** A zstd stream (fzstd) as a Transform. */
function zstdDecoder(): Transform {
  // the decoder's output goes to `t`, made just below (it is called only once data flows)
  const d = new Decompress((chunk) => void t.push(Buffer.from(chunk)));
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      try {
        d.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    flush(cb) {
      try {
        d.push(new Uint8Array(0), true);
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
  });
  return t;
}

/** NDJSON files a directory walk picks up (a file named on its own is read as NDJSON whatever its name). */
export const isNdjsonFile = (f: string) => /\.(ndjson|jsonl)(\.zst)?$/i.test(f) || /^R[SC]_.*\.zst$/i.test(f);

/**
 * Stream the records of a Pushshift file: records in order, a problem per unreadable line (the
 * rest is still read). Memory stays bounded by one line.
 */
export async function* readPushshift(file: string, onProblem: (p: ReadProblem) => void): AsyncGenerator<ForumRecord> {
  let input: Readable = fs.createReadStream(file);
  if (/\.zst$/i.test(file)) input = input.pipe(zstdDecoder());
  const lines = readline.createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  const failed = new Promise<never>((_, reject) => input.once('error', reject));
  failed.catch(() => undefined);
  const it = lines[Symbol.asyncIterator]();
  for (;;) {
    const next = await Promise.race([it.next(), failed]).catch((e: Error) => {
      onProblem({ file, line: n + 1, message: `cannot read the file past line ${n}: ${e.message}` });
      return { done: true as const, value: undefined };
    });
    if (next.done) break;
    n++;
    const text = next.value.trim();
    if (!text) continue;
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch (e) {
      onProblem({ file, line: n, message: `not JSON: ${(e as Error).message}` });
      continue;
    }
    try {
      yield pushshiftRecord(o, n);
    } catch (e) {
      onProblem({ file, line: n, message: (e as Error).message });
    }
  }
  lines.close();
  input.destroy();
}

/** Files of a path a load reads: a file itself, or every thread file and NDJSON file under a directory. */
export function forumFiles(p: string): { postComment: string[]; ndjson: string[] } {
  const st = fs.statSync(p);
  if (st.isFile()) return isPostCommentFile(p) ? { postComment: [p], ndjson: [] } : { postComment: [], ndjson: [p] };
  const postComment: string[] = [];
  const ndjson: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.isFile() && /\.txt$/.test(e.name) && isPostCommentFile(f)) postComment.push(f);
      else if (e.isFile() && isNdjsonFile(e.name)) ndjson.push(f);
    }
  };
  walk(p);
  return { postComment, ndjson };
}

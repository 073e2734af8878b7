/**
 * Server-sent events, both ways, for the client (reading the service's streams), the service's
 * model providers (reading OpenAI / Anthropic / Gemini streams) and the service's own streams
 * (writing them). The framing is the one `spec/chat.ts` (`SSE`) names: `data:` lines, events
 * separated by a blank line, lines starting with `:` are comments, several `data:` lines of one
 * event join with `\n`; other fields (`event:`, `id:`, `retry:`) carry nothing the readers here
 * need and are skipped. Lines may end with `\n`, `\r\n` or `\r`, split anywhere across chunks;
 * bytes are decoded as one UTF-8 stream, so a character split across two chunks stays whole.
 */

/** One event of `data` (a string as it is, anything else as JSON): `data: ...\n\n`, one `data:` line per line of it. */
export function sseFrame(data: unknown): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `${text
    .split(/\r\n|\r|\n/)
    .map((l) => `data: ${l}`)
    .join('\n')}\n\n`;
}

/** An incremental reader: text in, the `data` of each completed event out. */
export class SseDecoder {
  private buf = '';
  private data: string[] = [];

  /** Feed text; returns the data of the events it completes. */
  push(text: string): string[] {
    this.buf += text;
    const out: string[] = [];
    let from = 0;
    for (let i = 0; i < this.buf.length; i++) {
      const ch = this.buf[i];
      if (ch !== '\n' && ch !== '\r') continue;
      // a \r last in the buffer may be the first half of a \r\n: wait for the next chunk
      if (ch === '\r' && i === this.buf.length - 1) break;
      this.line(this.buf.slice(from, i), out);
      if (ch === '\r' && this.buf[i + 1] === '\n') i++;
      from = i + 1;
    }
    this.buf = this.buf.slice(from);
    return out;
  }

  /** The end of the stream: a last event not closed by a blank line still counts. */
  end(): string[] {
    const out: string[] = [];
    if (this.buf) this.line(this.buf.replace(/\r$/, ''), out);
    this.buf = '';
    if (this.data.length) out.push(this.data.join('\n'));
    this.data = [];
    return out;
  }

  private line(line: string, out: string[]): void {
    if (line === '') {
      if (this.data.length) out.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    if ((colon < 0 ? line : line.slice(0, colon)) !== 'data') return;
    const value = colon < 0 ? '' : line.slice(colon + 1);
    this.data.push(value.startsWith(' ') ? value.slice(1) : value);
  }
}

/** The data of every event of a whole SSE text, in order. */
export function sseEventsOf(text: string): string[] {
  const d = new SseDecoder();
  return [...d.push(text), ...d.end()];
}

/**
 * The data of each event of a byte (or text) stream, as it arrives. `end`: a data value that
 * closes the stream (the service's `[DONE]`); it is not yielded and nothing after it is read.
 */
export async function* sseData(chunks: AsyncIterable<Uint8Array | string>, opts: { end?: string } = {}): AsyncGenerator<string> {
  const bytes = new TextDecoder();
  const sse = new SseDecoder();
  for await (const c of chunks) {
    for (const data of sse.push(typeof c === 'string' ? c : bytes.decode(c, { stream: true }))) {
      if (data === opts.end) return;
      yield data;
    }
  }
  for (const data of [...sse.push(bytes.decode()), ...sse.end()]) {
    if (data === opts.end) return;
    yield data;
  }
}

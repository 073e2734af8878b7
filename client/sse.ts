/** Server-sent events framing (facts §11.1): `data:` lines, blank-line separated, `[DONE]` ends. */
export async function* sseData(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  let buf = '';
  let data: string[] = [];
  for await (const c of chunks) {
    buf += typeof c === 'string' ? c : c.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line === '') {
        if (data.length) {
          const d = data.join('\n');
          data = [];
          if (d === '[DONE]') return;
          yield d;
        }
      } else if (line.startsWith(':')) {
        continue;
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
    }
  }
  if (data.length && data.join('\n') !== '[DONE]') yield data.join('\n');
}

/** Server-sent events from a fetch body: yields the `data` of each event (multi-line data joined with \n). */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const dec = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += dec.decode(chunk, { stream: true });
    let i: number;
    while ((i = buf.search(/\r?\n/)) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(buf[i] === '\r' ? i + 2 : i + 1);
      if (line === '') {
        if (data.length) yield data.join('\n');
        data = [];
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
      }
      // comments (":") and other fields (event:, id:, retry:) are not needed by the providers here
    }
  }
  if (data.length) yield data.join('\n');
}

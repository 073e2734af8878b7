/** The service's streams as the client reads them: lib/sse.ts's reader, ending at the `[DONE]` event (spec/chat.ts `SSE`). */
import { SSE } from '../spec/index.js';
import { sseData as events } from '../lib/sse.js';

/** The data of each event of a stream, up to `[DONE]` (not yielded); comments skipped, multi-line data joined with `\n`. */
export function sseData(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  return events(chunks, { end: SSE.done });
}

/** One SSE reader and writer for the client, the model providers and the service's streams (lib/sse.ts). */
import { describe, expect, it } from 'vitest';
import { SseDecoder, sseData, sseEventsOf, sseFrame } from '../../lib/sse.js';

async function* chunks(parts: (string | Uint8Array)[]) {
  for (const p of parts) yield p;
}
async function all(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const d of it) out.push(d);
  return out;
}

describe('reading server-sent events', () => {
  it('a character whose UTF-8 bytes are split across two chunks arrives whole', async () => {
    const bytes = new TextEncoder().encode('data: {"text":"Zürich — 東京"}\n\n');
    // cut inside "ü" (2 bytes), inside "—" (3 bytes) and inside "東" (3 bytes)
    const cuts = [14, 22, 27, bytes.length];
    const parts = cuts.map((end, i) => bytes.slice(i ? cuts[i - 1] : 0, end));
    expect(await all(sseData(chunks(parts)))).toEqual(['{"text":"Zürich — 東京"}']);
  });

  it('lines end with \\n, \\r\\n or \\r, even when a \\r\\n is split across chunks; comments and other fields are skipped', async () => {
    const parts = ['event: message\r', '\ndata: a\r', '\n\r\n: keep-alive\rdata: b\rid: 7\r\r', 'data:c\n\n'];
    expect(await all(sseData(chunks(parts)))).toEqual(['a', 'b', 'c']);
  });

  it('joins the data lines of one event with \\n and stops at the end marker, reading nothing after it', async () => {
    const parts = ['data: line1\ndata: line2\n\n', 'data: [DONE]\n\n', 'data: late\n\n'];
    expect(await all(sseData(chunks(parts), { end: '[DONE]' }))).toEqual(['line1\nline2']);
    // without an end marker every event is data, the last one even without its blank line
    expect(await all(sseData(chunks([...parts, 'data: unterminated'])))).toEqual(['line1\nline2', '[DONE]', 'late', 'unterminated']);
  });

  it('the decoder gives the same events however the text is cut', () => {
    const text = 'data: {"a":1}\n\n: note\ndata: x\ndata: y\r\n\r\ndata: [DONE]\n\n';
    const whole = sseEventsOf(text);
    expect(whole).toEqual(['{"a":1}', 'x\ny', '[DONE]']);
    for (let cut = 1; cut < text.length; cut++) {
      const d = new SseDecoder();
      expect([...d.push(text.slice(0, cut)), ...d.push(text.slice(cut)), ...d.end()], `cut at ${cut}`).toEqual(whole);
    }
  });
});

describe('writing server-sent events', () => {
  it('a frame is read back as the data written: JSON as JSON, a multi-line string line by line', () => {
    const obj = { id: 'x', text: 'two\nlines' };
    expect(sseFrame(obj)).toBe(`data: ${JSON.stringify(obj)}\n\n`);
    expect(sseEventsOf(sseFrame(obj) + sseFrame('first\nsecond') + sseFrame('[DONE]'))).toEqual([JSON.stringify(obj), 'first\nsecond', '[DONE]']);
  });
});

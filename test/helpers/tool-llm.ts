/**
 * A local model server that plans with tools: OpenAI chat completions (`tools` -> `tool_calls`)
 * or Anthropic Messages (`tools` -> `tool_use` blocks). A request that offers tools is answered
 * by `plan(body, turn)` (turn = assistant turns so far); one without tools (the report writer) gets `report`
 * (or what `write(body)` returns), plain or streamed, its pieces `reportGapMs` apart. Every request is
 * recorded, and so is the progress of the streamed report: pieces sent, whether it ended or the
 * client closed it first.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PlannedTurn {
  text: string;
  calls: { id: string; name: string; input: Record<string, unknown> }[];
}

export interface ToolLlm {
  url: string;
  requests: { path: string; headers: http.IncomingHttpHeaders; body: any }[]; // eslint-disable-line @typescript-eslint/no-explicit-any
  plan: (body: any, turn: number) => PlannedTurn; // eslint-disable-line @typescript-eslint/no-explicit-any
  report: string[];
  /** the report's pieces for a writer request (undefined: `report`) */
  write?: (body: any) => string[] | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** ms between streamed report pieces (0: all at once) */
  reportGapMs: number;
  /** the last streamed report: pieces sent so far, sent to the end, closed by the client before its end */
  streamed: { sent: number; finished: boolean; aborted: boolean };
  close(): Promise<void>;
}

export async function startToolLlm(protocol: 'openai' | 'anthropic'): Promise<ToolLlm> {
  const fake: ToolLlm = {
    url: '',
    requests: [],
    plan: () => ({ text: '', calls: [] }),
    report: ['The model reports [1].'],
    reportGapMs: 0,
    streamed: { sent: 0, finished: false, aborted: false },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw || 'null');
      fake.requests.push({ path: req.url ?? '', headers: req.headers, body });
      if (Array.isArray(body?.tools)) {
        // the turn: how many assistant turns the conversation already has
        const t = fake.plan(body, (body.messages ?? []).filter((m: { role?: string }) => m.role === 'assistant').length);
        res.writeHead(200, { 'content-type': 'application/json' });
        if (protocol === 'openai') {
          const tool_calls = t.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
          return res.end(
            JSON.stringify({
              id: 'x',
              object: 'chat.completion',
              choices: [
                {
                  index: 0,
                  message: { role: 'assistant', content: t.text || null, ...(tool_calls.length ? { tool_calls } : {}) },
                  finish_reason: tool_calls.length ? 'tool_calls' : 'stop',
                },
              ],
            }),
          );
        }
        const content = [
          ...(t.text ? [{ type: 'text', text: t.text }] : []),
          ...t.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input })),
        ];
        return res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', content, stop_reason: t.calls.length ? 'tool_use' : 'end_turn' }));
      }
      const report = fake.write?.(body) ?? fake.report;
      const text = report.join('');
      if (!body?.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        if (protocol === 'openai')
          return res.end(
            JSON.stringify({
              id: 'x',
              object: 'chat.completion',
              choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
            }),
          );
        return res.end(JSON.stringify({ id: 'msg', type: 'message', role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn' }));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const streamed: ToolLlm['streamed'] = { sent: 0, finished: false, aborted: false };
      fake.streamed = streamed;
      res.on('close', () => {
        if (!streamed.finished) streamed.aborted = true;
      });
      const send = (d: unknown) => res.write(`data: ${typeof d === 'string' ? d : JSON.stringify(d)}\n\n`);
      void (async () => {
        for (const p of report) {
          if (fake.reportGapMs) await new Promise((r) => setTimeout(r, fake.reportGapMs));
          if (res.destroyed) return;
          if (protocol === 'openai') send({ id: 'x', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
          else send({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } });
          streamed.sent++;
        }
        send(protocol === 'openai' ? '[DONE]' : { type: 'message_stop' });
        streamed.finished = true;
        res.end();
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise<void>((r) => server.close(() => r()));
  return fake;
}

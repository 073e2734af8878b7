/**
 * A loopback HTTP server for the fetcher's tests: a map of path -> handler, counts of the TCP
 * connections it accepted and the requests it received, and a close that drops the sockets still open (streaming, hanging).
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface PageServer {
  /** http://HOST:PORT */
  origin: string;
  port: number;
  routes: Map<string, Handler>;
  /** TCP connections accepted so far */
  connections: number;
  /** HTTP requests received so far (a keep-alive connection carries several) */
  requests: number;
  close(): Promise<void>;
}

export async function startPageServer(host = '127.0.0.1'): Promise<PageServer> {
  const sockets = new Set<Socket>();
  const routes = new Map<string, Handler>();
  const server = http.createServer((req, res) => {
    page.requests++;
    const handler = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  const page: PageServer = { origin: '', port: 0, routes, connections: 0, requests: 0, close: async () => undefined };
  server.on('connection', (s) => {
    page.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  page.port = (server.address() as AddressInfo).port;
  page.origin = `http://${host.includes(':') ? `[${host}]` : host}:${page.port}`;
  page.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return page;
}

/** An HTML page handler (status 200, the given Content-Type). */
export const html =
  (body: string | Buffer, contentType = 'text/html; charset=utf-8'): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': contentType }).end(body);

/** A redirect handler. */
export const redirect =
  (location: string, status = 302): Handler =>
  (_req, res) =>
    res.writeHead(status, { location }).end();

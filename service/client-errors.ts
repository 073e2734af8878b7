/**
 * Errors raised below the routes, answered with the same `{code, detail}` body as every other
 * error (spec/errors.ts) instead of Fastify's `{error, message, statusCode}` defaults:
 * - the HTTP parser's client errors (Node's `clientError`): a request line or headers over
 *   16 KB (431), a malformed request line, header or chunked body, an unknown method token
 *   (400), a request that was too slow to arrive (408);
 * - the router's framework errors: a URL that is not valid percent-encoding (400), a path
 *   parameter over the router's length limit (414).
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

const CLIENT_ERRORS: Record<string, { status: number; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, detail: 'Request Header Fields Too Large: the request line and headers may not exceed 16 KB' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, detail: 'Request Timeout: the request did not arrive in time' },
  HPE_INVALID_METHOD: { status: 400, detail: 'Bad Request: unknown HTTP method' },
};
const MALFORMED = { status: 400, detail: 'Bad Request: malformed request line, headers or body framing' };

/** Fastify `clientErrorHandler`: the response is written on the raw socket, then it is closed. */
export function clientErrorHandler(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, detail } = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify({ code: status * 1000, detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Fastify `frameworkErrors`: bad URL (400), over-long path parameter (414), anything else by its status. */
export function frameworkErrors(err: Error & { code?: string; statusCode?: number }, _req: FastifyRequest, reply: FastifyReply): void {
  const status = err.code === 'FST_ERR_BAD_URL' ? 400 : (err.statusCode ?? 500);
  const detail =
    err.code === 'FST_ERR_BAD_URL'
      ? 'Bad Request: the URL is not valid percent-encoding'
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? 'URI Too Long: a path parameter is over the length limit'
        : status >= 500
          ? 'Internal Server Error'
          : err.message;
  void reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ code: status * 1000, detail });
}

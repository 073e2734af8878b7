/**
 * Webhook delivery under the fetch policy (policy.ts): a POST that goes where the page fetcher may
 * go and nowhere else — through the same connection pool (`policyAgent`: every resolved address
 * judged, the connection made to the judged address, the peer judged again), so a webhook URL a
 * user chose cannot reach loopback, private ranges or a cloud metadata address unless
 * `NEWSFLOW_FETCH_ALLOW` lists them.
 *
 * - Redirects are never followed: a 3xx answer is refused (`redirect`) and its Location is not
 *   requested, so an allowed receiver cannot bounce the POST somewhere else.
 * - The user's own headers are sent, except the FIXED_HEADERS, which the delivery sets itself
 *   (transport framing and the delivery's identity); a header name that is not an HTTP token or a
 *   value with a control character (the rules of spec/alerts.ts, checked again for alerts stored
 *   before them) is refused (`invalid_header`) before anything is sent.
 * - The response body is read up to `maxResponseBytes` and dropped.
 *
 * Every failure is a `FetchRefused`; WEBHOOK_REFUSALS are the reasons that no retry can change
 * (the URL, the policy, the receiver's redirect, the headers), the others (`dns`, `network`,
 * `timeout`, `http_status`) may pass.
 */
import { request } from 'undici';
import { HTTP_HEADER_NAME, HTTP_HEADER_VALUE, WEBHOOK_FIXED_HEADERS } from '../spec/index.js';
import { FETCH_DEFAULTS, FetchRefused, asRefusal, parseUrl, policyAgent, type FetchOptions, type RefusalReason } from '../lib/fetch/fetcher.js';

export const WEBHOOK_DEFAULTS = {
  /** the whole POST, connect to last response byte */
  timeoutMs: 10_000,
  /** response bytes read before the rest is dropped */
  maxResponseBytes: 64 * 1024,
  userAgent: 'newsflow-alert-runner',
} as const;

/** Header names a webhook's `headers` cannot set (spec/alerts.ts: the transport's and the delivery's own). */
export const FIXED_HEADERS: ReadonlySet<string> = new Set(WEBHOOK_FIXED_HEADERS);

/** Reasons of a refusal no retry can change. */
export const WEBHOOK_REFUSALS: ReadonlySet<RefusalReason> = new Set(['invalid_url', 'scheme', 'forbidden_address', 'redirect', 'invalid_header']);

export interface WebhookRequest {
  url: string;
  /** the JSON text sent */
  body: string;
  /** the user's headers (FIXED_HEADERS among them are dropped) */
  headers?: Record<string, string> | null;
  idempotencyKey: string;
}

export interface WebhookOptions extends Pick<FetchOptions, 'policy' | 'lookup' | 'signal'> {
  /** default WEBHOOK_DEFAULTS.timeoutMs */
  timeoutMs?: number;
  /** default WEBHOOK_DEFAULTS.maxResponseBytes */
  maxResponseBytes?: number;
  /** default WEBHOOK_DEFAULTS.userAgent */
  userAgent?: string;
}

/** The headers sent: the user's (checked, the fixed ones dropped), then the delivery's own. */
export function webhookHeaders(req: Pick<WebhookRequest, 'headers' | 'idempotencyKey' | 'url'>, userAgent: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (!HTTP_HEADER_NAME.test(name))
      throw new FetchRefused('invalid_header', `header name ${JSON.stringify(name.slice(0, 100))} is not an HTTP token`, req.url);
    if (typeof value !== 'string' || !HTTP_HEADER_VALUE.test(value))
      throw new FetchRefused('invalid_header', `header ${name} has a control character in its value`, req.url);
    const key = name.toLowerCase();
    if (!FIXED_HEADERS.has(key)) out[key] = value;
  }
  return { ...out, 'content-type': 'application/json', 'idempotency-key': req.idempotencyKey, 'user-agent': userAgent };
}

/** POST a webhook under the policy; resolves with the 2xx status, throws only `FetchRefused`. */
export async function postWebhook(req: WebhookRequest, opts: WebhookOptions = {}): Promise<{ status: number }> {
  const url = parseUrl(req.url);
  const headers = webhookHeaders(req, opts.userAgent ?? WEBHOOK_DEFAULTS.userAgent);
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const maxBytes = opts.maxResponseBytes ?? WEBHOOK_DEFAULTS.maxResponseBytes;
  const total = AbortSignal.timeout(timeoutMs);
  const stop = opts.signal ? AbortSignal.any([total, opts.signal]) : total;
  const bounded = Math.min(timeoutMs, FETCH_DEFAULTS.headersTimeoutMs);
  const agent = policyAgent({
    policy: opts.policy,
    lookup: opts.lookup,
    connectTimeoutMs: Math.min(timeoutMs, FETCH_DEFAULTS.connectTimeoutMs),
    headersTimeoutMs: bounded,
    bodyTimeoutMs: bounded,
  });
  try {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(url, { method: 'POST', dispatcher: agent, signal: stop, headers, body: req.body });
    } catch (err) {
      throw asRefusal(err, url.href, total);
    }
    let read = 0;
    try {
      for await (const chunk of res.body) {
        read += (chunk as Buffer).length;
        if (read > maxBytes) break;
      }
    } catch {
      // the answer's status is what counts; a body cut short is no failure of the delivery
    }
    res.body.on('error', () => undefined);
    res.body.destroy();
    if (res.statusCode >= 300 && res.statusCode < 400) {
      const location = [res.headers.location].flat()[0];
      throw new FetchRefused(
        'redirect',
        `the webhook answered HTTP ${res.statusCode}${location ? ` to ${String(location).slice(0, 300)}` : ''}; webhooks do not follow redirects`,
        url.href,
        res.statusCode,
      );
    }
    if (res.statusCode < 200 || res.statusCode > 299)
      throw new FetchRefused('http_status', `the webhook answered HTTP ${res.statusCode}`, url.href, res.statusCode);
    return { status: res.statusCode };
  } finally {
    await agent.destroy();
  }
}

/**
 * Webhook URLs an alert may carry: a URL the fetch policy refuses whatever DNS says (its host is a
 * non-public address literal or localhost; lib/fetch/policy.ts `urlHostRefusal`) can never be
 * delivered, so creating or updating an alert with one is a 422 naming `triggers.N.params.url`.
 * A host name is judged when the alert runner connects (activities/webhook.ts), on every delivery.
 * The OpenAPI document states the same refusal from the same list (webhookRefusedHosts).
 */
import type { ValidationErrorItem } from '../../spec/index.js';
import { LOCALHOST_NAMES, refusedNetworks, urlHostRefusal, type FetchPolicy } from '../../lib/fetch/policy.js';

/**
 * What refusedWebhookUrls refuses, as the OpenAPI document lists it (the `refused-hosts` rule of a
 * webhook's params, spec/alerts.ts): the networks and names of the fetch policy, before the
 * server's own exceptions (NEWSFLOW_FETCH_ALLOW).
 */
export function webhookRefusedHosts(): { hosts: string[]; names: string[] } {
  return { hosts: refusedNetworks(), names: [...LOCALHOST_NAMES] };
}

/** The 422 items of the webhook URLs in `triggers` the policy refuses (empty: none). */
export function refusedWebhookUrls(triggers: readonly unknown[] | null | undefined, policy: FetchPolicy): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  (triggers ?? []).forEach((t, i) => {
    const trigger = t as { action?: unknown; params?: { url?: unknown } | null };
    if (trigger?.action !== 'webhook' || typeof trigger.params?.url !== 'string') return;
    let url: URL;
    try {
      url = new URL(trigger.params.url);
    } catch {
      return; // the schema refused it already
    }
    const kind = urlHostRefusal(policy, url);
    if (kind)
      out.push({
        loc: ['body', 'triggers', i, 'params', 'url'],
        msg: `url: ${url.hostname} is a ${kind} address; webhooks are delivered to public addresses only (the server's NEWSFLOW_FETCH_ALLOW lists exceptions)`,
        type: 'value_error.url.host',
      });
  });
  return out;
}

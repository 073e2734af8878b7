/** What the alert tests share: the keys of their service and an alert created with a webhook and a cron. */
import { SCOPES } from '../../spec/index.js';
import { api, type KeySpec, type TestService } from './service.js';

/** An organization's two keys, another user's, a personal key and one without the chat scope. */
export const ALERT_KEYS: Record<string, KeySpec> = {
  org: { org: 'acme', scopes: [...SCOPES], plan: 'enterprise' },
  org2: { org: 'acme', scopes: ['chat'], plan: 'enterprise' },
  other: { scopes: ['chat'], plan: 'pro' },
  personal: { scopes: ['chat'], plan: 'free' },
  nochat: { scopes: ['news'], plan: 'free' },
};

export const WEBHOOK = { action: 'webhook', params: { url: 'https://hooks.example.com/alerts' } };

/** POST /v1/chat/alerts with `body` over a five-minute cron and one webhook, by `key` (the org's by default). */
export const createAlert = (svc: TestService, body: Record<string, unknown>, key = svc.keys.org!) =>
  api(svc.url, 'POST', '/v1/chat/alerts', key, { cron: '*/5 * * * *', triggers: [WEBHOOK], ...body });

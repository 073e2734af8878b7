/**
 * /v1/chat/alerts: CRUD, run and logs (spec/alerts.ts). A key sees the alerts of its user only
 * (organization keys: the organization's); anything else, and a `user_id` other than the
 * caller's, is 404. Running an inactive, deleted or expired alert writes no log and returns the
 * alert (an expired one is deactivated first); `is_test` runs check the same window but move no
 * watermark, deactivate nothing and are marked so the alert runner never delivers them.
 */
import crypto from 'node:crypto';
import { ALERT_TYPE_EFFECT, type CreateAlertRequest } from '../../spec/index.js';
import type { GroupHandlers, HandlerCtx } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { AlertStore, alertBody, type AlertFields, type AlertRow } from '../alerts/store.js';
import { checkAlert, newLog } from '../alerts/check.js';
import { refusedWebhookUrls } from '../alerts/webhooks.js';

const store = (ctx: HandlerCtx) => new AlertStore(ctx.services.db);
const now = (ctx: HandlerCtx) => ctx.services.news?.clock() ?? Date.now();

/** The caller's user; a foreign `user_id` parameter is 404 (it names nothing this key may see). */
function owner(ctx: HandlerCtx): string {
  const p = ctx.principal!;
  const asked = (ctx.query as { user_id?: string | null } | undefined)?.user_id;
  if (asked && asked.toLowerCase() !== p.userId.toLowerCase()) throw notFound(`no user ${asked} visible to this key`);
  return p.userId;
}

async function mine(ctx: HandlerCtx, includeDeleted = false): Promise<AlertRow> {
  const id = String((ctx.params as { alert_id: string }).alert_id).toLowerCase();
  const a = await store(ctx).get(id, owner(ctx), includeDeleted);
  if (!a) throw notFound(`no alert ${id}`);
  return a;
}

/** An alert deleted while a request worked on it (a DELETE won the race) is 404 like any deleted alert. */
function stillThere(id: string, a: AlertRow | undefined): AlertRow {
  if (!a) throw notFound(`no alert ${id}`);
  return a;
}

/** alert_type overrides repeat / always_trigger (spec/alerts.ts). */
function withTypeEffect<T extends { alert_type?: string | null; repeat?: boolean | null; always_trigger?: boolean | null }>(f: T): T {
  const eff = f.alert_type ? ALERT_TYPE_EFFECT[f.alert_type as keyof typeof ALERT_TYPE_EFFECT] : undefined;
  return eff ? { ...f, ...eff } : f;
}

/** A webhook URL that can never be delivered (a non-public address literal, localhost) is a 422. */
function deliverable(triggers: readonly unknown[] | null | undefined): void {
  const refused = refusedWebhookUrls(triggers);
  if (refused.length) throw validationError(refused);
}

/** Fields required in the response keep their value when an update sends null. */
const NOT_NULLABLE = new Set(['cron', 'triggers', 'always_trigger', 'repeat', 'active']);

export const alertHandlers: GroupHandlers = {
  get_alerts: async (ctx) => {
    const q = ctx.query as { page: number; per_page: number; all: boolean; include_deleted: boolean };
    const page = await store(ctx).list(owner(ctx), q);
    return { ...page, items: page.items.map(alertBody) };
  },

  create_alert: async (ctx) => {
    const body = withTypeEffect(ctx.body as CreateAlertRequest & AlertFields);
    deliverable(body.triggers);
    const p = ctx.principal!;
    const a = await store(ctx).create({ userId: p.userId, orgId: p.org?.id ?? null, keyId: p.keyId }, body, now(ctx));
    return alertBody(a);
  },

  get_alert: async (ctx) => alertBody(await mine(ctx)),

  put_alert: async (ctx) => {
    deliverable((ctx.body as { triggers?: unknown[] | null }).triggers);
    const a = await mine(ctx);
    const given = Object.entries(ctx.body as Record<string, unknown>).filter(([k, v]) => v !== undefined && !(v === null && NOT_NULLABLE.has(k)));
    const f = withTypeEffect(Object.fromEntries(given) as Partial<AlertFields>);
    return alertBody(stillThere(a.id, await store(ctx).update(a, f, now(ctx))));
  },

  delete_alert: async (ctx) => {
    await store(ctx).delete(await mine(ctx), now(ctx));
    return null;
  },

  // a deleted alert is gone for every operation on it, its logs included (Schemathesis' use-after-free
  // check); the logs of all alerts, unfiltered, still hold what it logged
  get_alert_logs: async (ctx) => {
    const a = await mine(ctx);
    const q = ctx.query as { page: number; per_page: number; all: boolean; start_timestamp?: number | null; end_timestamp?: number | null };
    return store(ctx).logs(a.user_id, { ...q, alert_id: a.id });
  },

  get_all_alert_logs: async (ctx) => {
    const q = ctx.query as {
      alert_id?: string | null;
      page: number;
      per_page: number;
      all: boolean;
      start_timestamp?: number | null;
      end_timestamp?: number | null;
    };
    const user = owner(ctx);
    if (q.alert_id && !(await store(ctx).get(q.alert_id.toLowerCase(), user))) throw notFound(`no alert ${q.alert_id}`);
    return store(ctx).logs(user, { ...q, alert_id: q.alert_id?.toLowerCase() ?? null });
  },

  run_alert: async (ctx) => {
    const { is_test: isTest } = ctx.query as { is_test: boolean };
    let a = await mine(ctx);
    const t = now(ctx);
    if (a.active && a.expires_at && Date.parse(a.expires_at) <= t && !isTest) {
      a = stillThere(a.id, await store(ctx).update(a, { active: false }, t));
    }
    if (!a.active && !isTest) return alertBody(a);
    const news = ctx.services.news!;
    const from = a.checked_through ?? Date.parse(a.created_at!);
    const r = await checkAlert(news, a, { from, to: t }, ctx.services.llm.openAi());
    const log = newLog(a, r, t, crypto.randomUUID(), isTest);
    const deactivate = !isTest && r.alert && !a.repeat;
    return alertBody(stillThere(a.id, await store(ctx).recordRun(a, log, { checkedThrough: isTest ? null : t, deactivate, isTest })));
  },
};

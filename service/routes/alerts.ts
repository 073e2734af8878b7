/**
 * /v1/chat/alerts: CRUD, run and logs (spec/alerts.ts). A key sees the alerts of its user only
 * (organization keys: the organization's); anything else, and a `user_id` other than the
 * caller's, is 404. Running an inactive, deleted or expired alert writes no log and returns the
 * alert (an expired one is deactivated first); `is_test` runs check the same window but move no
 * watermark, deactivate nothing and are marked so the alert runner never delivers them.
 */
import crypto from 'node:crypto';
import { ALERT_TYPE_EFFECT } from '../../spec/index.js';
import type { GroupHandlers, RequestCtx } from '../context.js';
import { notFound, validationError } from '../errors/index.js';
import { AlertStore, alertBody, type AlertFields, type AlertRow } from '../alerts/store.js';
import { checkAlert, newLog } from '../alerts/check.js';
import { refusedWebhookUrls } from '../alerts/webhooks.js';

const store = (ctx: RequestCtx) => new AlertStore(ctx.services.db);
const now = (ctx: RequestCtx) => ctx.services.news?.clock() ?? Date.now();

/** The caller's user; a foreign `user_id` parameter is 404 (it names nothing this key may see). */
function owner(ctx: RequestCtx & { query: { user_id?: string | null } }): string {
  const p = ctx.principal!;
  const asked = ctx.query.user_id;
  if (asked && asked.toLowerCase() !== p.userId.toLowerCase()) throw notFound(`no user ${asked} visible to this key`);
  return p.userId;
}

async function mine(ctx: RequestCtx & { query: { user_id?: string | null }; params: { alert_id: string } }, includeDeleted = false): Promise<AlertRow> {
  const id = ctx.params.alert_id.toLowerCase();
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
function deliverable(ctx: RequestCtx, triggers: unknown): void {
  // an update's fields are loosely typed by spec/alerts.ts (UpdateAlertRequest): an array or nothing
  const refused = refusedWebhookUrls(Array.isArray(triggers) ? triggers : null, ctx.services.config.fetchPolicy);
  if (refused.length) throw validationError(refused);
}

/** Fields required in the response keep their value when an update sends null. */
const NOT_NULLABLE = new Set(['cron', 'triggers', 'always_trigger', 'repeat', 'active']);

export const alertHandlers: GroupHandlers = {
  get_alerts: async (ctx) => {
    const q = ctx.query;
    const page = await store(ctx).list(owner(ctx), q);
    return { ...page, items: page.items.map(alertBody) };
  },

  create_alert: async (ctx) => {
    const body = withTypeEffect(ctx.body);
    deliverable(ctx, body.triggers);
    const p = ctx.principal!;
    const a = await store(ctx).create({ userId: p.userId, orgId: p.org?.id ?? null, keyId: p.keyId }, body, now(ctx));
    return alertBody(a);
  },

  get_alert: async (ctx) => alertBody(await mine(ctx)),

  put_alert: async (ctx) => {
    deliverable(ctx, ctx.body.triggers);
    const a = await mine(ctx);
    const given = Object.entries(ctx.body).filter(([k, v]) => v !== undefined && !(v === null && NOT_NULLABLE.has(k)));
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
    const q = ctx.query;
    return store(ctx).logs(a.user_id, { ...q, alert_id: a.id });
  },

  get_all_alert_logs: async (ctx) => {
    const q = ctx.query;
    const user = owner(ctx);
    if (q.alert_id && !(await store(ctx).get(q.alert_id.toLowerCase(), user))) throw notFound(`no alert ${q.alert_id}`);
    return store(ctx).logs(user, { ...q, alert_id: q.alert_id?.toLowerCase() ?? null });
  },

  run_alert: async (ctx) => {
    const { is_test: isTest } = ctx.query;
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

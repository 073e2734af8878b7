/**
 * Alerts and their logs in the service store (migration 3). An alert belongs to the user of the
 * key that created it: organization keys share their organization's service user, so every key
 * of an organization sees the organization's alerts, and a personal key only its own. Deleting
 * keeps the row (deleted_at) so `include_deleted` can list it; a deleted alert is otherwise 404.
 */
import crypto from 'node:crypto';
import type { AlertLog, AlertResponse } from '../../spec/index.js';
import type { Db } from '../store/db.js';

export interface AlertRow extends AlertResponse {
  org_id: string | null;
  deleted_at: string | null;
  /** articles indexed up to this instant (ms) were checked by an earlier run */
  checked_through: number | null;
}

export interface Page<T> {
  items: T[];
  count: number;
  next_page: number | null;
  previous_page: number | null;
}

export interface PageQuery {
  page: number;
  per_page: number;
  all: boolean;
}

const iso = (v: unknown): string | null => (v == null ? null : new Date(v as string | Date).toISOString());
const json = (v: unknown): unknown => (v == null ? null : typeof v === 'string' ? JSON.parse(v) : v);

type Raw = Record<string, unknown>;
function toAlert(r: Raw): AlertRow {
  return {
    id: String(r.id),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    expires_at: iso(r.expires_at),
    user_id: String(r.user_id),
    query: (r.query as string | null) ?? null,
    cron: String(r.cron),
    model: (r.model as string | null) ?? null,
    share_link: (r.share_link as string | null) ?? null,
    sources: json(r.sources) as AlertResponse['sources'],
    report: json(r.report) as AlertResponse['report'],
    triggers: json(r.triggers) as AlertResponse['triggers'],
    always_trigger: Boolean(r.always_trigger),
    repeat: Boolean(r.repeat),
    active: Boolean(r.active),
    alert_type: (r.alert_type as AlertResponse['alert_type']) ?? null,
    title: (r.title as string | null) ?? null,
    seat_id: null,
    api_key_id: (r.api_key_id as string | null) ?? null,
    org_id: (r.org_id as string | null) ?? null,
    deleted_at: iso(r.deleted_at),
    checked_through: r.checked_through == null ? null : new Date(r.checked_through as string).getTime(),
  };
}

/** The response body: the stored row without the store's own columns. */
export function alertBody(a: AlertRow): AlertResponse {
  const { org_id: _o, deleted_at: _d, checked_through: _c, ...body } = a;
  return body;
}

function toLog(r: Raw): AlertLog {
  return {
    id: String(r.id),
    created_at: iso(r.created_at)!,
    alert_id: String(r.alert_id),
    user_id: String(r.user_id),
    alert: Boolean(r.alert),
    reasoning: String(r.reasoning),
    report: (r.report as string | null) ?? null,
    report_url: (r.report_url as string | null) ?? null,
    article_ids: ((r.article_ids as string[] | null) ?? []).map(String),
    webhook: json(r.webhook) as AlertLog['webhook'],
  };
}

function paginate<T>(rows: T[], count: number, q: PageQuery): Page<T> {
  if (q.all) return { items: rows, count, next_page: null, previous_page: null };
  const last = Math.max(1, Math.ceil(count / q.per_page));
  return { items: rows, count, next_page: q.page < last ? q.page + 1 : null, previous_page: q.page > 1 ? Math.min(q.page - 1, last) : null };
}

const COLUMNS = `id::VARCHAR AS id, user_id::VARCHAR AS user_id, org_id, api_key_id, created_at, updated_at, deleted_at, expires_at, query, cron, model,
  share_link, sources::VARCHAR AS sources, report::VARCHAR AS report, triggers::VARCHAR AS triggers, always_trigger, repeat, active, alert_type, title, checked_through`;

type Tx = Parameters<Parameters<Db['tx']>[0]>[0];
/** The alert as this transaction sees it, unless deleted: what a write answers with, read before a DELETE can slip in. */
async function live(q: Tx, id: string): Promise<AlertRow | undefined> {
  const [r] = await q.all<Raw>(`SELECT ${COLUMNS} FROM alerts WHERE id = $1::UUID AND deleted_at IS NULL`, [id]);
  return r ? toAlert(r) : undefined;
}

/** What a create or update carries (after validation and the alert_type effect). */
export interface AlertFields {
  query?: string | null;
  cron: string;
  model?: string | null;
  share_link?: string | null;
  sources?: Record<string, unknown>[] | null;
  report?: Record<string, unknown> | Record<string, unknown>[] | null;
  triggers: Record<string, unknown>[];
  always_trigger?: boolean;
  repeat?: boolean;
  active?: boolean;
  alert_type?: string | null;
  title?: string | null;
  expires_at?: string | null;
}

export class AlertStore {
  constructor(private readonly db: Db) {}

  async create(owner: { userId: string; orgId: string | null; keyId: string }, f: AlertFields, now: number): Promise<AlertRow> {
    const id = crypto.randomUUID();
    await this.db.run(
      `INSERT INTO alerts (id, user_id, org_id, api_key_id, created_at, updated_at, expires_at, query, cron, model, share_link, sources, report, triggers,
         always_trigger, repeat, active, alert_type, title, checked_through)
       VALUES ($1, $2, $3, $4, make_timestamp($5::BIGINT * 1000), make_timestamp($5::BIGINT * 1000), $6::TIMESTAMP, $7, $8, $9, $10, $11::JSON, $12::JSON, $13::JSON,
         $14, $15, $16, $17, $18, make_timestamp($5::BIGINT * 1000))`,
      [
        id,
        owner.userId,
        owner.orgId,
        owner.keyId,
        now,
        f.expires_at ? new Date(f.expires_at).toISOString().replace('Z', '') : null,
        f.query ?? null,
        f.cron,
        f.model ?? null,
        f.share_link ?? null,
        f.sources == null ? null : JSON.stringify(f.sources),
        f.report == null ? null : JSON.stringify(f.report),
        JSON.stringify(f.triggers),
        f.always_trigger ?? false,
        f.repeat ?? true,
        f.active ?? true,
        f.alert_type ?? null,
        f.title ?? null,
      ],
    );
    return (await this.get(id, owner.userId))!;
  }

  /** The alert when `userId` owns it (deleted ones only with includeDeleted). */
  async get(id: string, userId: string, includeDeleted = false): Promise<AlertRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const r = await this.db.one<Raw>(
      `SELECT ${COLUMNS} FROM alerts WHERE id = $1::UUID AND user_id = $2::UUID ${includeDeleted ? '' : 'AND deleted_at IS NULL'}`,
      [id, userId],
    );
    return r ? toAlert(r) : undefined;
  }

  async list(userId: string, q: PageQuery & { include_deleted: boolean }): Promise<Page<AlertRow>> {
    const where = `user_id = $1::UUID ${q.include_deleted ? '' : 'AND deleted_at IS NULL'}`;
    const count = Number((await this.db.one<{ n: bigint }>(`SELECT count(*) AS n FROM alerts WHERE ${where}`, [userId]))!.n);
    const limit = q.all ? '' : `LIMIT ${q.per_page} OFFSET ${(q.page - 1) * q.per_page}`;
    const rows = await this.db.all<Raw>(`SELECT ${COLUMNS} FROM alerts WHERE ${where} ORDER BY created_at, id ${limit}`, [userId]);
    return paginate(rows.map(toAlert), count, q);
  }

  /** The updated alert; undefined when it was deleted meanwhile (a delete won the race). */
  async update(a: AlertRow, f: Partial<AlertFields>, now: number): Promise<AlertRow | undefined> {
    const next = { ...a, ...Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)) } as AlertRow & AlertFields;
    return this.db.tx(async (q) => {
      await q.run(
        `UPDATE alerts SET updated_at = make_timestamp($2::BIGINT * 1000), expires_at = $3::TIMESTAMP, query = $4, cron = $5, model = $6, share_link = $7,
           sources = $8::JSON, report = $9::JSON, triggers = $10::JSON, always_trigger = $11, repeat = $12, active = $13, alert_type = $14, title = $15
         WHERE id = $1::UUID AND deleted_at IS NULL`,
        [
          a.id,
          now,
          next.expires_at ? new Date(next.expires_at).toISOString().replace('Z', '') : null,
          next.query ?? null,
          next.cron,
          next.model ?? null,
          next.share_link ?? null,
          next.sources == null ? null : JSON.stringify(next.sources),
          next.report == null ? null : JSON.stringify(next.report),
          JSON.stringify(next.triggers),
          next.always_trigger,
          next.repeat,
          next.active,
          next.alert_type ?? null,
          next.title ?? null,
        ],
      );
      return live(q, a.id);
    });
  }

  async delete(a: AlertRow, now: number): Promise<void> {
    await this.db.run('UPDATE alerts SET deleted_at = make_timestamp($2::BIGINT * 1000), active = false WHERE id = $1::UUID', [a.id, now]);
  }

  /**
   * Record a finished run: the log, the new watermark and (AlertOnceIf that fired) deactivation,
   * then the alert as it now stands. A run whose alert was deleted while it ran records nothing
   * and returns undefined (the caller answers 404, as for any deleted alert).
   */
  async recordRun(a: AlertRow, log: AlertLog, opts: { checkedThrough: number | null; deactivate: boolean; isTest: boolean }): Promise<AlertRow | undefined> {
    return this.db.tx(async (q) => {
      if (!(await live(q, a.id))) return undefined;
      await q.run(
        `INSERT INTO alert_logs (id, alert_id, user_id, created_at, alert, reasoning, report, report_url, article_ids, webhook, is_test)
         VALUES ($1, $2, $3, $4::TIMESTAMP, $5, $6, $7, $8, CASE WHEN $9 = '' THEN []::UUID[] ELSE string_split($9, ',')::UUID[] END, $10::JSON, $11)`,
        [
          log.id,
          log.alert_id,
          log.user_id,
          log.created_at.replace('Z', ''),
          log.alert,
          log.reasoning,
          log.report ?? null,
          log.report_url ?? null,
          log.article_ids.join(','),
          log.webhook == null ? null : JSON.stringify(log.webhook),
          opts.isTest,
        ],
      );
      if (opts.checkedThrough !== null) {
        await q.run('UPDATE alerts SET checked_through = make_timestamp($2::BIGINT * 1000) WHERE id = $1::UUID', [a.id, opts.checkedThrough]);
      }
      if (opts.deactivate) await q.run('UPDATE alerts SET active = false WHERE id = $1::UUID', [a.id]);
      return live(q, a.id);
    });
  }

  /** Logs of the user's alerts (deleted alerts' logs included), oldest first. */
  async logs(
    userId: string,
    q: PageQuery & { alert_id?: string | null; start_timestamp?: number | null; end_timestamp?: number | null },
  ): Promise<Page<AlertLog>> {
    const conds = ['user_id = $1::UUID'];
    const params: (string | number)[] = [userId];
    if (q.alert_id) conds.push(`alert_id = $${params.push(q.alert_id)}::UUID`);
    if (q.start_timestamp != null) conds.push(`created_at >= make_timestamp($${params.push(q.start_timestamp)}::BIGINT * 1000000)`);
    if (q.end_timestamp != null) conds.push(`created_at <= make_timestamp($${params.push(q.end_timestamp)}::BIGINT * 1000000)`);
    const where = conds.join(' AND ');
    const count = Number((await this.db.one<{ n: bigint }>(`SELECT count(*) AS n FROM alert_logs WHERE ${where}`, params))!.n);
    const limit = q.all ? '' : `LIMIT ${q.per_page} OFFSET ${(q.page - 1) * q.per_page}`;
    const rows = await this.db.all<Raw>(
      `SELECT id::VARCHAR AS id, alert_id::VARCHAR AS alert_id, user_id::VARCHAR AS user_id, created_at, alert, reasoning, report, report_url,
         article_ids::VARCHAR[] AS article_ids, webhook::VARCHAR AS webhook
       FROM alert_logs WHERE ${where} ORDER BY created_at, id ${limit}`,
      params,
    );
    return paginate(rows.map(toLog), count, q);
  }
}

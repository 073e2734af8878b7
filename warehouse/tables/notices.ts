/**
 * The notices ledger (the project file's `notify:`, workflows/notices.ts): one row per (incident,
 * event, channel, target). An incident (a failed run, a pipeline past error_after, a source failing for a
 * day) is opened by an `opened` row and closed by a `resolved` row; each row is one notice to one
 * channel, delivered at least once with the stable idempotency key `<incident id>.<event>`, its
 * status updated in place as alert_deliveries' are (pending, delivered, failed, refused). The
 * ledger is the truth: a delivered row is never sent again, whatever retries.
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';
import { DELIVERY_COLUMNS } from './deliveries.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });

export const NOTICES: TableDef = {
  name: 'notices',
  description: 'one row per (incident, event opened/resolved, channel, target): the notice, its idempotency key, status, attempts, response code',
  mergeKey: ['incident_id', 'event', 'channel', 'target'],
  monthColumn: 'event_at',
  loadedAt: 'coalesce(last_attempt_at, event_at)',
  columns: [
    c('incident_id', 'VARCHAR', 'varchar'),
    c('incident', 'VARCHAR', 'varchar'),
    c('subject', 'VARCHAR', 'varchar'),
    c('event', 'VARCHAR', 'varchar'),
    c('event_at', 'TIMESTAMP', 'bigint'),
    c('detail', 'VARCHAR', 'varchar'),
    c('channel', 'VARCHAR', 'varchar'),
    c('target', 'VARCHAR', 'varchar'),
    ...DELIVERY_COLUMNS,
  ],
};

export const NOTICE_TABLES = [NOTICES];

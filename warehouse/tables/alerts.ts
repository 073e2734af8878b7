/**
 * Tables of the alert runner. `alerts` and `alert_logs` are landed with the usual merge (on alert
 * id and log id); `alert_deliveries` is a ledger the delivery activity updates in place: one row
 * per (log, trigger), planned when the log is landed, then attempts, status and response code.
 */
import type { TableDef } from './table-def.js';
import type { ColKind } from '../../lib/duckdb/stage.js';
import { DELIVERY_COLUMNS } from './deliveries.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });
const tail = [c('row_hash', 'VARCHAR', 'varchar'), c('last_load_id', 'VARCHAR', 'varchar')];

export const ALERTS: TableDef = {
  name: 'alerts',
  description: 'the alerts the runner manages, as last seen by a sync or run (merge on alert_id)',
  mergeKey: ['alert_id'],
  monthColumn: 'created_at',
  columns: [
    c('alert_id', 'UUID', 'varchar'),
    c('user_id', 'VARCHAR', 'varchar'),
    c('title', 'VARCHAR', 'varchar'),
    c('query', 'VARCHAR', 'varchar'),
    c('cron', 'VARCHAR', 'varchar'),
    c('alert_type', 'VARCHAR', 'varchar'),
    c('active', 'BOOLEAN', 'bool'),
    c('repeat', 'BOOLEAN', 'bool'),
    c('always_trigger', 'BOOLEAN', 'bool'),
    c('expires_at', 'TIMESTAMP', 'bigint'),
    c('created_at', 'TIMESTAMP', 'bigint'),
    c('updated_at', 'TIMESTAMP', 'bigint'),
    c('deleted', 'BOOLEAN', 'bool'),
    c('triggers', 'JSON', 'varchar'),
    c('raw', 'JSON', 'varchar'),
    ...tail,
  ],
};

export const ALERT_LOGS: TableDef = {
  name: 'alert_logs',
  description: 'every alert log the runner landed (merge on log_id)',
  mergeKey: ['log_id'],
  monthColumn: 'created_at',
  columns: [
    c('log_id', 'UUID', 'varchar'),
    c('alert_id', 'UUID', 'varchar'),
    c('user_id', 'VARCHAR', 'varchar'),
    c('created_at', 'TIMESTAMP', 'bigint'),
    c('alert', 'BOOLEAN', 'bool'),
    c('reasoning', 'VARCHAR', 'varchar'),
    c('report', 'VARCHAR', 'varchar'),
    c('article_ids', 'VARCHAR[]', 'varchar[]'),
    c('is_test', 'BOOLEAN', 'bool'),
    c('raw', 'JSON', 'varchar'),
    ...tail,
  ],
};

/** Ledger rows: status pending (planned or between attempts), delivered, failed (the last attempt failed; retried), refused (the fetch policy or a redirect refused it; never retried) or skipped (cannot be sent here). */
export const ALERT_DELIVERIES: TableDef = {
  name: 'alert_deliveries',
  description: 'one row per (alert log, trigger): status, attempts, first and last attempt, response code',
  mergeKey: ['log_id', 'trigger_index'],
  monthColumn: 'log_created_at',
  loadedAt: 'coalesce(last_attempt_at, log_created_at)',
  columns: [
    c('log_id', 'UUID', 'varchar'),
    c('trigger_index', 'INTEGER', 'int'),
    c('alert_id', 'UUID', 'varchar'),
    c('log_created_at', 'TIMESTAMP', 'bigint'),
    c('action', 'VARCHAR', 'varchar'),
    c('target', 'VARCHAR', 'varchar'),
    ...DELIVERY_COLUMNS,
  ],
};

export const ALERT_TABLES = [ALERTS, ALERT_LOGS, ALERT_DELIVERIES];

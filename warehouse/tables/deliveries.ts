/**
 * The columns every delivery ledger ends with (alert_deliveries in alerts.ts, notices in
 * notices.ts; warehouse/ledger.ts writes them): the idempotency key, the status (pending,
 * delivered, failed, refused, skipped), attempts, first and last attempt, delivery, response code
 * and error.
 */
import type { ColKind } from '../../lib/duckdb/stage.js';

const c = (name: string, sql: string, kind: ColKind) => ({ name, sql, kind });

export const DELIVERY_COLUMNS = [
  c('idempotency_key', 'VARCHAR', 'varchar'),
  c('status', 'VARCHAR', 'varchar'),
  c('attempts', 'INTEGER', 'int'),
  c('first_attempt_at', 'TIMESTAMP', 'bigint'),
  c('last_attempt_at', 'TIMESTAMP', 'bigint'),
  c('delivered_at', 'TIMESTAMP', 'bigint'),
  c('response_code', 'INTEGER', 'int'),
  c('error', 'VARCHAR', 'varchar'),
];

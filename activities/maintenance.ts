/**
 * Lake maintenance as an activity: one `Warehouse.maintain` run (warehouse/maintain.ts), its
 * steps logged and heartbeated, recorded as one `_loads` row (kind `maintenance`).
 */
import { Context } from '@temporalio/activity';
import type { Warehouse } from '../warehouse/warehouse.js';

export interface MaintenanceInput {
  pipeline?: string;
  loadId: string;
  workflowId?: string | null;
  runId?: string | null;
  retentionDays?: number;
  targetFileSize?: string;
  deleteThreshold?: number;
  dryRun?: boolean;
}

export interface MaintenanceResult {
  filesBefore: number;
  filesAfter: number;
  snapshotsExpired: number;
  filesDeleted: number;
  ms: number;
  steps: { step: string; ms: number; count: number }[];
}

export function createMaintenanceActivities(deps: { warehouse: Warehouse }) {
  return {
    async maintainLake(input: MaintenanceInput): Promise<MaintenanceResult> {
      const ctx = (() => {
        try {
          return Context.current();
        } catch {
          return null;
        }
      })();
      const r = await deps.warehouse.maintain({
        loadId: input.loadId,
        pipeline: input.pipeline ?? 'maintenance',
        workflowId: input.workflowId ?? null,
        runId: input.runId ?? null,
        dryRun: input.dryRun,
        retentionDays: input.retentionDays,
        targetFileSize: input.targetFileSize,
        deleteThreshold: input.deleteThreshold,
        log: (line) => {
          ctx?.log.info(`maintenance ${line}`);
          ctx?.heartbeat(line);
        },
      });
      const files = (ts: typeof r.before) => ts.reduce((a, t) => a + t.files, 0);
      return {
        filesBefore: files(r.before),
        filesAfter: files(r.after),
        snapshotsExpired: r.snapshotsExpired.length,
        filesDeleted: r.filesDeleted.length,
        ms: r.ms,
        steps: r.steps.map(({ step, ms, count }) => ({ step, ms, count })),
      };
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof createMaintenanceActivities>;

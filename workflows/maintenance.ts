/**
 * lakeMaintenance: one maintenance run of the warehouse lake (activities/maintenance.ts), daily by
 * default (the `maintenance` kind of the project file). Pure orchestration; the run records its
 * own `_loads` row. On the maintenance task queue (one run at a time per worker).
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { MaintenanceActivities, MaintenanceResult } from '../activities/maintenance.js';

const { maintainLake } = proxyActivities<MaintenanceActivities>({
  // a day-100 lake takes seconds (bench/day100.ts); a first run on a large unmaintained lake longer
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '10 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 5 },
});

export interface LakeMaintenanceInput {
  /** the named pipeline (project file) this run belongs to: its `_loads` row carries it */
  pipeline?: string;
  retentionDays?: number;
  targetFileSize?: string;
  deleteThreshold?: number;
}

export async function lakeMaintenance(input: LakeMaintenanceInput = {}): Promise<MaintenanceResult & { loadId: string }> {
  const info = workflowInfo();
  const loadId = `${info.workflowId}/${info.runId}`;
  const r = await maintainLake({ ...input, loadId, workflowId: info.workflowId, runId: info.runId });
  return { ...r, loadId };
}

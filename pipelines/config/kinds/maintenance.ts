/** maintenance: keep the lake as fast as on day 1 (warehouse/maintain.ts; docs/warehouse.md, Maintenance). */
import { z } from 'zod';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { Duration, durationMs, kindBase } from '../fields.js';
import { defineKind } from './define.js';

export const MaintenancePipeline = z
  .strictObject({
    ...kindBase,
    kind: z.literal('maintenance'),
    retention: Duration.default('7d').describe('snapshots older than this expire: `sql --at` reaches the loads within it'),
    target_file_size: z
      .string()
      .regex(/^\d+(\.\d+)?\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/i, 'a size such as 256MB or 1GB')
      .default('256MB')
      .describe('small files are merged up to this size'),
    delete_threshold: z.number().min(0).max(1).default(0.1).describe('a file whose deleted share is above this is rewritten without the deleted rows'),
  })
  .describe('maintenance: keep the lake as fast as on day 1 (flush, rewrite, merge, expire, clean up; see docs/warehouse.md)');

export const maintenance = defineKind({
  ...KIND_SPECS.maintenance,
  config: MaintenancePipeline,
  runs: (p) => [
    {
      args: { pipeline: p.name, retentionDays: durationMs(p.retention) / 86_400_000, targetFileSize: p.target_file_size, deleteThreshold: p.delete_threshold },
      what: `lake maintenance, snapshots kept ${p.retention}`,
    },
  ],
});

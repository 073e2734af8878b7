/** alerts: run the API key's alerts and deliver their triggers (one schedule keeps one per alert). */
import { z } from 'zod';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { kindBase } from '../fields.js';
import { defineKind } from './define.js';

export const AlertsPipeline = z
  .strictObject({
    ...kindBase,
    kind: z.literal('alerts'),
    sync: z.boolean().default(true).describe('keep one schedule per active alert of the API (off: alerts are not run here)'),
  })
  .describe('alerts: run the API key’s alerts and deliver their triggers');

export const alerts = defineKind({
  ...KIND_SPECS.alerts,
  config: AlertsPipeline,
  runs: (p) => (p.sync ? [{ what: 'keep one schedule per active alert' }] : []),
});

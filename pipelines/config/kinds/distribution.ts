/** distribution: month-bounded pulls of the hits on your domains. */
import { z } from 'zod';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { kindBase } from '../fields.js';
import { defineKind } from './define.js';
import { RunOptionError, windowOf } from './window.js';

export const DistributionPipeline = z
  .strictObject({
    ...kindBase,
    kind: z.literal('distribution'),
    domains: z.array(z.string().min(1)).min(1).describe("your organization's domains"),
    metric: z.enum(['surface', 'citation', 'grounded']).optional().describe('hit metric (default: the API default)'),
    page_size: z.int().min(1).max(100).default(100),
  })
  .describe('distribution: month-bounded pulls of the hits on your domains (month to date on each run)');

export const distribution = defineKind({
  ...KIND_SPECS.distribution,
  config: DistributionPipeline,
  runs: (p) => [
    {
      args: { pipeline: p.name, domains: p.domains, pageSize: p.page_size, ...(p.metric ? { metric: p.metric } : {}) },
      what: `month to date of ${p.domains.length} domain(s)`,
    },
  ],
  domains: (args) => (args.domains as string[] | undefined) ?? [],
  cli: {
    help: '--from, --to, --domains, --page-size (1-100)',
    run: (o) => {
      const window = windowOf('distribution', o);
      if (!o.domains?.length) throw new RunOptionError('--domains is required for distribution, e.g. --domains a.com,b.com');
      if (o.pageSize < 1 || o.pageSize > 100) throw new RunOptionError('--page-size must be 1..100 for distribution');
      return {
        input: { domains: o.domains, ...window, pageSize: o.pageSize },
        show: (p: { windowIndex: number; windows: number; totalPages: number }) => [p.windowIndex, p.windows, `${p.totalPages} pages`],
      };
    },
  },
});

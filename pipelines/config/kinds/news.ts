/** news: page a search over a window of crawl dates and land the articles. */
import { z } from 'zod';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { Duration, NewsFilters, durationMs, checksField, kindBase } from '../fields.js';
import { defineKind } from './define.js';
import { RunOptionError, windowOf } from './window.js';

export const NewsPipeline = z
  .strictObject({
    ...kindBase,
    ...checksField(KIND_SPECS.news.checks.invariants),
    kind: z.literal('news'),
    query: z.string().max(2000).default('').describe('search query (empty: every article of the window)'),
    filters: NewsFilters.optional(),
    window: Duration.default('1h').describe('each run pulls the articles crawled in this window before its scheduled time'),
    page_size: z.int().min(1).max(101).default(100).describe('articles per request'),
    schema: z
      .enum(['evolve', 'freeze', 'discard'])
      .optional()
      .describe(
        'what a field the API adds (or drops) does: evolve (default) adds a column filled from raw, freeze fails the run naming the path, discard leaves it out; every change is recorded in _schema_changes (docs/warehouse.md)',
      ),
  })
  .describe('news: page a search over a window of crawl dates and land the articles');

export const news = defineKind({
  ...KIND_SPECS.news,
  config: NewsPipeline,
  runs: (p) => [
    {
      args: {
        pipeline: p.name,
        query: p.query,
        filters: p.filters ?? {},
        windowMs: durationMs(p.window),
        pageSize: p.page_size,
        ...(p.schema ? { schema: p.schema } : {}),
      },
      what: `"${p.query.slice(0, 60)}" over the ${p.window} before each run`,
    },
  ],
  cli: {
    help: '--from, --to, --query, --page-size (1-101), --schema (evolve, freeze, discard)',
    run: (o) => {
      const window = windowOf('news', o);
      if (o.pageSize < 1 || o.pageSize > 101) throw new RunOptionError('--page-size must be 1..101');
      if (o.schema !== undefined && !['evolve', 'freeze', 'discard'].includes(o.schema))
        throw new RunOptionError(`unknown --schema "${o.schema}"; use evolve, freeze or discard`);
      return {
        input: { query: o.query, ...window, pageSize: o.pageSize, ...(o.schema ? { schema: o.schema } : {}) },
        show: (p: { pages: number; received: number }) => [p.received, Math.max(p.received, 1), `${p.pages} pages`],
      };
    },
  },
});

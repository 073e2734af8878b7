/** stories: track story queries; land stories, updates and their metrics per run. */
import { z } from 'zod';
import type { Tracker } from '../../../activities/story-tracker.js';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { PipelineName, checksField, kindBase } from '../fields.js';
import { defineKind } from './define.js';
import { RunOptionError } from './window.js';

export const StoryTracker = z.strictObject({
  name: PipelineName,
  query: z.string().optional(),
  method: z.enum(['nl', 'kw', 'both']).optional(),
  strategy: z.enum(['default', 'topstories', 'topstories_categories', 'topstories_continents']).optional(),
  categories: z.array(z.string()).optional(),
  continent: z.union([z.string(), z.array(z.string())]).optional(),
  sort_by: z.enum(['published', 'coverage', 'sentiment', 'relevance', 'confidence']).optional(),
  stories: z.int().min(1).max(1000).optional().describe('stories per run (default 20)'),
  max_updates: z.int().min(1).optional(),
  max_articles: z.int().min(1).optional(),
});
export const StoriesPipeline = z
  .strictObject({
    ...kindBase,
    ...checksField(KIND_SPECS.stories.checks.invariants),
    kind: z.literal('stories'),
    trackers: z
      .array(StoryTracker)
      .min(1)
      .default([{ name: 'top', strategy: 'topstories', stories: 20 }]),
  })
  .describe('stories: track story queries; land stories, updates and their metrics per run');

const trackerOf = (t: z.infer<typeof StoryTracker>): Tracker => {
  const { max_updates, max_articles, ...rest } = t;
  return { ...(rest as Tracker), ...(max_updates ? { maxUpdates: max_updates } : {}), ...(max_articles ? { maxArticles: max_articles } : {}) };
};

export const stories = defineKind({
  ...KIND_SPECS.stories,
  config: StoriesPipeline,
  runs: (p) => [{ args: { pipeline: p.name, trackers: p.trackers.map(trackerOf) }, what: `${p.trackers.length} tracker(s)` }],
  cli: {
    help: '--trackers (JSON)',
    run: (o) => {
      let trackers: unknown;
      try {
        trackers = o.trackers ? JSON.parse(o.trackers) : undefined;
      } catch (e) {
        throw new RunOptionError(`--trackers is not JSON (${(e as Error).message}); e.g. --trackers '[{"name":"top","strategy":"topstories","stories":20}]'`);
      }
      if (trackers !== undefined && (!Array.isArray(trackers) || !trackers.every((t) => t && typeof t === 'object' && typeof t.name === 'string'))) {
        throw new RunOptionError('--trackers must be a JSON array of objects with a "name", e.g. [{"name":"ukraine","query":"Ukraine war","method":"both"}]');
      }
      return {
        input: trackers ? { trackers } : {},
        show: (p: { done: number; trackers: number; stories: number }) => [p.done, p.trackers, `${p.stories} stories`],
      };
    },
  },
});

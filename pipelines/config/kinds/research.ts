/** research: a standing question answered by DeepNews; lands a briefing and its sources. */
import { z } from 'zod';
import { DeepNewsSource } from '../../../spec/index.js';
import { KIND_SPECS } from '../../../workflows/kinds.js';
import { NewsFilters, kindBase } from '../fields.js';
import { defineKind } from './define.js';

export const RESEARCH_MAX_DEPTH = 190;
export const ResearchPipeline = z
  .strictObject({
    ...kindBase,
    kind: z.literal('research'),
    question: z.string().min(1).max(4000),
    depth: z.int().min(1).max(RESEARCH_MAX_DEPTH).default(3).describe('research rounds'),
    sources: z.array(DeepNewsSource).optional().describe('DeepNews sources (default: the API default)'),
    model: z.string().optional().describe('DeepNews model (default: the API default)'),
    filters: NewsFilters.optional(),
  })
  .describe('research: a standing question answered by DeepNews; lands a briefing and its sources');

/** (`newsflow research run` starts one: pipelines/cli/research.ts) */
export const research = defineKind({
  ...KIND_SPECS.research,
  config: ResearchPipeline,
  runs: (p) => [
    {
      args: {
        pipeline: p.name,
        name: p.name,
        question: p.question,
        depth: p.depth,
        ...(p.sources ? { sources: p.sources } : {}),
        ...(p.model ? { model: p.model } : {}),
        ...(p.filters ? { filters: p.filters } : {}),
      },
      what: `"${p.question.slice(0, 60)}"`,
    },
  ],
});

/**
 * The schedules of a project: one per named pipeline of the project file (index-counts: one per
 * sampling), a function of the pipelines alone. No environment is read here: the project
 * (pipelines/config) has applied the environment's overrides already.
 */
import { ScheduleOverlapPolicy, type ScheduleSpec } from '@temporalio/client';
import type { z } from 'zod';
import type { Sampling } from '../../spec/index.js';
import type { ScheduleDecl } from '../../activities/schedules.js';
import type { Tracker } from '../../activities/story-tracker.js';
import { TASK_QUEUES } from '../../workflows/queues.js';
import { DEFAULT_SCHEDULES, durationMs, type Pipeline, type Schedule } from '../config/schema.js';

export { RESEARCH_MAX_DEPTH } from '../config/schema.js';

/** Index-count sampling: when each sampling's schedule runs (UTC) and how far back missed runs are caught up. */
export const INDEX_COUNT_CADENCE: Record<z.infer<typeof Sampling>, { cron: string; catchup: string }> = {
  '5m': { cron: '*/5 * * * *', catchup: '15m' },
  '1h': { cron: '0 * * * *', catchup: '3h' },
  '12h': { cron: '0 0,12 * * *', catchup: '1d' },
  '1d': { cron: '0 0 * * *', catchup: '2d' },
  '1w': { cron: '0 0 * * 1', catchup: '1w' },
  '1m': { cron: '0 0 1 * *', catchup: '1w' },
};

/** A pipeline's own schedule, else its kind's default. */
function when(s: Schedule | undefined, dflt: { every?: string; cron?: string; catchup: string }): { spec: ScheduleSpec; catchup: string; text: string } {
  const every = s ? s.every : dflt.every;
  const cron = s ? s.cron : dflt.cron;
  const catchup = s?.catchup ?? dflt.catchup;
  const spec: ScheduleSpec = every ? { intervals: [{ every: durationMs(every) }] } : { cronExpressions: [cron!.trim()] };
  return { spec, catchup, text: every ? `every ${every}` : `cron "${cron!.trim()}" UTC` };
}

const decl = (p: Pipeline, id: string, workflowType: string, taskQueue: string, w: ReturnType<typeof when>, what: string, args: unknown[]): ScheduleDecl => ({
  id,
  pipeline: p.name,
  description: `${p.name} (${p.kind}): ${what}, ${w.text}`,
  workflowType,
  taskQueue,
  spec: w.spec,
  overlap: ScheduleOverlapPolicy.SKIP,
  catchupWindow: w.catchup,
  paused: p.schedule?.paused ?? false,
  args,
});

const trackerOf = (t: Extract<Pipeline, { kind: 'stories' }>['trackers'][number]): Tracker => {
  const { max_updates, max_articles, ...rest } = t;
  return { ...(rest as Tracker), ...(max_updates ? { maxUpdates: max_updates } : {}), ...(max_articles ? { maxArticles: max_articles } : {}) };
};

/** The schedules of one pipeline. */
export function pipelineSchedules(p: Pipeline): ScheduleDecl[] {
  switch (p.kind) {
    case 'news': {
      const w = when(p.schedule, DEFAULT_SCHEDULES.news);
      const args = {
        pipeline: p.name,
        query: p.query,
        filters: p.filters ?? {},
        windowMs: durationMs(p.window),
        pageSize: p.page_size,
        ...(p.schema ? { schema: p.schema } : {}),
      };
      return [decl(p, p.name, 'newsIngest', TASK_QUEUES.news, w, `"${p.query.slice(0, 60)}" over the ${p.window} before each run`, [args])];
    }
    case 'distribution': {
      const w = when(p.schedule, DEFAULT_SCHEDULES.distribution);
      const args = { pipeline: p.name, domains: p.domains, pageSize: p.page_size, ...(p.metric ? { metric: p.metric } : {}) };
      return [decl(p, p.name, 'distributionPull', TASK_QUEUES.distribution, w, `month to date of ${p.domains.length} domain(s)`, [args])];
    }
    case 'stories': {
      const w = when(p.schedule, DEFAULT_SCHEDULES.stories);
      return [
        decl(p, p.name, 'storyTracker', TASK_QUEUES.stories, w, `${p.trackers.length} tracker(s)`, [{ pipeline: p.name, trackers: p.trackers.map(trackerOf) }]),
      ];
    }
    case 'index-counts':
      return p.samplings.map((sampling) => {
        const w = when(p.schedule, INDEX_COUNT_CADENCE[sampling]);
        const args = {
          pipeline: p.name,
          sampling,
          ...(p.domains?.length ? { domains: p.domains } : {}),
          ...(p.filters && Object.keys(p.filters).length ? { filters: p.filters } : {}),
          ...(p.lookback ? { lookback: p.lookback } : {}),
        };
        return decl(p, `${p.name}-${sampling}`, 'indexCountSampler', TASK_QUEUES.news, w, `${sampling} buckets, re-sampling the lookback`, [args]);
      });
    case 'research': {
      const w = when(p.schedule, DEFAULT_SCHEDULES.research);
      const args = {
        pipeline: p.name,
        name: p.name,
        question: p.question,
        depth: p.depth,
        ...(p.sources ? { sources: p.sources } : {}),
        ...(p.model ? { model: p.model } : {}),
        ...(p.filters ? { filters: p.filters } : {}),
      };
      return [decl(p, p.name, 'deepResearch', TASK_QUEUES.research, w, `"${p.question.slice(0, 60)}"`, [args])];
    }
    case 'graph': {
      const w = when(p.schedule, DEFAULT_SCHEDULES.graph);
      const o = p.options;
      const args = {
        pipeline: p.name,
        query: p.query,
        ...(p.filters ? { filterParams: p.filters } : {}),
        ...(o?.geo ? { geo: true } : {}),
        ...(o?.visualize ? { visualize: true } : {}),
        ...(o?.min_cluster_probability !== undefined ? { minClusterProbability: o.min_cluster_probability } : {}),
      };
      return [decl(p, p.name, 'entityGraph', TASK_QUEUES.news, w, `the graph of "${p.query.slice(0, 60)}"`, [args])];
    }
    case 'workflow': {
      const w = when(p.schedule, DEFAULT_SCHEDULES.workflow);
      return [decl(p, p.name, p.workflow, TASK_QUEUES[p.queue], w, `your workflow ${p.workflow}`, [{ ...p.input, pipeline: p.name }])];
    }
    case 'alerts': {
      if (!p.sync) return [];
      const w = when(p.schedule, DEFAULT_SCHEDULES.alerts);
      return [decl(p, p.name, 'alertSync', TASK_QUEUES.alerts, w, 'keep one schedule per active alert', [])];
    }
  }
}

/** Every schedule of the project's pipelines, in the file's order. */
export function declareSchedules(pipelines: Pipeline[]): ScheduleDecl[] {
  return pipelines.flatMap(pipelineSchedules);
}

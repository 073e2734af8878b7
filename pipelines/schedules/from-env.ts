/**
 * The schedules' configuration from NEWSFLOW_* environment variables, read when called (never at
 * import). A bad value is reported (console.warn) and its schedules left out; the rest still apply.
 */
import type { z } from 'zod';
import { Sampling } from '../../spec/index.js';
import type { ScheduleDecl } from '../../activities/schedules.js';
import { declareSchedules, RESEARCH_MAX_DEPTH, type SchedulesConfig, type StandingQuestion } from './declare.js';

/** The schedules the environment declares. */
export const schedulesFromEnv = (env: NodeJS.ProcessEnv = process.env): ScheduleDecl[] => declareSchedules(schedulesConfigFromEnv(env));

export function schedulesConfigFromEnv(env: NodeJS.ProcessEnv): SchedulesConfig {
  return {
    distributionDomains: split(env.NEWSFLOW_DISTRIBUTION_DOMAINS ?? ''),
    alerts: env.NEWSFLOW_ALERTS !== '0',
    storyTracker: storyTrackerFromEnv(env),
    research: researchFromEnv(env),
    indexCounts: indexCountsFromEnv(env),
  };
}

const split = (v: string) =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

/**
 * Story tracking: the trackers of NEWSFLOW_STORY_TRACKERS (a JSON array of {name, query?, method?,
 * strategy?, categories?, continent?, sort_by?, stories?, maxUpdates?, maxArticles?}; default: the
 * 20 top stories), `0` for none.
 */
export function storyTrackerFromEnv(env: NodeJS.ProcessEnv): SchedulesConfig['storyTracker'] {
  const raw = env.NEWSFLOW_STORY_TRACKERS;
  if (raw === '0') return null;
  if (!raw) return {};
  let trackers: unknown;
  try {
    trackers = JSON.parse(raw);
  } catch (e) {
    console.warn(
      `newsflow: NEWSFLOW_STORY_TRACKERS is not JSON (${(e as Error).message}); story-tracker schedule left out. e.g. [{"name":"top","strategy":"topstories","stories":20}]`,
    );
    return null;
  }
  if (!Array.isArray(trackers) || !trackers.every((t) => t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string')) {
    console.warn('newsflow: NEWSFLOW_STORY_TRACKERS must be a JSON array of objects with a "name"; story-tracker schedule left out');
    return null;
  }
  return { trackers };
}

/**
 * Standing research questions: NEWSFLOW_RESEARCH, a JSON array of {name, question, depth?,
 * sources?, model?, filters?, cron?}; unset or empty: none. A bad declaration is reported and left
 * out (the rest still apply).
 */
export function researchFromEnv(env: NodeJS.ProcessEnv): StandingQuestion[] {
  const raw = (env.NEWSFLOW_RESEARCH ?? '').trim();
  if (!raw) return [];
  const example = '[{"name":"ukraine","question":"What changed in the war in Ukraine?","depth":3}]';
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch (e) {
    console.warn(`newsflow: NEWSFLOW_RESEARCH is not JSON (${(e as Error).message}); research schedules left out. e.g. ${example}`);
    return [];
  }
  if (!Array.isArray(list)) {
    console.warn(`newsflow: NEWSFLOW_RESEARCH must be a JSON array, e.g. ${example}; research schedules left out`);
    return [];
  }
  const out: StandingQuestion[] = [];
  const names = new Set<string>();
  for (const q of list as Partial<StandingQuestion>[]) {
    const bad =
      !q || typeof q !== 'object'
        ? 'not an object'
        : typeof q.name !== 'string' || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(q.name)
          ? '"name" must be lower-case letters, digits and dashes'
          : names.has(q.name)
            ? `"name" ${q.name} is declared twice`
            : typeof q.question !== 'string' || !q.question.trim()
              ? '"question" must be a non-empty string'
              : q.depth !== undefined && (!Number.isInteger(q.depth) || q.depth < 1 || q.depth > RESEARCH_MAX_DEPTH)
                ? `"depth" must be an integer 1..${RESEARCH_MAX_DEPTH}`
                : q.sources !== undefined && (!Array.isArray(q.sources) || !q.sources.every((x) => typeof x === 'string'))
                  ? '"sources" must be an array of strings'
                  : q.cron !== undefined && (typeof q.cron !== 'string' || q.cron.trim().split(/\s+/).length !== 5)
                    ? '"cron" must be a 5-field cron expression'
                    : null;
    if (bad) {
      console.warn(`newsflow: NEWSFLOW_RESEARCH: ${JSON.stringify(q)?.slice(0, 80)}: ${bad}; left out`);
      continue;
    }
    names.add(q.name!);
    out.push(q as StandingQuestion);
  }
  return out;
}

/**
 * Index-count sampling: the samplings of NEWSFLOW_INDEX_COUNT_SAMPLINGS (default `1h,1d`; empty:
 * none), each over NEWSFLOW_INDEX_COUNT_DOMAINS (comma-separated; default: one series over every
 * domain). Unknown samplings are reported and left out.
 */
export function indexCountsFromEnv(env: NodeJS.ProcessEnv): SchedulesConfig['indexCounts'] {
  const wanted = split(env.NEWSFLOW_INDEX_COUNT_SAMPLINGS ?? '1h,1d');
  const bad = wanted.filter((x) => !Sampling.safeParse(x).success);
  if (bad.length)
    console.warn(`newsflow: NEWSFLOW_INDEX_COUNT_SAMPLINGS: unknown sampling ${bad.join(', ')} left out; samplings: ${Sampling.options.join(', ')}`);
  return {
    samplings: wanted.filter((x) => Sampling.safeParse(x).success) as z.infer<typeof Sampling>[],
    domains: split(env.NEWSFLOW_INDEX_COUNT_DOMAINS ?? ''),
  };
}

/**
 * The fields project-file entries share: durations, cron expressions, a schedule, a pipeline's
 * name, news search filters, and the base of every pipeline entry (name, schedule). The kinds
 * (kinds/) build their entries from these; schema.ts the file.
 */
import { z } from 'zod';
import { Cron } from 'croner';
import { filterShape } from '../../spec/index.js';

/** `30s`, `15m`, `1h`, `2d`, `1w`: a whole number and a unit. */
export const Duration = z
  .string()
  .regex(/^[1-9]\d{0,5}(s|m|h|d|w)$/, 'a duration: a whole number and one of s, m, h, d, w, e.g. 15m, 1h, 2d')
  .meta({ examples: ['15m', '1h', '1d'] });
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;
export const durationMs = (d: string): number => Number(d.slice(0, -1)) * UNIT_MS[d.slice(-1) as keyof typeof UNIT_MS];

/** A five-field cron expression in UTC, as Temporal schedules take it. */
export const CronExpr = z
  .string()
  .refine((s) => s.trim().split(/\s+/).length === 5, 'a cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "0 6 * * *"')
  .refine((s) => {
    if (s.trim().split(/\s+/).length !== 5) return true; // said above
    try {
      new Cron(s.trim(), { paused: true });
      return true;
    } catch {
      return false;
    }
  }, 'a valid cron expression (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *"');

export const Schedule = z
  .strictObject({
    every: Duration.optional().describe('run at this interval (e.g. 15m); one of every or cron'),
    cron: CronExpr.optional().describe('run at these times (UTC, five fields); one of every or cron'),
    catchup: Duration.optional().describe('how far back runs missed while nothing ran are caught up (default: per kind)'),
    paused: z.boolean().optional().describe('declared but not running'),
  })
  .refine((s) => (s.every === undefined) !== (s.cron === undefined), { message: 'give exactly one of every or cron' })
  .describe('when the pipeline runs: every or cron, plus a catch-up window');
export type Schedule = z.infer<typeof Schedule>;

export const PipelineName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a name of lower-case letters, digits and dashes (at most 63), e.g. chips-export-controls');

/** The search parameters a news pipeline may set; the pipeline sets the window, paging and return type itself. */
const PIPELINE_SET = ['query', 'n_articles', 'offset', 'start_timestamp', 'end_timestamp', 'return_type', 'historical', 'hours_back'] as const;
/** A field as the API takes it, without its default: a pipeline's filters hold what the file says, no more. */
export const given = (s: z.ZodType): z.ZodType => (s instanceof z.ZodDefault ? (s.unwrap() as z.ZodType) : s).optional();
const searchFilters = Object.fromEntries(
  Object.entries(filterShape)
    .filter(([k]) => !(PIPELINE_SET as readonly string[]).includes(k))
    .map(([k, s]) => [k, given(s as z.ZodType)]),
);
export const NewsFilters = z.strictObject(searchFilters).describe('any search parameter of GET /v1/news/search but the window, paging and return type');

/** The fields of every pipeline entry: its name and schedule (a kind's schema spreads them). */
export const kindBase = {
  name: PipelineName.describe('unique name: the schedule id, and the `pipeline` column of _loads and pipeline_articles'),
  schedule: Schedule.optional(),
};

/**
 * The fields project-file entries share: durations, cron expressions, a schedule, a pipeline's
 * name, news search filters, the base of every pipeline entry (name, schedule, freshness) and
 * the checks of the kinds whose loads are checked. The kinds
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

/**
 * How long a pipeline may go without a load before `newsflow status` says so: past warn_after it is
 * late (a warning, exit 0), past error_after stale (exit 2). Unset, each is derived from the
 * schedule's period (pipelines/run/status.ts, freshnessOf): warn after 2 periods (one run missed),
 * error after 3 (two in a row); a bound given alone moves the other so that warn <= error.
 */
export const Freshness = z
  .strictObject({
    warn_after: Duration.optional().describe("late past this long without a load (default: 2 x the schedule's period, at least 5m)"),
    error_after: Duration.optional().describe(
      "stale past this long without a load: newsflow status exits 2 (default: 3 x the schedule's period, at least 10m)",
    ),
  })
  .superRefine((f, ctx) => {
    if (f.warn_after === undefined || f.error_after === undefined) return;
    if (durationMs(f.warn_after) >= durationMs(f.error_after))
      ctx.addIssue({
        code: 'custom',
        path: ['warn_after'],
        message: `warn_after (${f.warn_after}) must be shorter than error_after (${f.error_after}): a pipeline is late before it is stale`,
      });
  })
  .describe('how long the pipeline may go without a load (newsflow status: late past warn_after, stale past error_after)');
export type Freshness = z.infer<typeof Freshness>;

/**
 * The checks on every load of a kind's runs (workflows/checks.ts): a failed one fails the run,
 * non-retryable, naming the check. `invariants`: the boolean invariants its `_loads` rows record
 * (workflows/kinds.ts, KIND_SPECS[kind].checks); a kind that records none takes min_rows only.
 */
export const Checks = (invariants: readonly string[]) =>
  z
    .strictObject({
      min_rows: z
        .int()
        .min(0)
        .optional()
        .describe('each load must receive at least this many rows from the API (rows_received: a rerun over landed rows inserts none and passes)'),
      ...(invariants.length
        ? {
            invariants: z
              .enum(['enforce', 'record'])
              .default('record')
              .describe(`enforce: a load whose ${invariants.join(' or ')} is false fails the run; record: they are only recorded in _loads.invariants`),
          }
        : {}),
    })
    .describe('checks on each load; a failed one fails the run (non-retryable) and is recorded in _loads.check_failed');
export type Checks = { min_rows?: number; invariants?: 'enforce' | 'record' };

/** The `checks:` field of a kind whose loads are checked (its boolean invariants, possibly none). */
export const checksField = (invariants: readonly string[]) => ({ checks: Checks(invariants).optional() });

/** The fields of every pipeline entry: its name, schedule and freshness (a kind's schema spreads them; a kind whose loads are checked adds checksField). */
export const kindBase = {
  name: PipelineName.describe('unique name: the schedule id, and the `pipeline` column of _loads and pipeline_articles'),
  schedule: Schedule.optional(),
  freshness: Freshness.optional(),
};

/**
 * Where notices go (docs/operations.md, Notices): a webhook (JSON, or Slack's `{"text": …}`) and/or
 * email addresses (through NEWSFLOW_SMTP_URL). Set, one schedule judges every pipeline each
 * `every`: a failed run, a pipeline past its error_after, a source failing for a day, and the
 * recovery of each, one notice per incident event.
 */
export const Notify = z
  .strictObject({
    webhook: z
      .strictObject({
        url: z
          .url({ protocol: /^https?$/ })
          .describe('the URL notices are POSTed to (under the fetch policy: public addresses unless NEWSFLOW_FETCH_ALLOW lists it)'),
        format: z.enum(['json', 'slack']).default('json').describe('json: the incident as fields; slack: `{"text": …}`, what a Slack incoming webhook takes'),
        headers: z.record(z.string(), z.string()).optional().describe('headers sent with each notice (e.g. Authorization: ${HOOK_TOKEN})'),
      })
      .optional()
      .describe('a webhook: one POST per notice, with the Idempotency-Key <incident id>.<event>'),
    email: z
      .strictObject({ to: z.array(z.email()).min(1).describe('the addresses, one mail each') })
      .optional()
      .describe('email through NEWSFLOW_SMTP_URL (unset: email notices are recorded as skipped)'),
    every: Duration.default('1m').describe('how often the pipelines are judged (the notices schedule)'),
  })
  .refine((n) => n.webhook !== undefined || n.email !== undefined, { message: 'give webhook, email or both', when: (p) => p.issues.length === 0 })
  .describe('notices of failed runs, pipelines past error_after and sources failing for a day, and of their recovery (docs/operations.md, Notices)');
export type Notify = z.infer<typeof Notify>;
